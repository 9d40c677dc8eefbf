#!/usr/bin/env python3
"""int8 MobileNetV2 and its layers: ember's quantized modules beside torch 1.13's, in the same run.

The model is torchvision's quantizable MobileNetV2 with random weights, converted by torch's eager
workflow (tests/python/quantized/mobilenet_port.py), and its twin in ember built from ember's
quantized modules with the same state_dict. Figures (batch 1, 224x224, median of timed runs over
interleaved rounds, one JSON line each as the other benchmarks print them):
  mobilenet_v2_int8_b1_1t / _2t       ember's default (fast) engine vs torch's onednn engine,
                                      1 / 2 intra-op threads; the 1-thread line also carries
                                      ember's own fp32 MobileNetV2 (NCHW and channels_last), the
                                      int8 speed-up over the faster of the two, and the same int8
                                      model as ember's own C++ module tree made by convert
                                      (ember_converted_tree: no Python modules in its forward)
  mobilenet_v2_int8_cputime_b1_1t     the 1-thread line's models in thread CPU time (time the
                                      thread ran, which preemption on a loaded machine does not
                                      inflate): the twin vs torch onednn, ember fp32
                                      channels_last, the converted tree, and the speed-ups
  mobilenet_v2_int8_qnnpack_b1_1t     ember's qnnpack-exact engine vs torch's qnnpack engine
  mobilenet_v2_int8_convs_b1_1t       the 52 convolutions alone, each on its own input, summed
                                      (fast engine vs onednn; "qnnpack" figures beside)
  qlinear_1280x1000_b1_1t             the classifier's quantized linear, fast engine vs onednn

Usage: /usr/bin/python3 benchmarks/bench_qmodels.py [substring]   (PYTHONPATH=<build>/python)

OpenMP's wait policy: oneDNN (in both torch and ember) runs on libgomp, whose idle team threads
busy-wait after each parallel region by default. Between two oneDNN calls the spinning thread
takes the core that the next operator needs, and on a loaded machine a 2-thread forward took
0.6 s (torch) and 1.1 s (ember) instead of milliseconds. So this script sets
OMP_WAIT_POLICY=PASSIVE before torch and ember load libgomp (libgomp reads it once, at load),
unless the caller set it; the JSON lines say which policy ran. Both libraries share that
libgomp, so the comparison stays fair.
"""
import json
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
OMP_WAIT_POLICY = os.environ["OMP_WAIT_POLICY"]

import torch  # noqa: E402

import ember  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python" / "quantized"))
import mobilenet_port as port  # noqa: E402

ROUNDS, WARMUP, TIMED = 3, 5, 15


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    ts = []
    for _ in range(TIMED):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def median_cpu_ms(fn, timed=30):
    """Median thread CPU time of `timed` calls after the warm-up (one thread: the whole cost)."""
    for _ in range(WARMUP):
        fn()
    ts = []
    for _ in range(timed):
        t0 = time.thread_time()
        fn()
        ts.append(time.thread_time() - t0)
    return statistics.median(ts) * 1e3


def best_of_rounds(fns):
    """Interleaved rounds; for each function, the best round's median (the machine is shared)."""
    best = [float("inf")] * len(fns)
    for _ in range(ROUNDS):
        for i, fn in enumerate(fns):
            time.sleep(0.02)
            best[i] = min(best[i], median_ms(fn))
    return best


def line(name, e, t, **extra):
    d = {"bench": name, "unit": "ms", "ember": round(e, 3), "pytorch": round(t, 3),
         "ratio": round(e / t, 3), "lower_is_better": True, "omp_wait_policy": OMP_WAIT_POLICY}
    d.update(extra)
    print(json.dumps(d), flush=True)


def set_threads(n):
    ember.set_num_threads(n)
    torch.set_num_threads(n)


class Pairs:
    """The converted models, built once per engine (torch's onednn modules are rebuilt per thread
    count: torch 1.13's packed onednn convs can fail when the thread count changes, spec § 7.3)."""

    def __init__(self):
        self.cache = {}

    def get(self, engine, threads):
        key = (engine, threads if engine == "onednn" else 0)
        if key not in self.cache:
            set_threads(threads)
            tmodel = port.torch_int8_mobilenet(engine)
            ember.backends.quantized.engine = "qnnpack" if engine == "qnnpack" else "x86"
            self.cache[key] = (tmodel, port.ember_twin(tmodel))
        return self.cache[key]


def converted_tree(tmodel):
    """ember's own quantizable MobileNetV2 (a C++ module tree, ember.vision.models.quantization)
    through ember's prepare / convert, then torch's converted state_dict loaded into it: the same
    weights and qparams as the Python-built twin (same logits), without its Python modules."""
    from ember.vision.models.quantization import mobilenet_v2
    import ember.ao.quantization as eq
    model = mobilenet_v2(weights=None, quantize=False).eval()
    model.fuse_model(False)
    model.qconfig = eq.get_default_qconfig("x86")
    eq.prepare(model, inplace=True)
    with ember.no_grad():
        model(ember.rand(1, 3, 224, 224))
    eq.convert(model, inplace=True)
    model.load_state_dict(port.state_dict_to_ember(tmodel.state_dict()))
    return model


