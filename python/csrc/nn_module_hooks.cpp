// Module calls and module lifetimes across the boundary: Module.__call__, the front-end call that
// C++ parents make into modules with Python hooks (Note [Module hooks across the boundary] in
// src/nn/module.cpp), and the cyclic GC's view of the C++ module tree.
//
// Note [Python state of C++-held modules]
// A module built in C++ (a child of ember.vision.models.resnet18()) gets a Python object only
// when Python asks for it, and C++ keeps the module, not the object. Python state put on that
// object (hooks, attributes) must outlive the object's last Python reference while C++ still
// holds the module, or `model.layer1[0].conv1.register_forward_hook(h)` would be forgotten as
// soon as the temporary object dies. So when such an object would be freed while its module is
// shared with C++ (holder use count > 1) and its __dict__ holds something, the dealloc
// resurrects it and the module owns it (Module::front_end_object): the same object, with its
// dict and id, comes back through module_to_py. Both stay alive until the GC sees them as
// garbage (below).
//
// Note [Modules and the cyclic GC]
// Reference cycles through C++ (a child's __dict__ holding its parent, a hook closure holding
// its module) must be collectable. The references C++ holds on Python objects are: a Python
// module child's object (PyObjectRef, Note [Python modules under C++ parents]) and a preserved
// object (above). A module object's tp_traverse reports them, and its __dict__, only when the
// object alone owns its C++ module (holder use count 1) or is preserved by it: then everything
// the module reaches is reachable only through the object. Otherwise C++ shares the module and
// nothing is reported, so the GC treats what the object holds as externally reachable — never
// freeing what a live C++ tree still uses. The walk goes through C++-held children (which have
// no object of their own to report them) down to the next Python object. tp_clear drops the same
// references (the dict, Python children, the preserved object).
#include <algorithm>
#include <unordered_set>
#include <vector>

#include "nn.h"

#include "ember/nn/module.h"

namespace ember::python {

namespace {

// Module._call_impl's slow path (ember/nn/modules/module.py), set at import.
py::object g_slow_call;

// Access to the child slots (protected in nn::Module).
struct ChildAccess : nn::Module {
  using Children = std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>;
  static const Children& of(const nn::Module& m) {
    return (m.*(&ChildAccess::child_slots))();
  }
};

// The C++ module of an initialised module object, and whether only the object owns it.
nn::Module* module_of(PyObject* self, long* use_count) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto v_h = inst->get_value_and_holder();
  if (!v_h || !v_h.holder_constructed()) return nullptr;
  // Every module class's holder is a std::shared_ptr<T> for some T derived from Module.
  if (use_count) *use_count = v_h.holder<std::shared_ptr<void>>().use_count();
  try {
    return py::handle(self).cast<nn::Module*>();
  } catch (const py::cast_error&) {
    return nullptr;
  }
}

PyObject* preserved_object(nn::Module& m) { return static_cast<PyObject*>(m.front_end_object().get()); }

// Whether the GC may look inside `self` (Note [Modules and the cyclic GC]): `self` alone owns
// its module, or is preserved by it. `module` is null for an object before Module.__init__;
// `uses` is the module's holder use count.
bool owned_by_object(PyObject* self, nn::Module*& module, long& uses) {
  uses = 0;
  module = module_of(self, &uses);
  return !module || uses == 1 || preserved_object(*module) == self;
}

// Visits the Python objects C++ holds below `m` (children's objects, preserved objects),
// walking through C++-held children.
int visit_tree(nn::Module& m, visitproc visit, void* arg, std::unordered_set<nn::Module*>& seen) {
  for (const auto& [name, child] : ChildAccess::of(m)) {
    if (!child || !seen.insert(child.get()).second) continue;
    if (auto* ref = std::get_deleter<PyObjectRef>(child)) {
      Py_VISIT(ref->obj);
      continue;
    }
    if (PyObject* kept = preserved_object(*child)) {
      Py_VISIT(kept);
      continue;
    }
    if (int r = visit_tree(*child, visit, arg, seen)) return r;
  }
  return 0;
}

extern "C" int module_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  nn::Module* m = nullptr;
  long uses = 0;
  if (!owned_by_object(self, m, uses)) return 0;  // shared with C++
  // A Python subclass's dict is visited by subtype_traverse, which then calls this.
  if (Py_TYPE(self)->tp_traverse == module_traverse) {
    PyObject** dict = _PyObject_GetDictPtr(self);
    if (dict) Py_VISIT(*dict);
  }
  if (!m) return 0;
  // The module's reference to its preserved object: reported here only when no C++ parent
  // holds the module (otherwise the parent's walk reports it, once).
  if (PyObject* kept = preserved_object(*m); kept && uses == 1) Py_VISIT(kept);
  std::unordered_set<nn::Module*> seen;
  return visit_tree(*m, visit, arg, seen);
}

