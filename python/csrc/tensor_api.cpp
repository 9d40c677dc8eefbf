// The Tensor API that is not an op of the table: Tensor.to in all of PyTorch's forms and its
// shorthands (.float(), .cpu(), .type()), new_* factories, tolist, and ember.tensor /
// ember.as_tensor with PyTorch's conversion of Python data (nested sequences, numbers,
// one-element tensors, numpy arrays). Indexing, numpy, DLPack and grad mode have their own files;
// this one registers them all (init_tensor_api).
#include "tensor_api.h"

#include <algorithm>
#include <cstring>

#include "ember/dispatch.h"
#include "ember/ops/factory.h"
#include "ember/warning.h"
#include "torch_function.h"

namespace ember::python {

py::cpp_function overridable(const char* name, Body body) {
  auto public_api = std::make_shared<py::object>();
  py::cpp_function fn(
      [public_api, body = std::move(body)](const py::args& args, const py::kwargs& kwargs) -> py::object {
        if (torch_function_enabled()) {
          std::vector<PyObject*> overloaded;
          for (py::handle a : args) collect_overloaded(a.ptr(), overloaded);
          for (auto item : kwargs) collect_overloaded(item.second.ptr(), overloaded);
          if (!overloaded.empty() || torch_function_mode_active()) {
            PyObject* r = dispatch_torch_function(public_api->ptr(), overloaded, args.ptr(), kwargs.ptr());
            if (!r) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(r);
          }
        }
        return body(args, kwargs);
      },
      py::name(name));
  // The function is its own `func` for handlers. The cycle (function -> closure -> function) is
  // never collected; these functions live as long as the module anyway.
  *public_api = fn;
  return fn;
}

void def_overridable_method(const char* name, Body body) {
  add_tensor_method(name, overridable(name, std::move(body)));
}

/// "ember.FloatTensor" (cpu), "ember.meta.FloatTensor": PyTorch's legacy type names.
std::string type_string(ScalarType dtype, Device device) {
  std::string prefix = device.is_cpu() ? "ember." : "ember." + device.str() + ".";
  return prefix + scalar_type_name(dtype) + "Tensor";
}

namespace {

// ---- argument binding for the hand-written signatures ----

std::string type_name_of(py::handle o) {
  if (is_tensor(o.ptr())) return "Tensor";
  if (is_dtype(o.ptr())) return "ember.dtype";
  if (is_device(o.ptr())) return "ember.device";
  if (is_memory_format(o.ptr())) return "ember.memory_format";
  return Py_TYPE(o.ptr())->tp_name;
}

// PyTorch's "received an invalid combination of arguments" (self not counted).
[[noreturn]] void invalid_arguments(const char* name, const py::args& args, const py::kwargs& kwargs,
                                    const std::vector<const char*>& signatures) {
  std::string got = "(";
  for (size_t i = 1; i < args.size(); ++i) got += (i > 1 ? ", " : "") + type_name_of(args[i]);
  std::vector<std::string> kws;
  for (auto item : kwargs) kws.push_back(py::str(item.first).cast<std::string>() + "=" + type_name_of(item.second));
  std::sort(kws.begin(), kws.end());
  for (size_t i = 0; i < kws.size(); ++i) got += (args.size() > 1 || i ? ", " : "") + kws[i];
  if (args.size() == 1 && !kws.empty()) got += ", ";  // PyTorch's "(foo=int, )"
  std::string msg = std::string(name) + "() received an invalid combination of arguments - got " + got +
                    "), but expected one of:\n";
  for (const char* s : signatures) msg += std::string(" * ") + s + "\n";
  EMBER_FAIL_KIND(ErrorKind::Type, msg);
}

// Positional arguments after self, then keywords, matched to parameter names; false when an
// argument has no parameter or a parameter is given twice.
bool bind(const py::args& args, const py::kwargs& kwargs, const std::vector<const char*>& positional,
          const std::vector<const char*>& keyword_only, std::vector<py::handle>& out) {
  const size_t np = positional.size();
  out.assign(np + keyword_only.size(), py::handle());
  if (args.size() - 1 > np) return false;
  for (size_t i = 1; i < args.size(); ++i) out[i - 1] = args[i];
  for (auto item : kwargs) {
    std::string key = py::str(item.first);
    size_t idx = out.size();
    for (size_t p = 0; p < out.size(); ++p)
      if (key == (p < np ? positional[p] : keyword_only[p - np])) idx = p;
    if (idx == out.size() || out[idx]) return false;
    out[idx] = item.second;
  }
  return true;
}

bool get_bool(py::handle h, bool& out) {
  if (!h) return true;
  if (!PyBool_Check(h.ptr())) return false;
  out = h.ptr() == Py_True;
  return true;
}

bool get_memory_format(py::handle h, std::optional<int64_t>& out) {
  if (!h || h.is_none()) return true;
  if (!is_memory_format(h.ptr())) return false;
  out = unpack_memory_format(h.ptr());
  return true;
}

bool get_dtype(py::handle h, std::optional<ScalarType>& out) {
  if (!h || h.is_none()) return true;
  if (!is_dtype(h.ptr())) return false;
  out = unpack_dtype(h.ptr());
  return true;
}

bool get_device(py::handle h, std::optional<Device>& out) {
  if (!h || h.is_none()) return true;
  if (!is_device(h.ptr()) && !PyUnicode_Check(h.ptr())) return false;
  out = parse_device(h.ptr());  // a bad device string is an error of its own, as in PyTorch
  return true;
}

// ---- Tensor.to ----

Tensor call_to(const Tensor& self, std::optional<Device> device, std::optional<ScalarType> dtype,
               bool non_blocking, bool copy, std::optional<int64_t> memory_format) {
  Value mf(memory_format);
  Stack out;
  if (device) {
    static const OpHandle& op = find_op("aten::to", "device");
    out = op.call({self, *device, dtype.value_or(self.dtype()), non_blocking, copy, mf});
  } else {
    static const OpHandle& op = find_op("aten::to", "dtype");
    out = op.call({self, dtype.value_or(self.dtype()), non_blocking, copy, mf});
  }
  return out[0].to_tensor();
}

const std::vector<const char*> kToSignatures = {
    "(ember.device device, ember.dtype dtype, bool non_blocking, bool copy, *, ember.memory_format memory_format)",
    "(ember.dtype dtype, bool non_blocking, bool copy, *, ember.memory_format memory_format)",
    "(Tensor tensor, bool non_blocking, bool copy, *, ember.memory_format memory_format)"};

py::object to_method(const py::args& args, const py::kwargs& kwargs) {
  const Tensor& self = unpack(args[0].ptr());
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  bool non_blocking = false, copy = false;
  std::optional<int64_t> memory_format;
  std::vector<py::handle> b;
  PyObject* first = args.size() > 1 ? args[1].ptr() : nullptr;
  bool ok;
  if (first && is_tensor(first)) {  // to(other, non_blocking, copy)
    ok = bind(args, kwargs, {"tensor", "non_blocking", "copy"}, {"memory_format"}, b);
    if (ok) {
      const Tensor& other = unpack(first);
      device = other.device();
      dtype = other.dtype();
    }
  } else if (first && is_dtype(first)) {  // to(dtype, non_blocking, copy)
    ok = bind(args, kwargs, {"dtype", "non_blocking", "copy"}, {"memory_format"}, b) &&
         get_dtype(b[0], dtype);
  } else {  // to(device=None, dtype=None, non_blocking, copy)
    ok = bind(args, kwargs, {"device", "dtype", "non_blocking", "copy"}, {"memory_format"}, b) &&
         get_device(b[0], device) && get_dtype(b[1], dtype);
    if (ok) b.erase(b.begin());  // line up with the other forms: [x, non_blocking, copy, mf]
  }
  ok = ok && get_bool(b[1], non_blocking) && get_bool(b[2], copy) && get_memory_format(b[3], memory_format);
  if (!ok) invalid_arguments("to", args, kwargs, kToSignatures);
  return py::reinterpret_steal<py::object>(wrap(call_to(self, device, dtype, non_blocking, copy, memory_format)));
}

// .float(), .long(), ...: to(dtype), keeping the memory format (keyword only, as in PyTorch).
Body dtype_shorthand(const char* name, ScalarType dtype) {
  return [name, dtype](const py::args& args, const py::kwargs& kwargs) -> py::object {
    std::vector<py::handle> b;
    std::optional<int64_t> mf;
    if (args.size() > 1) {
      EMBER_FAIL_KIND(ErrorKind::Type, name, "() takes 0 positional arguments but ", args.size() - 1,
                      args.size() == 2 ? " was given" : " were given");
    }
    if (!bind(args, kwargs, {}, {"memory_format"}, b) || !get_memory_format(b[0], mf))
      invalid_arguments(name, args, kwargs, {"(*, ember.memory_format memory_format)"});
    return py::reinterpret_steal<py::object>(
        wrap(call_to(unpack(args[0].ptr()), std::nullopt, dtype, false, false, mf)));
  };
}

py::object cpu_method(const py::args& args, const py::kwargs& kwargs) {
  std::vector<py::handle> b;
  std::optional<int64_t> mf;
  if (!bind(args, kwargs, {}, {"memory_format"}, b) || !get_memory_format(b[0], mf))
    invalid_arguments("cpu", args, kwargs, {"(*, ember.memory_format memory_format)"});
  return py::reinterpret_steal<py::object>(wrap(call_to(unpack(args[0].ptr()), Device(kCPU), std::nullopt, false, false, mf)));
}

// Tensor.type(): the legacy type name; type(dtype or name): a conversion.
py::object type_method(const py::args& args, const py::kwargs& kwargs) {
  const Tensor& self = unpack(args[0].ptr());
  std::vector<py::handle> b;
  bool non_blocking = false;
  if (!bind(args, kwargs, {"dtype", "non_blocking"}, {}, b) || !get_bool(b[1], non_blocking))
    invalid_arguments("type", args, kwargs, {"(ember.dtype dtype, bool non_blocking)"});
  if (!b[0] || b[0].is_none()) return py::str(type_string(self.dtype(), self.device()));
  std::optional<ScalarType> dtype;
  if (PyUnicode_Check(b[0].ptr())) {
    // "ember.DoubleTensor" (or PyTorch's "torch.DoubleTensor", as code written for it passes).
    std::string name = b[0].cast<std::string>();
    std::string bare = name;
    for (const char* prefix : {"ember.", "torch."})
      if (bare.starts_with(prefix)) bare = bare.substr(std::strlen(prefix));
    for (ScalarType t : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool,
                         kComplexFloat, kComplexDouble})
      if (bare == std::string(scalar_type_name(t)) + "Tensor" && bare.size() < name.size()) dtype = t;
    EMBER_CHECK_VALUE(dtype.has_value(), "invalid type: '", name, "'");
  } else if (!get_dtype(b[0], dtype)) {
    invalid_arguments("type", args, kwargs, {"(ember.dtype dtype, bool non_blocking)"});
  }
  return py::reinterpret_steal<py::object>(wrap(call_to(self, std::nullopt, dtype, non_blocking, false, std::nullopt)));
}

// ---- new_* ----

bool get_int(py::handle h, int64_t& out) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o)) return false;
  if (is_tensor(o)) {
    const Tensor& t = unpack(o);
    if (t.dim() != 0 || !is_integral(t.dtype(), false)) return false;
  }
  out = py::reinterpret_steal<py::int_>(PyNumber_Index(o)).cast<int64_t>();
  return true;
}

