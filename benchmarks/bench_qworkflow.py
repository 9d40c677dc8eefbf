"""The eager-mode quantization workflow, shown end to end (make demo):

1. digits CNN (examples/cpp/digits_cnn's network on scikit-learn's digits): fp32 training, then
   post-training quantization (fuse, prepare, calibrate on training batches, convert) and
   quantization-aware training (fuse_modules_qat, prepare_qat, 2 epochs, convert), side by side:
   test accuracy, state_dict size, latency of the whole test set; int8 on both engines (qnnpack,
   the one the models were converted for, and the default fast engine, x86 / oneDNN).
2. MobileNetV2 (torchvision's quantizable one, random weights with recalibrated BatchNorm): fp32
   vs int8 latency on both engines, and the int8 model's agreement with fp32 (SQNR, dB), beside
   torch 1.13's figures for the same flow in the same run (random weights, so the SQNR shows
   agreement, not accuracy; tests/python/quantization/test_custom_quantization.py checks the
   int8 logits equal torch's bit for bit once both calibrations hold the same statistics).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/bench_qworkflow.py [digits|mobilenet]
"""
import copy
import io
import os
import pickle
import sys
import time

# libgomp's idle threads busy-wait by default, and on a loaded machine the oneDNN (fast engine)
# and fp32 latencies then measured the spinning, not the work (the digits table showed 190 ms
# for a 7 ms model): passive waiting unless the caller chose, before ember and torch load
# libgomp (as benchmarks/bench_qmodels.py does).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402


def best_ms(fn, repeat=20, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * min(times)


def state_dict_bytes(model):
    buf = io.BytesIO()
    pickle.dump(model.state_dict(), buf)
    return buf.tell()


# ---- 1. digits ----

class DigitsCNN(ember.nn.Module):
    """digits_cnn_model.h's network between a QuantStub and a DeQuantStub."""

    def __init__(self):
        super().__init__()
        nn = ember.nn
        self.quant = eq.QuantStub()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten())
        self.fc = nn.Linear(256, 10)
        self.dequant = eq.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.fc(self.features(self.quant(x))))

    def fuse(self, qat):
        groups = [["0", "1", "2"], ["3", "4", "5"], ["7", "8", "9"]]
        fuse = eq.fuse_modules_qat if qat else eq.fuse_modules
        fuse(self.features, groups, inplace=True)


def digits_data():
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int64)
    perm = np.random.default_rng(0).permutation(len(x))
    cut = int(0.8 * len(x))
    tr, te = perm[:cut], perm[cut:]
    return (ember.from_numpy(x[tr].copy()), ember.from_numpy(y[tr].copy()),
            ember.from_numpy(x[te].copy()), ember.from_numpy(y[te].copy()))


