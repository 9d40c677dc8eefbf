"""Every overload of every bound op name, as torch 1.13's type stubs list it, called on both sides.

For each `torch.<name>` overload in torch/_C/_VariableFunctions.pyi and each `Tensor.<name>`
overload in torch/_C/__init__.pyi whose name ember binds from its op table, the same calls are
made on ember and torch (required arguments only; every argument; every argument by keyword;
out= where the overload has it) and must agree: the same values, dtypes, shapes and result
structure (a return_types structseq where torch gives one), or the same exception type.
signature_walk.py holds the input table and the short list of overloads ember does not bind.
"""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import _C

from signature_walk import RANDOM, TORCH_QUIRKS, UNSUPPORTED, Dtype, T, fit, stub_overloads, value_for

FUNCTIONS = set(_C._op_functions)
METHODS = set(_C._op_methods)
OVERLOADS = stub_overloads(FUNCTIONS, METHODS)


def unsupported_reason(kind, name, params):
    for reason, pred in UNSUPPORTED:
        if pred(kind, name, params):
            return reason
    # Overloads that require generator= where ember's op has no Generator parameter yet (rand,
    # randn, randint): generators as objects come with issue 12's random-number work; the test
    # runs these as soon as the op's schema takes one.
    fn = _C._op_functions.get(name)
    if any(p.name == "generator" for p in params) and "Generator" not in (fn.__doc__ or ""):
        return "generator= on an op whose schema has no Generator"
    return None


def make_calls(kind, name, params):
    """[(label, self spec, args, kwargs)] with table values (specs) for each call form."""
    forms = []
    pos = [p for p in params if p.kind == "pos"]
    varargs = [p for p in params if p.kind == "varargs"]
    kwonly = [p for p in params if p.kind == "kwonly" and p.name not in ("out", "names")]
    has_out = any(p.name == "out" for p in params)

    def v(p):
        return fit(value_for(name, p), p.ann)

    def varargs_values(p):
        val = value_for(name, p)
        return list(val) if isinstance(val, list) else [val]

    self_spec = value_for(name, type("P", (), {"name": "self", "ann": "Tensor"})()) if kind == "method" else None
    required = [v(p) for p in pos if not p.has_default]
    required_kw = {p.name: v(p) for p in kwonly if not p.has_default}
    if varargs:
        required += varargs_values(varargs[0])
    forms.append(("required", required, required_kw))
    if any(p.has_default for p in pos + kwonly):
        every = [v(p) for p in pos] + (varargs_values(varargs[0]) if varargs else [])
        forms.append(("every", every, {p.name: v(p) for p in kwonly}))
    if pos and not varargs:
        forms.append(("keywords", [], {**{p.name: v(p) for p in pos},
                                       **{p.name: v(p) for p in kwonly}}))
    if has_out:
        forms.append(("out", required, {**required_kw, "out": "OUT"}))
    return [(label, self_spec, args, kwargs) for label, args, kwargs in forms]


class Side:
    """Builds the values of a call for torch or for ember from the specs."""

    def __init__(self, lib, seed):
        self.lib, self.rng = lib, np.random.default_rng(seed)

    def build(self, spec):
        lib = self.lib
        if isinstance(spec, T):
            return lib.tensor(spec.array(self.rng))
        if isinstance(spec, Dtype):
            return getattr(lib, spec.name)
        if isinstance(spec, tuple) and spec and spec[0] == "scalar_tensor":
            return lib.tensor(spec[1])
        if isinstance(spec, list):
            return [self.build(s) for s in spec]
        if spec == "contiguous_format":
            return lib.contiguous_format
        if spec == "strided":
            return lib.strided
        return spec


def flatten(r):
    if isinstance(r, (tuple, list)):
        out = [("seq", type(r).__name__, len(r))]
        for x in r:
            out += flatten(x)
        return out
    return [r]


