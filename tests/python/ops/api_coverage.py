"""Walks PyTorch 1.13's public function surface and tries each name on ember (issue 16).

The surface is `torch.overrides.get_testing_overrides()`: every overridable `torch.*`,
`Tensor.*`, `torch.nn.functional.*`, `torch.linalg.*`, `torch.fft.*`, `torch.special.*` and
`torch.nn.init.*` callable, 1.13's own definition of its public API. For each one:

1. find a small call that works in torch: the first of `CANDIDATES` (fresh tensors each time);
2. make the same call on ember (the same values, as ember tensors) and compare the results:
   tensors by shape, dtype and values (random ops by shape and dtype only), numbers by value,
   containers element by element.

A name whose every candidate fails in torch only has to exist in ember and be callable.
`python3 tests/python/ops/api_coverage.py` prints the outcome per name (run it with the build on
PYTHONPATH, as the tests do); `--write` rewrites the `api_coverage_not_yet.txt` list.
"""
from __future__ import annotations

import math
import pathlib
import sys
import warnings

import numpy as np
import torch

import ember

NOT_YET_FILE = pathlib.Path(__file__).with_name("api_coverage_not_yet.txt")

# (label, torch namespace, ember namespace path)
SPACES = [
    ("Tensor", torch.Tensor, "Tensor"),
    ("torch", torch, ""),
    ("F", torch.nn.functional, "nn.functional"),
    ("linalg", torch.linalg, "linalg"),
    ("fft", torch.fft, "fft"),
    ("special", torch.special, "special"),
    ("init", torch.nn.init, "nn.init"),
]

# Left out on purpose, with the reason (the issue allows a short list of deliberate exclusions).
EXCLUDED = {
    "Tensor.cuda": "CUDA-only",
    "Tensor.is_cuda": "CUDA-only",
    "Tensor.pin_memory": "CUDA-only",
    "Tensor.is_pinned": "CUDA-only",
    "Tensor.record_stream": "CUDA-only",
    "Tensor.to_sparse": "sparse layouts",
    "Tensor.to_dense": "sparse layouts",
    "Tensor.sparse_mask": "sparse layouts",
    "Tensor.sparse_dim": "sparse layouts",
    "Tensor.dense_dim": "sparse layouts",
    "Tensor.coalesce": "sparse layouts",
    "Tensor.is_coalesced": "sparse layouts",
    "Tensor.indices": "sparse layouts",
    "Tensor.values": "sparse layouts",
    "Tensor.crow_indices": "sparse layouts",
    "Tensor.col_indices": "sparse layouts",
    "Tensor.ccol_indices": "sparse layouts",
    "Tensor.row_indices": "sparse layouts",
    "Tensor._indices": "sparse layouts",
    "Tensor._values": "sparse layouts",
    "Tensor._nnz": "sparse layouts",
    "Tensor.sparse_resize_": "sparse layouts",
    "Tensor.sparse_resize_and_clear_": "sparse layouts",
    "Tensor.to_mkldnn": "mkldnn layout (an implementation detail of torch's CPU build)",
    "Tensor.is_mkldnn": "mkldnn layout (an implementation detail of torch's CPU build)",
    "torch.smm": "sparse layouts",
    "torch.saddmm": "sparse layouts",
    "Tensor.smm": "sparse layouts",
    "Tensor.sspaddmm": "sparse layouts",
    "torch.miopen_batch_norm": "ROCm-only",
    "torch.miopen_convolution": "ROCm-only",
    "torch.miopen_convolution_transpose": "ROCm-only",
    "torch.miopen_depthwise_convolution": "ROCm-only",
    "torch.miopen_rnn": "ROCm-only",
    "torch.miopen_convolution_add_relu": "ROCm-only",
    "torch.miopen_convolution_relu": "ROCm-only",
    "Tensor.is_nested": "nested tensors (a prototype in torch 1.13)",
    "Tensor.chalf": "complex32 (ComplexHalf): experimental in torch 1.13, which warns that most ops lack it",

    "Tensor._nested_tensor_size": "nested tensors (a prototype in torch 1.13)",
    "Tensor._coalesced_": "sparse layouts",
    "Tensor._dimI": "sparse layouts",
    "Tensor._dimV": "sparse layouts",
    "Tensor._to_dense": "sparse layouts",
    "Tensor.resize_as_sparse_": "sparse layouts",
    "torch._indices_copy": "sparse layouts",
    "torch._values_copy": "sparse layouts",
    "torch.indices_copy": "sparse layouts",
    "torch.values_copy": "sparse layouts",
    "torch.crow_indices_copy": "sparse layouts",
    "torch.col_indices_copy": "sparse layouts",
    "torch.ccol_indices_copy": "sparse layouts",
    "torch.row_indices_copy": "sparse layouts",
    "torch._sparse_broadcast_to_copy": "sparse layouts",
    "Tensor.xpu": "XPU-only (a copy to an Intel GPU)",
    "Tensor.ipu": "IPU-only (a copy to a Graphcore IPU)",
    "torch._fw_primal_copy": "forward-mode AD (ember has none; torch 1.13 itself asserts outside a dual level)",
    "torch._make_dual_copy": "forward-mode AD (ember has none)",
    "torch.obj": "not an API: torch/__init__.py's loop variable left in the namespace (it is torch.zeros_like)",
    "Tensor.storage_type": "the legacy typed storage classes (torch.FloatStorage, ...), deprecated in torch",
    "Tensor.rename": "named tensors (a prototype in torch 1.13; ember's tensors are all unnamed, names is all None)",
    "Tensor.rename_": "named tensors (a prototype in torch 1.13)",
    "Tensor.refine_names": "named tensors (a prototype in torch 1.13)",
    "Tensor.align_to": "named tensors (a prototype in torch 1.13)",
    "Tensor.align_as": "named tensors (a prototype in torch 1.13)",
    "Tensor._update_names": "named tensors (a prototype in torch 1.13)",
    "torch.slice_copy": "not comparable: torch 1.13's binding reads the defaulted start / end as garbage ints "
                        "(ember's is tested in test_namesa_views.py)",

    "torch.dsmm": "sparse layouts",
    "torch.hsmm": "sparse layouts",
}

