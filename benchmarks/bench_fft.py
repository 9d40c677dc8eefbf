#!/usr/bin/env python3
"""FFTs: ember (its own SIMD Stockham FFT, Note [FFT library]) beside PyTorch (pocketfft) in one process.

One JSON line per figure, as benchmarks/bench_python.py prints:
  fft_1d_4096_batch64: complex64 fft of 64 signals of 4096 points (a power of two);
  fft_1d_1000_batch64: the same at 1000 points (radix 2 and 5);
  fft_1d_4099_batch8: a prime length (Bluestein's algorithm in both libraries);
  rfft_1d_4096_batch64: float32 rfft;
  rfft2_256x256: float32 rfft2 of one 256 x 256 image;
  fft2_256x256_c128: complex128 fft2 of one 256 x 256 image;
  irfft_rfft_grad_4096_batch16: rfft, abs, irfft of a real signal, then backward.
Method: benchmarks/pybench.py's (a warm-up, then the median of 7 rounds of 10 calls per library,
ember's block first), with ember's and torch's intra-op threads set alike (1 unless
EMBER_BENCH_THREADS says otherwise).

Usage: /usr/bin/python3 benchmarks/bench_fft.py [substring]   (PYTHONPATH=<build>/python)
"""
import os
import sys

import torch

import ember
from pybench import report


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    threads = int(os.environ.get("EMBER_BENCH_THREADS", "1"))
    torch.set_num_threads(threads)
    ember.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)

    def pair(shape, dtype):
        t = torch.randn(*shape, dtype=dtype, generator=g)
        return ember.from_numpy(t.numpy().copy()), t

    cases = []
    e, t = pair((64, 4096), torch.complex64)
    cases.append(("fft_1d_4096_batch64", lambda: ember.fft.fft(e), lambda: torch.fft.fft(t)))
    e2, t2 = pair((64, 1000), torch.complex64)
    cases.append(("fft_1d_1000_batch64", lambda: ember.fft.fft(e2), lambda: torch.fft.fft(t2)))
    e3, t3 = pair((8, 4099), torch.complex64)
    cases.append(("fft_1d_4099_batch8", lambda: ember.fft.fft(e3), lambda: torch.fft.fft(t3)))
    er, tr = pair((64, 4096), torch.float32)
    cases.append(("rfft_1d_4096_batch64", lambda: ember.fft.rfft(er), lambda: torch.fft.rfft(tr)))
    ei, ti = pair((256, 256), torch.float32)
    cases.append(("rfft2_256x256", lambda: ember.fft.rfft2(ei), lambda: torch.fft.rfft2(ti)))
    ed, td = pair((256, 256), torch.complex128)
    cases.append(("fft2_256x256_c128", lambda: ember.fft.fft2(ed), lambda: torch.fft.fft2(td)))
    eg, tg = pair((16, 4096), torch.float32)
    eg.requires_grad_()
    tg.requires_grad_()

    def grad_step(lib, x):
        y = lib.fft.irfft(lib.fft.rfft(x).abs(), n=4096)
        y.sum().backward()
        x.grad = None

    cases.append(("irfft_rfft_grad_4096_batch16", lambda: grad_step(ember, eg), lambda: grad_step(torch, tg)))
    for name, fe, ft in cases:
        if only in name:
            report(name, fe, ft)


if __name__ == "__main__":
    main()
