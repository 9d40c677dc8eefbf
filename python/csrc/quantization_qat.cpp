// The QAT modules (ember::nn::qat, ember::nn::intrinsic::qat) as _C._nnqat and _C._nniqat
// classes with PyTorch 1.13's constructor signatures, from_float / to_float, and the BN
// controls of the ConvBn classes. Each gets the trampoline of Note [Trampolines for C++ layers].
#include "nn_cnn.h"
#include "quantization.h"

#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/nn/qat/modules.h"

namespace ember::python {

namespace {

using VH = py::detail::value_and_holder;
namespace nnqat = ember::nn::qat;
namespace nniqat = ember::nn::intrinsic::qat;

const auto none = py::none();

nn::ConvPadding conv_padding(py::handle p) {
  if (PyUnicode_Check(p.ptr())) return nn::ConvPadding(p.cast<std::string>());
  return nn::ConvPadding(int_or_tuple(p));
}

std::optional<double> opt_double(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<double>();
}

bool truthy(py::handle o) { return PyObject_IsTrue(o.ptr()) == 1; }

template <class T, class Cls>
void bind_qat_common(Cls& cls) {
  bind_own_forward<T>(cls);
  cls.def_static("from_float", [](py::handle mod) {
    return module_to_py(T::from_float(*module_from_py(mod)));
  }, py::arg("mod"));
  cls.def("to_float", [](T& self) { return module_to_py(self.to_float()); });
}

// nnqat.Conv1d / Conv2d and nniqat.ConvReLU1d / 2d: (in, out, kernel_size, stride=1,
// padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros', qconfig=None[, device,
// dtype]).
template <class T, class Base, bool with_options>
void bind_qat_conv(py::module_& m, const char* name) {
  py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>> cls(m, name);
  if constexpr (with_options) {
    cls.def(
        "__init__",
        [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
           py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
           py::handle qconfig, py::object device, py::object dtype) {
          construct_layer<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                             conv_padding(padding), int_or_tuple(dilation), groups, bias,
                             padding_mode, qconfig_from_py(qconfig),
                             tensor_options(device, dtype));
        },
        py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
        py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
        py::arg("padding_mode") = "zeros", py::arg("qconfig") = none, py::arg("device") = none,
        py::arg("dtype") = none);
  } else {
    cls.def(
        "__init__",
        [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
           py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
           py::handle qconfig) {
          construct_layer<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                             conv_padding(padding), int_or_tuple(dilation), groups, bias,
                             padding_mode, qconfig_from_py(qconfig));
        },
        py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
        py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
        py::arg("padding_mode") = "zeros", py::arg("qconfig") = none);
  }
  bind_qat_common<T>(cls);
}

// The BN controls shared by the ConvBn classes and LinearBn1d (each returns self).
template <class T, class Cls>
void bind_bn_controls(Cls& cls) {
  cls.def("freeze_bn_stats", [](py::handle self) {
    self.cast<T&>().freeze_bn_stats();
    return py::reinterpret_borrow<py::object>(self);
  });
  cls.def("update_bn_stats", [](py::handle self) {
    self.cast<T&>().update_bn_stats();
    return py::reinterpret_borrow<py::object>(self);
  });
  cls.def("reset_running_stats", &T::reset_running_stats);
  cls.def("reset_bn_parameters", &T::reset_bn_parameters);
  cls.def_readwrite("freeze_bn", &T::freeze_bn);
}

template <class T, class Base>
void bind_conv_bn(py::module_& m, const char* name) {
  py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle dilation, int64_t groups, py::handle bias, const std::string& padding_mode,
         double eps, py::handle momentum, bool freeze_bn, py::handle qconfig) {
        construct_layer<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                           conv_padding(padding), int_or_tuple(dilation), groups, truthy(bias),
                           padding_mode, eps, opt_double(momentum), freeze_bn,
                           qconfig_from_py(qconfig));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = none,
      py::arg("padding_mode") = "zeros", py::arg("eps") = 1e-5, py::arg("momentum") = 0.1,
      py::arg("freeze_bn") = false, py::arg("qconfig") = none);
  bind_qat_common<T>(cls);
  bind_bn_controls<T>(cls);
}

template <class Conv, class Bn>
void bind_conv_bn_base(py::module_& m, const char* name) {
  using B = nniqat::ConvBnNd<Conv, Bn>;
  py::class_<B, Conv, std::shared_ptr<B>> cls(m, name);
  cls.def_readwrite("_enable_slow_path_for_better_numerical_stability",
                    &B::enable_slow_path_for_better_numerical_stability);
  cls.def("_forward", &B::_forward, py::arg("input"));
  cls.def("_forward_approximate", &B::_forward_approximate, py::arg("input"));
  cls.def("_forward_slow", &B::_forward_slow, py::arg("input"));
}

}  // namespace