RANDOM_WORDS = ("rand", "normal", "bernoulli", "dropout", "multinomial", "poisson", "exponential_",
                "geometric_", "cauchy_", "log_normal_", "uniform_", "random_", "rrelu", "empty",
                "gumbel", "fractional_max_pool", "kaiming", "xavier", "orthogonal_", "sparse_",
                "trunc_normal_", "new_empty", "binomial", "lowrank", "lobpcg")

# Results that are addresses or otherwise differ by nature between two libraries: run, not compared.
RUNS_ONLY = {"Tensor.data_ptr", "Tensor._cdata", "Tensor.storage", "Tensor.untyped_storage"}


def _tensors(lib):
    """The inputs candidates draw from, as `lib` tensors (torch or ember). Each call of _build
    starts from the same seed, so torch and ember get the same values for the same candidate."""
    rng = np.random.default_rng(0)

    def t(a):
        return lib.from_numpy(np.ascontiguousarray(a))

    sq = np.random.default_rng(1).standard_normal((4, 4)).astype(np.float32)
    return {
        "x": lambda: t(rng.standard_normal((3, 4)).astype(np.float32)),
        "pos": lambda: t(rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)),
        "unit": lambda: t(rng.uniform(-0.9, 0.9, (3, 4)).astype(np.float32)),
        "sq": lambda: t(sq.copy()),
        "spd": lambda: t((sq @ sq.T + 4 * np.eye(4)).astype(np.float32)),
        "v": lambda: t(rng.standard_normal(4).astype(np.float32)),
        "xi": lambda: t(rng.integers(0, 5, (3, 4)).astype(np.int64)),
        "vi": lambda: t(np.array([0, 2, 1], dtype=np.int64)),
        "xb": lambda: t(rng.integers(0, 2, (3, 4)).astype(bool)),
        "img": lambda: t(rng.standard_normal((1, 2, 6, 6)).astype(np.float32)),
        "seq": lambda: t(rng.standard_normal((2, 3, 8)).astype(np.float32)),
        "x3": lambda: t(rng.standard_normal((2, 3, 4)).astype(np.float32)),
    }


