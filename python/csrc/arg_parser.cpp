// Note [Binding Python arguments]
// An ember function (ember.add, Tensor.sum) has the overloads of its aten name, in table order.
// A call tries them in two passes: first exactly (a Python number never fills a Tensor slot),
// then loosely (a number becomes a wrapped-number 0-d tensor, which promotes weakly, so that
// `ember.add(t, 2)` and `t * 2.5` keep t's dtype as PyTorch's do). The first overload whose
// parameters all bind wins. Binding follows PyTorch's Python signatures: the schema's `self` is
// `input` in the function form; an `int[]` parameter that is the last positional one given also
// takes its values as varargs (`t.view(2, 3)`, `ember.zeros(2, 3)`) when it is the only positional
// parameter; `int[N]` takes a single int
// for N copies; factories accept `requires_grad=`. No match is a TypeError listing the
// signatures, as PyTorch's "received an invalid combination of arguments".
#include "arg_parser.h"

#include "dispatch/schema.h"
#include "ember/ops/factory.h"

namespace ember::python {

namespace {

ArgKind kind_of(const std::string& type_with_alias, int& list_size) {
  std::string type = type_with_alias;
  if (auto p = type.find('('); p != std::string::npos) {  // Tensor(a!) -> Tensor
    auto q = type.find(')', p);
    type.erase(p, q - p + 1);
  }
  if (!type.empty() && type.back() == '?') type.pop_back();
  list_size = 0;
  if (type == "Tensor") return ArgKind::Tensor;
  if (type == "Tensor[]") return ArgKind::TensorList;
  if (type == "Tensor?[]") return ArgKind::OptTensorList;
  if (type == "int" || type == "SymInt") return ArgKind::Int;
  if (type.starts_with("int[") || type.starts_with("SymInt[")) {
    auto open = type.find('[');
    list_size = type[open + 1] == ']' ? 0 : std::atoi(type.c_str() + open + 1);
    return ArgKind::IntList;
  }
  if (type.starts_with("bool[")) {  // convolution_backward's bool[3] output_mask: 0/1 ints
    auto open = type.find('[');
    list_size = type[open + 1] == ']' ? 0 : std::atoi(type.c_str() + open + 1);
    return ArgKind::IntList;
  }
  if (type == "float") return ArgKind::Float;
  if (type.starts_with("float[")) return ArgKind::FloatList;
  if (type == "bool") return ArgKind::Bool;
  if (type == "Scalar") return ArgKind::Scalar;
  if (type == "ScalarType") return ArgKind::Dtype;
  if (type == "Device") return ArgKind::Device;
  if (type == "Layout") return ArgKind::Layout;
  if (type == "MemoryFormat") return ArgKind::MemoryFormat;
  if (type == "Generator") return ArgKind::Generator;
  if (type == "str") return ArgKind::Str;
  EMBER_FAIL("ember._C: no Python binding for schema type '", type_with_alias, "'");
}

const char* kind_display(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::TensorList: return "tuple of Tensors";
    case ArgKind::OptTensorList: return "tuple of Tensors";
    case ArgKind::Int: return "int";
    case ArgKind::IntList: return "tuple of ints";
    case ArgKind::Float: return "float";
    case ArgKind::FloatList: return "tuple of floats";
    case ArgKind::Bool: return "bool";
    case ArgKind::Scalar: return "Number";
    case ArgKind::Dtype: return "ember.dtype";
    case ArgKind::Device: return "ember.device";
    case ArgKind::Layout: return "ember.layout";
    case ArgKind::MemoryFormat: return "ember.memory_format";
    case ArgKind::Generator: return "ember.Generator";
    case ArgKind::Str: return "str";
  }
  return "?";
}

bool is_int_like(PyObject* obj) {
  if (PyBool_Check(obj)) return false;
  if (PyLong_Check(obj)) return true;
  if (is_tensor(obj)) return false;
  return PyIndex_Check(obj);  // numpy integers
}

bool get_int(PyObject* obj, int64_t& out) {
  if (is_int_like(obj)) {
    out = PyLong_AsLongLong(obj);
    if (out == -1 && PyErr_Occurred()) {
      if (PyLong_Check(obj)) throw py::error_already_set();  // overflow: not a binding failure
      PyErr_Clear();
      PyObject* idx = PyNumber_Index(obj);
      if (!idx) throw py::error_already_set();
      out = PyLong_AsLongLong(idx);
      Py_DECREF(idx);
      if (out == -1 && PyErr_Occurred()) throw py::error_already_set();
    }
    return true;
  }
  if (is_tensor(obj)) {  // a 0-d integer tensor is an int (PyTorch accepts it too)
    const Tensor& t = unpack(obj);
    if (t.dim() == 0 && is_integral(t.dtype(), false) && t.is_cpu()) {
      out = t.item().to_int();
      return true;
    }
  }
  return false;
}

bool get_scalar(PyObject* obj, Scalar& out) {
  if (PyBool_Check(obj)) {
    out = Scalar(obj == Py_True);
    return true;
  }
  if (PyLong_Check(obj)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow) {
      PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
      throw py::error_already_set();
    }
    out = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyFloat_Check(obj)) {
    out = Scalar(PyFloat_AS_DOUBLE(obj));
    return true;
  }
  if (is_tensor(obj)) {  // a one-element tensor as a Number
    const Tensor& t = unpack(obj);
    if (t.numel() == 1 && t.is_cpu() && !t.is_quantized()) {
      out = t.item();
      return true;
    }
    return false;
  }
  if (PyIndex_Check(obj)) {
    int64_t v;
    if (!get_int(obj, v)) return false;
    out = Scalar(v);
    return true;
  }
  if (PyNumber_Check(obj) && !PySequence_Check(obj) && !PyComplex_Check(obj)) {  // numpy floats
    double d = PyFloat_AsDouble(obj);
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    out = Scalar(d);
    return true;
  }
  return false;
}

