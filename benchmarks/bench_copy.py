#!/usr/bin/env python3
"""copy.deepcopy of a ResNet-50 (25.6 M parameters, 161 parameters and 159 buffers): ember beside
PyTorch + torchvision in the same process, one JSON line as benchmarks/bench_python.py prints:
  {"bench": "deepcopy_resnet50", "unit": "ms/copy", "ember": ..., "pytorch": ..., "ratio": ...}

Method: both models in eval mode, built once; a warm-up copy, then `rounds` copies each, the
figure is the median (wall clock). First all of ember's copies, then all of PyTorch's. One
intra-op thread on both sides (a copy is memcpy and Python work: threads do not help).

Usage: /usr/bin/python3 benchmarks/bench_copy.py [substring]   (PYTHONPATH=<build>/python)
"""
import copy
import gc
import json
import statistics
import time

import torch
import torchvision

import ember
from pybench import run


def median_ms(fn, rounds):
    fn()
    times = []
    for _ in range(rounds):
        gc.collect()
        time.sleep(0.02)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def bench_deepcopy_resnet50(rounds=9):
    emodel = ember.vision.models.resnet50().eval()
    tmodel = torchvision.models.resnet50().eval()
    e = median_ms(lambda: copy.deepcopy(emodel), rounds)
    t = median_ms(lambda: copy.deepcopy(tmodel), rounds)
    print(json.dumps({"bench": "deepcopy_resnet50", "unit": "ms/copy", "ember": round(e, 2),
                      "pytorch": round(t, 2), "ratio": round(e / t, 3),
                      "lower_is_better": True}), flush=True)


BENCHES = {"deepcopy_resnet50": bench_deepcopy_resnet50}


if __name__ == "__main__":
    run(BENCHES)