# Each candidate: a tuple of argument specs. A str names an input of _tensors; anything else is
# passed as is. Tried in order; the first that torch accepts is the call.
CANDIDATES = [
    ("x",), ("x", "x"), ("x", 1), ("x", 0), ("x", "x", "x"), ("x", 0.5), ("pos",), ("pos", "pos"),
    ("unit",), ("sq",), ("spd",), ("sq", "sq"), ("sq", "v"), ("v",), ("v", "v"), ("v", "v", "v"),
    ("x3", "x3"), ("x3", "sq"), ("sq", "sq", "sq"), ("xi",), ("xi", "xi"), ("xi", 2), ("xb",),
    ("xb", "xb"), ("x", "xb"), ("x", "xb", 0.0), ("x", 1, "vi"), ("x", 0, "vi"), ("x", "vi"),
    ("x", [1]), ("x", (4, 3)), ("x", 0, 1), ("x", 1, True), ("x", (1, 0)), ("img",), ("img", 2),
    ("img", (2, 2)), ("img", "img"), ("seq",), ("seq", 4), ("seq", (4,)), ("x", "v"),
    ("x", "vi", "x"), ("x", 1, 2), ("x", 0, 2, 1), ("xi", "vi"), ((3, 4),), (3,), (3, 4), ([3, 4],),
    (0, 5), (0.0, 1.0, 5), ("x", 1, 0, 2), ("vi",), ("x", 2, 1),
]


def _resolve(root, path):
    obj = root
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def surface():
    """[(qualified name, torch callable, ember namespace path, attribute name)] of the surface."""
    overrides = torch.overrides.get_testing_overrides()
    where = {}
    for label, space, ember_path in SPACES:
        for name in dir(space):
            try:
                where.setdefault(id(getattr(space, name)), (label, name, ember_path))
            except Exception:
                pass
    properties = {id(v): k for klass in torch.Tensor.__mro__ for k, v in vars(klass).items()}
    rows = []
    for fn in overrides:
        hit = where.get(id(fn))
        if hit is None and type(fn).__name__ == "method-wrapper":  # a Tensor property's __get__
            name = properties.get(id(fn.__self__))
            hit = ("Tensor", name, "Tensor") if name else None
        if hit is None:
            continue
        label, name, ember_path = hit
        if name.startswith("__") and name.endswith("__"):
            continue  # dunders are covered by the operator tests
        rows.append((f"{label}.{name}", fn, ember_path, name))
    return sorted(rows, key=lambda r: r[0])


def _build(spec, lib):
    inputs = _tensors(lib)
    return tuple(inputs[a]() if isinstance(a, str) else a for a in spec)


def _is_property(qualname):
    return isinstance(getattr(torch.Tensor, qualname.split(".", 1)[1], None), type(torch.Tensor.T))


def _to_numpy(t):
    t = t.detach().resolve_conj()  # torch's conj() is a lazy view numpy refuses
    if "bfloat16" in str(t.dtype) or "float16" in str(t.dtype):
        t = t.float()
    return t.numpy()


def same(a, b, loose: bool) -> str:
    """'' if torch's result `a` and ember's `b` agree, else what differs."""
    if isinstance(a, torch.Tensor):
        if not isinstance(b, ember.Tensor):
            return f"torch gives a Tensor, ember a {type(b).__name__}"
        if tuple(a.shape) != tuple(b.shape):
            return f"shape {tuple(a.shape)} vs {tuple(b.shape)}"
        if str(a.dtype).replace("torch.", "") != str(b.dtype).replace("ember.", ""):
            return f"dtype {a.dtype} vs {b.dtype}"
        if loose or a.is_quantized or a.layout != torch.strided:
            return ""
        x, y = _to_numpy(a), _to_numpy(b)
        if x.dtype == bool or np.issubdtype(x.dtype, np.integer):
            return "" if np.array_equal(x, y) else "values differ"
        return "" if np.allclose(x, y, rtol=1e-4, atol=1e-4, equal_nan=True) else "values differ"
    if isinstance(a, (tuple, list)):
        if not isinstance(b, (tuple, list)) or len(a) != len(b):
            return f"torch gives {type(a).__name__} of {len(a)}, ember {type(b).__name__}"
        for x, y in zip(a, b):
            why = same(x, y, loose)
            if why:
                return why
        return ""
    if isinstance(a, bool) or isinstance(b, bool):
        return "" if bool(a) == bool(b) else f"{a} vs {b}"
    if isinstance(a, (int, float)):
        if not isinstance(b, (int, float)):
            return f"torch gives {type(a).__name__}, ember {type(b).__name__}"
        if loose or (math.isnan(a) and math.isnan(b)):
            return ""
        return "" if math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5) else f"{a} vs {b}"
    return ""  # dtypes, devices, strings, storages...: running is what is checked


