"""Reference cycles through C++ autograd state (issue 12): a Python hook or ctx held by C++ that
references the tensor owning it is collected by the cyclic GC (Note [Reference cycles through
autograd] in python/csrc/autograd_python.h); plain tensors are still freed by reference counting
alone. Where torch 1.13 collects a cycle, the test checks it does so too."""
import gc
import weakref

import pytest

import ember


def collected(make):
    """Builds a cycle with `make(T)` (returning the tensor to watch), drops it, and reports
    whether it survives reference counting and whether gc.collect() frees it."""
    def run(T):
        gc.collect()
        gc.disable()
        try:
            ref = weakref.ref(make(T))
            survives_refcounting = ref() is not None
        finally:
            gc.enable()
        gc.collect()
        return survives_refcounting, ref() is None
    return run


def leaf_hook_on_itself(T):
    x = T.ones(3, requires_grad=True)
    x.register_hook(lambda g: g * x.detach())
    return x


def nonleaf_hook_on_itself(T):
    x = T.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g + y.detach())
    return y


def grad_fn_hook_on_its_output(T):
    x = T.ones(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None if y is None else None)
    return y


def grad_fn_prehook_on_its_output(T):
    x = T.ones(3, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_prehook(lambda grad_outputs: None if y is None else None)
    return y


def grad_fn_metadata_on_its_output(T):
    x = T.ones(3, requires_grad=True)
    y = x * 3
    y.grad_fn.metadata["out"] = y
    return y


def ctx_holding_its_output(T):
    class Keep(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(3, requires_grad=True)
    y = Keep.apply(x)
    y.grad_fn.keep = {"out": y}  # a Python object that references the output
    return y


def post_accumulate_hook_on_itself(T):
    x = T.ones(3, requires_grad=True)
    if not hasattr(x, "register_post_accumulate_grad_hook"):  # torch 1.13 has none
        x.register_hook(lambda g: None if x is None else None)
        return x
    x.register_post_accumulate_grad_hook(lambda t: None if x is None else None)
    return x


def subclass_with_hook_on_itself(T):
    class Sub(T.Tensor):
        pass

    x = T.ones(3).as_subclass(Sub).requires_grad_()
    x.register_hook(lambda g: g if x is None else g)
    return x


CYCLES = [leaf_hook_on_itself, nonleaf_hook_on_itself, grad_fn_hook_on_its_output,
          grad_fn_prehook_on_its_output, grad_fn_metadata_on_its_output, ctx_holding_its_output,
          post_accumulate_hook_on_itself, subclass_with_hook_on_itself]


@pytest.mark.parametrize("make", CYCLES, ids=lambda f: f.__name__)
def test_cycle_through_cpp_is_collected(make):
    survives_refcounting, freed = collected(make)(ember)
    assert survives_refcounting, "not a cycle: the case tests nothing"
    assert freed


# torch 1.13 collects these too; it leaks the others (a non-leaf's hook and its grad_fn's hooks
# and metadata), which ember collects as well.
COLLECTED_BY_TORCH_1_13 = [leaf_hook_on_itself, ctx_holding_its_output,
                           post_accumulate_hook_on_itself, subclass_with_hook_on_itself]


@pytest.mark.parametrize("make", COLLECTED_BY_TORCH_1_13, ids=lambda f: f.__name__)
def test_torch_collects_the_same_cycle(make):
    torch = pytest.importorskip("torch")
    assert collected(make)(torch) == collected(make)(ember) == (True, True)


def test_plain_tensors_and_graphs_are_freed_by_refcounting_alone():
    gc.collect()
    gc.disable()
    try:
        x = ember.ones(3, requires_grad=True)
        y = (x * 2).exp()
        y.register_hook(lambda g: g)  # a hook that references nothing
        refs = [weakref.ref(t) for t in (x, y)]
        del x, y
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


def test_hooks_still_run_after_a_collection_while_referenced():
    calls = []
    x = ember.ones(2, requires_grad=True)
    x.register_hook(lambda g: calls.append(x.shape) or g * 3)
    y = x * 2
    y.register_hook(lambda g: calls.append(y.shape) or g)
    gc.collect()  # both cycles are reachable from here: nothing may be cleared
    y.sum().backward()
    assert calls == [(2,), (2,)]
    assert x.grad.tolist() == [6.0, 6.0]


def test_tensor_shared_with_cpp_keeps_its_hook_through_a_collection():
    # A parameter held by a module: C++ holds the impl, so the object is a root and its hook
    # (which references it) must survive the collection even with no Python reference left.
    calls = []
    lin = ember.nn.Linear(2, 1)

    def hook(g, w=lin.weight):
        calls.append(type(w).__name__)
        return g

    lin.weight.register_hook(hook)
    del hook
    gc.collect()
    lin(ember.ones(1, 2)).sum().backward()
    assert calls == ["Parameter"]


# ---- the collector never strips a tensor that C++ still holds ----

class _Wrapper(ember.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = ember.Tensor._make_wrapper_subclass(cls, elem.size(), dtype=elem.dtype,
                                                device=elem.device,
                                                requires_grad=elem.requires_grad)
        r.elem = elem
        return r

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        from ember.utils._pytree import tree_map
        unwrap = lambda e: e.elem if isinstance(e, _Wrapper) else e  # noqa: E731
        wrap = lambda e: _Wrapper(e) if isinstance(e, ember.Tensor) else e  # noqa: E731
        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))


@pytest.mark.parametrize("threshold", [10, 50, 200, 700])
@pytest.mark.parametrize("op", ["softmax", "mse", "hardswish", "layer_norm"])
def test_collections_during_backward_keep_wrapper_state(op, threshold):
    # Collections at any moment of a backward that creates wrapper objects: a wrapper whose impl
    # the graph still holds keeps its __dict__ (its `elem` once vanished: tp_clear stripped it).
    F = ember.nn.functional
    fns = {"softmax": lambda x: F.softmax(x, 1), "mse": lambda x: F.mse_loss(x, ember.zeros(2, 4)),
           "hardswish": F.hardswish, "layer_norm": lambda x: F.layer_norm(x, (4,))}
    base = ember.arange(8.).view(2, 4) / 8 - 0.3
    old = gc.get_threshold()
    gc.set_threshold(threshold, 1, 1)
    try:
        x = _Wrapper(base.clone().requires_grad_())
        fns[op](x).sum().backward()
    finally:
        gc.set_threshold(*old)
    expected_x = base.clone().requires_grad_()
    fns[op](expected_x).sum().backward()
    assert type(x.grad) is _Wrapper
    assert ember.allclose(x.grad.elem, expected_x.grad)

