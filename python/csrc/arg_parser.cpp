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
//
// Note [out= arguments]
// PyTorch's function forms (not the methods) of most ops take `out=`: a tensor (a tuple of them
// for several results) that receives the result. ember binds `out` for the overloads whose
// PyTorch Python signature has it (out_overloads() in signature_tables.cpp; the stub-driven
// tests/python/binding/test_signatures.py calls each with out=), runs the functional op and
// writes the result into `out` with ember::write_out (dtype check, resize with PyTorch's
// warning, copy); the call returns the very `out` object(s). As in PyTorch, out= refuses inputs that require grad while grad
// mode is on, and a factory without dtype= takes out's dtype.
//
// Note [Deprecated signatures]
// PyTorch 1.13 still binds a few older spellings that put a scalar before the tensors
// (`torch.add(x, 2, y)` for x + 2 * y, `torch.addmm(beta, M, alpha, a, b)`), warning once that
// they are deprecated (its deprecated.yaml). ember binds the same ones, after every other
// signature, with the same warning; they are left out of the "expected one of" listings.
#include "arg_parser.h"

#include <algorithm>
#include <unordered_set>

#include "ember/warning.h"

#include "dispatch/schema.h"
#include "ember/ops/factory.h"
#include "tensor_api.h"

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
  if (type.starts_with("bool[")) {  // output_mask of the backward ops: boxed as 0/1 ints
    auto open = type.find('[');
    list_size = type[open + 1] == ']' ? 0 : std::atoi(type.c_str() + open + 1);
    return ArgKind::BoolList;
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
  if (type.starts_with("__torch__.")) return ArgKind::Object;
  EMBER_FAIL("ember._C: no Python binding for schema type '", type_with_alias, "'");
}

