// Binding Python call arguments to an op's schema: PyTorch's python_arg_parser, driven by the op
// table (src/dispatch/ops.def) instead of generated code.
//
//   OpSignatures sigs({&find_op("aten::add", "Tensor")}, "add");
//   ParsedCall call = sigs.parse(self, args, nargs, kwnames);  // throws TypeError on no match
//   Stack out = call.op->call(call.stack);
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "common.h"
#include "ember/dispatch.h"

namespace ember::python {

enum class ArgKind : uint8_t {
  Tensor, TensorList, OptTensorList, Int, IntList, Float, FloatList, Bool, Scalar, Dtype, Device,
  Layout, MemoryFormat, Generator, Str,
  Object,  // an object of a C++ class ("__torch__.torch.classes.quantized.Conv2dPackedParamsBase")
};

struct ArgSpec {
  std::string name;       // the schema's name ("self" is also accepted as "input")
  ArgKind kind;
  bool optional;          // "T?": None allowed
  bool kwarg_only;
  bool has_default;
  Value default_value;    // boxed default (None for an optional without one)
  int list_size = 0;      // int[2]: a single int is broadcast to this many
  std::string class_name; // Object: the schema's class type
};

struct Signature {
  const OpHandle* op;
  std::vector<ArgSpec> args;
  int positional = 0;     // arguments that may be given positionally
  bool factory = false;   // has dtype/layout/device/pin_memory: accepts requires_grad=
  bool has_out = false;   // the function form takes out= (Note [out= arguments])
  size_t n_returns = 1;
  size_t self_index = 0;  // where a method's tensor goes (`self`); args.size() when none fits
  // A deprecated PyTorch spelling (Note [Deprecated signatures]): args reordered; the bound
  // stack is put back in schema order through `schema_index` (args[i] is schema argument
  // schema_index[i]). `replacement` indexes the signature it stands for.
  bool deprecated = false;
  mutable bool warned = false;  // PyTorch warns once (under the GIL)
  std::vector<size_t> schema_index;
  size_t replacement = 0;
  std::string describe(bool method) const;  // "(Tensor input, Tensor other, *, Number alpha)"
};

struct ParsedCall {
  const Signature* sig = nullptr;
  Stack stack;
  bool requires_grad = false;  // a factory's requires_grad=True
  PyObject* out = nullptr;     // borrowed: the out= argument (a Tensor or a sequence of them)
};

/// How a Python number reaches a Tensor parameter: never (exact pass) or as a wrapped number.
class OpSignatures {
 public:
  OpSignatures(std::vector<const OpHandle*> ops, std::string python_name);
  /// `self` (a method's bound tensor) or nullptr; `args`/`nargs`/`kwnames` as in vectorcall.
  ParsedCall parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const;
  const std::string& python_name() const { return name_; }
  const std::vector<Signature>& signatures() const { return sigs_; }

 private:
  bool try_bind(const Signature& sig, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                PyObject* kwnames, bool loose, ParsedCall& out) const;
  std::vector<Signature> sigs_;
  std::string name_;
};

/// A deprecated PyTorch spelling (Note [Deprecated signatures] in arg_parser.cpp).
struct DeprecatedSpelling {
  const char* python_name;
  const char* op;        // the schema it stands for
  const char* overload;
  std::vector<const char*> positional;  // schema argument names in the deprecated order
};
const std::vector<DeprecatedSpelling>& deprecated_spellings();  // signature_tables.cpp
/// Overloads ("add.Tensor") whose PyTorch Python function form takes out= (signature_tables.cpp).
const std::unordered_set<std::string>& out_overloads();

/// Whether keyword `kw` names parameter `spec` (position `index`): its name, `input` for the
/// first `self`, and the numpy spellings PyTorch accepts (axis, keepdims, x / a / x1, x2).
bool keyword_matches(const ArgSpec& spec, size_t index, std::string_view kw);

/// Converts one Python object for a parameter; false when it does not fit.
bool convert_arg(const ArgSpec& spec, PyObject* obj, bool loose, Value& out);

}  // namespace ember::python
