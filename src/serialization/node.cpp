// Checkpoint trees (ember::serialization::Node) and their conversions to ember's C++ types.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "ember/nn/module.h"
#include "ember/nn/state_dict.h"
#include "ember/optim/optimizer.h"
#include "ember/serialization.h"

namespace ember::serialization {
namespace {
using Kind = Node::Kind;
NodePtr make(Kind k) {
  auto n = std::make_shared<Node>();
  n->kind = k;
  return n;
}
}  // namespace

Node::~Node() {
  // Children this node alone owns are taken apart here, one level at a time, instead of by
  // recursive destructors.
  std::vector<NodePtr> work;
  auto take = [&](Node& n) {
    for (auto& x : n.items) work.push_back(std::move(x));
    for (auto& [k, v] : n.entries) {
      work.push_back(std::move(k));
      work.push_back(std::move(v));
    }
    if (n.metadata) work.push_back(std::move(n.metadata));
    n.items.clear();
    n.entries.clear();
  };
  take(*this);
  while (!work.empty()) {
    NodePtr n = std::move(work.back());
    work.pop_back();
    if (n && n.use_count() == 1) take(*n);
  }
}

NodePtr Node::none() { return make(Kind::None); }
NodePtr Node::of(bool v) {
  auto n = make(Kind::Bool);
  n->boolean = v;
  return n;
}
NodePtr Node::of(int64_t v) {
  auto n = make(Kind::Int);
  n->integer = v;
  return n;
}
NodePtr Node::of(double v) {
  auto n = make(Kind::Float);
  n->real = v;
  return n;
}
NodePtr Node::of(std::string v) {
  auto n = make(Kind::String);
  n->str = std::move(v);
  return n;
}
NodePtr Node::of(const Tensor& t) {
  auto n = make(Kind::Tensor);
  n->tensor = t;
  return n;
}
NodePtr Node::of(ScalarType t) {
  auto n = make(Kind::DType);
  n->dtype = t;
  return n;
}
NodePtr Node::of(Device d) {
  auto n = make(Kind::Device);
  n->device = d;
  n->str = d.str();
  return n;
}
NodePtr Node::bytes(std::string v) {
  auto n = make(Kind::Bytes);
  n->str = std::move(v);
  return n;
}
NodePtr Node::list(std::vector<NodePtr> items) {
  auto n = make(Kind::List);
  n->items = std::move(items);
  return n;
}
NodePtr Node::tuple(std::vector<NodePtr> items) {
  auto n = make(Kind::Tuple);
  n->items = std::move(items);
  return n;
}
NodePtr Node::dict(bool ordered) {
  auto n = make(Kind::Dict);
  n->ordered = ordered;
  return n;
}
NodePtr Node::size(std::vector<int64_t> sizes) {
  auto n = make(Kind::Size);
  for (int64_t s : sizes) n->items.push_back(of(s));
  return n;
}

NodePtr Node::get(const std::string& key) const {
  EMBER_CHECK_TYPE(kind == Kind::Dict, "expected a dict, got ", type_name());
  for (const auto& [k, v] : entries) {
    if (k->kind == Kind::String && k->str == key) return v;
  }
  return nullptr;
}

const NodePtr& Node::at(const std::string& key) const {
  EMBER_CHECK_TYPE(kind == Kind::Dict, "expected a dict, got ", type_name());
  for (const auto& kv : entries) {
    if (kv.first->kind == Kind::String && kv.first->str == key) return kv.second;
  }
  EMBER_FAIL_KIND(ErrorKind::Key, "'", key, "'");
}

const char* Node::type_name() const {
  switch (kind) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Complex: return "complex";
    case Kind::String: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tensor: return tensor.defined() && tensor.is_parameter() ? "Parameter" : "Tensor";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return ordered ? "OrderedDict" : "dict";
    case Kind::Set: return "set";
    case Kind::FrozenSet: return "frozenset";
    case Kind::Size: return "Size";
    case Kind::DType: return "dtype";
    case Kind::Device: return "device";
    case Kind::QScheme: return "qscheme";
    case Kind::Storage: return "storage";
    case Kind::Global: return str.c_str();
  }
  return "object";
}

