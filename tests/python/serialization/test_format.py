"""ember.save's files: PyTorch's zip layout, torch.save's exact pickle bytes, and round trips."""
import collections
import io
import os
import pathlib
import pickle
import pickletools
import struct
import zipfile

import pytest

import ember

torch = pytest.importorskip("torch")


def _records(path):
    with zipfile.ZipFile(path) as z:
        return {i.filename: i for i in z.infolist()}, {n: z.read(n) for n in z.namelist()}


def _torch_equivalent(obj):
    """The same object built from torch (ember tensors -> torch tensors with the same bytes)."""
    memo = {}

    def conv(o):
        if id(o) in memo:
            return memo[id(o)]
        if isinstance(o, ember.Tensor):
            raise AssertionError("use torch objects directly")
        return o
    return conv(obj)


def _pkl(path):
    with zipfile.ZipFile(path) as z:
        name = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
        return z.read(name)


def test_layout_matches_pytorch(tmp_path):
    sd = ember.nn.Linear(3, 4).state_dict()
    p = tmp_path / "model.pt"
    ember.save(sd, p)
    infos, data = _records(p)
    # PyTorch's records under the file's stem, 2.x's extra records included.
    assert list(infos) == ["model/data.pkl", "model/byteorder", "model/data/0", "model/data/1",
                           "model/version", "model/.data/serialization_id"]
    assert data["model/version"] == b"3\n"
    assert data["model/byteorder"] == b"little"
    sid = data["model/.data/serialization_id"]
    assert len(sid) == 40 and sid.isdigit()
    raw = p.read_bytes()
    for info in infos.values():
        assert info.compress_type == zipfile.ZIP_STORED
        # The data of every record starts on a 64-byte boundary, as PyTorch aligns it.
        name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
        start = info.header_offset + 30 + name_len + extra_len
        assert start % 64 == 0, info.filename
        assert raw[info.header_offset + 30 + name_len:][:2] == b"FB"
    assert data["model/data/0"] == sd["weight"].numpy().tobytes()
    # A stream gets the archive name PyTorch gives it.
    b = io.BytesIO()
    ember.save(sd, b)
    assert zipfile.ZipFile(io.BytesIO(b.getvalue())).namelist()[0] == "archive/data.pkl"


def test_record_layout_equals_torch_save(tmp_path):
    # Same offsets for the same records as torch.save (same padding rule).
    t = torch.arange(10, dtype=torch.float32)
    torch.save({"a": t}, tmp_path / "t.pt")
    ember.save({"a": ember.arange(10, dtype=ember.float32)}, tmp_path / "e.pt")
    ti, td = _records(tmp_path / "t.pt")
    ei, ed = _records(tmp_path / "e.pt")
    assert td["t/data.pkl"] == ed["e/data.pkl"]
    assert td["t/data/0"] == ed["e/data/0"]


