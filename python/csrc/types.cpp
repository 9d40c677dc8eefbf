// ember.dtype, ember.device, ember.Size, memory formats and layouts as Python objects.
//
// dtypes are singletons (`t.dtype is ember.float32`), as torch.dtype objects are. A device is a
// value (`ember.device("cpu") == ember.device("cpu")`) that also works as a context manager
// (`with ember.device("meta"):` sets the default device of factories, as in PyTorch 2).
// ember.Size is a tuple subclass defined in Python (ember/_size.py) and registered here.
#include <array>

#include "common.h"

namespace ember::python {

namespace {

struct DType {
  ScalarType type;
};

struct PyDevice {
  Device device;
  std::vector<std::optional<Device>> previous;  // `with` nesting
};

struct MemoryFormat {
  int64_t value;
  const char* name;
};

struct Layout {
  int64_t value;
};

std::array<PyObject*, kNumScalarTypes> g_dtypes{};
PyObject* g_size_cls = nullptr;
PyTypeObject* g_dtype_type = nullptr;
PyTypeObject* g_device_type = nullptr;
PyTypeObject* g_memory_format_type = nullptr;

// PyTorch's attribute names for each dtype, canonical first ("float32", then "float").
struct DTypeNames {
  ScalarType type;
  std::vector<const char*> names;
};
const std::vector<DTypeNames>& dtype_names() {
  static const std::vector<DTypeNames> names = {
      {kFloat32, {"float32", "float"}},   {kFloat64, {"float64", "double"}},
      {kFloat16, {"float16", "half"}},    {kBFloat16, {"bfloat16"}},
      {kInt8, {"int8"}},                  {kUInt8, {"uint8"}},
      {kInt16, {"int16", "short"}},       {kInt32, {"int32", "int"}},
      {kInt64, {"int64", "long"}},        {kBool, {"bool"}},
      {kQUInt8, {"quint8"}},              {kQInt8, {"qint8"}},
      {kQInt32, {"qint32"}}};
  return names;
}

}  // namespace

PyObject* dtype_object(ScalarType t) {
  EMBER_CHECK(t != ScalarType::Undefined, "dtype_object: undefined dtype");
  return g_dtypes[static_cast<int>(t)];
}
bool is_dtype(PyObject* obj) { return g_dtype_type && Py_TYPE(obj) == g_dtype_type; }
ScalarType unpack_dtype(PyObject* obj) { return py::handle(obj).cast<DType&>().type; }

PyObject* device_object(Device d) {
  return py::cast(PyDevice{d, {}}).release().ptr();
}
bool is_device(PyObject* obj) { return g_device_type && Py_TYPE(obj) == g_device_type; }
Device parse_device(PyObject* obj) {
  if (is_device(obj)) return py::handle(obj).cast<PyDevice&>().device;
  if (PyUnicode_Check(obj)) return Device(py::handle(obj).cast<std::string>());
  EMBER_FAIL_KIND(ErrorKind::Type, "expected a device (ember.device or a string such as 'cpu'), got ",
                  Py_TYPE(obj)->tp_name);
}

PyObject* size_object(IntArrayRef sizes) {
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  if (!g_size_cls) return t.release().ptr();
  return py::handle(g_size_cls)(t).release().ptr();
}

bool is_memory_format(PyObject* obj) {
  return g_memory_format_type && Py_TYPE(obj) == g_memory_format_type;
}
int64_t unpack_memory_format(PyObject* obj) {
  return py::handle(obj).cast<MemoryFormat&>().value;
}

void init_types(py::module_& m) {
  auto dtype_cls = py::class_<DType>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const DType& d) { return is_floating(d.type); })
      .def_property_readonly("is_complex", [](const DType&) { return false; })
      .def_property_readonly("is_signed", [](const DType& d) { return is_signed(d.type); })
      .def_property_readonly("itemsize", [](const DType& d) { return element_size(d.type); })
      .def("__repr__", [](const DType& d) { return dtype_repr(d.type); })
      .def("__reduce__", [](const DType& d) { return std::string(dtype_name(d.type)); });
  g_dtype_type = reinterpret_cast<PyTypeObject*>(dtype_cls.ptr());
  for (const auto& entry : dtype_names()) {
    py::object obj = py::cast(DType{entry.type});
    g_dtypes[static_cast<int>(entry.type)] = obj.inc_ref().ptr();
    for (const char* name : entry.names) m.attr(name) = obj;
  }
  m.def("get_default_dtype", []() { return default_dtype(); });
  m.def("set_default_dtype", [](ScalarType t) {
    EMBER_CHECK_TYPE(is_floating(t), "only floating-point types are supported as the default type");
    set_default_dtype(t);
  });

  auto device_cls = py::class_<PyDevice>(m, "device")
      .def(py::init([](const std::string& spec) { return PyDevice{Device(spec), {}}; }),
           py::arg("type"))
      .def(py::init([](const std::string& type, int64_t index) {
             EMBER_CHECK(index == 0 || type != "cpu", "Device index must be 0 for cpu, got ", index);
             return PyDevice{Device(type), {}};
           }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const PyDevice& d) { return d.device.str(); })
      .def_property_readonly("index", [](const PyDevice&) { return py::none(); })
      .def("__eq__", [](const PyDevice& a, py::object b) {
        if (!is_device(b.ptr()) && !py::isinstance<py::str>(b)) return false;
        try {
          return a.device == parse_device(b.ptr());
        } catch (...) {
          return false;
        }
      })
      .def("__hash__", [](const PyDevice& d) { return static_cast<int>(d.device.type); })
      .def("__repr__", [](const PyDevice& d) { return "device(type='" + d.device.str() + "')"; })
      .def("__str__", [](const PyDevice& d) { return d.device.str(); })
      .def("__reduce__", [](const PyDevice& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.device.str()));
      })
      .def("__enter__", [](PyDevice& d) {
        d.previous.push_back(detail::exchange_default_device(d.device));
      })
      .def("__exit__", [](PyDevice& d, py::args) {
        EMBER_CHECK(!d.previous.empty(), "device.__exit__ without a matching __enter__");
        detail::exchange_default_device(d.previous.back());
        d.previous.pop_back();
        return false;
      });
  g_device_type = reinterpret_cast<PyTypeObject*>(device_cls.ptr());

  auto mf_cls = py::class_<MemoryFormat>(m, "memory_format")
      .def("__repr__", [](const MemoryFormat& f) { return std::string("ember.") + f.name; });
  g_memory_format_type = reinterpret_cast<PyTypeObject*>(mf_cls.ptr());
  for (const MemoryFormat& f : {MemoryFormat{0, "contiguous_format"}, MemoryFormat{1, "preserve_format"},
                                MemoryFormat{2, "channels_last"}, MemoryFormat{3, "channels_last_3d"}})
    m.attr(f.name) = py::cast(f);

  py::class_<Layout>(m, "layout").def("__repr__", [](const Layout&) { return "ember.strided"; });
  m.attr("strided") = py::cast(Layout{0});

  m.def("_set_size_class", [](py::object cls) {
    Py_XDECREF(g_size_cls);
    g_size_cls = cls.inc_ref().ptr();
  });
}

}  // namespace ember::python