// A size given as varargs ints (t.new_zeros(2, 3)) or one sequence (t.new_zeros((2, 3))).
std::vector<int64_t> parse_size(const char* fname, const std::vector<py::handle>& given, bool varargs) {
  auto bad = [&](py::handle h) {
    EMBER_FAIL_KIND(ErrorKind::Type, fname, "(): argument 'size' (position 1) must be tuple of ints, not ",
                    Py_TYPE(h.ptr())->tp_name);
  };
  std::vector<int64_t> sizes;
  int64_t v;
  if (varargs && !given.empty() && get_int(given[0], v)) {
    for (py::handle h : given) {
      if (!get_int(h, v)) bad(h);
      sizes.push_back(v);
    }
    return sizes;
  }
  EMBER_CHECK_TYPE(!given.empty(), fname, "() missing required argument 'size' (pos 1)");
  if (given.size() > 1 || (!PyTuple_Check(given[0].ptr()) && !PyList_Check(given[0].ptr()))) bad(given[0]);
  py::sequence seq = py::reinterpret_borrow<py::sequence>(given[0]);
  for (size_t i = 0; i < seq.size(); ++i) {
    if (!get_int(seq[i], v)) {
      EMBER_FAIL_KIND(ErrorKind::Type, fname, "(): argument 'size' must be tuple of ints, but found element of type ",
                      Py_TYPE(seq[i].ptr())->tp_name, " at pos ", i + 1);
    }
    sizes.push_back(v);
  }
  return sizes;
}

