// Note [Run-time operators]
// ember::Library (EMBER_LIBRARY, and Python's ember.library.Library on top of it) adds ops to the
// op table while the program runs. Each gets an id after the rows of ops.def (kNumOps, kNumOps+1,
// ...): op_handle(id), find_op and ember.ops resolve them like built-in rows, and the override
// layers, which take an OpId, work unchanged. The static per-op tables (the autograd and
// quantized slots, the boxed entries) stay sized by ops.def: a run-time op keeps its kernels in
// its own RuntimeOp, one list per LibraryKey (the latest registration wins; removing a Library
// removes exactly what it registered). OpHandle::call sends a run-time op to call_runtime_op
// (runtime_dispatch.cpp), which walks the same four layers as dispatch::call_slow, boxed.
// Slots are never freed (their OpHandles are handed out by reference): a def removed with its
// Library leaves the slot undefined and a later def of the same name fills it again.
#include <algorithm>
#include <iterator>
#include <map>

#include "ember/warning.h"
#include "runtime_ops.h"

namespace ember {

namespace dispatch {
namespace {

constexpr size_t kMaxRuntimeOps = 8192;

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<RuntimeOp>> ops;  // reserved once: never reallocates
  std::map<std::pair<std::string, std::string>, size_t> by_name;
  std::map<std::string, std::pair<std::string, uint64_t>> def_namespaces;  // ns -> (where, owner)
  std::vector<KernelPtr> autograd_fallback;
  uint64_t next_owner = 1;
  Registry() { ops.reserve(kMaxRuntimeOps); }
};
// Leaked: Libraries in static storage deregister during exit, after any registry would be gone.
Registry& reg() {
  static Registry* r = new Registry;
  return *r;
}

RuntimeOp& slot(int id) { return *reg().ops[static_cast<size_t>(id - kNumOps)]; }

// (name, overload) of "ns::foo.ov" / "ns::foo".
std::pair<std::string, std::string> split_full_name(const std::string& full) {
  const auto colons = full.find("::");
  const auto dot = full.find('.', colons == std::string::npos ? 0 : colons);
  if (dot == std::string::npos) return {full, "default"};
  return {full.substr(0, dot), full.substr(dot + 1)};
}

// The slot for (name, overload), created undefined when absent. Lock held.
RuntimeOp& slot_for(const std::string& name, const std::string& overload) {
  Registry& r = reg();
  if (auto it = r.by_name.find({name, overload}); it != r.by_name.end()) return *r.ops[it->second];
  EMBER_CHECK(r.ops.size() < kMaxRuntimeOps, "too many operators registered at run time (",
              kMaxRuntimeOps, ")");
  const int id = kNumOps + static_cast<int>(r.ops.size());
  auto op = std::make_unique<RuntimeOp>();
  op->handle = OpRegistryAccess::make_undefined(id, name, overload);
  r.by_name[{name, overload}] = r.ops.size();
  r.ops.push_back(std::move(op));
  return *r.ops.back();
}

const char* kind_block(Library::Kind k) {
  return k == Library::IMPL ? "TORCH_LIBRARY_IMPL" : k == Library::FRAGMENT ? "TORCH_LIBRARY_FRAGMENT" : "TORCH_LIBRARY";
}

}  // namespace

const OpHandle& runtime_handle(int id) { return slot(id).handle; }

KernelSnapshot runtime_kernels(int id) {
  std::lock_guard<std::mutex> lock(reg().mu);
  const RuntimeOp& op = slot(id);
  KernelSnapshot s;
  s.defined = op.defined;
  for (size_t k = 0; k < op.kernels.size(); ++k)
    if (!op.kernels[k].empty()) s.at[k] = op.kernels[k].back();
  s.autograd_fallthrough_fallback = !reg().autograd_fallback.empty();
  s.bump_mutated_versions = op.bump_mutated_versions;
  return s;
}

const OpHandle* find_runtime_op(const std::string& name, const std::string& overload) {
  std::lock_guard<std::mutex> lock(reg().mu);
  auto it = reg().by_name.find({name, overload.empty() ? "default" : overload});
  if (it == reg().by_name.end() || !reg().ops[it->second]->defined) return nullptr;
  return &reg().ops[it->second]->handle;
}

std::vector<const OpHandle*> runtime_overloads(const std::string& name) {
  std::lock_guard<std::mutex> lock(reg().mu);
  std::vector<const OpHandle*> r;
  for (const auto& op : reg().ops)
    if (op->defined && op->handle.name() == name) r.push_back(&op->handle);
  return r;
}

std::vector<const OpHandle*> runtime_ops_in(const std::string& ns) {
  std::lock_guard<std::mutex> lock(reg().mu);
  std::vector<const OpHandle*> r;
  for (const auto& op : reg().ops)
    if (op->defined && (ns.empty() || op->handle.name().starts_with(ns + "::")))
      r.push_back(&op->handle);
  return r;
}

void set_bump_mutated_versions(const OpHandle& op, bool on) {
  EMBER_CHECK(is_runtime_op(op.id()), op.full_name(), " is a built-in op");
  std::lock_guard<std::mutex> lock(reg().mu);
  slot(op.id()).bump_mutated_versions = on;
}

std::string dump_runtime_op(const std::string& full_name) {
  auto [name, overload] = split_full_name(full_name);
  std::lock_guard<std::mutex> lock(reg().mu);
  auto it = reg().by_name.find({name, overload});
  if (it == reg().by_name.end()) return "";
  const RuntimeOp& op = *reg().ops[it->second];
  std::string r = "name: " + full_name + "\n";
  if (op.defined) {
    r += "schema: " + op.handle.schema() + "\ndebug: registered at " + op.def_where +
         "\nalias analysis kind: FROM_SCHEMA\n";
  } else {
    r += "schema: (none)\n";
  }
  for (size_t k = 0; k < op.kernels.size(); ++k) {
    if (op.kernels[k].empty()) continue;
    const auto& kernel = *op.kernels[k].back();
    r += std::string(library_key_name(static_cast<LibraryKey>(k))) + ": " +
         (kernel.fallthrough ? "fallthrough " : "") + "registered at " + kernel.where + " [kernel]\n";
  }
  return r;
}

bool runtime_has_kernel(const std::string& full_name, LibraryKey key) {
  auto [name, overload] = split_full_name(full_name);
  std::lock_guard<std::mutex> lock(reg().mu);
  auto it = reg().by_name.find({name, overload});
  return it != reg().by_name.end() &&
         !reg().ops[it->second]->kernels[static_cast<size_t>(key)].empty();
}

}  // namespace dispatch

