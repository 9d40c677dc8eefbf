// nnq.Linear with its LinearPackedParams child, nniq.LinearReLU and nnqd.Linear
// (Note [Quantized module state] in ember/nn/quantized/conv.h).
#include "ember/nn/quantized/linear.h"

#include <sstream>

#include "ember/nn/quantized/utils.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/print.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "module_state.h"
#include "quant/packed_params.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

namespace {

void check_dtype(ScalarType dtype, const char* what) {
  // PyTorch also packs float16 weights for the dynamic Linear (linear_prepack_fp16): not here.
  EMBER_CHECK(dtype != kFloat16, "float16 weights for the ", what,
              " (linear_prepack_fp16) are not supported by ember: use qint8");
  EMBER_CHECK(dtype == kQInt8, "Unsupported dtype specified for ", what, "!");
}


}  // namespace

// ---- LinearPackedParams ----

LinearPackedParams::LinearPackedParams(ScalarType dtype_) : Module("LinearPackedParams"), dtype(dtype_) {
  check_dtype(dtype, "dynamic quantized linear");
  set_weight_bias(_empty_affine_quantized({1, 1}, kQInt8, 1.0, 0), std::nullopt);
}

void LinearPackedParams::set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias) {
  check_dtype(dtype, "dynamic quantized linear");
  set_packed_params(q::linear_prepack(weight, bias));
}

intrusive_ptr<q::LinearPackedParams> LinearPackedParams::packed_params() const {
  return intrusive_ptr<q::LinearPackedParams>(static_cast<q::LinearPackedParams*>(packed_.get()));
}

std::tuple<Tensor, std::optional<Tensor>> LinearPackedParams::_weight_bias() const {
  return q::linear_unpack(packed_params());
}

void LinearPackedParams::set_packed_params(const intrusive_ptr<q::LinearPackedParams>& packed) {
  EMBER_CHECK_TYPE(packed, "LinearPackedParams._packed_params must be a LinearPackedParams object");
  packed_ = intrusive_ptr<CustomClassHolder>(packed.get());
}

Value LinearPackedParams::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"x"});
  return inputs[0];
}

std::string LinearPackedParams::repr() const {
  auto [w, b] = _weight_bias();
  std::string s = "(";
  s += to_string(w);
  s += ", ";
  s += b ? to_string(*b) : std::string("None");
  s += ")";
  return s;
}

void LinearPackedParams::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                             bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  destination.insert(prefix + "dtype", Value(dtype));
  auto [w, b] = _weight_bias();
  // The (weight, bias) tuple; an absent bias is an undefined tensor, None in Python.
  destination.insert(prefix + "_packed_params", Value(std::vector<Tensor>{w, b ? *b : Tensor()}));
}

namespace {
// The (weight, bias) pair of a version-3 entry: a tuple of two tensors, or of a tensor and None.
std::pair<Tensor, std::optional<Tensor>> weight_bias_entry(const Value& v, const std::string& key) {
  auto bad = [&key, &v] {
    EMBER_FAIL_KIND(ErrorKind::Type, "state_dict entry '", key,
                    "' must be a (weight, bias) tuple, got ", v.type_name());
  };
  std::vector<std::optional<Tensor>> items;
  if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list()) {
      items.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
    }
  } else if (v.is_optional_tensor_list()) {
    items = v.to_optional_tensor_list();
  } else {
    bad();
  }
  if (items.size() != 2 || !items[0]) bad();
  return {*items[0], items[1]};
}
}  // namespace

void LinearPackedParams::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                               LocalMetadata& local_metadata, bool /*strict*/,
                                               std::vector<std::string>& missing_keys,
                                               std::vector<std::string>& unexpected_keys,
                                               std::vector<std::string>& error_msgs) {
  // PyTorch's three layouts, chosen by the metadata version (none: the oldest).
  std::optional<int64_t> version;
  auto it = local_metadata.find("version");
  if (it != local_metadata.end() && !it->second.is_none()) version = it->second.to_int();
  ScalarType new_dtype = kQInt8;
  if (version && *version >= 2) {
    Value d = pop_entry(state_dict, prefix + "dtype");
    EMBER_CHECK_TYPE(d.is_dtype(), "state_dict entry '", prefix, "dtype' must be a dtype, got ",
                     d.type_name());
    new_dtype = d.to_dtype();
  }
  check_dtype(new_dtype, "dynamic quantized linear");
  intrusive_ptr<q::LinearPackedParams> packed;
  if (!version || *version < 3) {
    const Tensor w = pop_tensor(state_dict, prefix + "weight");
    const std::optional<Tensor> b = pop_optional_tensor(state_dict, prefix + "bias");
    packed = q::linear_prepack(w, b);
  }
  if (version && *version == 3) {
    auto [w, b] = weight_bias_entry(pop_entry(state_dict, prefix + "_packed_params"),
                                    prefix + "_packed_params");
    packed = q::linear_prepack(w, b);
  }
  if (packed) {
    Module::schedule_load_write([this, packed, new_dtype] {
      dtype = new_dtype;
      set_packed_params(packed);
    });
  }
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

// ---- Linear ----

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, ScalarType dtype)
    : Linear("QuantizedLinear", in_features, out_features, bias, dtype) {}

