// ember's pickle reader and writer (internal): the subset of Python's pickle that checkpoints
// use, over checkpoint trees (ember::serialization::Node).
#pragma once

#include <functional>
#include <string>

#include "ember/serialization.h"

namespace ember::serialization::detail {

/// Turns a persistent id (the tuple torch.save writes for each storage) into a Storage node.
using PersistentLoad = std::function<NodePtr(const Node& pid)>;

/// Unpickles one pickle from data[0, n): `what` names it in errors ("archive/data.pkl");
/// `consumed` (if given) receives the bytes used (the legacy format holds several pickles).
/// Only allowlisted globals resolve (Note [The unpickler's allowlist]); anything else throws
/// UnpicklingError naming the global and the byte position, before anything is built from it.
NodePtr unpickle(const char* data, size_t n, const PersistentLoad& persistent_load,
                 const std::string& what, size_t* consumed = nullptr);

/// The persistent id tuple torch.save writes for a storage.
struct StorageRef {
  std::string key;
  intrusive_ptr<Storage> storage;
  ScalarType dtype;
  int64_t numel;
  std::string location;
};

/// Writes `obj` as Python's pickle.Pickler(protocol) would write the same Python object (with
/// torch.save's persistent ids for storages). `on_storage` sees each new storage once, in order.
std::string pickle_node(const NodePtr& obj, int protocol,
                        const std::function<void(const StorageRef&)>& on_storage);

// ---- tensors from checkpoint arguments (tensors.cpp) ----
/// The tensor `_rebuild_tensor_v2` describes, after checking the geometry against the storage:
/// offset, sizes and strides non-negative, the furthest element inside the storage.
Tensor rebuild_tensor(const Node& storage, int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides, const std::string& where);
/// `_rebuild_qtensor`'s tensor; `qparams` is (qscheme, scale, zero_point) or
/// (qscheme, scales, zero_points, axis).
Tensor rebuild_qtensor(const Node& storage, int64_t offset, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const Node& qparams,
                       const std::string& where);
/// The storage type global's dtype: "torch.FloatStorage" -> float32; Undefined if not one.
ScalarType storage_type_dtype(const std::string& name);
/// The storage type name for a dtype: float32 -> "FloatStorage".
const char* storage_type_name(ScalarType t);

}  // namespace ember::serialization::detail
