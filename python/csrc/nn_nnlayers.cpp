// The layers of issue 16 as ember.nn classes with PyTorch's constructor signatures and
// attributes: activations (activation_more.h), 1-d / 3-d pools (pooling_more.h), padding
// (padding.h), Conv3d / ConvTranspose1d / 3d (conv.h), normalisation, shape, distance and
// dropout layers (layers_more.h) and losses (loss_more.h). Every class gets the trampoline of
// Note [Trampolines for C++ layers].
#include "nn_cnn.h"

#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/layers_more.h"
#include "ember/nn/modules/loss_more.h"
#include "ember/nn/modules/padding.h"
#include "ember/nn/modules/parameter_container.h"
#include "ember/nn/modules/pooling_more.h"
#include "ember/warning.h"

namespace ember::python {

namespace {

using namespace ember::nn;
using VH = py::detail::value_and_holder;

template <class T, class Base = Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;
template <class T, class Base = Module>
using BaseClass = py::class_<T, Base, std::shared_ptr<T>>;

const auto none = py::none();

Number number(py::handle o) {
  if (PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr())) return Number(o.cast<int64_t>());
  return Number(o.cast<double>());
}
py::object number_to_py(const Number& n) {
  if (n.is_int()) return py::int_(static_cast<int64_t>(n.value()));
  return py::float_(n.value());
}
template <class T, class Cls>
void number_attr(Cls& cls, const char* name, Number T::*field) {
  cls.def_property(
      name, [field](const T& self) { return number_to_py(self.*field); },
      [field](T& self, py::handle v) { self.*field = number(v); });
}


std::optional<std::vector<double>> scale_factor_arg(py::handle scale_factor) {
  if (scale_factor.is_none()) return std::nullopt;
  if (PyFloat_Check(scale_factor.ptr()) || PyLong_Check(scale_factor.ptr()))
    return std::vector<double>{scale_factor.cast<double>()};
  return scale_factor.cast<std::vector<double>>();
}

template <class T, class Cls>
void inplace_attr(Cls& cls) {
  cls.def_readwrite("inplace", &T::inplace);
}

// ---- activations ----
void bind_activations(py::module_& m) {
  Class<LeakyReLU> leaky(m, "LeakyReLU");
  leaky.def("__init__", [](VH& v_h, py::handle slope, bool inplace) {
    construct_layer<LeakyReLU>(v_h, number(slope), inplace);
  }, py::detail::is_new_style_constructor(), py::arg("negative_slope") = 1e-2, py::arg("inplace") = false);
  number_attr(leaky, "negative_slope", &LeakyReLU::negative_slope);
  inplace_attr<LeakyReLU>(leaky);
  bind_own_forward<LeakyReLU>(leaky);

  Class<PReLU> prelu(m, "PReLU");
  prelu.def("__init__", [](VH& v_h, int64_t num_parameters, double init, py::object device, py::object dtype) {
    construct_layer<PReLU>(v_h, num_parameters, init, tensor_options(device, dtype));
  }, py::detail::is_new_style_constructor(), py::arg("num_parameters") = 1, py::arg("init") = 0.25,
     py::arg("device") = none, py::arg("dtype") = none);
  prelu.def_readwrite("num_parameters", &PReLU::num_parameters).def_readwrite("init", &PReLU::init)
      .def("reset_parameters", &PReLU::reset_parameters);
  bind_own_forward<PReLU>(prelu);

  Class<ELU> elu(m, "ELU");
  elu.def("__init__", [](VH& v_h, py::handle alpha, bool inplace) {
    construct_layer<ELU>(v_h, number(alpha), inplace);
  }, py::detail::is_new_style_constructor(), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  number_attr(elu, "alpha", &ELU::alpha);
  inplace_attr<ELU>(elu);
  bind_own_forward<ELU>(elu);

  Class<SELU> selu(m, "SELU");
  selu.def("__init__", [](VH& v_h, bool inplace) { construct_layer<SELU>(v_h, inplace); },
           py::detail::is_new_style_constructor(), py::arg("inplace") = false);
  inplace_attr<SELU>(selu);
  bind_own_forward<SELU>(selu);

  Class<CELU> celu(m, "CELU");
  celu.def("__init__", [](VH& v_h, py::handle alpha, bool inplace) {
    construct_layer<CELU>(v_h, number(alpha), inplace);
  }, py::detail::is_new_style_constructor(), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  number_attr(celu, "alpha", &CELU::alpha);
  inplace_attr<CELU>(celu);
  bind_own_forward<CELU>(celu);

  Class<GLU> glu(m, "GLU");
  glu.def("__init__", [](VH& v_h, int64_t dim) { construct_layer<GLU>(v_h, dim); },
          py::detail::is_new_style_constructor(), py::arg("dim") = -1);
  glu.def_readwrite("dim", &GLU::dim);
  bind_own_forward<GLU>(glu);

  Class<Softplus> softplus(m, "Softplus");
  softplus.def("__init__", [](VH& v_h, py::handle beta, py::handle threshold) {
    construct_layer<Softplus>(v_h, number(beta), number(threshold));
  }, py::detail::is_new_style_constructor(), py::arg("beta") = 1, py::arg("threshold") = 20);
  number_attr(softplus, "beta", &Softplus::beta);
  number_attr(softplus, "threshold", &Softplus::threshold);
  bind_own_forward<Softplus>(softplus);

  Class<Softshrink> softshrink(m, "Softshrink");
  softshrink.def("__init__", [](VH& v_h, py::handle lambd) { construct_layer<Softshrink>(v_h, number(lambd)); },
                 py::detail::is_new_style_constructor(), py::arg("lambd") = 0.5);
  number_attr(softshrink, "lambd", &Softshrink::lambd);
  bind_own_forward<Softshrink>(softshrink);

  Class<Hardshrink> hardshrink(m, "Hardshrink");
  hardshrink.def("__init__", [](VH& v_h, py::handle lambd) { construct_layer<Hardshrink>(v_h, number(lambd)); },
                 py::detail::is_new_style_constructor(), py::arg("lambd") = 0.5);
  number_attr(hardshrink, "lambd", &Hardshrink::lambd);
  bind_own_forward<Hardshrink>(hardshrink);

  Class<Softsign> softsign(m, "Softsign");
  softsign.def("__init__", [](VH& v_h) { construct_layer<Softsign>(v_h); }, py::detail::is_new_style_constructor());
  bind_own_forward<Softsign>(softsign);
  Class<Tanhshrink> tanhshrink(m, "Tanhshrink");
  tanhshrink.def("__init__", [](VH& v_h) { construct_layer<Tanhshrink>(v_h); }, py::detail::is_new_style_constructor());
  bind_own_forward<Tanhshrink>(tanhshrink);
  Class<LogSigmoid> logsigmoid(m, "LogSigmoid");
  logsigmoid.def("__init__", [](VH& v_h) { construct_layer<LogSigmoid>(v_h); }, py::detail::is_new_style_constructor());
  bind_own_forward<LogSigmoid>(logsigmoid);
  Class<Softmax2d> softmax2d(m, "Softmax2d");
  softmax2d.def("__init__", [](VH& v_h) { construct_layer<Softmax2d>(v_h); }, py::detail::is_new_style_constructor());
  bind_own_forward<Softmax2d>(softmax2d);

  Class<Mish> mish(m, "Mish");
  mish.def("__init__", [](VH& v_h, bool inplace) { construct_layer<Mish>(v_h, inplace); },
           py::detail::is_new_style_constructor(), py::arg("inplace") = false);
  inplace_attr<Mish>(mish);
  bind_own_forward<Mish>(mish);
  Class<Hardsigmoid> hardsigmoid(m, "Hardsigmoid");
  hardsigmoid.def("__init__", [](VH& v_h, bool inplace) { construct_layer<Hardsigmoid>(v_h, inplace); },
                  py::detail::is_new_style_constructor(), py::arg("inplace") = false);
  inplace_attr<Hardsigmoid>(hardsigmoid);
  bind_own_forward<Hardsigmoid>(hardsigmoid);

  Class<Threshold> threshold(m, "Threshold");
  threshold.def("__init__", [](VH& v_h, py::handle th, py::handle value, bool inplace) {
    construct_layer<Threshold>(v_h, number(th), number(value), inplace);
  }, py::detail::is_new_style_constructor(), py::arg("threshold"), py::arg("value"), py::arg("inplace") = false);
  number_attr(threshold, "threshold", &Threshold::threshold);
  number_attr(threshold, "value", &Threshold::value);
  inplace_attr<Threshold>(threshold);
  bind_own_forward<Threshold>(threshold);

  Class<Softmin> softmin(m, "Softmin");
  softmin.def("__init__", [](VH& v_h, std::optional<int64_t> dim) { construct_layer<Softmin>(v_h, dim); },
              py::detail::is_new_style_constructor(), py::arg("dim") = none);
  softmin.def_readwrite("dim", &Softmin::dim);
  bind_own_forward<Softmin>(softmin);

  Class<RReLU> rrelu(m, "RReLU");
  rrelu.def("__init__", [](VH& v_h, py::handle lower, py::handle upper, bool inplace) {
    construct_layer<RReLU>(v_h, number(lower), number(upper), inplace);
  }, py::detail::is_new_style_constructor(), py::arg("lower") = 1.0 / 8, py::arg("upper") = 1.0 / 3,
     py::arg("inplace") = false);
  number_attr(rrelu, "lower", &RReLU::lower);
  number_attr(rrelu, "upper", &RReLU::upper);
  inplace_attr<RReLU>(rrelu);
  bind_own_forward<RReLU>(rrelu);
}

// ---- convolutions ----
ConvPadding conv_padding(py::handle p) {
  if (PyUnicode_Check(p.ptr())) return ConvPadding(p.cast<std::string>());
  return ConvPadding(int_or_tuple(p));
}

template <class T>
void bind_conv_transpose(py::module_& m, const char* name) {
  Class<T, ConvTransposeNd> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle output_padding, int64_t groups, bool bias, py::handle dilation,
         const std::string& padding_mode, py::object device, py::object dtype) {
        construct_layer<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride), int_or_tuple(padding),
                           int_or_tuple(output_padding), groups, bias, int_or_tuple(dilation),
                           padding_mode, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("dilation") = 1, py::arg("padding_mode") = "zeros", py::arg("device") = none,
      py::arg("dtype") = none);
  cls.def("forward", [](T& self, const Tensor& input, py::object output_size) {
    std::vector<Value> in{Value(input)};
    if (!output_size.is_none()) {
      std::vector<int64_t> sizes;
      for (auto s : output_size) sizes.push_back(s.cast<int64_t>());
      in.emplace_back(std::move(sizes));
    }
    return value_to_py(self.ConvTransposeNd::forward(in));
  }, py::arg("input"), py::arg("output_size") = none);
  cls.def("extra_repr", [](const T& self) { return self.ConvNd::extra_repr(); });
}

void bind_convs(py::module_& m) {
  Class<Conv3d, ConvNd> conv3d(m, "Conv3d");
  conv3d.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
         py::object device, py::object dtype) {
        construct_layer<Conv3d>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                                conv_padding(padding), int_or_tuple(dilation), groups, bias,
                                padding_mode, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("padding_mode") = "zeros", py::arg("device") = none, py::arg("dtype") = none);
  bind_own_forward<Conv3d>(conv3d);
  BaseClass<ConvTransposeNd, ConvNd>(m, "_ConvTransposeNd");
  bind_conv_transpose<ConvTranspose1d>(m, "ConvTranspose1d");
  bind_conv_transpose<ConvTranspose3d>(m, "ConvTranspose3d");
}

