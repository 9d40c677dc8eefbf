// Python autograd Functions (ember.autograd.Function) on the C++ machinery of user Functions.
//
// Note [Python Functions are C++ nodes]
// `Fn.apply(*args)` makes one PyFunctionNode, a FunctionNodeBase like the node of a C++
// Function<T>, so the C++ code does the work: recording the inputs' edges, wrapping the outputs
// (dirty inputs, views, non-differentiable outputs), saving tensors with their versions,
// materializing missing gradients, once_differentiable, and the engine runs it like any node.
// What is Python-specific stays here: the ctx object, calling forward / setup_context / backward,
// and checking backward's Python result as PyTorch's PyNode::apply does (its messages say
// "different than None" and "expected Variable or None", the C++ ones speak of C++ values).
//
// Ownership is PyTorch's: the node owns the ctx (a `<Name>Backward` object, which is also what
// `y.grad_fn` returns), the ctx holds the node weakly. So the ctx, its attributes and the saved
// tensors live exactly as long as the graph, and no cycle keeps them alive after it.
#include "autograd/functions.h"
#include "autograd_python.h"
#include "ember/autograd/function.h"
#include "ember/grad_mode.h"

namespace ember::python {

using autograd::Node;
using autograd::tensor_list;

namespace {

class PyFunctionNode final : public autograd::FunctionNodeBase {
 public:
  PyFunctionNode(std::string name, bool once_differentiable)
      : FunctionNodeBase(std::move(name)), once_(once_differentiable) {}

  GilRef ctx_object;                   // the `<Name>Backward` object
  std::vector<bool> is_tensor_input;   // per forward argument
  std::vector<bool> is_tensor_output;  // per forward output

 protected:
  tensor_list call_backward(tensor_list grads) override;
  bool once_differentiable() const override { return once_; }

 private:
  bool once_;
};

// The C++ part of a ctx object (`ember._C._FunctionBase`); the FunctionCtx methods (Python)
// set to_save, dirty_tensors, non_differentiable and materialize_grads, read after forward.
struct FunctionObject {
  std::weak_ptr<PyFunctionNode> cdata;
  py::object needs_input_grad = py::none();
  py::object to_save = py::none();
  py::object dirty_tensors = py::none();
  py::object non_differentiable = py::none();
  bool materialize_grads = true;
  py::object metadata;

