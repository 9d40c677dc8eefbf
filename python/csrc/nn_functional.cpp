// ember::nn::functional and ember::nn::init as _C._nn functions, with PyTorch's argument names;
// ember/nn/functional.py and ember/nn/init.py give them PyTorch's full Python signatures
// (legacy reduction arguments, the `_stacklevel` ones).
#include "nn.h"

#include "ember/nn/functional.h"
#include "ember/nn/init.h"

namespace ember::python {

namespace {

namespace F = ember::nn::functional;
namespace I = ember::nn::init;

F::Reduction reduction(const std::string& r) { return F::reduction_from_string(r); }

void bind_functional(py::module_& m) {
  const auto none = py::none();
  m.def("relu", &F::relu, py::arg("input"), py::arg("inplace") = false);
  m.def("relu6", &F::relu6, py::arg("input"), py::arg("inplace") = false);
  m.def("hardtanh", &F::hardtanh, py::arg("input"), py::arg("min_val") = -1.0,
        py::arg("max_val") = 1.0, py::arg("inplace") = false);
  m.def("hardswish", &F::hardswish, py::arg("input"), py::arg("inplace") = false);
  m.def("hardsigmoid", &F::hardsigmoid, py::arg("input"), py::arg("inplace") = false);
  m.def("sigmoid", &F::sigmoid, py::arg("input"));
  m.def("tanh", &F::tanh, py::arg("input"));
  m.def("gelu", &F::gelu, py::arg("input"), py::arg("approximate") = "none");
  m.def("silu", &F::silu, py::arg("input"), py::arg("inplace") = false);
  m.def("softmax", &F::softmax, py::arg("input"), py::arg("dim"), py::arg("dtype") = none);
  m.def("log_softmax", &F::log_softmax, py::arg("input"), py::arg("dim"), py::arg("dtype") = none);
  m.def("linear", &F::linear, py::arg("input"), py::arg("weight"), py::arg("bias") = none);
  m.def("bilinear", &F::bilinear, py::arg("input1"), py::arg("input2"), py::arg("weight"),
        py::arg("bias") = none);
  m.def("layer_norm", [](const Tensor& input, std::vector<int64_t> shape,
                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                         double eps) { return F::layer_norm(input, shape, weight, bias, eps); },
        py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = none,
        py::arg("bias") = none, py::arg("eps") = 1e-5);
  m.def("dropout", &F::dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false);
  m.def("embedding", &F::embedding, py::arg("input"), py::arg("weight"),
        py::arg("padding_idx") = none, py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
        py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  m.def("mse_loss", [](const Tensor& i, const Tensor& t, const std::string& r) {
    return F::mse_loss(i, t, reduction(r));
  });
  m.def("l1_loss", [](const Tensor& i, const Tensor& t, const std::string& r) {
    return F::l1_loss(i, t, reduction(r));
  });
  m.def("smooth_l1_loss", [](const Tensor& i, const Tensor& t, const std::string& r, double beta) {
    return F::smooth_l1_loss(i, t, reduction(r), beta);
  });
  m.def("nll_loss", [](const Tensor& i, const Tensor& t, const std::optional<Tensor>& w,
                       int64_t ignore_index, const std::string& r) {
    return F::nll_loss(i, t, w, ignore_index, reduction(r));
  });
  m.def("cross_entropy", [](const Tensor& i, const Tensor& t, const std::optional<Tensor>& w,
                            int64_t ignore_index, const std::string& r, double label_smoothing) {
    return F::cross_entropy(i, t, w, ignore_index, reduction(r), label_smoothing);
  });
  m.def("binary_cross_entropy_with_logits",
        [](const Tensor& i, const Tensor& t, const std::optional<Tensor>& w, const std::string& r,
           const std::optional<Tensor>& pos_weight) {
          return F::binary_cross_entropy_with_logits(i, t, w, reduction(r), pos_weight);
        });
}

void bind_init(py::module_& m) {
  m.def("calculate_gain", [](const std::string& nonlinearity, py::object param) {
    std::optional<Scalar> p;
    if (!param.is_none()) {
      EMBER_CHECK_VALUE(!PyBool_Check(param.ptr()) &&
                            (PyLong_Check(param.ptr()) || PyFloat_Check(param.ptr())),
                        "negative_slope ", py::str(param).cast<std::string>(),
                        " not a valid number");
      p = PyLong_Check(param.ptr()) ? Scalar(param.cast<int64_t>()) : Scalar(param.cast<double>());
    }
    return I::calculate_gain(nonlinearity, p);
  }, py::arg("nonlinearity"), py::arg("param") = py::none());
  m.def("_calculate_fan_in_and_fan_out", &I::_calculate_fan_in_and_fan_out, py::arg("tensor"));
  m.def("_calculate_correct_fan", &I::_calculate_correct_fan, py::arg("tensor"), py::arg("mode"));
  // Each fill takes the tensor object and returns it, as PyTorch's functions do.
  auto obj = [](py::handle t) { return py::reinterpret_borrow<py::object>(t); };
  auto tensor_of = [](py::handle t) {
    EMBER_CHECK_TYPE(is_tensor(t.ptr()), "expected a Tensor, got ", Py_TYPE(t.ptr())->tp_name);
    return unpack(t.ptr());
  };
  m.def("uniform_", [=](py::handle t, double a, double b) {
    Tensor x = tensor_of(t);
    I::uniform_(x, a, b);
    return obj(t);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("b") = 1.0);
  m.def("normal_", [=](py::handle t, double mean, double std) {
    Tensor x = tensor_of(t);
    I::normal_(x, mean, std);
    return obj(t);
  }, py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0);
  m.def("trunc_normal_", [=](py::handle t, double mean, double std, double a, double b) {
    Tensor x = tensor_of(t);
    I::trunc_normal_(x, mean, std, a, b);
    return obj(t);
  }, py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("a") = -2.0,
     py::arg("b") = 2.0);
  m.def("constant_", [=](py::handle t, py::object val) {
    Tensor x = tensor_of(t);
    I::constant_(x, PyFloat_Check(val.ptr()) ? Scalar(val.cast<double>())
                    : PyBool_Check(val.ptr()) ? Scalar(val.cast<bool>())
                                              : Scalar(val.cast<int64_t>()));
    return obj(t);
  }, py::arg("tensor"), py::arg("val"));
  m.def("ones_", [=](py::handle t) { Tensor x = tensor_of(t); I::ones_(x); return obj(t); },
        py::arg("tensor"));
  m.def("zeros_", [=](py::handle t) { Tensor x = tensor_of(t); I::zeros_(x); return obj(t); },
        py::arg("tensor"));
  m.def("eye_", [=](py::handle t) { Tensor x = tensor_of(t); I::eye_(x); return obj(t); },
        py::arg("tensor"));
  m.def("xavier_uniform_", [=](py::handle t, double gain) {
    Tensor x = tensor_of(t);
    I::xavier_uniform_(x, gain);
    return obj(t);
  }, py::arg("tensor"), py::arg("gain") = 1.0);
  m.def("xavier_normal_", [=](py::handle t, double gain) {
    Tensor x = tensor_of(t);
    I::xavier_normal_(x, gain);
    return obj(t);
  }, py::arg("tensor"), py::arg("gain") = 1.0);
  m.def("kaiming_uniform_", [=](py::handle t, double a, const std::string& mode,
                                const std::string& nonlinearity) {
    Tensor x = tensor_of(t);
    I::kaiming_uniform_(x, a, mode, nonlinearity);
    return obj(t);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in",
     py::arg("nonlinearity") = "leaky_relu");
  m.def("kaiming_normal_", [=](py::handle t, double a, const std::string& mode,
                               const std::string& nonlinearity) {
    Tensor x = tensor_of(t);
    I::kaiming_normal_(x, a, mode, nonlinearity);
    return obj(t);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in",
     py::arg("nonlinearity") = "leaky_relu");
  m.def("orthogonal_", [=](py::handle t, double gain) {
    Tensor x = tensor_of(t);
    I::orthogonal_(x, gain);
    return obj(t);
  }, py::arg("tensor"), py::arg("gain") = 1.0);
  m.def("sparse_", [=](py::handle t, double sparsity, double std) {
    Tensor x = tensor_of(t);
    I::sparse_(x, sparsity, std);
    return obj(t);
  }, py::arg("tensor"), py::arg("sparsity"), py::arg("std") = 0.01);
}

}  // namespace

void init_nn_functional(py::module_& m) {
  bind_functional(m);
  py::module_ init = m.def_submodule("init", "ember::nn::init");
  bind_init(init);
}

}  // namespace ember::python
