"""The Python face of the pointwise math and math reductions (atenpw), against torch 1.13:
torch.* functions and Tensor methods (with out= and in-place forms), ember.special, the alias
names, operators, the Core ATen rows of this part, dispatch of Python numbers to the Scalar
overloads, and edge values."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember

CORE_ROWS = """acos acosh asin asinh atan atan2 atan2.out atanh cosh sinh tan ceil floor round
round.decimals trunc erf log10 log2 reciprocal isinf isnan fmod.Scalar fmod.Tensor remainder.Scalar
pow.Scalar add.Scalar sub.Scalar div.Scalar_mode eq.Scalar ne.Scalar lt.Scalar le.Scalar gt.Scalar
ge.Scalar bitwise_and.Scalar bitwise_or.Scalar bitwise_xor.Scalar scalar_tensor _local_scalar_dense
fill.Scalar""".split()


def e(t):
    """ember copy of a torch tensor."""
    return ember.from_numpy(t.numpy().copy()) if t.dtype != torch.bfloat16 else ember.tensor(t.float().tolist(), dtype=ember.bfloat16)


def close(a, b, rtol=1.3e-6, atol=1e-6):
    assert isinstance(a, ember.Tensor), type(a)
    assert str(a.dtype).replace("ember.", "") == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    an = a.float().numpy() if a.dtype in (ember.bfloat16, ember.float16) else a.numpy()
    bn = b.float().numpy() if b.dtype in (torch.bfloat16, torch.float16) else b.numpy()
    np.testing.assert_allclose(an, bn, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("row", CORE_ROWS)
def test_core_aten_rows_resolve(row):
    name, _, overload = row.partition(".")
    packet = getattr(ember.ops.aten, name)
    assert getattr(packet, overload or "default") is not None


SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, float("nan"), float("inf"), float("-inf"), 1e-30, 40.0, -7.5]


@pytest.mark.parametrize("name", ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan",
                                  "ceil", "floor", "round", "trunc", "frac", "erf", "erfc", "erfinv", "log10",
                                  "log2", "exp2", "reciprocal", "lgamma", "digamma", "i0", "sinc", "isnan",
                                  "isinf", "isfinite", "isposinf", "isneginf", "signbit", "sgn", "square",
                                  "deg2rad", "rad2deg", "nan_to_num", "arccos", "arcsinh", "fix", "logit"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_functions_and_methods_on_edge_values(name, dtype):
    t = torch.tensor(SPECIALS, dtype=getattr(torch, dtype))
    x = e(t)
    want = getattr(torch, name)(t)
    close(getattr(ember, name)(x), want, rtol=2e-6)
    close(getattr(x, name)(), want, rtol=2e-6)


@pytest.mark.parametrize("name", ["acos", "tan", "erfinv", "log2", "ceil", "trunc", "sgn", "square", "deg2rad",
                                  "arctan", "clip", "fix", "absolute", "negative", "nan_to_num"])
def test_inplace_methods(name):
    t = torch.tensor([0.25, -0.5, 0.75], dtype=torch.float64)
    x = e(t)
    args = (0.0, 0.5) if name == "clip" else ()
    r = getattr(x, name + "_")(*args)
    assert r is x
    close(x, getattr(t, name + "_")(*args))


def test_out_arguments():
    t = torch.tensor([0.2, 0.4], dtype=torch.float64)
    for name in ("acos", "erfinv", "digamma", "ceil", "sinc", "isposinf", "signbit"):
        out = ember.empty(0, dtype=ember.bool if name in ("isposinf", "signbit") else ember.float64)
        r = getattr(ember, name)(e(t), out=out)
        assert r is out
        close(out, getattr(torch, name)(t))
    out = ember.empty(2)
    assert ember.atan2(e(t), e(t), out=out) is out
    close(out, torch.atan2(t, t).float())
    o2 = (ember.empty(0), ember.empty(0, dtype=ember.int64))
    r = ember.cummax(ember.tensor([1.0, 3.0, 2.0]), 0, out=o2)
    assert r.values is o2[0] and r.indices is o2[1]
    assert "cummax_out" in type(r).__name__ or "cummax" in type(r).__name__


def test_integer_promotion_and_inplace_refusal():
    i = ember.tensor([1, 2, 3])
    assert ember.sin(i).dtype == ember.float32 and ember.acos(i).dtype == ember.float32
    assert ember.ceil(i).dtype == ember.int64
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.acos_()
    with pytest.raises(RuntimeError, match="\"frac_cpu\" not implemented for 'Long'"):
        ember.frac(i)
    with pytest.raises(RuntimeError, match="\"ceil_vml_cpu\" not implemented for 'Bool'"):
        ember.ceil(ember.tensor([True]))


def test_round_decimals():
    t = torch.tensor([1.2345, -2.5551, 1234.5, 0.5, 1.5], dtype=torch.float64)
    for d in (0, 1, 3, -1, -2):
        close(ember.round(e(t), decimals=d), torch.round(t, decimals=d), rtol=0, atol=0)
        close(e(t).round(decimals=d), torch.round(t, decimals=d), rtol=0, atol=0)


@pytest.mark.parametrize("name", ["atan2", "hypot", "copysign", "nextafter", "logaddexp", "logaddexp2",
                                  "xlogy", "fmod", "remainder", "heaviside", "float_power", "true_divide",
                                  "arctan2"])
def test_binary_functions(name):
    a = torch.tensor([[1.5, -2.0, 0.0], [-0.0, 3.25, -7.0]], dtype=torch.float64)
    b = torch.tensor([2.0, -0.0, -3.5], dtype=torch.float64)
    close(getattr(ember, name)(e(a), e(b)), getattr(torch, name)(a, b))
    close(getattr(e(a), name)(e(b)), getattr(a, name)(b))


def test_integer_binary_ops():
    a = torch.tensor([12, -18, 0, 7], dtype=torch.int32)
    b = torch.tensor([8, 12, 5, -3], dtype=torch.int32)
    for name in ("gcd", "lcm", "fmod", "remainder", "bitwise_left_shift", "bitwise_right_shift"):
        bb = b.abs() if "shift" in name else b
        close(getattr(ember, name)(e(a), e(bb)), getattr(torch, name)(a, bb), rtol=0, atol=0)
    close(e(a) << 2, a << 2, rtol=0, atol=0)
    close(e(a) >> 1, a >> 1, rtol=0, atol=0)
    x = e(a)
    x <<= 1
    close(x, a << 1, rtol=0, atol=0)
    y = e(a)
    y %= 5
    close(y, a % 5, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.fmod(e(a), ember.zeros(4, dtype=ember.int32))


def test_python_numbers_take_the_scalar_overloads():
    from ember.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = ember.tensor([1.0, 2.0])
    with Log():
        x.eq(2)
        ember.pow(2, x)
    # the Scalar overloads are Composite rows: the dispatch layers see the Tensor ones, as for any
    # composite; the results are torch's
    assert any("eq" in s for s in seen) and any("pow" in s for s in seen)
    close(ember.pow(2, e(torch.tensor([1, 3]))), torch.pow(2, torch.tensor([1, 3])))
    close(ember.remainder(5, e(torch.tensor([3, -3]))), torch.remainder(5, torch.tensor([3, -3])))
    close(ember.bitwise_and(6, e(torch.tensor([3, 5]))), torch.bitwise_and(6, torch.tensor([3, 5])))
    close(ember.xlogy(2, e(torch.tensor([0.5, 3.0]))), torch.xlogy(2, torch.tensor([0.5, 3.0])))
    # Tensor.pow still exists (pow.Scalar is a function-only overload, as in PyTorch)
    close(e(torch.tensor([2.0])).pow(3), torch.tensor([8.0]))
    assert not hasattr(ember.Tensor, "special_entr")


def test_special_module():
    t = torch.tensor([0.1, 0.5, 2.0, 7.5, -0.3], dtype=torch.float64)
    x = e(t)
    for name in ("erf", "erfc", "erfcx", "erfinv", "expm1", "exp2", "log1p", "i0", "i0e", "i1", "i1e",
                 "ndtr", "log_ndtr", "digamma", "psi", "gammaln", "sinc", "entr", "expit", "round"):
        close(getattr(ember.special, name)(x), getattr(torch.special, name)(t), rtol=1e-10, atol=1e-12)
    p = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    close(ember.special.ndtri(e(p)), torch.special.ndtri(p), rtol=1e-10)
    close(ember.special.logit(e(p)), torch.special.logit(p), rtol=1e-10)
    close(ember.special.xlogy(x, x.abs()), torch.special.xlogy(t, t.abs()), rtol=1e-10)
    close(ember.special.xlog1py(x, x.abs()), torch.special.xlog1py(t, t.abs()), rtol=1e-10)
    close(ember.special.zeta(e(t.abs() + 1.5), x.abs()), torch.special.zeta(t.abs() + 1.5, t.abs()), rtol=1e-10)
    close(ember.special.zeta(2.0, x.abs()), torch.special.zeta(2.0, t.abs()), rtol=1e-10)
    close(ember.special.polygamma(2, x.abs()), torch.special.polygamma(2, t.abs()), rtol=1e-9)
    close(ember.special.multigammaln(x.abs() + 2, 3), torch.special.multigammaln(t.abs() + 2, 3), rtol=1e-10)
    m = torch.randn(3, 4, dtype=torch.float64)
    close(ember.special.logsumexp(e(m), 1), torch.special.logsumexp(m, 1), rtol=1e-12)
    close(ember.special.softmax(e(m), 1), torch.special.softmax(m, 1), rtol=1e-12)
    close(ember.special.log_softmax(e(m), 0), torch.special.log_softmax(m, 0), rtol=1e-12)
    out = ember.empty(5, dtype=ember.float64)
    assert ember.special.i1(x, out=out) is out


def test_aliases_are_torch_names():
    t = torch.tensor([0.3, -0.6], dtype=torch.float64)
    for name in ("arccos", "arcsin", "arctan", "arcsinh", "arctanh", "fix", "absolute", "negative"):
        close(getattr(ember, name)(e(t)), getattr(torch, name)(t))
    close(ember.arccosh(e(t.abs() + 1)), torch.arccosh(t.abs() + 1))
    close(ember.clip(e(t), -0.5, 0.2), torch.clip(t, -0.5, 0.2))
    close(ember.greater(e(t), 0), torch.greater(t, 0), rtol=0, atol=0)
    close(ember.not_equal(e(t), e(t)), torch.not_equal(t, t), rtol=0, atol=0)
    close(ember.divide(e(t), 2, rounding_mode="floor"), torch.divide(t, 2, rounding_mode="floor"))


def test_composites():
    t = torch.tensor([[1.0, float("nan"), -2.0], [float("inf"), 0.5, float("-inf")]])
    x = e(t)
    close(ember.nan_to_num(x, nan=1.0, posinf=9.0), torch.nan_to_num(t, nan=1.0, posinf=9.0))
    close(ember.nansum(x[:, :2]), torch.nansum(t[:, :2]))
    close(ember.nansum(x[:, 1:2], 0), torch.nansum(t[:, 1:2], 0))
    close(ember.nanmean(e(torch.tensor([1.0, float("nan"), 3.0]))), torch.nanmean(torch.tensor([1.0, float("nan"), 3.0])))
    close(ember.isclose(x, x, equal_nan=True), torch.isclose(t, t, equal_nan=True), rtol=0, atol=0)
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    close(ember.lerp(e(a), e(b), 0.3), torch.lerp(a, b, 0.3))
    close(ember.lerp(e(a), e(b), e(b)), torch.lerp(a, b, b))
    close(ember.dist(e(a), e(b), 3), torch.dist(a, b, 3))
    close(ember.renorm(e(a), 2, 0, 1.0), torch.renorm(a, 2, 0, 1.0))
    close(ember.count_nonzero(e(a > 0), dim=1), torch.count_nonzero(a > 0, dim=1), rtol=0, atol=0)
    close(ember.clamp_min(e(a), 0.1), torch.clamp_min(a, 0.1))
    close(e(a).clamp_max(e(b)), a.clamp_max(b))
    assert ember.positive(x) is x and x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x
    s = ember.scalar_tensor(3)
    assert s.dtype == ember.float32 and s.dim() == 0 and s.item() == 3.0
    assert ember.ops.aten._local_scalar_dense(ember.tensor([2.5])) == 2.5
    close(ember.fill(e(a), 2.0), torch.fill(a, 2.0))
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        e(a).fill_(ember.ones(2))


def test_trigamma_within_torchs_series_error():
    t = torch.tensor([0.3, 1.7, -2.5, 12.0, 150.0], dtype=torch.float64)
    close(ember.polygamma(1, e(t)), torch.polygamma(1, t), rtol=2e-9, atol=0)
    close(e(t).polygamma(1), t.polygamma(1), rtol=2e-9, atol=0)
    # the exact value at 1 is pi^2 / 6
    assert abs(ember.polygamma(1, ember.tensor([1.0], dtype=ember.float64)).item() - math.pi ** 2 / 6) < 1e-15


def test_reductions_and_scans():
    a = torch.randn(3, 4, 5, dtype=torch.float64)
    x = e(a)
    close(ember.logsumexp(x, (0, 2)), torch.logsumexp(a, (0, 2)), rtol=1e-12)
    close(x.logsumexp(1, keepdim=True), a.logsumexp(1, keepdim=True), rtol=1e-12)
    inf = torch.tensor([[float("-inf"), float("-inf")], [float("inf"), 1.0]])
    close(ember.logsumexp(e(inf), 1), torch.logsumexp(inf, 1))
    close(ember.cumprod(x, 1), torch.cumprod(a, 1), rtol=1e-12)
    close(ember.cumprod(e(torch.tensor([True, True, False])), 0), torch.cumprod(torch.tensor([True, True, False]), 0), rtol=0, atol=0)
    for name in ("cummax", "cummin"):
        r, w = getattr(ember, name)(x, 2), getattr(torch, name)(a, 2)
        close(r.values, w.values, rtol=0, atol=0)
        close(r.indices, w.indices, rtol=0, atol=0)
        assert type(r).__name__ == name
    nan = torch.tensor([1.0, float("nan"), 0.5, float("nan"), 3.0])
    for name in ("cummax", "cummin"):
        r, w = getattr(ember, name)(e(nan), 0), getattr(torch, name)(nan, 0)
        close(r.values, w.values)
        close(r.indices, w.indices, rtol=0, atol=0)
    close(ember.logcumsumexp(x, -1), torch.logcumsumexp(a, -1), rtol=1e-12)
    y = e(a.clone())
    assert y.cumprod_(0) is y
    close(y, a.cumprod(0), rtol=1e-12)


def test_gradients_against_torch():
    a = torch.randn(3, 4, dtype=torch.float64)
    b = torch.rand(3, 4, dtype=torch.float64) + 0.5

    def grads(lib, fn):
        xa = (e(a) if lib is ember else a.clone()).requires_grad_()
        xb = (e(b) if lib is ember else b.clone()).requires_grad_()
        out = fn(lib, xa, xb)
        out.sum().backward()
        return xa.grad, xb.grad

    fns = [
        lambda m, x, y: m.atan2(x, y), lambda m, x, y: m.xlogy(x, y), lambda m, x, y: m.hypot(x, y),
        lambda m, x, y: m.logaddexp(x, y) * m.erf(x), lambda m, x, y: m.lerp(x, y, 0.7),
        lambda m, x, y: m.cumprod(x * y, 1), lambda m, x, y: m.logcumsumexp(x, 0) + y,
        lambda m, x, y: m.cummax(x, 1)[0] * y, lambda m, x, y: m.logsumexp(x * y, 1),
        lambda m, x, y: m.special.i1e(x) + m.special.ndtri(y / 3), lambda m, x, y: m.polygamma(2, y) * x,
        lambda m, x, y: m.nan_to_num(m.log(x)) + m.digamma(y), lambda m, x, y: m.fmod(x, y) + m.copysign(y, x),
    ]
    for fn in fns:
        ge, gt = grads(ember, fn), grads(torch, fn)
        for u, v in zip(ge, gt):
            close(u, v, rtol=1e-9, atol=1e-10)


def test_errors_as_torch():
    x = ember.tensor([1.0, 2.0])
    cases = [
        (lambda: ember.renorm(x, 2, 0, 1.0), "renorm: input needs at least 2 dimensions, got 1 dimensions"),
        (lambda: ember.nanmean(ember.tensor([1, 2])), "nanmean(): expected input to have floating point dtype but got Long"),
        (lambda: ember.polygamma(-1, x), "polygamma(n, x) does not support negative n."),
        (lambda: ember.mvlgamma(x, 0), "p has to be greater than or equal to 1"),
        (lambda: ember.lerp(x, x.double(), 0.5), "expected dtype float for `end` but got dtype double"),
        (lambda: ember.isclose(x, x.double()), "Float did not match Double"),
        (lambda: x.float_power_(2), "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"),
        (lambda: ember.heaviside(x, x.double()), "heaviside is not yet implemented for tensors with different dtypes."),
        (lambda: ember.gcd(x, x), "\"gcd_cpu\" not implemented for 'Float'"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value).split("\n")[0] == msg


def test_meta_tensors():
    m = ember.empty(2, 3, device="meta")
    for r in (ember.acos(m), ember.atan2(m, m), ember.isnan(m), ember.cumprod(m, 1), ember.logsumexp(m, 1),
              ember.round(m, decimals=2), ember.special.i1e(m)):
        assert r.is_meta
    assert ember.cummax(m, 0).values.shape == (2, 3)
