// ember._C._autograd: the engine's entry points (backward, grad), gradcheck, and the Tensor
// methods of autograd that are not plain flags (backward, register_hook,
// register_post_accumulate_grad_hook, grad_fn). Python Functions are in python_function.cpp,
// node objects in python_node.cpp; the Python package ember.autograd normalizes arguments as
// PyTorch's Python code does and calls these.
//
// The engine runs on the calling thread with the GIL held: Python hooks and Function backwards
// it calls re-enter Python directly (ember has no device threads to hand work to).
#include "autograd_python.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/autograd/gradcheck_errors.h"
#include "torch_function.h"

namespace ember::python {

void init_autograd(py::module_& m);
void init_saved_tensor_hooks(py::module_& m);

namespace {

using autograd::tensor_list;

PyObject* g_gradcheck_error = nullptr;  // ember.autograd.gradcheck.GradcheckError
PyObject* g_tensor_backward = nullptr;  // Tensor.backward, the public API __torch_function__ sees

// A user function of tensors as gradcheck's DifferentiableFn: the tensors gradcheck passes take
// the places of the tensor arguments; other arguments are passed as given.
autograd::DifferentiableFn as_differentiable_fn(const py::object& func, const py::tuple& args) {
  return [func, args](const tensor_list& tensors) {
    py::gil_scoped_acquire gil;
    py::tuple call(args.size());
    size_t next = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      py::object a = args[i];
      call[i] = is_tensor(a.ptr()) ? py::reinterpret_steal<py::object>(wrap(tensors.at(next++))) : a;
    }
    py::object out = func(*call);
    tensor_list r;
    if (is_tensor(out.ptr())) {
      r.push_back(unpack(out.ptr()));
    } else if (PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) {
      for (py::handle o : out)
        if (is_tensor(o.ptr())) r.push_back(unpack(o.ptr()));
    }
    return r;
  };
}

tensor_list tensors_in(const py::tuple& args) {
  tensor_list r;
  for (py::handle a : args)
    if (is_tensor(a.ptr())) r.push_back(unpack(a.ptr()));
  return r;
}

template <class F>
bool run_gradcheck(F&& check) {
  try {
    return check();
  } catch (const autograd::GradcheckError& e) {
    PyErr_SetString(g_gradcheck_error, e.what());
    throw py::error_already_set();
  }
}

py::object tensor_backward(py::handle self, py::object gradient, py::object retain_graph,
                           py::object create_graph, py::object inputs) {
  if (torch_function_enabled() && (is_overloaded(self.ptr()) || torch_function_mode_active())) {
    std::vector<PyObject*> overloaded;
    collect_overloaded(self.ptr(), overloaded);
    py::dict kwargs;
    kwargs["gradient"] = gradient;
    kwargs["retain_graph"] = retain_graph;
    kwargs["create_graph"] = create_graph;
    kwargs["inputs"] = inputs;
    PyObject* r = dispatch_torch_function(g_tensor_backward, overloaded,
                                          py::make_tuple(self).ptr(), kwargs.ptr());
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }
  // As PyTorch's Tensor.backward: ember.autograd.backward does the argument handling.
  py::module_::import("ember.autograd")
      .attr("backward")(self, gradient, retain_graph, create_graph, py::arg("inputs") = inputs);
  return py::none();
}

}  // namespace

Tensor PyTensorHook::operator()(const Tensor& grad) const {
  py::gil_scoped_acquire gil;
  py::object r = hook.get()(py::reinterpret_steal<py::object>(wrap(grad)));
  return check_hook_result(hook.get(), grad, r);
}

void PyPostAccumulateHook::operator()(const Tensor& leaf) const {
  py::gil_scoped_acquire gil;
  py::object r = hook.get()(py::reinterpret_steal<py::object>(wrap(leaf)));
  EMBER_CHECK(r.is_none(), "Tensor post accumulate grad hooks should return None.");
}

