// Factories. Options default to default_dtype() and default_device() (see DeviceGuard).
//
//   ember::zeros({2, 3});                       ember::full({2}, 7, ember::kInt64);
//   ember::arange(0, 10, 2);                    ember::linspace(0, 1, 5);
//   ember::tensor({{1, 2}, {3, 4}});            // int64, shape [2, 2]
//   ember::from_blob(ptr, {4}, ember::kFloat32, [](void* p) { delete[] (float*)p; });
#pragma once

#include <functional>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/storage.h"
#include "ember/tensor.h"

namespace ember {

namespace detail {
/// Every factory's last step: `t` made a leaf that requires grad when `options` ask
/// (TensorOptions::requires_grad, torch::requires_grad()).
Tensor apply_requires_grad(Tensor t, const TensorOptions& options);
/// The memory format a call asks for: the options' or the explicit argument, never both
/// (libtorch's check_tensor_options_and_extract_memory_format, with its message).
std::optional<MemoryFormat> memory_format_of(const TensorOptions& options,
                                             std::optional<MemoryFormat> memory_format);
}  // namespace detail

/// empty, zeros, ones, full and the *_like forms lay their result out in options.memory_format
/// when given (Contiguous, ChannelsLast, ChannelsLast3d; Preserve for *_like only).
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
/// A dense tensor laid out in `memory_format` (Contiguous or ChannelsLast); the options must
/// not give a memory format too.
Tensor empty(IntArrayRef sizes, TensorOptions options, MemoryFormat memory_format);
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
/// empty_strided with self's dtype and device unless `options` gives them.
Tensor new_empty_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                         TensorOptions options = {});
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
/// dtype defaults to the scalar's: int64 for ints, default float for floats, bool for bools.
Tensor full(IntArrayRef sizes, const Scalar& fill_value, TensorOptions options = {});

/// The *_like forms take sizes from `self` and dtype / device from it unless given.
Tensor empty_like(const Tensor& self, TensorOptions options = {});
/// Preserve (the default above): self's dense layout, else its suggested format.
Tensor empty_like(const Tensor& self, TensorOptions options, MemoryFormat memory_format);
Tensor zeros_like(const Tensor& self, TensorOptions options = {});
Tensor ones_like(const Tensor& self, TensorOptions options = {});
Tensor full_like(const Tensor& self, const Scalar& fill_value, TensorOptions options = {});

/// [start, end) by step; dtype int64 if all of start/end/step are integral, else default float.
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              TensorOptions options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m, TensorOptions options = {});

/// What ember::tensor takes: a number, or a braced list whose elements are TensorData again
/// (so lists nest to any depth and may mix ints, floats and bools), or a std::vector of numbers.
class TensorData {
 public:
  TensorData() = default;  // an empty list
  template <class T, std::enable_if_t<std::is_arithmetic_v<T> || is_reduced_float_v<T>, int> = 0>
  TensorData(T value) : scalar_(value), is_scalar_(true) {}  // NOLINT: implicit, a leaf
  TensorData(const Scalar& value) : scalar_(value), is_scalar_(true) {}  // NOLINT
  TensorData(std::initializer_list<TensorData> list) : list_(list) {}    // NOLINT
  /// A list built at run time (e.g. from a Python sequence).
  explicit TensorData(std::vector<TensorData> list) : list_(std::move(list)) {}
  template <class T, std::enable_if_t<std::is_arithmetic_v<T> || is_reduced_float_v<T>, int> = 0>
  TensorData(const std::vector<T>& values) {  // NOLINT
    list_.reserve(values.size());
    for (const auto& v : values) list_.emplace_back(static_cast<T>(v));  // vector<bool> too
  }

  bool is_scalar() const { return is_scalar_; }
  const Scalar& scalar() const { return scalar_; }
  const std::vector<TensorData>& list() const { return list_; }

 private:
  Scalar scalar_;
  bool is_scalar_ = false;
  std::vector<TensorData> list_;
};

/// A tensor from nested lists, as torch.tensor: the shape comes from the nesting, the dtype
/// (unless `options` gives one) is bool if every number is a bool, int64 if none is a float,
/// else the default float dtype. Ragged nesting is a ValueError naming the dimension
/// ("expected sequence of length 2 at dim 1 (got 3)").
///   ember::tensor({1, 2, 3});  ember::tensor({{1., 2.}, {3., 4.}});  ember::tensor({true, false});
///   ember::tensor({1.5, 2.0}, ember::kFloat64);  ember::tensor(7);  // 0-d
Tensor tensor(const TensorData& data, TensorOptions options = {});
/// A 0-d tensor holding `value` (dtype from the scalar unless given).
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});
/// A 0-d tensor marked as a wrapped number: it promotes like a Python scalar ("weakly").
Tensor wrapped_scalar_tensor(const Scalar& value);

/// A tensor over memory ember does not own. No copy; `deleter` (optional) runs when the last
/// tensor using the memory goes away. Strides default to contiguous.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {},
                 Storage::Deleter deleter = nullptr);
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {},
                 Storage::Deleter deleter = nullptr);

}  // namespace ember
