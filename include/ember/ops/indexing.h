// Python-style indexing from C++: t.index({Slice(1, None), 0, None, Ellipsis, mask}).
//
//   using namespace ember::indexing;
//   auto row = t.index({0});                       // t[0]
//   auto sub = t.index({Slice(), Slice(1, 3)});    // t[:, 1:3]
//   t.index_put_({t > 0}, 0.0);                     // t[t > 0] = 0
#pragma once

#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {
namespace indexing {

struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis;
struct NoneIndexType {};
constexpr NoneIndexType None;

/// start:stop:step with Python defaults (None = open).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  Slice(std::optional<int64_t> start, NoneIndexType) : Slice(start, std::nullopt) {}
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
  TensorIndex(int64_t i) : kind_(Kind::Integer), int_(i) {}    // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), int_(i) {}        // NOLINT
  TensorIndex(bool b) : kind_(Kind::Boolean), int_(b) {}       // NOLINT
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

/// aten::index.Tensor: advanced indexing by a list of optional index tensors (int64 or bool).
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
/// aten::index_put_: self[indices] = values (accumulate adds instead).
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate = false);

}  // namespace ember
