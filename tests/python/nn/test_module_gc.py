"""Reference cycles through the C++ module tree are collected by Python's cyclic GC
(Note [Modules and the cyclic GC]); C++-held modules keep their Python state (Note [Python state
of C++-held modules]) and are freed once nothing holds them."""
import gc
import weakref

import pytest

import ember
import ember.vision  # noqa: F401  (ember.vision.models)
from ember import nn


class Child(nn.Module):
    def forward(self, x):
        return x


class Parent(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = Child()

    def forward(self, x):
        return self.child(x)


def collected(make):
    """make() returns an object; it must die after gc.collect() once dropped."""
    gc.collect()
    obj = make()
    ref = weakref.ref(obj)
    del obj
    gc.collect()
    return ref() is None


def test_plain_tree_freed_by_refcount():
    gc.disable()
    try:
        p = Parent()
        ref = weakref.ref(p)
        cref = weakref.ref(p.child)
        del p
        assert ref() is None and cref() is None
    finally:
        gc.enable()


def test_child_referencing_parent():
    def make():
        p = Parent()
        p.child.__dict__["parent"] = p
        return p

    assert collected(make)


def test_child_attribute_parent_via_object_setattr():
    def make():
        p = Parent()
        object.__setattr__(p.child, "owner", p)
        return p

    assert collected(make)


def test_hook_closure_referencing_its_module():
    def make():
        m = nn.Linear(2, 2)
        m.register_forward_hook(lambda mod, i, o: m)
        return m

    assert collected(make)


def test_hook_closure_referencing_parent_of_cpp_layer():
    def make():
        seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        seq[1].register_forward_pre_hook(lambda mod, i: seq)
        return seq

    assert collected(make)


def test_module_in_own_childs_dict():
    def make():
        seq = nn.Sequential(nn.Linear(2, 2))
        seq[0].back = seq
        return seq

    assert collected(make)


def test_self_reference():
    def make():
        m = Child()
        m.me = m
        return m

    assert collected(make)


def test_cycle_through_cpp_built_model():
    def make():
        model = ember.vision.models.resnet18()
        model.fc.owner = model
        model.layer1[0].conv1.register_forward_hook(lambda *a: model)
        return model

    assert collected(make)


def test_cpp_child_state_dies_with_model():
    gc.collect()
    model = ember.vision.models.resnet18()
    fc = model.fc
    fc.tag = "x"
    fc_ref = weakref.ref(fc)
    del fc
    assert fc_ref() is not None  # kept by the model (Note [Python state of C++-held modules])
    del model
    gc.collect()
    assert fc_ref() is None


def test_cycle_collected_module_still_works_when_reachable():
    p = Parent()
    p.child.parent = p
    gc.collect()
    assert p.child.parent is p
    assert float(p(ember.ones(1))) == 1.0


def test_module_held_by_live_cpp_tree_survives_gc():
    model = ember.vision.models.resnet18()
    conv = model.layer1[0].conv1
    conv.register_forward_hook(lambda *a: None)
    conv.cycle = conv
    del conv
    gc.collect()
    assert len(model.layer1[0].conv1._forward_hooks) == 1
    assert model.layer1[0].conv1.cycle is model.layer1[0].conv1


def test_child_registering_its_parent_as_a_module():
    # `child.parent = parent` registers the parent as the child's submodule: a cycle in the
    # module graph itself, through two C++ child lists.
    def make():
        p = Parent()
        p.child.parent = p
        return p

    assert collected(make)


def test_cpp_built_child_registering_its_model():
    def make():
        model = ember.vision.models.resnet18()
        model.fc.parent = model
        return model

    assert collected(make)
