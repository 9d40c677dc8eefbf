// Issue 6's nn::functional entries whose PyTorch semantics live above the op table (batch_norm's
// running-stat update and checks, group_norm, dropout2d's warnings, interpolate's size logic),
// nn::utils' fusion and parameter-vector helpers, as _C._nn functions. ember/nn/functional.py
// and ember/nn/utils/ give them PyTorch's Python signatures; the plain ops (conv2d, avg_pool2d,
// pad, ...) are the op-table functions themselves, as in PyTorch.
#include "nn_cnn.h"

#include "ember/nn/functional.h"
#include "ember/nn/utils/convert_parameters.h"
#include "ember/nn/utils/fusion.h"

namespace ember::python {

namespace {

namespace F = ember::nn::functional;
namespace U = ember::nn::utils;

py::object obj(const Tensor& t) { return py::reinterpret_steal<py::object>(wrap(t)); }

std::vector<Tensor> tensors(py::handle iterable) {
  std::vector<Tensor> out;
  for (auto item : iterable) {
    EMBER_CHECK_TYPE(is_tensor(item.ptr()), "expected ember.Tensor, but got: ",
                     Py_TYPE(item.ptr())->tp_name);
    out.push_back(unpack(item.ptr()));
  }
  return out;
}

}  // namespace

void init_nn_cnn_functional(py::module_& m) {
  const auto none = py::none();
  m.def("batch_norm", &F::batch_norm, py::arg("input"), py::arg("running_mean"),
        py::arg("running_var"), py::arg("weight") = none, py::arg("bias") = none,
        py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("group_norm", &F::group_norm, py::arg("input"), py::arg("num_groups"),
        py::arg("weight") = none, py::arg("bias") = none, py::arg("eps") = 1e-5);
  m.def("dropout2d", &F::dropout2d, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = true, py::arg("inplace") = false);
  m.def("interpolate", &F::interpolate, py::arg("input"), py::arg("size") = none,
        py::arg("scale_factor") = none, py::arg("mode") = "nearest",
        py::arg("align_corners") = none, py::arg("recompute_scale_factor") = none,
        py::arg("antialias") = false);

  m.def("fuse_conv_bn_weights",
        [](const Tensor& conv_w, const std::optional<Tensor>& conv_b, const Tensor& bn_rm,
           const Tensor& bn_rv, double bn_eps, const std::optional<Tensor>& bn_w,
           const std::optional<Tensor>& bn_b, bool transpose) {
          auto [w, b] = U::fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b,
                                                transpose);
          return py::make_tuple(obj(w), obj(b));
        },
        py::arg("conv_w"), py::arg("conv_b"), py::arg("bn_rm"), py::arg("bn_rv"),
        py::arg("bn_eps"), py::arg("bn_w"), py::arg("bn_b"), py::arg("transpose") = false);
  m.def("fuse_linear_bn_weights",
        [](const Tensor& linear_w, const std::optional<Tensor>& linear_b, const Tensor& bn_rm,
           const Tensor& bn_rv, double bn_eps, const Tensor& bn_w, const Tensor& bn_b) {
          auto [w, b] = U::fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w,
                                                  bn_b);
          return py::make_tuple(obj(w), obj(b));
        },
        py::arg("linear_w"), py::arg("linear_b"), py::arg("bn_rm"), py::arg("bn_rv"),
        py::arg("bn_eps"), py::arg("bn_w"), py::arg("bn_b"));
  m.def("fuse_conv_bn_eval",
        [](nn::ConvNd& conv, nn::BatchNormBase& bn, bool transpose) {
          return module_to_py(U::fuse_conv_bn_eval(conv, bn, transpose));
        },
        py::arg("conv"), py::arg("bn"), py::arg("transpose") = false);
  m.def("fuse_linear_bn_eval",
        [](nn::Linear& linear, nn::BatchNormBase& bn) {
          return module_to_py(U::fuse_linear_bn_eval(linear, bn));
        },
        py::arg("linear"), py::arg("bn"));

  m.def("parameters_to_vector",
        [](py::handle parameters) { return U::parameters_to_vector(tensors(parameters)); },
        py::arg("parameters"));
  m.def("vector_to_parameters",
        [](const Tensor& vec, py::handle parameters) {
          U::vector_to_parameters(vec, tensors(parameters));
        },
        py::arg("vec"), py::arg("parameters"));
}

}  // namespace ember::python
