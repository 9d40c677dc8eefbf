// nnq.Quantize / DeQuantize, ReLU6, Hardswish, Dropout, BatchNorm2d, nniq.BNReLU2d, and the
// functional wrappers FloatFunctional, FXFloatFunctional and QFunctional.
#include "ember/nn/quantized/modules.h"

#include "ember/nn/functional.h"
#include "ember/nn/modules/linear.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/print.h"
#include "ember/quantized/elementwise.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "module_state.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

#define EMBER_QMODULE_BOXED_FORWARD(Cls)                              \
  Value Cls::forward(const std::vector<Value>& inputs) {             \
    detail::check_forward_inputs(type_name(), inputs, {"input"});    \
    return forward(inputs[0].to_tensor());                           \
  }

// ---- Quantize / DeQuantize ----

Quantize::Quantize(double scale, int64_t zero_point, ScalarType dtype_, TensorOptions options)
    : Module("Quantize"), dtype(dtype_) {
  // torch.tensor([scale]) in the default float dtype (or the one given), zero point int64.
  const ScalarType fdtype = options.dtype_or_default();
  register_buffer("scale", tensor({scale}, options.dtype(fdtype)));
  register_buffer("zero_point", tensor({zero_point}, options.dtype(kInt64)));
}

Tensor Quantize::forward(const Tensor& input) {
  // float(self.scale): the buffer's value as a Python float (the float32 value, widened).
  const double s = buffer("scale").item().to<double>();
  const int64_t z = buffer("zero_point").item().to<int64_t>();
  return quantize_per_tensor(input, s, z, dtype);
}
EMBER_QMODULE_BOXED_FORWARD(Quantize)

std::string Quantize::extra_repr() const {
  auto& self = const_cast<Quantize&>(*this);
  return "scale=" + to_string(self.buffer("scale")) +
         ", zero_point=" + to_string(self.buffer("zero_point")) + ", dtype=" + dtype_repr(dtype);
}

Tensor DeQuantize::forward(const Tensor& input) { return ember::dequantize(input); }
Value DeQuantize::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"Xq"});
  return forward(inputs[0].to_tensor());
}

// ---- activations, dropout ----

ReLU6::ReLU6(bool inplace) : ReLU(inplace) { set_type_name("QuantizedReLU6"); }
Tensor ReLU6::forward(const Tensor& input) { return q::relu6(input, inplace); }
EMBER_QMODULE_BOXED_FORWARD(ReLU6)

Hardswish::Hardswish(double scale_, int64_t zero_point_)
    : nn::Hardswish(), scale(scale_), zero_point(zero_point_) {
  set_type_name("QuantizedHardswish");
}
Tensor Hardswish::forward(const Tensor& input) { return q::hardswish(input, scale, zero_point); }
EMBER_QMODULE_BOXED_FORWARD(Hardswish)

Dropout::Dropout(double p, bool inplace) : nn::Dropout(p, inplace) {
  set_type_name("QuantizedDropout");
}
Tensor Dropout::forward(const Tensor& input) { return input; }
EMBER_QMODULE_BOXED_FORWARD(Dropout)

// ---- BatchNorm2d / BNReLU2d ----

BatchNorm2d::BatchNorm2d(int64_t num_features, double eps, double momentum, TensorOptions options)
    : BatchNorm2d("QuantizedBatchNorm2d", num_features, eps, momentum, options) {}

BatchNorm2d::BatchNorm2d(std::string type_name, int64_t num_features, double eps,
                         double momentum, TensorOptions options)
    : nn::BatchNorm2d(num_features, eps, momentum, true, true, options) {
  set_type_name(std::move(type_name));
  const ScalarType fdtype = options.dtype_or_default();
  register_buffer("scale", scalar_tensor(1.0, options.dtype(fdtype)));
  register_buffer("zero_point", scalar_tensor(0, options.dtype(kInt64)));
}

double BatchNorm2d::output_scale() { return buffer("scale").item().to<double>(); }
int64_t BatchNorm2d::output_zero_point() { return buffer("zero_point").item().to<int64_t>(); }

Tensor BatchNorm2d::forward(const Tensor& input) {
  return q::batch_norm2d(input, detail::optional_tensor(weight()),
                         detail::optional_tensor(bias()), running_mean(), running_var(), eps,
                         output_scale(), output_zero_point());
}
EMBER_QMODULE_BOXED_FORWARD(BatchNorm2d)

