"""ember.autograd's engine entry points, grad_fn objects and hooks, against PyTorch 1.13: the
same scenario runs with `lib` = torch and ember, and the results must match."""
import gc
import re
import weakref

import pytest
import torch

import ember
from autograd_helpers import tensor, values



def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is part of what is compared
        # ember prints `ember.` where PyTorch prints `torch.` (ember.Size, ember.FloatTensor)
        return type(e).__name__, str(e).replace("torch.", "ember.")
    return None


def both(scenario):
    return scenario(torch), scenario(ember)


# ---- grad_fn objects ----

def test_grad_fn_names_classes_and_next_functions():
    def run(lib):
        x = tensor(lib, [1., 2., 3.], requires_grad=True)
        y = (x * 2).sum()
        fn = y.grad_fn
        mul, nr = fn.next_functions[0]
        acc = mul.next_functions[0][0]
        return (fn.name(), type(fn).__name__, type(fn).__module__, mul.name(), nr,
                mul.next_functions[1], type(acc).__name__, acc.variable is x, acc.next_functions,
                x.grad_fn)
    t, e = both(run)
    assert t == e


def test_grad_fn_identity_and_repr():
    x = ember.ones(2, requires_grad=True)
    y = x * 2
    assert y.grad_fn is y.grad_fn
    assert y.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert repr(type(y.grad_fn)) == "<class 'MulBackward0'>"
    assert isinstance(y.grad_fn, ember.autograd.graph.Node)
    assert not hasattr(y.grad_fn, "variable")


def test_node_object_does_not_keep_graph_alive_beyond_itself():
    x = ember.ones(2, requires_grad=True)
    y = x * 2
    fn = y.grad_fn
    r = weakref.ref(fn)
    del fn
    gc.collect()
    assert r() is None  # the node lives on (y holds it); its Python object does not
    assert y.grad_fn.name() == "MulBackward0"


def test_node_metadata_persists_with_the_node():
    x = ember.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.metadata["k"] = 1
    gc.collect()
    assert y.grad_fn.metadata == {"k": 1}
    z = x * 3
    assert z.grad_fn.metadata == {}


# ---- backward / grad ----

def test_backward_grad_tensors_inputs_and_accumulation():
    def run(lib):
        x = tensor(lib, [1., 2.], requires_grad=True)
        w = tensor(lib, [3., 4.], requires_grad=True)
        y = x * w
        y.backward(tensor(lib, [1., 0.5]), retain_graph=True)
        first = (values(x.grad), values(w.grad))
        y.backward(tensor(lib, [1., 1.]), inputs=[x])
        lib.autograd.backward([(x * x).sum(), (w * 2).sum()])
        return first, values(x.grad), values(w.grad)
    t, e = both(run)
    assert t == e


def test_backward_errors():
    def run(lib):
        x = tensor(lib, [1., 2.], requires_grad=True)
        return [
            error_of(lambda: (x * 2).backward()),
            error_of(lambda: lib.ones(2).sum().backward()),
            error_of(lambda: (x * 2).backward(lib.ones(3))),
            error_of(lambda: (x * 2).sum().backward(inputs=[])),
            error_of(lambda: lib.autograd.backward([(x * 2).sum()], [1.0])),
        ]
    t, e = both(run)
    assert t == e


def test_grad_function():
    def run(lib):
        x = tensor(lib, [1., 2.], requires_grad=True)
        u = tensor(lib, [5., 6.], requires_grad=True)
        y = (x * x).sum()
        g = lib.autograd.grad(y, x, create_graph=True)
        gg = lib.autograd.grad(g[0].sum(), [x, u], allow_unused=True)
        unused = error_of(lambda: lib.autograd.grad((x * 2).sum(), [x, u]))
        multi = lib.autograd.grad([x * 2, x * 3], x, [lib.ones(2), lib.ones(2)])
        return (type(g).__name__, values(g[0]), g[0].requires_grad, values(gg[0]), gg[1],
                unused, values(multi[0]), x.grad)
    t, e = both(run)
    assert t == e


def test_retain_graph_defaults_to_create_graph():
    def run(lib):
        x = tensor(lib, [1., 2.], requires_grad=True)
        y = (x.exp()).sum()
        lib.autograd.grad(y, x, create_graph=True)
        again = lib.autograd.grad(y, x)  # the graph was kept
        return values(again[0]), error_of(lambda: lib.autograd.grad(y, x))
    t, e = both(run)
    assert t[0] == pytest.approx(e[0])
    assert t[1] == e[1]


