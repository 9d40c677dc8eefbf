// ember's unpickler: Python's pickle protocols 2-5 over checkpoint trees.
//
// Note [The unpickler's allowlist]
// A pickle is a program: GLOBAL names any importable callable and REDUCE calls it, which is how
// a checkpoint can run os.system. This unpickler never imports or calls anything: GLOBAL
// resolves only the names below, to a Node that stands for them, and REDUCE / NEWOBJ / BUILD act
// only on those nodes, each with its arguments checked. Any other name (and INST, OBJ, EXT*,
// out-of-band buffers) raises UnpicklingError naming it and its byte position, before anything
// is built from it. The names: torch._utils' rebuild functions (_rebuild_tensor, _v2,
// _rebuild_parameter, _with_state, _rebuild_qtensor, _rebuild_meta_tensor_no_storage),
// torch.nn.parameter.Parameter, the storage types (torch.FloatStorage, ...,
// torch.UntypedStorage), collections.OrderedDict, torch.Size, torch.device, the dtypes
// (torch.float32, ...), the qschemes, _codecs.encode (protocol 2's bytes), builtins.set,
// frozenset, complex, bytes, bytearray (under Python 2's __builtin__ too, as protocol 2 writes).
// torch 1.13's weights_only unpickler allows less (no qtensors, no bytes); this list is what
// state_dicts of every ember module and optimizer need, and nothing that can run code.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ember/nn/module.h"
#include "serialization/pickle.h"

namespace ember::serialization::detail {
namespace {

using Kind = Node::Kind;

enum class G : uint8_t {
  OrderedDict, RebuildTensor, RebuildTensorV2, RebuildParameter, RebuildParameterWithState,
  RebuildQTensor, RebuildMeta, Parameter, StorageType, Size, DeviceCtor, DType, QSchemeConst,
  CodecsEncode, Set, FrozenSet, Complex, Bytes, ByteArray,
};

struct Allowed {
  G g;
  ScalarType dtype = ScalarType::Undefined;
  QScheme qscheme = QScheme::PerTensorAffine;
};

const std::unordered_map<std::string, Allowed>& allowlist() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, Allowed>{
        {"collections.OrderedDict", {G::OrderedDict}},
        {"torch._utils._rebuild_tensor", {G::RebuildTensor}},
        {"torch._utils._rebuild_tensor_v2", {G::RebuildTensorV2}},
        {"torch._utils._rebuild_parameter", {G::RebuildParameter}},
        {"torch._utils._rebuild_parameter_with_state", {G::RebuildParameterWithState}},
        {"torch._utils._rebuild_qtensor", {G::RebuildQTensor}},
        {"torch._utils._rebuild_meta_tensor_no_storage", {G::RebuildMeta}},
        {"torch.nn.parameter.Parameter", {G::Parameter}},
        {"torch.Size", {G::Size}},
        {"torch.device", {G::DeviceCtor}},
        {"torch.UntypedStorage", {G::StorageType, kUInt8}},
        {"torch.storage.UntypedStorage", {G::StorageType, kUInt8}},
        {"torch.per_tensor_affine", {G::QSchemeConst, ScalarType::Undefined, QScheme::PerTensorAffine}},
        {"torch.per_channel_affine", {G::QSchemeConst, ScalarType::Undefined, QScheme::PerChannelAffine}},
        {"torch.per_tensor_symmetric", {G::QSchemeConst, ScalarType::Undefined, QScheme::PerTensorSymmetric}},
        {"torch.per_channel_symmetric", {G::QSchemeConst, ScalarType::Undefined, QScheme::PerChannelSymmetric}},
        {"torch.per_channel_affine_float_qparams",
         {G::QSchemeConst, ScalarType::Undefined, QScheme::PerChannelAffineFloatQParams}},
        {"_codecs.encode", {G::CodecsEncode}},
    };
    for (const char* mod : {"builtins."}) {
      t->emplace(std::string(mod) + "set", Allowed{G::Set});
      t->emplace(std::string(mod) + "frozenset", Allowed{G::FrozenSet});
      t->emplace(std::string(mod) + "complex", Allowed{G::Complex});
      t->emplace(std::string(mod) + "bytes", Allowed{G::Bytes});
      t->emplace(std::string(mod) + "bytearray", Allowed{G::ByteArray});
    }
    for (int i = 0; i < kNumScalarTypes; ++i) {
      auto st = static_cast<ScalarType>(i);
      t->emplace(std::string("torch.") + dtype_name(st), Allowed{G::DType, st});
      t->emplace(std::string("torch.") + storage_type_name(st), Allowed{G::StorageType, st});
    }
    return t;
  }();
  return *table;
}