bool is_sequence(PyObject* obj) { return PyTuple_Check(obj) || PyList_Check(obj); }

}  // namespace

bool convert_arg(const ArgSpec& spec, PyObject* obj, bool loose, Value& out) {
  if (obj == Py_None) {
    if (!spec.optional) return false;
    out = Value();
    return true;
  }
  switch (spec.kind) {
    case ArgKind::Tensor: {
      if (is_tensor(obj)) {
        out = Value(unpack(obj));
        return true;
      }
      Scalar s;
      if (loose && !is_sequence(obj) && get_scalar(obj, s)) {
        out = Value(wrapped_scalar_tensor(s));
        return true;
      }
      return false;
    }
    case ArgKind::TensorList:
    case ArgKind::OptTensorList: {
      if (!is_sequence(obj)) return false;
      py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
      if (spec.kind == ArgKind::TensorList) {
        std::vector<Tensor> list;
        list.reserve(seq.size());
        for (auto item : seq) {
          if (!is_tensor(item.ptr())) return false;
          list.push_back(unpack(item.ptr()));
        }
        out = Value(std::move(list));
      } else {
        Value::OptionalTensorList list;
        for (auto item : seq) {
          if (item.is_none()) list.emplace_back(std::nullopt);
          else if (is_tensor(item.ptr())) list.emplace_back(unpack(item.ptr()));
          else return false;
        }
        out = Value(std::move(list));
      }
      return true;
    }
    case ArgKind::Int: {
      int64_t v;
      if (!get_int(obj, v)) return false;
      out = Value(v);
      return true;
    }
    case ArgKind::IntList: {
      int64_t v;
      if (get_int(obj, v)) {  // a single int: int[N] repeats it, int[] takes it as [v]
        out = Value(std::vector<int64_t>(spec.list_size > 0 ? spec.list_size : 1, v));
        return true;
      }
      if (!is_sequence(obj)) return false;
      py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
      std::vector<int64_t> list;
      list.reserve(seq.size());
      for (auto item : seq) {
        if (!get_int(item.ptr(), v)) return false;
        list.push_back(v);
      }
      out = Value(std::move(list));
      return true;
    }
    case ArgKind::Float: {
      Scalar s;
      if (PyBool_Check(obj) || !get_scalar(obj, s) || s.is_bool()) return false;
      out = Value(s.to_double());
      return true;
    }
    case ArgKind::FloatList: {
      Scalar s;
      if (!is_sequence(obj)) {
        if (!get_scalar(obj, s)) return false;
        out = Value(std::vector<double>(std::max(spec.list_size, 1), s.to_double()));
        return true;
      }
      std::vector<double> list;
      for (auto item : py::reinterpret_borrow<py::sequence>(obj)) {
        if (!get_scalar(item.ptr(), s)) return false;
        list.push_back(s.to_double());
      }
      out = Value(std::move(list));
      return true;
    }
    case ArgKind::Bool:
      if (!PyBool_Check(obj)) {
        // numpy bools and 0-d bool tensors
        if (is_tensor(obj) && unpack(obj).dtype() == kBool && unpack(obj).numel() == 1) {
          out = Value(unpack(obj).item().to_bool());
          return true;
        }
        return false;
      }
      out = Value(obj == Py_True);
      return true;
    case ArgKind::Scalar: {
      Scalar s;
      if (!get_scalar(obj, s)) return false;
      out = Value(s);
      return true;
    }
    case ArgKind::Dtype:
      if (!is_dtype(obj)) {
        // Python's float / int / bool types, as PyTorch accepts them for dtype=
        if (obj == reinterpret_cast<PyObject*>(&PyFloat_Type)) out = Value(kFloat64);
        else if (obj == reinterpret_cast<PyObject*>(&PyLong_Type)) out = Value(kInt64);
        else if (obj == reinterpret_cast<PyObject*>(&PyBool_Type)) out = Value(kBool);
        else return false;
        return true;
      }
      out = Value(unpack_dtype(obj));
      return true;
    case ArgKind::Device:
      if (!is_device(obj) && !PyUnicode_Check(obj)) return false;
      out = Value(parse_device(obj));
      return true;
    case ArgKind::Layout:
      out = Value(int64_t{0});  // ember.strided, the only layout
      return std::string(Py_TYPE(obj)->tp_name).ends_with("layout");
    case ArgKind::MemoryFormat:
      if (!is_memory_format(obj)) return false;
      out = Value(unpack_memory_format(obj));
      return true;
    case ArgKind::Generator: {
      Generator* gen = unpack_generator(obj);  // borrowed: the caller's object outlives the call
      out = Value(gen);
      return gen != nullptr;
    }
    case ArgKind::Str:
      if (!PyUnicode_Check(obj)) return false;
      out = Value(py::handle(obj).cast<std::string>());
      return true;
  }
  return false;
}

