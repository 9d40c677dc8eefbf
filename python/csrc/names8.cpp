// ember._C._names8: Tensor._backward_hooks (Note [Tensor._backward_hooks]).
//
// Note [Tensor._backward_hooks]: PyTorch keeps a tensor's Python hooks in an OrderedDict,
// Tensor._backward_hooks (None until the first hook), and gives C++ autograd one hook that calls
// the dict's hooks in order: register_hook adds to the dict, a handle's remove() deletes from
// it, and assigning a new dict to a leaf replaces the hooks it runs (a non-leaf's grad_fn keeps
// the dict it was given first). ember does the same: the dict is the hooks' one home, and
// _register_hook_dict gives C++ autograd (Tensor::register_hook) a hook that runs the dict's
// hooks when the gradient arrives, each result checked as a single hook's is. The dict lives in
// the tensor's __dict__ (left out of deepcopy and pickling, as PyTorch's hooks are) and the hook
// is traversed by the GC (python_node.cpp), so a hook that refers to its tensor is collected.
// ember/_names8.py holds the Python half (the property and Tensor.register_hook).
#include "autograd_python.h"
#include "common.h"

namespace ember::python {

Tensor PyTensorHookDict::operator()(const Tensor& grad) const {
  py::gil_scoped_acquire gil;
  // the hooks present when the gradient arrives (a hook may remove itself)
  const py::list hooks(dict.get().attr("values")());
  Tensor g = grad;
  bool replaced = false;
  for (const py::handle h : hooks) {
    const py::object hook = py::reinterpret_borrow<py::object>(h);
    py::object r = hook(py::reinterpret_steal<py::object>(wrap(g)));
    Tensor rep = check_hook_result(hook, g, r);
    if (rep.defined()) {
      g = rep;
      replaced = true;
    }
  }
  return replaced ? g : Tensor();
}

void init_names8(py::module_& parent) {
  py::module_ m = parent.def_submodule("_names8", "Tensor._backward_hooks' C++ half");
  // Returns the hook's id (no handle object: the tensor keeps it, and a handle would hold the
  // tensor from C++, a reference the GC cannot see).
  m.def("_register_hook_dict", [](py::handle self, py::object dict) {
    Tensor t = unpack(self.ptr());
    EMBER_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
    return t.register_hook(PyTensorHookDict{GilRef(std::move(dict))});
  }, py::arg("self"), py::arg("hooks"));
  m.def("_remove_leaf_hook", [](py::handle self, unsigned id) { unpack(self.ptr()).remove_hook(id); },
        py::arg("self"), py::arg("id"));
}

}  // namespace ember::python
