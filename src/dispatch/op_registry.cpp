// The op registry: one OpHandle per row of ops.def, with its schema parsed once at start-up.
#include <array>
#include <map>
#include <mutex>

#include "boxing.h"
#include "dispatcher.h"
#include "schema.h"

namespace ember {

struct OpRegistryAccess {
  static OpHandle make(int id, const char* schema, bool composite) {
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
};

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

const OpHandle& op_handle(OpId id) { return registry()[static_cast<size_t>(id)]; }

bool register_boxed(OpId id, BoxedFn fn, int arity) {
  auto& entry = boxed_table()[static_cast<size_t>(id)];
  EMBER_ASSERT(entry.fn == nullptr, "boxed kernel registered twice for ",
               op_handle(id).full_name());
  entry = {fn, arity};
  return true;
}

BoxedFn boxed_fn(OpId id) { return boxed_table()[static_cast<size_t>(id)].fn; }
int boxed_arity(OpId id) { return boxed_table()[static_cast<size_t>(id)].arity; }

void check_boxed_arity(const Stack& args, size_t arity) {
  EMBER_ASSERT(args.size() == arity, "boxed call with ", args.size(), " arguments for ", arity,
               " parameters");
}

TypedSlot& autograd_slot(OpId op) {
  static std::array<TypedSlot, kNumOps> t{};
  return t[static_cast<size_t>(op)];
}

TypedSlot& quantized_slot(OpId op) {
  static std::array<TypedSlot, kNumOps> t{};
  return t[static_cast<size_t>(op)];
}

}  // namespace dispatch

std::span<const OpHandle> all_ops() { return dispatch::registry(); }

const OpHandle& find_op(const std::string& name, const std::string& overload) {
  static const std::map<std::pair<std::string, std::string>, const OpHandle*> index = [] {
    std::map<std::pair<std::string, std::string>, const OpHandle*> m;
    for (const auto& op : dispatch::registry()) m[{op.name(), op.overload()}] = &op;
    return m;
  }();
  const std::string& ov = overload.empty() ? std::string("default") : overload;
  auto it = index.find({name, ov});
  EMBER_CHECK_KIND(ErrorKind::Key, it != index.end(), "no op named '", name,
                   ov == "default" ? "" : "." + ov, "' in ember's op table");
  return *it->second;
}

std::vector<std::string> op_overloads(const std::string& name) {
  std::vector<std::string> r;
  for (const auto& op : dispatch::registry())
    if (op.name() == name) r.push_back(op.overload());
  return r;
}

bool OpHandle::is_inplace() const { return !args_.empty() && args_[0].is_mutable; }

Stack OpHandle::call(const Stack& args) const {
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