std::string Signature::describe(bool method) const {
  std::string s = "(";
  bool star = false;
  bool first = true;
  for (size_t i = method ? 1 : 0; i < args.size(); ++i) {
    const ArgSpec& a = args[i];
    if (a.kwarg_only && !star) {
      s += first ? "*" : ", *";
      star = true;
      first = false;
    }
    if (!first) s += ", ";
    first = false;
    s += kind_display(a.kind);
    if (a.optional && a.kind != ArgKind::Tensor) s += "?";
    s += " " + (a.name == "self" ? std::string("input") : a.name);
  }
  return s + ")";
}

OpSignatures::OpSignatures(std::vector<const OpHandle*> ops, std::string python_name)
    : name_(std::move(python_name)) {
  for (const OpHandle* op : ops) {
    Signature sig;
    sig.op = op;
    for (const SchemaArg& a : op->arguments()) {
      ArgSpec spec;
      spec.name = a.name;
      spec.kind = kind_of(a.type, spec.list_size);
      spec.optional = a.type.find('?') != std::string::npos;
      spec.kwarg_only = a.kwarg_only;
      spec.has_default = a.default_value.has_value();
      if (spec.has_default) spec.default_value = dispatch::default_value(a.type, *a.default_value);
      if (!spec.kwarg_only) ++sig.positional;
      if (spec.kind == ArgKind::Layout) sig.factory = true;
      sig.args.push_back(std::move(spec));
    }
    sigs_.push_back(std::move(sig));
  }
}