// ---- keys ----
namespace {
constexpr const char* kKeyNames[] = {"CPU",      "Meta", "QuantizedCPU", "Autograd",
                                     "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                                     "CUDA", "PrivateUse1"};
static_assert(std::size(kKeyNames) == static_cast<size_t>(LibraryKey::NumKeys));
}

const char* library_key_name(LibraryKey key) { return kKeyNames[static_cast<size_t>(key)]; }

LibraryKey library_key_from_name(const std::string& name) {
  for (size_t k = 0; k < static_cast<size_t>(LibraryKey::NumKeys); ++k)
    if (name == kKeyNames[k]) return static_cast<LibraryKey>(k);
  if (name == "AutogradCPU") return LibraryKey::Autograd;
  if (name == "AutogradMeta") return LibraryKey::Autograd;
  EMBER_FAIL_KIND(ErrorKind::Value, "Unknown dispatch key '", name,
                  "': ember's run-time operators take kernels at CPU, Meta, QuantizedCPU, "
                  "Autograd (AutogradCPU), CompositeImplicitAutograd, CompositeExplicitAutograd, and CUDA "
                  "and PrivateUse1 (kept, never used: ember has no such tensors)");
}

// ---- CppFunction ----
CppFunction CppFunction::makeFallthrough() {
  CppFunction f;
  f.fallthrough_ = true;
  return f;
}
CppFunction CppFunction::makeFromBoxedFunction(Boxed fn) {
  CppFunction f;
  f.boxed_ = std::move(fn);
  return f;
}

namespace library_detail {
void boxed_arity_error(const OpHandle& op, size_t given, size_t expected) {
  EMBER_FAIL_KIND(ErrorKind::Type, op.full_name(), ": the kernel takes ", expected,
                  " arguments but the call has ", given);
}
}  // namespace library_detail

// ---- Library ----
using dispatch::reg;

Library::Library(Kind kind, std::string ns, std::optional<LibraryKey> key, const char* file,
                 uint32_t line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file ? file : "/dev/null"), line_(line) {
  std::lock_guard<std::mutex> lock(reg().mu);
  owner_ = reg().next_owner++;
  if (kind_ != DEF) return;
  auto it = reg().def_namespaces.find(ns_);
  EMBER_CHECK(it == reg().def_namespaces.end(), "Only a single TORCH_LIBRARY can be used to register the namespace ",
              ns_, "; please put all of your definitions in a single TORCH_LIBRARY block.  If you were "
              "trying to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
              "duplicated).  If you really intended to define operators for a single namespace in a "
              "distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  "
              "Previous registration of TORCH_LIBRARY was registered at ",
              it == reg().def_namespaces.end() ? "" : it->second.first,
              "; latest registration was registered at ", where());
  reg().def_namespaces[ns_] = {where(), owner_};
}

Library::~Library() {
  std::vector<dispatch::KernelPtr> dropped;  // destroyed after the lock: a kernel may be Python
  {
    std::lock_guard<std::mutex> lock(reg().mu);
    auto& r = reg();
    for (auto& op : r.ops) {
      if (op->defined && op->def_owner == owner_) {
        op->defined = false;
        op->handle = OpRegistryAccess::make_undefined(op->handle.id(), op->handle.name(),
                                                      op->handle.overload());
        op->bump_mutated_versions = false;
      }
      for (auto& list : op->kernels) {
        for (auto& k : list)
          if (k->owner == owner_) dropped.push_back(k);
        std::erase_if(list, [&](const dispatch::KernelPtr& k) { return k->owner == owner_; });
      }
    }
    std::erase_if(r.autograd_fallback, [&](const dispatch::KernelPtr& k) { return k->owner == owner_; });
    if (auto it = r.def_namespaces.find(ns_); it != r.def_namespaces.end() && it->second.second == owner_)
      r.def_namespaces.erase(it);
  }
}

std::string Library::where() const { return file_ + ":" + std::to_string(line_); }

Library& Library::def(const std::string& schema) {
  EMBER_CHECK(kind_ != IMPL, "Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All "
              "def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.  "
              "(Error occurred while processing TORCH_LIBRARY_IMPL block at ", where(), ")");
  std::string full = schema;
  const auto open = schema.find('(');
  const std::string head = schema.substr(0, open);
  if (const auto colons = head.find("::"); colons != std::string::npos) {
    const std::string given = head.substr(0, colons);
    EMBER_CHECK(given == ns_, "Explicitly provided namespace (", given,
                ") in schema string does not match namespace of enclosing ", dispatch::kind_block(kind_), " block (",
                ns_, ").  Move this definition to the (unique) TORCH_LIBRARY block corresponding to "
                "this namespace (and consider deleting the namespace from your schema string.)  "
                "(Error occurred while processing ", dispatch::kind_block(kind_), " block at ", where(), ")");
  } else {
    full = ns_ + "::" + schema;
  }
  ParsedSchema parsed = dispatch::parse_schema(full);  // malformed schemas throw here
  const std::string overload = parsed.overload.empty() ? "default" : parsed.overload;
  if (const OpHandle* builtin = dispatch::find_op_or_null(parsed.name, overload);
      builtin && !dispatch::is_runtime_op(builtin->id())) {
    EMBER_FAIL("Tried to register an operator (", full, ") with the same name and overload name "
               "multiple times. Each overload's schema should only be registered with a single call "
               "to def(). Duplicate registration: registered at ", where(),
               ". Original registration: registered at src/dispatch/ops.def");
  }
  std::lock_guard<std::mutex> lock(reg().mu);
  dispatch::RuntimeOp& op = dispatch::slot_for(parsed.name, overload);
  EMBER_CHECK(!op.defined, "Tried to register an operator (", full, ") with the same name and "
              "overload name multiple times. Each overload's schema should only be registered with a "
              "single call to def(). Duplicate registration: registered at ", where(),
              ". Original registration: registered at ", op.def_where);
  op.handle = OpRegistryAccess::make(op.handle.id(), full, false);
  op.defined = true;
  op.def_owner = owner_;
  op.def_where = where();
  const std::string bare = parsed.name.substr(parsed.name.find("::") + 2);
  last_defined_ = parsed.overload.empty() ? bare : bare + "." + parsed.overload;
  return *this;
}

Library& Library::def(const std::string& name_or_schema, CppFunction fn) {
  if (name_or_schema.find('(') != std::string::npos) {
    def(name_or_schema);
  } else {
    EMBER_CHECK(!fn.inferred_schema().empty(), "def(\"", name_or_schema,
                "\", fn): a boxed kernel carries no signature to infer the schema from; write the "
                "schema out");
    def(name_or_schema + fn.inferred_schema());
  }
  return impl(last_defined_, LibraryKey::CompositeImplicitAutograd, std::move(fn));
}

Library& Library::impl(const std::string& name, CppFunction fn) {
  return impl(name, key_.value_or(LibraryKey::CompositeImplicitAutograd), std::move(fn));
}

Library& Library::impl(const std::string& name, LibraryKey key, CppFunction fn) {
  std::string qualified = name;
  if (const auto colons = name.find("::"); colons != std::string::npos) {
    const std::string given = name.substr(0, colons);
    EMBER_CHECK(given == ns_, "Explicitly provided namespace (", given,
                ") in operator name does not match namespace of enclosing ", dispatch::kind_block(kind_),
                " block (", ns_, ").  Move this definition to the ", dispatch::kind_block(kind_),
                " block corresponding to this namespace (and consider deleting the namespace from "
                "your schema string.)  (Error occurred while processing ", dispatch::kind_block(kind_),
                " block at ", where(), ")");
  } else {
    qualified = ns_ + "::" + name;
  }
  auto [op_name, overload] = dispatch::split_full_name(qualified);
  if (const OpHandle* builtin = dispatch::find_op_or_null(op_name, overload);
      builtin && !dispatch::is_runtime_op(builtin->id())) {
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, builtin->full_name(),
                    " is one of ember's built-in ops, whose kernels are compiled in: only operators "
                    "defined at run time take kernels from a Library");
  }
  auto kernel = std::make_shared<dispatch::RuntimeKernel>();
  kernel->fn = fn.boxed();
  kernel->fallthrough = fn.is_fallthrough();
  kernel->where = where();
  kernel->owner = owner_;
  std::string previous;
  {
    std::lock_guard<std::mutex> lock(reg().mu);
    dispatch::RuntimeOp& op = dispatch::slot_for(op_name, overload);
    auto& list = op.kernels[static_cast<size_t>(key)];
    if (!list.empty()) previous = list.back()->where;
    list.push_back(std::move(kernel));
  }
  if (!previous.empty()) {
    EMBER_WARN("Overriding a previously registered kernel for the same operator and the same "
               "dispatch key\n  operator: ", qualified, "\n  dispatch key: ", library_key_name(key),
               "\n  previous kernel: registered at ", previous,
               "\n       new kernel: registered at ", where());
  }
  return *this;
}

