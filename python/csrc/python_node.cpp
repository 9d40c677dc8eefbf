// Graph nodes as Python objects: `y.grad_fn`, `next_functions`, node hooks, hook handles.
//
// Note [Python objects of nodes]
// As in PyTorch, a built-in node (MulBackward0, AccumulateGrad) gets a Python object of a class
// named after it (`type(y.grad_fn).__name__ == "MulBackward0"`) only when Python asks for it.
// The object owns the node (shared_ptr); the node does not own the object (that would be a
// cycle C++ can't break), but a table maps each node to its live object, so `y.grad_fn is
// y.grad_fn` while anyone holds it. What must outlive the object (its `metadata` dict) lives with
// the node: in a holder owned by a no-op pre-hook, dropped when the node dies.
// A Python Function's node is different: its object is the ctx (python_function.cpp), owned by
// the node, so attributes set on the ctx survive as long as the graph.
#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "autograd/autograd_meta.h"
#include "autograd/functions.h"
#include "autograd/record.h"
#include "autograd_python.h"
#include "ember/autograd/saved_variable.h"

namespace ember::python {

using autograd::Node;
using autograd::tensor_list;

GilRef::GilRef(py::object obj)
    : ref_(new py::object(std::move(obj)), [](py::object* p) {
        if (Py_IsInitialized()) {
          py::gil_scoped_acquire gil;
          delete p;
        } else {
          p->release();  // interpreter gone: nothing left to free it into
          delete p;
        }
      }) {}

namespace {

// ---- hook handles ----

struct RemovableHandle {
  unsigned id = 0;
  std::function<void()> remove;
};

// ---- built-in nodes' objects ----

struct CppNodeObject {
  std::shared_ptr<Node> node;
  ~CppNodeObject();
};

std::unordered_map<const Node*, PyObject*>& live_objects() {
  static auto* m = new std::unordered_map<const Node*, PyObject*>();  // outlives the interpreter
  return *m;
}

CppNodeObject::~CppNodeObject() {
  if (node) live_objects().erase(node.get());
}

PyObject* g_cpp_node_base = nullptr;  // ember._C._autograd._CppNode
PyObject* g_node_classes = nullptr;   // dict: node name -> its class

// The class named after a node, created on first use as a subclass of _CppNode (module
// "builtins", so that `type(fn)` reads `<class 'MulBackward0'>` as in PyTorch).
py::object class_for(const std::string& name) {
  py::dict classes = py::reinterpret_borrow<py::dict>(g_node_classes);
  py::str key(name);
  if (classes.contains(key)) return classes[key];
  py::dict ns;
  ns["__module__"] = "builtins";
  py::object metaclass = py::reinterpret_borrow<py::object>(
      reinterpret_cast<PyObject*>(Py_TYPE(g_cpp_node_base)));
  py::object cls = metaclass(key, py::make_tuple(py::handle(g_cpp_node_base)), ns);
  classes[key] = cls;
  return cls;
}

struct MetadataHolder {
  const Node* key = nullptr;
  PyObject* dict = nullptr;
  ~MetadataHolder();
};
std::unordered_map<const Node*, PyObject*>& metadata_dicts() {
  static auto* m = new std::unordered_map<const Node*, PyObject*>();
  return *m;
}
MetadataHolder::~MetadataHolder() {
  metadata_dicts().erase(key);
  if (!dict || !Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(dict);
}

// The no-op pre-hook that keeps a node's metadata dict alive as long as the node.
struct MetadataKeeper {
  std::shared_ptr<MetadataHolder> holder;
  tensor_list operator()(const tensor_list&) const { return {}; }
};

py::dict metadata_of(const std::shared_ptr<Node>& node) {
  auto& dicts = metadata_dicts();
  if (auto it = dicts.find(node.get()); it != dicts.end())
    return py::reinterpret_borrow<py::dict>(it->second);
  auto holder = std::make_shared<MetadataHolder>();
  holder->key = node.get();
  holder->dict = PyDict_New();
  dicts[node.get()] = holder->dict;
  node->register_prehook(MetadataKeeper{holder});
  return py::reinterpret_borrow<py::dict>(holder->dict);
}

const std::shared_ptr<Node>& node_of(const CppNodeObject& self) {
  EMBER_CHECK(self.node, "this node object is not attached to a graph node");
  return self.node;
}

// ---- saved values (Note [Saved values of built-in nodes] in autograd/record.h) ----

// `_raw_saved_<name>`: one saved tensor of a node (PyTorch's torch._C._autograd.SavedTensor).
// It keeps the node alive, so the slot it names stays valid.
struct SavedTensorObject {
  std::shared_ptr<autograd::OpNode> node;
  size_t slot = 0;
};

// A non-tensor value as PyTorch 1.13's generated getters return it: int64 values (and int
// lists) through PyLong_FromUnsignedLong, so -1 reads 2**64 - 1 as there; Scalars signed.
py::object saved_value_to_py(const autograd::OpNode::NamedValue& nv) {
  const Value& v = nv.value;
  const auto as_unsigned = [](int64_t i) {
    return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(static_cast<uint64_t>(i)));
  };
  if (v.is_int() && !nv.scalar) return as_unsigned(v.to_int());
  if (v.is_int_list()) {
    const auto& l = v.to_int_list();
    py::tuple t(l.size());
    for (size_t i = 0; i < l.size(); ++i) t[i] = as_unsigned(l[i]);
    return t;
  }
  if (v.is_double_list()) return py::tuple(value_to_py(v));
  return value_to_py(v);
}

enum class SavedKind { Tensor, Raw };

// What `_saved_<name>` / `_raw_saved_<name>` of this node is; null when the node has no such
// attribute (its class got it from another node of the same name).
py::object saved_attribute(const std::shared_ptr<Node>& node, const std::string& name, SavedKind kind) {
  auto op = std::dynamic_pointer_cast<autograd::OpNode>(node);
  if (!op) return py::object();
  auto& slots = op->saved_slots();
  const auto one = [&](size_t i) -> py::object {
    if (kind == SavedKind::Raw) return py::cast(SavedTensorObject{op, i});
    return py::reinterpret_steal<py::object>(wrap(op->saved(i)));
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i].name || name != slots[i].name) continue;
    if (!slots[i].in_list) return one(i);
    py::list items;
    for (size_t j = i; j < slots.size() && slots[j].in_list && slots[j].name == slots[i].name; ++j)
      items.append(one(j));
    return py::tuple(items);
  }
  if (kind == SavedKind::Tensor) {
    for (const auto& nv : op->values())
      if (name == nv.name) return saved_value_to_py(nv);
  }
  return py::object();
}

