// copy.deepcopy of modules: C++'s Module::clone (Note [Cloning modules] in
// ember/nn/module_clone.h) with Python's deepcopy memo. ember/nn/modules/_copy.py calls
// _clone_module and then deep-copies each new object's __dict__ through the same memo.
//
// Note [Deep copies across the boundary]
// One memo serves both languages: every tensor and module that has a Python object is entered
// in Python's memo under id(original) (and the original kept alive in memo[id(memo)], as
// copy.deepcopy does), so `deepcopy({"model": m, "opt": opt})` maps the optimizer's parameters
// to the copied model's. Tensors go through Tensor.__deepcopy__ (a subclass keeps its class and
// __dict__; storages are shared through memo["ember"]), except plain Parameters, whose
// __deepcopy__ is a clone that C++ makes directly. Each copied module whose original has a
// Python object gets a new object of the same class around the C++ copy: pybind11's instance
// is allocated with cls.__new__ and given the copy as its holder, exactly what a constructor
// would have left (the C++ copy is the most-derived object at the same address as its Module
// base, which clone checks, since every module class derives from Module alone).
#include "nn.h"

#include "ember/nn/module_clone.h"

namespace ember::python {

namespace {

// The Python object pybind11 registered for this C++ module, if any (borrowed).
PyObject* existing_object(const nn::Module& m) {
  auto& instances = py::detail::get_internals().registered_instances;
  auto range = instances.equal_range(const_cast<void*>(static_cast<const void*>(&m)));
  PyTypeObject* module_type = py::detail::get_type_info(typeid(nn::Module))->type;
  for (auto it = range.first; it != range.second; ++it) {
    auto* obj = reinterpret_cast<PyObject*>(it->second);
    if (PyObject_TypeCheck(obj, module_type)) return obj;
  }
  return nullptr;
}

// A new instance of `cls` (a Python class over a bound module class) holding `copy`.
py::object adopt(py::handle cls, const std::shared_ptr<nn::Module>& copy) {
  EMBER_ASSERT(dynamic_cast<const void*>(copy.get()) == static_cast<const void*>(copy.get()));
  py::object obj = cls.attr("__new__")(cls);
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  const py::detail::type_info* tinfo =
      py::detail::get_type_info(reinterpret_cast<PyTypeObject*>(cls.ptr()));
  auto v_h = inst->get_value_and_holder(tinfo);
  v_h.value_ptr() = copy.get();
  // The holder of every bound module class is a shared_ptr to it, which has the layout of
  // shared_ptr<Module> at the same address (see the Note).
  v_h.type->init_instance(inst, &copy);
  return obj;
}

py::object deepcopy_fn() {
  static PyObject* fn = py::object(py::module_::import("copy").attr("deepcopy")).release().ptr();
  return py::reinterpret_borrow<py::object>(fn);
}

}  // namespace

void init_module_copy(py::module_& nn_module) {
  nn_module.def("_clone_module", [](py::handle self, py::dict memo) {
    auto& root = self.cast<nn::Module&>();
    py::list created;
    py::object memo_id = py::int_(reinterpret_cast<uintptr_t>(memo.ptr()));
    if (!memo.contains(memo_id)) memo[memo_id] = py::list();
    py::list keep = memo[memo_id].cast<py::list>();
    PyObject* parameter_cls = py::module_::import("ember.nn").attr("Parameter").ptr();
    py::object deepcopy = deepcopy_fn();

    nn::CloneMemo cm;
    cm.copy_tensor = [&](const Tensor& t, nn::CloneMemo& m) -> Tensor {
      // The tensor's Python object, if it has one: wrap() hands it back to Python when only C++
      // held it (Note [Python object preservation]), so it is a complete object here.
      py::object original;
      if (t.impl()->pyobj()) original = py::reinterpret_steal<py::object>(wrap(t));
      py::object key = py::int_(reinterpret_cast<uintptr_t>(original.ptr()));
      if (original && memo.contains(key)) return unpack(memo[key].ptr());
      if (t.is_parameter() &&
          (!original || Py_TYPE(original.ptr()) == reinterpret_cast<PyTypeObject*>(parameter_cls))) {
        Tensor copy = nn::deep_copy(t, m);  // Parameter.__deepcopy__'s clone, made here
        if (original) {
          memo[key] = py::reinterpret_steal<py::object>(wrap(copy));
          keep.append(original);
        }
        return copy;
      }
      if (!original) original = py::reinterpret_steal<py::object>(wrap(t));
      py::object copy = deepcopy(original, memo);
      EMBER_CHECK_TYPE(is_tensor(copy.ptr()), "deepcopy of a ", Py_TYPE(original.ptr())->tp_name,
                       " returned a ", Py_TYPE(copy.ptr())->tp_name, ", not a tensor");
      return unpack(copy.ptr());
    };
    cm.on_module = [&](const nn::Module& original,
                       const std::shared_ptr<nn::Module>& copy) -> std::shared_ptr<nn::Module> {
      PyObject* obj = existing_object(original);
      if (!obj) return nullptr;  // built in C++ and never seen by Python: nothing Python to copy
      py::object fresh = adopt(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(obj))), copy);
      memo[py::int_(reinterpret_cast<uintptr_t>(obj))] = fresh;
      keep.append(py::handle(obj));
      created.append(py::make_tuple(py::handle(obj), fresh));
      // The copied parent holds the child through its Python object, as module_from_py does.
      return module_from_py(fresh);
    };
    std::shared_ptr<nn::Module> copy = root.clone(cm);
    return py::make_tuple(module_to_py(copy), created);
  });
}

}  // namespace ember::python
