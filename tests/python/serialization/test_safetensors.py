"""ember.safetensors against the safetensors format (the crate's layout, order, checks and texts)
and against torch 1.13 for values. Debian has no `safetensors` package, so files are checked
byte for byte against hand-written expected bytes, and read back with torch through an
independent reader written here from the spec."""
import json
import os
import struct

import numpy as np
import pytest
import torch

import ember
import ember.safetensors as st
from ember.safetensors import SafetensorError

E2T = {ember.float64: torch.float64, ember.float32: torch.float32, ember.float16: torch.float16,
       ember.bfloat16: torch.bfloat16, ember.int64: torch.int64, ember.int32: torch.int32,
       ember.int16: torch.int16, ember.int8: torch.int8, ember.uint8: torch.uint8, ember.bool: torch.bool}
NAMES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
         torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
         torch.bool: "BOOL"}


def to_torch(t):
    """An ember tensor as torch sees it: saved by ember, read by the reference reader below."""
    return spec_read(st.save({"t": t.contiguous()}))["t"]


def from_torch(tt):
    """A torch tensor in ember: written by the reference writer below, loaded by ember."""
    return st.load(spec_file({"t": tt}))["t"]


def spec_file(tensors, metadata=None, order=None):
    """A safetensors image written here from the format's description, with torch's bytes."""
    names = order or sorted(tensors)
    header, blobs, off = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for k in names:
        raw = tensors[k].contiguous().view(-1).view(torch.uint8).numpy().tobytes() if tensors[k].numel() else b""
        header[k] = {"dtype": NAMES[tensors[k].dtype], "shape": list(tensors[k].shape),
                     "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def spec_read(data):
    """The tensors of a safetensors image, read with json + torch (the reference reader)."""
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    rev = {v: k for k, v in NAMES.items()}
    out = {}
    for k, info in header.items():
        b, e = info["data_offsets"]
        raw = bytearray(data[8 + n + b:8 + n + e])
        dt = rev[info["dtype"]]
        out[k] = (torch.frombuffer(raw, dtype=dt).reshape(info["shape"]) if raw
                  else torch.empty(info["shape"], dtype=dt))
    return out


# ---- the bytes, exactly ----

def test_bytes_match_the_format_exactly():
    x = ember.arange(6, dtype=ember.float32).reshape(2, 3)
    a = ember.tensor([1, 2], dtype=ember.int64)
    m = ember.tensor([True, False])
    data = st.save({"x": x, "m": m, "a": a}, metadata={"format": "pt"})
    header = (b'{"__metadata__":{"format":"pt"},'
              b'"a":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},'
              b'"x":{"dtype":"F32","shape":[2,3],"data_offsets":[16,40]},'
              b'"m":{"dtype":"BOOL","shape":[2],"data_offsets":[40,42]}}')
    assert len(header) == 199
    header += b" "  # padded with spaces to a multiple of 8
    expected = (struct.pack("<Q", 200) + header
                + struct.pack("<2q", 1, 2) + struct.pack("<6f", 0, 1, 2, 3, 4, 5) + b"\x01\x00")
    assert data == expected


def test_empty_dict_and_no_metadata():
    assert st.save({}) == struct.pack("<Q", 8) + b"{}      "
    assert st.save({}, metadata={}) == struct.pack("<Q", 24) + b'{"__metadata__":{}}     '
    assert st.load(st.save({})) == {}


def test_order_is_descending_alignment_then_name():
    ts = {"b_bool": ember.zeros(1, dtype=ember.bool), "a_u8": ember.zeros(1, dtype=ember.uint8),
          "i8": ember.zeros(1, dtype=ember.int8), "i16": ember.zeros(1, dtype=ember.int16),
          "f16": ember.zeros(1, dtype=ember.float16), "bf16": ember.zeros(1, dtype=ember.bfloat16),
          "i32": ember.zeros(1, dtype=ember.int32), "f32": ember.zeros(1, dtype=ember.float32),
          "f64": ember.zeros(1, dtype=ember.float64), "i64": ember.zeros(1, dtype=ember.int64),
          "a_f32": ember.zeros(1, dtype=ember.float32)}
    data = st.save(ts)
    n = struct.unpack("<Q", data[:8])[0]
    keys = list(json.loads(data[8:8 + n]).keys())
    # The crate's Dtype order: ... U8 < I8 < I16 < F16 < BF16 < I32 < F32 < F64 < I64.
    assert keys == ["i64", "f64", "a_f32", "f32", "i32", "bf16", "f16", "i16", "i8", "a_u8", "b_bool"]
    assert (8 + n) % 8 == 0


def test_metadata_escaping_like_serde_json(tmp_path):
    md = {"k\"ey": "va\\l\nue\t\x01", "ünï": "ç☃"}
    data = st.save({"t": ember.ones(1)}, metadata=md)
    n = struct.unpack("<Q", data[:8])[0]
    text = data[8:8 + n].rstrip(b" ")
    # serde_json: short escapes, \u00XX (lowercase) for other control characters, UTF-8 as is.
    assert b'"k\\"ey":"va\\\\l\\nue\\t\\u0001"' in text
    assert '"ünï":"ç☃"'.encode() in text
    p = tmp_path / "m.safetensors"
    st.save_file({"t": ember.ones(1)}, p, metadata=md)
    with st.safe_open(p, framework="pt") as f:
        assert f.metadata() == md


# ---- values against torch ----

@pytest.mark.parametrize("dtype", list(E2T))
def test_round_trip_every_dtype_against_torch(tmp_path, dtype):
    g = torch.Generator().manual_seed(0)
    tt = (torch.randn(3, 4, generator=g) * 50)
    tt = tt > 0 if E2T[dtype] == torch.bool else tt.to(E2T[dtype])
    t = from_torch(tt)
    p = tmp_path / "x.safetensors"
    st.save_file({"w": t, "s": from_torch(tt[0, 0].clone()), "e": ember.empty(0, 3, dtype=dtype)}, p)
    back = spec_read(p.read_bytes())
    assert torch.equal(back["w"], tt) and back["w"].dtype == tt.dtype
    assert back["s"].shape == () and torch.equal(back["s"], tt[0, 0])
    assert back["e"].shape == (0, 3)
    loaded = st.load_file(p)
    assert list(loaded) == list(spec_read(p.read_bytes()).keys())  # offset order
    assert torch.equal(to_torch(loaded["w"]), tt)
    assert loaded["w"].dtype == dtype and loaded["w"].shape == ember.Size([3, 4])
    assert loaded["s"].dim() == 0 and loaded["e"].shape == ember.Size([0, 3])


def test_files_in_any_order_written_elsewhere_load(tmp_path):
    tt = {"z": torch.arange(5, dtype=torch.int16), "a": torch.randn(2, 2, dtype=torch.float64),
          "m": torch.tensor(3.5, dtype=torch.bfloat16)}
    data = spec_file(tt, metadata={"who": "torch"}, order=["z", "m", "a"])  # unaligned, name order ignored
    p = tmp_path / "o.safetensors"
    p.write_bytes(data)
    loaded = st.load_file(p)
    assert list(loaded) == ["z", "m", "a"]
    for k in tt:
        assert torch.equal(to_torch(loaded[k]), tt[k])
    assert {k: torch.equal(to_torch(v), tt[k]) for k, v in st.load(data).items()} == {k: True for k in tt}


def test_bool_bytes_other_than_0_1_read_as_true(tmp_path):
    data = bytearray(spec_file({"b": torch.tensor([True, False, True])}))
    data[-1] = 7
    assert st.load(bytes(data))["b"].tolist() == [True, False, True]
    p = tmp_path / "b.safetensors"
    p.write_bytes(bytes(data))
    assert st.load_file(p)["b"].tolist() == [True, False, True]
    assert p.read_bytes() == bytes(data)


# ---- zero copy ----

def mapped_ranges(path):
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith(str(path)):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                out.append((lo, hi))
    return out


def test_load_file_is_a_private_mapping_without_copy(tmp_path):
    p = tmp_path / "big.safetensors"
    w = ember.arange(1 << 16, dtype=ember.float32)
    st.save_file({"w": w, "b": ember.ones(3, dtype=ember.int64)}, p)
    before = p.read_bytes()
    d = st.load_file(p)
    ranges = mapped_ranges(os.path.realpath(p))
    assert ranges, "the file is not mapped"
    for t in d.values():
        assert any(lo <= t.data_ptr() < hi for lo, hi in ranges)
    d["w"][0] = 42.0  # copy-on-write: the file never changes
    assert d["w"][0].item() == 42.0
    assert p.read_bytes() == before
    # Saving over a file that is mapped replaces it: the old tensors keep their bytes.
    st.save_file({"w": ember.zeros(4)}, p)
    assert d["w"][1].item() == 1.0 and d["b"].tolist() == [1, 1, 1]
    assert st.load_file(p)["w"].tolist() == [0.0] * 4
    del d


def test_unaligned_records_are_copied_correctly(tmp_path):
    tt = {"u": torch.arange(3, dtype=torch.uint8), "f": torch.arange(4, dtype=torch.float32)}
    p = tmp_path / "u.safetensors"
    p.write_bytes(spec_file(tt, order=["u", "f"]))  # f starts 3 bytes into the data
    d = st.load_file(p)
    assert d["f"].tolist() == [0.0, 1.0, 2.0, 3.0] and d["f"].data_ptr() % 4 == 0
    with st.safe_open(p, "pt") as f:
        assert f.get_slice("f")[1:3].tolist() == [1.0, 2.0]


# ---- what save refuses, as safetensors.torch ----

def test_shared_and_overlapping_tensors_are_refused():
    x = ember.zeros(4, 4)
    with pytest.raises(RuntimeError) as e:
        st.save({"a": x, "b": x})
    assert str(e.value) == (
        "\n            Some tensors share memory, this will lead to duplicate memory on disk and potential "
        "differences when loading them again: [{'a', 'b'}].\n"
        "            A potential way to correctly save your model is to use `save_model`.\n"
        "            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors\n"
        "            ")
    with pytest.raises(RuntimeError, match=r"\[\{'a', 'v'\}\]"):
        st.save({"a": x, "v": x[1:3]})  # overlapping views
    # Views of disjoint parts of one storage are not shared (the crate's rule).
    data = st.save({"r0": x[0], "r1": x[1]})
    assert set(st.load(data)) == {"r0", "r1"}


def test_non_contiguous_and_bad_arguments():
    x = ember.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError) as e:
        st.save({"t": x.t()})
    assert str(e.value) == (
        "You are trying to save a non contiguous tensor: `t` which is not allowed. It either means you are trying "
        "to save tensors which are reference of each other in which case it's recommended to save only the full "
        "tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving.")
    with pytest.raises(ValueError, match=r"^Expected a dict of \[str, ember.Tensor\] but received <class 'list'>$"):
        st.save([x])
    with pytest.raises(ValueError, match="^Key `a` is invalid, expected ember.Tensor but received <class 'int'>$"):
        st.save({"a": 1})
    with pytest.raises(TypeError):
        st.save({"a": x}, metadata={"k": 1})
    with pytest.raises(SafetensorError, match='Unknown dtype "quint8"'):
        st.save({"q": ember.quantize_per_tensor(ember.ones(2), 0.1, 0, ember.quint8)})
    with pytest.raises(SafetensorError, match="invalid shape, data type, or offset for tensor"):
        st.save({"m": ember.empty(2, device="meta")})


