// from_float of the quantized modules: PyTorch 1.13's classmethods (torch/ao/nn/quantized/
// modules/*.py and intrinsic/quantized/modules/*.py) over one module tree. The observers are
// read through quantization::observed_qparams, so C++ observers, fake-quantize modules and a
// Python observer (through the front end) all work; asserts raise AssertionError with torch's
// texts.
#include <typeinfo>

#include "from_float_util.h"

#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/layers_more.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/quantized/activation_more.h"
#include "ember/nn/quantized/conv.h"
#include "ember/nn/quantized/conv_more.h"
#include "ember/nn/quantized/linear.h"
#include "ember/nn/quantized/norm_more.h"
#include "ember/nn/quantized/modules.h"
#include "ember/nn/quantized/utils.h"
#include "ember/nn/utils/fusion.h"
#include "ember/ops/pointwise.h"
#include "ember/quantized/tensor.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/mappings.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"

namespace ember::nn::quantized {

namespace quant = ember::quantization;
namespace nni = ember::nn::intrinsic;
namespace nniqat = ember::nn::intrinsic::qat;

namespace {

// torch's `assert`s (AssertionError in Python).
#define QF_ASSERT(cond, ...) \
  do {                                                                 \
    if (!(cond)) {                                                     \
      throw ::ember::quantization::AssertionError(                     \
          ::ember::detail::str_cat(__VA_ARGS__));                      \
    }                                                                  \
  } while (0)

template <class T>
bool is_exactly(const Module& m) {
  return typeid(m) == typeid(T);
}

/// `getattr(m, name, None)` for a child module.
std::shared_ptr<Module> child_or_null(const Module& m, const std::string& name) {
  for (const auto& [n, c] : m.named_children())
    if (n == name) return c;
  return nullptr;
}

/// `mod.qconfig.weight()`, with torch's assert that the qconfig exists.
std::shared_ptr<Module> new_weight_observer(const Module& mod, const char* no_qconfig_msg) {
  QF_ASSERT(mod.has_qconfig(), no_qconfig_msg);
  QF_ASSERT(mod.qconfig() && mod.qconfig()->weight,
            "'NoneType' object has no attribute 'weight'");
  return mod.qconfig()->weight();
}

/// An observer's or fake-quantize module's dtype without computing qparams (torch reads
/// `observer.dtype`).
ScalarType observer_dtype(Module& observer) {
  if (auto* o = dynamic_cast<quant::ObserverBase*>(&observer)) return o->dtype();
  if (auto* f = dynamic_cast<quant::FakeQuantizeBase*>(&observer)) return f->dtype();
  return quant::observed_qparams(observer).dtype;
}

/// The weight observer's [quant_min, quant_max] (torch's _get_weight_observer: a fake-quantize
/// module's own observer), for _clamp_weights.
std::pair<int64_t, int64_t> observer_quant_range(Module& observer) {
  Module* o = &observer;
  if (auto inner = child_or_null(observer, "activation_post_process")) o = inner.get();
  if (auto* u = dynamic_cast<quant::UniformQuantizationObserverBase*>(o)) {
    return {u->quant_min, u->quant_max};
  }
  if (auto range = quant::front_end_quant_range(*o)) return *range;
  return {-128, 127};  // no narrower range known: no clamping
}

/// torch's _quantize_weight: the observer's qparams, codes clamped to its range.
Tensor quantize_observed_weight(const Tensor& float_wt, Module& observer) {
  const auto qp = quant::observed_qparams(observer);
  const auto range = observer_quant_range(observer);
  if (qp.qscheme == QScheme::PerChannelAffineFloatQParams) {
    // Embedding tables: float scales and zero points, the observer's dtype; codes clamped only
    // for quint8 with a narrower range (_needs_weight_clamping).
    Tensor qw = quantize_per_channel(float_wt.to(kFloat32), qp.scale.to(kFloat32),
                                     qp.zero_point.to(kFloat32), qp.ch_axis, qp.dtype);
    if (qp.dtype != kQUInt8 || (range.first <= 0 && range.second >= 255)) return qw;
    Tensor codes = ember::clamp(int_repr(qw), Scalar(range.first), Scalar(range.second));
    return _make_per_channel_quantized_tensor(codes, qp.scale, qp.zero_point, qp.ch_axis);
  }
  return quantize_weight(float_wt, qp.scale, qp.zero_point, qp.qscheme, qp.ch_axis, range.first,
                         range.second);
}

/// The observed output qparams as the quantized modules store them (float(s), int(z)).
std::pair<double, int64_t> output_qparams(Module& activation_post_process) {
  const auto qp = quant::observed_qparams(activation_post_process);
  return {qp.scale.item().to<double>(), qp.zero_point.item().to<int64_t>()};
}

std::optional<Tensor> opt(const Tensor& t) {
  if (!t.defined()) return std::nullopt;
  return t;
}

/// Folds a QAT conv-bn module's BN into its own weight and bias, as torch's from_float does
/// (`mod.weight, mod.bias = fuse_conv_bn_weights(...)`: the QAT module is changed).
void fold_qat_bn(Module& mod, bool linear) {
  auto bn_m = mod.child("bn");
  auto& bn = dynamic_cast<BatchNormBase&>(*bn_m);
  Tensor& w = mod.parameter("weight");
  const auto b = mod.has_parameter("bias") ? opt(mod.parameter("bias")) : std::nullopt;
  std::pair<Tensor, Tensor> fused =
      linear ? utils::fuse_linear_bn_weights(w, b, bn.buffer("running_mean"),
                                             bn.buffer("running_var"), bn.eps,
                                             bn.parameter("weight"), bn.parameter("bias"))
             : utils::fuse_conv_bn_weights(w, b, bn.buffer("running_mean"),
                                           bn.buffer("running_var"), bn.eps,
                                           opt(bn.parameter("weight")), opt(bn.parameter("bias")));
  w = fused.first;
  if (mod.has_parameter("bias")) {
    mod.parameter("bias") = fused.second;
  } else {
    mod.register_parameter("bias", fused.second);
  }
}

/// What _ConvNd.from_float / get_qconv read of the float (or QAT) conv.
struct ObservedConv {
  Module* conv;  // the module holding weight / bias and the geometry
  std::shared_ptr<Module> activation_post_process;
  std::shared_ptr<Module> weight_post_process;
};

template <class Q>
std::shared_ptr<Q> make_qconv(const ObservedConv& in) {
  auto& conv = dynamic_cast<nn::ConvNd&>(*in.conv);
  Module& wpp = *in.weight_post_process;
  const Tensor w = conv.parameter("weight");
  wpp.call({w});
  QF_ASSERT(observer_dtype(wpp) == kQInt8, "Weight observer must have a dtype of qint8");
  const Tensor qweight = quantize_observed_weight(w.to(kFloat32), wpp);
  const auto bias = opt(conv.parameter("bias"));
  std::shared_ptr<Q> qconv;
  if constexpr (std::is_base_of_v<ConvTransposeNd, Q>) {
    // _ConvTransposeNd.from_float: output_padding before groups, dilation after bias.
    qconv = std::make_shared<Q>(conv.in_channels, conv.out_channels, IntOrTuple(conv.kernel_size),
                                IntOrTuple(conv.stride), IntOrTuple(conv.padding),
                                IntOrTuple(conv.output_padding), conv.groups, bias.has_value(),
                                IntOrTuple(conv.dilation), conv.padding_mode);
  } else {
    qconv = std::make_shared<Q>(conv.in_channels, conv.out_channels, IntOrTuple(conv.kernel_size),
                                IntOrTuple(conv.stride), IntOrTuple(conv.padding),
                                IntOrTuple(conv.dilation), conv.groups, bias.has_value(),
                                conv.padding_mode);
  }
  qconv->set_weight_bias(qweight, bias);
  // Dynamic quantization doesn't need scale / zero_point.
  if (!in.activation_post_process || observer_dtype(*in.activation_post_process) == kFloat32) {
    return qconv;
  }
  std::tie(qconv->scale, qconv->zero_point) = output_qparams(*in.activation_post_process);
  return qconv;
}

/// _ConvNd.from_float for quantized class Q whose float class is Float (a conv, or a fused
/// Sequential whose "0" is the conv).
template <class Q, class Float, class QatConvBn, bool fused>
std::shared_ptr<Q> conv_from_float(Module& mod, const char* cls_name) {
  ObservedConv in{&mod, nullptr, nullptr};
  if (child_or_null(mod, "weight_fake_quant")) {
    if (is_exactly<QatConvBn>(mod)) fold_qat_bn(mod, false);
    in.activation_post_process = child_or_null(mod, "activation_post_process");
    QF_ASSERT(in.activation_post_process, "Input QAT module must have observer attached");
    in.weight_post_process = mod.child("weight_fake_quant");
  } else {
    QF_ASSERT(is_exactly<Float>(mod), " nnq.", cls_name, ".from_float only works for ", cls_name,
              " but got:", quant::module_class_repr(mod));
    QF_ASSERT(mod.has_qconfig(), "Input float module must have qconfig defined.");
    in.activation_post_process = child_or_null(mod, "activation_post_process");
    if constexpr (fused) in.conv = mod.child("0").get();
    in.weight_post_process =
        new_weight_observer(*in.conv, "Input float module must have qconfig defined.");
  }
  return make_qconv<Q>(in);
}

/// Linear.from_float for Q (nnq.Linear / nniq.LinearReLU).
template <class Q>
std::shared_ptr<Q> linear_from_float(Module& mod, bool relu) {
  Module* lin = &mod;
  std::shared_ptr<Module> wpp, app;
  if (child_or_null(mod, "weight_fake_quant")) {
    if (is_exactly<nniqat::LinearBn1d>(mod)) fold_qat_bn(mod, true);
    wpp = mod.child("weight_fake_quant");
    app = child_or_null(mod, "activation_post_process");
    QF_ASSERT(app, "'", mod.type_name(), "' object has no attribute 'activation_post_process'");
  } else {
    const bool ok = relu ? is_exactly<nni::LinearReLU>(mod) : is_exactly<nn::Linear>(mod);
    QF_ASSERT(ok, "nnq.", relu ? "LinearReLU" : "Linear", ".from_float only works for ",
              relu ? "LinearReLU" : "Linear", ", but got: ", quant::module_class_repr(mod));
    QF_ASSERT(mod.has_qconfig(), "Input float module must have qconfig defined");
    app = child_or_null(mod, "activation_post_process");
    QF_ASSERT(app, "'", mod.type_name(), "' object has no attribute 'activation_post_process'");
    if (relu) lin = mod.child("0").get();
    wpp = new_weight_observer(*lin, "Input float module must have qconfig defined");
  }
  auto& l = dynamic_cast<nn::Linear&>(*lin);
  const Tensor w = l.parameter("weight");
  wpp->call({w});
  const ScalarType dtype = observer_dtype(*wpp);
  const auto [s, z] = output_qparams(*app);
  QF_ASSERT(dtype == kQInt8, "Weight observer must have dtype ember.qint8");
  const Tensor qweight = quantize_observed_weight(w.to(kFloat32), *wpp);
  const auto bias = opt(l.parameter("bias"));
  auto q = std::make_shared<Q>(l.in_features, l.out_features, true, dtype);
  q->set_weight_bias(qweight, bias);
  q->scale = s;
  q->zero_point = z;
  return q;
}

std::shared_ptr<Module> activation_post_process_of(Module& mod) {
  auto app = child_or_null(mod, "activation_post_process");
  QF_ASSERT(app, "'", mod.type_name(), "' object has no attribute 'activation_post_process'");
  return app;
}

}  // namespace

std::shared_ptr<Conv1d> Conv1d::from_float(Module& mod) {
  return conv_from_float<Conv1d, nn::Conv1d, nniqat::ConvBn1d, false>(mod, "Conv1d");
}
std::shared_ptr<Conv2d> Conv2d::from_float(Module& mod) {
  return conv_from_float<Conv2d, nn::Conv2d, nniqat::ConvBn2d, false>(mod, "Conv2d");
}
std::shared_ptr<ConvReLU1d> ConvReLU1d::from_float(Module& mod) {
  if (is_exactly<nniqat::ConvBnReLU1d>(mod)) fold_qat_bn(mod, false);
  return conv_from_float<ConvReLU1d, nni::ConvReLU1d, nniqat::ConvBn1d, true>(mod, "ConvReLU1d");
}
std::shared_ptr<ConvReLU2d> ConvReLU2d::from_float(Module& mod) {
  if (is_exactly<nniqat::ConvBnReLU2d>(mod)) fold_qat_bn(mod, false);
  return conv_from_float<ConvReLU2d, nni::ConvReLU2d, nniqat::ConvBn2d, true>(mod, "ConvReLU2d");
}
std::shared_ptr<Conv3d> Conv3d::from_float(Module& mod) {
  return conv_from_float<Conv3d, nn::Conv3d, nniqat::ConvBn3d, false>(mod, "Conv3d");
}
std::shared_ptr<ConvReLU3d> ConvReLU3d::from_float(Module& mod) {
  if (is_exactly<nniqat::ConvBnReLU3d>(mod)) fold_qat_bn(mod, false);
  return conv_from_float<ConvReLU3d, nni::ConvReLU3d, nniqat::ConvBn3d, true>(mod, "ConvReLU3d");
}

namespace {
/// _ConvTransposeNd.from_float: a float transposed conv with a qconfig (no QAT twin in 1.13).
template <class Q, class Float>
std::shared_ptr<Q> conv_transpose_from_float(Module& mod, const char* cls_name) {
  QF_ASSERT(is_exactly<Float>(mod), " nnq.", cls_name, ".from_float only works for ", cls_name);
  QF_ASSERT(mod.has_qconfig(), "Input float module must have qconfig defined.");
  ObservedConv in{&mod, child_or_null(mod, "activation_post_process"),
                  new_weight_observer(mod, "Input float module must have qconfig defined.")};
  return make_qconv<Q>(in);
}
}  // namespace

std::shared_ptr<ConvTranspose1d> ConvTranspose1d::from_float(Module& mod) {
  return conv_transpose_from_float<ConvTranspose1d, nn::ConvTranspose1d>(mod, "ConvTranspose1d");
}
std::shared_ptr<ConvTranspose2d> ConvTranspose2d::from_float(Module& mod) {
  return conv_transpose_from_float<ConvTranspose2d, nn::ConvTranspose2d>(mod, "ConvTranspose2d");
}
std::shared_ptr<ConvTranspose3d> ConvTranspose3d::from_float(Module& mod) {
  return conv_transpose_from_float<ConvTranspose3d, nn::ConvTranspose3d>(mod, "ConvTranspose3d");
}

std::shared_ptr<Linear> Linear::from_float(Module& mod) {
  return linear_from_float<Linear>(mod, false);
}
std::shared_ptr<LinearReLU> LinearReLU::from_float(Module& mod) {
  return linear_from_float<LinearReLU>(mod, true);
}

std::shared_ptr<dynamic::Linear> dynamic::Linear::from_float(Module& mod) {
  const bool ok = is_exactly<nn::Linear>(mod) || is_exactly<nni::LinearReLU>(mod);
  QF_ASSERT(ok, "nn.quantized.dynamic.Linear.from_float only works for one of"
                "['Linear', 'NonDynamicallyQuantizableLinear', 'LinearReLU', 'Linear']");
  QF_ASSERT(mod.has_qconfig(), "Input float module must have qconfig defined");
  Module* lin = &mod;
  if (is_exactly<nni::LinearReLU>(mod)) lin = mod.child("0").get();
  const auto qconfig = lin->has_qconfig() ? lin->qconfig() : mod.qconfig();
  std::shared_ptr<Module> wobs = qconfig && qconfig->weight
                                     ? qconfig->weight()
                                     : quant::default_dynamic_qconfig()->weight();
  const ScalarType dtype = observer_dtype(*wobs);
  QF_ASSERT(dtype == kQInt8 || dtype == kFloat16,
            "The only supported dtypes for dynamic quantized linear are qint8 and float16 got: ",
            dtype_repr(dtype));
  EMBER_CHECK(dtype == kQInt8,
              "dynamic quantized Linear: float16 weights are not supported by ember (qint8 only)");
  auto& l = dynamic_cast<nn::Linear&>(*lin);
  const Tensor w = l.parameter("weight");
  wobs->call({w});
  const Tensor qweight = quantize_observed_weight(w.to(kFloat32), *wobs);
  auto q = std::make_shared<dynamic::Linear>(l.in_features, l.out_features, true, dtype);
  q->set_weight_bias(qweight, opt(l.parameter("bias")));
  return q;
}

std::shared_ptr<Quantize> Quantize::from_float(Module& mod) {
  auto app = child_or_null(mod, "activation_post_process");
  QF_ASSERT(app, "");
  const auto qp = quant::observed_qparams(*app);
  return std::make_shared<Quantize>(qp.scale.to(kFloat32).item().to<double>(),
                                    qp.zero_point.to(kInt64).item().to<int64_t>(),
                                    observer_dtype(*app));
}

std::shared_ptr<DeQuantize> DeQuantize::from_float(Module& /*mod*/) {
  return std::make_shared<DeQuantize>();
}

std::shared_ptr<ReLU6> ReLU6::from_float(Module& mod) {
  auto& r = dynamic_cast<nn::ReLU6&>(mod);
  return std::make_shared<ReLU6>(r.inplace);
}

std::shared_ptr<Hardswish> Hardswish::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  return std::make_shared<Hardswish>(s, z);
}