struct FactoryKwargs {
  std::optional<ScalarType> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
};

// dtype=, device=, requires_grad=, layout= and pin_memory= (the last two accepted, as ember has
// one layout and no pinned memory).
FactoryKwargs factory_kwargs(const char* fname, const py::kwargs& kwargs) {
  FactoryKwargs f;
  for (auto item : kwargs) {
    std::string key = py::str(item.first);
    py::handle v = item.second;
    bool ok = true;
    if (key == "dtype") ok = get_dtype(v, f.dtype);
    else if (key == "device") ok = get_device(v, f.device);
    else if (key == "requires_grad") ok = get_bool(v, f.requires_grad);
    else if (key == "pin_memory") ok = PyBool_Check(v.ptr()) && v.ptr() == Py_False;
    else if (key == "layout") ok = v.is_none() || std::string(Py_TYPE(v.ptr())->tp_name).ends_with("layout");
    else ok = false;
    EMBER_CHECK_TYPE(ok, fname, "(): invalid keyword argument '", key, "' (", Py_TYPE(v.ptr())->tp_name, ")");
  }
  return f;
}

py::object finish(Tensor t, bool requires_grad) {
  if (requires_grad) t.requires_grad_(true);
  return py::reinterpret_steal<py::object>(wrap(std::move(t)));
}