void init_autograd(py::module_& parent) {
  py::module_ m = parent.def_submodule("_autograd", "ember's autograd, bound for ember.autograd");
  init_python_node(m);
  init_python_function(m);
  init_saved_tensor_hooks(m);

  g_gradcheck_error = PyErr_NewExceptionWithDoc(
      "ember.autograd.gradcheck.GradcheckError",
      "Error raised by gradcheck and gradgradcheck.", PyExc_RuntimeError, nullptr);
  m.add_object("GradcheckError", g_gradcheck_error);
  Py_INCREF(g_gradcheck_error);
  // A RuntimeError raised in a Python backward reaches gradcheck as error_already_set.
  autograd::set_gradcheck_runtime_error_predicate([](const std::exception& e) {
    const auto* py_err = dynamic_cast<const py::error_already_set*>(&e);
    return py_err && py_err->matches(PyExc_RuntimeError);
  });

  // ---- the engine ----
  m.def("_run_backward", [](const tensor_list& tensors, const tensor_list& grad_tensors,
                            std::optional<bool> retain_graph, bool create_graph,
                            const tensor_list& inputs) {
    autograd::backward(tensors, grad_tensors, retain_graph, create_graph, inputs);
  });
  m.def("_run_grad", [](const tensor_list& outputs, const tensor_list& inputs,
                        const tensor_list& grad_outputs, std::optional<bool> retain_graph,
                        bool create_graph, bool allow_unused) {
    tensor_list g =
        autograd::grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
    py::tuple r(g.size());
    for (size_t i = 0; i < g.size(); ++i) r[i] = py::reinterpret_steal<py::object>(wrap(g[i]));
    return r;
  });
  m.def("_gradient_edge", [](const Tensor& t) {
    EMBER_CHECK(t.defined() && t.requires_grad(),
                "It is not possible to get the gradient edge for a Tensor that does not require "
                "gradients");
    autograd::Edge e = autograd::gradient_edge(t);
    return py::make_tuple(node_to_py(e.function), e.input_nr);
  });

  // ---- gradcheck ----
  // ember.autograd.gradcheck passes its keyword arguments as a dict, by PyTorch's names
  // (gradgradcheck's check_fwd_over_rev / check_rev_over_rev are check_forward_ad /
  // check_backward_ad here).
  auto options = [](const py::dict& kw) {
    autograd::GradcheckOptions o;
    auto num = [&](const char* k, double& field) { if (kw.contains(k)) field = kw[k].cast<double>(); };
    auto flag = [&](const char* k, bool& field) { if (kw.contains(k)) field = kw[k].cast<bool>(); };
    num("eps", o.eps);
    num("atol", o.atol);
    num("rtol", o.rtol);
    num("nondet_tol", o.nondet_tol);
    flag("raise_exception", o.raise_exception);
    flag("check_sparse_nnz", o.check_sparse_nnz);
    flag("check_undefined_grad", o.check_undefined_grad);
    flag("check_grad_dtypes", o.check_grad_dtypes);
    flag("check_batched_grad", o.check_batched_grad);
    flag("check_batched_forward_grad", o.check_batched_forward_grad);
    flag("check_forward_ad", o.check_forward_ad);
    flag("check_backward_ad", o.check_backward_ad);
    flag("fast_mode", o.fast_mode);
    flag("gen_non_contig_grad_outputs", o.gen_non_contig_grad_outputs);
    return o;
  };
  m.def("_gradcheck", [options](py::object func, py::tuple inputs, py::dict kw) {
    const auto opt = options(kw);
    return run_gradcheck([&] {
      return autograd::gradcheck(as_differentiable_fn(func, inputs), tensors_in(inputs), opt);
    });
  });
  m.def("_gradgradcheck", [options](py::object func, py::tuple inputs,
                                    const tensor_list& grad_outputs, py::dict kw) {
    const auto opt = options(kw);
    return run_gradcheck([&] {
      return autograd::gradgradcheck(as_differentiable_fn(func, inputs), tensors_in(inputs),
                                     grad_outputs, opt);
    });
  });

  // ---- Tensor methods ----
  py::cpp_function backward(&tensor_backward, py::name("backward"), py::arg("self"), py::arg("gradient") = py::none(),
                            py::arg("retain_graph") = py::none(),
                            py::arg("create_graph") = false, py::arg("inputs") = py::none());
  g_tensor_backward = backward.ptr();
  Py_INCREF(g_tensor_backward);
  add_tensor_method("backward", backward);

  add_tensor_property("grad_fn", py::cpp_function([](py::handle self) {
    return node_to_py(unpack(self.ptr()).grad_fn());
  }));

  add_tensor_method("register_hook", py::cpp_function([](py::handle self, py::object fn) {
    Tensor t = unpack(self.ptr());
    const unsigned id = t.register_hook(PyTensorHook{GilRef(fn)});
    if (t.is_leaf()) return make_handle(id, [t, id] { t.remove_hook(id); });
    // A non-leaf's hook lives on its grad_fn: the handle must not keep the graph alive.
    std::weak_ptr<autograd::Node> fn_weak = t.grad_fn();
    return make_handle(id, [fn_weak, id] {
      if (auto n = fn_weak.lock()) n->remove_tensor_pre_hook(id);
    });
  }, py::arg("self"), py::arg("hook")));

  add_tensor_method("register_post_accumulate_grad_hook", py::cpp_function([](py::handle self, py::object fn) {
    Tensor t = unpack(self.ptr());
    const unsigned id = t.register_post_accumulate_grad_hook(PyPostAccumulateHook{GilRef(fn)});
    return make_handle(id, [t, id] { t.remove_hook(id); });
  }, py::arg("self"), py::arg("hook")));
}

}  // namespace ember::python