void init_quantization_qat(py::module_& parent) {
  py::module_ qat = parent.def_submodule("_nnqat", "ember::nn::qat");
  bind_qat_conv<nnqat::Conv1d, nn::Conv1d, true>(qat, "Conv1d");
  bind_qat_conv<nnqat::Conv2d, nn::Conv2d, true>(qat, "Conv2d");
  bind_qat_conv<nnqat::Conv3d, nn::Conv3d, true>(qat, "Conv3d");
  py::class_<nnqat::Linear, PyLayer<nnqat::Linear>, nn::Linear, std::shared_ptr<nnqat::Linear>>
      linear(qat, "Linear");
  linear.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, bool bias, py::handle qconfig, py::object device,
         py::object dtype) {
        construct_layer<nnqat::Linear>(v_h, in, out, bias, qconfig_from_py(qconfig),
                                       tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_features"), py::arg("out_features"),
      py::arg("bias") = true, py::arg("qconfig") = none, py::arg("device") = none,
      py::arg("dtype") = none);
  bind_qat_common<nnqat::Linear>(linear);

  py::module_ iqat = parent.def_submodule("_nniqat", "ember::nn::intrinsic::qat");
  bind_conv_bn_base<nn::Conv1d, nn::BatchNorm1d>(iqat, "_ConvBnNd1d");
  bind_conv_bn_base<nn::Conv2d, nn::BatchNorm2d>(iqat, "_ConvBnNd2d");
  bind_conv_bn_base<nn::Conv3d, nn::BatchNorm3d>(iqat, "_ConvBnNd3d");
  using B1 = nniqat::ConvBnNd<nn::Conv1d, nn::BatchNorm1d>;
  using B2 = nniqat::ConvBnNd<nn::Conv2d, nn::BatchNorm2d>;
  using B3 = nniqat::ConvBnNd<nn::Conv3d, nn::BatchNorm3d>;
  bind_conv_bn<nniqat::ConvBn1d, B1>(iqat, "ConvBn1d");
  bind_conv_bn<nniqat::ConvBnReLU1d, B1>(iqat, "ConvBnReLU1d");
  bind_conv_bn<nniqat::ConvBn2d, B2>(iqat, "ConvBn2d");
  bind_conv_bn<nniqat::ConvBnReLU2d, B2>(iqat, "ConvBnReLU2d");
  bind_conv_bn<nniqat::ConvBn3d, B3>(iqat, "ConvBn3d");
  bind_conv_bn<nniqat::ConvBnReLU3d, B3>(iqat, "ConvBnReLU3d");
  bind_qat_conv<nniqat::ConvReLU1d, nnqat::Conv1d, false>(iqat, "ConvReLU1d");
  bind_qat_conv<nniqat::ConvReLU2d, nnqat::Conv2d, false>(iqat, "ConvReLU2d");
  bind_qat_conv<nniqat::ConvReLU3d, nnqat::Conv3d, false>(iqat, "ConvReLU3d");
  py::class_<nniqat::LinearReLU, PyLayer<nniqat::LinearReLU>, nnqat::Linear,
             std::shared_ptr<nniqat::LinearReLU>>
      lr(iqat, "LinearReLU");
  lr.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, bool bias, py::handle qconfig) {
        construct_layer<nniqat::LinearReLU>(v_h, in, out, bias, qconfig_from_py(qconfig));
      },
      py::detail::is_new_style_constructor(), py::arg("in_features"), py::arg("out_features"),
      py::arg("bias") = true, py::arg("qconfig") = none);
  bind_qat_common<nniqat::LinearReLU>(lr);
  py::class_<nniqat::LinearBn1d, PyLayer<nniqat::LinearBn1d>, nn::Linear,
             std::shared_ptr<nniqat::LinearBn1d>>
      lb(iqat, "LinearBn1d");
  lb.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle bias, double eps, py::handle momentum,
         bool freeze_bn, py::handle qconfig) {
        construct_layer<nniqat::LinearBn1d>(v_h, in, out, truthy(bias), eps, opt_double(momentum),
                                            freeze_bn, qconfig_from_py(qconfig));
      },
      py::detail::is_new_style_constructor(), py::arg("in_features"), py::arg("out_features"),
      py::arg("bias") = true, py::arg("eps") = 1e-5, py::arg("momentum") = 0.1,
      py::arg("freeze_bn") = false, py::arg("qconfig") = none);
  bind_qat_common<nniqat::LinearBn1d>(lb);
  bind_bn_controls<nniqat::LinearBn1d>(lb);
  iqat.def("freeze_bn_stats", [](py::handle mod) { nniqat::freeze_bn_stats(*module_from_py(mod)); },
           py::arg("mod"));
  iqat.def("update_bn_stats", [](py::handle mod) { nniqat::update_bn_stats(*module_from_py(mod)); },
           py::arg("mod"));
}

}  // namespace ember::python
