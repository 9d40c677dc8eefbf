// safetensors: the format of Hugging Face's `safetensors` package, read and written by ember.
//
//   ember::safetensors::save_file({{"w", w}, {"b", b}}, "model.safetensors", {{"step", "10"}});
//   auto sd = ember::safetensors::load_file("model.safetensors");   // views of a private mmap
//   ember::safetensors::SafeOpen f("model.safetensors");
//   ember::Tensor rows = f.get_slice("w", {ember::safetensors::Narrow{0, 2}});   // w[0:2], a copy
//
// The layout: 8 bytes (little-endian u64) giving the header's length N, then N bytes of JSON
// (an object: "__metadata__" -> {str: str}, and per tensor {"dtype", "shape", "data_offsets"}),
// padded with spaces to a multiple of 8, then the tensors' bytes, back to back, in the order of
// their offsets, covering the rest of the file exactly. Every header is validated as the
// safetensors crate validates it (Note [safetensors validation] in
// src/serialization/safetensors_format.cpp) before any tensor is made, and the messages are the
// crate's Display texts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::safetensors {

/// What the Python front end raises as `ember.safetensors.SafetensorError` (an Exception,
/// as safetensors' own). Carries the full message, prefix included.
class SafetensorError : public Error {
 public:
  explicit SafetensorError(std::string msg) : Error(std::move(msg)) {}
};

/// A file that does not exist (FileNotFoundError in Python, as safetensors raises).
class FileNotFound : public SafetensorError {
 public:
  using SafetensorError::SafetensorError;
};

using Metadata = std::map<std::string, std::string>;
/// Tensors in the order the caller gives them (the file is ordered by safetensors' rule anyway).
using TensorList = std::vector<std::pair<std::string, Tensor>>;
/// Tensors by name, in the order of their offsets in the file (as safetensors' load_file).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// One entry of a header: dtype as written ("F32", "BF16", ...), shape, byte range within the
/// data section.
struct TensorInfo {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// A parsed, validated header.
struct Header {
  uint64_t header_len = 0;                 // N: the data section starts at 8 + N
  std::optional<Metadata> metadata;        // "__metadata__", when present
  std::vector<std::pair<std::string, TensorInfo>> tensors;  // sorted by data_offsets
  const TensorInfo* find(const std::string& name) const;
};

constexpr uint64_t kMaxHeaderSize = 100'000'000;

/// Parses and validates the header of a complete file image of `size` bytes (only the first
/// 8 + N bytes are read; `size` is what the data offsets are checked against). Throws
/// SafetensorError with the crate's text (without a prefix: "header too large", ...).
Header parse_header(const uint8_t* data, size_t size);

/// The file's bytes for `tensors` (safetensors' order: descending dtype alignment, then name).
/// Refuses tensors sharing memory, non-contiguous and meta tensors, and dtypes the format lacks,
/// as safetensors.torch does (SafetensorError, or ember::Error of kind Value / Runtime with
/// safetensors' texts).
std::string serialize(const TensorList& tensors, const std::optional<Metadata>& metadata = std::nullopt);
/// serialize() into `path`, through a temporary file in the same folder renamed over it (a
/// reader holding an older file mapped keeps its bytes).
void save_file(const TensorList& tensors, const std::string& path,
               const std::optional<Metadata>& metadata = std::nullopt);

/// safetensors.torch's _find_shared_tensors: the names grouped by memory (one group per storage
/// region that overlapping tensors cover; a tensor alone is a group of one). Groups are in
/// order of first appearance, names sorted within a group.
std::vector<std::vector<std::string>> find_shared_tensors(const TensorList& tensors);
/// Whether `t` covers its whole storage (safetensors.torch's _is_complete).
bool is_complete(const Tensor& t);

/// All tensors of a file image held in memory; each tensor owns a copy of its bytes.
NamedTensors load(const void* data, size_t size);
/// All tensors of a file, as views of one private (copy-on-write) mapping of it: no copy, and
/// writes to a tensor never reach the file.
NamedTensors load_file(const std::string& path);

/// One index of get_slice: an element (negative counts from the end) or a range [start, stop)
/// where an absent end means the whole dimension. Like safetensors' slices, ranges are not
/// clamped: a stop past the dimension is an error.
struct Narrow {
  std::optional<uint64_t> start;
  std::optional<uint64_t> stop;
};
using SliceIndex = std::variant<int64_t, Narrow>;

/// A file opened lazily: the header is parsed, tensors are made on demand as views of a
/// private mapping.
class SafeOpen {
 public:
  explicit SafeOpen(const std::string& path);
  /// Tensor names, sorted.
  std::vector<std::string> keys() const;
  /// Tensor names in the order of their data.
  std::vector<std::string> offset_keys() const;
  const std::optional<Metadata>& metadata() const { return header_.metadata; }
  const Header& header() const { return header_; }
  Tensor get_tensor(const std::string& name) const;
  /// The tensor's entry (throws SafetensorError "File does not contain tensor NAME").
  const TensorInfo& info(const std::string& name) const;
  /// A fresh contiguous tensor holding get_tensor(name)[indices...].
  Tensor get_slice(const std::string& name, const std::vector<SliceIndex>& indices) const;

 private:
  struct Mapping;
  std::string path_;
  std::shared_ptr<Mapping> map_;
  Header header_;
};

/// ember's dtype for a safetensors dtype name (nullopt when ember has no such dtype).
std::optional<ScalarType> dtype_from_name(const std::string& name);
/// The safetensors name of an ember dtype (throws SafetensorError for quantized dtypes).
std::string dtype_name(ScalarType t);

}  // namespace ember::safetensors