Library& Library::fallback(CppFunction fn) {
  EMBER_CHECK(kind_ == IMPL && ns_ == "_" && key_ == LibraryKey::Autograd && fn.is_fallthrough(),
              "ember supports one fallback for run-time operators: "
              "EMBER_LIBRARY_IMPL(_, Autograd, m) { m.fallback(ember::CppFunction::makeFallthrough()); }"
              " (ops without an Autograd kernel then run below autograd with no graph and no "
              "warning)");
  auto kernel = std::make_shared<dispatch::RuntimeKernel>();
  kernel->fallthrough = true;
  kernel->where = where();
  kernel->owner = owner_;
  std::lock_guard<std::mutex> lock(reg().mu);
  reg().autograd_fallback.push_back(std::move(kernel));
  return *this;
}

// ---- Dispatcher ----
Dispatcher& Dispatcher::singleton() {
  static Dispatcher d;
  return d;
}

std::optional<OperatorHandle> Dispatcher::findSchema(const std::string& name,
                                                     const std::string& overload) const {
  const OpHandle* op = dispatch::find_op_or_null(name, overload.empty() ? "default" : overload);
  if (!op) return std::nullopt;
  return OperatorHandle(*op);
}

OperatorHandle Dispatcher::findSchemaOrThrow(const std::string& name,
                                             const std::string& overload) const {
  auto op = findSchema(name, overload);
  EMBER_CHECK(op.has_value(), "Could not find schema for ", name,
              overload.empty() || overload == "default" ? "" : "." + overload);
  return *op;
}

