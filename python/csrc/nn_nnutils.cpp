// ember.nn.utils' reparametrizations: weight_norm / spectral_norm (C++: ember/nn/utils/
// weight_norm.h) and the C++ side of parametrize (the computed attribute and the cache; the
// registration is Python, python/ember/nn/utils/parametrize.py, as PyTorch's).
#include "ember/nn/functional.h"
#include "ember/nn/modules/ctc_loss.h"
#include "ember/nn/utils/parametrize.h"
#include "ember/nn/utils/weight_norm.h"
#include "nn.h"
#include "nn_cnn.h"

namespace ember::python {

void init_nn_nnutils(py::module_& parent) {
  py::module_ m = parent.attr("_nn").cast<py::module_>();
  namespace U = ember::nn::utils;
  namespace P = ember::nn::utils::parametrize;
  m.def("_weight_norm", [](py::object module, const std::string& name, std::optional<int64_t> dim) {
    U::weight_norm(module.cast<nn::Module&>(), name, dim);
    return module;
  });
  m.def("_remove_weight_norm", [](py::object module, const std::string& name) {
    U::remove_weight_norm(module.cast<nn::Module&>(), name);
    return module;
  });
  m.def("_spectral_norm", [](py::object module, const std::string& name, int64_t n_power_iterations,
                             double eps, std::optional<int64_t> dim) {
    U::spectral_norm(module.cast<nn::Module&>(), name, n_power_iterations, eps, dim);
    return module;
  });
  m.def("_remove_spectral_norm", [](py::object module, const std::string& name) {
    U::remove_spectral_norm(module.cast<nn::Module&>(), name);
    return module;
  });
  // The class name repr and messages show: parametrize swaps a module's class to
  // Parametrized<Name> (and back), as PyTorch's.
  m.def("_set_type_name", [](nn::Module& module, const std::string& name) { module.set_type_name(name); });
  m.def("_parametrize_attach", [](nn::Module& module, const std::string& name) {
    P::attach(module, name);
  });
  m.def("_parametrize_detach", [](nn::Module& module, const std::string& name) {
    return module.remove_tensor_attribute(name);
  });
  m.def("_parametrize_value", [](nn::Module& module, const std::string& name) {
    return py::reinterpret_steal<py::object>(wrap(P::value(module, name)));
  });
  m.def("_parametrize_enter_cache", &P::enter_cache);
  m.def("_parametrize_exit_cache", &P::exit_cache);
  m.def("_parametrize_cache_enabled", &P::cache_enabled);

  // torch.nn._reduction.get_enum (F.ctc_loss passes the enum to the aten op).
  m.def("_reduction_enum", [](const std::string& r) {
    return static_cast<int64_t>(nn::functional::reduction_from_string(r));
  });

  // nn.CTCLoss (its forward takes the lengths as tensors or as sequences of ints).
  using VH = py::detail::value_and_holder;
  py::class_<nn::CTCLoss, PyLayer<nn::CTCLoss>, nn::Loss, std::shared_ptr<nn::CTCLoss>> ctc(m, "CTCLoss");
  ctc.def("__init__", [](VH& v_h, int64_t blank, const std::string& reduction, bool zero_infinity) {
    construct_layer<nn::CTCLoss>(v_h, blank, reduction, zero_infinity);
  }, py::detail::is_new_style_constructor(), py::arg("blank") = 0, py::arg("reduction") = "mean",
     py::arg("zero_infinity") = false);
  ctc.def_readwrite("blank", &nn::CTCLoss::blank);
  ctc.def_readwrite("zero_infinity", &nn::CTCLoss::zero_infinity);
  ctc.def("forward", [](nn::CTCLoss& self, py::args args) {
    std::vector<Value> in;
    for (auto a : args) in.push_back(py_to_value(a, "forward argument"));
    return py::reinterpret_steal<py::object>(wrap(self.nn::CTCLoss::forward(in).to_tensor()));
  });
}

}  // namespace ember::python
