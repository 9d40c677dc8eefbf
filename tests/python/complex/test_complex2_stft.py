"""ember.stft / istft (and the Tensor methods) against torch 1.13: values for the argument
combinations, dtypes, the return_complex rules and their warnings, error texts, round trips and
gradients."""
import os
import subprocess
import sys
import warnings

import pytest
import torch

import ember
from complex2_helpers import E, close, rand


def both(fn_t, fn_e):
    """(torch's outcome, ember's outcome): a value or (exception type name, text)."""
    out = []
    for f in (fn_t, fn_e):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


CASES = [
    dict(n_fft=8),
    dict(n_fft=8, hop_length=3),
    dict(n_fft=16, hop_length=4, win_length=10),
    dict(n_fft=8, center=False),
    dict(n_fft=8, pad_mode="constant"),
    dict(n_fft=8, pad_mode="replicate"),
    dict(n_fft=8, pad_mode="circular"),
    dict(n_fft=8, normalized=True),
    dict(n_fft=8, onesided=False),
    dict(n_fft=7, hop_length=2),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kw", CASES, ids=str)
def test_stft_values(kw, dtype):
    for shape in [(40,), (3, 33)]:
        x = rand(*shape, dtype=dtype)
        close(ember.stft(E(x), return_complex=True, **kw), torch.stft(x, return_complex=True, **kw))
        close(E(x).stft(return_complex=True, **kw), x.stft(return_complex=True, **kw))
        win = torch.hann_window(kw.get("win_length", kw["n_fft"]), dtype=dtype)
        close(ember.stft(E(x), window=E(win), return_complex=True, **kw),
              torch.stft(x, window=win, return_complex=True, **kw))


def test_stft_complex_input_and_window_dtype():
    x = rand(30, dtype=torch.complex64)
    close(ember.stft(E(x), 8), torch.stft(x, 8))  # complex input: complex, two-sided, no warning
    xr = rand(30, dtype=torch.float32)
    w = torch.hann_window(8, dtype=torch.float64)
    close(ember.stft(E(xr), 8, window=E(w), return_complex=True), torch.stft(xr, 8, window=w, return_complex=True))
    wc = rand(8, dtype=torch.complex64)
    close(ember.stft(E(xr), 8, window=E(wc), onesided=False), torch.stft(xr, 8, window=wc, onesided=False))


def test_stft_return_complex_false_and_warning():
    x = rand(30, dtype=torch.float32)
    close(ember.stft(E(x), 8, return_complex=False), torch.stft(x, 8, return_complex=False))
    # Without return_complex a real input warns, once per process (TORCH_WARN_ONCE): checked in a
    # fresh interpreter, as an earlier test may have used the one warning.
    code = (
        "import warnings, ember\n"
        "x = ember.randn(30)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    r = ember.stft(x, 8)\n"
        "    ember.stft(x, 8)\n"
        "    ember.istft(ember.stft(x, 8, return_complex=False), 8)\n"
        "print(tuple(r.shape), r.dtype)\n"
        "for m in w: print(m.category.__name__, m.message)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.splitlines() == [
        "(5, 16, 2) ember.float32",
        "UserWarning stft will soon require the return_complex parameter be given for real inputs, and will "
        "further require that return_complex=True in a future PyTorch release.",
        "UserWarning istft will require a complex-valued input tensor in a future PyTorch release. Matching the "
        "output from stft with return_complex=True. "]


def test_stft_errors():
    x = torch.randn(20)
    checks = [
        lambda lib, t: lib.stft(t, 0, return_complex=True),
        lambda lib, t: lib.stft(t, 30, center=False, return_complex=True),
        lambda lib, t: lib.stft(t, 8, hop_length=0, return_complex=True),
        lambda lib, t: lib.stft(t, 8, win_length=9, return_complex=True),
        lambda lib, t: lib.stft(t, 8, window=lib.ones(5), return_complex=True),
        lambda lib, t: lib.stft(t, 8, win_length=6, window=lib.ones(2, 3), return_complex=True),
        lambda lib, t: lib.stft(t.reshape(1, 2, 10), 4, center=False, return_complex=True),
        lambda lib, t: lib.stft(t.to(lib.complex64), 8, onesided=True, return_complex=True),
        lambda lib, t: lib.stft(t.to(lib.int64), 8, center=False, return_complex=True),
    ]
    for f in checks:
        tt, ee = both(lambda: f(torch, x), lambda: f(ember, E(x)))
        assert isinstance(tt, tuple) and isinstance(ee, tuple), (tt, ee)
        assert ee[0] == tt[0] and ee[1] == tt[1].replace("torch.", "ember."), (tt, ee)


ISTFT_CASES = [
    dict(n_fft=8),
    dict(n_fft=8, hop_length=3),
    dict(n_fft=16, hop_length=4, win_length=10),
    dict(n_fft=8, normalized=True),
    dict(n_fft=7, hop_length=2),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kw", ISTFT_CASES, ids=str)
def test_istft_round_trip_and_values(kw, dtype):
    for shape in [(40,), (2, 37)]:
        x = rand(*shape, dtype=dtype)
        win = torch.hann_window(kw.get("win_length", kw["n_fft"]), dtype=dtype, periodic=False) + 0.1
        S = torch.stft(x, window=win, return_complex=True, **kw)
        for length in [None, shape[-1], shape[-1] + 5]:
            t, e = both(lambda: torch.istft(S, window=win, length=length, **kw),
                        lambda: ember.istft(E(S), window=E(win), length=length, **kw))
            if isinstance(t, tuple):  # (a window padded to n_fft with zeros fails NOLA at the ends)
                assert e[0] == t[0] and e[1] == t[1].replace("torch.", "ember."), (t, e)
                continue
            close(e, t)
            close(E(S).istft(window=E(win), length=length, **kw), t)
        if "win_length" not in kw:
            close(ember.istft(E(S), window=E(win), length=shape[-1], **kw), x)


def test_istft_variants():
    x = rand(40)
    S = torch.stft(x, 8, return_complex=True, onesided=False)
    close(ember.istft(E(S), 8, onesided=False), torch.istft(S, 8, onesided=False))
    close(ember.istft(E(S), 8, return_complex=True), torch.istft(S, 8, return_complex=True))
    S1 = torch.stft(x, 8, return_complex=True, center=False, window=torch.hann_window(8) + 0.1)
    close(ember.istft(E(S1), 8, center=False, window=E(torch.hann_window(8) + 0.1)),
          torch.istft(S1, 8, center=False, window=torch.hann_window(8) + 0.1))
    close(ember.istft(ember.view_as_real(E(S1)), 8, center=False, window=E(torch.hann_window(8) + 0.1)),
          torch.istft(torch.view_as_real(S1), 8, center=False, window=torch.hann_window(8) + 0.1))


def test_istft_errors():
    S = torch.stft(torch.randn(20), 8, return_complex=True)
    checks = [
        lambda lib, s: lib.istft(s, 10),
        lambda lib, s: lib.istft(s, 8, onesided=False),
        lambda lib, s: lib.istft(s, 8, hop_length=9),
        lambda lib, s: lib.istft(s, 8, win_length=9),
        lambda lib, s: lib.istft(s, 8, window=lib.ones(5)),
        lambda lib, s: lib.istft(s[:, :0], 8),
        lambda lib, s: lib.istft(lib.zeros(5, 3, 3), 8),
        lambda lib, s: lib.istft(s, 8, return_complex=True),
        lambda lib, s: lib.istft(s, 8, window=lib.zeros(8)),
    ]
    for f in checks:
        tt, ee = both(lambda: f(torch, S), lambda: f(ember, E(S)))
        assert isinstance(tt, tuple) and isinstance(ee, tuple), (tt, ee)
        assert ee[0] == tt[0] and ee[1] == tt[1].replace("torch.", "ember."), (tt, ee)


def test_stft_istft_gradients():
    x = rand(32)
    win = torch.hann_window(8, dtype=torch.float64) + 0.1
    xt = x.clone().requires_grad_()
    torch.stft(xt, 8, window=win, return_complex=True).abs().sum().backward()
    xe = E(x, True)
    ember.stft(xe, 8, window=E(win), return_complex=True).abs().sum().backward()
    close(xe.grad, xt.grad, 1e-10)
    S = torch.stft(x, 8, window=win, return_complex=True)
    st = S.clone().requires_grad_()
    (torch.istft(st, 8, window=win) ** 2).sum().backward()
    se = E(S, True)
    (ember.istft(se, 8, window=E(win)) ** 2).sum().backward()
    close(se.grad, st.grad, 1e-10)
    assert ember.autograd.gradcheck(lambda t: ember.stft(t, 4, hop_length=2, return_complex=True).abs(),
                                    (E(rand(12), True),))