NodePtr to_node(const Value& v) {
  const auto& s = v.storage();
  if (v.is_none()) return Node::none();
  if (v.is_tensor()) return v.to_tensor().defined() ? Node::of(v.to_tensor()) : Node::none();
  if (v.is_bool()) return Node::of(v.to_bool());
  if (v.is_int()) return Node::of(v.to_int());
  if (v.is_double()) return Node::of(v.to_double());
  if (v.is_string()) return Node::of(v.to_string_value());
  if (v.is_dtype()) return Node::of(v.to_dtype());
  if (v.is_device()) return Node::of(v.to_device());
  if (v.is_int_list()) {
    auto l = Node::list();
    for (int64_t i : v.to_int_list()) l->items.push_back(Node::of(i));
    return l;
  }
  if (v.is_double_list()) {
    auto l = Node::list();
    for (double d : v.to_double_list()) l->items.push_back(Node::of(d));
    return l;
  }
  if (v.is_tensor_list()) {
    // A module's tuple entry (quantized Linear's (weight, bias)): a tuple, None for no bias.
    auto t = Node::tuple();
    for (const Tensor& x : v.to_tensor_list()) t->items.push_back(x.defined() ? Node::of(x) : Node::none());
    return t;
  }
  if (v.is_optional_tensor_list()) {
    auto t = Node::list();
    for (const auto& x : std::get<Value::OptionalTensorList>(s)) {
      t->items.push_back(x && x->defined() ? Node::of(*x) : Node::none());
    }
    return t;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "cannot save a value of type ", v.type_name());
}

namespace {
// Python interns name-like strings ('version', 'weight'), so torch.save memoizes them as one
// object; one node per such string gives the same bytes.
struct Interned {
  std::unordered_map<std::string, NodePtr> nodes;
  NodePtr operator()(const std::string& s) {
    bool name_like = std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (!name_like) return Node::of(s);
    auto& n = nodes[s];
    if (!n) n = Node::of(s);
    return n;
  }
};
}  // namespace

NodePtr to_node(const nn::StateDict& sd) {
  Interned str;
  auto d = Node::dict(/*ordered=*/true);
  // One node per tensor impl: tied weights stay one object, as in Python.
  std::unordered_map<const TensorImpl*, NodePtr> seen;
  for (const auto& [k, v] : sd.items()) {
    NodePtr n;
    if (v.is_tensor() && v.to_tensor().defined()) {
      auto& slot = seen[v.to_tensor().impl()];
      if (!slot) slot = Node::of(v.to_tensor());
      n = slot;
    } else {
      n = to_node(v);
    }
    d->set(str(k), n);
  }
  if (sd.metadata) {
    auto md = Node::dict(true);
    for (const auto& [prefix, local] : *sd.metadata) {
      auto ld = Node::dict(false);
      for (const auto& [name, value] : local) ld->set(str(name), to_node(value));
      md->set(str(prefix), ld);
    }
    d->metadata = md;
  }
  return d;
}

NodePtr to_node(const optim::OptimizerStateDict& sd) {
  auto state = Node::dict();
  for (const auto& [index, values] : sd.state) {
    auto one = Node::dict();
    for (const auto& [name, value] : values) one->set(name, to_node(value));
    state->set(Node::of(index), one);
  }
  auto groups = Node::list();
  for (const auto& g : sd.param_groups) {
    auto one = Node::dict();
    for (const auto& [name, value] : g) one->set(name, to_node(value));
    groups->items.push_back(one);
  }
  auto d = Node::dict();
  d->set("state", state);
  d->set("param_groups", groups);
  return d;
}

