// ember.dtype, ember.device, ember.Size, memory formats and layouts as Python objects.
//
// dtypes are singletons (`t.dtype is ember.float32`), as torch.dtype objects are. A device is a
// value (`ember.device("cpu") == ember.device("cpu")`) that also works as a context manager
// (`with ember.device("meta"):` sets the default device of factories, as in PyTorch 2).
// ember.Size is a tuple subclass defined in Python (ember/_size.py) and registered here.
#include <algorithm>
#include <array>

#include "common.h"
#include "ember/version.h"

namespace ember::python {

namespace {

struct DType {
  ScalarType type;
};

// A device as Python names it. `device` is what ember holds data on; "cuda" devices exist only
// as names (so that `torch.device("cuda" if ...)` and map_location code runs), and using one
// raises PyTorch's AssertionError for a build without CUDA.
struct PyDevice {
  Device device;
  std::string type;              // "cpu", "meta" or "cuda"
  std::optional<int64_t> index;  // as written: device("cpu:0").index == 0, device("cpu").index is None
  std::vector<std::optional<Device>> previous;  // `with` nesting

  bool is_cuda() const { return type == "cuda"; }
  std::string str() const { return index ? type + ":" + std::to_string(*index) : type; }
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
      {kQInt32, {"qint32"}},
      {kComplexFloat, {"complex64", "cfloat"}}, {kComplexDouble, {"complex128", "cdouble"}},
      {kQUInt4x2, {"quint4x2"}},          {kQUInt2x4, {"quint2x4"}}};
  return names;
}

}  // namespace

PyObject* dtype_object(ScalarType t) {
  EMBER_CHECK(t != ScalarType::Undefined, "dtype_object: undefined dtype");
  return g_dtypes[static_cast<int>(t)];
}
bool is_dtype(PyObject* obj) { return g_dtype_type && Py_TYPE(obj) == g_dtype_type; }
ScalarType unpack_dtype(PyObject* obj) { return py::handle(obj).cast<DType&>().type; }

[[noreturn]] void raise_no_cuda() {
  PyErr_SetString(PyExc_AssertionError, "ember not compiled with CUDA enabled");
  throw py::error_already_set();
}

namespace {

PyDevice make_device(const std::string& type, std::optional<int64_t> index) {
  EMBER_CHECK(!index || *index >= 0, "Device index must not be negative");
  PyDevice d{Device(), type, index, {}};
  if (type == "cuda") return d;
  EMBER_CHECK(type == "cpu" || type == "meta",
              "Expected one of cpu, cuda, meta device type at start of device string: ", type);
  EMBER_CHECK(!index || *index == 0, "Device index must be 0 for ", type, ", got ", *index);
  d.device = Device(type);
  return d;
}

// "cuda", "cuda:1", "cpu:0", as torch.device parses them.
PyDevice parse_device_string(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string type = spec.substr(0, colon);
  if (type != "cpu" && type != "meta" && type != "cuda") {
    EMBER_FAIL("Expected one of cpu, cuda, meta device type at start of device string: ", spec);
  }
  if (colon == std::string::npos) return make_device(type, std::nullopt);
  const std::string digits = spec.substr(colon + 1);
  const bool valid = !digits.empty() && digits.size() < 10 &&
                     std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  EMBER_CHECK(valid, "Invalid device string: '", spec, "'");
  return make_device(type, std::stoll(digits));
}

}  // namespace

