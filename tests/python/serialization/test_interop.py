"""Files torch 1.13 writes load in ember, and files ember writes load in torch: values, dtypes,
strides, sharing and keys; also a hand-built file in PyTorch 2.x's layout."""
import collections
import io
import os
import sys
import zipfile

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "quantized"))


def _np(t):
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t.dtype == torch.bfloat16:  # exact in float32
            return t.float().numpy()
        return t.numpy()
    if t.dtype == ember.bfloat16:
        return t.float().detach().numpy()
    return t.detach().numpy()


def assert_same_tensor(e, t, *, key=""):
    assert isinstance(e, ember.Tensor) and isinstance(t, torch.Tensor), key
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], key
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride(), key
    assert e.storage_offset() == t.storage_offset(), key
    assert e.requires_grad == t.requires_grad, key
    assert isinstance(e, ember.nn.Parameter) == isinstance(t, torch.nn.Parameter), key
    if t.is_quantized:
        assert e.is_quantized and e.qscheme() == getattr(ember, str(t.qscheme()).split(".")[1]), key
        np.testing.assert_array_equal(_np(e.int_repr()), t.int_repr().numpy())
        if t.qscheme() == torch.per_tensor_affine:
            assert e.q_scale() == t.q_scale() and e.q_zero_point() == t.q_zero_point(), key
        else:
            np.testing.assert_array_equal(_np(e.q_per_channel_scales()), t.q_per_channel_scales().numpy())
            np.testing.assert_array_equal(_np(e.q_per_channel_zero_points()),
                                          t.q_per_channel_zero_points().numpy())
            assert e.q_per_channel_axis() == t.q_per_channel_axis(), key
    else:
        np.testing.assert_array_equal(_np(e), _np(t), err_msg=key)


def assert_same(e, t, key=""):
    if isinstance(t, torch.Tensor):
        return assert_same_tensor(e, t, key=key)
    if isinstance(t, dict):
        assert type(e).__name__ == type(t).__name__, key
        assert list(e.keys()) == list(t.keys()), key
        for k in t:
            assert_same(e[k], t[k], f"{key}.{k}")
        if hasattr(t, "_metadata"):
            assert e._metadata == t._metadata
        return
    if isinstance(t, (list, tuple)) and not isinstance(t, torch.Size):
        assert type(e) is type(t) and len(e) == len(t), key
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same(a, b, f"{key}[{i}]")
        return
    if isinstance(t, torch.dtype):
        assert e is getattr(ember, str(t).split(".")[1]), key
        return
    if isinstance(t, torch.Size):
        assert type(e) is ember.Size and tuple(e) == tuple(t), key
        return
    assert e == t and type(e) is type(t), key


def _ptrs(obj, get):
    out = []

    def walk(o):
        if isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        elif get(o) is not None:
            out.append(get(o))
    walk(obj)
    return out


def assert_same_sharing(e, t):
    # Tensors share a storage in ember exactly where they share one in torch.
    def groups(ptrs):
        first = {}
        return [first.setdefault(p, i) for i, p in enumerate(ptrs)]
    ep = _ptrs(e, lambda o: o.untyped_storage().data_ptr() if isinstance(o, ember.Tensor) and not o.is_quantized else None)
    tp = _ptrs(t, lambda o: o.storage().data_ptr() if isinstance(o, torch.Tensor) and not o.is_quantized else None)
    assert groups(ep) == groups(tp)


