// The quantized modules of ember::nn::quantized as the classes of ember.ao.nn.quantized (and
// its intrinsic and dynamic parts), with PyTorch 1.13's constructor signatures and attributes:
// _C._nnq, _C._nniq and _C._nnqd. Each class gets the trampoline of Note [Trampolines for C++
// layers]; a Python subclass keeps the C++ class's _get_name ("QuantizedConv2d"), as a subclass
// of PyTorch's inherits it. What PyTorch writes around them in Python (from_float with its
// observers, pickling) is in python/ember/ao/nn/quantized/.
#include "nn_cnn.h"

#include "ember/nn/quantized.h"
#include "ember/quantized/conv_linear.h"
#include "quant/packed_params.h"

namespace ember::python {

namespace {

namespace nnq = ember::nn::quantized;
using VH = py::detail::value_and_holder;

template <class T, class Base = nn::Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

/// __init__'s body: T, or PyLayer<T> for a Python subclass, keeping T's type name.
template <class T, class... Args>
void construct(VH& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    v_h.value_ptr() = new PyLayer<T>(std::forward<Args>(args)...);
  } else {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

/// forward, extra_repr and _get_name (the C++ class's name, PyTorch's _get_name()).
template <class T, class Cls>
void finish(Cls& cls) {
  bind_own_forward<T>(cls);
  cls.def("_get_name", [](const T& self) { return self.type_name(); });
}

Scalar py_scalar(py::handle o) {
  if (PyBool_Check(o.ptr())) return Scalar(o.cast<bool>());
  if (PyLong_Check(o.ptr())) return Scalar(o.cast<int64_t>());
  EMBER_CHECK_TYPE(PyFloat_Check(o.ptr()), "expected a number, got ", Py_TYPE(o.ptr())->tp_name);
  return Scalar(o.cast<double>());
}

py::tuple weight_bias(const std::tuple<Tensor, std::optional<Tensor>>& wb) {
  return py::make_tuple(std::get<0>(wb), std::get<1>(wb));
}

std::optional<Tensor> opt_tensor(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<Tensor>();
}

// The attributes PyTorch keeps as tuples after _pair / _single.
template <class Cls>
void tuple_attr(Cls& cls, const char* name, std::vector<int64_t> nnq::ConvNd::*field) {
  cls.def_property(
      name, [field](const nnq::ConvNd& self) { return to_tuple(self.*field); },
      [field](nnq::ConvNd& self, py::handle v) {
        self.*field = int_or_tuple(v).expand((self.*field).size());
      });
}

template <class T, class Base>
void bind_conv_class(py::module_& m, const char* name) {
  Class<T, Base> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
         py::object device, py::object dtype) {
        construct<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride), int_or_tuple(padding),
                     int_or_tuple(dilation), groups, bias, padding_mode,
                     tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("padding_mode") = "zeros", py::arg("device") = none, py::arg("dtype") = none);
  finish<T>(cls);
}

void bind_conv(py::module_& nnq_mod, py::module_& nniq_mod) {
  py::class_<nnq::ConvNd, nn::Module, std::shared_ptr<nnq::ConvNd>> conv(nnq_mod, "_ConvNd");
  conv.def("set_weight_bias",
           [](nnq::ConvNd& self, const Tensor& w, py::handle b) {
             self.set_weight_bias(w, opt_tensor(b));
           },
           py::arg("w"), py::arg("b"))
      .def("_weight_bias", [](const nnq::ConvNd& self) { return weight_bias(self._weight_bias()); })
      .def("weight", &nnq::ConvNd::weight)
      .def("bias", &nnq::ConvNd::bias)
      .def_property(
          "_packed_params",
          [](const nnq::ConvNd& self) { return value_to_py(Value(self.packed_object())); },
          [](nnq::ConvNd& self, py::handle v) {
            self.set_packed_params(
                py_to_value(v, "_packed_params").to_object<ember::quantized::ConvPackedParams>());
          })
      .def_readwrite("in_channels", &nnq::ConvNd::in_channels)
      .def_readwrite("out_channels", &nnq::ConvNd::out_channels)
      .def_readwrite("transposed", &nnq::ConvNd::transposed)
      .def_readwrite("groups", &nnq::ConvNd::groups)
      .def_readwrite("padding_mode", &nnq::ConvNd::padding_mode)
      .def_readwrite("scale", &nnq::ConvNd::scale)
      .def_readwrite("zero_point", &nnq::ConvNd::zero_point);
  tuple_attr(conv, "kernel_size", &nnq::ConvNd::kernel_size);
  tuple_attr(conv, "stride", &nnq::ConvNd::stride);
  tuple_attr(conv, "padding", &nnq::ConvNd::padding);
  tuple_attr(conv, "dilation", &nnq::ConvNd::dilation);
  tuple_attr(conv, "output_padding", &nnq::ConvNd::output_padding);
  conv.def("extra_repr", [](const nnq::ConvNd& self) { return self.nnq::ConvNd::extra_repr(); });

  bind_conv_class<nnq::Conv1d, nnq::ConvNd>(nnq_mod, "Conv1d");
  bind_conv_class<nnq::Conv2d, nnq::ConvNd>(nnq_mod, "Conv2d");
  bind_conv_class<nnq::ConvReLU1d, nnq::Conv1d>(nniq_mod, "ConvReLU1d");
  bind_conv_class<nnq::ConvReLU2d, nnq::Conv2d>(nniq_mod, "ConvReLU2d");
}

template <class T, class Cls>
void linear_members(Cls& cls) {
  cls.def("set_weight_bias",
          [](T& self, const Tensor& w, py::handle b) { self.set_weight_bias(w, opt_tensor(b)); },
          py::arg("w"), py::arg("b"))
      .def("_weight_bias", [](const T& self) { return weight_bias(self._weight_bias()); });
}

void bind_linear(py::module_& nnq_mod, py::module_& nniq_mod, py::module_& nnqd_mod) {
  Class<nnq::LinearPackedParams> packed(nnq_mod, "LinearPackedParams");
  packed.def("__init__", [](VH& v_h, ScalarType dtype) { construct<nnq::LinearPackedParams>(v_h, dtype); },
             py::detail::is_new_style_constructor(), py::arg("dtype") = kQInt8)
      .def_readwrite("dtype", &nnq::LinearPackedParams::dtype)
      .def_property_readonly_static("_version", [](py::handle) { return 3; })
      .def_property(
          "_packed_params",
          [](const nnq::LinearPackedParams& self) { return value_to_py(Value(self.packed_object())); },
          [](nnq::LinearPackedParams& self, py::handle v) {
            self.set_packed_params(py_to_value(v, "_packed_params")
                                       .to_object<ember::quantized::LinearPackedParams>());
          });
  linear_members<nnq::LinearPackedParams>(packed);
  finish<nnq::LinearPackedParams>(packed);

  Class<nnq::Linear> linear(nnq_mod, "Linear");
  linear.def("__init__",
             [](VH& v_h, int64_t in, int64_t out, bool bias, ScalarType dtype) {
               construct<nnq::Linear>(v_h, in, out, bias, dtype);
             },
             py::detail::is_new_style_constructor(), py::arg("in_features"),
             py::arg("out_features"), py::arg("bias_") = true, py::arg("dtype") = kQInt8)
      .def_readwrite("in_features", &nnq::Linear::in_features)
      .def_readwrite("out_features", &nnq::Linear::out_features)
      .def_readwrite("scale", &nnq::Linear::scale)
      .def_readwrite("zero_point", &nnq::Linear::zero_point)
      .def("weight", &nnq::Linear::weight)
      .def("bias", &nnq::Linear::bias)
      .def_property_readonly_static("_version", [](py::handle) { return 3; });
  linear_members<nnq::Linear>(linear);
  finish<nnq::Linear>(linear);

  Class<nnq::LinearReLU, nnq::Linear> linear_relu(nniq_mod, "LinearReLU");
  linear_relu.def("__init__",
                  [](VH& v_h, int64_t in, int64_t out, bool bias, ScalarType dtype) {
                    construct<nnq::LinearReLU>(v_h, in, out, bias, dtype);
                  },
                  py::detail::is_new_style_constructor(), py::arg("in_features"),
                  py::arg("out_features"), py::arg("bias") = true, py::arg("dtype") = kQInt8);
  finish<nnq::LinearReLU>(linear_relu);

  using DLinear = nnq::dynamic::Linear;
  Class<DLinear, nnq::Linear> dlinear(nnqd_mod, "Linear");
  dlinear.def("__init__",
              [](VH& v_h, int64_t in, int64_t out, bool bias, ScalarType dtype) {
                construct<DLinear>(v_h, in, out, bias, dtype);
              },
              py::detail::is_new_style_constructor(), py::arg("in_features"),
              py::arg("out_features"), py::arg("bias_") = true, py::arg("dtype") = kQInt8)
      .def_readwrite("version", &DLinear::loaded_version)
      .def_property_readonly_static("_version", [](py::handle) { return 4; });
  finish<DLinear>(dlinear);
}

void bind_misc(py::module_& m, py::module_& nniq_mod) {
  Class<nnq::Quantize> quant(m, "Quantize");
  quant.def("__init__",
            [](VH& v_h, double scale, int64_t zero_point, ScalarType dtype, py::object factory_kwargs) {
              TensorOptions options;
              if (!factory_kwargs.is_none()) {
                auto kw = factory_kwargs.cast<py::dict>();
                options = tensor_options(kw.contains("device") ? kw["device"] : none,
                                         kw.contains("dtype") ? kw["dtype"] : none);
              }
              construct<nnq::Quantize>(v_h, scale, zero_point, dtype, options);
            },
            py::detail::is_new_style_constructor(), py::arg("scale"), py::arg("zero_point"),
            py::arg("dtype"), py::arg("factory_kwargs") = none)
      .def_readwrite("dtype", &nnq::Quantize::dtype);
  finish<nnq::Quantize>(quant);

  Class<nnq::DeQuantize> dequant(m, "DeQuantize");
  dequant.def("__init__", [](VH& v_h) { construct<nnq::DeQuantize>(v_h); },
              py::detail::is_new_style_constructor());
  finish<nnq::DeQuantize>(dequant);

  Class<nnq::ReLU6, nn::ReLU> relu6(m, "ReLU6");
  relu6.def("__init__", [](VH& v_h, bool inplace) { construct<nnq::ReLU6>(v_h, inplace); },
            py::detail::is_new_style_constructor(), py::arg("inplace") = false);
  finish<nnq::ReLU6>(relu6);

  Class<nnq::Hardswish, nn::Hardswish> hardswish(m, "Hardswish");
  hardswish
      .def("__init__",
           [](VH& v_h, double scale, int64_t zero_point) {
             construct<nnq::Hardswish>(v_h, scale, zero_point);
           },
           py::detail::is_new_style_constructor(), py::arg("scale"), py::arg("zero_point"))
      .def_readwrite("scale", &nnq::Hardswish::scale)
      .def_readwrite("zero_point", &nnq::Hardswish::zero_point);
  finish<nnq::Hardswish>(hardswish);

  Class<nnq::Dropout, nn::Dropout> dropout(m, "Dropout");
  dropout.def("__init__", [](VH& v_h, double p, bool inplace) { construct<nnq::Dropout>(v_h, p, inplace); },
              py::detail::is_new_style_constructor(), py::arg("p") = 0.5, py::arg("inplace") = false);
  finish<nnq::Dropout>(dropout);

  auto bn_init = [](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return [](VH& v_h, int64_t num_features, double eps, double momentum, py::object device,
              py::object dtype) {
      construct<T>(v_h, num_features, eps, momentum, tensor_options(device, dtype));
    };
  };
  Class<nnq::BatchNorm2d, nn::BatchNorm2d> bn(m, "BatchNorm2d");
  bn.def("__init__", bn_init(static_cast<nnq::BatchNorm2d*>(nullptr)),
         py::detail::is_new_style_constructor(), py::arg("num_features"), py::arg("eps") = 1e-5,
         py::arg("momentum") = 0.1, py::arg("device") = none, py::arg("dtype") = none);
  finish<nnq::BatchNorm2d>(bn);
  Class<nnq::BNReLU2d, nnq::BatchNorm2d> bnrelu(nniq_mod, "BNReLU2d");
  bnrelu.def("__init__", bn_init(static_cast<nnq::BNReLU2d*>(nullptr)),
             py::detail::is_new_style_constructor(), py::arg("num_features"),
             py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("device") = none,
             py::arg("dtype") = none);
  finish<nnq::BNReLU2d>(bnrelu);
}

// add, add_scalar, mul, mul_scalar, cat, add_relu with PyTorch's argument names.
template <class T, class Cls>
void functional_ops(Cls& cls) {
  cls.def("add", &T::add, py::arg("x"), py::arg("y"))
      .def("add_scalar", [](T& self, const Tensor& x, py::handle y) {
        return self.add_scalar(x, py_scalar(y));
      }, py::arg("x"), py::arg("y"))
      .def("mul", &T::mul, py::arg("x"), py::arg("y"))
      .def("mul_scalar", [](T& self, const Tensor& x, py::handle y) {
        return self.mul_scalar(x, py_scalar(y));
      }, py::arg("x"), py::arg("y"))
      .def("cat", &T::cat, py::arg("x"), py::arg("dim") = 0)
      .def("add_relu", &T::add_relu, py::arg("x"), py::arg("y"));
}

void bind_functional(py::module_& m) {
  Class<nnq::FloatFunctional> ff(m, "FloatFunctional");
  ff.def("__init__", [](VH& v_h) { construct<nnq::FloatFunctional>(v_h); },
         py::detail::is_new_style_constructor());
  functional_ops<nnq::FloatFunctional>(ff);
  finish<nnq::FloatFunctional>(ff);

  Class<nnq::FXFloatFunctional, nnq::FloatFunctional> fx(m, "FXFloatFunctional");
  fx.def("__init__", [](VH& v_h) { construct<nnq::FXFloatFunctional>(v_h); },
         py::detail::is_new_style_constructor());
  finish<nnq::FXFloatFunctional>(fx);

  Class<nnq::QFunctional> qf(m, "QFunctional");
  qf.def("__init__", [](VH& v_h) { construct<nnq::QFunctional>(v_h); },
         py::detail::is_new_style_constructor())
      .def_readwrite("scale", &nnq::QFunctional::scale)
      .def_readwrite("zero_point", &nnq::QFunctional::zero_point);
  functional_ops<nnq::QFunctional>(qf);
  finish<nnq::QFunctional>(qf);
}

}  // namespace

void init_nn_quantized(py::module_& m) {
  py::module_ nnq_mod = m.def_submodule("_nnq", "ember::nn::quantized");
  py::module_ nniq_mod = m.def_submodule("_nniq", "ember::nn::quantized (intrinsic)");
  py::module_ nnqd_mod = m.def_submodule("_nnqd", "ember::nn::quantized::dynamic");
  bind_conv(nnq_mod, nniq_mod);
  bind_linear(nnq_mod, nniq_mod, nnqd_mod);
  bind_misc(nnq_mod, nniq_mod);
  bind_functional(nnq_mod);
  nnq_mod.def("_quantize_weight",
              [](const Tensor& w, const Tensor& scale, const Tensor& zero_point, int qscheme,
                 int64_t ch_axis, int64_t quant_min, int64_t quant_max) {
                return nnq::quantize_weight(w, scale, zero_point,
                                            static_cast<QScheme>(qscheme), ch_axis, quant_min,
                                            quant_max);
              });
}

}  // namespace ember::python
