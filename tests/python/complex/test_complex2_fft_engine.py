"""ember's own FFT engine (Note [FFT library]) against torch 1.13's pocketfft, on the paths the
engine chooses between: one line and many (SIMD lanes), partly filled lane groups, strided
lines of multi-dimensional transforms, odd radices, Bluestein lengths, real transforms of even
and odd lengths along any dim, and long single transforms."""
import numpy as np
import pytest
import torch

import ember
from complex2_helpers import E, rand
from complex2_helpers import close as _close


def close(e, t):
    _close(e, t, single_tol=3e-6, double_tol=1e-12)


LENGTHS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 37, 45, 64, 97, 100, 128, 210, 256, 1000, 4096, 4099]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("n", LENGTHS)
def test_c2c_lengths_and_batches(n, dtype):
    for batch in [(), (1,), (3,), (8,), (11,)]:
        t = rand(*batch, n, dtype=dtype, seed=n)
        close(ember.fft.fft(E(t)), torch.fft.fft(t))
        close(ember.fft.ifft(E(t), norm="ortho"), torch.fft.ifft(t, norm="ortho"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", LENGTHS)
def test_r2c_c2r_lengths(n, dtype):
    for batch in [(), (3,), (9,)]:
        t = rand(*batch, n, dtype=dtype, seed=n)
        close(ember.fft.rfft(E(t)), torch.fft.rfft(t))
        spec = torch.fft.rfft(t)
        # irfft ignores the imaginary parts of the zero and Nyquist frequencies, as pocketfft.
        spec[..., 0] += 0.5j
        close(ember.fft.irfft(E(spec), n=n), torch.fft.irfft(spec, n=n))
        close(ember.fft.hfft(E(spec), n=n, norm="forward"), torch.fft.hfft(spec, n=n, norm="forward"))


@pytest.mark.parametrize("shape,dim", [((6, 10), 0), ((5, 9, 4), 1), ((3, 8, 16), (0, 2)), ((7, 6, 5), (0, 1, 2)),
                                       ((2, 130, 3), 1), ((33, 17), (0, 1))])
def test_strided_lines(shape, dim):
    dims = dim if isinstance(dim, tuple) else (dim,)
    for dtype in [torch.complex64, torch.complex128]:
        t = rand(*shape, dtype=dtype)
        close(ember.fft.fftn(E(t), dim=dims), torch.fft.fftn(t, dim=dims))
    for dtype in [torch.float32, torch.float64]:
        t = rand(*shape, dtype=dtype)
        close(ember.fft.rfftn(E(t), dim=dims), torch.fft.rfftn(t, dim=dims))
        spec = torch.fft.rfftn(t, dim=dims)
        s = [shape[d] for d in dims]
        close(ember.fft.irfftn(E(spec), s=s, dim=dims), torch.fft.irfftn(spec, s=s, dim=dims))


def test_non_contiguous_and_views():
    t = rand(16, 12, dtype=torch.complex128)
    close(ember.fft.fft(E(t).t(), dim=0), torch.fft.fft(t.t(), dim=0))
    close(ember.fft.fft(E(t)[::2, 1::3]), torch.fft.fft(t[::2, 1::3]))
    r = rand(10, 20)
    close(ember.fft.rfft(E(r)[:, ::2], dim=0), torch.fft.rfft(r[:, ::2], dim=0))


@pytest.mark.parametrize("n", [1 << 16, 3 * 5 * 7 * 11 * 13, 65537])
def test_long_single_transforms(n):
    t = rand(n, dtype=torch.complex128, seed=1)
    close(ember.fft.fft(E(t)), torch.fft.fft(t))
    r = rand(n, seed=2)
    close(ember.fft.rfft(E(r)), torch.fft.rfft(r))


def test_threads_give_the_same_numbers():
    t = rand(64, 96, dtype=torch.complex64)
    saved = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        a = ember.fft.fft2(E(t)).numpy()
        ember.set_num_threads(2)
        b = ember.fft.fft2(E(t)).numpy()
    finally:
        ember.set_num_threads(saved)
    np.testing.assert_array_equal(a, b)
