"""complex64 / complex128: dtype objects, promotion, creation, conversion, printing, numpy and
serialization round trips, against torch 1.13 (docs/complex.md)."""
import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember


def E(t):
    """A torch tensor as an ember one (through numpy, complex included)."""
    return ember.from_numpy(t.detach().numpy().copy())


def assert_same(e, t, exact=True):
    assert str(e.dtype).replace("ember.", "") == str(t.dtype).replace("torch.", "")
    assert tuple(e.shape) == tuple(t.shape)
    if exact:
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    else:
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


# ---- dtype objects ----

def test_dtype_names_and_aliases():
    assert ember.complex64 is ember.cfloat and ember.complex128 is ember.cdouble
    assert repr(ember.complex64) == "ember.complex64" and repr(ember.cdouble) == "ember.complex128"
    assert ember.complex64.is_complex and ember.complex128.is_complex
    assert not ember.float32.is_complex and not ember.complex64.is_floating_point
    assert ember.complex64.itemsize == 8 and ember.complex128.itemsize == 16
    assert ember.complex64.is_signed
    assert pickle.loads(pickle.dumps(ember.complex128)) is ember.complex128


@pytest.mark.parametrize("a,b", [("complex64", "float32"), ("complex64", "float64"), ("complex128", "float32"),
                                 ("complex64", "int64"), ("complex64", "bool"), ("complex64", "complex128"),
                                 ("float16", "complex64"), ("uint8", "complex128"), ("bfloat16", "complex64")])
def test_promote_types(a, b):
    got = ember.promote_types(getattr(ember, a), getattr(ember, b))
    assert str(got) == str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace("torch.", "ember.")


def test_result_type_with_python_complex():
    for dt in ("float32", "float64", "int32", "bool"):
        e = ember.ones(2, dtype=getattr(ember, dt)) * 1j
        t = torch.ones(2, dtype=getattr(torch, dt)) * 1j
        assert str(e.dtype) == str(t.dtype).replace("torch", "ember")
    # A complex 0-d tensor with a dimensioned float tensor keeps the float's width.
    e = ember.ones(2, dtype=ember.float64) * ember.tensor(1j)
    assert e.dtype == ember.complex128
    e = ember.ones(2) * ember.tensor(1j, dtype=ember.complex128)
    assert e.dtype == ember.complex64
    assert ember.result_type(ember.ones(2), 1j) == ember.complex64


def test_default_complex_dtype_follows_default_dtype():
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1j]).dtype == ember.complex128
        assert ember.tensor(1 + 2j).dtype == ember.complex128
        assert repr(ember.tensor([1 + 2j])) == "tensor([1.+2.j])"
    finally:
        ember.set_default_dtype(ember.float32)
    assert ember.tensor([1j]).dtype == ember.complex64


# ---- creation ----

def test_tensor_from_python_complex():
    data = [[1 + 2j, 3], [-1.5j, 2.25 - 0.5j]]
    assert_same(ember.tensor(data), torch.tensor(data))
    assert_same(ember.tensor(data, dtype=ember.complex128), torch.tensor(data, dtype=torch.complex128))
    assert_same(ember.tensor([1, 2], dtype=ember.cfloat), torch.tensor([1, 2], dtype=torch.cfloat))
    assert ember.tensor(3j).item() == 3j and isinstance(ember.tensor(3j).item(), complex)
    assert ember.tensor(data).tolist() == torch.tensor(data).tolist()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_factories(dtype):
    e_dt, t_dt = getattr(ember, dtype), getattr(torch, dtype)
    assert_same(ember.zeros(2, 3, dtype=e_dt), torch.zeros(2, 3, dtype=t_dt))
    assert_same(ember.ones(4, dtype=e_dt), torch.ones(4, dtype=t_dt))
    assert_same(ember.full((2,), 1 - 2j, dtype=e_dt), torch.full((2,), 1 - 2j, dtype=t_dt))
    assert ember.empty(3, dtype=e_dt).dtype == e_dt
    assert_same(ember.full((2,), 1 + 1j), torch.full((2,), 1 + 1j))
    z = ember.zeros(3, dtype=e_dt)
    z.fill_(2 - 1j)
    assert z.tolist() == [2 - 1j] * 3
    assert_same(ember.zeros_like(ember.ones(2), dtype=e_dt), torch.zeros_like(torch.ones(2), dtype=t_dt))


def test_randn_complex_has_half_variance_per_part():
    ember.manual_seed(0)
    z = ember.randn(20000, dtype=ember.cfloat)
    assert z.dtype == ember.complex64
    re, im = z.real.numpy(), z.imag.numpy()
    assert abs(re.var() - 0.5) < 0.03 and abs(im.var() - 0.5) < 0.03
    assert abs(float(np.mean(np.abs(z.numpy()) ** 2)) - 1.0) < 0.05
    ember.manual_seed(1)
    a = ember.randn(8, dtype=ember.cdouble)
    ember.manual_seed(1)
    b = ember.randn(8, 2, dtype=ember.float64) / 2 ** 0.5
    np.testing.assert_allclose(ember.view_as_real(a).numpy(), b.numpy(), rtol=1e-12)
    u = ember.rand(1000, dtype=ember.cfloat)
    assert 0 <= u.real.min().item() and u.imag.max().item() < 1


# ---- conversion ----

