"""Differential test of ember's tensor printing against PyTorch's repr.

About 300 tensors (every dtype, 0-d to 4-d, empty, summarised, wrapped, non-contiguous, meta,
special values, other print options) are written to a file; the C++ tool tests/tools/ember_repr
prints ember's repr of each, which must equal repr(t) with "torch." replaced by "ember.".

The tool is looked for in $EMBER_BUILD_DIR (default: build/ under the repository root).
Run: /usr/bin/python3 -m pytest tests/python/core/test_repr_vs_torch.py
"""
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

REPO = Path(__file__).resolve().parents[3]
DELIMITER = "<<<ember-repr-end>>>"

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
DTYPES = FLOATS + INTS + [torch.bool]

DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)


def tool_path():
    build = Path(os.environ.get("EMBER_BUILD_DIR", "build"))
    if not build.is_absolute():
        build = REPO / build
    return build / "tests" / "tools" / "ember_repr"


class Case:
    """A tensor as a view (sizes, strides, offset) of a contiguous storage, plus print options."""

    def __init__(self, t, storage=None, meta=False, **opts):
        self.t = t
        self.storage = storage
        self.meta = meta
        self.opts = dict(DEFAULT_OPTS, **opts)

    def expected(self):
        torch.set_printoptions(**self.opts)
        try:
            return repr(self.t).replace("torch.", "ember.")
        finally:
            torch.set_printoptions(profile="default", sci_mode=None)

    def encode(self):
        t = self.t
        name = str(t.dtype).split(".")[1].encode()
        o = self.opts
        sci = -1 if o["sci_mode"] is None else int(o["sci_mode"])
        out = [struct.pack("<B", len(name)), name, struct.pack("<B", int(self.meta))]
        out.append(struct.pack("<iqqqb", o["precision"], o["threshold"], o["edgeitems"],
                               o["linewidth"], sci))
        out.append(struct.pack("<B", t.dim()))
        out.append(struct.pack(f"<{t.dim()}q", *t.shape))
        out.append(struct.pack(f"<{t.dim()}q", *t.stride()))
        if self.meta:
            out.append(struct.pack("<qq", 0, 0))
        else:
            # Reinterpret as the integer type of the same size (numpy has no bfloat16).
            same_size = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
            raw = self.storage.view(same_size[t.element_size()]).numpy().tobytes()
            out.append(struct.pack("<qq", t.storage_offset(), len(raw)))
            out.append(raw)
        return b"".join(out)


def plain(t, **opts):
    """A contiguous tensor: its own storage."""
    t = t.contiguous().clone()
    return Case(t, storage=t, **opts)


def view(base, fn, **opts):
    """fn(base) is a view of the fresh contiguous `base`; the case carries base's storage."""
    base = base.contiguous().clone()
    t = fn(base)
    assert t.storage().data_ptr() == base.storage().data_ptr()
    return Case(t, storage=base, **opts)


def meta(shape, dtype, **opts):
    return Case(torch.empty(shape, dtype=dtype, device="meta"), meta=True, **opts)


def random_values(rng, shape, dtype, scale=None):
    n = int(np.prod(shape)) if len(shape) else 1
    if dtype == torch.bool:
        a = rng.random(n) < 0.5
    elif dtype in INTS:
        info = np.iinfo(str(dtype).split(".")[1])
        # Mostly small numbers, sometimes the full range (widths vary with both).
        if rng.random() < 0.5:
            a = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True)
        else:
            a = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64)
    else:
        if scale is None:
            scale = 10.0 ** rng.uniform(-10, 10)
        a = rng.standard_normal(n) * scale
        if dtype == torch.float16:
            a = np.clip(a, -65000, 65000)
    return torch.tensor(a.reshape(shape)).to(dtype)


