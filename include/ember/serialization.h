// Checkpoints in PyTorch's format: ember::save / ember::load, the C++ side of torch.save /
// torch.load, with no Python in the process (docs/serialization.md).
//
//   ember::save(model->state_dict(), "model.pt");                 // torch.load reads it
//   ember::nn::StateDict sd = ember::load_state_dict("resnet18.pth");   // torch.save wrote it
//   auto obj = ember::load("ckpt.pt", {.mmap = true});             // any checkpoint, as a tree
//   const auto& w = obj->at("model")->at("fc.weight")->tensor;
//
// A checkpoint is a zip holding `<name>/data.pkl` (a pickle of the object, storages referenced
// by key), `<name>/data/<key>` (each storage's raw bytes, 64-byte aligned), `<name>/version`,
// `<name>/byteorder` and `<name>/.data/serialization_id`. Loading runs ember's own unpickler over
// a fixed allowlist of globals (Note [The unpickler's allowlist] in
// src/serialization/unpickler.cpp): a file can describe tensors and containers, never call
// anything else; every size, offset and stride it gives is checked against the records before
// a tensor exists.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/quantized/tensor.h"
#include "ember/storage.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember {
namespace nn {
class StateDict;
}
namespace optim {
struct OptimizerStateDict;
}

namespace serialization {

/// A file that refers to anything outside the allowlist, or whose pickle is malformed
/// (pickle.UnpicklingError in Python).
class UnpicklingError : public Error {
 public:
  using Error::Error;
};

struct Node;
using NodePtr = std::shared_ptr<Node>;

/// One object of a checkpoint, as torch.load would return it in Python. Containers hold
/// NodePtrs, so an object that a pickle refers to twice is one node (as it is one Python object).
struct Node {
  enum class Kind : uint8_t {
    None, Bool, Int, Float, Complex, String, Bytes, Tensor, List, Tuple, Dict, Set, FrozenSet,
    Size, DType, Device, QScheme,
    Storage,  // a storage record (inside the unpickler; never in load()'s result)
    Global,   // an allowlisted callable (inside the unpickler)
  };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0, imag = 0;
  std::string str;  // String, Bytes, and a Global's "module.name"
  Tensor tensor;    // Tensor (a Parameter when tensor.is_parameter())
  std::vector<NodePtr> items;  // List, Tuple, Set, FrozenSet, Size (of Int nodes)
  std::vector<std::pair<NodePtr, NodePtr>> entries;  // Dict, in insertion order
  bool ordered = false;  // Dict: a collections.OrderedDict
  NodePtr metadata;      // Dict: an OrderedDict's `_metadata` attribute (a Dict), if any
  ScalarType dtype = ScalarType::Undefined;  // DType, Storage
  Device device = kCPU;
  QScheme qscheme = QScheme::PerTensorAffine;
  intrusive_ptr<Storage> storage;  // Storage
  std::string location;            // Storage: "cpu", "cuda:0", ...

  Node() = default;
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;
  /// Iterative: a file nesting a million lists must not overflow the stack when freed.
  ~Node();

  static NodePtr none();
  static NodePtr of(bool v);
  static NodePtr of(int64_t v);
  static NodePtr of(int v) { return of(int64_t{v}); }
  static NodePtr of(double v);
  static NodePtr of(std::string v);
  static NodePtr of(const char* v) { return of(std::string(v)); }
  static NodePtr of(const Tensor& t);
  static NodePtr of(ScalarType t);
  static NodePtr of(Device d);
  static NodePtr bytes(std::string v);
  static NodePtr list(std::vector<NodePtr> items = {});
  static NodePtr tuple(std::vector<NodePtr> items = {});
  static NodePtr dict(bool ordered = false);
  static NodePtr size(std::vector<int64_t> sizes);