namespace {
// "Tensor(a!)" -> "Tensor", "int[2]" -> "int[]", "SymInt" -> "int".
std::string plain_type(std::string t) {
  if (auto p = t.find('('); p != std::string::npos) t.erase(p, t.find(')', p) - p + 1);
  if (auto b = t.find('['); b != std::string::npos) t.erase(b + 1, t.find(']', b) - b - 1);
  if (t.starts_with("SymInt")) t = "int" + t.substr(6);
  return t;
}
}  // namespace

void OperatorHandle::check_signature(const std::vector<std::string>& types) const {
  const auto& args = op_->arguments();
  bool ok = args.size() == types.size();
  for (size_t i = 0; ok && i < args.size(); ++i) ok = plain_type(args[i].type) == types[i];
  if (ok) return;
  std::string called = "(";
  for (size_t i = 0; i < types.size(); ++i) called += (i ? ", " : "") + types[i];
  EMBER_FAIL("Tried to access or call an operator with a wrong signature.\n  operator: ",
             op_->schema(), "\n  accessed/called as: ", called, ")");
}

AutoDispatchBelowAutograd::AutoDispatchBelowAutograd()
    : prev_(dispatch::local_state().excluded.raw()) {
  dispatch::local_state().excluded |= DispatchKey::Autograd;
}
AutoDispatchBelowAutograd::~AutoDispatchBelowAutograd() {
  dispatch::local_state().excluded = KeySet::from_bits(prev_);
}

}  // namespace ember