def _torch_objects():
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 3)
    base = torch.arange(20.0).reshape(4, 5)
    return {
        "state_dict": torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).state_dict(),
        "views": {"base": base, "t": base.t(), "slice": base[1:, 2:], "again": base, "row": base[2]},
        "tied": {"a": lin.weight, "b": lin.weight, "bias": lin.bias},
        "dtypes": {d: (torch.arange(7) - 3).to(getattr(torch, d)) for d in
                   ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
                    "int64", "bool"]},
        "empty": {"e": torch.empty(0, 3), "scalar": torch.tensor(2.5)},
        "misc": [torch.Size([2, 3]), torch.float16, 1, 2.5, "s", b"\x00\x01", None, (1, 2), {"n": {"m": [1]}}],
        "quantized": {"pt": torch.quantize_per_tensor(torch.randn(3, 4), 0.05, 7, torch.quint8),
                      "pc": torch.quantize_per_channel(torch.randn(3, 4), torch.tensor([0.1, 0.2, 0.3]),
                                                       torch.tensor([0, 1, 2]), 0, torch.qint8)},
    }


@pytest.mark.parametrize("name", list(_torch_objects().keys()))
def test_torch_files_load_in_ember(tmp_path, name):
    obj = _torch_objects()[name]
    torch.save(obj, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt")
    assert_same(got, obj)
    assert_same_sharing(got, obj)
    got = ember.load(tmp_path / "t.pt", mmap=True)
    assert_same(got, obj)


@pytest.mark.parametrize("name", list(_torch_objects().keys()))
def test_ember_files_load_in_torch(tmp_path, name):
    obj = _torch_objects()[name]
    torch.save(obj, tmp_path / "t.pt")
    eobj = ember.load(tmp_path / "t.pt")
    ember.save(eobj, tmp_path / "e.pt")
    back = torch.load(tmp_path / "e.pt")
    assert_same(eobj, back)
    assert_same_sharing(eobj, back)
    # Also through a file-like, both ways.
    b = io.BytesIO()
    ember.save(eobj, b)
    b.seek(0)
    assert_same(eobj, torch.load(b))


def test_torchvision_resnet18_both_ways(tmp_path):
    from torchvision.models import resnet18
    torch.manual_seed(0)
    tm = resnet18().eval()
    torch.save(tm.state_dict(), tmp_path / "resnet18.pth")
    sd = ember.load(tmp_path / "resnet18.pth")
    assert_same(sd, tm.state_dict())
    em = ember.vision.models.resnet18().eval()
    em.load_state_dict(sd)
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    with torch.no_grad():
        ty = tm(torch.from_numpy(x)).numpy()
    ey = em(ember.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(ey, ty, rtol=1e-4, atol=1e-4)
    ember.save(em.state_dict(), tmp_path / "ember_resnet18.pth")
    tm2 = resnet18().eval()
    tm2.load_state_dict(torch.load(tmp_path / "ember_resnet18.pth"))
    for k, v in tm.state_dict().items():
        assert torch.equal(v, tm2.state_dict()[k]), k


def test_optimizer_state_dicts_both_ways(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        topt.zero_grad()
        tm(torch.randn(4, 3)).sum().backward()
        topt.step()
    tadam = torch.optim.Adam(tm.parameters(), lr=0.01)
    tm(torch.randn(4, 3)).sum().backward()
    tadam.step()
    torch.save({"sgd": topt.state_dict(), "adam": tadam.state_dict()}, tmp_path / "o.pt")
    got = ember.load(tmp_path / "o.pt")
    assert_same(got["sgd"], topt.state_dict())
    assert_same(got["adam"], tadam.state_dict())
    em = ember.nn.Linear(3, 2)
    eopt = ember.optim.SGD(em.parameters(), lr=0.5)
    eopt.load_state_dict(got["sgd"])
    assert eopt.param_groups[0]["momentum"] == 0.9
    ember.save(eopt.state_dict(), tmp_path / "e.pt")
    back = torch.load(tmp_path / "e.pt")
    assert back["param_groups"][0]["momentum"] == 0.9 and back["param_groups"][0]["params"] == [0, 1]
    assert torch.equal(back["state"][0]["momentum_buffer"], topt.state_dict()["state"][0]["momentum_buffer"])


def test_quantized_mobilenet_v2_from_quantize_model(tmp_path):
    from torchvision.models.quantization import mobilenet_v2
    from torchvision.models.quantization.utils import quantize_model
    import mobilenet_port
    torch.manual_seed(0)
    tm = mobilenet_v2(weights=None, quantize=False)
    quantize_model(tm, "qnnpack")
    sd = tm.state_dict()
    torch.save(sd, tmp_path / "mobilenet_v2_qnnpack.pth")
    got = ember.load(tmp_path / "mobilenet_v2_qnnpack.pth")
    assert list(got) == list(sd)
    for k, v in sd.items():
        if isinstance(v, torch.Tensor):
            assert_same_tensor(got[k], v, key=k)
        elif isinstance(v, tuple):  # _packed_params._packed_params: (weight, bias)
            assert_same_tensor(got[k][0], v[0], key=k)
            assert_same_tensor(got[k][1], v[1], key=k)
        else:
            assert_same(got[k], v, k)
    # The loaded state_dict drives ember's quantized MobileNetV2 to torch's codes.
    em = mobilenet_port.ember_twin(tm)
    em.load_state_dict(got)
    tx, ex = mobilenet_port.same_input(size=224)
    with torch.no_grad():
        ty = tm(tx)
    ey = em(ex)
    np.testing.assert_allclose(ey.detach().numpy(), ty.numpy(), atol=1e-5)
    # And back: ember's file of the model's state_dict loads into torch's model.
    ember.save(em.state_dict(), tmp_path / "e.pth")
    tm2 = mobilenet_v2(weights=None, quantize=False)
    quantize_model(tm2, "qnnpack")
    tm2.load_state_dict(torch.load(tmp_path / "e.pth"))
    with torch.no_grad():
        np.testing.assert_array_equal(tm2(tx).numpy(), ty.numpy())


def test_hand_built_pytorch_2x_layout(tmp_path):
    # PyTorch 2.x: "archive/" records, byteorder, .format_version, .storage_alignment, data in
    # key order, version, .data/serialization_id; a torch.UntypedStorage-free pickle as 2.x writes.
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.float16)}, tmp_path / "t.pt")
    with zipfile.ZipFile(tmp_path / "t.pt") as z:
        pkl = z.read("t/data.pkl")
        d0, d1 = z.read("t/data/0"), z.read("t/data/1")
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/.format_version", "1")
        z.writestr("archive/.storage_alignment", "64")
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/data/0", d0)
        z.writestr("archive/data/1", d1)
        z.writestr("archive/version", "3\n")
        z.writestr("archive/.data/serialization_id", "0" * 40)
    (tmp_path / "x.pt").write_bytes(b.getvalue())
    got = ember.load(tmp_path / "x.pt")
    assert got["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert got["b"].dtype == ember.float16 and got["b"].tolist() == [1.0, 1.0]
    # Python's zipfile does not align records: mmap falls back to copies, correctly.
    got = ember.load(tmp_path / "x.pt", mmap=True)
    assert got["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    # A big-endian file (byteorder "big") is byte-swapped on load.
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "big")
        z.writestr("archive/data/0", np.arange(6, dtype=">f4").tobytes())
        z.writestr("archive/data/1", np.ones(2, dtype=">f2").tobytes())
        z.writestr("archive/version", "3\n")
    got = ember.load(io.BytesIO(b.getvalue()))
    assert got["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and got["b"].tolist() == [1.0, 1.0]


def test_legacy_format_loads(tmp_path):
    obj = collections.OrderedDict(w=torch.arange(6.0).reshape(2, 3), v=None)
    obj["view"] = obj["w"][1]
    obj["i"] = torch.tensor([1, 2], dtype=torch.int64)
    torch.save(obj, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    assert not zipfile.is_zipfile(tmp_path / "legacy.pt")
    got = ember.load(tmp_path / "legacy.pt")
    assert_same(got, obj)
    assert got["view"].untyped_storage().data_ptr() == got["w"].untyped_storage().data_ptr()
    assert ember.load(tmp_path / "legacy.pt", weights_only=False)["i"].tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        ember.load(tmp_path / "legacy.pt", mmap=True)