PyObject* device_object(Device d) {
  return py::cast(PyDevice{d, d.str(), std::nullopt, {}}).release().ptr();
}
bool is_device(PyObject* obj) { return g_device_type && Py_TYPE(obj) == g_device_type; }
Device parse_device(PyObject* obj) {
  PyDevice d;
  if (is_device(obj)) d = py::handle(obj).cast<PyDevice&>();
  else if (PyUnicode_Check(obj)) d = parse_device_string(py::handle(obj).cast<std::string>());
  else EMBER_FAIL_KIND(ErrorKind::Type, "expected a device (ember.device or a string such as 'cpu'), got ",
                       Py_TYPE(obj)->tp_name);
  if (d.is_cuda()) raise_no_cuda();
  return d.device;
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
      .def_property_readonly("is_complex", [](const DType& d) { return is_complex(d.type); })
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
  m.attr("_version") = version();  // ember.__version__ (ember/version.py)
  m.def("get_default_dtype", []() { return default_dtype(); });
  m.def("set_default_dtype", [](py::handle d) {
    EMBER_CHECK_TYPE(is_dtype(d.ptr()),
                     "invalid dtype object: only floating-point types are supported as the default type");
    const ScalarType t = unpack_dtype(d.ptr());
    EMBER_CHECK_TYPE(is_floating(t), "only floating-point types are supported as the default type");
    set_default_dtype(t);
  }, py::arg("d"));

  auto device_cls = py::class_<PyDevice>(m, "device")
      .def(py::init([](py::handle spec) {
             if (is_device(spec.ptr())) {
               const PyDevice& d = spec.cast<const PyDevice&>();
               return PyDevice{d.device, d.type, d.index, {}};
             }
             // An int is a CUDA device index, as in PyTorch.
             if (PyLong_Check(spec.ptr()) && !PyBool_Check(spec.ptr())) return make_device("cuda", spec.cast<int64_t>());
             EMBER_CHECK_TYPE(PyUnicode_Check(spec.ptr()), "device() received an invalid combination of "
                              "arguments - got (", Py_TYPE(spec.ptr())->tp_name, "), but expected one of:\n"
                              " * (ember.device device)\n * (str type, int index)\n");
             return parse_device_string(spec.cast<std::string>());
           }),
           py::arg("type"))
      .def(py::init([](const std::string& type, int64_t index) {
             EMBER_CHECK(type.find(':') == std::string::npos,
                         "type (string) must not include an index because index was passed explicitly: ", type);
             return make_device(type, index);
           }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const PyDevice& d) { return d.type; })
      .def_property_readonly("index", [](const PyDevice& d) -> py::object {
        return d.index ? py::object(py::int_(*d.index)) : py::object(py::none());
      })
      .def("__eq__", [](const PyDevice& a, py::object b) {
        if (is_device(b.ptr())) {
          const PyDevice& o = b.cast<const PyDevice&>();
          return a.type == o.type && a.index == o.index;
        }
        if (!py::isinstance<py::str>(b)) return false;
        try {
          const PyDevice o = parse_device_string(b.cast<std::string>());
          return a.type == o.type && a.index == o.index;
        } catch (...) {
          return false;
        }
      })
      .def("__hash__", [](const PyDevice& d) { return py::hash(py::make_tuple(d.type, d.index.value_or(-1))); })
      .def("__repr__", [](const PyDevice& d) {
        std::string r = "device(type='" + d.type + "'";
        if (d.index) r += ", index=" + std::to_string(*d.index);
        return r + ")";
      })
      .def("__str__", [](const PyDevice& d) { return d.str(); })
      .def("__reduce__", [](const PyDevice& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.str()));
      })
      .def("__enter__", [](PyDevice& d) {
        if (d.is_cuda()) raise_no_cuda();
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
      .def("__repr__", [](const MemoryFormat& f) { return std::string("ember.") + f.name; })
      // Pickled by name, as PyTorch's: the global ember._C.<name>, so the same object comes back.
      .def("__reduce__", [](const MemoryFormat& f) { return std::string(f.name); });
  g_memory_format_type = reinterpret_cast<PyTypeObject*>(mf_cls.ptr());
  for (const MemoryFormat& f : {MemoryFormat{0, "contiguous_format"}, MemoryFormat{1, "preserve_format"},
                                MemoryFormat{2, "channels_last"}, MemoryFormat{3, "channels_last_3d"}})
    m.attr(f.name) = py::cast(f);

  py::class_<Layout>(m, "layout")
      .def("__repr__", [](const Layout&) { return "ember.strided"; })
      .def("__reduce__", [](const Layout&) { return "strided"; });
  m.attr("strided") = py::cast(Layout{0});

  m.def("_set_size_class", [](py::object cls) {
    Py_XDECREF(g_size_cls);
    g_size_cls = cls.inc_ref().ptr();
  });
}

}  // namespace ember::python
