#!/usr/bin/env python3
"""Python-level benchmarks: ember beside PyTorch (Debian's python3-torch) in the same process.

One JSON line per figure, as the C++ benchmarks print (benchmarks/bench_common.h):
  {"bench": "add_1elem_py", "unit": "us/op", "ember": 0.6, "pytorch": 1.4, "ratio": 0.43, ...}

Method: for each library, a warm-up, then `rounds` rounds of `iters` calls; the figure is the
median round's time per call (wall clock). First all of ember's rounds, then all of PyTorch's,
each after a short pause (the C++ benchmarks explain why blocks and not interleaved rounds).
Both libraries run on one intra-op thread (ember.set_num_threads(1), torch.set_num_threads(1));
these figures measure per-call overhead, where threads do not help.

Usage: /usr/bin/python3 benchmarks/bench_python.py [substring]   (PYTHONPATH=<build>/python)
"""
import torch

import ember
import pybench
from pybench import run


def report(name, unit, ember_fn, torch_fn, iters, rounds=15):
    pybench.report(name, ember_fn, torch_fn, unit=unit, iters=iters, rounds=rounds, digits=3, scale=1e6,
                   warmup=iters)


def bench_add_1elem():
    ea, eb = ember.ones(1), ember.ones(1)
    ta, tb = torch.ones(1), torch.ones(1)
    report("add_1elem_py", "us/op", lambda: ember.add(ea, eb), lambda: torch.add(ta, tb), 20000)


def bench_torch_function_subclass_add():
    class EmberSub(ember.Tensor):
        pass

    class TorchSub(torch.Tensor):
        pass

    ea, eb = ember.ones(1).as_subclass(EmberSub), ember.ones(1)
    ta, tb = torch.ones(1).as_subclass(TorchSub), torch.ones(1)
    assert type(ember.add(ea, eb)) is EmberSub and type(torch.add(ta, tb)) is TorchSub
    report("torch_function_subclass_add_py", "us/op", lambda: ember.add(ea, eb),
           lambda: torch.add(ta, tb), 5000)


def bench_mlp_train_step():
    """A small MLP (64-128-128-10, batch 32) training step: forward, cross entropy, backward,
    SGD with momentum. Same initial weights on both sides."""
    torch.manual_seed(0)
    sizes = [64, 128, 128, 10]

    def build(lib):
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(lib.nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(lib.nn.ReLU())
        return lib.nn.Sequential(*layers)

    tmodel = build(torch)
    emodel = build(ember)
    emodel.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                            for k, v in tmodel.state_dict().items()})
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    ex, ey = ember.from_numpy(x.numpy().copy()), ember.from_numpy(y.numpy().copy())
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.01, momentum=0.9)
    eopt = ember.optim.SGD(emodel.parameters(), lr=0.01, momentum=0.9)

    def step(lib, model, opt, xb, yb):
        def run():
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        return run

    report("mlp_train_step_py", "us/step", step(ember, emodel, eopt, ex, ey),
           step(torch, tmodel, topt, x, y), 300)


BENCHES = {
    "add_1elem_py": bench_add_1elem,
    "torch_function_subclass_add_py": bench_torch_function_subclass_add,
    "mlp_train_step_py": bench_mlp_train_step,
}


if __name__ == "__main__":
    run(BENCHES)
