// Quantized tensors in Python: the ember.qscheme objects (singletons, `x.qscheme() is
// ember.per_tensor_affine`, printing `ember.per_tensor_affine`, pickled by name as torch.qscheme
// objects are) and the engine hooks ember.backends.quantized builds on (_get_qengine,
// _set_qengine, _supported_qengines, with c10's numbering, as torch._C has them). The ops
// themselves (quantize_per_tensor, int_repr, q_scale, ...) come from the op table (ops.cpp).
#include <array>

#include "common.h"
#include "ember/quantized/tensor.h"

namespace ember::python {

namespace {

struct PyQScheme {
  QScheme scheme;
};

std::array<PyObject*, kNumQSchemes> g_qschemes{};

}  // namespace

PyObject* qscheme_object(int64_t scheme) {
  EMBER_CHECK(scheme >= 0 && scheme < kNumQSchemes, "qscheme_object: unknown qscheme ", scheme);
  PyObject* o = g_qschemes[static_cast<size_t>(scheme)];
  Py_INCREF(o);
  return o;
}

void init_quantized_tensor(py::module_& m) {
  auto cls = py::class_<PyQScheme>(m, "qscheme")
                 .def("__repr__", [](const PyQScheme& q) {
                   return std::string("ember.") + qscheme_name(q.scheme);
                 })
                 // By name: pickle finds ember.<name> (the singleton) again.
                 .def("__reduce__", [](const PyQScheme& q) { return std::string(qscheme_name(q.scheme)); });
  cls.attr("__module__") = "ember";
  for (int i = 0; i < kNumQSchemes; ++i) {
    const auto s = static_cast<QScheme>(i);
    py::object obj = py::cast(PyQScheme{s});
    g_qschemes[static_cast<size_t>(i)] = obj.inc_ref().ptr();
    m.attr(qscheme_name(s)) = obj;
  }

  m.def("_get_qengine", []() { return static_cast<int64_t>(quantized_engine()); });
  m.def("_set_qengine", [](int64_t e) {
    EMBER_CHECK(e >= 0 && e <= static_cast<int64_t>(QEngine::X86), "unknown quantized engine id ", e);
    set_quantized_engine(static_cast<QEngine>(e));
  }, py::arg("qengine"));
  m.def("_supported_qengines", []() {
    std::vector<int64_t> ids;
    for (QEngine e : supported_quantized_engines()) ids.push_back(static_cast<int64_t>(e));
    return ids;
  });
}

}  // namespace ember::python
