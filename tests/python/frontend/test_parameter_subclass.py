"""nn.Parameter of custom tensor subclasses (PyTorch's _ParameterMeta / _is_param rule), also
after swap_tensors, Module.to() with the swap flag and load_state_dict(assign=True); Parameter's
repr, __reduce_ex__ and __deepcopy__ as torch's."""
import copy
import pickle
from collections import OrderedDict

import torch

import ember
from ember import nn


class MyTensor(ember.Tensor):
    pass


class TorchTensor(torch.Tensor):
    pass


def test_parameter_of_subclass_keeps_class():
    p = nn.Parameter(ember.ones(2).as_subclass(MyTensor))
    t = torch.nn.Parameter(torch.ones(2).as_subclass(TorchTensor))
    assert type(p) is MyTensor and type(t) is TorchTensor
    assert isinstance(p, nn.Parameter) == isinstance(t, torch.nn.Parameter) == True  # noqa: E712
    assert isinstance(p, MyTensor) and p.requires_grad and p.is_leaf
    assert not isinstance(ember.ones(2).as_subclass(MyTensor), nn.Parameter)
    m = nn.Module()
    m.w = p
    assert m.w is p and [n for n, _ in m.named_parameters()] == ["w"]
    q = nn.Parameter(ember.ones(2).as_subclass(MyTensor), requires_grad=False)
    assert isinstance(q, nn.Parameter) and not q.requires_grad


def test_subclass_parameter_survives_copies():
    p = nn.Parameter(ember.arange(3.0).as_subclass(MyTensor))
    for c in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(c) is MyTensor and isinstance(c, nn.Parameter) and c.requires_grad
        assert c.tolist() == [0.0, 1.0, 2.0]
        m = nn.Module()
        m.w = c  # C++ module slots accept it: it is marked as a parameter
        assert isinstance(m.w, nn.Parameter)


def test_after_swap_tensors():
    p = nn.Parameter(ember.ones(2).as_subclass(MyTensor))
    other = nn.Parameter(ember.zeros(3))
    ember.utils.swap_tensors(p, other)
    assert type(other) is MyTensor and isinstance(other, nn.Parameter)
    assert type(p) is nn.Parameter and isinstance(p, nn.Parameter)


def test_after_to_with_swap_flag():
    m = nn.Linear(2, 2)
    m.weight = nn.Parameter(m.weight.detach().clone().as_subclass(MyTensor))
    w = m.weight
    ember.__future__.set_swap_module_params_on_conversion(True)
    try:
        m.to(ember.float64)
    finally:
        ember.__future__.set_swap_module_params_on_conversion(False)
    assert m.weight is w and m.weight.dtype is ember.float64
    assert type(m.weight) is MyTensor and isinstance(m.weight, nn.Parameter)
    assert m.weight.requires_grad


def test_after_load_state_dict_assign():
    m = nn.Linear(2, 2)
    sd = {"weight": ember.ones(2, 2).as_subclass(MyTensor), "bias": ember.zeros(2)}
    m.load_state_dict(sd, assign=True)
    assert type(m.weight) is MyTensor and isinstance(m.weight, nn.Parameter)
    assert m.weight.requires_grad and type(m.bias) is nn.Parameter


def test_parameter_repr_reduce_and_deepcopy_as_torch():
    e = nn.Parameter(ember.tensor([1.0, 2.0]))
    t = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(e) == repr(t)
    ef, eargs = e.__reduce_ex__(2)
    tf, targs = t.__reduce_ex__(2)
    assert ef is ember._utils._rebuild_parameter and ef.__name__ == tf.__name__
    assert eargs[0].tolist() == targs[0].tolist() and eargs[1:] == (True, OrderedDict())
    assert type(eargs[0]) is ember.Tensor
    e.grad = ember.ones(2)
    t.grad = torch.ones(2)
    ec, tc = copy.deepcopy(e), copy.deepcopy(t)
    assert type(ec) is nn.Parameter and (ec.grad is None) == (tc.grad is None) == True  # noqa: E712
    assert ec.data_ptr() != e.data_ptr() and repr(ec) == repr(tc)
    n = nn.Parameter(ember.ones(2), requires_grad=False)
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        r = pickle.loads(pickle.dumps(n, proto))
        assert type(r) is nn.Parameter and not r.requires_grad


def test_parameter_subclass_of_parameter():
    class MyParam(nn.Parameter):
        pass

    p = MyParam(ember.ones(2))
    c = copy.deepcopy(p)
    assert type(c) is MyParam and c.requires_grad
    assert type(pickle.loads(pickle.dumps(p))) is nn.Parameter  # _rebuild_parameter, as torch