def _build_both():
    """The same objects in torch and in ember."""
    out = []
    tl = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    el = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    el.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tl.state_dict().items()})
    out.append((tl.state_dict(), el.state_dict()))
    out.append(({"p": tl[0].weight}, {"p": el[0].weight}))
    tv = torch.arange(24.0).reshape(4, 6)
    ev = ember.arange(24.0).reshape(4, 6)
    out.append(({"base": tv, "view": tv.t()[1:], "again": tv}, {"base": ev, "view": ev.t()[1:], "again": ev}))
    vals = [1, -5, 2**40, -2**40, 70000, 2.5, "s", "ü", b"", b"\x00\xffab", None, True, False,
            (1, 2, 3, 4), (), [1, [2]], {"k": 1}, 1 + 2j]
    out.append((vals, vals))
    out.append(([torch.Size([2, 3]), torch.float16, torch.bfloat16, torch.device("cpu"),
                 torch.per_channel_affine],
                [ember.Size([2, 3]), ember.float16, ember.bfloat16, ember.device("cpu"),
                 ember.per_channel_affine]))
    for dt in ["float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]:
        tt = (torch.arange(6) % 3).to(getattr(torch, dt))
        et = ember.tensor(tt.to(torch.float64).numpy()).to(getattr(ember, dt))
        out.append(({dt: tt}, {dt: et}))
    q = torch.quantize_per_tensor(torch.tensor([0.5, 1.5, -1.0]), 0.1, 10, torch.quint8)
    eq = ember.quantize_per_tensor(ember.tensor([0.5, 1.5, -1.0]), 0.1, 10, ember.quint8)
    out.append(({"q": q}, {"q": eq}))
    x = torch.tensor([[0.5, 1.5], [-1.0, 2.0]])
    qc = torch.quantize_per_channel(x, torch.tensor([0.1, 0.2], dtype=torch.float64),
                                    torch.tensor([1, 2]), 1, torch.qint8)
    eqc = ember.quantize_per_channel(ember.tensor(x.numpy()), ember.tensor([0.1, 0.2], dtype=ember.float64),
                                     ember.tensor([1, 2]), 1, ember.qint8)
    out.append(({"qc": qc}, {"qc": eqc}))
    return out


@pytest.mark.parametrize("case", range(len(_build_both())))
def test_pickle_bytes_equal_torch_save(tmp_path, case):
    tobj, eobj = _build_both()[case]
    torch.save(tobj, tmp_path / "t.pt")
    ember.save(eobj, tmp_path / "e.pt")
    tp, ep = _pkl(tmp_path / "t.pt"), _pkl(tmp_path / "e.pt")
    if tp != ep:
        a, b = io.StringIO(), io.StringIO()
        pickletools.dis(tp, out=a)
        pickletools.dis(ep, out=b)
        assert a.getvalue() == b.getvalue()
    _, td = _records(tmp_path / "t.pt")
    _, ed = _records(tmp_path / "e.pt")
    assert sorted(k[2:] for k in td if "/data/" in k) == sorted(k[2:] for k in ed if "/data/" in k)
    for k in td:
        if "/data/" in k:
            assert td[k] == ed["e" + k[1:]], k


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickle_protocol_honoured_and_read_by_torch(tmp_path, protocol):
    obj = {"w": ember.arange(6.0).reshape(2, 3), "b": b"\x01\x02" * 200, "n": [1, 2.5, "x" * 300],
           "s": {1, 2}, "f": frozenset({3})}
    ember.save(obj, tmp_path / "e.pt", pickle_protocol=protocol)
    pkl = _pkl(tmp_path / "e.pt")
    assert pkl[:2] == b"\x80" + bytes([protocol])
    t = torch.load(tmp_path / "e.pt")
    assert t["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert t["b"] == obj["b"] and t["n"] == obj["n"] and t["s"] == {1, 2} and t["f"] == frozenset({3})
    back = ember.load(tmp_path / "e.pt")
    assert back["b"] == obj["b"] and back["s"] == {1, 2} and back["f"] == frozenset({3})
    assert ember.equal(back["w"], obj["w"])
    # torch's own files at each protocol load in ember.
    torch.save({"w": torch.ones(2), "b": b"xy"}, tmp_path / "t.pt", pickle_protocol=protocol)
    back = ember.load(tmp_path / "t.pt")
    assert back["b"] == b"xy" and back["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="pickle_protocol"):
        ember.save(obj, tmp_path / "x.pt", pickle_protocol=1)


def test_paths_and_file_likes(tmp_path):
    obj = collections.OrderedDict(a=ember.ones(3))
    for target in [str(tmp_path / "s.pt"), tmp_path / "p.pt", pathlib.PurePath(tmp_path / "q.pt")]:
        ember.save(obj, target)
        assert ember.equal(ember.load(target)["a"], obj["a"])
        assert ember.equal(ember.load(os.fspath(target))["a"], obj["a"])
    b = io.BytesIO()
    ember.save(obj, b)
    b.seek(0)
    assert ember.load(b)["a"].tolist() == [1.0, 1.0, 1.0]
    with open(tmp_path / "f.pt", "wb") as f:
        ember.save(obj, f)
    with open(tmp_path / "f.pt", "rb") as f:
        got = ember.load(f)
    assert type(got) is collections.OrderedDict and got["a"].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "missing.pt")


def test_round_trip_keeps_types_identity_and_sharing(tmp_path):
    base = ember.arange(12.0).reshape(3, 4)
    p = ember.nn.Parameter(ember.randn(2, 2))
    frozen = ember.nn.Parameter(ember.randn(2), requires_grad=False)
    obj = {"base": base, "view": base[1:, 1:3], "t": base.t(), "p": p, "tied": p, "frozen": frozen,
           "size": ember.Size([1, 2]), "dt": ember.bfloat16, "dev": ember.device("cpu"),
           "od": collections.OrderedDict(x=1), "nested": {"l": [1, (2, 3)]}, "none": None}
    ember.save(obj, tmp_path / "r.pt")
    r = ember.load(tmp_path / "r.pt")
    assert r["view"].storage_offset() == 5 and r["view"].stride() == (4, 1)
    assert r["t"].stride() == (1, 4)
    assert r["view"].untyped_storage().data_ptr() == r["base"].untyped_storage().data_ptr()
    assert r["view"].tolist() == base[1:, 1:3].tolist()
    assert type(r["p"]) is ember.nn.Parameter and r["p"].requires_grad
    assert r["tied"] is r["p"]
    assert type(r["frozen"]) is ember.nn.Parameter and not r["frozen"].requires_grad
    assert type(r["size"]) is ember.Size and r["size"] == (1, 2)
    assert r["dt"] is ember.bfloat16 and r["dev"] == ember.device("cpu")
    assert type(r["od"]) is collections.OrderedDict
    assert r["nested"] == {"l": [1, (2, 3)]} and r["none"] is None


def test_module_and_optimizer_state_dicts_round_trip(tmp_path):
    model = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4), ember.nn.ReLU(),
                                ember.nn.Flatten(), ember.nn.Linear(4 * 6 * 6, 2))
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    model(ember.randn(2, 3, 8, 8)).sum().backward()
    opt.step()
    ember.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3}, tmp_path / "c.pt")
    ck = ember.load(tmp_path / "c.pt")
    sd = model.state_dict()
    assert list(ck["model"]) == list(sd)
    assert ck["model"]._metadata == sd._metadata
    for k in sd:
        assert ember.equal(ck["model"][k], sd[k]) and ck["model"][k].dtype == sd[k].dtype
    fresh = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4), ember.nn.ReLU(),
                                ember.nn.Flatten(), ember.nn.Linear(4 * 6 * 6, 2))
    fresh.load_state_dict(ck["model"])
    opt2 = ember.optim.Adam(fresh.parameters(), lr=0.5)
    opt2.load_state_dict(ck["opt"])
    assert opt2.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    s1, s2 = opt.state_dict()["state"], opt2.state_dict()["state"]
    assert s1.keys() == s2.keys()
    for i in s1:
        for name in s1[i]:
            a, b = s1[i][name], s2[i][name]
            assert ember.equal(a, b) if isinstance(a, ember.Tensor) else a == b
    # torch reads the same file: keys, values, and the optimizer's ints and nested dicts.
    t = torch.load(tmp_path / "c.pt")
    assert list(t["model"]) == list(sd) and t["epoch"] == 3
    assert t["opt"]["param_groups"][0]["params"] == list(range(len(list(model.parameters()))))
    assert torch.equal(t["model"]["0.weight"], torch.from_numpy(sd["0.weight"].numpy()))


