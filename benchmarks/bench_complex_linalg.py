#!/usr/bin/env python3
"""Complex linalg and complex convolution: ember beside PyTorch 1.13 in one process.

One JSON line per figure, as benchmarks/bench_python.py prints:
  svd_64x64_c64: linalg.svd of one complex64 64 x 64 matrix (LAPACK's cgesdd in both libraries);
  svd_64x64_c128: the same in complex128 (zgesdd);
  svd_batch16_32x32_c64: linalg.svd of 16 complex64 32 x 32 matrices;
  conv2d_c64_8x16x32x32_k3: F.conv2d of complex64 input (8, 16, 32, 32) with a (32, 16, 3, 3)
    weight and a bias (Gauss's three real convolutions in both libraries);
  conv2d_c64_grad: the same forward, then backward to input, weight and bias.
Method: benchmarks/pybench.py's (a warm-up, then the median of 7 rounds of 10 calls per library,
ember's block first), with ember's and torch's intra-op threads set alike (1 unless
EMBER_BENCH_THREADS says otherwise).

Usage: /usr/bin/python3 benchmarks/bench_complex_linalg.py [substring]   (PYTHONPATH=<build>/python)
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

    def pair(shape, dtype, grad=False):
        t = torch.randn(*shape, dtype=dtype, generator=g)
        e = ember.from_numpy(t.numpy().copy())
        if grad:
            t.requires_grad_()
            e.requires_grad_()
        return e, t

    cases = []
    e, t = pair((64, 64), torch.complex64)
    cases.append(("svd_64x64_c64", lambda: ember.linalg.svd(e), lambda: torch.linalg.svd(t)))
    ed, td = pair((64, 64), torch.complex128)
    cases.append(("svd_64x64_c128", lambda: ember.linalg.svd(ed), lambda: torch.linalg.svd(td)))
    eb, tb = pair((16, 32, 32), torch.complex64)
    cases.append(("svd_batch16_32x32_c64", lambda: ember.linalg.svd(eb), lambda: torch.linalg.svd(tb)))
    ex, tx = pair((8, 16, 32, 32), torch.complex64, True)
    ew, tw = pair((32, 16, 3, 3), torch.complex64, True)
    ebias, tbias = pair((32,), torch.complex64, True)
    cases.append(("conv2d_c64_8x16x32x32_k3",
                  lambda: ember.nn.functional.conv2d(ex.detach(), ew.detach(), ebias.detach(), padding=1),
                  lambda: torch.nn.functional.conv2d(tx.detach(), tw.detach(), tbias.detach(), padding=1)))

    def grad_step(lib, x, w, b):
        y = lib.nn.functional.conv2d(x, w, b, padding=1)
        y.abs().sum().backward()
        x.grad = w.grad = b.grad = None

    cases.append(("conv2d_c64_grad", lambda: grad_step(ember, ex, ew, ebias), lambda: grad_step(torch, tx, tw, tbias)))
    for name, fe, ft in cases:
        if only in name:
            report(name, fe, ft)


if __name__ == "__main__":
    main()
