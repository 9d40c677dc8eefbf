// PyTorch's legacy constructor: `ember.Tensor(...)`, `MySub(...)` for a subclass without its own
// __new__ (TensorBase.__new__), and `Tensor.new(...)`. The forms, in PyTorch 1.13's order:
//   ()                          an empty 1-d tensor
//   (Tensor other)              an alias of other (same storage and geometry, its dtype)
//   (Size or ints... size)      an uninitialised tensor of that size
//   (Storage storage)           a 1-d tensor over the whole storage (a TypedStorage: same dtype)
//   (object data)               a copy of a sequence / numpy array, like ember.tensor(data)
// each with an optional keyword `device`, which must be the expected device type (cpu for
// ember.Tensor, self's for new). ember.Tensor makes the default dtype; new makes self's dtype
// and refuses a tensor of another dtype. Anything else is PyTorch's TypeError, word for word.
#include "common.h"

#include "ember/ember.h"
#include "tensor_api.h"

namespace ember::python {

namespace {

std::string py_type_name(py::handle o) {
  if (is_tensor(o.ptr())) return "Tensor";
  if (is_dtype(o.ptr())) return "ember.dtype";
  if (is_device(o.ptr())) return "ember.device";
  return Py_TYPE(o.ptr())->tp_name;
}

[[noreturn]] void invalid_combination(const py::tuple& args, const py::dict& kwargs) {
  std::string got;
  std::string bad_types;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) {
      got += ", ";
      bad_types += ", ";
    }
    got += py_type_name(args[i]);
    bad_types += "!" + py_type_name(args[i]) + "!";
  }
  std::string bad_keywords;
  for (auto item : kwargs) {
    const auto key = py::cast<std::string>(item.first);
    if (!got.empty()) got += ", ";
    got += key + "=" + py_type_name(item.second);
    if (key != "device") bad_keywords += (bad_keywords.empty() ? "" : ", ") + key;
  }
  std::string why = !bad_keywords.empty()
                        ? "      didn't match because some of the keywords were incorrect: " + bad_keywords + "\n"
                        : "      didn't match because some of the arguments have invalid types: (" + bad_types + ")\n";
  EMBER_FAIL_KIND(ErrorKind::Type, "new() received an invalid combination of arguments - got (",
                  got, "), but expected one of:\n * (*, ember.device device)\n", why,
                  " * (ember.Storage storage)\n * (Tensor other)\n"
                  " * (tuple of ints size, *, ember.device device)\n"
                  " * (object data, *, ember.device device)\n");
}

bool is_int(py::handle o) { return PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr()); }

// c10's TensorOptions text, which PyTorch's message shows.
std::string options_text(ScalarType t) {
  const char* name = "float";
  switch (t) {
    case kFloat64: name = "double"; break;
    case kFloat16: name = "c10::Half"; break;
    case kBFloat16: name = "c10::BFloat16"; break;
    case kInt64: name = "long int"; break;
    case kInt32: name = "int"; break;
    case kInt16: name = "short int"; break;
    case kInt8: name = "signed char"; break;
    case kUInt8: name = "unsigned char"; break;
    case kBool: name = "bool"; break;
    default: break;
  }
  return std::string("TensorOptions(dtype=") + name +
         ", device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false "
         "(default), memory_format=(nullopt))";
}

}  // namespace

Tensor legacy_new(const py::tuple& args, const py::dict& kwargs, ScalarType dtype,
                  Device expected, bool from_new) {
  std::optional<Device> device;
  for (auto item : kwargs) {
    if (py::cast<std::string>(item.first) != "device") invalid_combination(args, kwargs);
    if (!item.second.is_none()) device = parse_device(item.second.ptr());
  }
  if (device) {
    EMBER_CHECK(device->type == expected.type, "legacy constructor expects device type: ",
                Device(expected.type), " but device type: ", Device(device->type),
                " was passed");
  }
  const Device where = device.value_or(expected);
  const size_t n = args.size();
  if (n == 0) return empty({0}, TensorOptions(dtype).device(where));
  py::handle first = args[0];
  if (n == 1 && is_tensor(first.ptr())) {
    if (!kwargs.empty()) invalid_combination(args, kwargs);
    const Tensor& other = unpack(first.ptr());
    EMBER_CHECK_TYPE(!from_new || other.dtype() == dtype, "expected ", options_text(dtype),
                     " (got ", options_text(other.dtype()), ")");
    return find_op("aten::alias").call({Value(other)})[0].to_tensor();
  }
  if (is_int(first)) {
    std::vector<int64_t> sizes;
    for (size_t i = 0; i < n; ++i) {
      EMBER_CHECK_TYPE(is_int(args[i]), "new(): argument 'size' must be tuple of ints, but found "
                       "element of type ", Py_TYPE(args[i].ptr())->tp_name, " at pos ", i + 1);
      sizes.push_back(args[i].cast<int64_t>());
    }
    return empty(sizes, TensorOptions(dtype).device(where));
  }
  if (n != 1) invalid_combination(args, kwargs);
  if (PyObject_IsInstance(first.ptr(), py::module_::import("ember").attr("Size").ptr()) == 1) {
    return empty(first.cast<std::vector<int64_t>>(), TensorOptions(dtype).device(where));
  }
  py::module_ storage = py::module_::import("ember.storage");
  if (py::isinstance(first, storage.attr("TypedStorage")) ||
      py::isinstance(first, storage.attr("UntypedStorage"))) {
    py::object over = storage.attr("_legacy_tensor_over")(
        first, py::reinterpret_borrow<py::object>(dtype_object(dtype)));
    return find_op("aten::alias").call({Value(unpack(over.ptr()))})[0].to_tensor();
  }
  EMBER_CHECK_TYPE(!PyUnicode_Check(first.ptr()) && !PyBytes_Check(first.ptr()),
                   "new(): invalid data type '", Py_TYPE(first.ptr())->tp_name, "'");
  EMBER_CHECK_TYPE(PySequence_Check(first.ptr()) || is_numpy_array(first.ptr()),
                   "new(): data must be a sequence (got ", Py_TYPE(first.ptr())->tp_name, ")");
  return tensor_from_data(first, dtype, where);
}

void init_tensor_new(py::module_&) {
  def_overridable_method("new", [](const py::args& args, const py::kwargs& kwargs) -> py::object {
    EMBER_CHECK_TYPE(args.size() >= 1 && is_tensor(args[0].ptr()),
                     "descriptor 'new' of 'ember._C.TensorBase' object needs an argument");
    const Tensor& self = unpack(args[0].ptr());
    py::tuple rest(args.size() - 1);
    for (size_t i = 1; i < args.size(); ++i) rest[i - 1] = args[i];
    return py::reinterpret_steal<py::object>(
        wrap(legacy_new(rest, kwargs, self.dtype(), self.device(), true)));
  });
}

}  // namespace ember::python