def test_quantized_module_state_dicts_round_trip(tmp_path):
    lin = ember.ao.nn.quantized.Linear(4, 3)
    conv = ember.ao.nn.quantized.Conv2d(3, 2, 1)
    sd = {"lin": lin.state_dict(), "conv": conv.state_dict()}
    ember.save(sd, tmp_path / "q.pt")
    back = ember.load(tmp_path / "q.pt")
    w, b = back["lin"]["_packed_params._packed_params"]
    w0, b0 = sd["lin"]["_packed_params._packed_params"]
    assert ember.equal(w.int_repr(), w0.int_repr()) and w.q_scale() == w0.q_scale()
    lin2 = ember.ao.nn.quantized.Linear(4, 3)
    lin2.load_state_dict(back["lin"])
    x = ember.quantize_per_tensor(ember.randn(2, 4), 0.05, 64, ember.quint8)
    assert ember.equal(lin2(x).int_repr(), lin(x).int_repr())
    t = torch.load(tmp_path / "q.pt")
    tw, tb = t["lin"]["_packed_params._packed_params"]
    assert tw.dtype == torch.qint8 and torch.equal(tw.int_repr(), torch.from_numpy(w0.int_repr().numpy()))
    tl = torch.ao.nn.quantized.Linear(4, 3)
    tl.load_state_dict(t["lin"])
    tc = torch.ao.nn.quantized.Conv2d(3, 2, 1)
    tc.load_state_dict(t["conv"])
