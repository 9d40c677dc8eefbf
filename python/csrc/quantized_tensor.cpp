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
PyTypeObject* g_qscheme_type = nullptr;

}  // namespace

bool is_qscheme(PyObject* obj) { return g_qscheme_type && Py_TYPE(obj) == g_qscheme_type; }
int64_t unpack_qscheme(PyObject* obj) {
  return static_cast<int64_t>(py::handle(obj).cast<PyQScheme&>().scheme);
}

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
  g_qscheme_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (int i = 0; i < kNumQSchemes; ++i) {
    const auto s = static_cast<QScheme>(i);
    py::object obj = py::cast(PyQScheme{s});
    g_qschemes[static_cast<size_t>(i)] = obj.inc_ref().ptr();
    m.attr(qscheme_name(s)) = obj;
  }

  m.def("empty_quantized", [](std::vector<int64_t> size, py::handle qtensor, py::kwargs kwargs) {
    EMBER_CHECK_TYPE(is_tensor(qtensor.ptr()), "empty_quantized(): argument 'qtensor' must be Tensor, not ",
                     Py_TYPE(qtensor.ptr())->tp_name);
    MemoryFormat f = MemoryFormat::Contiguous;
    std::optional<Device> device;
    for (auto [k, v] : kwargs) {
      const std::string key = py::cast<std::string>(k);
      if (key == "memory_format" && !v.is_none()) f = static_cast<MemoryFormat>(unpack_memory_format(v.ptr()));
      else if (key == "device" && !v.is_none()) device = parse_device(v.ptr());
      else if (key == "dtype" && !v.is_none())
        EMBER_CHECK(unpack_dtype(v.ptr()) == unpack(qtensor.ptr()).dtype(),
                    "empty_quantized: dtype must be the quantized tensor's dtype");
    }
    return py::reinterpret_steal<py::object>(wrap(empty_quantized(size, unpack(qtensor.ptr()), f, device)));
  }, py::arg("size"), py::arg("qtensor"));
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
