// torch.ao.nn.quantized.Linear (with its LinearPackedParams child), the intrinsic LinearReLU and
// the dynamic Linear (float input and output, weights quantized). State as PyTorch 1.13 lays it
// out (Note [Quantized module state] in conv.h): "scale", "zero_point", then the child's
// "_packed_params.dtype" and "_packed_params._packed_params" = (weight, bias); both modules are
// version 3 (the dynamic Linear 4), and older layouts load as PyTorch's _load_from_state_dict
// reads them (v1: "weight" / "bias" on the Linear; v2: on the child, with "dtype").
//
//   ember::nn::quantized::Linear fc(1280, 1000);
//   fc.set_weight_bias(qweight, bias);
//   fc.scale = 0.1; fc.zero_point = 60;
//   ember::Tensor y = fc(qx);   // QuantizedLinear(in_features=1280, out_features=1000,
//                               //   scale=0.1, zero_point=60, qscheme=ember.per_tensor_affine)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/custom_class.h"
#include "ember/intrusive_ptr.h"
#include "ember/nn/module.h"

namespace ember::quantized {
class LinearPackedParams;
}

namespace ember::nn::quantized {

/// The child that owns a quantized Linear's packed weight (PyTorch's LinearPackedParams).
/// Only qint8 weights (PyTorch's float16 dynamic form is not implemented: RuntimeError).
class LinearPackedParams : public Module {
 public:
  explicit LinearPackedParams(ScalarType dtype = kQInt8);
  void set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias);
  std::tuple<Tensor, std::optional<Tensor>> _weight_bias() const;
  /// The packed object (ember::quantized::LinearPackedParams, src/quant/packed_params.h), held
  /// as its CustomClassHolder base (see ConvNd::packed_object).
  const intrusive_ptr<CustomClassHolder>& packed_object() const { return packed_; }
  intrusive_ptr<ember::quantized::LinearPackedParams> packed_params() const;
  void set_packed_params(const intrusive_ptr<ember::quantized::LinearPackedParams>& packed);
  /// Returns its input (PyTorch's).
  Value forward(const std::vector<Value>& inputs) override;
  int64_t version() const override { return 3; }
  /// The repr of the (weight, bias) tuple, as PyTorch's __repr__.
  std::string repr() const override;
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  ScalarType dtype;

 private:
  intrusive_ptr<CustomClassHolder> packed_;
};

class Linear : public Module {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Linear> from_float(Module& observed);
  /// An uninitialised qint8 weight [out, in] (scale 1, zero point 0) and a zero bias.
  Linear(int64_t in_features, int64_t out_features, bool bias = true, ScalarType dtype = kQInt8);
  /// quantized::linear(input, packed, scale, zero_point).
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "in_features=4, out_features=3, scale=1.0, zero_point=0, qscheme=ember.per_tensor_affine".
  std::string extra_repr() const override;
  /// Module's repr without the LinearPackedParams child (PyTorch's hide_packed_params_repr).
  std::string repr() const override;
  int64_t version() const override { return 3; }
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  void set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias);
  std::tuple<Tensor, std::optional<Tensor>> _weight_bias() const;
  Tensor weight() const { return std::get<0>(_weight_bias()); }
  std::optional<Tensor> bias() const { return std::get<1>(_weight_bias()); }
  /// The "_packed_params" child (TypeError if it was replaced by another kind of module).
  LinearPackedParams& packed_module() const;

  int64_t in_features;
  int64_t out_features;
  double scale = 1.0;
  int64_t zero_point = 0;

 protected:
  Linear(std::string type_name, int64_t in_features, int64_t out_features, bool bias,
         ScalarType dtype);
};

/// Linear followed by ReLU in one kernel (quantized::linear_relu): "QuantizedLinearReLU".
class LinearReLU : public Linear {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<LinearReLU> from_float(Module& observed);
  LinearReLU(int64_t in_features, int64_t out_features, bool bias = true,
             ScalarType dtype = kQInt8);
  Tensor forward(const Tensor& input) override;
  using Linear::forward;
};

namespace dynamic {

/// torch.ao.nn.quantized.dynamic.Linear ("DynamicQuantizedLinear"): float input, quantized on
/// the fly (quantized::linear_dynamic, reduce_range for version >= 4 as PyTorch), float output
/// in the input's dtype. Keeps the version it was loaded from, as PyTorch's `self.version`.
class Linear : public quantized::Linear {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Linear> from_float(Module& observed);
  Linear(int64_t in_features, int64_t out_features, bool bias = true, ScalarType dtype = kQInt8);
  Tensor forward(const Tensor& input) override;
  using quantized::Linear::forward;
  /// "in_features=3, out_features=4, dtype=ember.qint8, qscheme=ember.per_tensor_affine".
  std::string extra_repr() const override;
  int64_t version() const override { return 4; }
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  /// PyTorch's `self.version`: 4 when built, the checkpoint's version (None: nullopt) once loaded.
  std::optional<int64_t> loaded_version = 4;
};

}  // namespace dynamic

}  // namespace ember::nn::quantized