const char* kind_display(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::TensorList: return "tuple of Tensors";
    case ArgKind::OptTensorList: return "tuple of Tensors";
    case ArgKind::Int: return "int";
    case ArgKind::IntList: return "tuple of ints";
    case ArgKind::BoolList: return "tuple of bools";
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
    case ArgKind::Object: return "ScriptObject";
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
  if (PyComplex_Check(obj)) {  // Python and numpy complex numbers
    const Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    out = Scalar(std::complex<double>(c.real, c.imag));
    return true;
  }
  if (is_tensor(obj)) {  // a 0-d tensor as a Number (PyTorch refuses other shapes)
    const Tensor& t = unpack(obj);
    if (t.dim() == 0 && t.is_cpu() && !t.is_quantized()) {
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

bool keyword_matches(const ArgSpec& spec, size_t /*index*/, std::string_view kw) {
  // The schema's `self` is `input` in Python (never `self=`), wherever it stands (where.self).
  if (spec.name == "self") return kw == "input" || kw == "x" || kw == "a" || kw == "x1";
  if (spec.name == kw) return true;
  if (spec.name == "dim") return kw == "axis";
  if (spec.name == "keepdim") return kw == "keepdims";
  if (spec.name == "other") return kw == "x2";
  return false;
}

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
    case ArgKind::BoolList: {
      // A sequence of bools (ints are taken by truth, as PyTorch's ops accept them), of the
      // schema's length when it gives one; C++ sees 0/1 ints.
      if (!is_sequence(obj) || PyUnicode_Check(obj)) return false;
      py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
      EMBER_CHECK(spec.list_size == 0 || seq.size() == static_cast<size_t>(spec.list_size),
                  "Tried to convert a List with ", seq.size(), " elements to a fixed-size array of size ",
                  spec.list_size);
      std::vector<int64_t> list;
      list.reserve(seq.size());
      for (auto item : seq) {
        int64_t v;
        if (PyBool_Check(item.ptr())) list.push_back(item.ptr() == Py_True ? 1 : 0);
        else if (get_int(item.ptr(), v)) list.push_back(v != 0 ? 1 : 0);
        else return false;
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
    case ArgKind::Object: {
      if (!is_script_object(obj)) return false;
      intrusive_ptr<CustomClassHolder> o = unpack_object(obj);
      // An object of another class binds no signature; the op itself would name both classes.
      if (spec.class_name != o->class_name()) return false;
      out = Value(std::move(o));
      return true;
    }
  }
  return false;
}

std::string Signature::describe(bool method) const {
  std::string s = "(";
  bool star = false;
  bool first = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& a = args[i];
    if (method && a.name == "self") continue;
    if (a.kwarg_only && !star) {
      s += first ? "*" : ", *";
      star = true;
      first = false;
    }
    if (!first) s += ", ";
    first = false;
    s += a.kind == ArgKind::Object ? a.class_name : std::string(kind_display(a.kind));
    if (a.optional && a.kind != ArgKind::Tensor) s += "?";
    s += " " + (a.name == "self" ? std::string("input") : a.name);
  }
  if (has_out && !method) {
    s += star ? ", " : (first ? "*, " : ", *, ");
    s += n_returns == 1 ? "Tensor out" : "tuple of Tensors out";
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
      if (spec.kind == ArgKind::Object) spec.class_name = a.type.substr(0, a.type.find('?'));
      spec.optional = a.type.find('?') != std::string::npos;
      spec.kwarg_only = a.kwarg_only;
      spec.has_default = a.default_value.has_value();
      if (spec.has_default) spec.default_value = dispatch::default_value(a.type, *a.default_value);
      if (!spec.kwarg_only) ++sig.positional;
      if (spec.kind == ArgKind::Layout) sig.factory = true;
      sig.args.push_back(std::move(spec));
    }
    std::string key = op->name().substr(op->name().find("::") + 2) + "." + op->overload();
    sig.has_out = out_overloads().count(key) > 0;
    sig.n_returns = op->returns().size();
    const size_t n = sig.args.size();
    sig.self_index = n;
    for (size_t a = 0; a < n && sig.self_index == n; ++a)
      if (sig.args[a].name == "self" && sig.args[a].kind == ArgKind::Tensor) sig.self_index = a;
    if (sig.self_index == n && n > 0 && sig.args[0].kind == ArgKind::Tensor) sig.self_index = 0;
    sigs_.push_back(std::move(sig));
  }
  // Note [Deprecated signatures]: after the table's, so they bind only what nothing else does.
  const size_t primary = sigs_.size();
  for (const DeprecatedSpelling& d : deprecated_spellings()) {
    if (name_ != d.python_name) continue;
    size_t target_index = primary;
    for (size_t k = 0; k < primary; ++k)
      if (sigs_[k].op->name() == d.op && sigs_[k].op->overload() == d.overload) target_index = k;
    if (target_index == primary) continue;
    const Signature* target = &sigs_[target_index];
    Signature dep;
    dep.op = target->op;
    dep.has_out = target->has_out;
    dep.n_returns = target->n_returns;
    dep.deprecated = true;
    for (const char* pname : d.positional) {
      for (size_t a = 0; a < target->args.size(); ++a) {
        if (target->args[a].name != pname) continue;
        ArgSpec spec = target->args[a];
        spec.kwarg_only = false;
        spec.has_default = false;
        dep.args.push_back(spec);
        dep.schema_index.push_back(a);
      }
    }
    dep.positional = static_cast<int>(dep.args.size());
    for (size_t a = 0; a < target->args.size(); ++a) {  // the rest keep their defaults
      if (std::find(dep.schema_index.begin(), dep.schema_index.end(), a) != dep.schema_index.end())
        continue;
      ArgSpec spec = target->args[a];
      spec.kwarg_only = true;
      dep.args.push_back(spec);
      dep.schema_index.push_back(a);
    }
    dep.replacement = target_index;
    dep.self_index = dep.args.size();
    if (!dep.args.empty() && dep.args[0].kind == ArgKind::Tensor) dep.self_index = 0;
    sigs_.push_back(std::move(dep));
  }
}

bool OpSignatures::try_bind(const Signature& sig, PyObject* self, PyObject* const* args,
                            Py_ssize_t nargs, PyObject* kwnames, bool loose,
                            ParsedCall& out) const {
  const size_t n = sig.args.size();
  std::vector<PyObject*> bound(n, nullptr);
  size_t next = 0;
  // A method's tensor fills the schema's `self`: first, or later as in where.self(condition,
  // self, other), whose method form is `x.where(condition, other)`.
  size_t self_slot = n;
  if (self) {
    self_slot = sig.self_index;
    if (self_slot >= n) return false;
    bound[self_slot] = self;
    if (self_slot == 0) ++next;
  }
  // Positional arguments; an int[] parameter swallows trailing ints (varargs form) when it is
  // the only positional parameter, as PyTorch's max_pos_args == 1 (not conv2d's stride).
  size_t positional_params = 0;
  for (size_t a = self ? 1 : 0; a < n; ++a) positional_params += sig.args[a].kwarg_only ? 0 : 1;
  PyObject* varargs_tuple = nullptr;
  py::object varargs_holder;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (next == self_slot) ++next;
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
  PyObject* out_obj = nullptr;
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
      if (kw == "out" && sig.has_out && !self) {
        if (out_obj) return false;
        if (value != Py_None) {
          if (sig.n_returns == 1 ? !is_tensor(value) : !is_sequence(value)) return false;
          out_obj = value;
        }
        continue;
      }
      size_t idx = n;
      for (size_t a = 0; a < n; ++a) {
        // `self=` names a Number in PyTorch's Scalar-first overloads (pow(self=2, exponent=t));
        // ember binds those through the Tensor overload's wrapped-number pass.
        if (keyword_matches(sig.args[a], a, kw) ||
            (loose && kw == "self" && sig.args[a].name == "self" && !is_tensor(value))) {
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
    if (spec.kind == ArgKind::IntList && is_sequence(bound[a])) {
      // As PyTorch: a list whose first element is an int matches; a later non-int is an error.
      py::sequence seq = py::reinterpret_borrow<py::sequence>(bound[a]);
      int64_t v0;
      if (seq.size() > 1 && get_int(seq[0].ptr(), v0)) {
        for (size_t j = 1; j < seq.size(); ++j) {
          if (get_int(seq[j].ptr(), v0)) continue;
          EMBER_FAIL_KIND(ErrorKind::Type, name_, "(): argument '", spec.name == "self" ? "input" : spec.name,
                          "' must be tuple of ints, but found element of type ",
                          Py_TYPE(seq[j].ptr())->tp_name, " at pos ", j + 1);
        }
      }
    }
    Value v;
    if (!convert_arg(spec, bound[a], loose, v)) return false;
    if (spec.name == "pin_memory" && bound[a] == Py_True) refuse_pinned_memory();
    out.stack.push_back(std::move(v));
  }
  if (out_obj && sig.factory) {  // a factory without dtype= makes out's dtype
    for (size_t a = 0; a < n; ++a) {
      if (sig.args[a].kind == ArgKind::Dtype && out.stack[a].is_none())
        out.stack[a] = Value(unpack(out_obj).dtype());
    }
  }
  if (sig.deprecated) {  // back to schema order
    Stack ordered(n);
    for (size_t a = 0; a < n; ++a) ordered[sig.schema_index[a]] = std::move(out.stack[a]);
    out.stack = std::move(ordered);
  }
  out.sig = &sig;
  out.requires_grad = requires_grad;
  out.out = out_obj;
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
  // PyTorch sorts the keywords and, with no positional argument, leaves a trailing ", ".
  std::vector<std::string> kws;
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k)
    kws.push_back(std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k))) + "=" +
                  name_of(args[nargs + k]));
  std::sort(kws.begin(), kws.end());
  for (const std::string& kw : kws) {
    s += (first ? "" : ", ") + kw;
    first = false;
  }
  if (nargs == 0 && !kws.empty()) s += ", ";
  return s + ")";
}
}  // namespace

