// The public face of the dispatcher: op handles, boxed calls, tensor subclasses with override
// hooks, modes, and the guards that switch layers off.
//
//   const ember::OpHandle& op = ember::find_op("aten::add", "Tensor");
//   ember::Stack out = op.call({a, b});     // boxed call, alpha's default filled in
//
//   struct Logged : ember::TensorSubclass {           // a C++ tensor subclass
//     std::string name() const override { return "Logged"; }
//     bool has_torch_dispatch() const override { return true; }
//     std::optional<ember::Stack> torch_dispatch(const ember::OpHandle& op,
//                                                const ember::Stack& args) override;
//   };
//   ember::set_subclass(t, ember::make_intrusive<Logged>());   // t's ops now reach the hook
//
// How a call moves through the layers: Note [Dispatch layers] in src/dispatch/dispatcher.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ember/grad_mode.h"
#include "ember/intrusive_ptr.h"
#include "ember/value.h"

namespace ember {

/// One parsed argument of an op's schema.
struct SchemaArg {
  std::string name;
  std::string type;                   // as written: "Tensor", "int[]", "Scalar?", "Tensor(a!)" ...
  std::optional<std::string> default_value;  // as written in the schema, e.g. "1", "None", "[]"
  bool kwarg_only = false;
  bool is_mutable = false;            // (a!) alias annotation: written in place
};

/// A row of the op table: "aten::add.Tensor" and its schema. Stable address for the process.
class OpHandle {
 public:
  int id() const { return id_; }
  /// "aten::add" — PyTorch's OpOverload.name().
  const std::string& name() const { return name_; }
  /// "Tensor" ("default" when the schema has no overload), as OpOverload._overloadname.
  const std::string& overload() const { return overload_; }
  /// "aten::add.Tensor" (or "aten::detach").
  const std::string& full_name() const { return full_name_; }
  const std::string& schema() const { return schema_; }
  const std::vector<SchemaArg>& arguments() const { return args_; }
  const std::vector<SchemaArg>& returns() const { return returns_; }
  /// Decomposes into other ops (seen only by the function-override layer).
  bool is_composite() const { return composite_; }
  /// Writes its first argument in place (add_, copy_, ...).
  bool is_inplace() const;

  /// Call through the full dispatcher with boxed arguments (positional, in schema order); missing
  /// trailing arguments take the schema's defaults. Throws if the op has no boxed entry or an
  /// argument has the wrong type. Inside a handler this re-enters the dispatcher, as `func(*args)`
  /// does in PyTorch: a mode is popped while its handler runs, so the call reaches what is below.
  Stack call(const Stack& args) const;
  /// Call the op below the layer whose handler is running: from torch_function, the op without
  /// the function layer (autograd and torch_dispatch still run); from torch_dispatch, the backend.
  /// Outside any handler: the backend. A wrapper tensor (make_wrapper_tensor) among the arguments
  /// cannot reach the backend: unwrap it first.
  Stack redispatch(const Stack& args) const;

 private:
  friend struct OpRegistryAccess;
  int id_ = -1;
  std::string name_, overload_, full_name_, schema_;
  std::vector<SchemaArg> args_, returns_;
  bool composite_ = false;
};

/// Every op of the table, in table order.
std::span<const OpHandle> all_ops();
/// Lookup by "aten::add" + "Tensor" (overload "" or "default" for the default one). Throws
/// (KeyError) naming the op when it does not exist.
const OpHandle& find_op(const std::string& name, const std::string& overload = "default");
/// The overload names of "aten::add", in table order (empty when there is no such op).
std::vector<std::string> op_overloads(const std::string& name);

/// Hooks a tensor subclass provides. Attach one to a tensor with set_subclass(); a wrapper
/// subclass keeps its payload (e.g. an inner tensor) in its own fields, so each tensor gets its
/// own hooks object. Returning std::nullopt means NotImplemented: the next handler (or the error)
/// follows. Handlers receive the op's arguments boxed, positionally in schema order (defaults
/// filled), and return its results boxed; in-place ops return their mutated first argument.
class TensorSubclass : public intrusive_target {
 public:
  TensorSubclass() = default;
  // A copy of a wrapper's hooks belongs to no tensor yet.
  TensorSubclass(const TensorSubclass& o) : intrusive_target(o) {}
  TensorSubclass& operator=(const TensorSubclass&) { return *this; }