bool OpSignatures::try_bind(const Signature& sig, PyObject* self, PyObject* const* args,
                            Py_ssize_t nargs, PyObject* kwnames, bool loose,
                            ParsedCall& out) const {
  const size_t n = sig.args.size();
  std::vector<PyObject*> bound(n, nullptr);
  size_t next = 0;
  if (self) {
    if (n == 0 || sig.args[0].kind != ArgKind::Tensor) return false;
    bound[next++] = self;
  }
  // Positional arguments; an int[] parameter swallows trailing ints (varargs form) when it is
  // the only positional parameter, as PyTorch's max_pos_args == 1 (not conv2d's stride).
  size_t positional_params = 0;
  for (size_t a = self ? 1 : 0; a < n; ++a) positional_params += sig.args[a].kwarg_only ? 0 : 1;
  PyObject* varargs_tuple = nullptr;
  py::object varargs_holder;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (next >= n || sig.args[next].kwarg_only) return false;
    const ArgSpec& spec = sig.args[next];
    if (spec.kind == ArgKind::IntList && is_int_like(args[i]) && nargs - i > 1 &&
        positional_params == 1) {
      // Only when every remaining positional is an int and no later positional parameter needs
      // them: `t.view(2, 3)`, `ember.zeros(2, 3)`.
      bool all_ints = true;
      for (Py_ssize_t j = i; j < nargs; ++j) all_ints = all_ints && is_int_like(args[j]);
      if (all_ints) {
        varargs_holder = py::reinterpret_steal<py::object>(PyTuple_New(nargs - i));
        for (Py_ssize_t j = i; j < nargs; ++j) {
          Py_INCREF(args[j]);
          PyTuple_SET_ITEM(varargs_holder.ptr(), j - i, args[j]);
        }
        varargs_tuple = varargs_holder.ptr();
        bound[next++] = varargs_tuple;
        break;
      }
    }
    bound[next++] = args[i];
  }
  // Keyword arguments.
  bool requires_grad = false;
  if (kwnames) {
    const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      PyObject* value = args[nargs + k];
      const char* name = PyUnicode_AsUTF8(key);
      if (!name) throw py::error_already_set();
      std::string_view kw(name);
      if (sig.factory && kw == "requires_grad") {
        if (!PyBool_Check(value)) return false;
        requires_grad = value == Py_True;
        continue;
      }
      size_t idx = n;
      for (size_t a = 0; a < n; ++a) {
        if (sig.args[a].name == kw || (kw == "input" && sig.args[a].name == "self" && a == 0)) {
          idx = a;
          break;
        }
      }
      if (idx == n || bound[idx]) return false;  // unknown keyword, or given twice
      bound[idx] = value;
    }
  }
  out.stack.clear();
  out.stack.reserve(n);
  for (size_t a = 0; a < n; ++a) {
    const ArgSpec& spec = sig.args[a];
    if (!bound[a]) {
      if (!spec.has_default) return false;
      out.stack.push_back(spec.default_value);
      continue;
    }
    Value v;
    if (!convert_arg(spec, bound[a], loose, v)) return false;
    out.stack.push_back(std::move(v));
  }
  out.sig = &sig;
  out.requires_grad = requires_grad;
  return true;
}

