"""True in-place F.elu_ / F.leaky_relu_ (aten::elu_ / leaky_relu_) against torch 1.13: the input is
written, the graph records EluBackward1 / LeakyReluBackward1 (saving the result), gradients
match, and a negative slope is refused when differentiating, with torch's texts."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF


def pair(seed=0):
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return x, ember.from_numpy(x.numpy().copy())


@pytest.mark.parametrize("name,args", [("elu_", (0.7,)), ("leaky_relu_", (0.05,))])
def test_inplace_writes_and_backward(name, args):
    tx, ex = pair()
    ta = tx.clone().requires_grad_()
    ea = ex.clone().requires_grad_()
    tb, eb = ta * 1.5, ea * 1.5
    ty = getattr(TF, name)(tb, *args)
    ey = getattr(EF, name)(eb, *args)
    assert ey is eb and ty is tb
    assert ey.grad_fn.name() == ty.grad_fn.name()  # EluBackward1 / LeakyReluBackward1
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-15)
    g = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    ty.backward(g)
    ey.backward(ember.from_numpy(g.numpy().copy()))
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-14)


def test_module_inplace_uses_the_inplace_op():
    _, ex = pair(1)
    b = ex.clone().requires_grad_() * 1.0
    y = ember.nn.ELU(inplace=True)(b)
    assert y is b and y.grad_fn.name() == "EluBackward1"
    y = ember.nn.LeakyReLU(0.2, inplace=True)(b)
    assert y.grad_fn.name() == "LeakyReluBackward1"


@pytest.mark.parametrize("name,arg,text", [
    ("elu_", -0.5, "In-place elu backward calculation is triggered with a negative slope"),
    ("leaky_relu_", -0.1, "In-place leakyReLu backward calculation is triggered with a negative slope"),
])
def test_negative_slope_refused_in_backward(name, arg, text):
    for lib, F in ((torch, TF), (ember, EF)):
        a = lib.ones(3, requires_grad=True)
        y = getattr(F, name)(a * 1, arg)
        with pytest.raises(RuntimeError, match=text):
            y.sum().backward()


def test_aten_ops_resolve():
    _, ex = pair(2)
    t = ex.clone()
    out = ember.ops.aten.elu_.default(t, 1.0)
    assert out is t
    np.testing.assert_allclose(t.numpy(), torch.nn.functional.elu(torch.from_numpy(ex.numpy())).numpy())
    t = ex.clone()
    ember.ops.aten.leaky_relu_.default(t, 0.3)
    np.testing.assert_allclose(t.numpy(), TF.leaky_relu(torch.from_numpy(ex.numpy()), 0.3).numpy())