Value to_value(const Node& n) {
  switch (n.kind) {
    case Kind::None: return Value();
    case Kind::Bool: return Value(n.boolean);
    case Kind::Int: return Value(n.integer);
    case Kind::Float: return Value(n.real);
    case Kind::String: return Value(n.str);
    case Kind::Tensor: return Value(n.tensor);
    case Kind::DType: return Value(n.dtype);
    case Kind::Device:
      EMBER_CHECK(n.str.rfind("cuda", 0) != 0, "cannot load device '", n.str,
                  "': ember has no CUDA devices");
      return Value(n.device);
    case Kind::List:
    case Kind::Tuple:
    case Kind::Size: {
      if (n.items.empty()) return Value(std::vector<int64_t>{});
      bool all_int = true, all_num = true, all_tensor = true;
      for (const auto& x : n.items) {
        all_int &= x->is(Kind::Int);
        all_num &= x->is(Kind::Int) || x->is(Kind::Float);
        all_tensor &= x->is(Kind::Tensor) || x->is(Kind::None);
      }
      if (all_int) {
        std::vector<int64_t> v;
        for (const auto& x : n.items) v.push_back(x->integer);
        return Value(std::move(v));
      }
      if (all_num) {
        std::vector<double> v;
        for (const auto& x : n.items) v.push_back(x->is(Kind::Int) ? double(x->integer) : x->real);
        return Value(std::move(v));
      }
      if (all_tensor) {
        std::vector<Tensor> v;
        for (const auto& x : n.items) v.push_back(x->is(Kind::Tensor) ? x->tensor : Tensor());
        return Value(std::move(v));
      }
      break;
    }
    default: break;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "a checkpoint's ", n.type_name(),
                  " has no ember::Value form (read it from the Node tree)");
}

nn::StateDict to_state_dict(const Node& n) {
  EMBER_CHECK_TYPE(n.is(Kind::Dict), "expected a state_dict (a dict of names to tensors), got a ",
                   n.type_name());
  nn::StateDict sd;
  for (const auto& [k, v] : n.entries) {
    EMBER_CHECK_TYPE(k->is(Kind::String), "state_dict keys must be str, got ", k->type_name());
    sd.insert(k->str, to_value(*v));
  }
  if (n.metadata) {
    std::vector<std::pair<std::string, nn::LocalMetadata>> md;
    for (const auto& [k, v] : n.metadata->entries) {
      EMBER_CHECK_TYPE(k->is(Kind::String) && v->is(Kind::Dict),
                       "state_dict _metadata must map str to dict");
      nn::LocalMetadata local;
      for (const auto& [name, value] : v->entries) {
        EMBER_CHECK_TYPE(name->is(Kind::String), "state_dict _metadata keys must be str");
        local[name->str] = to_value(*value);
      }
      md.emplace_back(k->str, std::move(local));
    }
    sd.metadata = std::move(md);
  }
  return sd;
}

optim::OptimizerStateDict to_optimizer_state_dict(const Node& n) {
  EMBER_CHECK_TYPE(n.is(Kind::Dict), "expected an optimizer state_dict, got a ", n.type_name());
  optim::OptimizerStateDict sd;
  const NodePtr& state = n.at("state");
  EMBER_CHECK_TYPE(state->is(Kind::Dict), "optimizer state_dict['state'] must be a dict");
  for (const auto& [k, v] : state->entries) {
    EMBER_CHECK_TYPE(k->is(Kind::Int) && v->is(Kind::Dict),
                     "optimizer state_dict['state'] must map int to dict");
    optim::ValueDict d;
    for (const auto& [name, value] : v->entries) {
      EMBER_CHECK_TYPE(name->is(Kind::String), "optimizer state names must be str");
      d.set(name->str, to_value(*value));
    }
    sd.state[k->integer] = std::move(d);
  }
  const NodePtr& groups = n.at("param_groups");
  EMBER_CHECK_TYPE(groups->is(Kind::List), "optimizer state_dict['param_groups'] must be a list");
  for (const auto& g : groups->items) {
    EMBER_CHECK_TYPE(g->is(Kind::Dict), "a param group must be a dict");
    optim::ValueDict d;
    for (const auto& [name, value] : g->entries) {
      EMBER_CHECK_TYPE(name->is(Kind::String), "param group keys must be str");
      d.set(name->str, to_value(*value));
    }
    sd.param_groups.push_back(std::move(d));
  }
  return sd;
}

}  // namespace ember::serialization