def whole_model(pairs, threads, with_fp32):
    tmodel, emodel = pairs.get("onednn", threads)
    set_threads(threads)
    tx, ex = port.same_input()
    fns = [lambda: emodel(ex), lambda: tmodel(tx)]
    if with_fp32:  # ember's own fp32 model, in both layouts (channels_last is its faster one)
        fp32 = ember.vision.models.mobilenet_v2().eval()
        fp32_cl = ember.vision.models.mobilenet_v2().eval().to(memory_format=ember.channels_last)
        ex_cl = ex.contiguous(memory_format=ember.channels_last)
        ctree = converted_tree(tmodel)
        fns += [lambda: fp32(ex), lambda: fp32_cl(ex_cl), lambda: ctree(ex)]
    with torch.no_grad(), ember.no_grad():
        times = best_of_rounds(fns)
    extra = {}
    if with_fp32:
        best_fp32 = min(times[2], times[3])
        extra = {"ember_fp32_nchw": round(times[2], 3), "ember_fp32_channels_last": round(times[3], 3),
                 "int8_speedup_vs_best_ember_fp32": round(best_fp32 / times[0], 2),
                 "ember_converted_tree": round(times[4], 3),
                 "converted_tree_speedup_vs_best_ember_fp32": round(best_fp32 / times[4], 2)}
    line(f"mobilenet_v2_int8_b1_{threads}t", times[0], times[1], **extra)


def whole_model_cputime(pairs):
    tmodel, emodel = pairs.get("onednn", 1)
    set_threads(1)
    tx, ex = port.same_input()
    fp32_cl = ember.vision.models.mobilenet_v2().eval().to(memory_format=ember.channels_last)
    ex_cl = ex.contiguous(memory_format=ember.channels_last)
    ctree = converted_tree(tmodel)
    fns = [lambda: emodel(ex), lambda: tmodel(tx), lambda: fp32_cl(ex_cl), lambda: ctree(ex)]
    best = [float("inf")] * len(fns)
    with torch.no_grad(), ember.no_grad():
        for _ in range(5):  # interleaved rounds, best round's median per model
            for i, fn in enumerate(fns):
                best[i] = min(best[i], median_cpu_ms(fn))
    line("mobilenet_v2_int8_cputime_b1_1t", best[0], best[1], unit_note="thread CPU time",
         ember_fp32_channels_last=round(best[2], 3), ember_converted_tree=round(best[3], 3),
         int8_speedup_vs_ember_fp32_channels_last=round(best[2] / best[0], 2),
         converted_tree_speedup_vs_ember_fp32_channels_last=round(best[2] / best[3], 2))


def qnnpack_model(pairs):
    tmodel, emodel = pairs.get("qnnpack", 1)
    set_threads(1)
    tx, ex = port.same_input()
    prev = torch.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    try:
        with torch.no_grad(), ember.no_grad():
            e, t = best_of_rounds([lambda: emodel(ex), lambda: tmodel(tx)])
    finally:
        torch.backends.quantized.engine = prev
        ember.backends.quantized.engine = "x86"
    line("mobilenet_v2_int8_qnnpack_b1_1t", e, t)


def conv_inputs(model, convs, x):
    """Each conv's input, captured by forward pre-hooks on one forward."""
    seen = []
    hooks = [c.register_forward_pre_hook(lambda m, a: seen.append(a[0])) for c in convs]
    model(x)
    for h in hooks:
        h.remove()
    return seen


def is_qconv(m):
    return type(m).__name__ in ("Conv2d", "ConvReLU2d") and hasattr(m, "scale")


def convs_alone(pairs):
    set_threads(1)
    sums = {}
    for engine in ("onednn", "qnnpack"):
        tmodel, emodel = pairs.get(engine, 1)
        torch.backends.quantized.engine = engine
        ember.backends.quantized.engine = "qnnpack" if engine == "qnnpack" else "x86"
        tconvs = [m for m in tmodel.modules() if is_qconv(m)]
        econvs = [m for m in emodel.modules() if is_qconv(m)]
        assert len(tconvs) == len(econvs) == 52
        tx, ex = port.same_input()
        with torch.no_grad(), ember.no_grad():
            tin, ein = conv_inputs(tmodel, tconvs, tx), conv_inputs(emodel, econvs, ex)
            e = t = 0.0
            for tc, ec, ti, ei in zip(tconvs, econvs, tin, ein):
                a, b = best_of_rounds([lambda: ec(ei), lambda: tc(ti)])
                e, t = e + a, t + b
        sums[engine] = (e, t)
    ember.backends.quantized.engine = "x86"
    torch.backends.quantized.engine = "onednn"
    (e, t), (eq, tq) = sums["onednn"], sums["qnnpack"]
    line("mobilenet_v2_int8_convs_b1_1t", e, t, ember_qnnpack=round(eq, 3), pytorch_qnnpack=round(tq, 3),
         ratio_qnnpack=round(eq / tq, 3))


def qlinear(pairs):
    tmodel, emodel = pairs.get("onednn", 1)
    set_threads(1)
    tl, el = tmodel.classifier[1], emodel.classifier[1]
    tx = torch.quantize_per_tensor(torch.rand(1, 1280) * 4, 4 / 255, 0, torch.quint8)
    ex = ember.quantize_per_tensor(ember.from_numpy(tx.dequantize().numpy()), 4 / 255, 0, ember.quint8)
    with torch.no_grad(), ember.no_grad():
        e, t = best_of_rounds([lambda: el(ex), lambda: tl(tx)])
    line("qlinear_1280x1000_b1_1t", e, t)


def main():
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    pairs = Pairs()
    benches = {
        "mobilenet_v2_int8_b1_1t": lambda: whole_model(pairs, 1, True),
        "mobilenet_v2_int8_b1_2t": lambda: whole_model(pairs, 2, False),
        "mobilenet_v2_int8_cputime_b1_1t": lambda: whole_model_cputime(pairs),
        "mobilenet_v2_int8_qnnpack_b1_1t": lambda: qnnpack_model(pairs),
        "mobilenet_v2_int8_convs_b1_1t": lambda: convs_alone(pairs),
        "qlinear_1280x1000_b1_1t": lambda: qlinear(pairs),
    }
    for name, fn in benches.items():
        if pattern in name:
            fn()


if __name__ == "__main__":
    main()
