"""Module.qconfig (Note [The qconfig slot]): torch's attribute semantics, identity kept, and the
C++ QConfig made from a Python one calls its factories."""
import copy

import pytest
import torch

import ember
from ember.ao.quantization import QConfig


def _qconfig_pair(lib):
    q = lib.ao.quantization.QConfig(activation=lib.nn.Identity, weight=lib.nn.Identity)
    return q


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_attribute_semantics_match_torch(lib):
    m = lib.nn.Linear(2, 3)
    assert not hasattr(m, "qconfig")
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'qconfig'"):
        m.qconfig
    m.qconfig = None
    assert hasattr(m, "qconfig") and m.qconfig is None
    q = _qconfig_pair(lib)
    m.qconfig = q
    assert m.qconfig is q
    del m.qconfig
    assert getattr(m, "qconfig", "absent") == "absent"
    with pytest.raises(AttributeError):
        del m.qconfig


def test_qconfig_not_in_state_dict_and_python_subclass():
    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ember.nn.Linear(2, 2)

        def forward(self, x):
            return self.fc(x)

    n = Net()
    q = QConfig(activation=ember.nn.Identity, weight=ember.nn.ReLU)
    n.qconfig = q
    n.fc.qconfig = q
    assert n.qconfig is q and n.fc.qconfig is q
    assert list(n.state_dict()) == ["fc.weight", "fc.bias"]
    assert "qconfig" not in n.__dict__
    # A C++ parent holding a Python child: the child's slot is the same slot.
    seq = ember.nn.Sequential(ember.nn.Linear(1, 1))
    seq[0].qconfig = q
    assert seq[0].qconfig is q


def test_deepcopy_keeps_an_equal_qconfig():
    m = ember.nn.Linear(2, 2)
    q = QConfig(activation=ember.nn.Identity, weight=ember.nn.Identity)
    m.qconfig = q
    c = copy.deepcopy(m)
    assert c.qconfig == q
    m.qconfig = None
    assert copy.deepcopy(m).qconfig is None


def test_factory_results_must_be_modules():
    # The C++ side calls the factories; what they make must be a module.
    m = ember.nn.Linear(2, 2)
    m.qconfig = QConfig(activation=lambda: 3, weight=ember.nn.Identity)
    assert m.qconfig.activation() == 3  # Python sees the callable as given
