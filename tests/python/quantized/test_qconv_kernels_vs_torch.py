"""The raw int8 conv / linear kernels (src/backends/cpu/quantized) against torch 1.13's
quantized::conv2d / conv2d_relu / linear / linear_relu / linear_dynamic on both engines.

torch computes each case; tests/tools/qconv_case_runner runs ember's kernels on the same codes
through three paths (default: oneDNN accumulators on this CPU; the portable exact kernel; the
scalar reference). qnnpack: every element equal on every path. onednn: the three paths equal
each other, and within 1 LSB of torch on >= 99.9 % of the outputs of each op.
"""
import pathlib
import subprocess

import numpy as np
import pytest
import torch

# (C, O, groups, KH, KW, stride, pad, dilation, N, H, W)
CONV_CASES = [
    (3, 32, 1, 3, 3, (2, 2), (1, 1), (1, 1), 1, 23, 23),     # MobileNetV2 features.0, odd size
    (32, 32, 32, 3, 3, (1, 1), (1, 1), (1, 1), 1, 14, 14),   # depthwise
    (96, 96, 96, 3, 3, (2, 2), (1, 1), (1, 1), 2, 15, 13),   # depthwise stride 2, batch 2
    (17, 17, 17, 3, 3, (1, 1), (1, 1), (1, 1), 1, 9, 7),     # depthwise, odd channels
    (32, 192, 1, 1, 1, (1, 1), (0, 0), (1, 1), 1, 8, 8),     # 1x1 expansion
    (144, 24, 1, 1, 1, (1, 1), (0, 0), (1, 1), 1, 7, 9),     # 1x1 projection
    (8, 12, 2, 3, 3, (1, 1), (0, 0), (1, 1), 1, 8, 8),       # groups
    (6, 9, 3, 3, 2, (2, 1), (2, 1), (2, 1), 1, 10, 9),       # groups, dilation
    (5, 7, 1, 5, 3, (3, 2), (2, 0), (1, 2), 2, 11, 13),      # odd everything
    (16, 16, 1, 3, 3, (1, 1), (1, 1), (1, 1), 0, 6, 6),      # empty batch
    (16, 96, 1, 1, 1, (1, 1), (0, 0), (1, 1), 1, 41, 43),    # 1x1 run in blocks of pixels
]
# (M, K, O)
LINEAR_CASES = [(1, 1280, 1000), (3, 64, 10), (7, 33, 17), (16, 128, 64), (0, 8, 4)]


@pytest.fixture(scope="module")
def runner(ember_tool):
    return ember_tool("qconv_case_runner")