def make_cases():
    rng = np.random.default_rng(1234)
    cases = []

    # Every dtype over a range of shapes, empty ones included.
    shapes = [(), (1,), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (0,), (0, 3), (2, 0, 4)]
    for dtype in DTYPES:
        for shape in shapes:
            cases.append(plain(random_values(rng, shape, dtype)))

    # Magnitudes 1e-10 .. 1e10, fractional and integer-valued, both signs.
    for dtype in [torch.float32, torch.float64]:
        for e in range(-10, 11, 2):
            v = random_values(rng, (6,), dtype, scale=10.0 ** e)
            cases.append(plain(v))
            cases.append(plain(torch.round(v * 10.0 ** max(0, 2 - e)) if e < 2 else torch.round(v)))
    for dtype in [torch.float16, torch.bfloat16]:
        for scale in [1e-6, 1e-3, 0.5, 10, 1e3, 3e4]:
            cases.append(plain(random_values(rng, (2, 4), dtype, scale=scale)))

    # Special values and the thresholds between the formatter's modes.
    inf, nan = float("inf"), float("nan")
    specials = [
        [0.0], [-0.0], [0.0, -0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [-1.0, 2.0, -300.0],
        [inf], [nan], [-inf], [inf, nan, -inf], [1.0, inf], [1.5, nan, -inf], [-nan, 2.0],
        [1e8, 1.0], [1e8 + 1, 1.0], [1000.0, 1.0], [1001.0, 1.0], [1e-4, 1.0], [9e-5, 1.0],
        [0.1, 100.0], [0.1, 100.1], [1e-4, 0.1], [123456.789, 0.5], [2.5, 0.0, -0.0],
        [1e20, -1e-20, 0.0], [0.5, 0.25, 0.125], [0.00005, 0.00015, 0.00025], [99999.5, 1.0],
        [1.23456789e-3], [-7.0], [0.9999], [0.99995], [0.99994], [12345678.0], [1e10, 1.0, inf],
    ]
    for dtype in FLOATS:
        for vals in specials:
            cases.append(plain(torch.tensor(vals, dtype=torch.float64).to(dtype)))
    cases.append(plain(torch.tensor(3.0)))
    cases.append(plain(torch.tensor(-0.0, dtype=torch.float64)))
    cases.append(plain(torch.tensor(float("nan"))))
    cases.append(plain(torch.tensor(1e-7)))
    cases.append(plain(torch.tensor(True)))
    cases.append(plain(torch.tensor(-5, dtype=torch.int8)))
    for dtype in INTS:
        info = torch.iinfo(dtype)
        cases.append(plain(torch.tensor([info.min, 0, info.max], dtype=dtype)))

    # Summarisation (more than 1000 elements), in every dimensionality.
    for shape, dtype in [((1001,), torch.float32), ((2000,), torch.int64), ((40, 40), torch.float64),
                         ((3, 500), torch.float16), ((11, 11, 11), torch.int32),
                         ((7, 200), torch.bool), ((2, 3, 4, 50), torch.bfloat16),
                         ((1200,), torch.uint8), ((10, 10, 11), torch.float32),
                         ((1, 1001), torch.int16), ((5, 5, 5, 9), torch.float64)]:
        cases.append(plain(random_values(rng, shape, dtype)))
    cases.append(plain(torch.arange(2000.0).reshape(2, 1000)))
    cases.append(plain(torch.arange(1500.0).reshape(50, 30) / 7))
    cases.append(plain(torch.arange(1001, dtype=torch.int64) * 10 ** 12))

    # Line wrapping of long rows and of the dtype suffix.
    for shape, dtype in [((30,), torch.float32), ((100,), torch.int64), ((6, 20), torch.float64),
                         ((25,), torch.int8), ((3, 2, 30), torch.float32), ((60,), torch.bool),
                         ((9,), torch.float64), ((13,), torch.float64), ((2, 8), torch.float64),
                         ((40,), torch.int32)]:
        cases.append(plain(random_values(rng, shape, dtype)))
    cases.append(plain(torch.arange(50, dtype=torch.int64) * 123456789012))
    cases.append(plain(torch.linspace(-1, 1, 17, dtype=torch.float64)))

    # Non-contiguous views: transposes, steps, offsets, expanded (zero-stride) dims.
    for dtype in DTYPES:
        b = random_values(rng, (4, 6), dtype)
        cases.append(view(b, lambda x: x.t()))
        cases.append(view(b, lambda x: x[1:, ::2]))
    cases.append(view(torch.arange(24.0), lambda x: x.view(2, 3, 4).permute(2, 0, 1)))
    cases.append(view(torch.arange(10, dtype=torch.int32), lambda x: x[3:7]))
    cases.append(view(torch.arange(10.0), lambda x: x[5]))
    cases.append(view(torch.arange(3.0), lambda x: x.expand(4, 3)))
    cases.append(view(torch.arange(3, dtype=torch.int16), lambda x: x.view(3, 1).expand(3, 5)))
    cases.append(view(torch.arange(3000.0), lambda x: x.view(30, 100).t()[:, ::3]))
    cases.append(view(torch.arange(6.0), lambda x: x[2:2]))

    # Meta tensors.
    for shape, dtype in [((5, 3), torch.float32), ((), torch.float32), ((5,), torch.int64),
                         ((0,), torch.float32), ((2, 0), torch.bool), ((2, 3, 4), torch.float64),
                         ((7,), torch.bfloat16), ((1, 1, 1, 1), torch.uint8), ((), torch.int32),
                         ((3000,), torch.float16)]:
        cases.append(meta(shape, dtype))

    # Other print options.
    x = random_values(rng, (3, 5), torch.float32, scale=10.0)
    for opts in [dict(precision=2), dict(precision=0), dict(precision=8), dict(sci_mode=True),
                 dict(sci_mode=False), dict(linewidth=40), dict(linewidth=120),
                 dict(threshold=10), dict(threshold=10, edgeitems=1), dict(edgeitems=2, threshold=5),
                 dict(precision=6, sci_mode=True, linewidth=50)]:
        cases.append(plain(x, **opts))
    cases.append(plain(torch.tensor([1e-6, 1.0]), sci_mode=False))
    cases.append(plain(torch.tensor([1.0, 2.0]), sci_mode=True))
    cases.append(plain(torch.tensor([0.0, 0.0]), sci_mode=True))  # no nonzero value: stays off
    cases.append(plain(torch.arange(20), threshold=5, edgeitems=0))
    cases.append(plain(torch.arange(20.0).reshape(4, 5), threshold=5, edgeitems=1, linewidth=10))
    return cases


CASES = make_cases()


def test_case_count():
    assert len(CASES) >= 300


def test_repr_matches_torch(tmp_path):
    tool = tool_path()
    if not tool.exists():
        pytest.skip(f"{tool} is not built (ninja -C <build> ember_repr; set EMBER_BUILD_DIR)")
    data = tmp_path / "cases.bin"
    data.write_bytes(b"".join(c.encode() for c in CASES))
    proc = subprocess.run([str(tool), str(data)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = proc.stdout.split(DELIMITER + "\n")
    assert got[-1] == ""
    got = [g[:-1] for g in got[:-1]]  # each repr ends with its own newline
    assert len(got) == len(CASES)
    mismatches = []
    for i, (case, g) in enumerate(zip(CASES, got)):
        want = case.expected()
        if g != want:
            mismatches.append(f"case {i} ({case.t.dtype}, {tuple(case.t.shape)}, {case.opts}):\n"
                              f"--- torch\n{want}\n--- ember\n{g}")
    assert not mismatches, f"{len(mismatches)} of {len(CASES)} differ:\n" + "\n\n".join(mismatches[:10])