// Drops the Python children below `m` (through C++-held ones), for tp_clear.
void clear_tree(nn::Module& m, std::unordered_set<nn::Module*>& seen) {
  std::vector<std::string> python_children;
  for (const auto& [name, child] : ChildAccess::of(m)) {
    if (!child || !seen.insert(child.get()).second) continue;
    if (std::get_deleter<PyObjectRef>(child)) {
      python_children.push_back(name);
    } else if (!preserved_object(*child)) {
      clear_tree(*child, seen);
    }
  }
  for (const auto& name : python_children) m.replace_module(name, nullptr);
}

extern "C" int module_clear(PyObject* self) {
  nn::Module* m = nullptr;
  long uses = 0;
  if (!owned_by_object(self, m, uses)) return 0;
  PyObject** dict = _PyObject_GetDictPtr(self);
  if (dict) Py_CLEAR(*dict);
  if (!m) return 0;
  std::unordered_set<nn::Module*> seen;
  clear_tree(*m, seen);
  if (preserved_object(*m) == self) {
    std::shared_ptr<void> kept = std::move(m->front_end_object());
    m->front_end_object().reset();
    kept.reset();  // may free self's last reference: nothing after this touches self
  }
  return 0;
}

destructor g_pybind_dealloc = nullptr;

extern "C" void module_dealloc(PyObject* self) {
  // Only objects of the C++ classes themselves: a Python subclass instance that C++ holds is
  // kept alive by its PyObjectRef and never gets here while shared.
  if (Py_TYPE(self)->tp_dealloc == module_dealloc) {
    long uses = 0;
    nn::Module* m = module_of(self, &uses);
    PyObject** dict = _PyObject_GetDictPtr(self);
    if (m && uses > 1 && dict && *dict && PyDict_Size(*dict) > 0) {
      // Note [Python state of C++-held modules]: resurrect; the module owns the reference.
      Py_SET_REFCNT(self, 1);
      m->front_end_object() = std::shared_ptr<void>(self, [](void* p) {
        if (!Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        Py_DECREF(static_cast<PyObject*>(p));
      });
      return;
    }
  }
  g_pybind_dealloc(self);
}

// C++ parents call modules with Python hooks through their Python __call__.
Value front_end_call(nn::Module& m, std::vector<Value>& inputs) {
  py::gil_scoped_acquire gil;
  py::object self = module_to_py(m.shared_from_this());
  py::tuple args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) args[i] = value_to_py(inputs[i]);
  return py_to_value(self(*args), "forward result");
}

