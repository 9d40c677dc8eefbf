// nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d: PyTorch 1.13's attributes
// (stride None -> kernel_size), forwards through nn::functional, and reprs.
#include "ember/nn/modules/pooling.h"

#include "ember/nn/functional.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

// ---- MaxPool2d ----

MaxPool2d::MaxPool2d(IntOrTuple kernel_size_, std::optional<IntOrTuple> stride_,
                     IntOrTuple padding_, IntOrTuple dilation_, bool return_indices_,
                     bool ceil_mode_)
    : Module("MaxPool2d"),
      kernel_size(kernel_size_),
      stride(stride_ ? *stride_ : kernel_size_),
      padding(std::move(padding_)),
      dilation(std::move(dilation_)),
      return_indices(return_indices_),
      ceil_mode(ceil_mode_) {}

Tensor MaxPool2d::forward(const Tensor& input) {
  return F::max_pool2d(input, kernel_size.values(), stride.values(), padding.values(),
                       dilation.values(), ceil_mode);
}

std::tuple<Tensor, Tensor> MaxPool2d::forward_with_indices(const Tensor& input) {
  return F::max_pool2d_with_indices(input, kernel_size.values(), stride.values(),
                                    padding.values(), dilation.values(), ceil_mode);
}

Value MaxPool2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  const Tensor input = inputs[0].to_tensor();
  if (!return_indices) return forward(input);
  auto [values, indices] = forward_with_indices(input);
  return Value(std::vector<Tensor>{values, indices});
}

std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() +
         ", padding=" + padding.repr() + ", dilation=" + dilation.repr() +
         ", ceil_mode=" + detail::py_bool(ceil_mode);
}

// ---- AvgPool2d ----

AvgPool2d::AvgPool2d(IntOrTuple kernel_size_, std::optional<IntOrTuple> stride_,
                     IntOrTuple padding_, bool ceil_mode_, bool count_include_pad_,
                     std::optional<int64_t> divisor_override_)
    : Module("AvgPool2d"),
      kernel_size(kernel_size_),
      stride(stride_ ? *stride_ : kernel_size_),
      padding(std::move(padding_)),
      ceil_mode(ceil_mode_),
      count_include_pad(count_include_pad_),
      divisor_override(divisor_override_) {}

Tensor AvgPool2d::forward(const Tensor& input) {
  return F::avg_pool2d(input, kernel_size.values(), stride.values(), padding.values(), ceil_mode,
                       count_include_pad, divisor_override);
}

Value AvgPool2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() +
         ", padding=" + padding.repr();
}

// ---- adaptive pools ----

std::vector<int64_t> AdaptiveOutputSize::resolve(const Tensor& input, size_t spatial) const {
  if (is_int_) return std::vector<int64_t>(spatial, *values_[0]);
  const size_t n = values_.size();
  // torch's _list_with_default: None takes the size of the matching trailing input dim.
  EMBER_CHECK_VALUE(static_cast<size_t>(input.dim()) > n, "Input dimension should be at least ",
                    n + 1);
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = input.dim() - static_cast<int64_t>(n) + static_cast<int64_t>(i);
    out.push_back(values_[i] ? *values_[i] : input.size(d));
  }
  return out;
}

std::string AdaptiveOutputSize::repr() const {
  if (is_int_) return std::to_string(*values_[0]);
  std::string s = "(";
  for (size_t i = 0; i < values_.size(); ++i)
    s += (i ? ", " : "") + (values_[i] ? std::to_string(*values_[i]) : std::string("None"));
  return s + (values_.size() == 1 ? ",)" : ")");
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(AdaptiveOutputSize output_size_)
    : Module("AdaptiveAvgPool2d"), output_size(std::move(output_size_)) {}

Tensor AdaptiveAvgPool2d::forward(const Tensor& input) {
  return F::adaptive_avg_pool2d(input, output_size.resolve(input));
}

Value AdaptiveAvgPool2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string AdaptiveAvgPool2d::extra_repr() const { return "output_size=" + output_size.repr(); }

AdaptiveMaxPool2d::AdaptiveMaxPool2d(AdaptiveOutputSize output_size_, bool return_indices_)
    : Module("AdaptiveMaxPool2d"),
      output_size(std::move(output_size_)),
      return_indices(return_indices_) {}

Tensor AdaptiveMaxPool2d::forward(const Tensor& input) {
  return F::adaptive_max_pool2d(input, output_size.resolve(input));
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool2d::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool2d_with_indices(input, output_size.resolve(input));
}

Value AdaptiveMaxPool2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  const Tensor input = inputs[0].to_tensor();
  if (!return_indices) return forward(input);
  auto [values, indices] = forward_with_indices(input);
  return Value(std::vector<Tensor>{values, indices});
}

std::string AdaptiveMaxPool2d::extra_repr() const { return "output_size=" + output_size.repr(); }

}  // namespace ember::nn
