// The convolution, normalisation, pooling, dropout and resampling layers of ember::nn (issue 6)
// as ember.nn classes with PyTorch's constructor signatures and attributes. Every class gets the
// trampoline of Note [Trampolines for C++ layers], so Python subclasses override forward and
// extra_repr also where C++ parents call them.
#include "nn_cnn.h"

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/upsampling.h"

namespace ember::python {

namespace {

using namespace ember::nn;
using VH = py::detail::value_and_holder;

// Naming the trampoline registers it with pybind11 as T, so a PyLayer<T> that C++ hands back
// (a child of a C++ parent) is found as its existing Python object.
template <class T, class Base = Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;
// The shared bases (_ConvNd, _BatchNorm): never instantiated themselves.
template <class T>
using BaseClass = py::class_<T, Module, std::shared_ptr<T>>;

const auto none = py::none();

ConvPadding conv_padding(py::handle p) {
  if (PyUnicode_Check(p.ptr())) return ConvPadding(p.cast<std::string>());
  return ConvPadding(int_or_tuple(p));
}

// A tuple-valued attribute of the convolutions (PyTorch keeps them as tuples after _pair).
template <class Cls>
void tuple_attr(Cls& cls, const char* name, std::vector<int64_t> ConvNd::*field) {
  cls.def_property(
      name, [field](const ConvNd& self) { return to_tuple(self.*field); },
      [field](ConvNd& self, py::handle v) { self.*field = int_or_tuple(v).expand((self.*field).size()); });
}

// Conv1d and Conv2d take the same constructor arguments (sizes as an int or a tuple).
template <class T>
void bind_conv_nd(py::module_& m, const char* name) {
  Class<T, ConvNd> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle dilation, int64_t groups, bool bias, const std::string& padding_mode,
         py::object device, py::object dtype) {
        construct_layer<T>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                           conv_padding(padding), int_or_tuple(dilation), groups, bias,
                           padding_mode, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("padding_mode") = "zeros", py::arg("device") = none, py::arg("dtype") = none);
  bind_own_forward<T>(cls);
}

void bind_conv(py::module_& m) {
  BaseClass<ConvNd> conv(m, "_ConvNd");
  conv.def("reset_parameters", &ConvNd::reset_parameters)
      .def("extra_repr", [](const ConvNd& self) { return self.ConvNd::extra_repr(); })
      .def_readwrite("in_channels", &ConvNd::in_channels)
      .def_readwrite("out_channels", &ConvNd::out_channels)
      .def_readwrite("transposed", &ConvNd::transposed)
      .def_readwrite("groups", &ConvNd::groups)
      .def_readwrite("padding_mode", &ConvNd::padding_mode)
      .def_property(
          "padding",
          [](const ConvNd& self) -> py::object {
            if (!self.padding_string.empty()) return py::str(self.padding_string);
            return to_tuple(self.padding);
          },
          [](ConvNd& self, py::handle v) {
            if (PyUnicode_Check(v.ptr())) {
              self.padding_string = v.cast<std::string>();
              std::fill(self.padding.begin(), self.padding.end(), 0);
            } else {
              self.padding_string.clear();
              self.padding = int_or_tuple(v).expand(self.padding.size());
            }
          });
  tuple_attr(conv, "kernel_size", &ConvNd::kernel_size);
  tuple_attr(conv, "stride", &ConvNd::stride);
  tuple_attr(conv, "dilation", &ConvNd::dilation);
  tuple_attr(conv, "output_padding", &ConvNd::output_padding);

  bind_conv_nd<Conv1d>(m, "Conv1d");
  bind_conv_nd<Conv2d>(m, "Conv2d");

  Class<ConvTranspose2d, ConvNd> convt(m, "ConvTranspose2d");
  convt.def(
      "__init__",
      [](VH& v_h, int64_t in, int64_t out, py::handle k, py::handle stride, py::handle padding,
         py::handle output_padding, int64_t groups, bool bias, py::handle dilation,
         const std::string& padding_mode, py::object device, py::object dtype) {
        construct_layer<ConvTranspose2d>(v_h, in, out, int_or_tuple(k), int_or_tuple(stride),
                                         int_or_tuple(padding), int_or_tuple(output_padding),
                                         groups, bias, int_or_tuple(dilation), padding_mode,
                                         tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("in_channels"), py::arg("out_channels"),
      py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("bias") = true,
      py::arg("dilation") = 1, py::arg("padding_mode") = "zeros", py::arg("device") = none,
      py::arg("dtype") = none);
  // forward(input, output_size=None), as PyTorch's keyword form.
  convt.def("forward", [](ConvTranspose2d& self, const Tensor& input, py::object output_size) {
    std::vector<Value> in{Value(input)};
    if (!output_size.is_none()) {
      std::vector<int64_t> sizes;
      for (auto s : output_size) sizes.push_back(s.cast<int64_t>());
      in.emplace_back(std::move(sizes));
    }
    return value_to_py(self.ConvTranspose2d::forward(in));
  }, py::arg("input"), py::arg("output_size") = none);
  convt.def("extra_repr", [](const ConvTranspose2d& self) { return self.ConvNd::extra_repr(); });
}

template <class T>
void bind_batch_norm(py::module_& m, const char* name) {
  Class<T, BatchNormBase> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, int64_t num_features, double eps, std::optional<double> momentum, bool affine,
         bool track_running_stats, py::object device, py::object dtype) {
        construct_layer<T>(v_h, num_features, eps, momentum, affine, track_running_stats,
                           tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("num_features"), py::arg("eps") = 1e-5,
      py::arg("momentum") = 0.1, py::arg("affine") = true,
      py::arg("track_running_stats") = true, py::arg("device") = none, py::arg("dtype") = none);
  bind_own_forward<T>(cls);
}

void bind_norms(py::module_& m) {
  BaseClass<BatchNormBase> base(m, "_BatchNorm");
  base.def("reset_running_stats", &BatchNormBase::reset_running_stats)
      .def("reset_parameters", &BatchNormBase::reset_parameters)
      .def_readwrite("num_features", &BatchNormBase::num_features)
      .def_readwrite("eps", &BatchNormBase::eps)
      .def_readwrite("momentum", &BatchNormBase::momentum)
      .def_readwrite("affine", &BatchNormBase::affine)
      .def_readwrite("track_running_stats", &BatchNormBase::track_running_stats)
      .def_property_readonly("_version", &BatchNormBase::version);
  bind_batch_norm<BatchNorm1d>(m, "BatchNorm1d");
  bind_batch_norm<BatchNorm2d>(m, "BatchNorm2d");
  bind_batch_norm<BatchNorm3d>(m, "BatchNorm3d");

  Class<GroupNorm> gn(m, "GroupNorm");
  gn.def(
        "__init__",
        [](VH& v_h, int64_t num_groups, int64_t num_channels, double eps, bool affine,
           py::object device, py::object dtype) {
          construct_layer<GroupNorm>(v_h, num_groups, num_channels, eps, affine,
                                     tensor_options(device, dtype));
        },
        py::detail::is_new_style_constructor(), py::arg("num_groups"), py::arg("num_channels"),
        py::arg("eps") = 1e-5, py::arg("affine") = true, py::arg("device") = none,
        py::arg("dtype") = none)
      .def("reset_parameters", &GroupNorm::reset_parameters)
      .def_readwrite("num_groups", &GroupNorm::num_groups)
      .def_readwrite("num_channels", &GroupNorm::num_channels)
      .def_readwrite("eps", &GroupNorm::eps)
      .def_readwrite("affine", &GroupNorm::affine);
  bind_own_forward<GroupNorm>(gn);
}

void bind_pools(py::module_& m) {
  Class<MaxPool2d> maxp(m, "MaxPool2d");
  maxp.def(
      "__init__",
      [](VH& v_h, py::handle k, py::handle stride, py::handle padding, py::handle dilation,
         bool return_indices, bool ceil_mode) {
        construct_layer<MaxPool2d>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding),
                                   int_or_tuple(dilation), return_indices, ceil_mode);
      },
      py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("return_indices") = false,
      py::arg("ceil_mode") = false);
  size_attr(maxp, "kernel_size", &MaxPool2d::kernel_size);
  size_attr(maxp, "stride", &MaxPool2d::stride);
  size_attr(maxp, "padding", &MaxPool2d::padding);
  size_attr(maxp, "dilation", &MaxPool2d::dilation);
  maxp.def_readwrite("return_indices", &MaxPool2d::return_indices)
      .def_readwrite("ceil_mode", &MaxPool2d::ceil_mode);
  bind_own_forward<MaxPool2d>(maxp);

  Class<AvgPool2d> avgp(m, "AvgPool2d");
  avgp.def(
      "__init__",
      [](VH& v_h, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
         bool count_include_pad, std::optional<int64_t> divisor_override) {
        construct_layer<AvgPool2d>(v_h, int_or_tuple(k), opt_size(stride), int_or_tuple(padding),
                                   ceil_mode, count_include_pad, divisor_override);
      },
      py::detail::is_new_style_constructor(), py::arg("kernel_size"), py::arg("stride") = none,
      py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = none);
  size_attr(avgp, "kernel_size", &AvgPool2d::kernel_size);
  size_attr(avgp, "stride", &AvgPool2d::stride);
  size_attr(avgp, "padding", &AvgPool2d::padding);
  avgp.def_readwrite("ceil_mode", &AvgPool2d::ceil_mode)
      .def_readwrite("count_include_pad", &AvgPool2d::count_include_pad)
      .def_readwrite("divisor_override", &AvgPool2d::divisor_override);
  bind_own_forward<AvgPool2d>(avgp);

  Class<AdaptiveAvgPool2d> aavg(m, "AdaptiveAvgPool2d");
  aavg.def(
      "__init__",
      [](VH& v_h, py::handle output_size) {
        construct_layer<AdaptiveAvgPool2d>(v_h, adaptive_size(output_size));
      },
      py::detail::is_new_style_constructor(), py::arg("output_size"));
  adaptive_attr<AdaptiveAvgPool2d>(aavg);
  bind_own_forward<AdaptiveAvgPool2d>(aavg);

  Class<AdaptiveMaxPool2d> amax(m, "AdaptiveMaxPool2d");
  amax.def(
      "__init__",
      [](VH& v_h, py::handle output_size, bool return_indices) {
        construct_layer<AdaptiveMaxPool2d>(v_h, adaptive_size(output_size), return_indices);
      },
      py::detail::is_new_style_constructor(), py::arg("output_size"),
      py::arg("return_indices") = false);
  adaptive_attr<AdaptiveMaxPool2d>(amax);
  amax.def_readwrite("return_indices", &AdaptiveMaxPool2d::return_indices);
  bind_own_forward<AdaptiveMaxPool2d>(amax);
}

void bind_misc(py::module_& m) {
  Class<Dropout2d> drop(m, "Dropout2d");
  drop.def(
      "__init__", [](VH& v_h, double p, bool inplace) { construct_layer<Dropout2d>(v_h, p, inplace); },
      py::detail::is_new_style_constructor(), py::arg("p") = 0.5, py::arg("inplace") = false);
  drop.def_readwrite("p", &Dropout2d::p).def_readwrite("inplace", &Dropout2d::inplace);
  bind_own_forward<Dropout2d>(drop);

  Class<Upsample> up(m, "Upsample");
  up.def(
      "__init__",
      [](VH& v_h, py::handle size, py::handle scale_factor, const std::string& mode,
         std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
        std::optional<std::vector<double>> scale;
        if (PyFloat_Check(scale_factor.ptr()) || PyLong_Check(scale_factor.ptr())) {
          scale = std::vector<double>{scale_factor.cast<double>()};
        } else if (!scale_factor.is_none()) {
          scale = scale_factor.cast<std::vector<double>>();
        }
        construct_layer<Upsample>(v_h, opt_size(size), scale, mode, align_corners,
                                  recompute_scale_factor);
      },
      py::detail::is_new_style_constructor(), py::arg("size") = none,
      py::arg("scale_factor") = none, py::arg("mode") = "nearest",
      py::arg("align_corners") = none, py::arg("recompute_scale_factor") = none);
  up.def_property(
        "size",
        [](const Upsample& self) -> py::object {
          if (!self.size) return py::none();
          return int_or_tuple_to_py(*self.size);
        },
        [](Upsample& self, py::handle v) { self.size = opt_size(v); })
      .def_property(
          "scale_factor",
          // PyTorch keeps float(scale_factor), or a tuple of floats.
          [](const Upsample& self) -> py::object {
            if (!self.scale_factor) return py::none();
            if (self.scale_factor->size() == 1) return py::float_((*self.scale_factor)[0]);
            return py::tuple(py::cast(*self.scale_factor));
          },
          [](Upsample& self, py::handle v) {
            if (v.is_none()) {
              self.scale_factor.reset();
            } else if (PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())) {
              self.scale_factor = std::vector<double>{v.cast<double>()};
            } else {
              self.scale_factor = v.cast<std::vector<double>>();
            }
          })
      .def_readwrite("mode", &Upsample::mode)
      .def_readwrite("align_corners", &Upsample::align_corners)
      .def_readwrite("recompute_scale_factor", &Upsample::recompute_scale_factor);
  bind_own_forward<Upsample>(up);
}

}  // namespace

void init_nn_cnn(py::module_& m) {
  py::module_ nn = m.attr("_nn");
  bind_conv(nn);
  bind_norms(nn);
  bind_pools(nn);
  bind_misc(nn);
  init_nn_nnlayers(nn);
  init_nn_cnn_functional(nn);
  py::module_ vision = m.def_submodule("_vision", "ember::models");
  init_vision_models(vision);
}

}  // namespace ember::python
