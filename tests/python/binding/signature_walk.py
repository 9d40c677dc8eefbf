"""The data of test_signatures.py: every overload of every bound op name as torch 1.13's type stubs
list it, and the small inputs each parameter gets.

A stub overload becomes calls (required arguments only; every argument; every argument by
keyword; with out=) made on both sides with the same values. Values come from the parameter's
name (PARAMS), overridden per op (OPS); a tensor spec is built twice from one numpy array.
"""
import ast
import pathlib

import numpy as np
import torch

STUBS = pathlib.Path(torch.__file__).parent / "_C"

# Overloads ember deliberately does not bind, each with the reason: predicates over
# (kind, name, parameters), kind "function" or "method".
UNSUPPORTED = [
    # Named tensors (a dim given as a str, names=): ember has no dimension names.
    ("named tensors", lambda kind, name, params: any("str, ellipsis" in p.ann for p in params)
     or any(p.name == "names" for p in params)),
    # scatter(reduce="add" | "multiply"), deprecated by PyTorch for scatter_reduce: ember has no
    # multiplicative scatter kernel.
    ("scatter with reduce=", lambda kind, name, params: name.startswith("scatter")
     and any(p.name == "reduce" for p in params)),
    # torch._softmax_backward_data names its out= argument grad_input=; ember's out= binding
    # (Note [out= arguments]) knows only `out`.
    ("out= named grad_input", lambda kind, name, params: any(p.name == "grad_input" for p in params)),
    # view(dtype) reinterprets the bytes as another dtype: ember's views keep their dtype.
    ("view(dtype)", lambda kind, name, params: name == "view" and params
     and params[0].ann == "_dtype"),
]

# Where torch 1.13 itself misbehaves on the stub's signature: (kind, name, form) -> reason.
TORCH_QUIRKS = {
    ("function", "cosine_embedding_loss", "required"):
        "torch 1.13's binding reads the stub's legacy size_average / reduce as the int reduction "
        "(none); ember's default is the schema's mean",
    **{("function", n, "out"): "ember's " + n + " is a Composite row of ops.def with no out= overload"
       for n in ("hardshrink", "threshold")},
    ("function", "native_batch_norm", "out"):
        "torch 1.13 has no CPU kernel for native_batch_norm.out",
    # namesb: torch 1.13 runs these on CUDA (the batch norm steps) or sparse tensors (native_norm)
    # only; ember computes them on the CPU with the same formulas (test_namesb_functional.py)
    **{("function", n, form): "torch 1.13 has no CPU (dense) kernel for " + n + "; ember computes it"
       for n in ("batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
                 "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
                 "batch_norm_backward_elemt", "native_norm")
       for form in ("required", "every", "keywords")},
    **{("function", n, "out"): "ember's " + n + " row of ops.def has no out= overload"
       for n in ("geqrf", "igamma", "igammac", "ormqr")},
    # names8: Debian's torch 1.13 is built without FBGEMM and refuses these; ember computes them
    # (tests/python/ops/test_names8_qparams_fbgemm.py checks them against their definition)
    **{("function", n, form): "torch 1.13 here is built without FBGEMM; ember computes " + n
       for n in ("fbgemm_linear_quantize_weight", "fbgemm_pack_quantized_matrix", "fbgemm_linear_int8_weight",
                 "fbgemm_linear_int8_weight_fp32_activation", "fbgemm_pack_gemm_matrix_fp16",
                 "fbgemm_linear_fp16_weight", "fbgemm_linear_fp16_weight_fp32_activation", "quantized_lstm_cell",
                 "quantized_gru_cell", "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell")
       for form in ("required", "every", "keywords")},
    ("method", "copy_", "keywords"):
        "torch 1.13's Tensor.copy_ binding calls its argument 'other' (the stub says 'src')",
    ("function", "slice_scatter", "required"):
        "torch 1.13's binding reads the defaulted SymInt? start / end as garbage ints",
    ("method", "slice_scatter", "required"):
        "torch 1.13's binding reads the defaulted SymInt? start / end as garbage ints",
    **{("function", "unique_dim", form): "torch 1.13 binds unique_dim only inside torch.unique(dim=)"
       for form in ("required", "every", "keywords")},
    ("method", "repeat", "keywords"):
        "torch 1.13's binding refuses repeats=<int> by keyword (a SymInt[] takes no single int there)",
    # A 4-tuple names one overload by its stub text (the other overloads of the name still run).
    ("function", "normal", "out",
     "mean: Tensor, std: _float=1, *, generator: Optional[Generator]=None, out: Optional[Tensor]=None"):
        "torch 1.13's normal.Tensor_float_out does not resize an empty out= (it keeps size [0])",
}


