"""quantized::add / add_relu / mul / mul_relu / add_scalar / mul_scalar against torch 1.13 on
both engines: every code, the qparams and the layout equal (spec §§ 5, 7.2, 7.4)."""
import zlib

import numpy as np
import pytest
import torch

import ember
from qhelpers import ENGINES, assert_same, engine, pair, raises_same, random_codes, random_pair

BINARY = ["add", "add_relu", "mul", "mul_relu"]


def run_binary(op, a, b, scale, zp):
    return (getattr(torch.ops.quantized, op)(a[0], b[0], scale, zp),
            getattr(ember.ops.quantized, op)(a[1], b[1], scale, zp))


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("channels_last", [False, True])
def test_binary_random_shapes(eng, op, channels_last):
    rng = np.random.default_rng(zlib.crc32(repr((eng, op, channels_last)).encode()))
    with engine(eng):
        for _ in range(12):
            shape = tuple(int(v) for v in rng.integers(1, 9, size=4))
            if rng.random() < 0.3:
                shape = (shape[0], int(rng.integers(1, 80)), shape[2], shape[3])
            a = random_pair(rng, shape, channels_last=channels_last)
            b = random_pair(rng, shape, channels_last=channels_last)
            scale, zp = float(rng.uniform(0.01, 0.2)), int(rng.integers(0, 255))
            t, e = run_binary(op, a, b, scale, zp)
            assert_same(t, e)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_long_rows_and_tails(eng, op):
    # Lengths around PyTorch's vector step (64 codes) and above its parallel grain.
    rng = np.random.default_rng(3)
    with engine(eng):
        for n in [1, 63, 64, 65, 127, 129, 1000, 40000, 70001]:
            a, b = random_pair(rng, (n,)), random_pair(rng, (n,))
            t, e = run_binary(op, a, b, 0.05, 128)
            assert_same(t, e)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("dtype", ["qint8", "qint32"])
@pytest.mark.parametrize("op", BINARY)
def test_binary_signed_dtypes(eng, dtype, op):
    rng = np.random.default_rng(4)
    with engine(eng):
        for n in [5, 64, 300]:
            a = random_pair(rng, (n,), dtype, zero_point=int(rng.integers(-20, 20)))
            b = random_pair(rng, (n,), dtype, zero_point=int(rng.integers(-20, 20)))
            t, e = run_binary(op, a, b, 0.07, 3)
            assert_same(t, e)


