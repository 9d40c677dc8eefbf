// QuantStub, DeQuantStub and QuantWrapper (ember::quantization, stubs.h) as _C._qstubs classes
// with torch.ao.quantization.stubs' constructors. Their Python forwards pass any Python value
// through (torch's `return x`); C++ parents call the C++ forwards, which pass any Value.
#include "nn_cnn.h"
#include "quantization.h"

#include "ember/quantization/stubs.h"

namespace ember::python {

namespace {

using VH = py::detail::value_and_holder;
namespace q = ember::quantization;

// torch: `if qconfig: self.qconfig = qconfig`.
q::QConfigPtr truthy_qconfig(py::handle qconfig) {
  return PyObject_IsTrue(qconfig.ptr()) == 1 ? qconfig_from_py(qconfig) : nullptr;
}

template <class T>
void bind_stub(py::module_& m, const char* name) {
  py::class_<T, PyLayer<T>, nn::Module, std::shared_ptr<T>> cls(m, name);
  cls.def(
      "__init__",
      [](VH& v_h, py::handle qconfig) { construct_layer<T>(v_h, truthy_qconfig(qconfig)); },
      py::detail::is_new_style_constructor(), py::arg("qconfig") = py::none());
  cls.def("forward", [](py::handle, py::object x) { return x; }, py::arg("x"));
}

}  // namespace

void init_quantization_stubs(py::module_& parent) {
  py::module_ m = parent.def_submodule("_qstubs", "ember::quantization stubs");
  bind_stub<q::QuantStub>(m, "QuantStub");
  bind_stub<q::DeQuantStub>(m, "DeQuantStub");
  py::class_<q::QuantWrapper, PyLayer<q::QuantWrapper>, nn::Module,
             std::shared_ptr<q::QuantWrapper>>
      wrapper(m, "QuantWrapper");
  wrapper.def(
      "__init__",
      [](VH& v_h, py::handle module) { construct_layer<q::QuantWrapper>(v_h, module_from_py(module)); },
      py::detail::is_new_style_constructor(), py::arg("module"));
  // Each child through Python's __call__ (its hooks, any Python value between them).
  wrapper.def(
      "forward",
      [](py::handle self, py::object X) {
        X = self.attr("quant")(X);
        X = self.attr("module")(X);
        return self.attr("dequant")(X);
      },
      py::arg("X"));
}

}  // namespace ember::python