// ---- pools ----
void bind_pools(py::module_& m) {
  BaseClass<MaxPoolNd> maxbase(m, "_MaxPoolNd");
  size_attr(maxbase, "kernel_size", &MaxPoolNd::kernel_size);
  size_attr(maxbase, "stride", &MaxPoolNd::stride);
  size_attr(maxbase, "padding", &MaxPoolNd::padding);
  size_attr(maxbase, "dilation", &MaxPoolNd::dilation);
  maxbase.def_readwrite("return_indices", &MaxPoolNd::return_indices)
      .def_readwrite("ceil_mode", &MaxPoolNd::ceil_mode);
  auto bind_max = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, MaxPoolNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, py::handle k, py::handle stride, py::handle padding, py::handle dilation,
                           bool return_indices, bool ceil_mode) {
      construct_layer<T>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding),
                         int_or_tuple(dilation), return_indices, ceil_mode);
    }, py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
       py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("return_indices") = false,
       py::arg("ceil_mode") = false);
    bind_own_forward<T>(cls);
  };
  bind_max(std::type_identity<MaxPool1d>{}, "MaxPool1d");
  bind_max(std::type_identity<MaxPool3d>{}, "MaxPool3d");

  BaseClass<AvgPoolNd> avgbase(m, "_AvgPoolNd");
  size_attr(avgbase, "kernel_size", &AvgPoolNd::kernel_size);
  size_attr(avgbase, "stride", &AvgPoolNd::stride);
  size_attr(avgbase, "padding", &AvgPoolNd::padding);
  avgbase.def_readwrite("ceil_mode", &AvgPoolNd::ceil_mode)
      .def_readwrite("count_include_pad", &AvgPoolNd::count_include_pad)
      .def_readwrite("divisor_override", &AvgPoolNd::divisor_override);
  Class<AvgPool1d, AvgPoolNd> avg1(m, "AvgPool1d");
  avg1.def("__init__", [](VH& v_h, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
                          bool count_include_pad) {
    construct_layer<AvgPool1d>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding), ceil_mode,
                               count_include_pad);
  }, py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
     py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  bind_own_forward<AvgPool1d>(avg1);
  Class<AvgPool3d, AvgPoolNd> avg3(m, "AvgPool3d");
  avg3.def("__init__", [](VH& v_h, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
                          bool count_include_pad, std::optional<int64_t> divisor_override) {
    construct_layer<AvgPool3d>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding), ceil_mode,
                               count_include_pad, divisor_override);
  }, py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
     py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
     py::arg("divisor_override") = none);
  bind_own_forward<AvgPool3d>(avg3);

  BaseClass<AdaptivePoolNd> adbase(m, "_AdaptivePoolNd");
  adaptive_attr<AdaptivePoolNd>(adbase);
  adbase.def_readwrite("return_indices", &AdaptivePoolNd::return_indices);
  auto bind_adaptive = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, AdaptivePoolNd> cls(m, name);
    if constexpr (std::is_constructible_v<T, AdaptiveOutputSize, bool>) {
      cls.def("__init__", [](VH& v_h, py::handle output_size, bool return_indices) {
        construct_layer<T>(v_h, adaptive_size(output_size), return_indices);
      }, py::detail::is_new_style_constructor(), py::arg("output_size"), py::arg("return_indices") = false);
    } else {
      cls.def("__init__", [](VH& v_h, py::handle output_size) {
        construct_layer<T>(v_h, adaptive_size(output_size));
      }, py::detail::is_new_style_constructor(), py::arg("output_size"));
    }
    bind_own_forward<T>(cls);
  };
  bind_adaptive(std::type_identity<AdaptiveAvgPool1d>{}, "AdaptiveAvgPool1d");
  bind_adaptive(std::type_identity<AdaptiveAvgPool3d>{}, "AdaptiveAvgPool3d");
  bind_adaptive(std::type_identity<AdaptiveMaxPool1d>{}, "AdaptiveMaxPool1d");
  bind_adaptive(std::type_identity<AdaptiveMaxPool3d>{}, "AdaptiveMaxPool3d");

  BaseClass<LPPoolNd> lpbase(m, "_LPPoolNd");
  number_attr(lpbase, "norm_type", &LPPoolNd::norm_type);
  size_attr(lpbase, "kernel_size", &LPPoolNd::kernel_size);
  lpbase.def_property("stride", [](const LPPoolNd& self) -> py::object {
    return self.stride ? int_or_tuple_to_py(*self.stride) : py::object(py::none());
  }, [](LPPoolNd& self, py::handle v) { self.stride = opt_size(v); });
  lpbase.def_readwrite("ceil_mode", &LPPoolNd::ceil_mode);
  auto bind_lp = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, LPPoolNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, py::handle norm_type, py::handle k, py::handle stride, bool ceil_mode) {
      construct_layer<T>(v_h, number(norm_type), int_or_tuple(k), opt_size(stride), ceil_mode);
    }, py::detail::is_new_style_constructor(), py::arg("norm_type"), py::arg("kernel_size"),
       py::arg("stride") = none, py::arg("ceil_mode") = false);
    bind_own_forward<T>(cls);
  };
  bind_lp(std::type_identity<LPPool1d>{}, "LPPool1d");
  bind_lp(std::type_identity<LPPool2d>{}, "LPPool2d");

  BaseClass<MaxUnpoolNd> unbase(m, "_MaxUnpoolNd");
  unbase.def_property_readonly("kernel_size", [](const MaxUnpoolNd& s) { return to_tuple(s.kernel_size); })
      .def_property_readonly("stride", [](const MaxUnpoolNd& s) { return to_tuple(s.stride); })
      .def_property_readonly("padding", [](const MaxUnpoolNd& s) { return to_tuple(s.padding); });
  auto bind_unpool = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, MaxUnpoolNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, py::handle k, py::handle stride, py::handle padding) {
      construct_layer<T>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding));
    }, py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
       py::arg("padding") = 0);
    cls.def("forward", [](T& self, const Tensor& input, const Tensor& indices, py::object output_size) {
      std::vector<Value> in{Value(input), Value(indices)};
      if (!output_size.is_none()) {
        std::vector<int64_t> sizes;
        for (auto s : output_size) sizes.push_back(s.cast<int64_t>());
        in.emplace_back(std::move(sizes));
      }
      return value_to_py(self.MaxUnpoolNd::forward(in));
    }, py::arg("input"), py::arg("indices"), py::arg("output_size") = none);
    cls.def("extra_repr", [](const T& self) { return self.MaxUnpoolNd::extra_repr(); });
  };
  bind_unpool(std::type_identity<MaxUnpool1d>{}, "MaxUnpool1d");
  bind_unpool(std::type_identity<MaxUnpool2d>{}, "MaxUnpool2d");
  bind_unpool(std::type_identity<MaxUnpool3d>{}, "MaxUnpool3d");
}