// The attribute names of a node's saved values, as `dir()` lists them.
std::vector<std::string> saved_attribute_names(const Node& node) {
  std::vector<std::string> names;
  auto* op = dynamic_cast<const autograd::OpNode*>(&node);
  if (!op) return names;
  for (const auto& s : const_cast<autograd::OpNode*>(op)->saved_slots()) {
    if (!s.name) continue;
    std::string n = std::string("_saved_") + s.name;
    if (std::find(names.begin(), names.end(), n) != names.end()) continue;
    names.push_back(n);
    names.push_back(std::string("_raw_saved_") + s.name);
  }
  for (const auto& nv : op->values()) names.push_back(std::string("_saved_") + nv.name);
  return names;
}

// Gives a node's class a property per saved value of `node` it lacks (as PyTorch's generated
// classes have: `dir(grad_fn)` lists them, `type(grad_fn)._saved_self` is a descriptor).
void add_saved_properties(py::object cls, const Node& node) {
  for (const std::string& attr : saved_attribute_names(node)) {
    py::str key(attr);
    if (py::hasattr(cls, key)) continue;
    const bool raw = attr.rfind("_raw_saved_", 0) == 0;
    const std::string name = attr.substr(raw ? 11 : 7);
    py::cpp_function getter([name, raw, attr](const CppNodeObject& self) {
      const auto& node = node_of(self);
      py::object r = saved_attribute(node, name, raw ? SavedKind::Raw : SavedKind::Tensor);
      if (!r) throw py::attribute_error("'" + node->name() + "' object has no attribute '" + attr + "'");
      return r;
    });
    py::object prop = py::module_::import("builtins").attr("property")(getter);
    py::setattr(cls, key, prop);
  }
}

std::string hook_name(const py::object& hook) {
  if (py::hasattr(hook, "__name__")) return py::str(hook.attr("__name__"));
  return "<unknown>";
}

py::tuple to_tuple(const tensor_list& ts) {
  py::tuple r(ts.size());
  for (size_t i = 0; i < ts.size(); ++i)
    r[i] = py::reinterpret_steal<py::object>(wrap(ts[i]));
  return r;
}