def test_to_and_type_conversions():
    t = torch.tensor([1.5, -2.0])
    e = E(t)
    assert_same(e.to(ember.complex64), t.to(torch.complex64))
    assert_same(e.cdouble(), t.cdouble())
    assert_same(e.cfloat(), t.cfloat())
    z = ember.tensor([1 + 2j, -3.5 - 1j])
    assert_same(z.to(ember.int64), torch.tensor([1 + 2j, -3.5 - 1j]).to(torch.int64))
    assert z.bool().tolist() == [True, True]
    assert ember.tensor([0j, 1j]).bool().tolist() == [False, True]


def test_complex_to_real_warns_once_like_torch():
    # torch's TORCH_WARN_ONCE: the first complex -> real cast in the process warns, later ones do
    # not. Run in a fresh interpreter so the test does not depend on what ran before.
    import subprocess
    import sys
    import os
    code = ("import warnings, ember\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    z = ember.tensor([1+2j])\n"
            "    r = z.float(); r2 = z.to(ember.float64)\n"
            "print(len(w), w[0].category.__name__, str(w[0].message), r.tolist(), r2.tolist())\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "1 UserWarning Casting complex values to real discards the imaginary part [1.0] [1.0]"


def test_numpy_round_trip_shares_memory():
    a = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    e = ember.from_numpy(a)
    assert e.dtype == ember.complex64
    a[0] = 9j
    assert e[0].item() == 9j
    back = e.numpy()
    assert back.dtype == np.complex64 and np.shares_memory(back, a)
    assert ember.tensor(np.array([1j], dtype=np.complex128)).dtype == ember.complex128
    assert ember.as_tensor(np.array([2j])).dtype == ember.complex128


def test_pickle_and_save_load(tmp_path):
    z = ember.tensor([[1 + 2j, 3 - 1j]], dtype=ember.complex128)
    assert pickle.loads(pickle.dumps(z)).tolist() == z.tolist()
    path = tmp_path / "z.pt"
    ember.save({"z": z, "f": z.to(ember.complex64)}, path)
    back = ember.load(path)
    assert back["z"].dtype == ember.complex128 and back["z"].tolist() == z.tolist()
    assert back["f"].dtype == ember.complex64
    # torch reads ember's file and ember reads torch's
    t = torch.load(path)
    assert t["z"].dtype == torch.complex128 and t["z"].tolist() == z.tolist()
    buf = io.BytesIO()
    torch.save({"w": torch.tensor([1j, 2], dtype=torch.complex64)}, buf)
    buf.seek(0)
    w = ember.load(buf)["w"]
    assert w.dtype == ember.complex64 and w.tolist() == [1j, 2 + 0j]


# ---- printing ----

REPRS = [
    "torch.tensor([1+2j, 3-1j])",
    "torch.tensor([1.5+2j, -3.25-1e-3j], dtype=torch.cdouble)",
    "torch.tensor(1+0j)",
    "torch.tensor([[1e10+1j, 2]])",
    "torch.zeros(0, dtype=torch.cfloat)",
    "torch.zeros(2, 0, dtype=torch.cdouble)",
    "torch.tensor([float('nan')+1j, -0.0-0.0j, float('inf')*1j])",
    "torch.tensor([[0.1+0.2j, -1.25+3j], [100.5-0.001j, 7j]])",
    "torch.arange(30, dtype=torch.float32).reshape(3, 10).to(torch.cfloat) * (1-0.5j)",
    "torch.arange(2000, dtype=torch.float64).to(torch.cdouble) * 1j",
    "torch.tensor([1e-5+1j, 1j])",
    "torch.zeros(3, dtype=torch.cfloat, requires_grad=True)",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_as_torch(expr):
    t = eval(expr)
    e = eval(expr.replace("torch.", "ember."))
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_meta_device():
    m = ember.zeros(2, 3, dtype=ember.cfloat, device="meta")
    assert m.dtype == ember.complex64 and m.is_meta
    assert repr(m) == "tensor(..., device='meta', size=(2, 3), dtype=ember.complex64)"
    r = ember.view_as_real(m)
    assert r.shape == (2, 3, 2) and r.dtype == ember.float32 and r.is_meta
    assert (m * m).dtype == ember.complex64 and m.abs().dtype == ember.float32
    assert ember.fft.fft(m).shape == (2, 3)
    assert ember.fft.rfft(ember.zeros(4, 8, device="meta")).shape == (4, 5)


def test_unsupported_ops_raise_torch_texts():
    z = ember.tensor([1 + 1j, 2])
    cases = [
        (lambda: z.clamp(0, 1), "clamp is not supported for complex types"),
        (lambda: z.relu(), "clamp is not supported for complex types"),
        (lambda: z < z, "\"lt_cpu\" not implemented for 'ComplexFloat'"),
        (lambda: z.sign(), "Unlike NumPy, ember.sign is not intended to support complex numbers. Please use ember.sgn instead."),
        (lambda: z.abs_(), "In-place abs is not supported for complex tensors."),
    ]
    for fn, text in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value) == text
    for fn in (lambda: z.max(), lambda: z.sort(), lambda: z.floor(), lambda: z.cumsum(0) if False else z.argmax()):
        with pytest.raises(RuntimeError, match="ComplexFloat|complex"):
            fn()
    assert ember.tensor([1.0]).requires_grad_().dtype == ember.float32
    assert z.requires_grad_().requires_grad
