"""ember.autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks against
torch 1.13: which tensors are packed (and what pack sees), when unpack runs, identity and history
of unpacked tensors, double backward, custom Functions, threads, nesting and the error texts
(Note [Saved tensor hooks])."""
import threading

import pytest
import torch

import ember


def run(lib, pack, unpack):
    """The docs' example plus a custom Function, logging the hooks' calls."""
    a = lib.ones(5, requires_grad=True)
    b = lib.ones(5, requires_grad=True) * 2
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * b
        z = y.exp().sum()
    return a, b, y, z


@pytest.mark.parametrize("lib", [torch, ember])
def test_docs_example_calls(lib):
    log = []

    def pack(x):
        log.append(("pack", x.requires_grad, x.is_leaf, x.grad_fn is not None))
        return x

    def unpack(x):
        log.append(("unpack",))
        return x

    a, b, y, z = run(lib, pack, unpack)
    # mul saves a and b; exp saves its result
    assert log == [("pack", True, True, False), ("pack", True, False, True), ("pack", True, False, True)]
    log.clear()
    z.backward()
    assert log == [("unpack",)] * 3
    assert a.grad.tolist() == pytest.approx((2 * torch.exp(torch.full((5,), 2.0))).tolist())


def test_same_calls_as_torch_and_pack_sees_the_tensor_itself():
    seen = {}
    for lib in (torch, ember):
        objs, unpacked = [], []
        a, b, y, z = run(lib, lambda x: objs.append(x) or x, lambda x: unpacked.append(x) or x)
        assert objs[0] is a and objs[1] is b  # the operands themselves
        (a * b).sum()  # no hooks: nothing logged
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: unpacked.append(x) or x):
            w = a * b
        w.sum().backward()
        assert unpacked[0] is a and unpacked[1] is b  # unpacked in torch's order too
        seen[lib] = len(objs)
    assert seen[torch] == seen[ember]


@pytest.mark.parametrize("lib", [torch, ember])
def test_unpacked_tensor_is_new_but_has_the_history(lib):
    seen = []

    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            seen.append(r)
            return g * r

    a = lib.ones(3, requires_grad=True)
    b = a * 2
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        y = Keep.apply(b)
    y.sum().backward()
    r, = seen
    assert lib.equal(r, y)
    assert r is not y
    assert a.grad.tolist() == pytest.approx((2 * torch.exp(torch.full((3,), 2.0))).tolist())


@pytest.mark.parametrize("lib", [torch, ember])
def test_what_pack_returns_is_what_backward_uses(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda p: p):
        (x * x).sum().backward()
    assert x.grad.tolist() == [20.0, 40.0, 60.0]  # 2 * (10 x)


@pytest.mark.parametrize("lib", [torch, ember])
def test_no_version_check_with_hooks(lib):
    c = lib.ones(3, requires_grad=True) * 1
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x.clone(), lambda x: x):
        d = (c * c).sum()
    with lib.no_grad():
        c.add_(1)
    d.backward()  # no "modified by an inplace operation" error


@pytest.mark.parametrize("lib", [torch, ember])
def test_double_backward(lib):
    a = lib.ones(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x * 1, lambda x: x):
        w = (a * a * a).sum()
    g, = lib.autograd.grad(w, a, create_graph=True)
    assert g.tolist() == [3.0, 3.0, 3.0]
    g.sum().backward()
    assert a.grad.tolist() == [6.0, 6.0, 6.0]


@pytest.mark.parametrize("lib", [torch, ember])
def test_custom_function_saved_tensors_are_packed(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    log = []
    a = lib.ones(2, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: log.append("p") or x,
                                                 lambda x: log.append("u") or x):
        y = Double.apply(a)
        with lib.no_grad():
            a * a  # records nothing, saves nothing
        lib.ones(2) * lib.ones(2)  # no input requires grad: nothing saved
    assert log == ["p"]
    y.sum().backward()
    assert log == ["p", "u"]


@pytest.mark.parametrize("lib", [torch, ember])
def test_hooks_are_per_thread_and_innermost_wins(lib):
    outer, inner, thread_log = [], [], []
    a = lib.ones(2, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: outer.append(1) or x, lambda x: x):
        with lib.autograd.graph.saved_tensors_hooks(lambda x: inner.append(1) or x, lambda x: x):
            a * a
        t = threading.Thread(target=lambda: thread_log.append((a * a) is not None))
        t.start()
        t.join()
    assert inner == [1, 1] and outer == [] and thread_log == [True]


@pytest.mark.parametrize("lib", [torch, ember])
def test_errors(lib):
    a = lib.ones(2, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: None, lambda x: None):
        y = (a * a).sum()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor but "
                                        "got result of type NoneType"):
        y.backward()
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x.add_(0), lambda x: x):
        with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input in place"):
            (a * 1).exp()
    with lib.autograd.graph.disable_saved_tensors_hooks("hooks are off"):
        with pytest.raises(RuntimeError, match="hooks are off"):
            with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
        with lib.autograd.graph.disable_saved_tensors_hooks("nested"):
            with pytest.raises(RuntimeError, match="nested"):
                with lib.autograd.graph.save_on_cpu():
                    pass
        with pytest.raises(RuntimeError, match="hooks are off"):  # the outer message is back
            with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        with pytest.raises(RuntimeError, match="not while hooks are pushed"):
            with lib.autograd.graph.disable_saved_tensors_hooks("not while hooks are pushed"):
                pass
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):  # enabled again
        pass


@pytest.mark.parametrize("lib", [torch, ember])
def test_save_on_cpu(lib):
    x = lib.randn(4, 3, requires_grad=True)
    w = lib.randn(3, 2, requires_grad=True)
    with lib.autograd.graph.save_on_cpu():
        y = (x @ w).tanh().sum()
    y.backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = None
    w.grad = None
    (x @ w).tanh().sum().backward()
    assert lib.allclose(x.grad, gx) and lib.allclose(w.grad, gw)


def test_graph_frees_packed_objects():
    import gc
    import weakref

    class Box:
        def __init__(self, t):
            self.t = t

    refs = []

    def pack(t):
        box = Box(t.clone())
        refs.append(weakref.ref(box))
        return box

    a = ember.ones(3, requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
        y = (a * a).sum()
    assert all(r() is not None for r in refs)
    y.backward()  # frees the graph's saved values
    gc.collect()
    assert refs and all(r() is None for r in refs)