enum class Fill { Zeros, Ones, Empty };

Body new_factory(const char* fname, Fill fill) {
  return [fname, fill](const py::args& args, const py::kwargs& kwargs) -> py::object {
    const Tensor& self = unpack(args[0].ptr());
    std::vector<py::handle> given(args.begin() + 1, args.end());
    py::kwargs rest;
    for (auto item : kwargs) {
      if (py::str(item.first).cast<std::string>() == "size") given.push_back(item.second);
      else rest[item.first] = item.second;
    }
    std::vector<int64_t> sizes = parse_size(fname, given, true);
    FactoryKwargs f = factory_kwargs(fname, rest);
    TensorOptions opts = TensorOptions(f.dtype.value_or(self.dtype())).device(f.device.value_or(self.device()));
    Tensor t = fill == Fill::Zeros ? zeros(sizes, opts) : fill == Fill::Ones ? ones(sizes, opts) : empty(sizes, opts);
    return finish(std::move(t), f.requires_grad);
  };
}

py::object new_full(const py::args& args, const py::kwargs& kwargs) {
  const Tensor& self = unpack(args[0].ptr());
  std::vector<py::handle> b;
  py::kwargs rest;
  py::kwargs named;
  for (auto item : kwargs) {
    std::string key = py::str(item.first);
    (key == "size" || key == "fill_value" ? named : rest)[item.first] = item.second;
  }
  EMBER_CHECK_TYPE(bind(args, named, {"size", "fill_value"}, {}, b) && b[0] && b[1],
                   "new_full() missing required arguments: expected (tuple of ints size, Number fill_value)");
  std::vector<int64_t> sizes = parse_size("new_full", {b[0]}, false);
  FactoryKwargs f = factory_kwargs("new_full", rest);
  PyObject* v = b[1].ptr();
  Scalar value;
  if (PyBool_Check(v)) value = Scalar(v == Py_True);
  else if (PyFloat_Check(v)) value = Scalar(PyFloat_AS_DOUBLE(v));
  else if (PyComplex_Check(v)) value = Scalar(std::complex<double>(PyComplex_RealAsDouble(v), PyComplex_ImagAsDouble(v)));
  else if (PyIndex_Check(v) && !is_tensor(v)) value = Scalar(b[1].cast<int64_t>());
  else if (is_tensor(v) && unpack(v).numel() == 1) value = unpack(v).item();
  else EMBER_FAIL_KIND(ErrorKind::Type, "new_full(): argument 'fill_value' (position 2) must be Number, not ", Py_TYPE(v)->tp_name);
  TensorOptions opts = TensorOptions(f.dtype.value_or(self.dtype())).device(f.device.value_or(self.device()));
  return finish(full(sizes, value, opts), f.requires_grad);
}