std::shared_ptr<Dropout> Dropout::from_float(Module& mod) {
  auto& d = dynamic_cast<nn::Dropout&>(mod);
  return std::make_shared<Dropout>(d.p, d.inplace);
}

namespace {
template <class Q>
std::shared_ptr<Q> batch_norm_from_float(Module& mod) {
  auto app = activation_post_process_of(mod);
  Module* bn_m = &mod;
  if (is_exactly<nni::BNReLU2d>(mod) || is_exactly<nni::BNReLU3d>(mod)) bn_m = mod.child("0").get();
  auto& bn = dynamic_cast<BatchNormBase&>(*bn_m);
  const auto qp = quant::observed_qparams(*app);
  auto q = std::make_shared<Q>(bn.num_features, bn.eps);
  // torch assigns the float module's tensors (shared, not copied) and the observer's qparams.
  q->parameter("weight") = bn.parameter("weight");
  q->parameter("bias") = bn.parameter("bias");
  q->buffer("running_mean") = bn.buffer("running_mean");
  q->buffer("running_var") = bn.buffer("running_var");
  q->buffer("scale") = qp.scale;
  q->buffer("zero_point") = qp.zero_point;
  return q;
}
}  // namespace

std::shared_ptr<BatchNorm2d> BatchNorm2d::from_float(Module& mod) {
  return batch_norm_from_float<BatchNorm2d>(mod);
}
std::shared_ptr<BNReLU2d> BNReLU2d::from_float(Module& mod) {
  return batch_norm_from_float<BNReLU2d>(mod);
}
std::shared_ptr<BatchNorm3d> BatchNorm3d::from_float(Module& mod) {
  return batch_norm_from_float<BatchNorm3d>(mod);
}
std::shared_ptr<BNReLU3d> BNReLU3d::from_float(Module& mod) {
  return batch_norm_from_float<BNReLU3d>(mod);
}