namespace {
// PyTorch's "plausible" signatures: the number of arguments given (positional and keyword) lies
// between the signature's required and total parameter counts.
bool plausible(const Signature& sig, bool has_self, Py_ssize_t nargs, PyObject* kwnames) {
  size_t min_args = 0, max_args = sig.args.size();
  for (const ArgSpec& a : sig.args) min_args += a.has_default ? 0 : 1;
  if (sig.has_out && !has_self) ++max_args;
  if (sig.factory) ++max_args;  // requires_grad
  const size_t given = static_cast<size_t>(nargs) + (has_self ? 1 : 0) +
                       (kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0);
  return given >= min_args && given <= max_args;
}

std::string python_type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

std::string param_name(const ArgSpec& spec) { return spec.name == "self" ? "input" : spec.name; }

// With a single plausible signature PyTorch names what is wrong with the call, in its words:
// "mean(): argument 'input' (position 1) must be Tensor, not ScalarTensor", "got an unexpected
// keyword argument", "missing required argument", "takes N positional arguments". Empty when
// the call does not have that shape (the caller then lists every signature).
std::string first_bad_argument(const std::vector<Signature>& sigs, const std::string& name_,
                               PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames) {
  // A name with one signature always explains; otherwise only a single plausible one does.
  const Signature* only = sigs.size() == 1 ? &sigs[0] : nullptr;
  for (size_t k = 0; k < sigs.size() && sigs.size() > 1; ++k) {
    const Signature& sig = sigs[k];
    if (sig.deprecated || !plausible(sig, self != nullptr, nargs, kwnames)) continue;
    if (only) return {};
    only = &sig;
  }
  if (!only) return {};
  const size_t first = self ? 1 : 0;
  const size_t positional = static_cast<size_t>(only->positional) - first;
  std::vector<bool> given(only->args.size(), false);
  for (size_t i = 0; i < first; ++i) given[i] = true;
  if (static_cast<size_t>(nargs) > positional) {
    bool varargs = false;
    for (size_t a = first; a < only->args.size(); ++a)
      varargs = varargs || (!only->args[a].kwarg_only && only->args[a].kind == ArgKind::IntList);
    if (varargs) return {};
    size_t min_args = 0;
    for (size_t a = first; a < only->args.size(); ++a) min_args += only->args[a].has_default ? 0 : 1;
    if (min_args != positional)
      return name_ + "() takes from " + std::to_string(min_args) + " to " + std::to_string(positional) +
             " positional arguments but " + std::to_string(nargs) + " were given";
    return name_ + "() takes " + std::to_string(positional) + " positional argument" +
           (positional == 1 ? "" : "s") + " but " + std::to_string(nargs) + " " +
           (nargs == 1 ? "was" : "were") + " given";
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    const ArgSpec& spec = only->args[first + static_cast<size_t>(i)];
    given[first + static_cast<size_t>(i)] = true;
    if (spec.kind == ArgKind::IntList) return {};  // varargs forms: no single culprit
    Value v;
    if (convert_arg(spec, args[i], true, v)) continue;
    return name_ + "(): argument '" + param_name(spec) + "' (position " + std::to_string(i + 1) +
           ") must be " + kind_display(spec.kind) + ", not " + python_type_name(args[i]);
  }
  for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k) {
    std::string_view kw = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if ((kw == "out" && only->has_out && !self) || (kw == "requires_grad" && only->factory)) continue;
    size_t idx = only->args.size();
    for (size_t a = 0; a < only->args.size(); ++a)
      if (keyword_matches(only->args[a], a, kw)) idx = a;
    if (idx == only->args.size())
      return name_ + "() got an unexpected keyword argument '" + std::string(kw) + "'";
    const ArgSpec& spec = only->args[idx];
    if (given[idx]) return name_ + "() got multiple values for argument '" + param_name(spec) + "'";
    given[idx] = true;
    Value v;
    if (spec.kind == ArgKind::IntList || convert_arg(spec, args[nargs + k], true, v)) continue;
    return name_ + "(): argument '" + std::string(kw) + "' must be " + kind_display(spec.kind) +
           ", not " + python_type_name(args[nargs + k]);
  }
  // PyTorch's text, its plural included ("missing 1 required positional arguments: \"k\"").
  for (size_t a = 0; a < only->args.size(); ++a) {
    if (given[a] || only->args[a].has_default) continue;
    int missing = 0;
    std::string names;
    for (size_t b = a; b < only->args.size(); ++b) {
      if (only->args[b].has_default) continue;
      names += (missing ? ", \"" : "\"") + param_name(only->args[b]) + "\"";
      ++missing;
    }
    return name_ + "() missing " + std::to_string(missing) + " required positional argument" +
           (missing == 1 ? "s" : "") + ": " + names;
  }
  return {};
}
}  // namespace