@pytest.mark.parametrize("eng", ENGINES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcasting(eng, op):
    # Checklist 82: broadcasting adds take the float formula on both engines.
    rng = np.random.default_rng(5)
    shapes = [((2, 3, 4, 5), (1, 3, 1, 1)), ((2, 3, 4, 5), (5,)), ((2, 1, 4, 1), (2, 3, 4, 5)),
              ((7, 70), (1, 70)), ((3, 1), (1, 100)), ((4, 3, 9, 9), (4, 3, 1, 9))]
    with engine(eng):
        for sa, sb in shapes:
            for cl in [False, True]:
                a = random_pair(rng, sa, channels_last=cl and len(sa) == 4)
                b = random_pair(rng, sb)
                t, e = run_binary(op, a, b, 0.06, 120)
                assert_same(t, e)


def test_qnnpack_add_fixed_point_spec_example():
    # Checklist 53 / 54: s 0.031 / 0.047 -> 0.061, z 120 / 131 -> 125; qnnpack's fixed point and
    # onednn's float formula differ on some elements, each bit-exact with torch.
    rng = np.random.default_rng(6)
    qa, qb = random_codes(rng, (4096,)), random_codes(rng, (4096,))
    a, b = pair(qa, 0.031, 120), pair(qb, 0.047, 131)
    results = {}
    for eng in ENGINES:
        with engine(eng):
            t, e = run_binary("add", a, b, 0.061, 125)
            assert_same(t, e)
            results[eng] = e.int_repr().numpy()
    # The fixed-point formula by hand (spec § 7.2).
    ra = np.float32(np.float32(0.031) / np.float32(0.061))
    rb = np.float32(np.float32(0.047) / np.float32(0.061))
    shift = 21 - int(np.floor(np.log2(max(ra, rb))))
    A, B = int(np.rint(ra * 2.0**shift)), int(np.rint(rb * 2.0**shift))
    acc = A * qa.astype(np.int64) + B * qb.astype(np.int64) - (A * 120 + B * 131)
    mask = (1 << shift) - 1
    rem = (acc & mask) - (acc < 0)
    q = (acc >> shift) + (rem > (mask >> 1))
    np.testing.assert_array_equal(results["qnnpack"], np.clip(q + 125, 0, 255))


def test_add_relu_codes_at_least_zero_point():
    # Checklist 56.
    rng = np.random.default_rng(7)
    for eng in ENGINES:
        with engine(eng):
            a, b = random_pair(rng, (500,)), random_pair(rng, (500,))
            e = ember.ops.quantized.add_relu(a[1], b[1], 0.05, 77)
            assert e.int_repr().numpy().min() >= 77


def test_binary_saturation_and_empty():
    for eng in ENGINES:
        with engine(eng):
            a = pair(np.array([0, 255, 255, 0, 128], np.uint8), 0.5, 0)
            b = pair(np.array([0, 255, 0, 255, 128], np.uint8), 0.5, 0)
            for op in BINARY:
                t, e = run_binary(op, a, b, 0.25, 10)
                assert_same(t, e)
                assert set(e.int_repr().numpy().tolist()) & {0, 255} or op.startswith("mul")
            empty = pair(np.zeros((0, 3), np.uint8), 0.1, 3)
            for op in BINARY:
                t, e = run_binary(op, empty, empty, 0.1, 3)
                assert_same(t, e)


def test_qnnpack_add_errors():
    with engine("qnnpack"):
        x = pair(np.arange(4, dtype=np.uint8), 0.1, 10)
        # Checklist 55: the scale ratio 0.1 / 1e-4 is out of QNNPACK's range.
        raises_same(lambda: torch.ops.quantized.add(x[0], x[0], 1e-4, 0),
                    lambda: ember.ops.quantized.add(x[1], x[1], 1e-4, 0))
        raises_same(lambda: torch.ops.quantized.add_relu(x[0], x[0], 0.1, 255),
                    lambda: ember.ops.quantized.add_relu(x[1], x[1], 0.1, 255))
        s = pair(np.array(7, np.uint8), 0.1, 3)
        raises_same(lambda: torch.ops.quantized.add(s[0], s[0], 0.1, 3),
                    lambda: ember.ops.quantized.add(s[1], s[1], 0.1, 3))
    with engine("onednn"):
        s = pair(np.array(7, np.uint8), 0.1, 3)
        t, e = run_binary("add", s, s, 0.1, 3)
        assert_same(t, e)


def test_binary_input_errors():
    rng = np.random.default_rng(8)
    a = random_pair(rng, (2, 3))
    b = random_pair(rng, (2, 4))
    c = pair(random_codes(rng, (2, 3), "qint8"), 0.1, 0)
    for eng in ENGINES:
        with engine(eng):
            for op in BINARY:
                f_t, f_e = getattr(torch.ops.quantized, op), getattr(ember.ops.quantized, op)
                raises_same(lambda: f_t(a[0], b[0], 0.1, 0), lambda: f_e(a[1], b[1], 0.1, 0))
                raises_same(lambda: f_t(a[0], c[0], 0.1, 0), lambda: f_e(a[1], c[1], 0.1, 0))
                x = torch.randn(2, 3)
                raises_same(lambda: f_t(x, x, 0.1, 0),
                            lambda: f_e(ember.from_numpy(x.numpy()), ember.from_numpy(x.numpy()), 0.1, 0))


# ---- scalar forms ----
def test_add_scalar_mul_scalar_spec_examples():
    # Checklist 60: add_scalar(x[s=0.02, z=10], -0.3) -> (0.02, 25) codes unchanged;
    # add_scalar(x, 0.5) -> (0.02*270/255, 0); mul_scalar(x, -1) -> (0.02, 245).
    rng = np.random.default_rng(9)
    x = pair(random_codes(rng, (300,)), 0.02, 10)
    e = ember.ops.quantized.add_scalar(x[1], -0.3)
    assert (e.q_scale(), e.q_zero_point()) == (0.02, 25)
    np.testing.assert_array_equal(e.int_repr().numpy(), x[1].int_repr().numpy())
    e = ember.ops.quantized.add_scalar(x[1], 0.5)
    assert e.q_zero_point() == 0 and e.q_scale() == 270 / 255 * 0.02
    e = ember.ops.quantized.mul_scalar(x[1], -1.0)
    assert (e.q_scale(), e.q_zero_point()) == (0.02, 245)
    np.testing.assert_array_equal(e.int_repr().numpy(), 255 - x[1].int_repr().numpy())


@pytest.mark.parametrize("op", ["add_scalar", "add_scalar_relu", "mul_scalar", "mul_scalar_relu"])
@pytest.mark.parametrize("dtype", ["quint8", "qint8"])
def test_scalar_ops_vs_torch(op, dtype):
    rng = np.random.default_rng(10)
    for eng in ENGINES:
        with engine(eng):
            for c in [-3.0, -0.3, -0.01, 0.0, 0.004, 0.5, 1.0, 2.5, 7, -2]:
                for cl in [False, True]:
                    z = int(rng.integers(0, 256)) if dtype == "quint8" else int(rng.integers(-128, 128))
                    x = random_pair(rng, (2, 5, 3, 70), dtype, channels_last=cl, zero_point=z)
                    t = getattr(torch.ops.quantized, op)(x[0], c)
                    e = getattr(ember.ops.quantized, op)(x[1], c)
                    assert_same(t, e)


def test_ops_are_dispatcher_ops():
    # quantized::add goes through the op table: a dispatch mode sees it.
    seen = []

    from ember.utils._python_dispatch import TorchDispatchMode

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = pair(np.arange(6, dtype=np.uint8), 0.1, 3)[1]
    with Mode():
        ember.ops.quantized.add(x, x, 0.2, 1)
        ember.ops.quantized.mul_scalar(x, 2.0)
    assert seen == ["quantized.add.default", "quantized.mul_scalar.default"]


def test_meta_inputs_give_shapes_and_qparams():
    # Meta quantized tensors: the ops allocate (shape, qparams, layout) and compute nothing.
    import ember.nn.functional as EF

    x = ember._empty_affine_quantized([2, 3, 8, 8], dtype=ember.quint8, scale=0.1, zero_point=3,
                                      device="meta")
    for eng in ENGINES:
        with engine(eng):
            outs = [ember.ops.quantized.add(x, x, 0.2, 5), ember.ops.quantized.mul_scalar(x, -2.0),
                    ember.ops.quantized.add_scalar(x, 0.5), ember.relu(x), ember.sigmoid(x),
                    ember.ops.quantized.hardswish(x, 0.05, 7), EF.max_pool2d(x, 2),
                    EF.avg_pool2d(x, 2), EF.adaptive_avg_pool2d(x, 1), ember.ops.quantized.relu6(x),
                    EF.interpolate(x, scale_factor=2, mode="nearest")]
            for y in outs:
                assert y.device.type == "meta" and y.is_quantized
            assert tuple(outs[0].shape) == (2, 3, 8, 8) and outs[0].q_scale() == 0.2
            assert tuple(outs[6].shape) == (2, 3, 4, 4)
            assert outs[1].q_zero_point() == 252
