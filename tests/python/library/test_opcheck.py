"""ember.library.opcheck: schema, autograd registration and fake implementation checks."""
import pytest

import ember
from ember import Tensor
from ember.library import Library, custom_op, opcheck
from ember._opcheck import OpCheckError


def test_good_custom_op_passes():
    @custom_op("loc_good::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x.sin()

    @f.register_fake
    def _(x):
        return ember.empty_like(x)

    f.register_autograd(lambda ctx, g: g * ctx.x.cos(),
                        setup_context=lambda ctx, inputs, output: setattr(ctx, "x", inputs[0]))
    x = ember.randn(3, requires_grad=True)
    assert opcheck(f, (x,)) == {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
                                "test_faketensor": "SUCCESS"}


def test_undeclared_mutation_is_caught():
    lib = Library("loc_mut", "DEF")
    lib.define("f(Tensor x) -> Tensor")

    def f(x):
        x.add_(1)
        return x.clone()
    lib.impl("f", f, "CPU")
    with pytest.raises(OpCheckError) as e:
        opcheck(ember.ops.loc_mut.f.default, (ember.zeros(2),), test_utils="test_schema")
    assert str(e.value) == ("opcheck(op, ...): test_schema failed with Argument x is not defined as "
                            "mutable but was mutated (scroll up for stack trace)")


def test_wrong_fake_and_autograd_in_backend():
    lib = Library("loc_bad", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x.sum(0), "CPU")
    lib.impl("f", lambda x: ember.empty_like(x), "Meta")  # wrong shape
    res = opcheck(ember.ops.loc_bad.f.default, (ember.ones(2, 3),), test_utils="test_faketensor",
                  raise_exception=False)
    assert "shape (2, 3)" in str(res["test_faketensor"])

    class Twice(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", Twice.apply, "CPU")  # an autograd.Function at a backend key
    res = opcheck(ember.ops.loc_bad.g.default, (ember.ones(2, requires_grad=True),),
                  test_utils=["test_autograd_registration"], raise_exception=False)
    assert isinstance(res["test_autograd_registration"], AssertionError)
    assert str(res["test_autograd_registration"]).startswith(
        "loc_bad::g: at least one output of this operator has requires_grad=True but the operator "
        "does not have an autograd kernel defined at an autograd key")
    # A plain backend kernel (no autograd inside) passes: its outputs do not require grad.
    lib.define("h(Tensor x) -> Tensor")
    lib.impl("h", lambda x: x * 2, "CPU")
    assert opcheck(ember.ops.loc_bad.h.default, (ember.ones(2, requires_grad=True),),
                   test_utils="test_autograd_registration") == \
        {"test_autograd_registration": "SUCCESS"}


def test_bad_arguments():
    with pytest.raises(ValueError, match="op must be instance of"):
        opcheck(lambda x: x, (ember.ones(1),))

    @custom_op("loc_args::f", mutates_args=())
    def f(x: Tensor) -> Tensor:
        return x + 1
    with pytest.raises(ValueError, match="expected test_utils to be subset of"):
        opcheck(f, (ember.ones(1),), test_utils="test_nothing")
    with pytest.raises(OpCheckError, match="no inputs have requires_grad=True"):
        opcheck(f, (ember.ones(1),), test_utils="test_autograd_registration")