ParsedCall OpSignatures::parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                               PyObject* kwnames) const {
  ParsedCall out;
  for (bool loose : {false, true}) {
    for (const Signature& sig : sigs_) {
      if (!try_bind(sig, self, args, nargs, kwnames, loose, out)) continue;
      if (sig.deprecated && !sig.warned) {
        sig.warned = true;
        warn("This overload of " + name_ + " is deprecated:\n\t" + name_ + sig.describe(self != nullptr) +
             "\nConsider using one of the following signatures instead:\n\t" + name_ +
             sigs_[sig.replacement].describe(self != nullptr));
      }
      return out;
    }
  }
  if (std::string bad = first_bad_argument(sigs_, name_, self, args, nargs, kwnames); !bad.empty())
    EMBER_FAIL_KIND(ErrorKind::Type, bad);
  std::string msg = name_ + "() received an invalid combination of arguments - got " +
                    type_summary(self, args, nargs, kwnames) + ", but expected one of:";
  if (std::count_if(sigs_.begin(), sigs_.end(), [](const Signature& g) { return !g.deprecated; }) == 1) {
    msg = name_ + "() received an invalid combination of arguments - got " +
          type_summary(self, args, nargs, kwnames) + ", but expected " + sigs_[0].describe(self != nullptr);
  } else {
    for (const Signature& sig : sigs_)
      if (!sig.deprecated) msg += "\n * " + sig.describe(self != nullptr);
  }
  EMBER_FAIL_KIND(ErrorKind::Type, msg);
}

}  // namespace ember::python
