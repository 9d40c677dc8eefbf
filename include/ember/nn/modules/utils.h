// What the convolution and pooling layers take for their size arguments: an int or a tuple of
// ints (PyTorch's `_size_2_t`), remembered as given so that repr prints it as PyTorch does
// (MaxPool2d(2) prints "kernel_size=2", MaxPool2d((2, 2)) prints "kernel_size=(2, 2)").
//
//   ember::nn::Conv2d conv(3, 8, 3);              // kernel_size 3 -> (3, 3)
//   ember::nn::Conv2d conv2(3, 8, {3, 5}, 1, {1, 2});
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ember::nn {

class IntOrTuple {
 public:
  IntOrTuple(int64_t v) : values_{v}, is_int_(true) {}  // NOLINT: an int, as in Python
  IntOrTuple(int v) : IntOrTuple(int64_t{v}) {}         // NOLINT
  IntOrTuple(std::initializer_list<int64_t> v) : values_(v) {}
  IntOrTuple(std::vector<int64_t> v) : values_(std::move(v)) {}  // NOLINT

  /// Whether an int was given (not a tuple).
  bool is_int() const { return is_int_; }
  /// The values as given: one for an int.
  const std::vector<int64_t>& values() const { return values_; }
  /// PyTorch's _single / _pair / _triple: an int repeated n times; a tuple as it is.
  std::vector<int64_t> expand(size_t n) const {
    return is_int_ ? std::vector<int64_t>(n, values_[0]) : values_;
  }
  /// Python's repr of what was given: "2" or "(2, 3)".
  std::string repr() const;
  bool operator==(const IntOrTuple& o) const {
    return values_ == o.values_ && is_int_ == o.is_int_;
  }

 private:
  std::vector<int64_t> values_;
  bool is_int_ = false;
};

}  // namespace ember::nn