class Cases:
    """Writes cases for the runner and remembers torch's expected output for each."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        self.lines = []
        self.expected = {}  # prefix -> (engine, kind, torch output)

    def weights(self, prefix, rng, o, shape, per_channel, nonzero_zp, with_bias):
        codes = rng.integers(-128, 128, size=shape, dtype=np.int8)
        if per_channel:
            scales = rng.uniform(0.002, 0.02, size=o)
            zps = rng.integers(-20, 21, size=o) if nonzero_zp else np.zeros(o, np.int64)
            qw = torch._make_per_channel_quantized_tensor(
                torch.from_numpy(codes), torch.from_numpy(scales), torch.from_numpy(zps.astype(np.int64)), 0)
        else:
            scales = np.array([rng.uniform(0.002, 0.02)])
            zps = np.array([rng.integers(-20, 21) if nonzero_zp else 0], np.int64)
            qw = torch._make_per_tensor_quantized_tensor(torch.from_numpy(codes), float(scales[0]), int(zps[0]))
        bias = rng.uniform(-3, 3, size=o).astype(np.float32) if with_bias else None
        codes.tofile(self.root / f"{prefix}.w")
        scales.astype(np.float64).tofile(self.root / f"{prefix}.ws")
        zps.astype(np.int64).tofile(self.root / f"{prefix}.wz")
        if bias is not None:
            bias.tofile(self.root / f"{prefix}.b")
        return qw, (torch.from_numpy(bias) if bias is not None else None), len(scales)

    def run(self, runner):
        (self.root / "cases.txt").write_text("\n".join(self.lines) + "\n")
        done = subprocess.run([str(runner), str(self.root)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr


def add_conv_cases(cases, rng, engine):
    torch.backends.quantized.engine = engine
    for ci, (c, o, g, kh, kw, stride, pad, dil, n, h, w) in enumerate(CONV_CASES):
        for variant in range(4):
            per_channel, with_bias = bool(variant & 1), bool(variant & 2)
            nonzero_zp = engine == "qnnpack" and variant >= 2
            for relu in (False, True):
                prefix = f"{engine}_conv{ci}_{variant}_{int(relu)}"
                qw, bias, nw = cases.weights(prefix, rng, o, (o, c // g, kh, kw), per_channel, nonzero_zp, with_bias)
                xs, zx = float(rng.uniform(0.005, 0.05)), int(rng.integers(0, 256))
                ys, zy = float(rng.uniform(0.02, 0.3)), int(rng.integers(0, 256))
                x = rng.integers(0, 256, size=(n, c, h, w), dtype=np.uint8)
                np.ascontiguousarray(x.transpose(0, 2, 3, 1)).tofile(cases.root / f"{prefix}.x")
                qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), xs, zx)
                packed = torch.ops.quantized.conv2d_prepack(qw, bias, list(stride), list(pad), list(dil), g)
                op = torch.ops.quantized.conv2d_relu if relu else torch.ops.quantized.conv2d
                y = op(qx, packed, ys, zy).int_repr().permute(0, 2, 3, 1).contiguous().numpy()
                cases.expected[prefix] = (engine, "conv", y.reshape(-1))
                cases.lines.append(
                    f"conv {engine} {c} {o} {g} {kh} {kw} {stride[0]} {stride[1]} {pad[0]} {pad[1]} "
                    f"{dil[0]} {dil[1]} {n} {h} {w} {nw} {xs!r} {zx} {ys!r} {zy} {int(relu)} {int(with_bias)} {prefix}")


def add_linear_cases(cases, rng, engine):
    torch.backends.quantized.engine = engine
    for li, (m, k, o) in enumerate(LINEAR_CASES):
        for variant in range(4):
            per_channel, with_bias = bool(variant & 1), bool(variant & 2)
            nonzero_zp = engine == "qnnpack" and variant >= 2
            for relu in (False, True):
                prefix = f"{engine}_lin{li}_{variant}_{int(relu)}"
                qw, bias, nw = cases.weights(prefix, rng, o, (o, k), per_channel, nonzero_zp, with_bias)
                packed = torch.ops.quantized.linear_prepack(qw, bias)
                xs, zx = float(rng.uniform(0.005, 0.05)), int(rng.integers(0, 256))
                ys, zy = float(rng.uniform(0.05, 0.5)), int(rng.integers(0, 256))
                x = rng.integers(0, 256, size=(m, k), dtype=np.uint8)
                x.tofile(cases.root / f"{prefix}.x")
                qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), xs, zx)
                op = torch.ops.quantized.linear_relu if relu else torch.ops.quantized.linear
                y = op(qx, packed, ys, zy).int_repr().numpy()
                cases.expected[prefix] = (engine, "linear", y.reshape(-1))
                cases.lines.append(f"linear {engine} {k} {o} {m} {nw} {xs!r} {zx} {ys!r} {zy} "
                                   f"{int(relu)} {int(with_bias)} {prefix}")
                # dynamic: a float input (shifted so the zero point is not trivial)
                if m == 0:
                    continue
                for reduce in (False, True):
                    dprefix = f"{prefix}_dyn{int(reduce)}"
                    for ext in ("w", "ws", "wz", "b"):
                        src = cases.root / f"{prefix}.{ext}"
                        if src.exists():
                            (cases.root / f"{dprefix}.{ext}").write_bytes(src.read_bytes())
                    fx = rng.uniform(-1.5, 2.5, size=(m, k)).astype(np.float32)
                    fx.tofile(cases.root / f"{dprefix}.x")
                    dop = torch.ops.quantized.linear_relu_dynamic if relu else torch.ops.quantized.linear_dynamic
                    # A fresh pack: torch 1.13's onednn dynamic linear returns garbage from a
                    # pack that already ran the static linear.
                    fresh = torch.ops.quantized.linear_prepack(qw, bias)
                    fy = dop(torch.from_numpy(fx), fresh, reduce).numpy()
                    cases.expected[dprefix] = (engine, "dynamic", fy.reshape(-1))
                    cases.lines.append(f"dynamic {engine} {k} {o} {m} {nw} {int(reduce)} {int(relu)} "
                                       f"{int(with_bias)} {dprefix}")


@pytest.fixture(scope="module")
def results(runner, tmp_path_factory):
    saved = torch.backends.quantized.engine
    rng = np.random.default_rng(20261126)
    cases = Cases(tmp_path_factory.mktemp("qconv_cases"))
    try:
        for engine in ("qnnpack", "onednn"):
            add_conv_cases(cases, rng, engine)
            add_linear_cases(cases, rng, engine)
    finally:
        torch.backends.quantized.engine = saved
    cases.run(runner)
    out = {}
    for prefix, (engine, kind, want) in cases.expected.items():
        dtype = np.float32 if kind == "dynamic" else np.uint8
        got = {p: np.fromfile(cases.root / f"{prefix}.{p}", dtype=dtype) for p in ("fast", "portable", "ref")}
        out[prefix] = (engine, kind, want, got)
    return out


def select(results, engine, kind):
    picked = {k: v for k, v in results.items() if v[0] == engine and v[1] == kind}
    assert picked, (engine, kind)
    return picked


@pytest.mark.parametrize("kind", ["conv", "linear"])
def test_qnnpack_bit_exact(results, kind):
    saturated = 0
    for prefix, (_, _, want, got) in select(results, "qnnpack", kind).items():
        for path in ("fast", "portable", "ref"):
            np.testing.assert_array_equal(got[path], want, err_msg=f"{prefix} ({path})")
        saturated += int(np.sum(want == 0) + np.sum(want == 255))
    assert saturated > 50  # the saturating ends were exercised


@pytest.mark.parametrize("kind", ["conv", "linear"])
def test_onednn_within_one_lsb(results, kind):
    total = within = equal = 0
    for prefix, (_, _, want, got) in select(results, "onednn", kind).items():
        np.testing.assert_array_equal(got["fast"], got["ref"], err_msg=prefix)
        np.testing.assert_array_equal(got["portable"], got["ref"], err_msg=prefix)
        d = np.abs(got["fast"].astype(np.int32) - want.astype(np.int32))
        total += d.size
        within += int(np.sum(d <= 1))
        equal += int(np.sum(d == 0))
    print(f"onednn {kind}: {equal}/{total} equal to torch, {within}/{total} within 1 LSB")
    assert total > 1000
    assert within >= 0.999 * total


def test_dynamic_qnnpack_bit_exact(results):
    for prefix, (_, _, want, got) in select(results, "qnnpack", "dynamic").items():
        for path in ("fast", "portable", "ref"):
            np.testing.assert_array_equal(got[path].view(np.int32), want.view(np.int32), err_msg=f"{prefix} ({path})")


def test_dynamic_onednn_close(results):
    worst = 0.0
    for prefix, (_, _, want, got) in select(results, "onednn", "dynamic").items():
        np.testing.assert_array_equal(got["fast"], got["ref"], err_msg=prefix)
        np.testing.assert_array_equal(got["portable"], got["ref"], err_msg=prefix)
        scale = max(1e-6, float(np.max(np.abs(want))))
        worst = max(worst, float(np.max(np.abs(got["fast"] - want), initial=0.0)) / scale)
    print(f"onednn dynamic linear: worst |ember - torch| / max|torch| = {worst:.3g}")
    assert worst < 1e-5