class Param:
    def __init__(self, name, ann, kind, has_default):
        self.name, self.ann, self.kind, self.has_default = name, ann, kind, has_default

    def __repr__(self):
        return f"{self.name}: {self.ann}{'=…' if self.has_default else ''}"


def _params(args: ast.arguments, method: bool):
    pos = args.posonlyargs + args.args
    if method:
        pos = pos[1:]  # self
    first_default = len(pos) - len(args.defaults)
    out = [Param(a.arg, ast.unparse(a.annotation) if a.annotation else "", "pos", i >= first_default)
           for i, a in enumerate(pos)]
    if args.vararg:
        out.append(Param(args.vararg.arg, ast.unparse(args.vararg.annotation), "varargs", False))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(Param(a.arg, ast.unparse(a.annotation) if a.annotation else "", "kwonly", d is not None))
    return out


def stub_overloads(names_functions, names_methods):
    """[(kind, name, params, stub text)] for the names given, in stub order."""
    result = []
    tree = ast.parse((STUBS / "_VariableFunctions.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names_functions:
            result.append(("function", node.name, _params(node.args, False), ast.unparse(node.args)))
    tree = ast.parse((STUBS / "__init__.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_TensorBase")
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name in names_methods:
            result.append(("method", node.name, _params(node.args, True), ast.unparse(node.args)))
    return result


# ---- values ----
class T:
    """A tensor spec: shape, dtype and a value kind, built identically for torch and ember."""

    def __init__(self, *shape, dtype="float32", kind="randn", high=3):
        self.shape, self.dtype, self.kind, self.high = shape, dtype, kind, high

    def array(self, rng):
        if self.kind == "int":
            return rng.integers(0, self.high, size=self.shape).astype(self.dtype)
        if self.kind == "bool":
            return rng.integers(0, 2, size=self.shape).astype(bool)
        if self.kind == "prob":
            return rng.random(self.shape).astype(self.dtype)
        if self.kind == "ones":
            return np.ones(self.shape, dtype=self.dtype)
        return rng.standard_normal(self.shape).astype(self.dtype)


class Dtype:
    def __init__(self, name):
        self.name = name


def I(*shape, high=3):  # noqa: E743  an int64 index tensor
    return T(*shape, dtype="int64", kind="int", high=high)


def B(*shape):
    return T(*shape, kind="bool")


# By parameter name: (tensor spec, number, int, int list); the annotation picks one.
PARAMS = {
    "input": T(3, 4), "self": T(3, 4), "other": T(3, 4), "src": T(3, 4), "values": T(2, 4),
    "tensor1": T(3, 4), "tensor2": T(3, 4), "mask": B(3, 4), "condition": B(3, 4),
    "index": I(3, 4), "exponent": T(3, 4), "min": -0.5, "max": 0.5, "alpha": 2, "beta": 0.5,
    "value": 0.5, "fill_value": 2, "dim": 1, "dim0": 0, "dim1": 1, "keepdim": True,
    "descending": True, "stable": True, "largest": False, "sorted": True, "unbiased": False,
    "correction": 0, "k": 2, "p": 0.5, "train": False, "size": [2, 3], "shape": [4, 3],
    "dims": [1, 0], "split_size": 2, "split_sizes": [1, 3], "chunks": 2, "start_dim": 0,
    "end_dim": 1, "start": 0, "end": 5, "step": 1, "steps": 5, "length": 2, "n": 3, "m": 2,
    "low": 0, "high": 5, "dtype": Dtype("float64"), "accumulate": True, "non_blocking": False,
    "copy": True, "rounding_mode": "floor", "approximate": "tanh", "half_to_float": False,
    "tensors": [T(3, 4), T(3, 4)], "indices": [I(2, high=3)], "stride": [1, 2],
    "storage_offset": 1, "sizes": [2, 2], "pad": [1, 1], "mode": "constant", "from": 0, "to": 5,
    "mean": 0.0, "std": 1.0, "generator": None, "memory_format": "contiguous_format",
    "device": "cpu", "layout": "strided", "pin_memory": False, "requires_grad": False,
    "implicit": False, "sparse_grad": False, "reduce": "add",
}


def literal(ann):
    """The value a Literal[...] annotation allows (nonzero's as_tuple)."""
    return {"Literal[True]": True, "Literal[False]": False}.get(ann)

# Per op name: parameter values that differ from PARAMS.
OPS = {
    "mm": {"mat2": T(4, 2)}, "matmul": {"other": T(4, 2)},
    "bmm": {"input": T(2, 3, 4), "self": T(2, 3, 4), "mat2": T(2, 4, 2)},
    "addmm": {"input": T(3, 2), "self": T(3, 2), "mat1": T(3, 4), "mat2": T(4, 2)},
    "index_select": {"index": I(2)},
    "embedding": {"weight": T(5, 3), "indices": I(2, 3, high=5), "padding_idx": 1},
    "bitwise_and": {"input": I(3, 4, high=8), "self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_or": {"input": I(3, 4, high=8), "self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_xor": {"input": I(3, 4, high=8), "self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_not": {"input": I(3, 4, high=8), "self": I(3, 4, high=8)},
    "bitwise_and_": {"self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_or_": {"self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_xor_": {"self": I(3, 4, high=8), "other": I(3, 4, high=8)},
    "bitwise_not_": {"self": I(3, 4, high=8)},
    "conv1d": {"input": T(1, 2, 5), "weight": T(3, 2, 3), "bias": T(3), "padding": 1},
    "conv2d": {"input": T(1, 2, 5, 5), "weight": T(3, 2, 3, 3), "bias": T(3), "padding": 1},
    "conv_transpose2d": {"input": T(1, 2, 4, 4), "weight": T(2, 3, 3, 3), "bias": T(3)},
    "convolution": {"input": T(1, 2, 5, 5), "weight": T(3, 2, 3, 3), "bias": T(3),
                    "stride": [1, 1], "padding": [0, 0], "dilation": [1, 1],
                    "transposed": False, "output_padding": [0, 0], "groups": 1},
    "batch_norm": {"input": T(2, 3, 4), "weight": T(3), "bias": T(3), "running_mean": T(3),
                   "running_var": T(3, kind="ones"), "training": False, "momentum": 0.1,
                   "eps": 1e-5, "cudnn_enabled": False},
    "native_batch_norm": {"input": T(2, 3, 4), "weight": T(3), "bias": T(3),
                          "running_mean": T(3), "running_var": T(3, kind="ones"),
                          "training": False, "momentum": 0.1, "eps": 1e-5},
    "group_norm": {"input": T(2, 4, 3), "num_groups": 2, "weight": T(4), "bias": T(4)},
    "native_group_norm": {"input": T(2, 4, 3), "weight": T(4), "bias": T(4), "N": 2, "C": 4,
                          "HxW": 3, "group": 2, "eps": 1e-5},
    "layer_norm": {"normalized_shape": [4], "weight": T(4), "bias": T(4)},
    "bilinear": {"input1": T(2, 3), "input2": T(2, 4), "weight": T(5, 3, 4), "bias": T(5)},
    "_adaptive_avg_pool2d": {"input": T(1, 2, 4, 4), "output_size": [2, 2]},
    "max_pool2d": {"input": T(1, 2, 4, 4), "kernel_size": 2},
    "as_strided": {"size": [2, 2], "stride": [1, 2]},
    "empty_strided": {"size": [2, 3], "stride": [3, 1]},
    "view": {"size": [4, 3], "dtype": Dtype("int32")}, "reshape": {"shape": [4, 3]},
    "expand": {"input": T(3, 1), "self": T(3, 1), "size": [3, 4]},
    "expand_as": {"input": T(3, 1), "self": T(3, 1)},
    "squeeze": {"input": T(3, 1, 4), "self": T(3, 1, 4)},
    "unsqueeze": {"dim": 1}, "select": {"index": 1}, "narrow": {"start": 1},
    "unflatten": {"sizes": [2, 2]}, "split": {"split_size": [1, 3]},
    "index_put_": {"values": T(2, 4)},
    "scatter": {"reduce": "add"}, "scatter_": {"reduce": "add"},
    "masked_fill": {"value": 0.5}, "masked_fill_": {"value": 0.5},
    "bernoulli": {"input": T(3, 4, kind="prob"), "self": T(3, 4, kind="prob")},
    "bernoulli_": {"p": 0.5},
    "pow": {"exponent": 2}, "pow_": {"exponent": 2},
    "fill_": {"value": 2},
    "random_": {"from": 0, "to": 5},
    "linspace": {"steps": 5, "end": 1},
    "randint": {"size": [2, 3]},
    "topk": {"k": 2}, "kthvalue": {"k": 2},
    "t": {"input": T(3, 4)},
    "transpose": {"dim0": 0, "dim1": 1},
    "dropout": {"train": False},
    "native_dropout": {"train": False},
    "log_softmax": {"dtype": Dtype("float64")}, "softmax": {"dtype": Dtype("float64")},
    "std": {"dim": [0, 1]}, "var": {"dim": [1]},
    "amax": {"dim": [1]}, "amin": {"dim": [1]},
    "sum": {"dim": [0, 1]}, "mean": {"dim": [1]},
    "uniform_": {"from": -1.0, "to": 1.0},
    "to": {"other": T(2, dtype="float64"), "dtype": Dtype("float64")},
    "full": {"size": [2, 3]},
    "eye": {"n": 3, "m": 2},
    "index": {},
    "_softmax_backward_data": {"grad_output": T(3, 4), "output": T(3, 4), "dim": 1,
                               "input_dtype": Dtype("float32")},
    "_log_softmax_backward_data": {"grad_output": T(3, 4), "output": T(3, 4), "dim": 1,
                                   "input_dtype": Dtype("float32")},
    "embedding_dense_backward": {"grad_output": T(2, 3), "indices": I(2, high=4), "num_weights": 4,
                                 "padding_idx": -1, "scale_grad_by_freq": False},
    "_reshape_alias": {"size": [4, 3], "stride": [3, 1]},
    "movedim": {"source": [0], "destination": [1]}, "moveaxis": {"source": [0], "destination": [1]},
}

# The nn ops of issue 16 (tests/python/core/ops_table_nn.py has their value tests).
OPS.update({
    "cosine_embedding_loss": {"input1": T(3, 4), "input2": T(3, 4), "target": T(3, kind="ones"), "margin": 0.1},
    "hinge_embedding_loss": {"margin": 1.0},
    "margin_ranking_loss": {"input1": T(4), "input2": T(4), "target": T(4, kind="ones"), "margin": 0.1},
    "triplet_margin_loss": {"anchor": T(3, 4), "positive": T(3, 4), "negative": T(3, 4), "margin": 1.0,
                            "eps": 1e-6, "p": 2.0},
    "native_layer_norm": {"normalized_shape": [4], "weight": T(4), "bias": T(4), "eps": 1e-5},
})

# nnutils: CTC loss (log-probabilities of (T=5, N=2, C=4), targets padded to 3), weight norm and
# the Householder product (tests/python/nnutils has their value tests).
OPS.update({
    "_ctc_loss": {"log_probs": T(5, 2, 4), "targets": I(2, 3, high=4), "input_lengths": [5, 4],
                  "target_lengths": [3, 2], "blank": 0, "zero_infinity": False},
    "ctc_loss": {"log_probs": T(5, 2, 4), "targets": I(2, 3, high=4), "input_lengths": [5, 4],
                 "target_lengths": [3, 2], "blank": 0, "reduction": 1, "zero_infinity": False},
    "_weight_norm": {"v": T(3, 4), "g": T(3, 1), "dim": 0},
    "norm_except_dim": {"v": T(3, 4)},
    "orgqr": {"input": T(4, 3), "self": T(4, 3), "input2": T(2)},
    "linalg_householder_product": {"input": T(4, 3), "tau": T(2)},
    "householder_product": {"input": T(4, 3), "tau": T(2)},
    "dot": {"input": T(3), "self": T(3), "other": T(3), "tensor": T(3)},
    "vdot": {"input": T(3), "self": T(3), "other": T(3)},
    "mv": {"input": T(3, 4), "self": T(3, 4), "vec": T(4)},
    "inner": {"other": T(2, 4)},
})

# namesb: incomplete gamma functions, LDL / Householder pieces, the functional forms.
OPS.update({
    "igamma": {"input": T(3, 4, kind="prob"), "self": T(3, 4, kind="prob"), "other": T(3, 4, kind="prob")},
    "igammac": {"input": T(3, 4, kind="prob"), "self": T(3, 4, kind="prob"), "other": T(3, 4, kind="prob")},
    "ormqr": {"input": T(4, 3), "self": T(4, 3), "input2": T(3), "input3": T(4, 2)},
    "conv_tbc": {"input": T(5, 2, 3), "self": T(5, 2, 3), "weight": T(2, 3, 4), "bias": T(4), "pad": 1},
    "native_channel_shuffle": {"input": T(2, 4, 3), "self": T(2, 4, 3), "groups": 2},
    "batch_norm_stats": {"input": T(4, 3), "eps": 1e-5},
    "batch_norm_update_stats": {"input": T(4, 3), "running_mean": None, "running_var": None, "momentum": 0.1},
    "batch_norm_elemt": {"input": T(4, 3), "weight": T(3), "bias": T(3), "mean": T(3), "invstd": T(3, kind="ones"),
                         "eps": 1e-5},
    "batch_norm_gather_stats": {"input": T(4, 3), "mean": T(2, 3), "invstd": T(2, 3, kind="ones"),
                                "running_mean": None, "running_var": None, "momentum": 0.1, "eps": 1e-5,
                                "count": 4},
    "batch_norm_gather_stats_with_counts": {"input": T(4, 3), "mean": T(2, 3), "invstd": T(2, 3, kind="ones"),
                                            "running_mean": None, "running_var": None, "momentum": 0.1,
                                            "eps": 1e-5, "counts": T(2, kind="ones")},
    "batch_norm_backward_reduce": {"grad_out": T(4, 3), "input": T(4, 3), "mean": T(3), "invstd": T(3, kind="ones"),
                                   "weight": T(3), "input_g": True, "weight_g": True, "bias_g": True},
    "batch_norm_backward_elemt": {"grad_out": T(4, 3), "input": T(4, 3), "mean": T(3), "invstd": T(3, kind="ones"),
                                  "weight": T(3), "mean_dy": T(3), "mean_dy_xmu": T(3), "count": I(2, high=3)},
    "_rowwise_prune": {"weight": T(4, 3), "mask": B(4), "compressed_indices_dtype": Dtype("int32")},
    "quantized_max_pool1d": {"kernel_size": [2]},
})

# Ops whose values are random (or uninitialized): only dtypes, shapes and structure compare.
RANDOM = {"empty", "empty_like", "empty_strided", "new_empty_strided", "rand", "randn", "randint", "bernoulli",
          "bernoulli_", "normal_", "uniform_", "random_", "native_dropout", "randperm", "normal",
          "exponential_", "multinomial",
          "_ctc_loss"}  # torch leaves part of log_alpha uninitialized


def value_for(op, param):
    if literal(param.ann) is not None:
        return literal(param.ann)
    table = OPS.get(op, {})
    if param.name in table:
        return table[param.name]
    if param.name in PARAMS:
        return PARAMS[param.name]
    # by annotation alone
    for key, value in (("Tensor", T(3, 4)), ("bool", False), ("_float", 0.5), ("Number", 2),
                       ("_int", 1), ("str", "mean")):
        if key in param.ann:
            return value
    raise KeyError(f"no value for {op}({param.name}: {param.ann})")


def fit(value, ann):
    """Shape a table value to the annotation: a number where a Number is asked, a tensor where
    only a Tensor fits, an int list for a size, a bool for a bool."""
    tensor_only = "Tensor" in ann and "Number" not in ann and "_int" not in ann and "_float" not in ann
    if isinstance(value, T):
        if "Tensor" in ann:
            return value
        return 2 if "_int" in ann or value.kind == "int" else 0.5
    if isinstance(value, (int, float)) and not isinstance(value, bool) and tensor_only and "Tuple" not in ann:
        return ("scalar_tensor", value)
    if isinstance(value, list) and ann in ("_int", "Union[_int, SymInt]"):
        return value[0]
    if isinstance(value, int) and not isinstance(value, bool) and "_size" in ann and "_int" not in ann:
        return [value]
    if ann == "_float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value

# The namesa part of issue 16 (the BLAS family, math, histograms, calculus, views, copies and
# samplers: tests/python/ops/test_namesa_*.py have their value tests).
OPS.update({
    **{n: {"input": T(3), "self": T(3), "mat": T(3, 4), "vec": T(4)} for n in ("addmv", "addmv_")},
    **{n: {"input": T(3, 4), "self": T(3, 4), "vec1": T(3), "vec2": T(4)} for n in ("addr", "addr_")},
    **{n: {"input": T(2, 3, 5), "self": T(2, 3, 5), "batch1": T(2, 3, 4), "batch2": T(2, 4, 5)}
       for n in ("baddbmm", "baddbmm_")},
    **{n: {"input": T(3, 5), "self": T(3, 5), "batch1": T(2, 3, 4), "batch2": T(2, 4, 5)} for n in ("addbmm", "addbmm_")},
    "addmm_": {"self": T(3, 2), "mat1": T(3, 4), "mat2": T(4, 2)},
    "ldexp": {"other": I(3, 4)}, "ldexp_": {"other": I(3, 4)},
    **{n: {"input": T(3, 4, kind="prob"), "self": T(3, 4, kind="prob"), "other": T(3, 4, kind="prob")}
       for n in ("igamma", "igammac", "igamma_", "igammac_")},
    "isin": {"elements": T(3, 4), "test_elements": T(5), "element": 2, "test_element": 2},
    "histogram": {"bins": 4, "range": [-1.0, 1.0], "weight": T(3, 4, kind="prob"), "density": False},
    "_histogramdd_bin_edges": {"input": T(5, 2), "self": T(5, 2), "bins": [2, 3], "range": [-1.0, 1.0, 0.0, 2.0],
                               "weight": T(5, kind="prob"), "density": False},
    "_histogramdd_from_bin_cts": {"input": T(5, 2), "self": T(5, 2), "bins": [2, 3], "range": [-1.0, 1.0, 0.0, 2.0],
                                  "weight": T(5, kind="prob"), "density": True},
    "trapezoid": {"y": T(3, 4), "x": T(4), "dx": 0.5}, "trapz": {"y": T(3, 4), "x": T(4), "dx": 0.5},
    "cumulative_trapezoid": {"y": T(3, 4), "x": T(4), "dx": 0.5},
    "combinations": {"input": T(4), "self": T(4), "r": 2, "with_replacement": False},
    "sum_to_size": {"size": [1, 4]},
    **{n: {"index": I(2, high=3), "source": T(2, 4), "reduce": "amax", "dim": 0, "include_self": False}
       for n in ("index_reduce", "index_reduce_")},
    "fill_diagonal_": {"fill_value": 2, "wrap": True}, "cumsum_": {"dim": 1},
    "unfold": {"dimension": 1, "size": 2, "step": 1}, "unfold_copy": {"dimension": 1, "size": 2, "step": 1},
    "squeeze_": {"self": T(3, 1, 4)}, "squeeze_copy": {"input": T(3, 1, 4)},
    "swapaxes_": {"axis0": 0, "axis1": 1},
    **{n: {"size": [2, 2], "stride": [1, 2]} for n in ("as_strided_", "as_strided_copy")},
    "as_strided_scatter": {"src": T(2, 2), "size": [2, 2], "stride": [1, 2]},
    "unsafe_split": {"split_size": 2}, "split_copy": {"split_size": 2},
    "view_copy": {"size": [4, 3]}, "permute_copy": {"dims": [1, 0]}, "select_copy": {"index": 1},
    "expand_copy": {"input": T(3, 1), "size": [3, 4]}, "_reshape_alias_copy": {"size": [4, 3], "stride": [3, 1]},
    "diagonal_copy": {"offset": 0, "dim1": 0, "dim2": 1},
    "resize_as_": {"the_template": T(4, 3)},
    "poisson": {"input": T(3, 4, kind="prob"), "self": T(3, 4, kind="prob")},
    "binomial": {"count": T(3, 4, kind="ones"), "prob": T(3, 4, kind="prob")},
    "geometric_": {"p": 0.5}, "randint_like": {"high": 5, "low": 0},
})
RANDOM |= {"cauchy_", "geometric_", "log_normal_", "poisson", "binomial", "randint_like"}
TORCH_QUIRKS.update({
    **{("function", n, "out"):
       "torch 1.13's functionalization *_copy.out kernels copy into out= without resizing it (an empty out= "
       "fails); ember resizes it as every out= does"
       for n in ("_neg_view_copy", "_reshape_alias_copy", "alias_copy", "as_strided_copy", "detach_copy",
                 "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "squeeze_copy", "t_copy",
                 "transpose_copy", "unfold_copy", "unsqueeze_copy", "view_copy")},
    **{("function", n, "out"): "ember binds no out= list for the split copies (their results are fresh tensors)"
       for n in ("split_copy", "unbind_copy", "split_with_sizes_copy")},
    **{("function", "slice_copy", form): "torch 1.13's binding reads the defaulted SymInt? start / end as garbage ints"
       for form in ("required", "out")},
})
UNSUPPORTED.append(("view_copy(dtype)", lambda kind, name, params: name == "view_copy" and params
                    and params[0].ann == "Tensor" and len(params) > 1 and params[1].ann == "_dtype"))