void warn_tensor_copy(const char* fname) {
  warn(std::string("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                   "or sourceTensor.clone().detach().requires_grad_(True), rather than ") + fname +
       "(sourceTensor).");
}

py::object new_tensor(const py::args& args, const py::kwargs& kwargs) {
  const Tensor& self = unpack(args[0].ptr());
  py::kwargs rest, named;
  for (auto item : kwargs) (py::str(item.first).cast<std::string>() == "data" ? named : rest)[item.first] = item.second;
  std::vector<py::handle> b;
  EMBER_CHECK_TYPE(bind(args, named, {"data"}, {}, b) && b[0], "new_tensor() missing required argument 'data' (pos 1)");
  FactoryKwargs f = factory_kwargs("new_tensor", rest);
  if (is_tensor(b[0].ptr())) warn_tensor_copy("tensor.new_tensor");
  // Unlike ember.tensor, the dtype is self's unless given (PyTorch does not infer it here).
  Tensor t = tensor_from_data(b[0], f.dtype.value_or(self.dtype()), f.device.value_or(self.device()));
  return finish(std::move(t), f.requires_grad);
}

// ---- tolist ----

py::object to_list(const char* data, IntArrayRef sizes, IntArrayRef strides, size_t dim, ScalarType kind) {
  if (dim == sizes.size()) {
    if (kind == kFloat64) return py::float_(*reinterpret_cast<const double*>(data));
    if (kind == kComplexDouble) {
      const auto* c = reinterpret_cast<const double*>(data);
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c[0], c[1]));
    }
    if (kind == kBool) return py::bool_(*reinterpret_cast<const bool*>(data));
    return py::int_(*reinterpret_cast<const int64_t*>(data));
  }
  py::list out(sizes[dim]);
  const int64_t step = strides[dim] * static_cast<int64_t>(element_size(kind));
  for (int64_t i = 0; i < sizes[dim]; ++i) out[i] = to_list(data + i * step, sizes, strides, dim + 1, kind);
  return out;
}

py::object tolist(const py::args& args, const py::kwargs& kwargs) {
  EMBER_CHECK_TYPE(args.size() == 1 && kwargs.empty(), "tolist() takes no arguments");
  Tensor t = unpack(args[0].ptr()).detach();
  EMBER_CHECK_NOT_IMPLEMENTED(!t.is_meta(), "Cannot copy out of meta tensor; no data!");
  EMBER_CHECK(!t.is_quantized(), "invalid type");  // PyTorch's text for a quantized tensor
  // Values as Python numbers: floats through double (exactly, as PyTorch), integers through int64.
  ScalarType kind = t.is_complex() ? kComplexDouble : t.is_floating_point() ? kFloat64 : t.dtype() == kBool ? kBool : kInt64;
  t = t.to(kind).contiguous();
  return to_list(static_cast<const char*>(t.data_ptr()), t.sizes(), t.strides(), 0, kind);
}

