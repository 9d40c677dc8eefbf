"""Differential test: ember's optimizers and LR schedulers against torch.optim 1.13, same inputs.

Each case runs several steps of an optimizer over two parameter groups with different options
(one parameter stored transposed, one left without a gradient on one step), optionally under an
LR scheduler and with a state_dict round trip in the middle (state_dict, a new optimizer and
scheduler on the same parameters, load_state_dict, continue). ember runs it in
tests/tools/ember_optim, torch in this process. After every step the parameters must agree to
float rounding (torch's addcmul, Adam's second moment, is a fused multiply-add in its AVX2 build
and ember's composition of it is not, so Adam's last bit may differ; SGD and bfloat16 agree bit
for bit), and the learning rates and momenta the schedulers set must be equal to the bit.
Invalid options must raise torch's exception type with torch's message.
"""
import itertools
import math
import subprocess

import pytest
import torch

TOL = {"float32": (2e-6, 1e-7), "float64": (1e-13, 1e-15), "bfloat16": (0, 0), "float16": (2e-3, 1e-3)}

PARAMS = [  # (layout, sizes, a, b): the gradient at step s is p * a + b * (s + 1)
    ("c", [3], 0.7, -0.05),
    ("t", [2, 3], -0.4, 0.02),
    ("c", [], 1.3, 0.1),
    ("c", [4], 0.25, -0.3),
    # Two params of 64 elements for the 16-bit cases: torch's vectorized loop then covers every
    # element (its scalar loop, for short tensors and tails, rounds after each operator inside
    # an op where its vector loop and ember round once per op).
    ("c", [64], 0.7, -0.05),
    ("t", [8, 8], -0.4, 0.02),
]
VALUES = [
    [0.5, -1.25, 2.0],
    [0.1, -0.2, 0.3, 1.5, -0.75, 0.05],
    [-0.8],
    [1.0, 0.0, -2.5, 0.125],
    [round(math.sin(0.37 * i) * 1.5, 6) for i in range(64)],
    [round(math.cos(0.29 * i) * 0.8, 6) for i in range(64)],
]


def enc(v):
    if v is None:
        return "N"
    if isinstance(v, bool):
        return f"B {int(v)}"
    if isinstance(v, int):
        return f"I {v}"
    if isinstance(v, float):
        return f"F {v!r}"
    if isinstance(v, tuple):
        return f"P {float(v[0])!r} {float(v[1])!r}"
    raise TypeError(v)


class Case:
    def __init__(self, id, opt, dtype, defaults, groups, steps=8, nograd=((0, 2),), reload=None,
                 sched=None):
        self.id, self.opt, self.dtype, self.defaults = id, opt, dtype, defaults
        self.groups = groups  # [(options, [param indices])]
        self.steps, self.nograd, self.reload, self.sched = steps, nograd, reload, sched

    def spec(self):
        out = [f"case {self.id} {self.opt} {self.dtype} {self.steps}"]
        out.append(f"defaults {len(self.defaults)} " + " ".join(f"{k} {enc(v)}" for k, v in self.defaults.items()))
        for options, idx in self.groups:
            line = f"group {len(options)} " + " ".join(f"{k} {enc(v)}" for k, v in options.items())
            line += f" {len(idx)}"
            for i in idx:
                layout, sizes, a, b = PARAMS[i]
                line += f" param {layout} {len(sizes)} {' '.join(map(str, sizes))} {a!r} {b!r} "
                line += " ".join(repr(v) for v in VALUES[i])
            out.append(line)
        order = [i for _, idx in self.groups for i in idx]  # ember numbers the params it is given
        for i, s in self.nograd:
            out.append(f"nograd {order.index(i)} {s}")
        if self.reload is not None:
            out.append(f"reload {self.reload}")
        if self.sched:
            out.append("sched " + " ".join(str(t) for t in self.sched))
        out.append("end")
        return "\n".join(out)

    # ---- the same run in torch ----
    def make_params(self):
        dtype = getattr(torch, self.dtype)
        params = []
        for (layout, sizes, _, _), vals in zip(PARAMS, VALUES):
            v = torch.tensor(vals, dtype=torch.float64).reshape(sizes)
            if layout == "t":
                p = torch.empty(sizes[1], sizes[0], dtype=dtype).t()
                p.copy_(v)
            else:
                p = v.to(dtype)
            params.append(p.requires_grad_())
        return params

    def make_opt(self, params):
        cls = getattr(torch.optim, self.opt)
        groups = [dict(params=[params[i] for i in idx], **options) for options, idx in self.groups]
        return cls(groups, **self.defaults)

    def make_sched(self, opt):
        if not self.sched:
            return None
        s = self.sched
        S = torch.optim.lr_scheduler
        if s[0] == "StepLR":
            return S.StepLR(opt, s[1], s[2])
        if s[0] == "MultiStepLR":
            return S.MultiStepLR(opt, list(s[3:]), s[1])
        if s[0] == "CosineAnnealingLR":
            return S.CosineAnnealingLR(opt, s[1], s[2])
        if s[0] == "OneCycleLR":
            return S.OneCycleLR(opt, s[1], total_steps=s[2], pct_start=s[3], anneal_strategy=s[4],
                                three_phase=bool(s[5]), cycle_momentum=bool(s[6]), div_factor=s[7],
                                final_div_factor=s[8])
        raise ValueError(s[0])

    def run_torch(self):
        params = self.make_params()
        try:
            opt = self.make_opt(params)
            sched = self.make_sched(opt)
        except Exception as e:  # noqa: BLE001 - the error is the expected result
            return ("error", type(e).__name__, str(e).strip("'"))
        steps = []
        for s in range(self.steps):
            for i, (p, (_, _, a, b)) in enumerate(zip(params, PARAMS)):
                if (i, s) in self.nograd:
                    p.grad = None
                else:
                    p.grad = p.detach() * a + b * (s + 1)
            opt.step()
            if sched:
                sched.step()
            lrs = [g["lr"] for g in opt.param_groups]
            moms = [g["momentum"] if "momentum" in g else g["betas"][0] for g in opt.param_groups]
            optimized = [params[i] for _, idx in self.groups for i in idx]
            steps.append((lrs, moms, [p.detach().double().flatten().tolist() for p in optimized]))
            if s == self.reload:
                sd = opt.state_dict()
                ssd = sched.state_dict() if sched else None
                opt = self.make_opt(params)
                sched = self.make_sched(opt)
                opt.load_state_dict(sd)
                if sched:
                    sched.load_state_dict(ssd)
        sd = opt.state_dict()
        groups = [" ".join(f"{k}={encode(k, v)}" for k, v in g.items()) for g in sd["param_groups"]]
        state = {i: " ".join(f"{k}={encode(k, v)}" for k, v in st.items()) for i, st in sd["state"].items()}
        return ("ok", steps, groups, state)