// ---- normalisation and activations: the float module's settings and the observed output
// qparams (torch's from_float classmethods) ----

std::shared_ptr<LayerNorm> LayerNorm::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  auto& f = dynamic_cast<nn::LayerNorm&>(mod);
  return std::make_shared<LayerNorm>(f.normalized_shape, opt(f.parameter("weight")),
                                     opt(f.parameter("bias")), s, z, f.eps, f.elementwise_affine);
}

std::shared_ptr<GroupNorm> GroupNorm::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  auto& f = dynamic_cast<nn::GroupNorm&>(mod);
  return std::make_shared<GroupNorm>(f.num_groups, f.num_channels, opt(f.parameter("weight")),
                                     opt(f.parameter("bias")), s, z, f.eps, f.affine);
}

namespace {
// torch 1.13's _InstanceNorm.from_float calls cls(num_features, weight, bias, scale, zero_point,
// eps, affine): `affine` lands in the momentum slot and the quantized module has affine=False
// (it prints "momentum=True, affine=False"). ember keeps that result; the weight and bias are
// installed either way.
template <class Q>
std::shared_ptr<Q> instance_norm_from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  auto& f = dynamic_cast<BatchNormBase&>(mod);
  return std::make_shared<Q>(f.num_features, opt(f.parameter("weight")), opt(f.parameter("bias")),
                             s, z, f.eps, f.affine ? 1.0 : 0.0);
}
}  // namespace

