"""ember.autograd.gradcheck / gradgradcheck on Python callables, against PyTorch 1.13."""
import pytest
import torch

import ember
from autograd_helpers import tensor


def error_of(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the type is part of what is compared
        return type(e).__name__, str(e)


def exp_function(lib, factor=1.0):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r * factor
    return Exp


def double_function(lib, factor):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * factor
    return Double


def test_passes_on_correct_functions():
    for lib in (torch, ember):
        x = tensor(lib, [0.1, 0.5, -1.0], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(exp_function(lib).apply, (x,)) is True
        assert lib.autograd.gradgradcheck(exp_function(lib).apply, (x,)) is True
        assert lib.autograd.gradcheck(exp_function(lib).apply, x, fast_mode=True) is True


def test_non_tensor_arguments_are_passed_through():
    def scaled(x, k, y):
        return x * k + y

    for lib in (torch, ember):
        x = tensor(lib, [1., 2.], dtype=lib.float64, requires_grad=True)
        y = tensor(lib, [3., 4.], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(scaled, (x, 3.0, y))


def test_mismatch_message_and_raise_exception():
    def run(lib):
        x = tensor(lib, [1., 2.], dtype=lib.float64, requires_grad=True)
        fn = double_function(lib, 3).apply
        err = error_of(lambda: lib.autograd.gradcheck(fn, (x,)))
        quiet = lib.autograd.gradcheck(fn, (x,), raise_exception=False)
        fast = error_of(lambda: lib.autograd.gradcheck(fn, (x,), fast_mode=True))
        return err, quiet, fast
    t, e = run(torch), run(ember)
    assert e[0][0] == t[0][0] == "GradcheckError"
    assert e[0][1].startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert e[1] is False and t[1] is False
    assert "fast mode" in e[2][1] and "fast mode" in t[2][1]
    assert isinstance(ember.autograd.gradcheck, type(lambda: 0))
    from ember.autograd.gradcheck import GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    with pytest.raises(GradcheckError):
        ember.autograd.gradcheck(double_function(ember, 3).apply,
                                 (ember.ones(2, dtype=ember.float64, requires_grad=True),))


def test_input_checks():
    def run(lib):
        x = lib.ones(2, dtype=lib.float64)
        no_grad = error_of(lambda: lib.autograd.gradcheck(lambda t: t * 2, (x,),
                                                          raise_exception=False))
        return no_grad
    assert run(torch) == run(ember)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                                         "precision floating point"):
        ember.autograd.gradcheck(lambda t: t * 2, (ember.ones(2, requires_grad=True),),
                                 atol=1e-2, rtol=1e-2, eps=1e-3)


def test_unsupported_checks_are_refused():
    x = ember.ones(2, dtype=ember.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="check_forward_ad"):
        ember.autograd.gradcheck(lambda t: t * 2, (x,), check_forward_ad=True)