// A node hook's tuple result against what it replaces (PyTorch's check_result).
tensor_list check_tuple_result(const py::object& hook, const tensor_list& prev,
                               const py::object& result) {
  if (result.is_none()) return {};
  if (!PyTuple_Check(result.ptr())) {
    throw py::type_error(std::string("expected tuple, but hook returned '") +
                         Py_TYPE(result.ptr())->tp_name + "'");
  }
  py::tuple r = py::reinterpret_borrow<py::tuple>(result);
  EMBER_CHECK(r.size() == prev.size(), "hook '", hook_name(hook),
              "' has returned an incorrect number of values (got ", r.size(), ", but expected ",
              prev.size(), ")");
  tensor_list out;
  for (size_t i = 0; i < prev.size(); ++i) {
    py::object item = r[i];
    if (item.is_none()) {
      out.emplace_back();
      continue;
    }
    Tensor replaced = check_hook_result(hook, prev[i], item);
    out.push_back(replaced.defined() ? replaced : prev[i]);
  }
  return out;
}

}  // namespace

Tensor check_hook_result(const py::object& hook, const Tensor& grad, const py::object& result) {
  if (result.is_none()) return Tensor();
  EMBER_CHECK(grad.defined(), "can't replace a None gradient with a non-None value");
  if (!is_tensor(result.ptr())) {
    throw py::type_error(std::string("expected Variable, but hook returned '") +
                         Py_TYPE(result.ptr())->tp_name + "'");
  }
  const Tensor& r = unpack(result.ptr());
  if (r.dtype() != grad.dtype() || r.device() != grad.device()) {
    EMBER_FAIL("hook '", hook_name(hook), "' has changed the type of value (was ",
               autograd::legacy_type_name(grad), " got ", autograd::legacy_type_name(r), ")");
  }
  EMBER_CHECK(r.sizes() == grad.sizes(), "hook '", hook_name(hook),
              "' has changed the size of value");
  return r;
}

py::object make_handle(unsigned id, std::function<void()> remove) {
  return py::cast(RemovableHandle{id, std::move(remove)});
}

py::object node_to_py(const std::shared_ptr<Node>& node) {
  if (!node) return py::none();
  if (PyObject* ctx = function_node_object(node.get()))
    return py::reinterpret_borrow<py::object>(ctx);
  auto& live = live_objects();
  if (auto it = live.find(node.get()); it != live.end())
    return py::reinterpret_borrow<py::object>(it->second);
  py::object cls = class_for(node->name());
  add_saved_properties(cls, *node);
  py::object obj = cls();
  obj.cast<CppNodeObject&>().node = node;
  live[node.get()] = obj.ptr();
  return obj;
}

py::tuple next_functions_of(const Node& node) {
  const auto& edges = node.next_edges();
  py::tuple r(edges.size());
  for (size_t i = 0; i < edges.size(); ++i)
    r[i] = py::make_tuple(node_to_py(edges[i].function), edges[i].input_nr);
  return r;
}

namespace {
// Node hooks calling Python callables (named, for Note [Reference cycles through autograd]).
struct PyNodeHook {
  GilRef hook;
  tensor_list operator()(const tensor_list& grad_inputs, const tensor_list& grad_outputs) const {
    py::gil_scoped_acquire gil;
    py::object r = hook.get()(to_tuple(grad_inputs), to_tuple(grad_outputs));
    return check_tuple_result(hook.get(), grad_inputs, r);
  }
};
struct PyNodePreHook {
  GilRef hook;
  tensor_list operator()(const tensor_list& grad_outputs) const {
    py::gil_scoped_acquire gil;
    py::object r = hook.get()(to_tuple(grad_outputs));
    return check_tuple_result(hook.get(), grad_outputs, r);
  }
};

#define EMBER_VISIT(obj)                          \
  do {                                            \
    if (PyObject* o_ = (obj)) {                   \
      if (int err_ = visit(o_, arg)) return err_; \
    }                                             \
  } while (0)

int traverse_tensor_hooks(const std::vector<Node::TensorHookEntry>& hooks, visitproc visit,
                          void* arg) {
  for (const auto& h : hooks) {
    if (const auto* f = h.fn.target<PyTensorHook>()) EMBER_VISIT(f->hook.ptr());
    if (const auto* f = h.fn.target<PyTensorHookDict>()) EMBER_VISIT(f->dict.ptr());
  }
  return 0;
}

int traverse_node(const Node& node, visitproc visit, void* arg) {
  EMBER_VISIT(function_node_object(&node));  // a Python Function's ctx, owned by its node
  if (int err = traverse_tensor_hooks(node.tensor_pre_hooks(), visit, arg)) return err;
  for (const auto& [id, h] : node.pre_hooks()) {
    if (const auto* f = h.target<PyNodePreHook>()) EMBER_VISIT(f->hook.ptr());
    if (const auto* f = h.target<MetadataKeeper>()) EMBER_VISIT(f->holder->dict);
  }
  for (const auto& [id, h] : node.post_hooks()) {
    if (const auto* f = h.target<PyNodeHook>()) EMBER_VISIT(f->hook.ptr());
  }
  return 0;
}
}  // namespace