class Unpickler {
 public:
  Unpickler(const char* data, size_t n, const PersistentLoad& pl, const std::string& what)
      : p_(reinterpret_cast<const uint8_t*>(data)), n_(n), pl_(pl), what_(what) {}

  NodePtr run(size_t* consumed);

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw UnpicklingError(msg + " (at byte " + std::to_string(op_pos_) + " of " + what_ + ")");
  }
  const uint8_t* take(size_t k) {
    if (n_ - pos_ < k) fail("pickle data was truncated");
    const uint8_t* r = p_ + pos_;
    pos_ += k;
    return r;
  }
  uint64_t take_le(size_t k) {
    const uint8_t* b = take(k);
    uint64_t v = 0;
    for (size_t i = 0; i < k; ++i) v |= uint64_t(b[i]) << (8 * i);
    return v;
  }
  std::string take_str(uint64_t len) {
    if (len > n_ - pos_) fail("pickle data was truncated (a string of " + std::to_string(len) +
                              " bytes runs past the end)");
    return std::string(reinterpret_cast<const char*>(take(static_cast<size_t>(len))), len);
  }
  std::string take_line() {
    const void* nl = std::memchr(p_ + pos_, '\n', n_ - pos_);
    if (!nl) fail("pickle data was truncated (a line without its newline)");
    size_t len = static_cast<const uint8_t*>(nl) - (p_ + pos_);
    std::string s(reinterpret_cast<const char*>(p_ + pos_), len);
    pos_ += len + 1;
    return s;
  }
  NodePtr pop() {
    if (stack_.size() <= base()) fail("unpickling stack underflow");
    NodePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  NodePtr& top() {
    if (stack_.size() <= base()) fail("unpickling stack underflow");
    return stack_.back();
  }
  size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<NodePtr> pop_mark() {
    if (marks_.empty()) fail("could not find MARK");
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<NodePtr> items(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(m)),
                               std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  void push(NodePtr v) { stack_.push_back(std::move(v)); }
  void memo_put(uint64_t i) { memo_[i] = top(); }
  void memo_get(uint64_t i) {
    auto it = memo_.find(i);
    if (it == memo_.end()) fail("Memo value not found at index " + std::to_string(i));
    push(it->second);
  }
  void resolve_global(const std::string& module, const std::string& name, const char* opcode);
  void reduce(const NodePtr& func, const NodePtr& args);
  void build(const NodePtr& state);
  void set_item(const NodePtr& d, NodePtr k, NodePtr v);
  void add_items(Node& s, std::vector<NodePtr> items);

  int64_t arg_int(const std::vector<NodePtr>& a, size_t i, const char* fn) const;
  std::vector<int64_t> arg_ints(const std::vector<NodePtr>& a, size_t i, const char* fn) const;
  bool arg_bool(const std::vector<NodePtr>& a, size_t i, const char* fn) const;
  void check_hooks(const std::vector<NodePtr>& a, size_t i, const char* fn) const;

  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0, op_pos_ = 0;
  const PersistentLoad& pl_;
  std::string what_;
  std::vector<NodePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, NodePtr> memo_;
  struct DictIndex {
    NodePtr dict;  // pinned: its address cannot be reused by another dict while indexed
    size_t scanned = 0;
    std::unordered_map<std::string, size_t> keys;
  };
  std::unordered_map<const Node*, DictIndex> dict_index_;
};

// A str of code points 0-255 (as UTF-8) back to bytes: codecs.encode(s, 'latin1').
bool latin1_bytes(const std::string& s, std::string& out) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      out.push_back(char(c));
    } else if ((c == 0xC2 || c == 0xC3) && i + 1 < s.size()) {
      out.push_back(char(((c & 0x03) << 6) | (uint8_t(s[++i]) & 0x3F)));
    } else {
      return false;
    }
  }
  return true;
}

