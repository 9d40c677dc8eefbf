// numpy interop without copies: ember.from_numpy(array) is a tensor over the array's memory (its
// storage's deleter holds a reference to the array), and Tensor.numpy() is an array over the
// tensor's memory (its base object holds the tensor's storage). Checks and messages are
// PyTorch's (torch/csrc/utils/tensor_numpy.cpp). numpy is only touched when the user hands us
// numpy objects or asks for arrays: `import ember` does not import it.
#include <pybind11/numpy.h>

#include <bit>
#include <cstring>
#include <memory>

#include "ember/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/warning.h"
#include "tensor_api.h"

namespace ember::python {

namespace {

// numpy.ndarray / numpy.generic once numpy is imported (nullptr before: then no object can be one).
PyObject* numpy_type(const char* name) {
  static PyObject* ndarray = nullptr;
  static PyObject* generic = nullptr;
  if (!ndarray) {
    PyObject* np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");  // borrowed
    if (!np) return nullptr;
    ndarray = PyObject_GetAttrString(np, "ndarray");
    generic = PyObject_GetAttrString(np, "generic");
    if (!ndarray || !generic) throw py::error_already_set();
  }
  return std::strcmp(name, "ndarray") == 0 ? ndarray : generic;
}

bool is_instance_of(PyObject* obj, const char* numpy_name) {
  PyObject* t = numpy_type(numpy_name);
  return t && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(t));
}

const char* numpy_name(ScalarType t) {
  switch (t) {
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kFloat16: return "float16";
    case kInt8: return "int8";
    case kUInt8: return "uint8";
    case kInt16: return "int16";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kBool: return "bool";
    case kComplexFloat: return "complex64";
    case kComplexDouble: return "complex128";
    default: break;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "Got unsupported ScalarType ", scalar_type_name(t));
}

py::object tensor_to_numpy(const py::args& args, const py::kwargs& kwargs) {
  bool force = false;
  for (auto item : kwargs) {
    EMBER_CHECK_TYPE(py::str(item.first).cast<std::string>() == "force" && PyBool_Check(item.second.ptr()),
                     "numpy() received an invalid combination of arguments: expected (*, bool force)");
    force = item.second.ptr() == Py_True;
  }
  EMBER_CHECK_TYPE(args.size() == 1, "numpy() takes 0 positional arguments but ", args.size() - 1, " were given");
  Tensor t = unpack(args[0].ptr());
  if (force) t = t.detach().cpu();  // force=True: whatever it takes, even a copy
  EMBER_CHECK_TYPE(t.is_cpu(), "can't convert ", t.device().str(),
                   " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  EMBER_CHECK(!(GradMode::is_enabled() && t.requires_grad()),
              "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  py::dtype dtype(numpy_name(t.dtype()));
  const auto itemsize = static_cast<py::ssize_t>(t.element_size());
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : t.strides()) strides.push_back(s * itemsize);
  // The array's base keeps the memory alive: the storage itself, not the tensor object, so that
  // even `t.data = other` (which swaps the tensor's storage) leaves the array valid.
  auto* storage = new intrusive_ptr<Storage>(t.impl()->storage());
  py::capsule base(storage, [](void* p) { delete static_cast<intrusive_ptr<Storage>*>(p); });
  return py::array(dtype, shape, strides, t.data_ptr(), base);
}

}  // namespace

bool is_numpy_array(PyObject* obj) { return is_instance_of(obj, "ndarray"); }
bool is_numpy_scalar(PyObject* obj) { return is_instance_of(obj, "generic"); }

ScalarType scalar_type_of_numpy(py::handle np_dtype) {
  const std::string kind = py::str(np_dtype.attr("kind"));
  const auto size = np_dtype.attr("itemsize").cast<int64_t>();
  const std::string order = py::str(np_dtype.attr("byteorder"));
  EMBER_CHECK_VALUE(order != (std::endian::native == std::endian::little ? ">" : "<"),
                    "given numpy array has byte order different from the native byte order. "
                    "Conversion between byte orders is currently not supported.");
  if (kind == "f" && size == 2) return kFloat16;
  if (kind == "f" && size == 4) return kFloat32;
  if (kind == "f" && size == 8) return kFloat64;
  if (kind == "i" && size == 1) return kInt8;
  if (kind == "i" && size == 2) return kInt16;
  if (kind == "i" && size == 4) return kInt32;
  if (kind == "i" && size == 8) return kInt64;
  if (kind == "u" && size == 1) return kUInt8;
  if (kind == "b") return kBool;
  if (kind == "c" && size == 8) return kComplexFloat;
  if (kind == "c" && size == 16) return kComplexDouble;
  // PyTorch's message (ember has no complex32).
  EMBER_FAIL_KIND(ErrorKind::Type, "can't convert np.ndarray of type numpy.",
                  py::str(np_dtype.attr("type").attr("__name__")).cast<std::string>(),
                  ". The only supported types are: float64, float32, float16, complex64, complex128, "
                  "int64, int32, int16, int8, uint8, and bool.");
}

Tensor tensor_from_numpy(py::handle obj) {
  EMBER_CHECK_TYPE(is_numpy_array(obj.ptr()), "expected np.ndarray (got ", Py_TYPE(obj.ptr())->tp_name, ")");
  py::array array = py::reinterpret_borrow<py::array>(obj);
  const ScalarType dtype = scalar_type_of_numpy(array.dtype());
  const auto itemsize = static_cast<int64_t>(array.itemsize());
  std::vector<int64_t> sizes, strides;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    const auto stride = static_cast<int64_t>(array.strides(d));
    EMBER_CHECK_VALUE(stride >= 0,
                      "At least one stride in the given numpy array is negative, and tensors with negative "
                      "strides are not currently supported. (You can probably work around this by making a "
                      "copy of your array  with array.copy().) ");
    EMBER_CHECK_VALUE(stride % itemsize == 0,
                      "given numpy array strides not a multiple of the element byte size. Copy the numpy "
                      "array to reallocate the memory.");
    sizes.push_back(static_cast<int64_t>(array.shape(d)));
    strides.push_back(stride / itemsize);
  }
  if (!array.writeable()) {
    static bool warned = false;  // once per process, as PyTorch
    if (!warned) {
      warned = true;
      warn("The given NumPy array is not writable, and ember does not support non-writable tensors. This "
           "means writing to this tensor will result in undefined behavior. You may want to copy the array "
           "to protect its data or make it writable before converting it to a tensor. This type of warning "
           "will be suppressed for the rest of this program.");
    }
  }
  // The tensor's storage keeps one reference to the array, dropped with the storage's deleter
  // (possibly on a thread without the GIL) — or at once if from_blob refuses the arguments.
  std::shared_ptr<PyObject> owner(array.inc_ref().ptr(), [](PyObject* o) {
    if (!Py_IsInitialized()) return;
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(o);
    PyGILState_Release(gil);
  });
  return from_blob(const_cast<void*>(array.data()), sizes, strides, TensorOptions(dtype).device(kCPU),
                   [owner](void*) {});
}

void init_numpy(py::module_& m) {
  m.def("from_numpy", [](py::handle array) { return tensor_from_numpy(array); }, py::arg("ndarray"));
  def_overridable_method("numpy", tensor_to_numpy);
}

}  // namespace ember::python
