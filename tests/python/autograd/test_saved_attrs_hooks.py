"""grad_fn._saved_* / _raw_saved_* beyond the op table (test_saved_attrs_vs_torch.py): the autograd
docs' "Saved tensors" examples, per-tensor saved-tensor hooks (`_raw_saved_x.register_hooks`)
and their errors, freed values, and how the attributes live on the node's class. Each test runs
on torch 1.13 and on ember and expects the same (Note [Saved values of built-in nodes])."""
import pytest
import torch

import ember

LIBS = [torch, ember]
FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


@pytest.mark.parametrize("lib", LIBS)
def test_docs_example_saved_self_and_result(lib):
    x = lib.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self)
    assert x is y.grad_fn._saved_self
    assert y.grad_fn._saved_exponent == 2 and type(y.grad_fn._saved_exponent) is int
    y = x.exp()
    assert y.equal(y.grad_fn._saved_result)
    assert y is not y.grad_fn._saved_result
    r = y.grad_fn._saved_result
    # the saved output comes back with the node as its history
    assert r.grad_fn is y.grad_fn and r.requires_grad


@pytest.mark.parametrize("lib", LIBS)
def test_unsaved_side_is_none(lib):
    a = lib.randn(3, requires_grad=True)
    m = a * lib.randn(3)  # other needs no grad: self is not saved
    assert m.grad_fn._saved_self is None
    assert m.grad_fn._saved_other is not None
    assert type(m.grad_fn._raw_saved_self).__name__ == "SavedTensor"


@pytest.mark.parametrize("lib", LIBS)
def test_freed_after_backward_values_stay(lib):
    x = lib.randn(3, 2, requires_grad=True)
    y = x.exp()
    s = y.sum(1)
    s.sum().backward()
    with pytest.raises(RuntimeError) as e:
        y.grad_fn._saved_result
    assert str(e.value) == FREED
    # non-tensor values are not freed
    assert s.grad_fn._saved_dim == (1,)
    assert s.grad_fn._saved_self_sym_sizes == (3, 2)
    assert s.grad_fn._saved_keepdim is False
    # the raw object is still there, but can't take hooks any more
    raw = y.grad_fn._raw_saved_result
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor after it has been freed"):
        raw.register_hooks(lambda t: t, lambda t: t)


@pytest.mark.parametrize("lib", LIBS)
def test_retain_graph_keeps_them(lib):
    x = lib.randn(3, requires_grad=True)
    y = x.sin()
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved_self is x


@pytest.mark.parametrize("lib", LIBS)
def test_register_hooks_on_a_saved_input(lib):
    x = lib.randn(5, requires_grad=True)
    y = x.pow(2)
    log = []

    def pack(t):
        # pack sees the saved input detached (not the input itself)
        log.append(("pack", t is x, t.requires_grad, t.grad_fn is None, t.equal(x)))
        return t * 1

    def unpack(t):
        log.append(("unpack",))
        return t

    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    assert log == [("pack", False, False, True, True)]  # packed right away
    s = y.grad_fn._saved_self  # reading the attribute unpacks
    assert log[-1] == ("unpack",)
    assert s is not x and s.requires_grad and s.grad_fn is None and s.equal(x)
    y.sum().backward()
    assert log.count(("unpack",)) == 2
    assert lib.allclose(x.grad, 2 * x)


@pytest.mark.parametrize("lib", LIBS)
def test_register_hooks_on_a_saved_output(lib):
    x = lib.randn(3, requires_grad=True)
    e = x.exp()
    log = []
    e.grad_fn._raw_saved_result.register_hooks(
        lambda t: log.append((t.requires_grad, t.grad_fn is None)) or t * 10, lambda p: p / 10)
    assert log == [(False, True)]
    r = e.grad_fn._saved_result
    assert r.grad_fn is e.grad_fn and r.requires_grad and r is not e
    assert lib.allclose(r, e)
    e.sum().backward()
    assert lib.allclose(x.grad, x.exp())


