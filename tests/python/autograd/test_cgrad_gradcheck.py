"""ember.autograd.gradcheck / gradgradcheck against torch 1.13's on the same functions: complex
inputs and outputs (the conjugate Wirtinger checks, a complex output checked as its imaginary
then real part), fast mode, raise_exception, nondet_tol, check_undefined_grad,
the backward-scales-with-grad_output check, indices in messages, argument assertions, and the
options ember refuses (forward-mode AD, vmap). Each case runs the same code with `M` = torch and
`M` = ember and compares the verdicts and the messages (with ember. for torch.)."""
import re
import warnings

import pytest
import torch

import ember
from ember.autograd.gradcheck import GradcheckError


def outcome(M, f):
    """("ok", result) or (exception type name, message with torch. spelled as ember prints it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", f())
    except Exception as e:  # noqa: BLE001 - the type is compared
        return (type(e).__name__, str(e).replace("torch.", "ember."))


def both(make):
    """make(M) -> zero-argument callable; returns (torch outcome, ember outcome)."""
    return outcome(torch, make(torch)), outcome(ember, make(ember))


# ---- custom Functions, written once for both libraries ----

def functions(M):
    class SqWrong(M.autograd.Function):  # z*z with the gradient not conjugated
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    class SqRight(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * (2 * x).conj()

    class AbsSqWrong(M.autograd.Function):  # |z|^2: C -> R, gradient conjugated by mistake
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.abs() ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x.conj()

    class AbsSqRight(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.abs() ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    class ImagWrong(M.autograd.Function):  # R -> C: x (1 + 2i), the imaginary part's rule wrong
        @staticmethod
        def forward(ctx, x):
            return x * (1 + 2j)

        @staticmethod
        def backward(ctx, g):
            return (g * (1 + 3j)).real

    class ImagRight(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * (1 + 2j)

        @staticmethod
        def backward(ctx, g):
            return (g * (1 - 2j)).real

    class ImagPartWrong(M.autograd.Function):  # C -> C: 3z, gradient's imaginary part dropped
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return (g.real * 3).to(g.dtype)

    return dict(SqWrong=SqWrong, SqRight=SqRight, AbsSqWrong=AbsSqWrong, AbsSqRight=AbsSqRight,
                ImagWrong=ImagWrong, ImagRight=ImagRight, ImagPartWrong=ImagPartWrong)


def z(M):
    return M.tensor([0.3 + 0.7j, -1.2 + 0.4j, 0.5 - 0.9j], dtype=M.complex128, requires_grad=True)


def r(M):
    return M.tensor([0.3, -1.2, 2.0], dtype=M.float64, requires_grad=True)


COMPLEX_CASES = [
    # name, input maker, wrong?
    ("SqWrong", z, True), ("SqRight", z, False),
    ("AbsSqWrong", z, True), ("AbsSqRight", z, False),
    ("ImagWrong", r, True), ("ImagRight", r, False),
    ("ImagPartWrong", z, True),
]


@pytest.mark.parametrize("name,inp,wrong", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_complex_custom_function_slow_mode_matches_torch(name, inp, wrong):
    t, e = both(lambda M: lambda: M.autograd.gradcheck(functions(M)[name].apply, (inp(M),)))
    assert e == t
    assert (t[0] == "GradcheckError") == wrong


@pytest.mark.parametrize("name,inp,wrong", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_complex_custom_function_raise_exception_false(name, inp, wrong):
    t, e = both(lambda M: lambda: M.autograd.gradcheck(functions(M)[name].apply, (inp(M),),
                                                       raise_exception=False))
    assert e == t == ("ok", not wrong)


def test_wrong_complex_gradients_name_the_part_checked():
    # A complex output is checked as its imaginary part first, then its real part.
    _, e = both(lambda M: lambda: M.autograd.gradcheck(functions(M)["SqWrong"].apply, (z(M),)))
    assert e[1].startswith("While considering the imaginary part of complex outputs only, "
                           "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "dtype=ember.complex128" in e[1]
    _, e = both(lambda M: lambda: M.autograd.gradcheck(functions(M)["AbsSqWrong"].apply, (z(M),)))
    assert e[1].startswith("Jacobian mismatch for output 0")  # real output: no prefix


FAST_SPLIT = "Below, we recompute numerical and analytical jacobians in slow mode:\n\n"


@pytest.mark.parametrize("name,inp,wrong", COMPLEX_CASES, ids=[c[0] for c in COMPLEX_CASES])
def test_complex_custom_function_fast_mode(name, inp, wrong):
    t, e = both(lambda M: lambda: M.autograd.gradcheck(functions(M)[name].apply, (inp(M),),
                                                       fast_mode=True))
    assert e[0] == t[0]
    if not wrong:
        assert e == t == ("ok", True)
        return
    # The random vectors come from each library's own generator: the two projected numbers
    # differ; the head of the message and the slow-mode Jacobians after it are the same.
    head_t, slow_t = t[1].split(FAST_SPLIT)
    head_e, slow_e = e[1].split(FAST_SPLIT)
    number = r"tensor\([^)]*\)"
    assert re.sub(number, "N", head_e) == re.sub(number, "N", head_t)
    assert slow_e == slow_t


BUILTINS = [
    ("mul_conj", lambda M: lambda x: x * x.conj() * (2 - 1j), z),
    ("exp", lambda M: lambda x: x.exp(), z),
    ("abs", lambda M: lambda x: x.abs(), z),
    ("sin_real_to_complex", lambda M: lambda x: (x * (1 + 1j)).sin(), r),
    ("two_outputs", lambda M: lambda x: (x.real * 2, x * x), z),
    ("view_as_real", lambda M: lambda x: M.view_as_real(x * x), z),
    # prod's complex gradient is conjugated (ember's was not: the real-part check let it pass)
    ("prod", lambda M: lambda x: x.prod(), z),
    ("prod_dim", lambda M: lambda x: (x * x.view(3, 1)).prod(1), z),
    ("prod_with_zero", lambda M: lambda x: (x * M.tensor([1, 0, 1], dtype=M.complex128)).prod(), z),
]


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("name,fn,inp", BUILTINS, ids=[b[0] for b in BUILTINS])
def test_builtin_complex_rules_pass_as_in_torch(name, fn, inp, fast):
    t, e = both(lambda M: lambda: M.autograd.gradcheck(fn(M), (inp(M),), fast_mode=fast))
    assert e == t == ("ok", True)


def test_gradgradcheck_complex():
    for fn in (lambda M: lambda x: x.exp() * x, lambda M: lambda x: (x * x.conj()).real):
        t, e = both(lambda M: lambda: M.autograd.gradgradcheck(fn(M), (z(M),)))
        assert e == t == ("ok", True)
    # A custom Function whose backward is not differentiable correctly for complex input.
    t, e = both(lambda M: lambda: M.autograd.gradgradcheck(functions(M)["SqWrong"].apply, (z(M),),
                                                           raise_exception=False))
    assert e == t


# ---- real-valued checks and messages ----

def bad_functions(M):
    class ThirdInsteadOfOne(M.autograd.Function):  # outputs (a * b, a + b); d(a*b)/db given as 3
        @staticmethod
        def forward(ctx, a, b):
            return a * b, a + b

        @staticmethod
        def backward(ctx, g1, g2):
            return None, g1 * 3 + g2

    class NotScaled(M.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + (g == 0).to(g.dtype) * 1e-30

    class Nondet(M.autograd.Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            Nondet.calls[0] += 1
            return g * 2 + (Nondet.calls[0] % 2) * 1e-9

    class UndefinedNotZero(M.autograd.Function):  # grads None -> ones: not handled as zero
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return M.ones(3, dtype=M.float64) if g is None else g * 2

    class RaisesOnUndefined(M.autograd.Function):  # a RuntimeError: turned into GradcheckError
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("no gradient")
            return g * 2

    class TypeErrorOnUndefined(M.autograd.Function):  # any other error goes through
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise TypeError("no gradient")
            return g * 2

    return dict(ThirdInsteadOfOne=ThirdInsteadOfOne, NotScaled=NotScaled, Nondet=Nondet,
                UndefinedNotZero=UndefinedNotZero, RaisesOnUndefined=RaisesOnUndefined,
                TypeErrorOnUndefined=TypeErrorOnUndefined)


def ab(M):
    a = M.tensor([0.5, -1.5], dtype=M.float64)
    b = M.tensor([2.0, 0.25], dtype=M.float64, requires_grad=True)
    return a, b


@pytest.mark.parametrize("fast", [False, True])
def test_indices_count_differentiable_outputs_and_inputs(fast):
    # Output 0 is the first output that requires grad; input 0 the first input that does.
    def make(M):
        F = bad_functions(M)["ThirdInsteadOfOne"]
        return lambda: M.autograd.gradcheck(lambda a, b: (a.detach(),) + F.apply(a, b), ab(M),
                                            fast_mode=fast)
    t, e = both(make)
    assert t[0] == e[0] == "GradcheckError"
    if fast:
        assert e[1].split(FAST_SPLIT)[1] == t[1].split(FAST_SPLIT)[1]
        assert e[1].startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    else:
        assert e == t


@pytest.mark.parametrize("name,kw", [("NotScaled", {}), ("Nondet", {}),
                                     ("Nondet", {"nondet_tol": 1e-7}),
                                     ("UndefinedNotZero", {}),
                                     ("UndefinedNotZero", {"check_undefined_grad": False}),
                                     ("RaisesOnUndefined", {}), ("TypeErrorOnUndefined", {})])
def test_backward_checks_after_the_jacobians(name, kw):
    def make(M):
        F = bad_functions(M)[name]
        return lambda: M.autograd.gradcheck(F.apply, (r(M),), **kw)
    t, e = both(make)
    assert e == t
    expected = {"NotScaled": "backward not multiplied by grad_output",
                "Nondet": "Backward is not reentrant, i.e., running backward with same input",
                "UndefinedNotZero": "Expected all input grads to be undefined or zero",
                "RaisesOnUndefined": "Expected backward function to handle undefined output "
                                     "grads. Please look at",
                "TypeErrorOnUndefined": "no gradient"}[name]
    if name == "TypeErrorOnUndefined":
        assert e == ("TypeError", "no gradient")
    elif name == "UndefinedNotZero" and kw:
        assert e == ("ok", True)
    elif name == "Nondet" and kw:  # within nondet_tol, then the zero grad_output gives 1e-9
        assert e[1] == "backward not multiplied by grad_output"
    else:
        assert e[0] == "GradcheckError" and e[1].startswith(expected)


def test_undefined_grad_warns_as_torch():
    for M in (torch, ember):
        F = bad_functions(M)["UndefinedNotZero"]
        with pytest.warns(UserWarning, match="Backwards compatibility: New undefined gradient "
                                             "support checking feature is enabled by default"):
            assert not M.autograd.gradcheck(F.apply, (r(M),), raise_exception=False)


@pytest.mark.parametrize("fast", [False, True])
def test_no_differentiable_outputs(fast):
    for fn in (lambda M: lambda x: x.detach(), lambda M: lambda x: x.detach() * 0 + 1):
        t, e = both(lambda M: lambda: M.autograd.gradcheck(fn(M), (r(M),), fast_mode=fast))
        assert e == t


def test_float32_output_message_and_warning():
    t, e = both(lambda M: lambda: M.autograd.gradcheck(lambda x: x.float() * 2, (r(M),)))
    assert e == t and e[0] == "GradcheckError"
    for M in (torch, ember):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                                             "precision floating point or complex"):
            M.autograd.gradcheck(lambda x: x * 2, (x,), raise_exception=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # complex128 is double precision: no warning
            assert M.autograd.gradcheck(lambda x: x * 2, (z(M),))


def test_argument_errors_as_torch():
    cases = [
        lambda M: lambda: M.autograd.gradcheck(lambda x: x, (M.ones(2, dtype=M.float64),)),
        lambda M: lambda: M.autograd.gradcheck(
            lambda x: x, (M.ones(1, dtype=M.float64).expand(3).requires_grad_(),)),
        lambda M: lambda: M.autograd.gradcheck(lambda x: x, (r(M),), check_backward_ad=False),
        lambda M: lambda: M.autograd.gradcheck(lambda x: x, (r(M),), check_backward_ad=False,
                                               check_batched_grad=True, check_forward_ad=True),
        lambda M: lambda: M.autograd.gradgradcheck(lambda x: x, (r(M),),
                                                   check_rev_over_rev=False),
        lambda M: lambda: M.autograd.gradgradcheck(lambda x: x, (r(M),), check_rev_over_rev=False,
                                                   check_fwd_over_rev=True),
    ]
    for make in cases:
        t, e = both(make)
        assert e == t


def test_masked_is_not_a_1_13_argument():
    t, e = both(lambda M: lambda: M.autograd.gradcheck(lambda x: x, (r(M),), masked=True))
    assert t[0] == e[0] == "TypeError"


def test_forward_ad_and_vmap_checks_are_refused_after_the_backward_checks():
    for kw in ({"check_forward_ad": True}, {"check_batched_grad": True}):
        with pytest.raises(NotImplementedError, match="ember does not have"):
            ember.autograd.gradcheck(lambda x: x * 2, (r(ember),), **kw)
        # A wrong backward is reported first, as torch reports it before those checks.
        F = functions(ember)["ImagWrong"]
        with pytest.raises(GradcheckError, match="imaginary part"):
            ember.autograd.gradcheck(F.apply, (r(ember),), **kw)


def test_gradgradcheck_grad_outputs():
    for kw in ({}, {"gen_non_contig_grad_outputs": True}, {"fast_mode": True}):
        t, e = both(lambda M: lambda: M.autograd.gradgradcheck(
            lambda x: (x.sin() * x, x.exp()), (r(M),), **kw))
        assert e == t == ("ok", True)
    t, e = both(lambda M: lambda: M.autograd.gradgradcheck(
        lambda x: x.sin(), (r(M),), (M.tensor([1.0, -2.0, 0.5], dtype=M.float64,
                                              requires_grad=True),)))
    assert e == t == ("ok", True)


def test_gradcheck_leaves_the_global_generator_alone():
    ember.manual_seed(3)
    expected = ember.rand(4)
    ember.manual_seed(3)
    assert ember.autograd.gradcheck(lambda x: x.sin(), (z(ember),), fast_mode=True)
    assert ember.equal(ember.rand(4), expected)