// ---- ember.tensor: Python data -> a new tensor ----

// The nesting of `data` along its first elements (PyTorch's compute_sizes): tensors, numbers and
// strings are leaves.
std::vector<int64_t> compute_sizes(PyObject* data) {
  std::vector<int64_t> sizes;
  py::object holder;
  PyObject* seq = data;
  while (!is_tensor(seq) && !PyUnicode_Check(seq) && PySequence_Check(seq)) {
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0) throw py::error_already_set();
    sizes.push_back(n);
    if (n == 0) break;
    holder = py::reinterpret_steal<py::object>(PySequence_GetItem(seq, 0));
    if (!holder) throw py::error_already_set();
    seq = holder.ptr();
  }
  return sizes;
}

int64_t unpack_long(PyObject* obj) {
  py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(obj));
  if (!idx) throw py::error_already_set();  // "'list' object cannot be interpreted as an integer"
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
  EMBER_CHECK(!overflow, "Overflow when unpacking long");
  return v;
}

// One leaf, written as `kind` (float64, int64 or bool: the buffer type of the target dtype).
void store_scalar(PyObject* obj, ScalarType kind, char* out) {
  if (is_tensor(obj)) {
    const Tensor& t = unpack(obj);
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    Scalar s = t.item();
    if (kind == kComplexDouble) *reinterpret_cast<std::complex<double>*>(out) = s.to_complex();
    else if (kind == kFloat64) *reinterpret_cast<double*>(out) = s.to_double();
    else if (kind == kBool) *reinterpret_cast<bool*>(out) = s.to_bool();
    else *reinterpret_cast<int64_t*>(out) = s.to_int();
    return;
  }
  if (kind == kComplexDouble) {
    const Py_complex c = PyComplex_AsCComplex(obj);  // any number; "must be a number, not list"
    if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    *reinterpret_cast<std::complex<double>*>(out) = std::complex<double>(c.real, c.imag);
    return;
  }
  const bool floating = PyFloat_Check(obj) || (is_numpy_scalar(obj) && !PyIndex_Check(obj));
  if (kind == kInt64 && !floating) {
    *reinterpret_cast<int64_t*>(out) = unpack_long(obj);
    return;
  }
  double v = PyFloat_AsDouble(obj);  // "must be real number, not list"
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  if (kind == kFloat64) *reinterpret_cast<double*>(out) = v;
  else if (kind == kBool) *reinterpret_cast<bool*>(out) = v != 0;
  else *reinterpret_cast<int64_t*>(out) = static_cast<int64_t>(v);
}

void recursive_store(PyObject* obj, const std::vector<int64_t>& sizes, size_t dim, ScalarType kind, char*& out) {
  if (dim == sizes.size()) {
    store_scalar(obj, kind, out);
    out += element_size(kind);
    return;
  }
  py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(obj, "not a sequence"));
  if (!seq) throw py::error_already_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  EMBER_CHECK_VALUE(n == sizes[dim], "expected sequence of length ", sizes[dim], " at dim ", dim, " (got ", n, ")");
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) recursive_store(items[i], sizes, dim + 1, kind, out);
}

py::object tensor_function(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device,
                           bool requires_grad, bool pin_memory) {
  if (pin_memory) refuse_pinned_memory();
  if (is_tensor(data.ptr())) warn_tensor_copy("ember.tensor");
  return finish(tensor_from_data(data, dtype, device), requires_grad);
}

// ember.as_tensor: shares data when it can (a tensor or numpy array already of the dtype and
// device), else converts as ember.tensor.
py::object as_tensor(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t;
  if (is_tensor(data.ptr())) {
    t = unpack(data.ptr());
  } else if (is_numpy_array(data.ptr())) {
    t = tensor_from_numpy(data);
  } else {
    return py::reinterpret_steal<py::object>(wrap(tensor_from_data(data, dtype, device)));
  }
  return py::reinterpret_steal<py::object>(wrap(call_to(t, device.value_or(t.device()), dtype, false, false, std::nullopt)));
}

}  // namespace