  /// The class name used in error messages ("MyQuantizedLinearWeight").
  virtual std::string name() const = 0;
  virtual bool has_torch_function() const { return false; }
  virtual bool has_torch_dispatch() const { return false; }
  /// Layer 1: the public op, before autograd. Composite ops (linear) are seen here.
  virtual std::optional<Stack> torch_function(const OpHandle& op, const Stack& args);
  /// Layer 3: the primitive op, below autograd, boxed.
  virtual std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args);
  /// Identifies the subclass type: the overloaded arguments of a call hold the first tensor of
  /// each distinct key, so a handler runs once per type. Default: the C++ dynamic type.
  virtual const void* type_key() const;
  /// Whether these hooks belong to a wrapper tensor (make_wrapper_tensor): metadata, no data.
  bool is_wrapper() const { return wrapper_; }

 private:
  friend Tensor make_wrapper_tensor(IntArrayRef, IntArrayRef, ScalarType, Device,
                                    intrusive_ptr<TensorSubclass>);
  friend void set_subclass(const Tensor&, intrusive_ptr<TensorSubclass>);
  bool wrapper_ = false;
};

/// Attach (or with nullptr detach) subclass hooks to a tensor; refreshes its dispatch keys.
/// A wrapper tensor keeps needing torch_dispatch: detaching its hooks is an error.
void set_subclass(const Tensor& t, intrusive_ptr<TensorSubclass> s);

/// A tensor with metadata and no data (`Tensor._make_wrapper_subclass`): the given sizes,
/// strides (empty: contiguous), dtype and device, over a data-less storage of the byte size they
/// span, carrying `hooks`, which must have torch_dispatch (else TypeError "<name> must define
/// __torch_dispatch__"). Its payload (e.g. an inner `elem` tensor) lives in the hooks object.
/// Every primitive op on it reaches hooks->torch_dispatch; data_ptr() is nullptr, and the
/// dispatcher refuses to run a backend kernel on it (redispatching a wrapper is an error), so no
/// kernel ever reads its missing data. See Note [Wrapper tensors] in src/dispatch/subclass.cpp.
Tensor make_wrapper_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                           intrusive_ptr<TensorSubclass> hooks);

/// A mode sees every op of its layer while it is on the thread's stack (TorchFunctionMode /
/// TorchDispatchMode). During its own handler the mode is popped, as in PyTorch.
class FunctionMode : public intrusive_target {
 public:
  virtual std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) = 0;
};
class DispatchMode : public intrusive_target {
 public:
  virtual std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) = 0;
};

/// Scoped push of a mode onto the thread's stack (innermost mode runs first). Guards must end in
/// the reverse order of their creation.
class FunctionModeGuard {
 public:
  explicit FunctionModeGuard(intrusive_ptr<FunctionMode> m);
  ~FunctionModeGuard();
  FunctionModeGuard(const FunctionModeGuard&) = delete;
  FunctionModeGuard& operator=(const FunctionModeGuard&) = delete;

 private:
  FunctionMode* mode_;
};
class DispatchModeGuard {
 public:
  explicit DispatchModeGuard(intrusive_ptr<DispatchMode> m);
  ~DispatchModeGuard();
  DispatchModeGuard(const DispatchModeGuard&) = delete;
  DispatchModeGuard& operator=(const DispatchModeGuard&) = delete;

 private:
  DispatchMode* mode_;
};

/// While alive, subclasses' torch_function hooks are skipped (modes still run):
/// `torch._C.DisableTorchFunctionSubclass`.
class DisableTorchFunctionSubclass {
 public:
  DisableTorchFunctionSubclass();
  ~DisableTorchFunctionSubclass();
  DisableTorchFunctionSubclass(const DisableTorchFunctionSubclass&) = delete;
  DisableTorchFunctionSubclass& operator=(const DisableTorchFunctionSubclass&) = delete;

 private:
  bool prev_;
};
/// While alive, the whole function-override layer (subclasses and modes) is skipped:
/// `torch._C.DisableTorchFunction`.
class DisableTorchFunction {
 public:
  DisableTorchFunction();
  ~DisableTorchFunction();
  DisableTorchFunction(const DisableTorchFunction&) = delete;
  DisableTorchFunction& operator=(const DisableTorchFunction&) = delete;

 private:
  uint16_t prev_;
};

}  // namespace ember