// ---- padding ----
void bind_padding(py::module_& m) {
  BaseClass<PadNd> base(m, "_PadNd");
  base.def_property("padding", [](const PadNd& s) { return to_tuple(s.padding); },
                    [](PadNd& s, py::handle v) { s.padding = v.cast<std::vector<int64_t>>(); });
  base.def_readwrite("mode", &PadNd::mode);
  number_attr(base, "value", &PadNd::value);
  auto bind_pad = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, PadNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, py::handle padding) { construct_layer<T>(v_h, int_or_tuple(padding)); },
            py::detail::is_new_style_constructor(), py::arg("padding"));
    bind_own_forward<T>(cls);
  };
  bind_pad(std::type_identity<ReflectionPad1d>{}, "ReflectionPad1d");
  bind_pad(std::type_identity<ReflectionPad2d>{}, "ReflectionPad2d");
  bind_pad(std::type_identity<ReflectionPad3d>{}, "ReflectionPad3d");
  bind_pad(std::type_identity<ReplicationPad1d>{}, "ReplicationPad1d");
  bind_pad(std::type_identity<ReplicationPad2d>{}, "ReplicationPad2d");
  bind_pad(std::type_identity<ReplicationPad3d>{}, "ReplicationPad3d");
  bind_pad(std::type_identity<ZeroPad2d>{}, "ZeroPad2d");
  auto bind_const = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, PadNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, py::handle padding, py::handle value) {
      construct_layer<T>(v_h, int_or_tuple(padding), number(value));
    }, py::detail::is_new_style_constructor(), py::arg("padding"), py::arg("value"));
    bind_own_forward<T>(cls);
  };
  bind_const(std::type_identity<ConstantPad1d>{}, "ConstantPad1d");
  bind_const(std::type_identity<ConstantPad2d>{}, "ConstantPad2d");
  bind_const(std::type_identity<ConstantPad3d>{}, "ConstantPad3d");
}

