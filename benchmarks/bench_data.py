#!/usr/bin/env python3
"""DataLoader throughput: ember.utils.data beside torch.utils.data, in the same run.

One JSON line per figure, as benchmarks/bench_python.py prints them:
  {"bench": "dataloader_w0", "unit": "batches/s", "ember": ..., "pytorch": ..., "ratio": ...,
   "lower_is_better": false}

The same data on both sides: 4096 samples of a 3x32x32 float32 image and an int64 label in a
TensorDataset, batch_size 64, shuffle=True, default_collate. A figure is batches per second over
whole epochs (the median of `rounds` epochs, after a warm-up epoch); with workers, an epoch
includes starting its two worker processes, as an ordinary non-persistent DataLoader does, and
the batches cross from the workers through shared memory on both sides.

Usage: /usr/bin/python3 benchmarks/bench_data.py [substring]   (PYTHONPATH=<build>/python)
"""
import json
import statistics
import time

import numpy as np
import torch
import torch.utils.data

import ember
import ember.utils.data
from pybench import run

N, BATCH = 4096, 64


def epoch_rate(lib, loader_kwargs, rounds):
    rng = np.random.default_rng(0)
    images = rng.standard_normal((N, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, N)
    data = lib.utils.data.TensorDataset(lib.from_numpy(images), lib.from_numpy(labels))
    loader = lib.utils.data.DataLoader(data, batch_size=BATCH, shuffle=True, **loader_kwargs)

    def one_epoch():
        count = 0
        for x, y in loader:
            assert x.shape[0] <= BATCH and y.shape == x.shape[:1]
            count += 1
        return count

    one_epoch()  # warm-up
    rates = []
    for _ in range(rounds):
        time.sleep(0.05)
        t0 = time.perf_counter()
        count = one_epoch()
        rates.append(count / (time.perf_counter() - t0))
    return statistics.median(rates)


def report(name, loader_kwargs, rounds):
    e = epoch_rate(ember, loader_kwargs, rounds)
    t = epoch_rate(torch, loader_kwargs, rounds)
    print(json.dumps({"bench": name, "unit": "batches/s", "ember": round(e, 1), "pytorch": round(t, 1),
                      "ratio": round(e / t, 3), "lower_is_better": False}), flush=True)


BENCHES = {
    "dataloader_w0": lambda: report("dataloader_w0", {"num_workers": 0}, 7),
    "dataloader_w2": lambda: report("dataloader_w2", {"num_workers": 2}, 5),
}


if __name__ == "__main__":
    run(BENCHES)
