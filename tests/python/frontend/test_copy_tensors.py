"""copy.copy, copy.deepcopy and pickle of tensors, against torch 1.13 (2.x's rules for subclasses,
whose deepcopy 1.13 refuses), and the storages and rebuild functions under them."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
          "bool"]


def both(fn):
    return fn(ember), fn(torch)


def same_values(e, t):
    assert str(e.dtype).replace("ember.", "") == str(t.dtype).replace("torch.", "")
    assert tuple(e.shape) == tuple(t.shape)
    assert e.to(ember.float64).tolist() == t.to(torch.float64).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("proto", PROTOCOLS)
def test_pickle_round_trip_every_dtype(dtype, proto):
    e, t = both(lambda m: (m.arange(12) % 5).to(getattr(m, dtype)).reshape(3, 4))
    e2 = pickle.loads(pickle.dumps(e, proto))
    same_values(e2, t)
    assert e2.dtype is e.dtype and e2.is_contiguous()
    assert e2.data_ptr() != e.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES)
def test_deepcopy_every_dtype(dtype):
    e = (ember.arange(12) % 5).to(getattr(ember, dtype)).reshape(3, 4)
    c = copy.deepcopy(e)
    assert type(c) is ember.Tensor and c.dtype is e.dtype
    assert c.tolist() == e.tolist() and c.data_ptr() != e.data_ptr()


def test_views_keep_geometry_and_sharing():
    for proto in PROTOCOLS:
        base = ember.arange(24.0)
        a = base[2:].view(2, 11)
        b = base.view(4, 6).t()  # non-contiguous
        a2, b2 = pickle.loads(pickle.dumps((a, b), proto))
        assert a2.stride() == a.stride() and a2.storage_offset() == 2
        assert b2.stride() == (1, 6) and not b2.is_contiguous()
        assert a2.tolist() == a.tolist() and b2.tolist() == b.tolist()
        assert a2.untyped_storage() is b2.untyped_storage()  # one new storage
        a2[0, 0] = 100.0
        assert b2[2, 0].item() == 100.0 and base[2].item() == 2.0
    a3, b3 = copy.deepcopy((a, b))
    assert a3.untyped_storage() is b3.untyped_storage()
    assert a3.untyped_storage() is not a.untyped_storage()
    assert b3.stride() == (1, 6) and a3.storage_offset() == 2
    a3.fill_(7.0)
    assert b3[0, 1].item() == 7.0 and a[0, 0].item() == 2.0


def test_copy_copy_shares_storage_as_torch():
    e, t = both(lambda m: m.arange(4.0))
    ec, tc = copy.copy(e), copy.copy(t)
    assert (ec is e) == (tc is t) == False  # noqa: E712
    assert (ec.data_ptr() == e.data_ptr()) == (tc.data_ptr() == t.data_ptr()) == True  # noqa: E712


def test_requires_grad_and_grad():
    e, t = both(lambda m: m.ones(2, requires_grad=True))
    e.grad, t.grad = ember.full((2,), 3.0), torch.full((2,), 3.0)
    ec, tc = copy.deepcopy(e), copy.deepcopy(t)
    assert ec.requires_grad == tc.requires_grad == True  # noqa: E712
    assert ec.is_leaf and ec.grad.tolist() == tc.grad.tolist()
    assert ec.grad.data_ptr() != e.grad.data_ptr()
    ep, tp = pickle.loads(pickle.dumps(e)), pickle.loads(pickle.dumps(t))
    assert ep.requires_grad == tp.requires_grad == True  # noqa: E712
    assert (ep.grad is None) == (tp.grad is None) == True  # noqa: E712


def test_deepcopy_of_non_leaf_is_refused_with_torch_text():
    msgs = []
    for m in (ember, torch):
        x = m.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError) as info:
            copy.deepcopy(x)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    # pickling a non-leaf works in both (it becomes a leaf)
    y = pickle.loads(pickle.dumps(ember.ones(2, requires_grad=True) * 2))
    assert y.is_leaf and y.requires_grad


def test_meta_tensors():
    for proto in PROTOCOLS:
        e = ember.empty(2, 3, device="meta")
        e2 = pickle.loads(pickle.dumps(e, proto))
        assert e2.is_meta and tuple(e2.shape) == (2, 3) and repr(e2) == repr(e)
    c = copy.deepcopy(ember.empty(4, 2, device="meta").t())
    assert c.is_meta and c.stride() == (1, 2)
    assert repr(c) == "tensor(..., device='meta', size=(2, 4))"


def test_reduce_ex_contract():
    e, t = both(lambda m: m.arange(6.0).view(2, 3)[:, 1:])
    ef, eargs = e.__reduce_ex__(2)
    tf, targs = t.__reduce_ex__(2)
    assert ef is ember._utils._rebuild_tensor_v2 and tf.__name__ == ef.__name__
    assert isinstance(eargs[0], ember.TypedStorage) and eargs[0].dtype is ember.float32
    assert eargs[1:5] == targs[1:5] and eargs[5] == targs[5]
    assert repr(eargs[0]) == repr(targs[0]).replace("torch.", "ember.")
    assert ember._utils._rebuild_tensor_v2(*eargs).tolist() == e.tolist()


def test_storage_objects():
    e = ember.arange(3, dtype=ember.int16)
    s = e.untyped_storage()
    assert s is e[1:].untyped_storage() and len(s) == 6 and s.nbytes() == 6
    assert s.tolist() == list(np.arange(3, dtype=np.int16).tobytes())
    ts = e.storage()
    assert ts.dtype is ember.int16 and ts.size() == 3 and ts.tolist() == [0, 1, 2]
    t = torch.arange(3, dtype=torch.int16)
    assert repr(ts) == repr(t.storage()).replace("torch.", "ember.")
    w = ember.empty(0, dtype=ember.int16).set_(s, 1, (2,), (1,))
    assert w.tolist() == [1, 2] and w.untyped_storage() is s
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 6"):
        ember.empty(0, dtype=ember.int16).set_(s, 2, (3,), (1,))


class Tagged(ember.Tensor):
    pass


class Slotted(ember.Tensor):
    __slots__ = ["slot"]


def test_subclass_keeps_class_and_dict():
    e = ember.arange(4.0).as_subclass(Tagged)
    e.tag, e.items = "x", [1, 2]
    for proto in PROTOCOLS:
        p = pickle.loads(pickle.dumps(e, proto))
        assert type(p) is Tagged and p.__dict__ == {"tag": "x", "items": [1, 2]}
        assert p.tolist() == e.tolist()
    c = copy.deepcopy(e)  # 1.13 refuses (new_empty returns a Tensor); 2.x keeps the class
    assert type(c) is Tagged and c.__dict__ == e.__dict__ and c.items is not e.items
    assert c.data_ptr() != e.data_ptr()
    s = ember.ones(2).as_subclass(Slotted)
    s.slot, s.extra = 5, 6
    for r in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert type(r) is Slotted and r.slot == 5 and r.extra == 6
    func, args = e.__reduce_ex__(2)
    assert func is ember._tensor._rebuild_from_type_v2 and args[1] is Tagged


def test_subclass_pickle_matches_torch_reduce():
    class TT(torch.Tensor):
        pass

    t = torch.ones(2).as_subclass(TT)
    t.a = 1
    e = ember.ones(2).as_subclass(Tagged)
    e.a = 1
    tr, er = t.__reduce_ex__(2), e.__reduce_ex__(2)
    assert tr[0].__name__ == er[0].__name__ == "_rebuild_from_type_v2"
    assert tr[1][3] == er[1][3] == {"a": 1}


def test_setstate_legacy():
    e, t = both(lambda m: m.zeros(2))
    e.__setstate__((True, False, None))
    t.__setstate__((True, False, None))
    assert e.requires_grad == t.requires_grad == True  # noqa: E712


def test_dtypes_and_devices_pickle():
    for obj in (ember.float16, ember.int64, ember.bool, ember.device("cpu"), ember.device("meta")):
        assert pickle.loads(pickle.dumps(obj)) == obj
    assert pickle.loads(pickle.dumps(ember.float32)) is ember.float32


def test_memory_formats_layouts_and_qschemes_pickle_as_the_same_objects():
    # torch pickles them by name: copy, deepcopy and pickle give back the very object.
    objs = (ember.contiguous_format, ember.preserve_format, ember.channels_last,
            ember.channels_last_3d, ember.strided, ember.per_tensor_affine,
            ember.per_channel_affine)
    for obj in objs:
        for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(obj, protocol=proto)) is obj
        assert copy.deepcopy(obj) is obj
        assert copy.copy(obj) is obj
    # Inside a container too (a module's conversion arguments, say).
    args = {"memory_format": ember.channels_last, "layout": ember.strided}
    assert copy.deepcopy(args) == args
    assert copy.deepcopy(args)["memory_format"] is ember.channels_last