def train(model, x, y, epochs, lr, seed):
    opt = ember.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    loss_fn = ember.nn.CrossEntropyLoss()
    rng = np.random.default_rng(seed)
    n = x.shape[0]
    model.train()
    for _ in range(epochs):
        perm = ember.from_numpy(rng.permutation(n))
        for i in range(0, n, 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()


def accuracy(model, x, y):
    model.eval()
    with ember.no_grad():
        return 100.0 * float((model(x).argmax(1) == y).float().mean())


def digits():
    ember.manual_seed(0)
    ember.backends.quantized.engine = "qnnpack"
    xtr, ytr, xte, yte = digits_data()
    fp32 = DigitsCNN()
    train(fp32, xtr, ytr, epochs=6, lr=0.05, seed=0)
    fp32.eval()

    # Post-training quantization: fuse, prepare, calibrate on training batches, convert.
    ptq = copy.deepcopy(fp32)
    ptq.fuse(qat=False)
    ptq.qconfig = eq.get_default_qconfig("qnnpack")
    eq.prepare(ptq, inplace=True)
    with ember.no_grad():
        for i in range(0, 512, 64):
            ptq(xtr[i:i + 64])
    eq.convert(ptq, inplace=True)

    # Quantization-aware training: QAT fusion, fake quantization, 2 epochs, convert.
    qat = copy.deepcopy(fp32)
    qat.train()
    qat.fuse(qat=True)
    qat.qconfig = eq.get_default_qat_qconfig("qnnpack")
    eq.prepare_qat(qat, inplace=True)
    train(qat, xtr, ytr, epochs=2, lr=0.01, seed=1)
    qat.eval()
    eq.convert(qat, inplace=True)

    # Latency on both engines. The models were converted on qnnpack, and a packed weight keeps
    # the engine it was packed for; deepcopy re-packs for the engine active then, so the copy made
    # under "x86" runs on the fast (oneDNN) engine. fp32 does not depend on the engine.
    # One thread, as the MobileNetV2 figures below: on a shared 2-core machine a 2-thread
    # parallel region waits for whichever thread was descheduled, and the figures swung 10x.
    threads = ember.get_num_threads()
    ember.set_num_threads(1)
    rows = []
    for name, model in (("fp32", fp32), ("PTQ int8", ptq), ("QAT int8", qat)):
        ember.backends.quantized.engine = "qnnpack"
        acc = accuracy(model, xte, yte)
        with ember.no_grad():
            ms = best_ms(lambda: model(xte))
        if name == "fp32":
            acc_fast, ms_fast = acc, ms
        else:
            ember.backends.quantized.engine = "x86"
            fast = copy.deepcopy(model)
            acc_fast = accuracy(fast, xte, yte)
            with ember.no_grad():
                ms_fast = best_ms(lambda: fast(xte))
        rows.append((name, acc, acc_fast, state_dict_bytes(model), ms, ms_fast))
    ember.backends.quantized.engine = "qnnpack"
    ember.set_num_threads(threads)
    print("digits CNN (latency: the %d test images in one batch, one thread; int8 on both engines)"
          % xte.shape[0])
    print("%-10s %17s %12s %16s %19s" % ("model", "accuracy q / fast", "state_dict", "latency qnnpack",
                                         "latency x86 (fast)"))
    for name, acc, acc_fast, size, ms, ms_fast in rows:
        print("%-10s %7.2f%% /%6.2f%% %9.1f kB %13.2f ms %16.2f ms"
              % (name, acc, acc_fast, size / 1024, ms, ms_fast))
    print("PTQ - fp32: %+.2f points (goal within 1), QAT - fp32: %+.2f points (goal within 0.5)"
          % (rows[1][1] - rows[0][1], rows[2][1] - rows[0][1]))


# ---- 2. MobileNetV2 ----

def sqnr(ref, test):
    ref, test = np.asarray(ref, np.float64), np.asarray(test, np.float64)
    return 10 * np.log10((ref ** 2).sum() / max(((ref - test) ** 2).sum(), 1e-30))


def mobilenet():
    import torch
    import torch.ao.quantization as tq
    from torchvision.models.quantization import mobilenet_v2 as tv_mobilenet_v2
    from ember.vision.models.quantization import mobilenet_v2

    torch.set_num_threads(1)
    ember.set_num_threads(1)
    torch.manual_seed(0)
    tfloat = tv_mobilenet_v2(weights=None)
    for m in tfloat.modules():  # a random network's activations collapse without this
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None
            m.reset_running_stats()
    tfloat.train()
    with torch.no_grad():
        for _ in range(3):
            tfloat(torch.rand(4, 3, 224, 224) * 2 - 1)
    tfloat.eval()
    efloat = mobilenet_v2()
    efloat.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                            for k, v in tfloat.state_dict().items()})
    efloat.eval()
    rng = np.random.default_rng(0)
    calib = [rng.random((1, 3, 224, 224), dtype=np.float32) * 2 - 1 for _ in range(4)]
    x = rng.random((1, 3, 224, 224), dtype=np.float32) * 2 - 1
    tx, ex = torch.from_numpy(x), ember.from_numpy(x.copy())

    def quantized(engine):
        torch.backends.quantized.engine = engine
        ember.backends.quantized.engine = engine
        t, e = copy.deepcopy(tfloat), copy.deepcopy(efloat)
        t.fuse_model()
        e.fuse_model(False)
        t.qconfig = tq.QConfig(activation=tq.default_observer, weight=tq.default_weight_observer)
        e.qconfig = eq.QConfig(activation=eq.default_observer, weight=eq.default_weight_observer)
        tq.prepare(t, inplace=True)
        eq.prepare(e, inplace=True)
        with torch.no_grad():
            for c in calib:
                t(torch.from_numpy(c))
                e(ember.from_numpy(c.copy()))
        tq.convert(t, inplace=True)
        eq.convert(e, inplace=True)
        return t, e

    with torch.no_grad():
        tref = tfloat(tx).numpy()
        t_fp32 = best_ms(lambda: tfloat(tx))
    with ember.no_grad():
        eref = efloat(ex).numpy()
        e_fp32 = best_ms(lambda: efloat(ex))
    print("MobileNetV2, batch 1, 224x224, one thread (ms, lower is better; SQNR of the int8 "
          "logits against the same model's fp32 logits, dB)")
    print("%-22s %10s %10s %10s %10s" % ("", "ember ms", "torch ms", "ember dB", "torch dB"))
    print("%-22s %10.2f %10.2f %10s %10s" % ("fp32", e_fp32, t_fp32, "-", "-"))
    for engine, label in (("qnnpack", "int8 qnnpack"), ("onednn", "int8 onednn / fast")):
        t, e = quantized(engine)
        with torch.no_grad():
            tq_out = t(tx).numpy()
            t_ms = best_ms(lambda: t(tx))
        with ember.no_grad():
            eq_out = e(ex).numpy()
            e_ms = best_ms(lambda: e(ex))
        print("%-22s %10.2f %10.2f %10.1f %10.1f" % (label, e_ms, t_ms, sqnr(eref, eq_out),
                                                      sqnr(tref, tq_out)))


if __name__ == "__main__":
    which = sys.argv[1:] or ["digits", "mobilenet"]
    if "digits" in which:
        digits()
    if "mobilenet" in which:
        mobilenet()
