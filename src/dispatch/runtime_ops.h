// The run-time part of the op table (internal): ops defined by ember::Library / ember.library
// after the rows of ops.def, their boxed kernels per key, and their call path.
// Note [Run-time operators] in library.cpp.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dispatcher.h"
#include "ember/library.h"
#include "schema.h"

namespace ember {

// Builds OpHandles (a friend of OpHandle): the rows of ops.def and the run-time ops.
struct OpRegistryAccess {
  static OpHandle make(int id, const std::string& schema, bool composite) {
    OpHandle h;
    h.id_ = id;
    h.schema_ = schema;
    h.composite_ = composite;
    ParsedSchema p = dispatch::parse_schema(schema);
    h.name_ = p.name;
    h.overload_ = p.overload.empty() ? "default" : p.overload;
    h.full_name_ = p.overload.empty() ? p.name : p.name + "." + p.overload;
    h.args_ = std::move(p.arguments);
    h.returns_ = std::move(p.returns);
    return h;
  }
  /// An op that is named (kernels may be registered for it) but not defined yet.
  static OpHandle make_undefined(int id, const std::string& name, const std::string& overload) {
    OpHandle h;
    h.id_ = id;
    h.name_ = name;
    h.overload_ = overload;
    h.full_name_ = overload == "default" ? name : name + "." + overload;
    return h;
  }
};

namespace dispatch {

struct RuntimeKernel {
  CppFunction::Boxed fn;
  bool fallthrough = false;
  std::string where;  // "file:line" of the registering block
  uint64_t owner = 0;
};
using KernelPtr = std::shared_ptr<const RuntimeKernel>;

/// One run-time op. Its address and id are fixed for the process; a def removed with its
/// Library leaves the slot (undefined), and a later def of the same name reuses it.
struct RuntimeOp {
  OpHandle handle;
  bool defined = false;
  uint64_t def_owner = 0;
  std::string def_where;
  std::array<std::vector<KernelPtr>, static_cast<size_t>(LibraryKey::NumKeys)> kernels;  // latest last
  bool bump_mutated_versions = false;  // custom_op's ADInplaceOrView kernel
};

/// The kernels a call uses, read under the registry's lock.
struct KernelSnapshot {
  bool defined = false;
  std::array<KernelPtr, static_cast<size_t>(LibraryKey::NumKeys)> at;
  bool autograd_fallthrough_fallback = false;
  bool bump_mutated_versions = false;
  const KernelPtr& operator[](LibraryKey k) const { return at[static_cast<size_t>(k)]; }
};

inline bool is_runtime_op(int id) { return id >= kNumOps; }
const OpHandle& runtime_handle(int id);
KernelSnapshot runtime_kernels(int id);
/// A defined run-time op by name, or null.
const OpHandle* find_runtime_op(const std::string& name, const std::string& overload);
/// The defined run-time overloads of "myns::foo", in definition order.
std::vector<const OpHandle*> runtime_overloads(const std::string& name);
/// The defined run-time ops of namespace `ns` (all namespaces when empty).
std::vector<const OpHandle*> runtime_ops_in(const std::string& ns);
/// Any op (built-in or run-time) by name, or null.
const OpHandle* find_op_or_null(const std::string& name, const std::string& overload);
/// Bumps mutated arguments' versions after each call (torch.library.custom_op does).
void set_bump_mutated_versions(const OpHandle& op, bool on);
/// What torch._C._dispatch_dump prints for "myns::foo" / "myns::foo.overload".
std::string dump_runtime_op(const std::string& full_name);
bool runtime_has_kernel(const std::string& full_name, LibraryKey key);

/// The boxed call of a run-time op through the layers (arguments complete).
Stack call_runtime_op(const OpHandle& op, const Stack& args);

}  // namespace dispatch
}  // namespace ember