// Module.__call__ (METH_FASTCALL): self.forward(*args, **kwargs) unless a hook may run (one
// flag test, Note [Module hooks across the boundary]); then module.py's _call_impl, PyTorch's
// algorithm. Written against the C API: it is on the path of every module call.
PyObject* module_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto v_h = inst->get_value_and_holder();
  // Every module class derives from nn::Module alone, first, so the value pointer is the
  // Module's address.
  auto* mod = v_h && v_h.holder_constructed() ? static_cast<nn::Module*>(v_h.value_ptr()) : nullptr;
  if (mod && !mod->has_forward_hooks()) {
    static PyObject* forward_name = PyUnicode_InternFromString("forward");
    PyObject* forward = PyObject_GetAttr(self, forward_name);
    if (!forward) return nullptr;
    PyObject* out = PyObject_Vectorcall(forward, args, static_cast<size_t>(nargs), kwnames);
    Py_DECREF(forward);
    return out;
  }
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  std::vector<PyObject*> stack(static_cast<size_t>(1 + nargs + nkw));
  stack[0] = self;
  std::copy(args, args + nargs + nkw, stack.begin() + 1);
  return PyObject_Vectorcall(g_slow_call.ptr(), stack.data(), static_cast<size_t>(1 + nargs), kwnames);
}

PyMethodDef g_call_def = {"__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&module_call)),
                          METH_FASTCALL | METH_KEYWORDS, "Module.__call__: hooks and forward."};

py::object values_to_tuple(const std::vector<Value>& values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i) t[i] = value_to_py(values[i]);
  return t;
}

std::vector<Value> tuple_to_values(py::handle args) {
  std::vector<Value> in;
  for (auto a : args) in.push_back(py_to_value(a, "argument of a module with C++ hooks"));
  return in;
}

}  // namespace

void init_nn_module_hooks(py::module_& m, py::handle cls) {
  nn::Module::set_front_end_call(&front_end_call);
  m.def("_set_slow_call", [](py::object fn) { g_slow_call = std::move(fn); });
  m.def("_set_global_hooks", [](bool on) { nn::Module::set_front_end_global_hooks(on); });
  m.def("_install_gc_support", [](py::handle root) {
    // Every C++ module class bound so far (Note [Modules and the cyclic GC]); Python subclasses
    // reach these slots through their bases.
    std::vector<py::handle> todo{root};
    while (!todo.empty()) {
      auto* type = reinterpret_cast<PyTypeObject*>(todo.back().ptr());
      todo.pop_back();
      const py::detail::type_info* info = py::detail::get_type_info(type);
      if (type->tp_dealloc != module_dealloc && info != nullptr && info->type == type) {
        if (!g_pybind_dealloc) g_pybind_dealloc = type->tp_dealloc;
        type->tp_dealloc = module_dealloc;
        type->tp_traverse = module_traverse;
        type->tp_clear = module_clear;
      }
      for (auto sub : py::handle(reinterpret_cast<PyObject*>(type)).attr("__subclasses__")()) {
        todo.push_back(sub);
      }
    }
  });

  auto def = [&cls](const char* name, py::cpp_function f) { cls.attr(name) = f; };
  auto method = [&cls](auto&& fn, const char* name) {
    return py::cpp_function(std::forward<decltype(fn)>(fn), py::name(name), py::is_method(cls));
  };
  // __call__ (module_call above), as a method descriptor of Module.
  py::object call = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &g_call_def));
  if (!call) throw py::error_already_set();
  cls.attr("__call__") = call;
  def("_set_front_end_hooks", method([](nn::Module& self, bool on) { self.set_front_end_hooks(on); },
                                     "_set_front_end_hooks"));
  def("_has_native_hooks", method([](nn::Module& self) { return self.has_native_forward_hooks(); },
                                  "_has_native_hooks"));
  def("_run_native_pre_hooks", method([](nn::Module& self, py::handle args) -> py::object {
    auto replaced = self.run_forward_pre_hooks(tuple_to_values(args));
    if (!replaced) return py::none();
    return values_to_tuple(*replaced);
  }, "_run_native_pre_hooks"));
  def("_run_native_hooks", method([](nn::Module& self, py::handle args, py::handle result) -> py::object {
    auto replaced = self.run_forward_hooks(tuple_to_values(args), py_to_value(result, "forward result"));
    if (!replaced) return py::none();
    return value_to_py(*replaced);
  }, "_run_native_hooks"));
}

}  // namespace ember::python