def same(a, b, random):
    fa, fb = flatten(a), flatten(b)
    assert len(fa) == len(fb), (a, b)
    for x, y in zip(fa, fb):
        if isinstance(x, torch.Tensor):
            assert isinstance(y, ember.Tensor), (x, y)
            assert str(y.dtype).replace("ember.", "") == str(x.dtype).replace("torch.", "")
            assert tuple(y.shape) == tuple(x.shape)
            if not random:
                np.testing.assert_allclose(y.numpy().astype(np.float64) if y.dtype != ember.bool else y.numpy(),
                                           x.numpy().astype(np.float64) if x.dtype != torch.bool else x.numpy(),
                                           rtol=1e-5, atol=1e-6, equal_nan=True)
        elif isinstance(x, tuple) and x and x[0] == "seq":
            assert y == x, (a, b)
        elif isinstance(x, float) and math.isnan(x):
            assert math.isnan(y)
        else:
            assert x == y, (a, b)


def run(lib, kind, name, self_spec, args, kwargs, seed, out_like=None):
    side = Side(lib, seed)
    self_v = side.build(self_spec) if kind == "method" else None
    a = [side.build(x) for x in args]
    kw = {k: side.build(x) for k, x in kwargs.items() if k != "out"}
    if "out" in kwargs:
        kw["out"] = out_like(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "method":
            return getattr(self_v, name)(*a, **kw), kw.get("out")
        fn = getattr(lib, name, None) or lib._C._op_functions[name]  # private names: ember._C
        return fn(*a, **kw), kw.get("out")


def cases():
    out = []
    for kind, name, params, text in OVERLOADS:
        reason = unsupported_reason(kind, name, params)
        for label, self_spec, args, kwargs in make_calls(kind, name, params) if not reason else [("-", None, [], {})]:
            ident = f"{kind}:{name}({text}):{label}"
            marks = [pytest.mark.skip(reason=f"deliberately unsupported: {reason}")] if reason else []
            for key in ((kind, name, label), (kind, name, label, text)):
                if key in TORCH_QUIRKS:
                    marks = [pytest.mark.skip(reason=TORCH_QUIRKS[key])]
            out.append(pytest.param(kind, name, self_spec, args, kwargs, id=ident, marks=marks))
    return out


def torch_out_like(result):
    def make(lib):
        items = list(result) if isinstance(result, tuple) else [result]
        empties = [lib.empty(0, dtype=getattr(lib, str(r.dtype).replace("torch.", ""))) for r in items]
        return tuple(empties) if isinstance(result, tuple) else empties[0]
    return make


@pytest.mark.parametrize("kind,name,self_spec,args,kwargs", cases())
def test_overload(kind, name, self_spec, args, kwargs):
    seed = abs(hash((kind, name, repr(args), repr(sorted(kwargs))))) % 2**32
    base_kwargs = kwargs
    out_like = None
    if "out" in kwargs:
        # the out tensors: empty, of the dtypes the plain call gives
        plain = {k: v for k, v in kwargs.items() if k != "out"}
        try:
            ref, _ = run(torch, kind, name, self_spec, args, plain, seed)
        except Exception:
            pytest.skip("the call without out= raises in torch")
        out_like = torch_out_like(ref)
    try:
        expected, t_out = run(torch, kind, name, self_spec, args, base_kwargs, seed, out_like)
    except Exception as e:  # noqa: BLE001  torch's refusal must be ember's
        with pytest.raises(type(e)):
            run(ember, kind, name, self_spec, args, base_kwargs, seed, out_like)
        return
    got, e_out = run(ember, kind, name, self_spec, args, base_kwargs, seed, out_like)
    same(expected, got, name in RANDOM)
    rt = type(expected)
    if rt.__module__ == "torch.return_types":
        assert type(got).__module__ == "ember.return_types" and type(got).__name__ == rt.__name__
    if e_out is not None and not isinstance(e_out, tuple):
        assert got is e_out  # out= returns the very tensor given