// ---- normalisation, shapes, distances, dropouts ----
void bind_misc(py::module_& m) {
  BaseClass<InstanceNormBase, BatchNormBase> inbase(m, "_InstanceNorm");
  auto bind_in = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, InstanceNormBase> cls(m, name);
    cls.def("__init__", [](VH& v_h, int64_t num_features, double eps, std::optional<double> momentum,
                           bool affine, bool track_running_stats, py::object device, py::object dtype) {
      construct_layer<T>(v_h, num_features, eps, momentum, affine, track_running_stats,
                         tensor_options(device, dtype));
    }, py::detail::is_new_style_constructor(), py::arg("num_features"), py::arg("eps") = 1e-5,
       py::arg("momentum") = 0.1, py::arg("affine") = false, py::arg("track_running_stats") = false,
       py::arg("device") = none, py::arg("dtype") = none);
    bind_own_forward<T>(cls);
  };
  bind_in(std::type_identity<InstanceNorm1d>{}, "InstanceNorm1d");
  bind_in(std::type_identity<InstanceNorm2d>{}, "InstanceNorm2d");
  bind_in(std::type_identity<InstanceNorm3d>{}, "InstanceNorm3d");

  Class<LocalResponseNorm> lrn(m, "LocalResponseNorm");
  lrn.def("__init__", [](VH& v_h, int64_t size, py::handle alpha, py::handle beta, py::handle k) {
    construct_layer<LocalResponseNorm>(v_h, size, number(alpha), number(beta), number(k));
  }, py::detail::is_new_style_constructor(), py::arg("size"), py::arg("alpha") = 1e-4,
     py::arg("beta") = 0.75, py::arg("k") = 1.0);
  lrn.def_readwrite("size", &LocalResponseNorm::size);
  number_attr(lrn, "alpha", &LocalResponseNorm::alpha);
  number_attr(lrn, "beta", &LocalResponseNorm::beta);
  number_attr(lrn, "k", &LocalResponseNorm::k);
  bind_own_forward<LocalResponseNorm>(lrn);

  Class<Unflatten> unflatten(m, "Unflatten");
  unflatten.def("__init__", [](VH& v_h, int64_t dim, py::handle sizes) {
    EMBER_CHECK_TYPE(PyTuple_Check(sizes.ptr()) || PyList_Check(sizes.ptr()),
                     "unflattened_size must be tuple or list, but found type ", Py_TYPE(sizes.ptr())->tp_name);
    for (auto s : sizes) {
      EMBER_CHECK_TYPE(PyLong_Check(s.ptr()), "unflattened_size must be tuple of ints, but found element of type ",
                       Py_TYPE(s.ptr())->tp_name, " at pos 0");
    }
    construct_layer<Unflatten>(v_h, dim, sizes.cast<std::vector<int64_t>>());
  }, py::detail::is_new_style_constructor(), py::arg("dim"), py::arg("unflattened_size"));
  unflatten.def_readwrite("dim", &Unflatten::dim)
      .def_property("unflattened_size", [](const Unflatten& s) { return to_tuple(s.unflattened_size); },
                    [](Unflatten& s, py::handle v) { s.unflattened_size = v.cast<std::vector<int64_t>>(); });
  bind_own_forward<Unflatten>(unflatten);

  BaseClass<ShuffleLayer>(m, "_ShuffleLayer");
  auto bind_shuffle = [&](auto tag, const char* name, const char* arg) {
    using T = typename decltype(tag)::type;
    Class<T, ShuffleLayer> cls(m, name);
    cls.def("__init__", [](VH& v_h, int64_t f) { construct_layer<T>(v_h, f); },
            py::detail::is_new_style_constructor(), py::arg(arg));
    cls.def_readwrite(arg, &ShuffleLayer::factor);
    bind_own_forward<T>(cls);
  };
  bind_shuffle(std::type_identity<PixelShuffle>{}, "PixelShuffle", "upscale_factor");
  bind_shuffle(std::type_identity<PixelUnshuffle>{}, "PixelUnshuffle", "downscale_factor");
  bind_shuffle(std::type_identity<ChannelShuffle>{}, "ChannelShuffle", "groups");

  Class<Fold> fold(m, "Fold");
  fold.def("__init__", [](VH& v_h, py::handle o, py::handle k, py::handle d, py::handle p, py::handle s) {
    construct_layer<Fold>(v_h, int_or_tuple(o), int_or_tuple(k), int_or_tuple(d), int_or_tuple(p), int_or_tuple(s));
  }, py::detail::is_new_style_constructor(), py::arg("output_size"), py::arg("kernel_size"),
     py::arg("dilation") = 1, py::arg("padding") = 0, py::arg("stride") = 1);
  size_attr(fold, "output_size", &Fold::output_size);
  size_attr(fold, "kernel_size", &Fold::kernel_size);
  size_attr(fold, "dilation", &Fold::dilation);
  size_attr(fold, "padding", &Fold::padding);
  size_attr(fold, "stride", &Fold::stride);
  bind_own_forward<Fold>(fold);
  Class<Unfold> unfold(m, "Unfold");
  unfold.def("__init__", [](VH& v_h, py::handle k, py::handle d, py::handle p, py::handle s) {
    construct_layer<Unfold>(v_h, int_or_tuple(k), int_or_tuple(d), int_or_tuple(p), int_or_tuple(s));
  }, py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("stride") = 1);
  size_attr(unfold, "kernel_size", &Unfold::kernel_size);
  size_attr(unfold, "dilation", &Unfold::dilation);
  size_attr(unfold, "padding", &Unfold::padding);
  size_attr(unfold, "stride", &Unfold::stride);
  bind_own_forward<Unfold>(unfold);

  Class<UpsamplingNearest2d, Upsample> upn(m, "UpsamplingNearest2d");
  upn.def("__init__", [](VH& v_h, py::handle size, py::handle scale) {
    construct_layer<UpsamplingNearest2d>(v_h, opt_size(size), scale_factor_arg(scale));
  }, py::detail::is_new_style_constructor(), py::arg("size") = none, py::arg("scale_factor") = none);
  bind_own_forward<UpsamplingNearest2d>(upn);
  Class<UpsamplingBilinear2d, Upsample> upb(m, "UpsamplingBilinear2d");
  upb.def("__init__", [](VH& v_h, py::handle size, py::handle scale) {
    construct_layer<UpsamplingBilinear2d>(v_h, opt_size(size), scale_factor_arg(scale));
  }, py::detail::is_new_style_constructor(), py::arg("size") = none, py::arg("scale_factor") = none);
  bind_own_forward<UpsamplingBilinear2d>(upb);

  Class<CosineSimilarity> cos(m, "CosineSimilarity");
  cos.def("__init__", [](VH& v_h, int64_t dim, double eps) { construct_layer<CosineSimilarity>(v_h, dim, eps); },
          py::detail::is_new_style_constructor(), py::arg("dim") = 1, py::arg("eps") = 1e-8);
  cos.def_readwrite("dim", &CosineSimilarity::dim).def_readwrite("eps", &CosineSimilarity::eps);
  bind_own_forward<CosineSimilarity>(cos);
  Class<PairwiseDistance> pd(m, "PairwiseDistance");
  pd.def("__init__", [](VH& v_h, double p, double eps, bool keepdim) {
    construct_layer<PairwiseDistance>(v_h, p, eps, keepdim);
  }, py::detail::is_new_style_constructor(), py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("keepdim") = false);
  pd.def_readwrite("norm", &PairwiseDistance::norm).def_readwrite("eps", &PairwiseDistance::eps)
      .def_readwrite("keepdim", &PairwiseDistance::keepdim);
  bind_own_forward<PairwiseDistance>(pd);

  BaseClass<DropoutNd> dbase(m, "_DropoutNd");
  dbase.def_readwrite("p", &DropoutNd::p).def_readwrite("inplace", &DropoutNd::inplace);
  auto bind_drop = [&](auto tag, const char* name) {
    using T = typename decltype(tag)::type;
    Class<T, DropoutNd> cls(m, name);
    cls.def("__init__", [](VH& v_h, double p, bool inplace) { construct_layer<T>(v_h, p, inplace); },
            py::detail::is_new_style_constructor(), py::arg("p") = 0.5, py::arg("inplace") = false);
    bind_own_forward<T>(cls);
  };
  bind_drop(std::type_identity<Dropout1d>{}, "Dropout1d");
  bind_drop(std::type_identity<Dropout3d>{}, "Dropout3d");
  bind_drop(std::type_identity<AlphaDropout>{}, "AlphaDropout");
  bind_drop(std::type_identity<FeatureAlphaDropout>{}, "FeatureAlphaDropout");
}