def num(v):
    return "%.17g" % v


def encode(key, v):
    """A state_dict value as tests/tools/ember_optim writes ember's."""
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, (tuple, list)):
        return "[" + ",".join(num(x) for x in v) + "]"
    if isinstance(v, torch.Tensor):
        s = f"T:{str(v.dtype).replace('torch.', '')}:[{','.join(str(d) for d in v.shape)}]"
        return s + (":" + num(v.item()) if key == "step" else "")
    return f"?{type(v).__name__}"


def build_cases():
    cases = []
    two_groups = lambda g2: [({}, [0, 1]), (g2, [2, 3])]  # noqa: E731
    for dtype in ("float32", "float64"):
        for momentum, dampening, nesterov, wd, maximize in itertools.product(
                [0.0, 0.9], [0.0, 0.3], [False, True], [0.0, 0.05], [False, True]):
            if nesterov and (momentum == 0 or dampening != 0):
                continue
            d = dict(lr=0.1, momentum=momentum, dampening=dampening, nesterov=nesterov,
                     weight_decay=wd, maximize=maximize)
            g2 = {"lr": 0.03, "weight_decay": 0.2, "momentum": 0.5 if momentum else 0.0}
            cases.append(Case(f"sgd_{len(cases)}", "SGD", dtype, d, two_groups(g2)))
        for opt in ("Adam", "AdamW"):
            for amsgrad, maximize, wd in itertools.product([False, True], [False, True], [0.0, 0.1]):
                d = dict(lr=0.05, amsgrad=amsgrad, maximize=maximize, weight_decay=wd)
                g2 = {"lr": 0.01, "betas": (0.5, 0.9), "eps": 1e-3}
                cases.append(Case(f"{opt.lower()}_{len(cases)}", opt, dtype, d, two_groups(g2)))
            d = dict(lr=0.2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.03, amsgrad=True)
            cases.append(Case(f"{opt.lower()}_{len(cases)}", opt, dtype, d, two_groups({"amsgrad": False}),
                              steps=12))
    # 16-bit parameters. bfloat16 must be bit-exact on vector-sized params. torch 1.13's float16
    # kernels on CPU run the scalar loop (rounding inside ops), so float16 is compared to a
    # tolerance, and only SGD: its Adam has no Half addcmul on CPU (ember's runs).
    for dtype, opts in (("bfloat16", ("SGD", "Adam", "AdamW")), ("float16", ("SGD",))):
        for opt in opts:
            d = (dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05) if opt == "SGD"
                 else dict(lr=0.05, amsgrad=True, weight_decay=0.05))
            groups = [({}, [4]), ({"lr": 0.02, "maximize": True}, [5])]
            cases.append(Case(f"{dtype}_{opt}", opt, dtype, d, groups, steps=6, nograd=((4, 2),)))
    # state_dict round trips in the middle of a run
    sgd = dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    adam = dict(lr=0.05, amsgrad=True, weight_decay=0.01)
    for opt, d in (("SGD", sgd), ("Adam", adam), ("AdamW", adam)):
        cases.append(Case(f"reload_{opt}", opt, "float32", d, two_groups({"lr": 0.02}), reload=3))
    # schedulers, over many steps (cosine well past T_max), some with a round trip
    scheds = [
        ("SGD", sgd, ("StepLR", 3, 0.5), 20),
        ("SGD", sgd, ("MultiStepLR", 0.3, 3, 2, 2, 6), 12),
        ("Adam", adam, ("CosineAnnealingLR", 5, 0.001), 40),
        ("SGD", dict(sgd, lr=0.5), ("CosineAnnealingLR", 7, 0.0), 60),
        ("SGD", sgd, ("OneCycleLR", 0.8, 30, 0.3, "cos", 0, 1, 25.0, 1e4), 30),
        ("SGD", sgd, ("OneCycleLR", 0.8, 30, 0.25, "linear", 1, 1, 10.0, 100.0), 30),
        ("Adam", adam, ("OneCycleLR", 0.05, 20, 0.4, "cos", 1, 1, 25.0, 1e4), 20),
        ("AdamW", adam, ("OneCycleLR", 0.05, 20, 0.3, "linear", 0, 0, 5.0, 1e3), 20),
    ]
    for k, (opt, d, sched, steps) in enumerate(scheds):
        for reload in (None, steps // 2):
            cases.append(Case(f"sched_{k}_{reload}", opt, "float64", d, two_groups({"lr": 0.02}),
                              steps=steps, reload=reload, sched=sched))
    # invalid options: torch's exception type and message
    bad = [("SGD", dict(lr=-0.1)), ("SGD", dict(lr=0.1, momentum=-0.5)),
           ("SGD", dict(lr=0.1, weight_decay=-1e-5)), ("SGD", dict(lr=0.1, nesterov=True)),
           ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)), ("SGD", {}),
           ("Adam", dict(lr=-1e-3)), ("Adam", dict(eps=-1e-8)), ("Adam", dict(betas=(1.0, 0.999))),
           ("Adam", dict(betas=(0.9, -0.5))), ("AdamW", dict(weight_decay=-0.01)),
           ("AdamW", dict(betas=(0.9, 1.0)))]
    for k, (opt, d) in enumerate(bad):
        cases.append(Case(f"bad_{k}", opt, "float32", d, [({}, [0])], steps=1))
    cases.append(Case("bad_total_steps", "SGD", "float32", sgd, [({}, [0])], steps=1,
                      sched=("OneCycleLR", 0.1, 0, 0.3, "cos", 0, 1, 25.0, 1e4)))
    cases.append(Case("bad_anneal", "SGD", "float32", sgd, [({}, [0])], steps=1,
                      sched=("OneCycleLR", 0.1, 10, 0.3, "exp", 0, 1, 25.0, 1e4)))
    cases.append(Case("bad_pct", "SGD", "float32", sgd, [({}, [0])], steps=1,
                      sched=("OneCycleLR", 0.1, 10, 1.5, "cos", 0, 1, 25.0, 1e4)))
    return cases


