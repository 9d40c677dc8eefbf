"""Differential test of gradients: every differentiable ember op's backward against PyTorch 1.13.

Each case (grads_table.py) runs the op by its aten name on both sides, with the floating inputs
requiring grad: ember through the boxed dispatcher (tests/tools/ember_grad), torch through
torch.ops.aten. Both differentiate the outputs with the same grad_outputs (autograd.grad with
allow_unused). Per case: the outputs' grad_fn names and requires_grad match torch's (or
GRAD_FN_ALLOWLIST says why not), the forward values and the input gradients match (None where
torch gives None), and for float64 cases ember's gradcheck and gradgradcheck pass. Inputs come
in contiguous, transposed and strided layouts (the same on both sides) and broadcast shapes.

EMBER_GRADS_REQUIRE_ALL (default 1): a case whose forward or double backward runs a primitive
op without a backward rule fails. With 0 it is skipped, naming the missing rules (`pytest -rs`
lists them). EMBER_GRADS_FILTER=<regex> runs only the ops it matches.
"""
import itertools
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "core"))
from grads_table import GRAD_CASES, GRAD_FN_ALLOWLIST, NONDIFF_CASES  # noqa: E402
from ops_table import Tensor as TensorArg, layouts  # noqa: E402
from test_ops_vs_torch import flatten_torch, raw_bytes, torch_call  # noqa: E402

REQUIRE_ALL = os.environ.get("EMBER_GRADS_REQUIRE_ALL", "1") != "0"
# (rtol, atol) for forward values and gradients. The gradients are computed by different kernels
# and formulas on the two sides (e.g. var's, norm's, softmax's), so float64 is not bit-exact.
TOL = {torch.float64: (1e-7, 1e-9), torch.float32: (1e-5, 1e-5)}


def _cases():
    gen = torch.Generator().manual_seed(0)
    pattern = re.compile(os.environ.get("EMBER_GRADS_FILTER", ""))
    rows = [r for r in GRAD_CASES + NONDIFF_CASES if pattern.search(r.op)]
    cases = list(itertools.chain.from_iterable(r.expand(gen) for r in rows))
    return {f"g{n}": c for n, c in enumerate(cases)}


CASES = _cases()


def with_layout(t: torch.Tensor, layout: str) -> torch.Tensor:
    """t's values in the layout ember_grad builds (spec_io.h): c, t (dims reversed), s (strided)."""
    if layout == "c" or t.dim() == 0:
        return t.clone()
    if layout == "t":
        y = torch.empty(list(reversed(t.shape)), dtype=t.dtype).permute(*reversed(range(t.dim())))
    else:
        wide = list(t.shape)
        wide[-1] *= 2
        y = torch.empty(wide, dtype=t.dtype)[..., ::2]
    return y.copy_(t).detach()


class Spec:
    """Writes spec lines, the tensors' values packed in one file ("FILE@OFFSET" in the lines:
    thousands of small files would make writing and pytest's cleanup of old runs slow)."""

    def __init__(self, path: pathlib.Path, lines: list):
        self.path, self.lines, self.chunks, self.offset = path, lines, [], 0

    def tensor(self, t: torch.Tensor, layout: str):
        data = raw_bytes(t)
        dims = " ".join(str(s) for s in t.shape)
        self.lines.append(f"arg T {str(t.dtype)[6:]} {layout} {t.dim()} {dims} {self.path}@{self.offset}")
        self.chunks.append(data)
        self.offset += len(data)

    def save(self):
        self.path.write_bytes(b"".join(self.chunks))

    def scalar(self, v):
        if v is None:
            self.lines.append("arg N")
        elif isinstance(v, bool):
            self.lines.append(f"arg B {int(v)}")
        elif isinstance(v, int):
            self.lines.append(f"arg I {v}")
        elif isinstance(v, float):
            self.lines.append(f"arg F {v!r}")
        elif isinstance(v, torch.dtype):
            self.lines.append(f"arg Y {str(v)[6:]}")
        elif isinstance(v, str):
            self.lines.append(f"arg S {v}")
        elif isinstance(v, (list, tuple)):
            self.lines.append(f"arg L {len(v)} " + " ".join(str(int(x)) for x in v))
        else:
            raise TypeError(f"cannot encode {v!r}")


def wants_grad(case, pos, element, t: torch.Tensor) -> bool:
    if not t.dtype.is_floating_point:
        return False
    if case.diff is None:
        return True
    return pos in case.diff or (pos, element) in case.diff