// ---- losses ----
void bind_losses(py::module_& m) {
  const auto is_new = py::detail::is_new_style_constructor();
  Class<BCELoss, WeightedLoss> bce(m, "BCELoss");
  bce.def("__init__", [](VH& v_h, py::object weight, py::object sa, py::object r, const std::string& red) {
    construct_layer<BCELoss>(v_h, opt_tensor(weight), reduction_arg(sa, r, red));
  }, is_new, py::arg("weight") = none, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  bind_own_forward<BCELoss>(bce);

  Class<KLDivLoss, Loss> kl(m, "KLDivLoss");
  kl.def("__init__", [](VH& v_h, py::object sa, py::object r, const std::string& red, bool log_target) {
    construct_layer<KLDivLoss>(v_h, reduction_arg(sa, r, red), log_target);
  }, is_new, py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean",
     py::arg("log_target") = false);
  kl.def_readwrite("log_target", &KLDivLoss::log_target);
  bind_own_forward<KLDivLoss>(kl);

  Class<HuberLoss, Loss> huber(m, "HuberLoss");
  huber.def("__init__", [](VH& v_h, const std::string& red, double delta) {
    construct_layer<HuberLoss>(v_h, red, delta);
  }, is_new, py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  huber.def_readwrite("delta", &HuberLoss::delta);
  bind_own_forward<HuberLoss>(huber);

  Class<SmoothL1Loss, Loss> sl1(m, "SmoothL1Loss");
  sl1.def("__init__", [](VH& v_h, py::object sa, py::object r, const std::string& red, double beta) {
    construct_layer<SmoothL1Loss>(v_h, reduction_arg(sa, r, red), beta);
  }, is_new, py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean",
     py::arg("beta") = 1.0);
  sl1.def_readwrite("beta", &SmoothL1Loss::beta);
  bind_own_forward<SmoothL1Loss>(sl1);

  Class<SoftMarginLoss, Loss> sm(m, "SoftMarginLoss");
  sm.def("__init__", [](VH& v_h, py::object sa, py::object r, const std::string& red) {
    construct_layer<SoftMarginLoss>(v_h, reduction_arg(sa, r, red));
  }, is_new, py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  bind_own_forward<SoftMarginLoss>(sm);

  Class<MultiLabelSoftMarginLoss, WeightedLoss> mlsm(m, "MultiLabelSoftMarginLoss");
  mlsm.def("__init__", [](VH& v_h, py::object weight, py::object sa, py::object r, const std::string& red) {
    construct_layer<MultiLabelSoftMarginLoss>(v_h, opt_tensor(weight), reduction_arg(sa, r, red));
  }, is_new, py::arg("weight") = none, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  bind_own_forward<MultiLabelSoftMarginLoss>(mlsm);

  Class<MultiMarginLoss, WeightedLoss> mm(m, "MultiMarginLoss");
  mm.def("__init__", [](VH& v_h, int64_t p, double margin, py::object weight, py::object sa, py::object r,
                        const std::string& red) {
    construct_layer<MultiMarginLoss>(v_h, p, margin, opt_tensor(weight), reduction_arg(sa, r, red));
  }, is_new, py::arg("p") = 1, py::arg("margin") = 1.0, py::arg("weight") = none,
     py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  mm.def_readwrite("p", &MultiMarginLoss::p).def_readwrite("margin", &MultiMarginLoss::margin);
  bind_own_forward<MultiMarginLoss>(mm);

  Class<MultiLabelMarginLoss, Loss> mlm(m, "MultiLabelMarginLoss");
  mlm.def("__init__", [](VH& v_h, py::object sa, py::object r, const std::string& red) {
    construct_layer<MultiLabelMarginLoss>(v_h, reduction_arg(sa, r, red));
  }, is_new, py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  bind_own_forward<MultiLabelMarginLoss>(mlm);

  Class<HingeEmbeddingLoss, Loss> hinge(m, "HingeEmbeddingLoss");
  hinge.def("__init__", [](VH& v_h, double margin, py::object sa, py::object r, const std::string& red) {
    construct_layer<HingeEmbeddingLoss>(v_h, margin, reduction_arg(sa, r, red));
  }, is_new, py::arg("margin") = 1.0, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  hinge.def_readwrite("margin", &HingeEmbeddingLoss::margin);
  bind_own_forward<HingeEmbeddingLoss>(hinge);

  Class<PoissonNLLLoss, Loss> pois(m, "PoissonNLLLoss");
  pois.def("__init__", [](VH& v_h, bool log_input, bool full, py::object sa, double eps, py::object r,
                          const std::string& red) {
    construct_layer<PoissonNLLLoss>(v_h, log_input, full, eps, reduction_arg(sa, r, red));
  }, is_new, py::arg("log_input") = true, py::arg("full") = false, py::arg("size_average") = none,
     py::arg("eps") = 1e-8, py::arg("reduce") = none, py::arg("reduction") = "mean");
  pois.def_readwrite("log_input", &PoissonNLLLoss::log_input).def_readwrite("full", &PoissonNLLLoss::full)
      .def_readwrite("eps", &PoissonNLLLoss::eps);
  bind_own_forward<PoissonNLLLoss>(pois);

  BaseClass<Loss3, Loss>(m, "_Loss3");
  Class<CosineEmbeddingLoss, Loss3> cel(m, "CosineEmbeddingLoss");
  cel.def("__init__", [](VH& v_h, double margin, py::object sa, py::object r, const std::string& red) {
    construct_layer<CosineEmbeddingLoss>(v_h, margin, reduction_arg(sa, r, red));
  }, is_new, py::arg("margin") = 0.0, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  cel.def_readwrite("margin", &CosineEmbeddingLoss::margin);
  bind_own_forward<CosineEmbeddingLoss>(cel);

  Class<MarginRankingLoss, Loss3> mrl(m, "MarginRankingLoss");
  mrl.def("__init__", [](VH& v_h, double margin, py::object sa, py::object r, const std::string& red) {
    construct_layer<MarginRankingLoss>(v_h, margin, reduction_arg(sa, r, red));
  }, is_new, py::arg("margin") = 0.0, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  mrl.def_readwrite("margin", &MarginRankingLoss::margin);
  bind_own_forward<MarginRankingLoss>(mrl);

  Class<TripletMarginLoss, Loss3> tml(m, "TripletMarginLoss");
  tml.def("__init__", [](VH& v_h, double margin, double p, double eps, bool swap, py::object sa,
                         py::object r, const std::string& red) {
    construct_layer<TripletMarginLoss>(v_h, margin, p, eps, swap, reduction_arg(sa, r, red));
  }, is_new, py::arg("margin") = 1.0, py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("swap") = false,
     py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  tml.def_readwrite("margin", &TripletMarginLoss::margin).def_readwrite("p", &TripletMarginLoss::p)
      .def_readwrite("eps", &TripletMarginLoss::eps).def_readwrite("swap", &TripletMarginLoss::swap);
  bind_own_forward<TripletMarginLoss>(tml);

  Class<GaussianNLLLoss, Loss3> gnl(m, "GaussianNLLLoss");
  gnl.def("__init__", [](VH& v_h, bool full, double eps, const std::string& red) {
    construct_layer<GaussianNLLLoss>(v_h, full, eps, red);
  }, is_new, py::kw_only(), py::arg("full") = false, py::arg("eps") = 1e-6, py::arg("reduction") = "mean");
  gnl.def_readwrite("full", &GaussianNLLLoss::full).def_readwrite("eps", &GaussianNLLLoss::eps);
  bind_own_forward<GaussianNLLLoss>(gnl);
}

// ---- ParameterList / ParameterDict ----
Tensor tensor_arg(py::handle o) {
  EMBER_CHECK_TYPE(is_tensor(o.ptr()), "cannot assign '", Py_TYPE(o.ptr())->tp_name,
                   "' object to parameter (ember.nn.Parameter or None required)");
  return unpack(o.ptr());
}

void bind_parameter_containers(py::module_& m) {
  Class<ParameterList> plist(m, "ParameterList");
  plist.def("__init__", [](VH& v_h, py::object values) {
    std::vector<Tensor> ts;
    if (!values.is_none())
      for (auto v : values) ts.push_back(tensor_arg(v));
    construct_layer<ParameterList>(v_h, ts);
  }, py::detail::is_new_style_constructor(), py::arg("values") = none);
  plist.def("__len__", &ParameterList::size)
      .def("__getitem__", [](ParameterList& self, int64_t i) { return self.at(i); })
      .def("__getitem__", [](ParameterList& self, py::slice sl) {
        size_t start = 0, stop = 0, step = 0, len = 0;
        if (!sl.compute(self.size(), &start, &stop, &step, &len)) throw py::error_already_set();
        std::vector<Tensor> out;
        for (size_t k = 0; k < len; ++k) out.push_back(self.at(static_cast<int64_t>(start + k * step)));
        return std::make_shared<ParameterList>(out);
      })
      .def("__setitem__", [](ParameterList& self, int64_t i, py::handle v) { self.set(i, tensor_arg(v)); })
      .def("__iter__", [](ParameterList& self) {
        py::list items;
        for (size_t k = 0; k < self.size(); ++k) items.append(py::cast(self.at(static_cast<int64_t>(k))));
        return py::iter(items);
      })
      .def("append", [](py::object self, py::handle v) {
        self.cast<ParameterList&>().append(tensor_arg(v));
        return self;
      })
      .def("extend", [](py::object self, py::handle values) {
        for (auto v : values) self.cast<ParameterList&>().append(tensor_arg(v));
        return self;
      })
      .def("__iadd__", [](py::object self, py::handle values) {
        for (auto v : values) self.cast<ParameterList&>().append(tensor_arg(v));
        return self;
      })
      .def("extra_repr", [](const ParameterList& self) { return self.ParameterList::extra_repr(); });

  Class<ParameterDict> pdict(m, "ParameterDict");
  pdict.def("__init__", [](VH& v_h, py::object parameters) {
    std::vector<std::pair<std::string, Tensor>> kv;
    if (!parameters.is_none()) {
      py::object items = py::hasattr(parameters, "items") ? parameters.attr("items")() : parameters;
      for (auto item : items) {
        auto pair = py::reinterpret_borrow<py::sequence>(item);
        kv.emplace_back(py::cast<std::string>(pair[0]), tensor_arg(pair[1]));
      }
    }
    construct_layer<ParameterDict>(v_h, kv);
  }, py::detail::is_new_style_constructor(), py::arg("parameters") = none);
  pdict.def("__len__", &ParameterDict::size)
      .def("__getitem__", [](ParameterDict& self, const std::string& k) { return self.get(k); })
      .def("__setitem__", [](ParameterDict& self, const std::string& k, py::handle v) { self.set(k, tensor_arg(v)); })
      .def("__delitem__", [](ParameterDict& self, const std::string& k) { self.pop(k); })
      .def("__contains__", &ParameterDict::contains)
      .def("__iter__", [](const ParameterDict& self) { return py::iter(py::cast(self.keys())); })
      .def("keys", &ParameterDict::keys)
      .def("values", [](ParameterDict& self) {
        py::list out;
        for (const auto& k : self.keys()) out.append(py::cast(self.get(k)));
        return out;
      })
      .def("items", [](ParameterDict& self) {
        py::list out;
        for (const auto& k : self.keys()) out.append(py::make_tuple(k, py::cast(self.get(k))));
        return out;
      })
      .def("get", [](ParameterDict& self, const std::string& k, py::object def) -> py::object {
        return self.contains(k) ? py::cast(self.get(k)) : def;
      }, py::arg("key"), py::arg("default") = none)
      .def("pop", &ParameterDict::pop)
      .def("clear", &ParameterDict::clear)
      .def("update", [](ParameterDict& self, py::handle values) {
        py::object items = py::hasattr(values, "items") ? values.attr("items")() : py::reinterpret_borrow<py::object>(values);
        for (auto item : items) {
          auto pair = py::reinterpret_borrow<py::sequence>(item);
          self.set(py::cast<std::string>(pair[0]), tensor_arg(pair[1]));
        }
      })
      .def("extra_repr", [](const ParameterDict& self) { return self.ParameterDict::extra_repr(); });
}

}  // namespace

void init_nn_nnlayers(py::module_& nn) {
  bind_parameter_containers(nn);
  bind_activations(nn);
  bind_convs(nn);
  bind_pools(nn);
  bind_padding(nn);
  bind_misc(nn);
  bind_losses(nn);
  init_nn_nnlayers_functional(nn);
}

}  // namespace ember::python