int traverse_autograd_state(const Tensor& t, visitproc visit, void* arg) {
  const auto* m = autograd::get_meta(t);
  if (!m) return 0;
  if (int err = traverse_tensor_hooks(m->leaf_hooks_, visit, arg)) return err;
  for (const auto& [id, h] : m->post_acc_hooks_) {
    if (const auto* f = h.target<PyPostAccumulateHook>()) EMBER_VISIT(f->hook.ptr());
  }
  // The node only when this tensor is its sole owner: else C++ (the graph, a node object)
  // holds it too, and is a root the GC can't see.
  if (m->grad_fn_ && m->grad_fn_.use_count() == 1) return traverse_node(*m->grad_fn_, visit, arg);
  return 0;
}
#undef EMBER_VISIT

py::object register_node_hook(const std::shared_ptr<Node>& node, py::object fn) {
  const unsigned id = node->register_hook(PyNodeHook{GilRef(fn)});
  std::weak_ptr<Node> weak = node;
  return make_handle(id, [weak, id] {
    if (auto n = weak.lock()) n->remove_hook(id);
  });
}

py::object register_node_prehook(const std::shared_ptr<Node>& node, py::object fn) {
  const unsigned id = node->register_prehook(PyNodePreHook{GilRef(fn)});
  std::weak_ptr<Node> weak = node;
  return make_handle(id, [weak, id] {
    if (auto n = weak.lock()) n->remove_hook(id);
  });
}

void init_python_node(py::module_& m) {
  py::class_<RemovableHandle>(m, "RemovableHandle")
      .def_readonly("id", &RemovableHandle::id)
      .def("remove", [](RemovableHandle& h) {
        if (!h.remove) return;
        auto remove = std::move(h.remove);
        h.remove = nullptr;
        remove();
      })
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](RemovableHandle& h, py::args) {
        if (!h.remove) return;
        auto remove = std::move(h.remove);
        h.remove = nullptr;
        remove();
      });

  py::class_<SavedTensorObject>(m, "SavedTensor")
      .def("register_hooks", [](const SavedTensorObject& self, py::function pack, py::function unpack) {
        self.node->saved_slots()[self.slot].var.register_hooks(
            make_python_saved_tensor_hooks(std::move(pack), std::move(unpack)));
      });

  auto base = py::class_<CppNodeObject>(m, "_CppNode")
      .def(py::init<>())
      .def("name", [](const CppNodeObject& self) { return node_of(self)->name(); })
      .def_property_readonly("next_functions", [](const CppNodeObject& self) {
        return next_functions_of(*node_of(self));
      })
      .def_property_readonly("metadata", [](const CppNodeObject& self) {
        return metadata_of(node_of(self));
      })
      .def("register_hook", [](const CppNodeObject& self, py::object fn) {
        return register_node_hook(node_of(self), std::move(fn));
      })
      .def("register_prehook", [](const CppNodeObject& self, py::object fn) {
        return register_node_prehook(node_of(self), std::move(fn));
      })
      .def_property_readonly("requires_grad", [](const CppNodeObject&) { return true; })
      .def_property_readonly("_sequence_nr", [](const CppNodeObject& self) {
        return node_of(self)->sequence_nr();
      })
      .def_property_readonly("variable", [](const CppNodeObject& self) -> Tensor {
        // AccumulateGrad's leaf (the only node with one; others raise AttributeError).
        auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node_of(self).get());
        if (!acc) {
          throw py::attribute_error(std::string("'") + node_of(self)->name() +
                                    "' object has no attribute 'variable'");
        }
        return acc->variable();
      })
      .def("__repr__", [](py::handle self) {
        return py::reinterpret_steal<py::object>(
            PyUnicode_FromFormat("<%s object at %p>", Py_TYPE(self.ptr())->tp_name, self.ptr()));
      });
  g_cpp_node_base = base.ptr();
  Py_INCREF(g_cpp_node_base);
  g_node_classes = PyDict_New();
}

}  // namespace ember::python