std::shared_ptr<InstanceNorm1d> InstanceNorm1d::from_float(Module& mod) {
  return instance_norm_from_float<InstanceNorm1d>(mod);
}
std::shared_ptr<InstanceNorm2d> InstanceNorm2d::from_float(Module& mod) {
  return instance_norm_from_float<InstanceNorm2d>(mod);
}
std::shared_ptr<InstanceNorm3d> InstanceNorm3d::from_float(Module& mod) {
  return instance_norm_from_float<InstanceNorm3d>(mod);
}

std::shared_ptr<LeakyReLU> LeakyReLU::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  auto& f = dynamic_cast<nn::LeakyReLU&>(mod);
  return std::make_shared<LeakyReLU>(s, z, f.negative_slope.value(), f.inplace);
}

std::shared_ptr<ELU> ELU::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  return std::make_shared<ELU>(s, z, dynamic_cast<nn::ELU&>(mod).alpha.value());
}

std::shared_ptr<Sigmoid> Sigmoid::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  return std::make_shared<Sigmoid>(s, z);
}

std::shared_ptr<Softmax> Softmax::from_float(Module& mod) {
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  return std::make_shared<Softmax>(dynamic_cast<nn::Softmax&>(mod).dim, s, z);
}

std::shared_ptr<QFunctional> QFunctional::from_float(Module& mod) {
  QF_ASSERT(is_exactly<FloatFunctional>(mod),
            "QFunctional.from_float expects an instance of FloatFunctional");
  const auto [s, z] = output_qparams(*activation_post_process_of(mod));
  auto q = std::make_shared<QFunctional>();
  q->scale = s;
  q->zero_point = z;
  return q;
}

}  // namespace ember::nn::quantized

// ---- for the from_float of other files (from_float_util.h) ----
namespace ember::nn::quantized::from_float_util {
ScalarType weight_observer_dtype(Module& observer) { return observer_dtype(observer); }
Tensor quantize_with_observer(const Tensor& float_wt, Module& observer) {
  return quantize_observed_weight(float_wt, observer);
}
}  // namespace ember::nn::quantized::from_float_util