# ---- hooks ----

def test_tensor_hooks_replace_observe_and_remove():
    def run(lib):
        seen = []
        x = tensor(lib, [1., 2.], requires_grad=True)
        y = x * 3
        h1 = y.register_hook(lambda g: seen.append(("y", values(g))))
        h2 = y.register_hook(lambda g: g * 10)
        hx = x.register_hook(lambda g: seen.append(("x", values(g))))
        y.sum().backward(retain_graph=True)
        first = values(x.grad)
        h2.remove()
        h2.remove()  # twice is fine
        hx.remove()
        x.grad = None
        y.sum().backward()
        h1.remove()
        return seen, first, values(x.grad)
    t, e = both(run)
    assert t == e


def test_hook_handle_as_context_manager():
    x = tensor(ember, [1., 2.], requires_grad=True)
    with x.register_hook(lambda g: g * 2):
        (x * 1).sum().backward()
    assert values(x.grad) == [2., 2.]
    x.grad = None
    (x * 1).sum().backward()
    assert values(x.grad) == [1., 1.]


def test_hook_result_checks():
    def run(lib):
        def bad_size(g):
            return lib.ones(3)

        def bad_type(g):
            return g.to(lib.float64)
        out = []
        for hook in (lambda g: 3, bad_size, bad_type):
            x = tensor(lib, [1., 2.], requires_grad=True)
            x.register_hook(hook)
            out.append(error_of(lambda: (x * 2).sum().backward()))
        out.append(error_of(lambda: lib.ones(2).register_hook(lambda g: g)))
        return out
    t, e = both(run)
    assert t == e


def test_post_accumulate_grad_hook():
    x = tensor(ember, [1., 2.], requires_grad=True)
    seen = []
    h = x.register_post_accumulate_grad_hook(lambda p: seen.append((p is x, values(p.grad))))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen == [(True, [2., 2.]), (True, [4., 4.])]
    h.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on "
                                           "non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)
    x.register_post_accumulate_grad_hook(lambda p: 1)
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None."):
        (x * 2).sum().backward()


def test_node_hooks_and_prehooks():
    def run(lib):
        seen = []
        x = tensor(lib, [1., 2.], requires_grad=True)
        w = tensor(lib, [3., 4.], requires_grad=True)
        y = x * w
        fn = y.grad_fn
        fn.register_prehook(lambda go: seen.append(("pre", [values(g) for g in go])))
        h = fn.register_hook(lambda gi, go: (gi[0] * 2, None))
        y.sum().backward(retain_graph=True)
        first = (values(x.grad), values(w.grad))
        h.remove()
        fn.register_hook(lambda gi, go: (gi[0],))
        err = error_of(lambda: y.sum().backward())
        return seen, first, err
    t, e = both(run)
    assert t == e


def test_python_hook_exception_propagates():
    x = tensor(ember, [1., 2.], requires_grad=True)

    def hook(g):
        raise KeyError("mine")
    x.register_hook(hook)
    with pytest.raises(KeyError, match="mine"):
        (x * 2).sum().backward()


# ---- graph ----

def test_get_gradient_edge():
    x = tensor(ember, [1., 2.], requires_grad=True)
    edge = ember.autograd.graph.get_gradient_edge(x)
    assert edge.node.name() == "AccumulateGrad" and edge.output_nr == 0
    assert edge.node.variable is x
    y = x.split(1)
    edge = ember.autograd.graph.get_gradient_edge(y[1])
    assert edge.node is y[1].grad_fn and edge.output_nr == 1
    with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a "
                                           "Tensor that does not require gradients"):
        ember.autograd.graph.get_gradient_edge(ember.ones(2))


def test_tensor_backward_goes_through_torch_function():
    # The handler __torch_function__ calls go to is installed by ember.overrides.
    pytest.importorskip("ember.overrides")
    calls = []

    class Logged(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs)

    y = ember._C._tensor_from_base(Logged, tensor(ember, 2.0)).requires_grad_()
    assert calls == ["requires_grad_"]
    calls.clear()
    y.backward()
    assert calls == ["backward"]
    assert y.grad.item() == 1.0
