// The op registry: one OpHandle per row of ops.def, with its schema parsed once at start-up.
#include <array>
#include <map>
#include <mutex>

#include "boxing.h"
#include "dispatcher.h"
#include "runtime_ops.h"
#include "schema.h"

namespace ember {

namespace dispatch {

namespace {
enum Kind { Primitive, Composite };

const std::vector<OpHandle>& registry() {
  static const std::vector<OpHandle> ops = [] {
    std::vector<OpHandle> v;
    v.reserve(kNumOps);
#define EMBER_OP(id, kind, schema) \
  v.push_back(OpRegistryAccess::make(static_cast<int>(OpId::id), schema,                   \
                                     kind == Composite));
#include "ops.def"
    return v;
  }();
  return ops;
}

struct BoxedEntry {
  BoxedFn fn = nullptr;
  int arity = -1;
};
std::array<BoxedEntry, kNumOps>& boxed_table() {
  static std::array<BoxedEntry, kNumOps> t{};
  return t;
}
}  // namespace

const OpHandle& op_handle(OpId id) {
  const int i = static_cast<int>(id);
  return is_runtime_op(i) ? runtime_handle(i) : registry()[static_cast<size_t>(i)];
}

bool register_boxed(OpId id, BoxedFn fn, int arity) {
  auto& entry = boxed_table()[static_cast<size_t>(id)];
  EMBER_ASSERT(entry.fn == nullptr, "boxed kernel registered twice for ",
               op_handle(id).full_name());
  entry = {fn, arity};
  return true;
}

// Run-time ops (ids from kNumOps on) have no typed frontend: no boxed entry, no slots; their
// kernels live in their RuntimeOp (Note [Run-time operators] in library.cpp).
BoxedFn boxed_fn(OpId id) {
  return is_runtime_op(static_cast<int>(id)) ? nullptr : boxed_table()[static_cast<size_t>(id)].fn;
}
int boxed_arity(OpId id) {
  return is_runtime_op(static_cast<int>(id)) ? -1 : boxed_table()[static_cast<size_t>(id)].arity;
}

void check_boxed_arity(const Stack& args, size_t arity) {
  EMBER_ASSERT(args.size() == arity, "boxed call with ", args.size(), " arguments for ", arity,
               " parameters");
}

TypedSlot& autograd_slot(OpId op) {
  EMBER_ASSERT(!is_runtime_op(static_cast<int>(op)), "autograd_slot of a run-time op");
  static std::array<TypedSlot, kNumOps> t{};
  return t[static_cast<size_t>(op)];
}

TypedSlot& quantized_slot(OpId op) {
  EMBER_ASSERT(!is_runtime_op(static_cast<int>(op)), "quantized_slot of a run-time op");
  static std::array<TypedSlot, kNumOps> t{};
  return t[static_cast<size_t>(op)];
}

}  // namespace dispatch

std::span<const OpHandle> all_ops() { return dispatch::registry(); }

namespace {
const std::map<std::pair<std::string, std::string>, const OpHandle*>& static_index() {
  static const std::map<std::pair<std::string, std::string>, const OpHandle*> index = [] {
    std::map<std::pair<std::string, std::string>, const OpHandle*> m;
    for (const auto& op : dispatch::registry()) m[{op.name(), op.overload()}] = &op;
    return m;
  }();
  return index;
}
}  // namespace

const OpHandle* dispatch::find_op_or_null(const std::string& name, const std::string& overload) {
  const std::string& ov = overload.empty() ? std::string("default") : overload;
  auto it = static_index().find({name, ov});
  if (it != static_index().end()) return it->second;
  return find_runtime_op(name, ov);
}

const OpHandle& find_op(const std::string& name, const std::string& overload) {
  const OpHandle* op = dispatch::find_op_or_null(name, overload);
  const std::string& ov = overload.empty() ? std::string("default") : overload;
  EMBER_CHECK_KIND(ErrorKind::Key, op != nullptr, "no op named '", name,
                   ov == "default" ? "" : "." + ov, "' in ember's op table");
  return *op;
}

std::vector<std::string> op_overloads(const std::string& name) {
  std::vector<std::string> r;
  for (const auto& op : dispatch::registry())
    if (op.name() == name) r.push_back(op.overload());
  for (const OpHandle* op : dispatch::runtime_overloads(name)) r.push_back(op->overload());
  return r;
}

bool OpHandle::is_inplace() const { return !args_.empty() && args_[0].is_mutable; }

Stack OpHandle::call(const Stack& args) const {
  if (dispatch::is_runtime_op(id_)) return dispatch::call_runtime_op(*this, dispatch::fill_defaults(*this, args));
  auto fn = dispatch::boxed_fn(static_cast<dispatch::OpId>(id_));
  EMBER_CHECK_NOT_IMPLEMENTED(fn != nullptr, "op ", full_name_,
                              " has no boxed entry (it cannot be called by name)");
  return fn(dispatch::fill_defaults(*this, args));
}

Stack OpHandle::redispatch(const Stack& args) const {
  // Below the running handler's layer: Note [Redispatch] in dispatcher.cpp.
  dispatch::ExcludeKeysGuard below(dispatch::local_state().redispatch_excluded);
  return call(args);
}

}  // namespace ember
