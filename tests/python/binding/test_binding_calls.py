"""The call surface as users write it, against torch 1.13: the spellings that used to fail, out=,
numpy-style keywords, named results (return_types), numpy operands, //, divmod, error texts."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember


def pair(values, dtype="float32"):
    a = np.asarray(values, dtype=dtype)
    return torch.tensor(a), ember.tensor(a)


def check(t, e):
    """Same structure, types, dtypes, shapes and values."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(t) == len(e)
        assert type(t).__name__ == type(e).__name__
        for a, b in zip(t, e):
            check(a, b)
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), e
        assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.")
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)
        return
    assert t == e


X = [[3.0, -1.0, 2.0, 0.5, 7.0], [0.0, 4.0, -2.0, 1.5, 1.0], [2.5, 2.5, -3.0, 6.0, -0.5]]

# The spellings of the issue, each as a lambda over the library and the input tensor.
SPELLINGS = {
    "x.sort()": lambda L, x: x.sort(),
    "x.sort(1)": lambda L, x: x.sort(1),
    "x.sort(0, True)": lambda L, x: x.sort(0, True),
    "x.sort(dim=0, descending=True)": lambda L, x: x.sort(dim=0, descending=True),
    "x.sort(stable=True)": lambda L, x: x.sort(stable=True),
    "sort(x, 1)": lambda L, x: L.sort(x, 1),
    "x.norm()": lambda L, x: x.norm(),
    "x.norm(2)": lambda L, x: x.norm(2),
    "x.norm(1)": lambda L, x: x.norm(1),
    "x.norm(dim=1)": lambda L, x: x.norm(dim=1),
    "x.norm(p=1, dim=0, keepdim=True)": lambda L, x: x.norm(p=1, dim=0, keepdim=True),
    "x.norm('fro', (0, 1))": lambda L, x: x.norm("fro", (0, 1)),
    "x.norm(float('inf'))": lambda L, x: x.norm(float("inf")),
    "norm(x)": lambda L, x: L.norm(x),
    "norm(x, dim=0)": lambda L, x: L.norm(x, dim=0),
    "norm(x, 3, 1, dtype=float64)": lambda L, x: L.norm(x, 3, 1, dtype=L.float64),
    "x.std(0, unbiased=False)": lambda L, x: x.std(0, unbiased=False),
    "x.std(unbiased=False)": lambda L, x: x.std(unbiased=False),
    "x.std(False)": lambda L, x: x.std(False),
    "x.std(1, True, True)": lambda L, x: x.std(1, True, True),
    "x.var(1, True)": lambda L, x: x.var(1, True),
    "x.var((0, 1), correction=0)": lambda L, x: x.var((0, 1), correction=0),
    "var(x, 0, keepdim=True)": lambda L, x: L.var(x, 0, keepdim=True),
    "x.split([2, 3], 1)": lambda L, x: x.split([2, 3], 1),
    "x.split(2)": lambda L, x: x.split(2),
    "x.split([1, 2])": lambda L, x: x.split([1, 2]),
    "split_with_sizes": lambda L, x: L.split_with_sizes(x, [4, 1], 1),
    "x.clamp(min=tensor)": lambda L, x: x.clamp(min=L.zeros(5)),
    "x.clamp(max=tensor)": lambda L, x: x.clamp(max=L.ones(3, 1)),
    "x.clamp(tensor, tensor)": lambda L, x: x.clamp(L.zeros(1), L.full((5,), 2.0)),
    "clamp(x, min=0-d double)": lambda L, x: L.clamp(x, min=L.tensor(1.0, dtype=L.float64)),
    "x.clamp_(min=tensor)": lambda L, x: x.clone().clamp_(min=L.zeros(5)),
    "x.nonzero(as_tuple=True)": lambda L, x: x.nonzero(as_tuple=True),
    "x.nonzero(as_tuple=False)": lambda L, x: x.nonzero(as_tuple=False),
    "nonzero(x, as_tuple=True)": lambda L, x: L.nonzero(x, as_tuple=True),
    "nonzero(0-d, as_tuple=True)": lambda L, x: L.nonzero(L.tensor(3.0), as_tuple=True),
    "max(a, b)": lambda L, x: L.max(x, x * -1),
    "max(a, b) broadcast": lambda L, x: L.max(x, L.zeros(5)),
    "min(a, b)": lambda L, x: L.min(x, L.zeros(5)),
    "x.max(other)": lambda L, x: x.max(L.zeros(5)),
    "where(cond)": lambda L, x: L.where(x > 1),
    "where(cond, x, 0.0)": lambda L, x: L.where(x > 1, x, 0.0),
    "where(cond, 1.0, x)": lambda L, x: L.where(x > 1, 1.0, x),
    "x.sum(dtype=float64)": lambda L, x: x.sum(dtype=L.float64),
    "sum(x, dtype=float64)": lambda L, x: L.sum(x, dtype=L.float64),
    "x.sum(dim=1)": lambda L, x: x.sum(dim=1),
    "x.sum(dim=(0, 1))": lambda L, x: x.sum(dim=(0, 1)),
    "x.sum(1, True)": lambda L, x: x.sum(1, True),
    "x.sum(axis=0)": lambda L, x: x.sum(axis=0),
    "x.sum(axis=0, keepdims=True)": lambda L, x: x.sum(axis=0, keepdims=True),
    "x.mean(axis=1)": lambda L, x: x.mean(axis=1),
    "max(x, axis=1)": lambda L, x: L.max(x, axis=1),
    "x.max(1, True)": lambda L, x: x.max(1, True),
    "x.max(dim=1, keepdim=True)": lambda L, x: x.max(dim=1, keepdim=True),
    "x.argmax(1, True)": lambda L, x: x.argmax(1, True),
    "add(x1=, x2=)": lambda L, x: L.add(x1=x, x2=x),
    "add(input=, other=)": lambda L, x: L.add(input=x, other=x, alpha=2),
    "x.topk(2, largest=False)": lambda L, x: x.topk(2, largest=False),
    "x.kthvalue(2, 0)": lambda L, x: x.kthvalue(2, 0),
    "kthvalue(x, 1, keepdim=True)": lambda L, x: L.kthvalue(x, 1, keepdim=True),
    "var_mean(x, 1)": lambda L, x: L.var_mean(x, 1),
    "std_mean(x, unbiased=False)": lambda L, x: L.std_mean(x, unbiased=False),
    "std_mean(x, (0, 1), correction=0)": lambda L, x: L.std_mean(x, (0, 1), correction=0),
    "aminmax(x)": lambda L, x: L.aminmax(x),
    "x.median()": lambda L, x: x.median(),
    "median(x, 1, keepdim=True)": lambda L, x: L.median(x, 1, keepdim=True),
    "x.nanmedian(0)": lambda L, x: x.where(x > 0, L.tensor(float("nan"))).nanmedian(0),
    "median with NaN": lambda L, x: x.where(x > 0, L.tensor(float("nan"))).median(1),
    "nanmedian(all NaN row)": lambda L, x: L.nanmedian(L.full((2, 3), float("nan")), 1),
    "x.aminmax(dim=1)": lambda L, x: x.aminmax(dim=1),
    "add(x, 2, x) (deprecated)": lambda L, x: L.add(x, 2, x),
    "addcmul(x, 0.5, x, x) (deprecated)": lambda L, x: L.addcmul(x, 0.5, x, x),
    "x.add_(2, x) (deprecated)": lambda L, x: x.clone().add_(2, x),
    "floor_divide(x, 2)": lambda L, x: L.floor_divide(x, 2),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_spelling_as_torch(spelling):
    t, e = pair(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = SPELLINGS[spelling](torch, t)
        got = SPELLINGS[spelling](ember, e)
    check(expected, got)


def test_deprecated_spelling_warns_once_as_torch():
    e = ember.ones(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.sub(e, 3, e)
        ember.sub(e, 3, e)
    msgs = [str(x.message) for x in w if "deprecated" in str(x.message)]
    assert msgs == ["This overload of sub is deprecated:\n\tsub(Tensor input, Number alpha, Tensor "
                    "other, *, Tensor out)\nConsider using one of the following signatures instead:"
                    "\n\tsub(Tensor input, Tensor other, *, Number alpha, Tensor out)"]


# ---- out= ----
def test_out_returns_the_given_tensor_and_resizes_with_torchs_warning():
    for L in (torch, ember):
        a = L.tensor([1.0, 2.0])
        out = L.empty(3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = L.add(a, 1, out=out)
        assert r is out
        assert out.tolist() == [2.0, 3.0]
        assert "An output with one or more elements was resized since it had shape [3], which " \
               "does not match the required output shape [2]." in str(w[0].message)
        empty = L.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning for an empty out
            L.mul(a, a, out=empty)
        assert empty.tolist() == [1.0, 4.0]


@pytest.mark.parametrize("call", [
    lambda L, x, o: L.add(x, 1, out=o),
    lambda L, x, o: L.sum(x, 0, out=o),
    lambda L, x, o: L.exp(x, out=o),
    lambda L, x, o: L.clamp(x, 0, 1, out=o),
    lambda L, x, o: L.matmul(x, x.t(), out=o),
    lambda L, x, o: L.cat([x, x], 1, out=o),
    lambda L, x, o: L.zeros(2, 3, out=o),
    lambda L, x, o: L.where(x > 0, x, x * 2, out=o),
])
def test_out_values_and_dtypes(call):
    t, e = pair(X)
    to, eo = torch.empty(0), ember.empty(0)
    check(call(torch, t, to), call(ember, e, eo))
    check(to, eo)
    to, eo = torch.empty(2, 2), ember.empty(2, 2)  # resized (with a warning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(call(torch, t, to), call(ember, e, eo))
    check(to, eo)


def test_out_dtype_that_cannot_hold_the_result():
    for L in (torch, ember):
        with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                               "output type Long$"):
            L.add(L.ones(2), 1, out=L.empty(2, dtype=L.long))
    check(torch.eq(torch.ones(2), 1, out=torch.empty(2)), ember.eq(ember.ones(2), 1, out=ember.empty(2)))


def test_out_with_grad_is_refused_as_in_torch():
    msgs = []
    for L in (torch, ember):
        x = L.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            L.mul(x, 2, out=L.empty(2))
        msgs.append(str(info.value))
        with L.no_grad():
            L.mul(x, 2, out=L.empty(2))
    assert msgs[0] == msgs[1] == ("mul(): functions with out=... arguments don't support automatic "
                                  "differentiation, but one of the arguments requires grad.")


def test_out_tuples_return_out_structseqs():
    t, e = pair(X)
    for op in ("max", "min", "sort", "kthvalue", "median"):
        args = (1,) if op != "kthvalue" else (2, 1)
        tv, ti = torch.empty(0), torch.empty(0, dtype=torch.long)
        ev, ei = ember.empty(0), ember.empty(0, dtype=ember.long)
        rt = getattr(torch, op)(t, *args, out=(tv, ti))
        re_ = getattr(ember, op)(e, *args, out=(ev, ei))
        assert type(re_).__name__ == type(rt).__name__ == f"{op}_out"
        assert re_.values is ev and re_.indices is ei
        check((tv, ti), (ev, ei))


def test_methods_have_no_out():
    for L in (torch, ember):
        with pytest.raises(TypeError):
            L.ones(2).add(1, out=L.empty(2))


# ---- named results ----
@pytest.mark.parametrize("name,call", [
    ("max", lambda L, x: L.max(x, 1)), ("min", lambda L, x: x.min(0, keepdim=True)),
    ("sort", lambda L, x: x.sort(1)), ("topk", lambda L, x: x.topk(2)),
    ("kthvalue", lambda L, x: x.kthvalue(1)), ("aminmax", lambda L, x: L.aminmax(x, dim=0)),
    ("median", lambda L, x: x.median(1)), ("nanmedian", lambda L, x: L.nanmedian(x, 0)),
])
def test_return_types(name, call):
    t, e = pair(X)
    rt, re_ = call(torch, t), call(ember, e)
    assert type(re_) is getattr(ember.return_types, name)
    assert type(re_).__module__ == "ember.return_types" and type(re_).__name__ == name
    assert isinstance(re_, tuple) and len(re_) == len(rt) == 2
    fields = ("min", "max") if name == "aminmax" else ("values", "indices")
    for i, f in enumerate(fields):
        assert getattr(re_, f) is re_[i]
        check(getattr(rt, f), getattr(re_, f))
    a, b = re_
    assert a is re_[0] and b is re_[1]
    assert repr(re_) == repr(rt).replace("torch.", "ember.")
    # pickling: by the class's qualified name, rebuilt from the tuple (what pickle does)
    assert pickle.loads(pickle.dumps(type(re_))) is type(re_)
    cls, (items, extra) = re_.__reduce__()
    assert cls is type(re_) and extra == {}
    assert type(cls(items)) is type(re_) and cls(items)[0] is re_[0]
    try:
        pickle.dumps(re_[0])
    except TypeError:  # tensors themselves pickle once Tensor.__reduce_ex__ exists
        return
    back = pickle.loads(pickle.dumps(re_))
    assert type(back) is type(re_)
    check(tuple(rt), tuple(back))
    assert type(copy.deepcopy(re_)) is type(re_)


def test_return_types_module():
    assert ember.return_types.max.__module__ == "ember.return_types"
    assert "sort" in ember.return_types.__all__ and "max_out" in ember.return_types.__all__
    assert not isinstance(ember.var_mean(ember.ones(3)), ember.return_types.max)
    assert type(ember.var_mean(ember.ones(3))) is tuple is type(torch.var_mean(torch.ones(3)))


# ---- numpy operands, //, divmod ----
# (expression, the torch expression where torch 1.13 raises TypeError: an ndarray on the left of
# + - / // is refused there; ember gives what the ndarray as a tensor gives)
NUMPY_EXPRS = [
    ("x * np.array(2.0)", None), ("np.array(2.0) * x", "x * np.array(2.0)"),
    ("np.float64(2) * x", None), ("x * np.float64(2)", None), ("np.int64(3) * x", None),
    ("x + np.array([1.0, 2.0, 3.0])", None),
    ("np.array(2.0) + x", "x + np.array(2.0)"),
    ("np.array(2.0) - x", "torch.from_numpy(np.array(2.0)) - x"),
    ("np.array([1.0, 2.0, 3.0]) / x", None),
    ("i * np.array(2.5)", None), ("np.array(2.5) * i", "i * np.array(2.5)"),
    ("np.float32(0.5) ** x", None), ("x // 2", None), ("7 // x", None), ("i // 2", None),
    ("-7 // i", None), ("x // i", None), ("i // np.int64(2)", None),
    ("np.array(7.0) // x", "torch.from_numpy(np.array(7.0)) // x"),
]


@pytest.mark.parametrize("expr,torch_expr", NUMPY_EXPRS)
def test_numpy_and_floordiv_operators(expr, torch_expr):
    t, e = pair([1.5, -2.5, 4.0])
    ti, ei = pair([5, -7, 2], "int64")
    got = eval(expr, {"np": np, "x": e, "i": ei})
    assert isinstance(got, ember.Tensor)
    if torch_expr is not None:
        with pytest.raises(TypeError):
            eval(expr, {"np": np, "x": t, "i": ti})
    expected = eval(torch_expr or expr, {"np": np, "torch": torch, "x": t, "i": ti})
    check(expected, got)


def test_inplace_with_numpy_operands():
    for L in (torch, ember):
        y = L.ones(3)
        same = y
        y += np.array(1.0)  # refused in place: Python makes y + array, a new tensor
        assert y is not same and same.tolist() == [1.0, 1.0, 1.0]
        assert y.tolist() == [2.0, 2.0, 2.0] and y.dtype == L.float32
        y *= np.array([1.0, 2.0, 3.0])
        assert y.tolist() == [2.0, 4.0, 6.0] and y.dtype == L.float64


def test_inplace_floordiv_and_divmod():
    t, e = pair([7.0, -7.0, 5.5])
    t //= 2
    e //= 2
    check(t, e)
    e2 = ember.tensor([7, -7, 9])
    same = e2
    e2 //= ember.tensor([2, 2, -4])
    assert e2 is same and e2.tolist() == [3, -4, -3]
    for a, b in [([7.0, -7.0, 5.5], 2.0), ([7, -7, 9], 2), ([7, -7, 9], -4)]:
        q, r = divmod(ember.tensor(a), b)
        assert q.tolist() == [divmod(v, b)[0] for v in a]
        assert r.tolist() == [divmod(v, b)[1] for v in a]
        rq, rr = divmod(b, ember.tensor(a))
        assert rq.tolist() == [divmod(b, v)[0] for v in a]
        assert rr.tolist() == [divmod(b, v)[1] for v in a]


# ---- error texts ----
def texts(fn):
    out = []
    for L in (torch, ember):
        with pytest.raises(Exception) as info:
            fn(L)
        out.append((type(info.value), str(info.value).replace("torch.", "ember.")))
    return out


def test_item_of_many_elements():
    (tt, tm), (et, em) = texts(lambda L: L.ones(2).item())
    assert tt is et is ValueError and tm == em == "only one element tensors can be converted to Python scalars"


def test_data_set_to_a_list():
    def set_data(L):
        x = L.zeros(2)
        x.data = [1, 2]
    (tt, tm), (et, em) = texts(set_data)
    assert tt is et is TypeError and tm == em == "Variable data has to be a tensor, but got list"


def test_sgd_given_a_tensor():
    (tt, tm), (et, em) = texts(lambda L: L.optim.SGD(L.zeros(2), lr=0.1))
    assert tt is et is TypeError
    assert em == tm == ("params argument given to the optimizer should be an iterable of Tensors or "
                        "dicts, but got ember.FloatTensor")


@pytest.mark.parametrize("call", [
    lambda L: L.add(L.ones(2), "a"),
    lambda L: L.add(L.ones(2), L.ones(2), foo=1),
    lambda L: L.ones(2).sum(foo=1),
    lambda L: L.mm(L.ones(2, 2)),
    lambda L: L.ones(2).topk(),
    lambda L: L.ones(2).topk(1, 0, True, True, 5),
    lambda L: L.topk(k=1),
    lambda L: L.sum(L.ones(2), [1, "a"]),
    lambda L: L.ones(2).sum("a", foo=1),
    lambda L: L.ones(2).add(L.ones(2), alpha=L.ones(1)),
])
def test_invalid_arguments_as_torch(call):
    (tt, tm), (et, em) = texts(call)
    assert tt is et is TypeError
    first_t, first_e = tm.splitlines()[0], em.splitlines()[0]
    assert first_e == first_t
