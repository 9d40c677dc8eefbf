// nnq.Conv3d, ConvTranspose1d/2d/3d, nniq.ConvReLU3d, nnq.LeakyReLU / ELU / Sigmoid / Softmax
// (C++ ember::nn::quantized, include/ember/nn/quantized/{conv_more,activation_more}.h) as classes
// of _C._nnq / _C._nniq, with PyTorch 1.13's constructor signatures and attributes. from_float
// is Python (python/ember/ao/nn/quantized/_modules_more.py).
#include "nn_cnn.h"

#include "ember/nn/quantized.h"
#include "quant/packed_params_nd.h"

namespace ember::python {

namespace {

namespace nnq = ember::nn::quantized;
using VH = py::detail::value_and_holder;

template <class T, class Base = nn::Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

template <class T, class... Args>
void construct(VH& v_h, Args&&... args) {
  if (is_subclass_instance(v_h)) {
    v_h.value_ptr() = new PyLayer<T>(std::forward<Args>(args)...);
  } else {
    v_h.value_ptr() = new T(std::forward<Args>(args)...);
  }
}

template <class T, class Cls>
void finish(Cls& cls) {
  bind_own_forward<T>(cls);
  cls.def("_get_name", [](const T& self) { return self.type_name(); });
}

std::optional<Tensor> opt_tensor(py::handle o) {
  if (o.is_none()) return std::nullopt;
  return o.cast<Tensor>();
}

template <class Cls>
void tuple_attr(Cls& cls, const char* name, std::vector<int64_t> nnq::PackedConvNd::*field) {
  cls.def_property(
      name, [field](const nnq::PackedConvNd& self) { return to_tuple(self.*field); },
      [field](nnq::PackedConvNd& self, py::handle v) {
        self.*field = int_or_tuple(v).expand((self.*field).size());
      });
}

void bind_base(py::module_& nnq_mod) {
  using B = nnq::PackedConvNd;
  py::class_<B, nn::Module, std::shared_ptr<B>> conv(nnq_mod, "_PackedConvNd");
  conv.def("set_weight_bias",
           [](B& self, const Tensor& w, py::handle b) { self.set_weight_bias(w, opt_tensor(b)); },
           py::arg("w"), py::arg("b"))
      .def("_weight_bias",
           [](const B& self) {
             auto [w, b] = self._weight_bias();
             return py::make_tuple(w, b);
           })
      .def("weight", &B::weight)
      .def("bias", &B::bias)
      .def_property(
          "_packed_params",
          [](const B& self) {
            return value_to_py(Value(self.packed_object()));
          },
          [](B& self, py::handle v) {
            Value val = py_to_value(v, "_packed_params");
            EMBER_CHECK_TYPE(val.is_object(), self.type_name(),
                             "._packed_params must be a packed-params object");
            auto* p = dynamic_cast<ember::quantized::ConvNdPackedParams*>(val.to_object().get());
            EMBER_CHECK_TYPE(p, self.type_name(), "._packed_params: expected the packed weights "
                             "of a 3-d or transposed convolution, got ", val.type_name());
            self.set_packed_params(intrusive_ptr<ember::quantized::ConvNdPackedParams>(p));
          })
      .def_readwrite("in_channels", &B::in_channels)
      .def_readwrite("out_channels", &B::out_channels)
      .def_readwrite("transposed", &B::transposed)
      .def_readwrite("groups", &B::groups)
      .def_readwrite("padding_mode", &B::padding_mode)
      .def_readwrite("scale", &B::scale)
      .def_readwrite("zero_point", &B::zero_point);
  tuple_attr(conv, "kernel_size", &B::kernel_size);
  tuple_attr(conv, "stride", &B::stride);
  tuple_attr(conv, "padding", &B::padding);
  tuple_attr(conv, "dilation", &B::dilation);
  tuple_attr(conv, "output_padding", &B::output_padding);
  conv.def("extra_repr", [](const B& self) { return self.B::extra_repr(); });
}

template <class T, class Base>
void bind_conv3d(py::module_& m, const char* name) {
  Class<T, Base> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
         py::object device, py::object dtype) {
        if (padding_mode == "reflect") {
          PyErr_SetString(PyExc_AssertionError, "Conv3d does not support reflection padding");
          throw py::error_already_set();
        }
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

template <class T>
void bind_transpose(py::module_& m, const char* name) {
  Class<T, nnq::ConvTransposeNd> cls(m, name);
  cls.def(
      "__init__",
      [name](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride,
             py::handle padding, py::handle output_padding, int64_t groups, bool bias,
             py::handle dilation, const std::string& padding_mode, py::object device,
             py::object dtype) {
        // PyTorch names the instance's class (a subclass's name) in this check.
        EMBER_CHECK_VALUE(padding_mode == "zeros", "Only \"zeros\" padding mode is supported "
                          "for ", is_subclass_instance(v_h) ? instance_class_name(v_h) : name);
        construct<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride), int_or_tuple(padding),
                     int_or_tuple(output_padding), groups, bias, int_or_tuple(dilation),
                     padding_mode, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("dilation") = 1, py::arg("padding_mode") = "zeros", py::arg("device") = none,
      py::arg("dtype") = none);
  finish<T>(cls);
}

void bind_activations(py::module_& m) {
  Class<nnq::LeakyReLU> leaky(m, "LeakyReLU");
  leaky.def("__init__",
            [](VH& v_h, double scale, int64_t zero_point, double slope, bool inplace,
               py::object device, py::object dtype) {
              construct<nnq::LeakyReLU>(v_h, scale, zero_point, slope, inplace,
                                        tensor_options(device, dtype));
            },
            py::detail::is_new_style_constructor(), py::arg("scale"), py::arg("zero_point"),
            py::arg("negative_slope") = 0.01, py::arg("inplace") = false,
            py::arg("device") = none, py::arg("dtype") = none)
      .def_readwrite("negative_slope", &nnq::LeakyReLU::negative_slope)
      .def_readwrite("inplace", &nnq::LeakyReLU::inplace);
  finish<nnq::LeakyReLU>(leaky);

  Class<nnq::ELU> elu(m, "ELU");
  elu.def("__init__",
          [](VH& v_h, double scale, int64_t zero_point, double alpha) {
            construct<nnq::ELU>(v_h, scale, zero_point, alpha);
          },
          py::detail::is_new_style_constructor(), py::arg("scale"), py::arg("zero_point"),
          py::arg("alpha") = 1.0)
      .def_readwrite("alpha", &nnq::ELU::alpha)
      .def_readwrite("inplace", &nnq::ELU::inplace)
      .def_readwrite("scale", &nnq::ELU::scale)
      .def_readwrite("zero_point", &nnq::ELU::zero_point);
  finish<nnq::ELU>(elu);

  Class<nnq::Sigmoid> sigmoid(m, "Sigmoid");
  sigmoid.def("__init__",
              [](VH& v_h, double s, int64_t z) { construct<nnq::Sigmoid>(v_h, s, z); },
              py::detail::is_new_style_constructor(), py::arg("output_scale"),
              py::arg("output_zero_point"))
      .def_readwrite("output_scale", &nnq::Sigmoid::output_scale)
      .def_readwrite("output_zero_point", &nnq::Sigmoid::output_zero_point);
  finish<nnq::Sigmoid>(sigmoid);

  Class<nnq::Softmax> softmax(m, "Softmax");
  softmax.def("__init__",
              [](VH& v_h, std::optional<int64_t> dim, double s, int64_t z) {
                construct<nnq::Softmax>(v_h, dim, s, z);
              },
              py::detail::is_new_style_constructor(), py::arg("dim") = none,
              py::arg("scale") = 1.0, py::arg("zero_point") = 0)
      .def_readwrite("dim", &nnq::Softmax::dim)
      .def_readwrite("scale", &nnq::Softmax::scale)
      .def_readwrite("zero_point", &nnq::Softmax::zero_point);
  finish<nnq::Softmax>(softmax);
}

std::vector<int64_t> shape_arg(py::handle o) {
  if (PyLong_Check(o.ptr())) return {o.cast<int64_t>()};
  return o.cast<std::vector<int64_t>>();
}

template <class T>
void bind_instance_norm(py::module_& m, const char* name) {
  Class<T, nnq::InstanceNorm> in(m, name);
  in.def("__init__",
         [](VH& v_h, int64_t features, py::handle w, py::handle b, double scale,
            int64_t zero_point, double eps, double momentum, bool affine, bool track,
            py::object device, py::object dtype) {
           construct<T>(v_h, features, opt_tensor(w), opt_tensor(b), scale, zero_point, eps,
                        momentum, affine, track, tensor_options(device, dtype));
         },
         py::detail::is_new_style_constructor(), py::arg("num_features"), py::arg("weight"),
         py::arg("bias"), py::arg("scale"), py::arg("zero_point"), py::arg("eps") = 1e-5,
         py::arg("momentum") = 0.1, py::arg("affine") = false,
         py::arg("track_running_stats") = false, py::arg("device") = none,
         py::arg("dtype") = none);
  finish<T>(in);
}

void bind_norms(py::module_& m, py::module_& nniq_mod) {
  Class<nnq::LayerNorm, nn::LayerNorm> ln(m, "LayerNorm");
  ln.def("__init__",
         [](VH& v_h, py::handle shape, py::handle w, py::handle b, double scale,
            int64_t zero_point, double eps, bool affine, py::object device, py::object dtype) {
           construct<nnq::LayerNorm>(v_h, shape_arg(shape), opt_tensor(w), opt_tensor(b), scale,
                                     zero_point, eps, affine, tensor_options(device, dtype));
         },
         py::detail::is_new_style_constructor(), py::arg("normalized_shape"), py::arg("weight"),
         py::arg("bias"), py::arg("scale"), py::arg("zero_point"), py::arg("eps") = 1e-5,
         py::arg("elementwise_affine") = true, py::arg("device") = none, py::arg("dtype") = none);
  finish<nnq::LayerNorm>(ln);

  Class<nnq::GroupNorm, nn::GroupNorm> gn(m, "GroupNorm");
  gn.def("__init__",
         [](VH& v_h, int64_t groups, int64_t channels, py::handle w, py::handle b, double scale,
            int64_t zero_point, double eps, bool affine, py::object device, py::object dtype) {
           construct<nnq::GroupNorm>(v_h, groups, channels, opt_tensor(w), opt_tensor(b), scale,
                                     zero_point, eps, affine, tensor_options(device, dtype));
         },
         py::detail::is_new_style_constructor(), py::arg("num_groups"), py::arg("num_channels"),
         py::arg("weight"), py::arg("bias"), py::arg("scale"), py::arg("zero_point"),
         py::arg("eps") = 1e-5, py::arg("affine") = true, py::arg("device") = none,
         py::arg("dtype") = none);
  finish<nnq::GroupNorm>(gn);

  py::class_<nnq::InstanceNorm, nn::BatchNormBase, std::shared_ptr<nnq::InstanceNorm>>(
      m, "_InstanceNorm");
  bind_instance_norm<nnq::InstanceNorm1d>(m, "InstanceNorm1d");
  bind_instance_norm<nnq::InstanceNorm2d>(m, "InstanceNorm2d");
  bind_instance_norm<nnq::InstanceNorm3d>(m, "InstanceNorm3d");

  auto bn_init = [](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return [](VH& v_h, int64_t num_features, double eps, double momentum, py::object device,
              py::object dtype) {
      construct<T>(v_h, num_features, eps, momentum, tensor_options(device, dtype));
    };
  };
  Class<nnq::BatchNorm3d, nn::BatchNorm3d> bn(m, "BatchNorm3d");
  bn.def("__init__", bn_init(static_cast<nnq::BatchNorm3d*>(nullptr)),
         py::detail::is_new_style_constructor(), py::arg("num_features"), py::arg("eps") = 1e-5,
         py::arg("momentum") = 0.1, py::arg("device") = none, py::arg("dtype") = none);
  finish<nnq::BatchNorm3d>(bn);
  Class<nnq::BNReLU3d, nnq::BatchNorm3d> bnrelu(nniq_mod, "BNReLU3d");
  bnrelu.def("__init__", bn_init(static_cast<nnq::BNReLU3d*>(nullptr)),
             py::detail::is_new_style_constructor(), py::arg("num_features"),
             py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("device") = none,
             py::arg("dtype") = none);
  finish<nnq::BNReLU3d>(bnrelu);
}

}  // namespace

void init_nn_quantized_more(py::module_& m) {
  py::module_ nnq_mod = m.attr("_nnq").cast<py::module_>();
  py::module_ nniq_mod = m.attr("_nniq").cast<py::module_>();
  bind_base(nnq_mod);
  bind_conv3d<nnq::Conv3d, nnq::PackedConvNd>(nnq_mod, "Conv3d");
  bind_conv3d<nnq::ConvReLU3d, nnq::Conv3d>(nniq_mod, "ConvReLU3d");
  py::class_<nnq::ConvTransposeNd, nnq::PackedConvNd, std::shared_ptr<nnq::ConvTransposeNd>>(
      nnq_mod, "_ConvTransposeNd")
      .def("_input_padding", [](const nnq::ConvTransposeNd& self, py::args) {
        return self._input_padding();
      });
  bind_transpose<nnq::ConvTranspose1d>(nnq_mod, "ConvTranspose1d");
  bind_transpose<nnq::ConvTranspose2d>(nnq_mod, "ConvTranspose2d");
  bind_transpose<nnq::ConvTranspose3d>(nnq_mod, "ConvTranspose3d");
  bind_activations(nnq_mod);
  bind_norms(nnq_mod, nniq_mod);
}

}  // namespace ember::python