def check(qualname, torch_fn, ember_path, name) -> str:
    """'' when ember has `qualname` and agrees with torch on a small call; else the reason."""
    try:
        space = _resolve(ember, ember_path)
        ember_fn = getattr(space, name)
    except AttributeError:
        return "missing"
    if _is_property(qualname):
        torch_fn = lambda t, _n=name: getattr(t, _n)  # noqa: E731
        ember_fn = lambda t, _n=name: getattr(t, _n)  # noqa: E731
    elif not callable(ember_fn):
        return "not callable"
    loose = any(w in name for w in RANDOM_WORDS) or qualname in RUNS_ONLY
    for spec in CANDIDATES:
        args = _build(spec, torch)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = torch_fn(*args)
        except Exception:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = ember_fn(*_build(spec, ember))
        except Exception as e:  # noqa: BLE001 - the reason is the report
            return f"fails on {spec}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
        why = same(expected, got, loose)
        return f"differs on {spec}: {why}" if why else ""
    return ""  # no small call works in torch: existing and callable is what is asked


MODULE_CTORS = [(), (4,), (2,), (8,), (4, 4), (2, 2), (8, 2), (2, 4), (4, 4, 3), (2, 2, 3), (2, 2, 1),
                (3,), (1,), (0.5,), ((4, 3),), (1, (2, 2))]
MODULE_INPUTS = [("x",), ("img",), ("seq",), ("x3",), ("x", "x"), ("x", "vi"), ("xi",), ("v",),
                 ("x", "x", "x"), ("seq", "seq"), ("seq", "seq", "seq")]


def check_module(name) -> str:
    """'' when ember.nn.<name> builds with torch's small constructor arguments, runs on the same
    input with torch's weights, and agrees with torch.nn.<name>; else the reason."""
    torch_cls = getattr(torch.nn, name)
    ember_cls = getattr(ember.nn, name, None)
    if ember_cls is None:
        return "missing"
    loose = any(w in name.lower() for w in ("dropout", "rrelu", "fractional"))
    for ctor in MODULE_CTORS:
        try:
            torch.manual_seed(0)
            tm = torch_cls(*ctor).eval()
        except Exception:
            continue
        for spec in MODULE_INPUTS:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = tm(*_build(spec, torch))
            except Exception:
                continue
            try:
                em = ember_cls(*ctor).eval()
                state = {k: ember.from_numpy(_to_numpy(v).copy()) for k, v in tm.state_dict().items()}
                em.load_state_dict(state)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = em(*_build(spec, ember))
            except Exception as e:  # noqa: BLE001 - the reason is the report
                return f"fails with {ctor} on {spec}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
            why = same(expected, got, loose)
            return f"differs with {ctor} on {spec}: {why}" if why else ""
    return "" if callable(ember_cls) else "not a class"


def outcomes():
    results = {q: check(q, fn, path, name) for q, fn, path, name in surface() if q not in EXCLUDED}
    for name in torch.nn.modules.__all__:
        if f"nn.{name}" not in EXCLUDED:
            results[f"nn.{name}"] = check_module(name)
    return results


def read_not_yet():
    if not NOT_YET_FILE.exists():
        return set()
    return {line.split(" ", 1)[0] for line in NOT_YET_FILE.read_text().splitlines()
            if line and not line.startswith("#")}


if __name__ == "__main__":
    results = outcomes()
    failing = {q: why for q, why in results.items() if why}
    by_space = {}
    for q in results:
        ok = q not in failing
        s = by_space.setdefault(q.split(".")[0], [0, 0])
        s[0] += ok
        s[1] += 1
    for label, (ok, total) in sorted(by_space.items()):
        print(f"{label}: {ok} of {total}")
    if "--write" in sys.argv:
        NOT_YET_FILE.write_text(
            "# Names of torch 1.13's public surface (api_coverage.py) that ember does not have yet, or\n"
            "# where ember's result differs, with the reason. This list may only shrink.\n"
            + "".join(f"{q} {why}\n" for q, why in sorted(failing.items())))
    elif "-v" in sys.argv:
        for q, why in sorted(failing.items()):
            print(q, why)