Linear::Linear(std::string type_name, int64_t in_features_, int64_t out_features_, bool bias,
               ScalarType dtype)
    : Module(std::move(type_name)), in_features(in_features_), out_features(out_features_) {
  check_dtype(dtype, "quantized Linear");
  auto packed = register_module("_packed_params", std::make_shared<LinearPackedParams>(dtype));
  std::optional<Tensor> b;
  if (bias) b = zeros({out_features}, kFloat32);
  packed->set_weight_bias(_empty_affine_quantized({out_features, in_features}, kQInt8, 1.0, 0), b);
}

LinearPackedParams& Linear::packed_module() const {
  auto child = this->child("_packed_params");
  auto* p = dynamic_cast<LinearPackedParams*>(child.get());
  EMBER_CHECK_TYPE(p != nullptr, type_name(),
                   "._packed_params must be a LinearPackedParams module, got ",
                   child ? child->type_name() : std::string("None"));
  return *p;
}

void Linear::set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias) {
  packed_module().set_weight_bias(weight, bias);
}

std::tuple<Tensor, std::optional<Tensor>> Linear::_weight_bias() const {
  return packed_module()._weight_bias();
}

Tensor Linear::forward(const Tensor& input) {
  return q::linear(input, packed_module().packed_params(), scale, zero_point);
}

Value Linear::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) +
         ", out_features=" + std::to_string(out_features) + ", scale=" + detail::py_float(scale) +
         ", zero_point=" + std::to_string(zero_point) +
         ", qscheme=" + qscheme_repr(ember::qscheme(weight()));
}

std::string Linear::repr() const {
  // Module::repr without the packed-params children (PyTorch's hide_packed_params_repr).
  std::vector<std::pair<std::string, const Module*>> children;
  for (const auto& [n, m] : named_children()) {
    if (!dynamic_cast<const LinearPackedParams*>(m.get())) children.emplace_back(n, m.get());
  }
  return nn::detail::format_repr(type_name(), extra_repr(), children);
}

void Linear::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                 bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  save_qparams(destination, prefix, scale, zero_point);
}

void Linear::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                   LocalMetadata& local_metadata, bool /*strict*/,
                                   std::vector<std::string>& missing_keys,
                                   std::vector<std::string>& unexpected_keys,
                                   std::vector<std::string>& error_msgs) {
  const double s = pop_scale(state_dict, prefix + "scale");
  const int64_t z = pop_zero_point(state_dict, prefix + "zero_point");
  auto it = local_metadata.find("version");
  const bool v1 = it == local_metadata.end() || it->second.is_none() || it->second.to_int() == 1;
  if (v1) {
    // Version 1 kept weight and bias here; they moved into the _packed_params child.
    Value w = pop_entry(state_dict, prefix + "weight");
    Value b = pop_entry(state_dict, prefix + "bias");
    state_dict.insert(prefix + "_packed_params.weight", std::move(w));
    state_dict.insert(prefix + "_packed_params.bias", std::move(b));
  }
  Module::schedule_load_write([this, s, z] {
    scale = s;
    zero_point = z;
  });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

// ---- LinearReLU ----

LinearReLU::LinearReLU(int64_t in_features, int64_t out_features, bool bias, ScalarType dtype)
    : Linear("QuantizedLinearReLU", in_features, out_features, bias, dtype) {}

Tensor LinearReLU::forward(const Tensor& input) {
  return q::linear_relu(input, packed_module().packed_params(), scale, zero_point);
}

// ---- dynamic Linear ----

namespace dynamic {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, ScalarType dtype)
    : quantized::Linear("DynamicQuantizedLinear", in_features, out_features, bias, dtype) {}

Tensor Linear::forward(const Tensor& input) {
  check_dtype(packed_module().dtype, "dynamic quantized linear");
  const bool reduce_range = loaded_version && *loaded_version >= 4;
  Tensor y = q::linear_dynamic(input, packed_module().packed_params(), reduce_range);
  return y.to(input.dtype());
}

std::string Linear::extra_repr() const {
  const ScalarType dtype = packed_module().dtype;
  std::string s = "in_features=" + std::to_string(in_features) +
                  ", out_features=" + std::to_string(out_features) +
                  ", dtype=" + dtype_repr(dtype);
  if (dtype == kQInt8) s += ", qscheme=" + qscheme_repr(ember::qscheme(weight()));
  return s;
}

void Linear::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                   LocalMetadata& local_metadata, bool strict,
                                   std::vector<std::string>& missing_keys,
                                   std::vector<std::string>& unexpected_keys,
                                   std::vector<std::string>& error_msgs) {
  std::optional<int64_t> version;
  auto it = local_metadata.find("version");
  if (it != local_metadata.end() && !it->second.is_none()) version = it->second.to_int();
  Module::schedule_load_write([this, version] { loaded_version = version; });
  quantized::Linear::_load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                           missing_keys, unexpected_keys, error_msgs);
}

}  // namespace dynamic

}  // namespace ember::nn::quantized
