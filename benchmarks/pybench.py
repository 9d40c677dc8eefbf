"""What the Python benchmark scripts share: the timing loop (a warm-up, then the median of
`rounds` rounds of `iters` calls), the JSON line each figure prints (ember beside PyTorch and
their ratio), both libraries on one intra-op thread, and the command line's optional substring
choosing which figures run."""
import json
import statistics
import sys
import time

import ember
import torch


def median_seconds(fn, iters, rounds, warmup=2):
    """The median round's time per call of fn, in seconds (after a short pause and `warmup`
    calls)."""
    time.sleep(0.05)
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        times.append((time.perf_counter() - t0) / iters)
    return statistics.median(times)


def report(name, ember_fn, torch_fn, unit="ms/call", iters=10, rounds=7, digits=4, scale=1e3, warmup=2):
    """Times ember's block, then PyTorch's, and prints one JSON line (times in `unit`: seconds
    times `scale`)."""
    e = median_seconds(ember_fn, iters, rounds, warmup) * scale
    t = median_seconds(torch_fn, iters, rounds, warmup) * scale
    print(json.dumps({"bench": name, "unit": unit, "ember": round(e, digits), "pytorch": round(t, digits),
                      "ratio": round(e / t, 3), "lower_is_better": True}), flush=True)


def run(benches):
    ember.set_num_threads(1)
    torch.set_num_threads(1)
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, fn in benches.items():
        if pattern in name:
            fn()
