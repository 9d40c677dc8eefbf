"""Tensor._backward_hooks (names8): torch 1.13's attribute, and register_hook over it."""
from collections import OrderedDict

import pytest
import torch

import ember
from ember.utils.hooks import RemovableHandle


def test_none_until_a_hook_then_the_ordered_dict():
    for lib in (torch, ember):
        t = lib.ones(2, requires_grad=True)
        assert t._backward_hooks is None
        f = lambda g: g * 2  # noqa: E731
        h = t.register_hook(f)
        assert type(t._backward_hooks) is OrderedDict
        assert list(t._backward_hooks.items()) == [(h.id, f)]
        (t * 3).sum().backward()
        assert t.grad.tolist() == [6.0, 6.0]
        h.remove()
        assert t._backward_hooks == OrderedDict()
        t.grad = None
        (t * 3).sum().backward()
        assert t.grad.tolist() == [3.0, 3.0]
    assert isinstance(ember.ones(1, requires_grad=True).register_hook(lambda g: g), RemovableHandle)


def test_assigning_a_dict_to_a_leaf_replaces_its_hooks():
    for lib in (torch, ember):
        t = lib.ones(2, requires_grad=True)
        t.register_hook(lambda g: g * 2)
        t._backward_hooks = OrderedDict([(7, lambda g: g * 10)])
        (t * 3).sum().backward()
        assert t.grad.tolist() == [30.0, 30.0]
        t._backward_hooks = None
        t.grad = None
        (t * 3).sum().backward()
        assert t.grad.tolist() == [3.0, 3.0] and t._backward_hooks is None
        d = OrderedDict()
        t._backward_hooks = d
        assert t._backward_hooks is d
        d[3] = lambda g: g * 5  # the dict is live
        t.grad = None
        (t * 1).sum().backward()
        assert t.grad.tolist() == [5.0, 5.0]
        with pytest.raises(RuntimeError, match="Deletion of _backwards_hooks not allowed!"):
            del t._backward_hooks


def test_non_leaf_hooks_and_assignment():
    for lib in (torch, ember):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        assert y._backward_hooks is None
        y.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: g * 3)  # in order: (1 + 1) * 3
        assert len(y._backward_hooks) == 2
        y.sum().backward()
        assert x.grad.tolist() == [12.0, 12.0]
        # a dict assigned to a non-leaf is kept but not run (its grad_fn has the first one)
        x2 = lib.ones(2, requires_grad=True)
        y2 = x2 * 2
        y2._backward_hooks = OrderedDict([(1, lambda g: g * 100)])
        y2.sum().backward()
        assert x2.grad.tolist() == [2.0, 2.0]


def test_no_grad_tensor():
    for lib in (torch, ember):
        z = lib.ones(2)
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
            z.register_hook(lambda g: g)
        assert z._backward_hooks is None
        z._backward_hooks = OrderedDict()
        assert z._backward_hooks == OrderedDict()


def test_a_hook_removing_itself_and_hook_result_checks():
    t = ember.ones(2, requires_grad=True)
    handles = []
    calls = []

    def once(g):
        calls.append(1)
        handles[0].remove()

    handles.append(t.register_hook(once))
    (t * 1).sum().backward()
    (t * 1).sum().backward()
    assert calls == [1]
    t2 = ember.ones(2, requires_grad=True)
    t2.register_hook(lambda g: ember.ones(3))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        (t2 * 1).sum().backward()


def test_unpickled_tensors_have_an_empty_dict_as_torch():
    import copy
    import pickle

    for lib in (torch, ember):
        t = lib.ones(2, requires_grad=True)
        t.register_hook(lambda g: g)
        assert copy.deepcopy(t)._backward_hooks is None
        assert pickle.loads(pickle.dumps(lib.ones(2, requires_grad=True)))._backward_hooks == OrderedDict()
        assert pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2))))._backward_hooks == OrderedDict()
        assert pickle.loads(pickle.dumps(lib.ones(2)))._backward_hooks == OrderedDict()