@pytest.mark.parametrize("lib", LIBS)
def test_what_pack_returns_is_what_backward_uses(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda p: p)
    y.sum().backward()
    # self's slot feeds other's gradient (10 x); other's slot, unhooked, self's (x)
    assert x.grad.tolist() == [11.0, 22.0, 33.0]


@pytest.mark.parametrize("lib", LIBS)
def test_register_hooks_errors(lib):
    x = lib.randn(3, requires_grad=True)
    z = x.cos()
    raw = z.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError) as e:
        raw.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value) == ("Calling register_hooks on a saved tensor whose hooks have already been "
                            "set. Hint: only one pair of hooks is allowed at a time.")
    # a saved None
    m = x * lib.ones(3)
    with pytest.raises(RuntimeError) as e:
        m.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value) == "Calling register_hooks on a saved tensor with value None is forbidden"
    # saved under default hooks: they are its hooks already
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        w = x.sin()
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        w.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    # not two functions
    with pytest.raises(TypeError, match=r"register_hooks\(\): incompatible function arguments"):
        x.tan().grad_fn._raw_saved_result.register_hooks(lambda t: t)
    with pytest.raises(TypeError, match=r"register_hooks\(\): incompatible function arguments"):
        x.tan().grad_fn._raw_saved_result.register_hooks(1, lambda t: t)


@pytest.mark.parametrize("lib", LIBS)
def test_unpack_must_return_a_tensor(lib):
    x = lib.randn(3, requires_grad=True)
    z = x.cos()
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 3)
    with pytest.raises(TypeError) as e:
        z.grad_fn._saved_self
    assert str(e.value) == "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"


@pytest.mark.parametrize("lib", LIBS)
def test_pack_hook_may_not_modify_its_input(lib):
    x = lib.randn(3, requires_grad=True)
    z = x.cos()
    with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input in place"):
        z.grad_fn._raw_saved_self.register_hooks(lambda t: t.add_(1), lambda t: t)


@pytest.mark.parametrize("lib", LIBS)
def test_default_hooks_unpack_on_attribute_read(lib):
    x = lib.randn(3, requires_grad=True)
    log = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: log.append("u") or t):
        y = x.sin()
    assert log == []
    s = y.grad_fn._saved_self
    assert log == ["u"] and s.equal(x)


@pytest.mark.parametrize("lib", LIBS)
def test_modified_in_place_read_fails(lib):
    w = lib.randn(3, requires_grad=True) * 1
    q = w.sin()
    with lib.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been "
                                           "modified by an inplace operation"):
        q.grad_fn._saved_self


@pytest.mark.parametrize("lib", LIBS)
def test_attributes_live_on_the_class(lib):
    x = lib.randn(3, requires_grad=True)
    fn = x.pow(2).grad_fn
    names = [n for n in dir(fn) if "saved" in n]
    assert names == ["_raw_saved_self", "_saved_exponent", "_saved_self"]
    assert "_saved_self" in type(fn).__dict__
    assert fn.requires_grad is True
    for n in ("name", "next_functions", "metadata", "register_hook", "register_prehook"):
        assert hasattr(fn, n)
    with pytest.raises(AttributeError):
        fn._saved_other
    # a node saving nothing has none
    assert [n for n in dir((-x).grad_fn) if "saved" in n] == []


@pytest.mark.parametrize("lib", LIBS)
def test_negative_ints_read_as_torch_1_13_prints_them(lib):
    x = lib.randn(3, 4, requires_grad=True)
    assert x.sum(-1).grad_fn._saved_dim == (2 ** 64 - 1,)
    assert x.unsqueeze(-1).grad_fn._saved_dim == 2 ** 64 - 1
    assert lib.add(x, x, alpha=-2).grad_fn._saved_alpha == -2  # a Scalar keeps its sign
    assert x.clamp(-1.5).grad_fn._saved_min == -1.5
    assert x.clamp(max=1).grad_fn._saved_min is None
