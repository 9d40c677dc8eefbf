// Binding Python call arguments to an op's schema: PyTorch's python_arg_parser, driven by the op
// table (src/dispatch/ops.def) instead of generated code.
//
//   OpSignatures sigs({&find_op("aten::add", "Tensor")}, "add");
//   ParsedCall call = sigs.parse(self, args, nargs, kwnames);  // throws TypeError on no match
//   Stack out = call.op->call(call.stack);
#pragma once

#include <string>
#include <vector>

#include "common.h"
#include "ember/dispatch.h"

namespace ember::python {

enum class ArgKind : uint8_t {
  Tensor, TensorList, OptTensorList, Int, IntList, Float, FloatList, Bool, Scalar, Dtype, Device,
  Layout, MemoryFormat, Generator, Str,
};

struct ArgSpec {
  std::string name;       // the schema's name ("self" is also accepted as "input")
  ArgKind kind;
  bool optional;          // "T?": None allowed
  bool kwarg_only;
  bool has_default;
  Value default_value;    // boxed default (None for an optional without one)
  int list_size = 0;      // int[2]: a single int is broadcast to this many
};

struct Signature {
  const OpHandle* op;
  std::vector<ArgSpec> args;
  int positional = 0;     // arguments that may be given positionally
  bool factory = false;   // has dtype/layout/device/pin_memory: accepts requires_grad=
  std::string describe(bool method) const;  // "(Tensor input, Tensor other, *, Number alpha)"
};

struct ParsedCall {
  const Signature* sig = nullptr;
  Stack stack;
  bool requires_grad = false;  // a factory's requires_grad=True
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

/// Converts one Python object for a parameter; false when it does not fit.
bool convert_arg(const ArgSpec& spec, PyObject* obj, bool loose, Value& out);

}  // namespace ember::python