NodePtr make(Kind k) {
  auto n = std::make_shared<Node>();
  n->kind = k;
  return n;
}

void Unpickler::resolve_global(const std::string& module_in, const std::string& name,
                               const char* opcode) {
  // Python 2's module names, as protocol 2 writes them (Python's fix_imports mapping).
  static const std::unordered_map<std::string, std::string> py2 = {
      {"__builtin__", "builtins"}, {"copy_reg", "copyreg"}, {"cPickle", "pickle"},
      {"Queue", "queue"}, {"commands", "subprocess"}, {"exceptions", "builtins"}};
  auto m = py2.find(module_in);
  const std::string& module = m == py2.end() ? module_in : m->second;
  std::string full = module + "." + name;
  auto it = allowlist().find(full);
  if (it == allowlist().end()) {
    fail(std::string("Unsupported global: ") + opcode + " " + full +
         " is not an allowed global: only tensors, storages, containers and the rebuild "
         "functions of ember's allowlist can be loaded");
  }
  auto g = make(Kind::Global);
  g->str = full;
  g->integer = static_cast<int64_t>(it->second.g);
  g->dtype = it->second.dtype;
  g->qscheme = it->second.qscheme;
  if (it->second.g == G::DType) {
    g->kind = Kind::DType;
  } else if (it->second.g == G::QSchemeConst) {
    g->kind = Kind::QScheme;
  }
  push(std::move(g));
}

int64_t Unpickler::arg_int(const std::vector<NodePtr>& a, size_t i, const char* fn) const {
  if (i >= a.size() || !a[i]->is(Kind::Int)) {
    fail(std::string(fn) + ": argument " + std::to_string(i) + " must be an int, got " +
         (i < a.size() ? a[i]->type_name() : "nothing"));
  }
  return a[i]->integer;
}

std::vector<int64_t> Unpickler::arg_ints(const std::vector<NodePtr>& a, size_t i,
                                         const char* fn) const {
  if (i >= a.size() || !(a[i]->is(Kind::Tuple) || a[i]->is(Kind::Size) || a[i]->is(Kind::List))) {
    fail(std::string(fn) + ": argument " + std::to_string(i) + " must be a tuple of ints, got " +
         (i < a.size() ? a[i]->type_name() : "nothing"));
  }
  std::vector<int64_t> out;
  for (const auto& x : a[i]->items) {
    if (!x->is(Kind::Int)) fail(std::string(fn) + ": argument " + std::to_string(i) +
                                " must hold ints, got a " + x->type_name());
    out.push_back(x->integer);
  }
  return out;
}

bool Unpickler::arg_bool(const std::vector<NodePtr>& a, size_t i, const char* fn) const {
  if (i >= a.size() || !a[i]->is(Kind::Bool)) {
    fail(std::string(fn) + ": argument " + std::to_string(i) + " must be a bool, got " +
         (i < a.size() ? a[i]->type_name() : "nothing"));
  }
  return a[i]->boolean;
}

void Unpickler::check_hooks(const std::vector<NodePtr>& a, size_t i, const char* fn) const {
  // backward_hooks: PyTorch always writes an empty OrderedDict (hooks are never serialized).
  if (i >= a.size() || !a[i]->is(Kind::Dict) || !a[i]->entries.empty()) {
    fail(std::string(fn) + ": backward_hooks must be an empty OrderedDict");
  }
}

