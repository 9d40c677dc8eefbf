"""Module type names after issue 17 (Note [Module type names]): C++ modules without a name are
named by their C++ class, but Python subclasses keep their Python class name, in reprs, in
containers and in the missing-forward error, exactly as PyTorch 1.13 prints them; named_* views
keep PyTorch's order and contents."""
import pytest
import torch

import ember


def classes(lib):
    class MyNet(lib.nn.Module):
        pass

    class MyLinear(lib.nn.Linear):
        pass

    class WithForward(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = MyLinear(2, 2)

        def forward(self, x):
            return self.fc(x)

    return MyNet, MyLinear, WithForward


@pytest.mark.parametrize("build", [
    lambda lib, c: c[0](),
    lambda lib, c: c[1](2, 3),
    lambda lib, c: c[2](),
    lambda lib, c: lib.nn.Sequential(c[0](), c[1](1, 1), lib.nn.ReLU()),
    lambda lib, c: lib.nn.ModuleDict({"a": c[0]()}),
    lambda lib, c: lib.nn.Module(),
])
def test_python_subclass_reprs_match_torch(build):
    assert repr(build(ember, classes(ember))) == repr(build(torch, classes(torch)))


def test_missing_forward_names_the_python_class():
    for lib in (ember, torch):
        net = classes(lib)[0]()
        with pytest.raises(NotImplementedError,
                           match=r'^Module \[MyNet\] is missing the required "forward" function$'):
            net(lib.ones(1))
        with pytest.raises(NotImplementedError, match=r"Module \[MyNet\]"):
            lib.nn.Sequential(net)(lib.ones(1))


def test_named_views_match_torch():
    def build(lib):
        torch.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), classes(lib)[2]())

    e, t = build(ember), build(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [type(m).__name__ for _, m in e.named_modules()] == \
        [type(m).__name__ for _, m in t.named_modules()]