  bool is(Kind k) const { return kind == k; }
  /// Dict lookup by string key; nullptr when absent.
  NodePtr get(const std::string& key) const;
  /// Dict lookup by string key; throws naming the key when absent.
  const NodePtr& at(const std::string& key) const;
  /// Appends to a Dict (no check for an existing key).
  void set(NodePtr key, NodePtr value) { entries.emplace_back(std::move(key), std::move(value)); }
  void set(const std::string& key, NodePtr value) { set(of(key), std::move(value)); }
  /// "int", "Tensor", "OrderedDict", ... as Python's type names.
  const char* type_name() const;
};

// ---- conversions between ember's C++ types and checkpoint trees ----
/// Scalars, strings, tensors, lists, dtypes, devices; None for None.
NodePtr to_node(const Value& v);
/// An OrderedDict of the entries (with `_metadata` when the state dict has it). A tensor that
/// appears under two keys (tied weights) becomes one node, as one Python object would.
NodePtr to_node(const nn::StateDict& sd);
/// {"state": {index: {name: value}}, "param_groups": [{..., "params": [indices]}]}.
NodePtr to_node(const optim::OptimizerStateDict& sd);
/// A Dict with string keys (an OrderedDict or a dict) as a StateDict, `_metadata` included.
/// Values convert with to_value; a tuple or list of tensors (quantized Linear's
/// `_packed_params._packed_params`) becomes a tensor list, None an undefined tensor within it.
nn::StateDict to_state_dict(const Node& n);
optim::OptimizerStateDict to_optimizer_state_dict(const Node& n);
/// The node as a Value; throws naming the node's type when no Value holds it (a dict).
Value to_value(const Node& n);

// ---- save ----
struct SaveOptions {
  /// Pickle protocol of data.pkl: 2 (PyTorch's default) to 5.
  int pickle_protocol = 2;
  /// The records' folder; empty: "archive" for streams, the file's stem for paths (as PyTorch).
  std::string archive_name;
  /// Paths only: write a temporary file in the same folder, fsync, rename over the target.
  bool atomic = true;
};

void save(const NodePtr& obj, const std::string& path, const SaveOptions& options = {});
void save(const NodePtr& obj, std::ostream& out, const SaveOptions& options = {});
inline void save(const nn::StateDict& sd, const std::string& path, const SaveOptions& o = {}) {
  save(to_node(sd), path, o);
}
inline void save(const nn::StateDict& sd, std::ostream& out, const SaveOptions& o = {}) {
  save(to_node(sd), out, o);
}
inline void save(const Value& v, const std::string& path, const SaveOptions& o = {}) {
  save(to_node(v), path, o);
}
inline void save(const Value& v, std::ostream& out, const SaveOptions& o = {}) {
  save(to_node(v), out, o);
}
/// data.pkl alone: the pickle of `obj`, its storages handed to `record(key, storage)` in the
/// order the pickle names them (the zip writer, or Python's persistent_id twin).
std::string pickle(const NodePtr& obj, int protocol,
                   const std::function<void(const std::string& key,
                                            const intrusive_ptr<Storage>& storage)>& record);

/// A checkpoint from a data.pkl pickled elsewhere (the Python front end's pickle.Pickler, for
/// objects outside checkpoint trees) and the storages its persistent ids name, by key.
using StorageRecords = std::vector<std::pair<std::string, intrusive_ptr<Storage>>>;
void save_pickled(const std::string& pkl, const StorageRecords& storages, const std::string& path,
                  const SaveOptions& options = {});
void save_pickled(const std::string& pkl, const StorageRecords& storages, std::ostream& out,
                  const SaveOptions& options = {});

// ---- load ----
struct LoadOptions {
  /// Where storages go: called with each storage's saved location ("cpu", "cuda:0"); returns
  /// the device to put it on. Empty: the saved location (cpu; anything else is an error, as
  /// PyTorch without CUDA).
  std::function<Device(const std::string& location)> map_location;
  /// PyTorch's callable map_location(storage, location): sees each storage once, loaded on the
  /// CPU, with its saved location; returns the storage to use instead, or null to keep it.
  std::function<intrusive_ptr<Storage>(const intrusive_ptr<Storage>& storage,
                                       const std::string& location)> map_storage;
  /// Tensors view the file's mapping instead of copies (records PyTorch aligned; a record that
  /// is not aligned for its dtype is copied).
  bool mmap = false;
  /// Also verify each storage record's CRC-32 (data.pkl and the small records always are).
  /// Off by default, as in PyTorch: it doubles the cost of a load; never done for mmap loads.
  bool check_crc = false;
};

/// The checkpoint's object. Throws UnpicklingError for a global outside the allowlist (nothing
/// runs), ember::Error for a malformed file.
NodePtr load(const std::string& path, const LoadOptions& options = {});
NodePtr load(std::istream& in, const LoadOptions& options = {});
/// from bytes in memory (a file's whole content).
NodePtr load_bytes(std::string bytes, const LoadOptions& options = {});
/// The legacy pre-1.6 (non-zip) format: read by load() itself; exposed for tests.
bool is_zip_file(const std::string& first_bytes);

}  // namespace serialization

/// Top-level spellings: ember::save(model->state_dict(), "m.pt"); ember::load("m.pt").
using serialization::load;
using serialization::save;
/// load() then to_state_dict().
nn::StateDict load_state_dict(const std::string& path, const serialization::LoadOptions& o = {});
nn::StateDict load_state_dict(std::istream& in, const serialization::LoadOptions& o = {});

}  // namespace ember