void Unpickler::reduce(const NodePtr& func, const NodePtr& args_node) {
  if (!func->is(Kind::Global)) {
    fail(std::string("REDUCE: a ") + func->type_name() + " is not callable");
  }
  if (!args_node->is(Kind::Tuple)) fail("REDUCE: the arguments must be a tuple");
  const auto& a = args_node->items;
  const std::string& fn = func->str;
  const char* f = fn.c_str();
  auto nargs = [&](size_t lo, size_t hi) {
    if (a.size() < lo || a.size() > hi) {
      std::string range = std::to_string(lo);
      if (lo != hi) range += " to " + std::to_string(hi);
      fail(fn + " takes " + range + " arguments, got " + std::to_string(a.size()));
    }
  };
  auto storage_arg = [&]() -> const Node& {
    if (a.empty() || !a[0]->is(Kind::Storage)) {
      fail(fn + ": argument 0 must be a storage, got " +
           (a.empty() ? std::string("nothing") : a[0]->type_name()));
    }
    return *a[0];
  };
  auto where = [&] { return fn + " (at byte " + std::to_string(op_pos_) + " of " + what_ + ")"; };
  NodePtr out;
  switch (static_cast<G>(func->integer)) {
    case G::OrderedDict: {
      out = make(Kind::Dict);
      out->ordered = true;
      if (a.size() == 1 && (a[0]->is(Kind::List) || a[0]->is(Kind::Tuple))) {
        for (const auto& kv : a[0]->items) {
          if (!kv->is(Kind::Tuple) || kv->items.size() != 2) fail("OrderedDict: items must be pairs");
          set_item(out, kv->items[0], kv->items[1]);
        }
      } else {
        nargs(0, 0);
      }
      break;
    }
    case G::RebuildTensor:
    case G::RebuildTensorV2: {
      bool v2 = static_cast<G>(func->integer) == G::RebuildTensorV2;
      if (v2) nargs(6, 7); else nargs(4, 4);
      const Node& s = storage_arg();
      out = make(Kind::Tensor);
      out->tensor = rebuild_tensor(s, arg_int(a, 1, f), arg_ints(a, 2, f), arg_ints(a, 3, f),
                                   where());
      if (v2) {
        bool rg = arg_bool(a, 4, f);
        check_hooks(a, 5, f);
        if (rg) {
          if (!is_floating(out->tensor.dtype())) {
            fail(fn + ": only floating point tensors can require gradients");
          }
          out->tensor.requires_grad_(true);
        }
      }
      break;
    }
    case G::RebuildQTensor: {
      nargs(7, 7);
      const Node& s = storage_arg();
      if (!a[4]->is(Kind::Tuple)) fail(fn + ": quantizer_params must be a tuple");
      out = make(Kind::Tensor);
      out->tensor = rebuild_qtensor(s, arg_int(a, 1, f), arg_ints(a, 2, f), arg_ints(a, 3, f),
                                    *a[4], where());
      if (arg_bool(a, 5, f)) fail(fn + ": quantized tensors cannot require gradients");
      check_hooks(a, 6, f);
      break;
    }
    case G::RebuildMeta: {
      nargs(4, 4);
      if (!a[0]->is(Kind::DType)) fail(fn + ": argument 0 must be a dtype");
      auto sizes = arg_ints(a, 1, f), strides = arg_ints(a, 2, f);
      Node meta;
      meta.kind = Kind::Storage;
      meta.dtype = a[0]->dtype;
      meta.storage = Storage::allocate(0, kMeta);
      meta.integer = -1;  // unbounded: meta tensors hold no data
      out = make(Kind::Tensor);
      out->tensor = rebuild_tensor(meta, 0, sizes, strides, where());
      if (arg_bool(a, 3, f)) out->tensor.requires_grad_(true);
      break;
    }
    case G::RebuildParameter:
    case G::RebuildParameterWithState: {
      bool with_state = static_cast<G>(func->integer) == G::RebuildParameterWithState;
      nargs(with_state ? 4 : 3, with_state ? 4 : 3);
      if (!a[0]->is(Kind::Tensor)) fail(fn + ": argument 0 must be a tensor");
      bool rg = arg_bool(a, 1, f);
      check_hooks(a, 2, f);
      if (with_state && !(a[3]->is(Kind::Dict) && a[3]->entries.empty())) {
        fail(fn + ": a Parameter with Python attributes (state) cannot be loaded with "
                  "weights_only=True");
      }
      out = make(Kind::Tensor);
      out->tensor = nn::Parameter(a[0]->tensor, rg);
      break;
    }
    case G::Size: {
      nargs(0, 1);
      out = make(Kind::Size);
      if (!a.empty()) {
        for (int64_t v : arg_ints(a, 0, f)) out->items.push_back(Node::of(v));
      }
      break;
    }
    case G::DeviceCtor: {
      nargs(1, 2);
      if (!a[0]->is(Kind::String)) fail(fn + ": argument 0 must be a str");
      std::string spec = a[0]->str;
      if (a.size() == 2) spec += ":" + std::to_string(arg_int(a, 1, f));
      out = make(Kind::Device);
      out->str = spec;  // a CUDA device stays a name: ember has none to map it to
      if (spec.rfind("cpu", 0) == 0 || spec.rfind("meta", 0) == 0) {
        try {
          out->device = Device(spec);
        } catch (const Error& e) {
          fail(fn + ": " + e.what());
        }
      }
      break;
    }
    case G::CodecsEncode: {
      nargs(2, 2);
      if (!a[0]->is(Kind::String) || !a[1]->is(Kind::String)) fail(fn + ": expected (str, str)");
      const std::string& enc = a[1]->str;
      if (enc != "latin1" && enc != "latin-1" && enc != "iso-8859-1") {
        fail(fn + ": only the latin1 encoding is supported, got '" + enc + "'");
      }
      out = make(Kind::Bytes);
      if (!latin1_bytes(a[0]->str, out->str)) fail(fn + ": the str has characters outside latin1");
      break;
    }
    case G::Set:
    case G::FrozenSet: {
      nargs(0, 1);
      out = make(static_cast<G>(func->integer) == G::Set ? Kind::Set : Kind::FrozenSet);
      if (!a.empty()) {
        if (!(a[0]->is(Kind::List) || a[0]->is(Kind::Tuple))) fail(fn + ": expected a list");
        add_items(*out, a[0]->items);
      }
      break;
    }
    case G::Complex: {
      nargs(1, 2);
      auto num = [&](size_t i) {
        if (a[i]->is(Kind::Float)) return a[i]->real;
        if (a[i]->is(Kind::Int)) return double(a[i]->integer);
        fail(fn + ": expected numbers");
      };
      out = make(Kind::Complex);
      out->real = num(0);
      out->imag = a.size() == 2 ? num(1) : 0.0;
      break;
    }
    case G::Bytes:
    case G::ByteArray: {
      // bytes() is how protocol 2 writes b""; bytearray(str, 'latin-1') its bytearrays.
      out = make(Kind::Bytes);
      if (a.size() == 2 && a[0]->is(Kind::String) && a[1]->is(Kind::String)) {
        if (!latin1_bytes(a[0]->str, out->str)) fail(fn + ": the str has characters outside latin1");
      } else {
        nargs(0, 0);
      }
      break;
    }
    default:
      fail(fn + " cannot be called with REDUCE");
  }
  top() = std::move(out);
}

