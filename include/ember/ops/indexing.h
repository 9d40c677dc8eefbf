// Python-style indexing from C++: t.index({Slice(1, None), 0, None, Ellipsis, mask}).
//
//   using namespace ember::indexing;
//   auto row = t.index({0});                       // t[0]          (a view)
//   auto sub = t.index({Slice(), Slice(1, 3)});    // t[:, 1:3]     (a view)
//   auto sel = t.index({idx, Slice(None, 2)});     // t[idx, :2]    (a copy: advanced indexing)
//   t.index_put_({mask}, 0.0);                     // t[mask] = 0
//
// Semantics are PyTorch's Tensor.__getitem__ / __setitem__: integers, slices, None, Ellipsis
// and bools are applied first as views; tensor indices (int64, or bool / uint8 masks) then go
// to ember::index / ember::index_put_ (aten::index.Tensor / aten::index_put_).
#pragma once

#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/tensor.h"

namespace ember {
namespace indexing {

struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis;
struct NoneIndexType {};
constexpr NoneIndexType None;

/// One bound or the step of a Slice: an integer, or None (open).
class SliceArg {
 public:
  SliceArg(std::nullopt_t = std::nullopt) {}              // NOLINT
  SliceArg(NoneIndexType) {}                              // NOLINT
  SliceArg(int64_t v) : value_(v) {}                      // NOLINT
  SliceArg(int v) : value_(v) {}                          // NOLINT
  SliceArg(std::optional<int64_t> v) : value_(v) {}       // NOLINT
  std::optional<int64_t> value() const { return value_; }

 private:
  std::optional<int64_t> value_;
};

/// start:stop:step with Python defaults (None = open). A zero step is refused here, as
/// Python's slice unpacking does; a negative one when the slice is applied ("step must be
/// greater than zero"), as PyTorch does.
class Slice {
 public:
  Slice(SliceArg start = {}, SliceArg stop = {}, SliceArg step = {})
      : start_(start.value()), stop_(stop.value()), step_(step.value().value_or(1)) {
    EMBER_CHECK_VALUE(step_ != 0, "slice step cannot be zero");
  }
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

}  // namespace indexing

class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(indexing::NoneIndexType) : kind_(Kind::None) {}  // NOLINT
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}           // NOLINT
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::Ellipsis) {}  // NOLINT
  /// "..." is the Ellipsis, as in PyTorch's C++ API; any other string is refused.
  TensorIndex(const char* str) : kind_(Kind::Ellipsis) {  // NOLINT
    EMBER_CHECK_VALUE(str != nullptr && std::strcmp(str, "...") == 0,
                      "Expected \"...\" to represent an ellipsis index, but got \"",
                      str ? str : "(null)", "\"");
  }
  TensorIndex(int64_t i) : kind_(Kind::Integer), int_(i) {}    // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), int_(i) {}        // NOLINT
  // A template, so that pointers and other types do not silently convert to bool.
  template <class T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T b) : kind_(Kind::Boolean), int_(b) {}          // NOLINT
  TensorIndex(indexing::Slice s) : kind_(Kind::Slice), slice_(s) {}  // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return int_; }
  bool boolean() const { return int_ != 0; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t int_ = 0;
  indexing::Slice slice_;
  Tensor tensor_;
};

/// aten::index.Tensor: advanced indexing by a list of optional index tensors (int64, or bool /
/// uint8 masks); None entries keep their dimension. Returns a new tensor.
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
/// aten::index_put_: self[indices] = values (values broadcast to the indexing result and of
/// self's dtype); accumulate adds instead, duplicates included. Duplicate indices without
/// accumulate: the last write in row-major order of the indexing result wins.
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate = false);
/// aten::nonzero: the indices of the non-zero elements, one row each, in row-major order:
/// an int64 tensor of shape [n, self.dim()]. Its shape depends on the data, so meta tensors
/// cannot run it.
Tensor nonzero(const Tensor& self);

}  // namespace ember