def prepare(case_id, case, spec: Spec):
    """Spec lines for ember_grad and torch's side of the case (outputs, grad_fns, gradients)."""
    lines = spec.lines
    header = len(lines)
    lines.append("")  # "case ..." once the check flag is known
    args, leaves, slots, slot = [], [], [], 0

    def tensor_arg(b, pos, element):
        nonlocal slot
        t = with_layout(b.tensor, b.layout)
        spec.tensor(b.tensor, b.layout)
        if wants_grad(case, pos, element, t):
            t.requires_grad_()
            leaves.append(t)
            slots.append(slot)
        slot += 1
        return t

    for pos, a in enumerate(case.args):
        if isinstance(a, TensorArg.Built):
            args.append(tensor_arg(a, pos, None))
        elif isinstance(a, list) and any(isinstance(x, TensorArg.Built) for x in a):
            lines.append(f"arg TL {len(a)}")
            elements = []
            for i, x in enumerate(a):
                if x is None:
                    lines.append("arg N")
                    slot += 1
                    elements.append(None)
                else:
                    elements.append(tensor_arg(x, pos, i))
            args.append(elements)
        else:
            spec.scalar(a)
            args.append(a)
    lines.append(f"diff {len(slots)} " + " ".join(str(s) for s in slots))
    if case.inplace:
        args[0] = args[0].clone()
    outs = [o for o in flatten_torch(torch_call(case.op, args)) if isinstance(o, torch.Tensor)]
    gen = torch.Generator().manual_seed(len(lines))
    lines.append(f"gout {len(outs)}")
    gouts = []
    for o in outs:
        if not o.requires_grad:
            lines.append("arg N")
            gouts.append(None)
            continue
        g = (torch.randn(o.shape, generator=gen, dtype=torch.float64)).to(o.dtype)
        spec.tensor(g, case.layout if case.layout in layouts(tuple(o.shape)) else "c")
        gouts.append(g)
    lines.append("end")
    diff_outs = [(o, g) for o, g in zip(outs, gouts) if g is not None]
    grads = None
    if diff_outs and leaves:
        grads = torch.autograd.grad([o for o, _ in diff_outs], leaves, [g for _, g in diff_outs],
                                    allow_unused=True)
    # gradcheck in float64, where the differentiated outputs are float64 (a float32 output's
    # finite differences are too coarse for its tolerances).
    check = case.check and bool(diff_outs) and all(o.dtype in (torch.float64, torch.complex128)
                                                   for o, _ in diff_outs)
    lines[header] = f"case {case_id} {case.op} {int(case.inplace)} {int(check)}"
    return {
        "outs": [o.detach() for o in outs],
        "fns": [o.grad_fn.name() if o.grad_fn is not None else None for o in outs],
        "requires": [o.requires_grad for o in outs],
        "grads": grads,
        "check": check,
        # float32 when any input or output is float32, else float64
        "low": min((t.dtype for t in outs + leaves if t.dtype in TOL), key=lambda d: torch.finfo(d).bits, default=None),
    }


def read_tensor_line(parts, blobs):
    dtype = getattr(torch, parts[2])
    ndim = int(parts[3])
    sizes = [int(s) for s in parts[4:4 + ndim]]
    n = int(np.prod(sizes)) if sizes else 1
    if n == 0:
        return torch.empty(sizes, dtype=dtype)
    path, _, offset = parts[4 + ndim].rpartition("@")
    if path not in blobs:
        blobs[path] = pathlib.Path(path).read_bytes()
    start = int(offset)
    nbytes = n * torch.empty((), dtype=dtype).element_size()
    data = bytearray(blobs[path][start:start + nbytes])
    return torch.frombuffer(data, dtype=torch.uint8).view(dtype).reshape(sizes)


def read_results(path: pathlib.Path):
    results, cur, blobs = {}, None, {}
    for line in path.read_text().splitlines():
        parts = line.split(" ")
        tag = parts[0]
        if tag == "case":
            if parts[2] == "error":
                results[parts[1]] = {"error": f"{parts[3]}: {' '.join(parts[4:])}"}
                cur = None
            else:
                cur = results[parts[1]] = {"fns": [], "requires": [], "outs": [], "grads": []}
        elif tag in ("missing", "missing2"):
            cur[tag] = parts[2:]
        elif tag == "fn":
            cur["fns"].append(None if parts[1] == "none" else parts[1])
            cur["requires"].append(parts[2] == "1")
        elif tag == "out":
            cur["outs"].append(read_tensor_line(parts, blobs))
        elif tag == "grads":
            cur["grads_status"] = " ".join(parts[1:])
        elif tag == "gin":
            cur["grads"].append(None if parts[1] == "none" else read_tensor_line(parts, blobs))
        elif tag in ("check", "gradgrad"):
            cur[tag] = " ".join(parts[1:])
    return results


