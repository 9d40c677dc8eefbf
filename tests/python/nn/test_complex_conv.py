"""Complex convolutions against torch 1.13: conv1d / conv2d / conv3d and conv_transpose1d (and the
nn layers over them) on complex64 / complex128, with bias, stride, padding (also 'same'),
dilation, groups and unbatched input, through Gauss's three real convolutions; their gradients
(torch's conjugate Wirtinger convention, and ember's gradcheck); and torch's refusals
(conv_transpose2d / 3d, mixed dtypes) with torch's texts."""
import os
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "linalg"))
from complex_linalg_helpers import CDTYPES, E, close, grads_match, rand, same_error  # noqa: E402

CASES = [
    # (function name, input shape, weight shape, kwargs)
    ("conv1d", (2, 4, 9), (6, 4, 3), dict()),
    ("conv1d", (4, 9), (6, 4, 3), dict(stride=2, padding=1)),  # unbatched
    ("conv1d", (2, 4, 9), (6, 2, 3), dict(groups=2, dilation=2)),
    ("conv1d", (2, 4, 9), (6, 4, 4), dict(padding="same")),
    ("conv1d", (2, 4, 9), (6, 4, 3), dict(padding="valid")),
    ("conv2d", (2, 3, 7, 6), (5, 3, 3, 2), dict()),
    ("conv2d", (2, 3, 7, 6), (6, 1, 3, 3), dict(groups=3, stride=(2, 1), padding=(1, 2))),
    ("conv2d", (3, 7, 6), (5, 3, 3, 3), dict(padding="same", dilation=2)),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(padding=1)),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose1d", (4, 7), (4, 2, 3), dict(groups=2)),
]


def _run(lib, name, x, w, b, kw):
    F = TF if lib is torch else EF
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(F, name)(x, w, b, **kw)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("bias", [False, True])
def test_values(dtype, case, bias):
    name, xs, ws, kw = CASES[case]
    x, w = rand(*xs, dtype=dtype, seed=1), rand(*ws, dtype=dtype, seed=2)
    out_ch = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    b = rand(out_ch, dtype=dtype, seed=3) if bias else None
    close(_run(ember, name, E(x), E(w), E(b), kw), _run(torch, name, x, w, b, kw), tol=1e-5 if dtype == torch.complex64 else None)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_gradients(case):
    name, xs, ws, kw = CASES[case]
    x, w = rand(*xs, seed=4), rand(*ws, seed=5)
    out_ch = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    b = rand(out_ch, seed=6)
    grads_match(lambda *a: _run(torch, name, *a, kw), lambda *a: _run(ember, name, *a, kw), [x, w, b])


def test_gradcheck():
    x, w, b = rand(1, 2, 5, seed=7), rand(3, 2, 2, seed=8), rand(3, seed=9)
    assert ember.autograd.gradcheck(lambda x, w, b: EF.conv1d(x, w, b, padding=1),
                                    (E(x, True), E(w, True), E(b, True)))
    x, w = rand(1, 2, 4, 4, seed=10), rand(2, 2, 2, 2, seed=11)
    assert ember.autograd.gradcheck(lambda x, w: EF.conv2d(x, w, stride=2), (E(x, True), E(w, True)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_layers(dtype):
    ed = ember.complex64 if dtype == torch.complex64 else ember.complex128
    for Lt, Le, x in [(torch.nn.Conv1d, ember.nn.Conv1d, rand(2, 3, 8, dtype=dtype)),
                      (torch.nn.Conv2d, ember.nn.Conv2d, rand(2, 3, 6, 5, dtype=dtype)),
                      (torch.nn.Conv3d, ember.nn.Conv3d, rand(1, 3, 4, 4, 3, dtype=dtype)),
                      (torch.nn.ConvTranspose1d, ember.nn.ConvTranspose1d, rand(2, 3, 8, dtype=dtype))]:
        mt = Lt(3, 4, 2, dtype=dtype)
        me = Le(3, 4, 2, dtype=ed)
        assert me.weight.dtype == ed and me.bias.dtype == ed
        me.load_state_dict({k: E(v) for k, v in mt.state_dict().items()})
        close(me(E(x)), mt(x), tol=1e-5 if dtype == torch.complex64 else None)
        me(E(x)).abs().sum().backward()
        mt(x).abs().sum().backward()
        close(me.weight.grad, mt.weight.grad, tol=1e-4 if dtype == torch.complex64 else 1e-9)
        close(me.bias.grad, mt.bias.grad, tol=1e-4 if dtype == torch.complex64 else 1e-9)


def test_errors():
    x, w = rand(1, 2, 5, 5, dtype=torch.complex64), rand(2, 3, 2, 2, dtype=torch.complex64)
    # torch 1.13 splits complex input in conv_transpose1d only
    same_error(lambda: EF.conv_transpose2d(E(x), E(w)), lambda: TF.conv_transpose2d(x, w))
    x3, w3 = rand(1, 2, 3, 3, 3, dtype=torch.complex128), rand(2, 3, 2, 2, 2, dtype=torch.complex128)
    same_error(lambda: EF.conv_transpose3d(E(x3), E(w3)), lambda: TF.conv_transpose3d(x3, w3))
    # the aten primitive itself is real: the real kernel's text
    for xs, ws, tr in [((1, 2, 5, 5), (3, 2, 2, 2), False), ((1, 2, 3, 3, 3), (3, 2, 2, 2, 2), False),
                       ((1, 2, 5), (3, 2, 2), False)]:
        xi, wi = rand(*xs, dtype=torch.complex64), rand(*ws, dtype=torch.complex64)
        n = len(xs) - 2
        same_error(lambda: ember.convolution(E(xi), E(wi), None, [1] * n, [0] * n, [1] * n, tr, [0] * n, 1),
                   lambda: torch.convolution(xi, wi, None, [1] * n, [0] * n, [1] * n, tr, [0] * n, 1))
    # mixed dtypes: the legacy type names of torch's check
    xc, wc = rand(1, 2, 5, dtype=torch.complex64), rand(3, 2, 2, dtype=torch.complex64)
    for xe, we, be in [(xc, wc.real.contiguous(), None), (xc, wc.to(torch.complex128), None),
                       (xc, wc, torch.zeros(3)), (xc.real.contiguous(), wc, None)]:
        same_error(lambda: EF.conv1d(E(xe), E(we), E(be)), lambda: TF.conv1d(xe, we, be))
    w2 = rand(3, 2, 2, 2, dtype=torch.complex64)
    for x2 in [torch.randn(1, 2, 5, 5), torch.randn(1, 2, 5, 5, dtype=torch.float64)]:
        same_error(lambda: EF.conv2d(E(x2), E(w2)), lambda: TF.conv2d(x2, w2))