void Unpickler::build(const NodePtr& state) {
  NodePtr& inst = top();
  if (inst->is(Kind::Dict) && inst->ordered) {
    if (!state->is(Kind::Dict)) fail("BUILD: an OrderedDict's state must be a dict");
    for (const auto& [k, v] : state->entries) {
      if (k->is(Kind::String) && k->str == "_metadata" && v->is(Kind::Dict)) {
        inst->metadata = v;
      } else {
        fail(std::string("BUILD: an OrderedDict may only carry _metadata, got attribute ") +
             (k->is(Kind::String) ? "'" + k->str + "'" : std::string("of type ") + k->type_name()));
      }
    }
    return;
  }
  fail(std::string("BUILD: cannot set the state of a ") + inst->type_name() +
       ": only an OrderedDict's _metadata can be built");
}

void Unpickler::set_item(const NodePtr& dp, NodePtr k, NodePtr v) {
  Node& d = *dp;
  if (!d.is(Kind::Dict)) fail(std::string("SETITEM: a ") + d.type_name() + " is not a dict");
  switch (k->kind) {  // hashable keys only, as Python
    case Kind::List: case Kind::Dict: case Kind::Set: case Kind::Tensor:
      if (k->kind != Kind::Tensor) fail(std::string("unhashable type: '") + k->type_name() + "'");
      break;
    default: break;
  }
  // Python's dict keeps the first key object and the last value.
  auto same = [&](const NodePtr& a) {
    if (a == k) return true;
    if (a->kind != k->kind) {
      bool num_a = a->is(Kind::Int) || a->is(Kind::Bool), num_k = k->is(Kind::Int) || k->is(Kind::Bool);
      return num_a && num_k && (a->is(Kind::Int) ? a->integer : a->boolean) ==
                                   (k->is(Kind::Int) ? k->integer : k->boolean);
    }
    switch (k->kind) {
      case Kind::String: case Kind::Bytes: return a->str == k->str;
      case Kind::Int: return a->integer == k->integer;
      case Kind::Bool: return a->boolean == k->boolean;
      case Kind::Float: return a->real == k->real;
      case Kind::None: return true;
      default: return false;
    }
  };
  if (d.entries.size() < 64 || !k->is(Kind::String)) {
    for (auto& e : d.entries) {
      if (same(e.first)) {
        e.second = std::move(v);
        return;
      }
    }
  } else {
    // Large string-keyed dicts (state_dicts): an index instead of a quadratic scan.
    DictIndex& ix = dict_index_[&d];
    ix.dict = dp;
    for (; ix.scanned < d.entries.size(); ++ix.scanned) {
      const NodePtr& key = d.entries[ix.scanned].first;
      if (key->is(Kind::String)) ix.keys.emplace(key->str, ix.scanned);
    }
    auto it = ix.keys.find(k->str);
    if (it != ix.keys.end()) {
      d.entries[it->second].second = std::move(v);
      return;
    }
  }
  d.entries.emplace_back(std::move(k), std::move(v));
}