CASES = build_cases()


@pytest.fixture(scope="module")
def ember_results(ember_tool, tmp_path_factory):
    tool = ember_tool("ember_optim")
    out = tmp_path_factory.mktemp("optim")
    spec = out / "spec.txt"
    spec.write_text("\n".join(c.spec() for c in CASES) + "\n")
    subprocess.run([str(tool), str(spec), str(out)], check=True)
    results, cur = {}, None
    for line in (out / "results.txt").read_text().splitlines():
        head, _, rest = line.partition(" ")
        if head == "case":
            cid, status, tail = (rest.split(" ", 2) + [""])[:3]
            if status == "error":
                kind, _, msg = tail.partition(" ")
                results[cid] = ("error", kind, msg)
                cur = None
            else:
                cur = results[cid] = ("ok", [], [], {})
        elif head == "step":
            lrs = [float(x) for x in rest.split()[2:]]
            cur[1].append([lrs, None, []])
        elif head == "mom":
            cur[1][-1][1] = [float(x) for x in rest.split()]
        elif head == "p":
            cur[1][-1][2].append([float(x) for x in rest.split()[1:]])
        elif head == "sdgroup":
            cur[2].append(rest.partition(" ")[2])
        elif head == "sdstate":
            idx, _, body = rest.partition(" ")
            cur[3][int(idx)] = body
    return results


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_torch(case, ember_results):
    expected = case.run_torch()
    got = ember_results[case.id]
    if expected[0] == "error":
        assert got[0] == "error", f"torch raised {expected[1]}: {expected[2]}"
        assert (got[1], got[2]) == (expected[1], expected[2])
        return
    assert got[0] == "ok", f"ember raised {got[1]}: {got[2]}"
    rtol, atol = TOL[case.dtype]
    assert len(got[1]) == len(expected[1])
    for s, ((lrs, moms, params), (elrs, emoms, eparams)) in enumerate(zip(got[1], expected[1])):
        assert lrs == elrs, f"step {s}: learning rates"
        assert moms == emoms, f"step {s}: momenta"
        for i, (p, e) in enumerate(zip(params, eparams)):
            torch.testing.assert_close(torch.tensor(p, dtype=torch.float64), torch.tensor(e, dtype=torch.float64),
                                       rtol=rtol, atol=atol, msg=lambda m: f"step {s}, param {i}: {m}")
    # state_dict(): torch's layout, key order and option values; state tensors' dtypes and shapes
    assert got[2] == expected[2]
    assert got[3] == expected[3]