def test_save_file_failure_leaves_the_old_file(tmp_path):
    p = tmp_path / "keep.safetensors"
    st.save_file({"a": ember.ones(2)}, p)
    before = p.read_bytes()
    with pytest.raises(ValueError):
        st.save_file({"a": ember.ones(2, 2).t()}, p)
    assert p.read_bytes() == before
    assert [f for f in os.listdir(tmp_path)] == ["keep.safetensors"]


# ---- malformed files: the crate's checks and texts ----

def image(header, data=b"", n=None):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if n is None else n) + text + data


GOOD = {"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
BAD = [
    (b"", "header too small"),
    (b"\x01\x02\x03", "header too small"),
    (struct.pack("<Q", 100_000_001) + b"{}", "header too large"),
    (struct.pack("<Q", 2**64 - 1), "header too large"),
    (image(b"{}", n=50), "invalid header length"),
    (image(b'{"\xff":1}'), "invalid UTF-8 in header: invalid utf-8 sequence of 1 bytes from index 2"),
    (image(b"{\"a\": \xe2\x82"), "invalid UTF-8 in header: incomplete utf-8 byte sequence from index 6"),
    (image(b"[1, 2]"), "invalid JSON in header: invalid type: sequence, expected a map"),
    (image(b"{\"t\": "), "invalid JSON in header: "),
    (image(b"{} x"), "invalid JSON in header: "),
    (image({"t": {"dtype": "F32", "shape": [2]}}, b"\0" * 8), "invalid JSON in header: missing field `data_offsets`"),
    (image({"t": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8), "invalid JSON in header: unknown variant `F33`"),
    (image({"t": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8), "invalid JSON in header: invalid type: integer `-2`"),
    (image({"t": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}, b"\0" * 8), "invalid JSON in header: invalid type: floating point `2.0`"),
    (image({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 9]}}, b"\0" * 8), "invalid JSON in header: invalid length 3"),
    (image({"__metadata__": {"a": 1}, **GOOD}, b"\0" * 8), "invalid JSON in header: invalid type: integer `1`, expected a string in `__metadata__`"),
    (image({"__metadata__": [1], **GOOD}, b"\0" * 8), "invalid JSON in header: invalid type: sequence, expected a map in `__metadata__`"),
    (image(b'{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"t":{"dtype":"F32","shape":[2],'
           b'"data_offsets":[0,8]}}', b"\0" * 8), "invalid JSON in header: duplicate field `t`"),
    (image({"t": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
     "invalid offset for tensor `t`"),
    (image({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "u": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
     "invalid offset for tensor `u`"),
    (image({"t": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
     "invalid shape, data type, or offset for tensor"),
    (image({"t": {"dtype": "F32", "shape": [2**62, 2**62], "data_offsets": [0, 8]}}, b"\0" * 8),
     "overflow computing buffer size from shape and/or element type"),
    (image({"t": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}}, b"\0" * 2),
     "The slice is slicing for subbytes dtypes"),
    (image(GOOD, b"\0" * 4), "incomplete metadata, file not fully covered"),
    (image(GOOD, b"\0" * 9), "incomplete metadata, file not fully covered"),
    (image({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 2**64 - 1]}}, b"\0" * 8),
     "invalid shape, data type, or offset for tensor"),
]


@pytest.mark.parametrize("data,text", BAD, ids=[t for _, t in BAD])
def test_malformed_files_give_the_crates_errors(tmp_path, data, text):
    with pytest.raises(SafetensorError) as e:
        st.load(data)
    assert str(e.value).startswith("Error while deserializing: " + text)
    p = tmp_path / "bad.safetensors"
    p.write_bytes(data)
    with pytest.raises(SafetensorError) as e:
        st.safe_open(p, framework="pt")
    assert str(e.value).startswith("Error while deserializing header: " + text)
    with pytest.raises(SafetensorError):
        st.load_file(p)


def test_a_dtype_ember_lacks_is_listed_but_not_loaded(tmp_path):
    p = tmp_path / "f8.safetensors"
    p.write_bytes(image({"a": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]},
                         "b": {"dtype": "U8", "shape": [1], "data_offsets": [2, 3]}}, b"\0\0\7"))
    with st.safe_open(p, "pt") as f:
        assert f.keys() == ["a", "b"]
        assert f.get_tensor("b").tolist() == [7]
        assert f.get_slice("a").get_dtype() == "F8_E4M3"
        with pytest.raises(SafetensorError, match="tensor `a` has dtype F8_E4M3, which ember does not have"):
            f.get_tensor("a")


# ---- safe_open ----

def test_safe_open_api(tmp_path):
    g = torch.Generator().manual_seed(1)
    w = torch.randn(4, 5, 6, generator=g)
    p = tmp_path / "s.safetensors"
    p.write_bytes(spec_file({"w": w, "b": torch.arange(3), "a": torch.ones(2, dtype=torch.float16)},
                            metadata={"format": "pt", "n": "3"}, order=["b", "w", "a"]))
    with st.safe_open(str(p), framework="pt", device="cpu") as f:
        assert f.keys() == ["a", "b", "w"]
        assert f.offset_keys() == ["b", "w", "a"]
        assert f.metadata() == {"format": "pt", "n": "3"}
        assert torch.equal(to_torch(f.get_tensor("w")), w)
        s = f.get_slice("w")
        assert s.get_shape() == [4, 5, 6] and s.get_dtype() == "F32"
        for index in [(slice(None), slice(1, 3)), slice(0, 2), 1, (-1, slice(None), 2), (slice(1, None), 0),
                      (slice(None, 4), slice(None), slice(5, 6)), ()]:
            got = s[index]
            want = w[index]
            assert tuple(got.shape) == tuple(want.shape), index
            assert torch.equal(to_torch(got.contiguous()), want.contiguous()), index
            assert got.is_contiguous()
        with pytest.raises(SafetensorError) as e:
            s[:, 0:6]
        assert str(e.value) == ("Error during slicing [:, 0:6] with shape [4, 5, 6]: "
                                "index 5 out of bounds for tensor dimension #1 of size 5")
        with pytest.raises(SafetensorError, match="^Invalid index -5 for dimension 0 of size 4$"):
            s[-5]
        with pytest.raises(SafetensorError, match="^Non empty lists are not implemented$"):
            s[[0, 1]]
        with pytest.raises(SafetensorError, match="^File does not contain tensor nope$"):
            f.get_tensor("nope")
        with pytest.raises(SafetensorError, match="^File does not contain tensor nope$"):
            f.get_slice("nope")
        assert torch.equal(to_torch(f.get_tensors()["b"]), torch.arange(3))
    with pytest.raises(SafetensorError, match="^File is closed$"):
        f.keys()
    with pytest.raises(SafetensorError, match="^framework jnp is invalid$"):
        st.safe_open(p, framework="jnp")
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        st.safe_open(tmp_path / "missing.safetensors", framework="pt")
    with st.safe_open(p, "pt") as f:
        assert f.metadata() == {"format": "pt", "n": "3"}
    p2 = tmp_path / "nometa.safetensors"
    st.save_file({"x": ember.ones(1)}, p2)
    with st.safe_open(p2, "pt") as f:
        assert f.metadata() is None


def test_the_safetensors_torch_module_path(tmp_path):
    from ember.safetensors.torch import load_file, save_file
    p = tmp_path / "m.safetensors"
    model = ember.nn.Linear(3, 2)
    save_file(model.state_dict(), p)
    fresh = ember.nn.Linear(3, 2)
    fresh.load_state_dict(load_file(p))
    assert ember.equal(fresh.weight, model.weight) and ember.equal(fresh.bias, model.bias)


def test_save_model_and_load_model_with_tied_weights(tmp_path):
    class Tied(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = ember.nn.Linear(4, 4)
            self.b = ember.nn.Linear(4, 4)
            self.b.weight = self.a.weight

    m = Tied()
    with pytest.raises(RuntimeError, match=r"Some tensors share memory.*\[\{'a.weight', 'b.weight'\}\]"):
        st.save_file(m.state_dict(), tmp_path / "x.safetensors")
    p = tmp_path / "tied.safetensors"
    st.save_model(m, p)
    with st.safe_open(p, "pt") as f:
        assert f.keys() == ["a.bias", "a.weight", "b.bias"]
        assert f.metadata() == {"b.weight": "a.weight"}
    fresh = Tied()
    missing, unexpected = st.load_model(fresh, p)
    assert missing == set() and unexpected == []
    assert ember.equal(fresh.a.weight, m.a.weight) and fresh.b.weight is fresh.a.weight
    with pytest.raises(RuntimeError) as e:
        st.load_model(ember.nn.Linear(4, 4), p)
    assert str(e.value) == ('Error(s) in loading state_dict for Linear:\n'
                            '    Missing key(s) in state_dict: "bias", "weight"\n'
                            '    Unexpected key(s) in state_dict: "a.bias", "a.weight", "b.bias"')