@pytest.fixture(scope="module")
def grad_run(ember_tool, tmp_path_factory):
    tool = ember_tool("ember_grad")
    tmp = tmp_path_factory.mktemp("grads")
    lines, expected = [], {}
    spec = Spec(tmp / "spec.bin", lines)
    for case_id, case in CASES.items():
        start = len(lines)
        try:
            expected[case_id] = prepare(case_id, case, spec)
        except Exception as e:  # noqa: BLE001 — a bad table row fails its own case only
            del lines[start:]
            expected[case_id] = {"torch_error": f"{type(e).__name__}: {e}"}
    spec.save()
    spec = tmp / "spec.txt"
    spec.write_text("\n".join(lines) + "\n")
    subprocess.run([str(tool), str(spec), str(tmp)], check=True)
    return expected, read_results(tmp / "results.txt")


def name_allowed(op, torch_name, ember_name):
    return any(re.search(o, op) and t == torch_name and e == ember_name for o, t, e, _ in GRAD_FN_ALLOWLIST)


def assert_close(what, got, exp, note, low=None):
    """low: the least precise floating dtype the case computes in (a float64 gradient of a
    float32 computation carries float32 rounding)."""
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype}, torch {exp.dtype} ({note})"
    assert tuple(got.shape) == tuple(exp.shape), f"{what}: shape {tuple(got.shape)}, torch {tuple(exp.shape)} ({note})"
    if exp.dtype in TOL:
        rtol, atol = max(TOL[exp.dtype], TOL.get(low, (0, 0)))
        torch.testing.assert_close(got, exp, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{what} ({note}): {m}")
    else:
        assert torch.equal(got, exp), f"{what} ({note}):\nember {got}\ntorch {exp}"


def missing_rules(reason):
    if REQUIRE_ALL:
        pytest.fail(reason + " (EMBER_GRADS_REQUIRE_ALL=0 skips these)")
    pytest.skip(reason)


@pytest.mark.parametrize("case_id", list(CASES), ids=[f"{k}-{c.note}" for k, c in CASES.items()])
def test_grads_vs_torch(grad_run, case_id):
    expected, results = grad_run
    case, exp, got = CASES[case_id], expected[case_id], results.get(case_id)
    note = case.note
    assert "torch_error" not in exp, f"torch refuses the case ({note}): {exp['torch_error']}"
    assert got is not None, f"no result from ember_grad ({note})"
    assert "error" not in got, f"ember raised {got['error']} ({note})"
    differentiated = exp["grads"] is not None
    if differentiated and got["missing"]:
        torch_fns = ", ".join(sorted({f for f in exp["fns"] if f}))
        missing_rules(f"no backward rule for {', '.join(got['missing'])} (torch records {torch_fns})")

    assert len(got["fns"]) == len(exp["fns"]), f"{len(got['fns'])} outputs, torch gives {len(exp['fns'])} ({note})"
    for i, (g, e) in enumerate(zip(got["fns"], exp["fns"])):
        assert g == e or name_allowed(case.op, e, g), f"output {i}: grad_fn {g}, torch {e} ({note})"
    assert got["requires"] == exp["requires"], f"requires_grad {got['requires']}, torch {exp['requires']} ({note})"
    for i, (g, e) in enumerate(zip(got["outs"], exp["outs"])):
        assert_close(f"output {i}", g, e, note)

    if not differentiated:
        return
    assert got["grads_status"].startswith("ok"), f"autograd.grad failed: {got['grads_status']} ({note})"
    assert len(got["grads"]) == len(exp["grads"]), f"{len(got['grads'])} gradients, torch {len(exp['grads'])}"
    for i, (g, e) in enumerate(zip(got["grads"], exp["grads"])):
        assert (g is None) == (e is None), (
            f"gradient of input {i}: ember {'None' if g is None else 'a tensor'}, torch {e if e is None else 'a tensor'} ({note})")
        if e is not None:
            assert_close(f"gradient of input {i}", g, e, note, exp["low"])

    if exp["check"]:
        assert got["check"] == "ok", f"gradcheck: {got['check']} ({note})"
        if got["gradgrad"] != "ok" and got["missing2"]:
            missing_rules(f"double backward: no backward rule for {', '.join(got['missing2'])}")
        assert got["gradgrad"] == "ok", f"gradgradcheck: {got['gradgrad']} ({note})"