ScalarType infer_scalar_type(py::handle data) {
  PyObject* obj = data.ptr();
  if (is_numpy_scalar(obj)) return scalar_type_of_numpy(data.attr("dtype"));
  if (PyFloat_Check(obj)) return default_dtype();
  if (PyComplex_Check(obj)) return default_complex_dtype();
  if (PyBool_Check(obj)) return kBool;
  if (PyLong_Check(obj)) return kInt64;
  if (is_tensor(obj)) return unpack(obj).dtype();
  EMBER_CHECK_TYPE(!PyUnicode_Check(obj) && !PyBytes_Check(obj), "new(): invalid data type '",
                   Py_TYPE(obj)->tp_name, "'");
  if (is_numpy_array(obj)) return scalar_type_of_numpy(data.attr("dtype"));
  if (PySequence_Check(obj)) {
    py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(obj, "not a sequence"));
    if (!seq) throw py::error_already_set();
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
    if (n == 0) return default_dtype();
    ScalarType t = ScalarType::Undefined;
    for (Py_ssize_t i = 0; i < n; ++i) {
      ScalarType item = infer_scalar_type(PySequence_Fast_GET_ITEM(seq.ptr(), i));
      t = t == ScalarType::Undefined ? item : promote_types(t, item);
    }
    return t;
  }
  EMBER_FAIL("Could not infer dtype of ", Py_TYPE(obj)->tp_name);
}

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  PyObject* obj = data.ptr();
  if (is_tensor(obj) || is_numpy_array(obj)) {
    Tensor src = is_tensor(obj) ? unpack(obj).detach() : tensor_from_numpy(data);
    return call_to(src, device.value_or(src.device()), dtype.value_or(src.dtype()), false, true, std::nullopt);
  }
  const ScalarType target = dtype ? *dtype : infer_scalar_type(data);
  std::vector<int64_t> sizes = compute_sizes(obj);
  const ScalarType kind = is_complex(target) ? kComplexDouble : is_floating(target) ? kFloat64
                         : target == kBool ? kBool : kInt64;
  Tensor buf = empty(sizes, TensorOptions(kind).device(kCPU));
  char* out = static_cast<char*>(buf.data_ptr());
  recursive_store(obj, sizes, 0, kind, out);
  return call_to(buf, device.value_or(default_device()), target, false, false, std::nullopt);
}

void init_tensor_api(py::module_& m) {
  def_overridable_method("to", to_method);
  struct Shorthand {
    const char* name;
    ScalarType dtype;
  };
  for (const Shorthand& s : {Shorthand{"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16},
                             {"bfloat16", kBFloat16}, {"long", kInt64}, {"int", kInt32}, {"short", kInt16},
                             {"char", kInt8}, {"byte", kUInt8}, {"bool", kBool},
                             {"cfloat", kComplexFloat}, {"cdouble", kComplexDouble}})
    def_overridable_method(s.name, dtype_shorthand(s.name, s.dtype));
  def_overridable_method("cpu", cpu_method);
  def_overridable_method("type", type_method);
  def_overridable_method("new_zeros", new_factory("new_zeros", Fill::Zeros));
  def_overridable_method("new_ones", new_factory("new_ones", Fill::Ones));
  def_overridable_method("new_empty", new_factory("new_empty", Fill::Empty));
  def_overridable_method("new_full", new_full);
  def_overridable_method("new_tensor", new_tensor);
  def_overridable_method("tolist", tolist);

  m.def("tensor", tensor_function, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false, py::arg("pin_memory") = false);
  m.def("as_tensor", as_tensor, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());

  init_indexing(m);
  init_numpy(m);
  init_dlpack(m);
  init_grad_mode(m);
}

}  // namespace ember::python
