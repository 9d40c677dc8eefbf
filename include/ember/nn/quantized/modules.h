// The quantized modules without packed weights: Quantize / DeQuantize (what QuantStub and
// DeQuantStub convert to), ReLU6, Hardswish, Dropout, BatchNorm2d and the intrinsic BNReLU2d,
// and the functional wrappers FloatFunctional / FXFloatFunctional (float) and QFunctional.
// Reprs, state_dict entries and errors are PyTorch 1.13's.
//
//   ember::nn::quantized::Quantize quant(0.05, 128, ember::kQUInt8);
//   ember::Tensor q = quant(x);                     // quantize_per_tensor(x, 0.05, 128, quint8)
//   ember::nn::quantized::QFunctional skip;
//   skip.scale = 0.1; skip.zero_point = 3;
//   ember::Tensor y = skip.add(q, q);               // quantized::add(q, q, 0.1, 3)
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/dropout.h"
#include "ember/scalar.h"
#include "ember/tensor_options.h"

namespace ember::nn::quantized {

/// Buffers "scale" (float32 [1]) and "zero_point" (int64 [1]); forward is
/// quantize_per_tensor(x, float(scale), int(zero_point), dtype).
class Quantize : public Module {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Quantize> from_float(Module& observed);
  Quantize(double scale, int64_t zero_point, ScalarType dtype, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "scale=tensor([0.1000]), zero_point=tensor([3]), dtype=ember.quint8".
  std::string extra_repr() const override;
  ScalarType dtype;
};

/// x.dequantize().
class DeQuantize : public Module {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<DeQuantize> from_float(Module& observed);
  DeQuantize() : Module("DeQuantize") {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
};

/// quantized::relu6(x, inplace); a ReLU as in PyTorch ("QuantizedReLU6").
class ReLU6 : public ReLU {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ReLU6> from_float(Module& observed);
  explicit ReLU6(bool inplace = false);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
};

/// quantized::hardswish(x, scale, zero_point) ("QuantizedHardswish()").
class Hardswish : public nn::Hardswish {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Hardswish> from_float(Module& observed);
  Hardswish(double scale, int64_t zero_point);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  double scale;
  int64_t zero_point;
};

/// The identity in training and eval mode ("QuantizedDropout(p=0.5, inplace=False)").
class Dropout : public nn::Dropout {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Dropout> from_float(Module& observed);
  explicit Dropout(double p = 0.5, bool inplace = false);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
};

/// A BatchNorm2d (affine, tracking) with buffers "scale" (0-dim float32, 1.0) and
/// "zero_point" (0-dim int64, 0) after the float ones: quantized::batch_norm2d.
class BatchNorm2d : public nn::BatchNorm2d {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<BatchNorm2d> from_float(Module& observed);
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       TensorOptions options = {});
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  BatchNorm2d(std::string type_name, int64_t num_features, double eps, double momentum,
              TensorOptions options);
  /// The output quantization parameters as the kernel takes them (from the buffers).
  double output_scale();
  int64_t output_zero_point();
};

/// BatchNorm2d then ReLU ("QuantizedBNReLU2d"); 4-d inputs only (ValueError otherwise).
class BNReLU2d : public BatchNorm2d {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<BNReLU2d> from_float(Module& observed);
  explicit BNReLU2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                    TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  using BatchNorm2d::forward;
};

/// Float operations with an observer point: add, mul, cat and add_relu pass their result
/// through the "activation_post_process" child (an Identity until prepare puts an observer
/// there); add_scalar and mul_scalar are not observed. forward raises, as PyTorch's.
class FloatFunctional : public Module {
 public:
  FloatFunctional();
  Value forward(const std::vector<Value>& inputs) override;
  Tensor add(const Tensor& x, const Tensor& y);
  Tensor add_scalar(const Tensor& x, const Scalar& y);
  Tensor mul(const Tensor& x, const Tensor& y);
  Tensor mul_scalar(const Tensor& x, const Scalar& y);
  Tensor cat(const std::vector<Tensor>& x, int64_t dim = 0);
  Tensor add_relu(const Tensor& x, const Tensor& y);

 protected:
  FloatFunctional(std::string type_name, bool observed);
  /// The result through activation_post_process (when this class observes).
  Tensor observe(const Tensor& r);

 private:
  bool observed_;
};

/// FloatFunctional without the observer child (FX graph mode inserts its own).
class FXFloatFunctional : public FloatFunctional {
 public:
  FXFloatFunctional() : FloatFunctional("FXFloatFunctional", false) {}
};

/// The quantized ops behind FloatFunctional's methods: add / add_relu / mul / cat produce the
/// module's (scale, zero_point), add_scalar / mul_scalar derive theirs from the input. State
/// entries "scale" (0-dim float32) and "zero_point" (0-dim int64). forward raises.
class QFunctional : public Module {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<QFunctional> from_float(Module& observed);
  QFunctional();
  Value forward(const std::vector<Value>& inputs) override;
  /// "scale=1.0, zero_point=0".
  std::string extra_repr() const override;
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  Tensor add(const Tensor& x, const Tensor& y);
  Tensor add_scalar(const Tensor& x, const Scalar& y);
  Tensor mul(const Tensor& x, const Tensor& y);
  Tensor mul_scalar(const Tensor& x, const Scalar& y);
  Tensor cat(const std::vector<Tensor>& x, int64_t dim = 0);
  Tensor add_relu(const Tensor& x, const Tensor& y);

  double scale = 1.0;
  int64_t zero_point = 0;

 private:
  Tensor observe(const Tensor& r);
};

}  // namespace ember::nn::quantized