BNReLU2d::BNReLU2d(int64_t num_features, double eps, double momentum, TensorOptions options)
    : BatchNorm2d("QuantizedBNReLU2d", num_features, eps, momentum, options) {}

Tensor BNReLU2d::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 4, "Input shape must be `(N, C, H, W)`!");
  return q::batch_norm2d_relu(input, detail::optional_tensor(weight()),
                              detail::optional_tensor(bias()), running_mean(), running_var(), eps,
                              output_scale(), output_zero_point());
}

// ---- FloatFunctional / FXFloatFunctional ----

FloatFunctional::FloatFunctional() : FloatFunctional("FloatFunctional", true) {}

FloatFunctional::FloatFunctional(std::string type_name, bool observed)
    : Module(std::move(type_name)), observed_(observed) {
  if (observed_) register_module("activation_post_process", std::make_shared<Identity>());
}

Value FloatFunctional::forward(const std::vector<Value>& /*inputs*/) {
  EMBER_FAIL("FloatFunctional is not intended to use the 'forward'. Please use the underlying "
             "operation");
}

Tensor FloatFunctional::observe(const Tensor& r) {
  if (!observed_) return r;
  // Looked up at each call: prepare replaces the Identity by an observer.
  auto app = child("activation_post_process");
  EMBER_CHECK_KIND(ErrorKind::Attribute, app != nullptr, "'", type_name(),
                   "' object has no attribute 'activation_post_process'");
  return app->call({Value(r)}).to_tensor();
}

Tensor FloatFunctional::add(const Tensor& x, const Tensor& y) { return observe(ember::add(x, y)); }
Tensor FloatFunctional::add_scalar(const Tensor& x, const Scalar& y) {
  return ember::add(x, wrapped_scalar_tensor(y));
}
Tensor FloatFunctional::mul(const Tensor& x, const Tensor& y) { return observe(ember::mul(x, y)); }
Tensor FloatFunctional::mul_scalar(const Tensor& x, const Scalar& y) {
  return ember::mul(x, wrapped_scalar_tensor(y));
}
Tensor FloatFunctional::cat(const std::vector<Tensor>& x, int64_t dim) {
  return observe(ember::cat(x, dim));
}
Tensor FloatFunctional::add_relu(const Tensor& x, const Tensor& y) {
  return observe(functional::relu(ember::add(x, y)));
}

// ---- QFunctional ----

QFunctional::QFunctional() : Module("QFunctional") {
  register_module("activation_post_process", std::make_shared<Identity>());
}

Value QFunctional::forward(const std::vector<Value>& /*inputs*/) {
  EMBER_FAIL("Functional is not intended to use the 'forward'. Please use the underlying "
             "operation");
}

std::string QFunctional::extra_repr() const {
  return "scale=" + detail::py_float(scale) + ", zero_point=" + std::to_string(zero_point);
}

void QFunctional::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                      bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  save_qparams(destination, prefix, scale, zero_point);
}

void QFunctional::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                        LocalMetadata& local_metadata, bool /*strict*/,
                                        std::vector<std::string>& missing_keys,
                                        std::vector<std::string>& unexpected_keys,
                                        std::vector<std::string>& error_msgs) {
  const double s = pop_scale(state_dict, prefix + "scale");
  const int64_t z = pop_zero_point(state_dict, prefix + "zero_point");
  Module::schedule_load_write([this, s, z] {
    scale = s;
    zero_point = z;
  });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

Tensor QFunctional::observe(const Tensor& r) {
  auto app = child("activation_post_process");
  EMBER_CHECK_KIND(ErrorKind::Attribute, app != nullptr,
                   "'QFunctional' object has no attribute 'activation_post_process'");
  return app->call({Value(r)}).to_tensor();
}

Tensor QFunctional::add(const Tensor& x, const Tensor& y) {
  return observe(q::add(x, y, scale, zero_point));
}
Tensor QFunctional::add_scalar(const Tensor& x, const Scalar& y) { return q::add_scalar(x, y); }
Tensor QFunctional::mul(const Tensor& x, const Tensor& y) {
  return observe(q::mul(x, y, scale, zero_point));
}
Tensor QFunctional::mul_scalar(const Tensor& x, const Scalar& y) { return q::mul_scalar(x, y); }
Tensor QFunctional::cat(const std::vector<Tensor>& x, int64_t dim) {
  return observe(q::cat(x, dim, scale, zero_point));
}
Tensor QFunctional::add_relu(const Tensor& x, const Tensor& y) {
  return observe(q::add_relu(x, y, scale, zero_point));
}

}  // namespace ember::nn::quantized