  std::shared_ptr<PyFunctionNode> node() const {
    auto n = cdata.lock();
    EMBER_CHECK(n, "the autograd node of this Function is gone (its graph was freed, or "
                   "apply recorded no graph)");
    return n;
  }
};

tensor_list PyFunctionNode::call_backward(tensor_list grads) {
  py::gil_scoped_acquire gil;
  py::tuple args(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    // Non-tensor outputs of forward get None (FunctionNodeBase materialized a scalar for them).
    args[i] = is_tensor_output[i] ? py::reinterpret_steal<py::object>(wrap(grads[i])) : py::none();
  }
  py::object r = ctx_object.get().attr("apply")(*args);
  if (!PyTuple_Check(r.ptr())) r = py::make_tuple(r);
  py::tuple result = py::reinterpret_borrow<py::tuple>(r);
  size_t num_outputs = result.size();
  const size_t num_forward_inputs = is_tensor_input.size();
  // Extra results are fine if they are all None (a common pattern: `return g, None, None`).
  if (num_outputs > num_forward_inputs) {
    bool all_none = true;
    for (size_t i = num_forward_inputs; i < num_outputs; ++i) all_none &= result[i].is_none();
    if (all_none) num_outputs = num_forward_inputs;
  }
  EMBER_CHECK(num_outputs == num_forward_inputs, "function ", name(),
              " returned an incorrect number of gradients (expected ", num_forward_inputs,
              ", got ", num_outputs, ")");
  tensor_list out(num_forward_inputs);
  for (size_t i = 0; i < num_forward_inputs; ++i) {
    py::object g = result[i];
    if (!is_tensor_input[i]) {
      EMBER_CHECK(g.is_none(), "function ", name(),
                  " returned a gradient different than None at position ", i + 1,
                  ", but the corresponding forward input was not a Variable");
      continue;
    }
    if (g.is_none()) continue;
    EMBER_CHECK(is_tensor(g.ptr()), "expected Variable or None (got ", Py_TYPE(g.ptr())->tp_name,
                ")");
    out[i] = unpack(g.ptr());
  }
  return out;
}

// The tensors of a ctx attribute set by mark_dirty / mark_non_differentiable.
tensor_list tensors_of(const py::object& seq, const char* what) {
  tensor_list r;
  if (seq.is_none()) return r;
  size_t i = 0;
  for (py::handle obj : seq) {
    if (!is_tensor(obj.ptr())) {
      if (std::string(what) == "mark_dirty") {
        EMBER_FAIL("mark_dirty can only accept variables, but argument ", i, " is of type ",
                   Py_TYPE(obj.ptr())->tp_name);
      }
      EMBER_FAIL("mark_non_differentiable only accepts variable arguments, but got ",
                 Py_TYPE(obj.ptr())->tp_name);
    }
    r.push_back(unpack(obj.ptr()));
    ++i;
  }
  return r;
}

// Fn.apply's core (ember.autograd.Function.apply binds default arguments, then calls this).
py::object function_apply(py::handle cls, bool separate_setup_context, bool once_differentiable,
                          py::tuple args) {
  py::object backward_cls = cls.attr("_backward_cls");
  py::object ctx_obj = backward_cls();
  auto& ctx = ctx_obj.cast<FunctionObject&>();
  auto node = std::make_shared<PyFunctionNode>(py::str(backward_cls.attr("__name__")),
                                               once_differentiable);
  node->ctx_object = GilRef(ctx_obj);
  ctx.cdata = node;

  // Which arguments are tensors, and whether autograd records this call.
  tensor_list inputs;
  py::tuple needs_input_grad(args.size());
  bool any_requires_grad = false;
  for (size_t i = 0; i < args.size(); ++i) {
    PyObject* a = args[i].ptr();
    const bool tensor = is_tensor(a);
    node->is_tensor_input.push_back(tensor);
    const bool requires_grad = tensor && unpack(a).requires_grad();
    if (tensor) inputs.push_back(unpack(a));
    needs_input_grad[i] = py::bool_(requires_grad);
    any_requires_grad |= requires_grad;
  }
  ctx.needs_input_grad = needs_input_grad;
  const bool executable = GradMode::is_enabled() && any_requires_grad;
  node->set_inputs(node->is_tensor_input, inputs, executable);

  py::object output;
  {
    AutoGradMode no_grad(false);
    if (separate_setup_context) {
      output = cls.attr("forward")(*args);
      cls.attr("setup_context")(ctx_obj, args, output);
    } else {
      output = cls.attr("forward")(ctx_obj, *args);
    }
  }

  const bool is_tuple = PyTuple_Check(output.ptr());
  py::tuple raw = is_tuple ? py::reinterpret_borrow<py::tuple>(output) : py::make_tuple(output);
  node->ctx.mark_dirty(tensors_of(ctx.dirty_tensors, "mark_dirty"));
  node->ctx.mark_non_differentiable(tensors_of(ctx.non_differentiable, "mark_non_differentiable"));
  node->ctx.set_materialize_grads(ctx.materialize_grads);
  ctx.dirty_tensors = py::none();
  ctx.non_differentiable = py::none();

  tensor_list outputs;
  for (py::handle o : raw) {
    const bool tensor = is_tensor(o.ptr());
    node->is_tensor_output.push_back(tensor);
    outputs.push_back(tensor ? unpack(o.ptr()) : Tensor());
  }
  tensor_list wrapped = node->wrap_outputs(inputs, std::move(outputs), executable);

  if (executable) {
    tensor_list to_save;
    if (!ctx.to_save.is_none()) {
      size_t i = 0;
      for (py::handle obj : ctx.to_save) {
        if (!obj.is_none() && !is_tensor(obj.ptr())) {
          throw py::type_error("save_for_backward can only save variables, but argument " +
                               std::to_string(i) + " is of type " + Py_TYPE(obj.ptr())->tp_name);
        }
        to_save.push_back(obj.is_none() ? Tensor() : unpack(obj.ptr()));
        ++i;
      }
    }
    node->ctx.save_for_backward(std::move(to_save));
    node->save_variables(wrapped);
  }
  ctx.to_save = py::none();

  py::tuple result(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    result[i] = node->is_tensor_output[i] ? py::reinterpret_steal<py::object>(wrap(wrapped[i]))
                                          : py::reinterpret_borrow<py::object>(raw[i]);
  }
  return is_tuple ? py::object(result) : py::object(result[0]);
}

}  // namespace

PyObject* function_node_object(const Node* node) {
  auto* fn = dynamic_cast<const PyFunctionNode*>(node);
  return fn && fn->ctx_object ? fn->ctx_object.get().ptr() : nullptr;
}

void init_python_function(py::module_& m) {
  py::class_<FunctionObject>(m, "_FunctionBase")
      .def(py::init<>())
      .def_readwrite("to_save", &FunctionObject::to_save)
      .def_readwrite("dirty_tensors", &FunctionObject::dirty_tensors)
      .def_readwrite("non_differentiable", &FunctionObject::non_differentiable)
      .def_readwrite("materialize_grads", &FunctionObject::materialize_grads)
      .def_property_readonly("needs_input_grad",
                             [](const FunctionObject& self) { return self.needs_input_grad; })
      .def_property_readonly("saved_tensors", [](const FunctionObject& self) {
        auto node = self.cdata.lock();
        if (!node) return py::tuple();
        tensor_list saved = node->ctx.get_saved_variables();
        py::tuple r(saved.size());
        for (size_t i = 0; i < saved.size(); ++i)
          r[i] = py::reinterpret_steal<py::object>(wrap(saved[i]));
        return r;
      })
      .def("name", [](const FunctionObject& self) { return self.node()->name(); })
      .def_property_readonly("next_functions", [](const FunctionObject& self) {
        return next_functions_of(*self.node());
      })
      .def_property_readonly("metadata", [](FunctionObject& self) {
        if (!self.metadata) self.metadata = py::dict();
        return self.metadata;
      })
      .def("register_hook", [](const FunctionObject& self, py::object fn) {
        return register_node_hook(self.node(), std::move(fn));
      })
      .def("register_prehook", [](const FunctionObject& self, py::object fn) {
        return register_node_prehook(self.node(), std::move(fn));
      })
      .def_property_readonly("_sequence_nr",
                             [](const FunctionObject& self) { return self.node()->sequence_nr(); });

  m.def("_function_apply", &function_apply, py::arg("cls"), py::arg("separate_setup_context"),
        py::arg("once_differentiable"), py::arg("args"));
}

}  // namespace ember::python