namespace {
std::string type_summary(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames) {
  auto name_of = [](PyObject* o) -> std::string {
    if (is_tensor(o)) return "Tensor";
    if (o == Py_None) return "NoneType";
    if (PyTuple_Check(o) || PyList_Check(o)) {
      std::string r = PyTuple_Check(o) ? "tuple of (" : "list of [";
      py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
      for (size_t i = 0; i < seq.size(); ++i) r += (i ? ", " : "") + std::string(Py_TYPE(seq[i].ptr())->tp_name);
      return r + (PyTuple_Check(o) ? ")" : "]");
    }
    return Py_TYPE(o)->tp_name;
  };
  std::string s = "(";
  bool first = true;
  (void)self;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    s += (first ? "" : ", ") + name_of(args[i]);
    first = false;
  }
  if (kwnames) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
      s += (first ? "" : ", ") + std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k))) + "=" +
           name_of(args[nargs + k]);
      first = false;
    }
  }
  return s + ")";
}
}  // namespace

namespace {
// PyTorch's "plausible" signature: the positional count fits and every keyword is a parameter.
bool plausible(const Signature& sig, bool has_self, Py_ssize_t nargs, PyObject* kwnames) {
  int min_args = 0;
  for (const ArgSpec& a : sig.args) {
    if (a.kwarg_only || a.has_default) break;
    ++min_args;
  }
  const Py_ssize_t given = nargs + (has_self ? 1 : 0);
  if (given < min_args || given > sig.positional) return false;
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k) {
    std::string_view kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    bool known = false;
    for (const ArgSpec& a : sig.args) known = known || a.name == kw || (kw == "input" && a.name == "self");
    if (!known) return false;
  }
  return true;
}

std::string python_type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// With a single plausible signature PyTorch names the first argument that does not convert:
// "mean(): argument 'input' (position 1) must be Tensor, not ScalarTensor". Empty when the
// call does not have that shape (the caller then lists every signature).
std::string first_bad_argument(const std::vector<Signature>& sigs, const std::string& name_,
                               PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames) {
  const Signature* only = nullptr;
  for (const Signature& sig : sigs) {
    if (!plausible(sig, self != nullptr, nargs, kwnames)) continue;
    if (only) return {};
    only = &sig;
  }
  if (!only) return {};
  const size_t first = self ? 1 : 0;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    const ArgSpec& spec = only->args[first + static_cast<size_t>(i)];
    if (spec.kind == ArgKind::IntList) return {};  // varargs forms: no single culprit
    Value v;
    if (convert_arg(spec, args[i], true, v)) continue;
    return name_ + "(): argument '" + (spec.name == "self" ? "input" : spec.name) +
           "' (position " + std::to_string(i + 1) + ") must be " + kind_display(spec.kind) +
           ", not " + python_type_name(args[i]);
  }
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k) {
    std::string_view kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    for (const ArgSpec& spec : only->args) {
      if (spec.name != kw && !(kw == "input" && spec.name == "self")) continue;
      Value v;
      if (spec.kind == ArgKind::IntList || convert_arg(spec, args[nargs + k], true, v)) break;
      return name_ + "(): argument '" + std::string(kw) + "' must be " + kind_display(spec.kind) +
             ", not " + python_type_name(args[nargs + k]);
    }
  }
  return {};
}
}  // namespace

ParsedCall OpSignatures::parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames) const {
  ParsedCall out;
  for (bool loose : {false, true}) {
    for (const Signature& sig : sigs_) {
      if (try_bind(sig, self, args, nargs, kwnames, loose, out)) return out;
    }
  }
  if (std::string bad = first_bad_argument(sigs_, name_, self, args, nargs, kwnames); !bad.empty())
    EMBER_FAIL_KIND(ErrorKind::Type, bad);
  std::string msg = name_ + "() received an invalid combination of arguments - got " +
                    type_summary(self, args, nargs, kwnames) + ", but expected one of:";
  if (sigs_.size() == 1) msg = name_ + "() received an invalid combination of arguments - got " +
                               type_summary(self, args, nargs, kwnames) + ", but expected";
  for (const Signature& sig : sigs_) msg += "\n * " + sig.describe(self != nullptr);
  EMBER_FAIL_KIND(ErrorKind::Type, msg);
}

}  // namespace ember::python
