#!/usr/bin/env python3
"""Sequence-model training steps: ember beside PyTorch (Debian's python3-torch) in one process.

One JSON line per figure, as benchmarks/bench_python.py prints:
  char_transformer_train_step_1t / _2t: examples/python/char_transformer.py's model (vocabulary
      76, context 64, d_model 64, 4 heads, 2 pre-norm GELU encoder layers, feed-forward 128,
      no dropout), batch 16: forward, cross entropy, backward, clip_grad_norm_, AdamW step;
      one and two intra-op threads.
  lstm_train_step_1t: a 2-layer LSTM (input 64, hidden 128), 32 steps of batch 16, a linear head
      on every step, cross entropy, backward, SGD; one thread.
Both sides start from the same weights (copied through numpy) and see the same batches.
Method: a warm-up, then `rounds` rounds of `iters` steps per library (ember's block first, then
PyTorch's); the figure is the median round's time per step (ms).

Usage: /usr/bin/python3 benchmarks/bench_seq.py [substring]   (PYTHONPATH=<build>/python)
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import torch

import ember
import pybench

REPO = Path(__file__).resolve().parents[1]


def report(name, ember_fn, torch_fn, iters=5, rounds=7):
    pybench.report(name, ember_fn, torch_fn, unit="ms/step", iters=iters, rounds=rounds, digits=3)


def copy_into(emodel, tmodel):
    emodel.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                            for k, v in tmodel.state_dict().items()})


def load_example(lib_name):
    """examples/python/char_transformer.py's module, importing `lib_name` as torch."""
    source = (REPO / "examples" / "python" / "char_transformer.py").read_text()
    if lib_name == "torch":
        source = source.replace("import ember as torch", "import torch").replace(
            "import ember.nn as nn", "import torch.nn as nn")
    spec = importlib.util.spec_from_loader(f"char_transformer_{lib_name}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, f"char_transformer_{lib_name}", "exec"), module.__dict__)
    return module


def transformer_step(threads):
    ember.set_num_threads(threads)
    torch.set_num_threads(threads)
    vocab, context, batch = 76, 64, 16
    torch.manual_seed(0)
    tmodel = load_example("torch").CharTransformer(vocab, context)
    emodel = load_example("ember").CharTransformer(vocab, context)
    copy_into(emodel, tmodel)
    rng = np.random.RandomState(0)
    x = rng.randint(0, vocab, (batch, context)).astype(np.int64)
    y = rng.randint(0, vocab, (batch, context)).astype(np.int64)

    def step(lib, model):
        opt = lib.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
        loss_fn = lib.nn.CrossEntropyLoss()
        xb, yb = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())

        def run():
            loss = loss_fn(model(xb).reshape(-1, vocab), yb.reshape(-1))
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        return run

    report(f"char_transformer_train_step_{threads}t", step(ember, emodel), step(torch, tmodel))


def lstm_step():
    ember.set_num_threads(1)
    torch.set_num_threads(1)
    T, N, I, H, C = 32, 16, 64, 128, 50

    def build(lib):
        return lib.nn.ModuleDict({"lstm": lib.nn.LSTM(I, H, num_layers=2), "head": lib.nn.Linear(H, C)})

    torch.manual_seed(0)
    tmodel, emodel = build(torch), build(ember)
    copy_into(emodel, tmodel)
    rng = np.random.RandomState(0)
    x = rng.randn(T, N, I).astype(np.float32)
    y = rng.randint(0, C, (T * N,)).astype(np.int64)

    def step(lib, model):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        xb, yb = lib.from_numpy(x.copy()), lib.from_numpy(y.copy())

        def run():
            out, _ = model["lstm"](xb)
            loss = lib.nn.functional.cross_entropy(model["head"](out).reshape(-1, C), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return run

    report("lstm_train_step_1t", step(ember, emodel), step(torch, tmodel))


BENCHES = {
    "char_transformer_train_step_1t": lambda: transformer_step(1),
    "char_transformer_train_step_2t": lambda: transformer_step(2),
    "lstm_train_step_1t": lstm_step,
}


if __name__ == "__main__":
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    for name, fn in BENCHES.items():
        if pattern in name:
            fn()