void Unpickler::add_items(Node& s, std::vector<NodePtr> items) {
  for (auto& it : items) {
    bool dup = false;
    for (const auto& e : s.items) {
      if (e->kind == it->kind && ((it->is(Kind::Int) && e->integer == it->integer) ||
                                  ((it->is(Kind::String) || it->is(Kind::Bytes)) && e->str == it->str))) {
        dup = true;
        break;
      }
    }
    if (!dup) s.items.push_back(std::move(it));
  }
}

NodePtr Unpickler::run(size_t* consumed) {
  for (;;) {
    op_pos_ = pos_;
    const uint8_t op = *take(1);
    switch (op) {
      case 0x80: {  // PROTO
        uint8_t v = *take(1);
        if (v > 5) fail("unsupported pickle protocol: " + std::to_string(v));
        break;
      }
      case 0x95: take(8); break;  // FRAME: frames are only a read-ahead hint
      case '.': {                 // STOP
        if (!marks_.empty() || stack_.size() != 1) fail("pickle ends with a malformed stack");
        if (consumed) *consumed = pos_;
        return stack_.back();
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '0': pop(); break;                            // POP
      case '1': pop_mark(); break;                       // POP_MARK
      case '2': push(top()); break;                      // DUP
      case 'N': push(Node::none()); break;
      case 0x88: push(Node::of(true)); break;
      case 0x89: push(Node::of(false)); break;
      case 'J': push(Node::of(int64_t(int32_t(uint32_t(take_le(4)))))); break;  // BININT
      case 'K': push(Node::of(int64_t(take_le(1)))); break;                    // BININT1
      case 'M': push(Node::of(int64_t(take_le(2)))); break;                    // BININT2
      case 0x8a:                                                               // LONG1
      case 0x8b: {                                                             // LONG4
        uint64_t len = op == 0x8a ? take_le(1) : take_le(4);
        if (len > 8) fail("integer of " + std::to_string(len) + " bytes does not fit in 64 bits");
        if (len > n_ - pos_) fail("pickle data was truncated");
        const uint8_t* b = take(static_cast<size_t>(len));
        uint64_t v = 0;
        for (uint64_t i = 0; i < len; ++i) v |= uint64_t(b[i]) << (8 * i);
        if (len > 0 && len < 8 && (b[len - 1] & 0x80)) v |= ~uint64_t(0) << (8 * len);  // sign
        push(Node::of(static_cast<int64_t>(v)));
        break;
      }
      case 'I': {  // INT (text): also protocol 0's True / False
        std::string s = take_line();
        if (s == "01") push(Node::of(true));
        else if (s == "00") push(Node::of(false));
        else {
          try {
            size_t used = 0;
            long long v = std::stoll(s, &used);
            if (used != s.size()) throw std::invalid_argument(s);
            push(Node::of(int64_t(v)));
          } catch (const std::exception&) {
            fail("invalid INT literal '" + s + "'");
          }
        }
        break;
      }
      case 'L': {  // LONG (text)
        std::string s = take_line();
        if (!s.empty() && s.back() == 'L') s.pop_back();
        try {
          size_t used = 0;
          long long v = std::stoll(s, &used);
          if (used != s.size()) throw std::invalid_argument(s);
          push(Node::of(int64_t(v)));
        } catch (const std::exception&) {
          fail("invalid or too large LONG literal '" + s + "'");
        }
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        const uint8_t* b = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | b[i];
        double d;
        std::memcpy(&d, &bits, 8);
        push(Node::of(d));
        break;
      }
      case 'F': {  // FLOAT (text)
        std::string s = take_line();
        try {
          push(Node::of(std::stod(s)));
        } catch (const std::exception&) {
          fail("invalid FLOAT literal '" + s + "'");
        }
        break;
      }
      case 'X': push(Node::of(take_str(take_le(4)))); break;     // BINUNICODE
      case 0x8c: push(Node::of(take_str(take_le(1)))); break;    // SHORT_BINUNICODE
      case 0x8d: push(Node::of(take_str(take_le(8)))); break;    // BINUNICODE8
      case 'U': push(Node::of(take_str(take_le(1)))); break;     // SHORT_BINSTRING (Python 2 str)
      case 'T': push(Node::of(take_str(take_le(4)))); break;     // BINSTRING
      case 'V': push(Node::of(take_line())); break;              // UNICODE (raw-unicode-escape)
      case 'S': {  // STRING (protocol 0): a quoted repr
        std::string s = take_line();
        if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front()) {
          fail("the STRING opcode argument must be quoted");
        }
        push(Node::of(s.substr(1, s.size() - 2)));
        break;
      }
      case 'C': push(Node::bytes(take_str(take_le(1)))); break;  // SHORT_BINBYTES
      case 'B': push(Node::bytes(take_str(take_le(4)))); break;  // BINBYTES
      case 0x8e: push(Node::bytes(take_str(take_le(8)))); break; // BINBYTES8
      case 0x96: push(Node::bytes(take_str(take_le(8)))); break; // BYTEARRAY8
      case ')': push(Node::tuple()); break;
      case 't': push(Node::tuple(pop_mark())); break;
      case 0x85: {
        auto a = pop();
        push(Node::tuple({a}));
        break;
      }
      case 0x86: {
        auto b = pop(), a = pop();
        push(Node::tuple({a, b}));
        break;
      }
      case 0x87: {
        auto c = pop(), b = pop(), a = pop();
        push(Node::tuple({a, b, c}));
        break;
      }
      case ']': push(Node::list()); break;
      case 'l': push(Node::list(pop_mark())); break;  // LIST
      case 'a': {                                     // APPEND
        auto v = pop();
        NodePtr& l = top();
        if (!l->is(Kind::List)) fail(std::string("APPEND: can only append to lists, got a ") + l->type_name());
        l->items.push_back(std::move(v));
        break;
      }
      case 'e': {  // APPENDS
        auto items = pop_mark();
        NodePtr& l = top();
        if (!l->is(Kind::List)) fail(std::string("APPENDS: can only extend lists, got a ") + l->type_name());
        for (auto& v : items) l->items.push_back(std::move(v));
        break;
      }
      case '}': push(Node::dict()); break;
      case 'd': {  // DICT
        auto items = pop_mark();
        if (items.size() % 2) fail("DICT: odd number of items");
        auto d = Node::dict();
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, items[i], items[i + 1]);
        push(std::move(d));
        break;
      }
      case 's': {  // SETITEM
        auto v = pop(), k = pop();
        set_item(top(), std::move(k), std::move(v));
        break;
      }
      case 'u': {  // SETITEMS
        auto items = pop_mark();
        if (items.size() % 2) fail("SETITEMS: odd number of items");
        NodePtr d = top();
        for (size_t i = 0; i < items.size(); i += 2) set_item(d, items[i], items[i + 1]);
        break;
      }
      case 0x8f: push(make(Kind::Set)); break;  // EMPTY_SET
      case 0x90: {                              // ADDITEMS
        auto items = pop_mark();
        NodePtr& s = top();
        if (!s->is(Kind::Set)) fail("ADDITEMS: not a set");
        add_items(*s, std::move(items));
        break;
      }
      case 0x91: {  // FROZENSET
        auto s = make(Kind::FrozenSet);
        add_items(*s, pop_mark());
        push(std::move(s));
        break;
      }
      case 'c': {  // GLOBAL
        std::string module = take_line();
        std::string name = take_line();
        resolve_global(module, name, "GLOBAL");
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        auto name = pop(), module = pop();
        if (!name->is(Kind::String) || !module->is(Kind::String)) fail("STACK_GLOBAL requires str");
        resolve_global(module->str, name->str, "STACK_GLOBAL");
        break;
      }
      case 'R': {  // REDUCE
        auto args = pop();
        reduce(top(), args);
        break;
      }
      case 0x81: {  // NEWOBJ: only Parameter(data, requires_grad)
        auto args = pop();
        NodePtr cls = top();
        if (cls->is(Kind::Global) && static_cast<G>(cls->integer) == G::Complex) {
          reduce(cls, args);  // complex.__reduce_ex__(2) goes through copyreg.__newobj__
          break;
        }
        if (!cls->is(Kind::Global) || static_cast<G>(cls->integer) != G::Parameter) {
          fail(std::string("NEWOBJ: cannot instantiate ") +
               (cls->is(Kind::Global) ? cls->str : std::string("a ") + cls->type_name()));
        }
        if (!args->is(Kind::Tuple) || args->items.empty() || args->items.size() > 2 ||
            !args->items[0]->is(Kind::Tensor)) {
          fail("NEWOBJ: Parameter takes (data, requires_grad)");
        }
        bool rg = args->items.size() < 2 || arg_bool(args->items, 1, "Parameter");
        auto p = make(Kind::Tensor);
        p->tensor = nn::Parameter(args->items[0]->tensor, rg);
        top() = std::move(p);
        break;
      }
      case 'b': {  // BUILD
        auto state = pop();
        build(state);
        break;
      }
      case 'Q': {  // BINPERSID
        auto pid = pop();
        if (!pid->is(Kind::Tuple)) fail(std::string("persistent id must be a tuple, got a ") + pid->type_name());
        push(pl_(*pid));
        break;
      }
      case 'P': fail("PERSID: text persistent ids are not used by checkpoints");
      case 'g': {  // GET
        std::string s = take_line();
        try {
          memo_get(std::stoull(s));
        } catch (const std::logic_error&) {
          fail("invalid GET index '" + s + "'");
        }
        break;
      }
      case 'h': memo_get(take_le(1)); break;
      case 'j': memo_get(take_le(4)); break;
      case 'p': {  // PUT
        std::string s = take_line();
        try {
          memo_put(std::stoull(s));
        } catch (const std::logic_error&) {
          fail("invalid PUT index '" + s + "'");
        }
        break;
      }
      case 'q': memo_put(take_le(1)); break;
      case 'r': memo_put(take_le(4)); break;
      case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
      case 'i': {  // INST: names a class and calls it
        std::string module = take_line(), name = take_line();
        resolve_global(module, name, "INST");
        fail("INST: instantiating " + module + "." + name + " is not allowed");
      }
      case 'o': fail("OBJ: instantiating objects is not allowed");
      case 0x92: fail("NEWOBJ_EX: instantiating objects is not allowed");
      case 0x82: case 0x83: case 0x84: fail("EXT: the extension registry is not allowed");
      case 0x97: case 0x98: fail("out-of-band buffers (pickle protocol 5) are not supported");
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("unsupported pickle opcode ") + hex);
      }
    }
  }
}

}  // namespace

NodePtr unpickle(const char* data, size_t n, const PersistentLoad& persistent_load,
                 const std::string& what, size_t* consumed) {
  return Unpickler(data, n, persistent_load, what).run(consumed);
}

}  // namespace ember::serialization::detail
