"""Safe by construction: malicious pickles run nothing, malformed files give clear errors."""
import collections
import io
import os
import pickle
import struct
import subprocess
import zipfile

import pytest

import ember


def _checkpoint(pkl: bytes, records=None, name="archive", compression=zipfile.ZIP_STORED):
    """A zip in torch.save's layout around a hand-made data.pkl."""
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", compression) as z:
        z.writestr(f"{name}/data.pkl", pkl)
        for k, v in (records or {}).items():
            z.writestr(f"{name}/data/{k}", v)
        z.writestr(f"{name}/version", "3\n")
    return b.getvalue()


class _Reduce:
    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _payloads(marker):
    cmd = f"touch {marker}"
    inner = pickle.dumps(_Reduce(os.system, (cmd,)), protocol=2)
    return {
        "os.system": (pickle.dumps(_Reduce(os.system, (cmd,)), protocol=2), "posix.system"),
        "os.system_p4": (pickle.dumps(_Reduce(os.system, (cmd,)), protocol=4), "posix.system"),
        "eval": (pickle.dumps(_Reduce(eval, (f"__import__('os').system('{cmd}')",)), protocol=2),
                 "builtins.eval"),
        "exec": (pickle.dumps(_Reduce(exec, (f"import os; os.system('{cmd}')",)), protocol=3),
                 "builtins.exec"),
        "getattr": (pickle.dumps(_Reduce(getattr, ("x", "upper")), protocol=2), "builtins.getattr"),
        "popen": (pickle.dumps(_Reduce(subprocess.Popen, (["touch", str(marker)],)), protocol=2),
                  "subprocess.Popen"),
        "pickle.loads": (pickle.dumps(_Reduce(pickle.loads, (inner,)), protocol=2), "pickle.loads"),
        # INST and OBJ name a class and call it without REDUCE.
        "inst": (b"(S'" + cmd.encode() + b"'\nios\nsystem\n.", "os.system"),
    }


@pytest.mark.parametrize("kind", list(_payloads("x").keys()))
def test_malicious_pickles_run_nothing(tmp_path, kind):
    marker = tmp_path / "pwned"
    pkl, name = _payloads(marker)[kind]
    path = tmp_path / "evil.pt"
    path.write_bytes(_checkpoint(pkl))
    with pytest.raises(pickle.UnpicklingError) as e:
        ember.load(path)
    msg = str(e.value)
    assert msg.startswith("Weights only load failed.")
    assert name in msg and "at byte" in msg and "archive/data.pkl" in msg
    assert not marker.exists()
    # weights_only=False is Python's pickle: the payload would run (the documented danger).
    if kind == "os.system":
        ember.load(path, weights_only=False)
        assert marker.exists()


def test_build_on_objects_refused(tmp_path):
    marker = tmp_path / "pwned"
    # An OrderedDict whose BUILD state tries to set anything but _metadata.
    pkl = (b"\x80\x02ccollections\nOrderedDict\n)R}X\x0c\x00\x00\x00__setstate__"
           b"cposix\nsystem\nsb.")
    p = tmp_path / "b.pt"
    p.write_bytes(_checkpoint(pkl))
    with pytest.raises(pickle.UnpicklingError, match="posix.system"):
        ember.load(p)
    pkl = b"\x80\x02ccollections\nOrderedDict\n)R}X\x03\x00\x00\x00fooK\x01sb."
    p.write_bytes(_checkpoint(pkl))
    with pytest.raises(pickle.UnpicklingError, match="may only carry _metadata, got attribute 'foo'"):
        ember.load(p)
    pkl = b"\x80\x02]}b."  # BUILD on a list
    p.write_bytes(_checkpoint(pkl))
    with pytest.raises(pickle.UnpicklingError, match="BUILD: cannot set the state of a list"):
        ember.load(p)
    # NEWOBJ of an allowed global that is not a class.
    pkl = b"\x80\x02ctorch._utils\n_rebuild_tensor\n)\x81."
    p.write_bytes(_checkpoint(pkl))
    with pytest.raises(pickle.UnpicklingError, match="NEWOBJ: cannot instantiate"):
        ember.load(p)
    assert not marker.exists()


def _rebuild(storage_numel, offset, size, stride, dtype="FloatStorage", rec_bytes=None):
    size_t = "(" + "".join(f"K{s:c}" if 0 <= s < 256 else "" for s in size)
    pid = (b"(X\x07\x00\x00\x00storagectorch\n" + dtype.encode() + b"\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
           + b"J" + struct.pack("<i", storage_numel) + b"tQ")

    def ints(v):
        return b"(" + b"".join(b"J" + struct.pack("<i", x) for x in v) + b"t"
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + pid + b"J" + struct.pack("<i", offset)
           + ints(size) + ints(stride) + b"\x89ccollections\nOrderedDict\n)RtR.")
    del size_t
    nbytes = storage_numel * 4 if rec_bytes is None else rec_bytes
    return _checkpoint(pkl, {"0": b"\x00" * max(nbytes, 0)})


@pytest.mark.parametrize("args,match", [
    ((4, 0, [1000], [1]), "does not fit in its storage of 4 elements"),
    ((4, 3, [2], [1]), "does not fit in its storage of 4 elements"),
    ((4, 0, [2, 2], [1000, 1]), "does not fit"),
    ((4, -1, [2], [1]), "negative storage offset"),
    ((4, 0, [2], [-1]), "negative stride"),
    ((4, 0, [-2], [1]), "negative size"),
    ((4, 0, [2, 2], [1]), "size has 2 dimensions but stride has 1"),
    ((4, 0, [2**30, 2**30, 2**30], [1, 1, 1]), "overflow|does not fit"),
    ((2**30, 0, [4], [1], "FloatStorage", 16), "holds 16 bytes but the checkpoint describes"),
    ((4, 0, [4], [1], "EvilStorage"), "torch.EvilStorage is not an allowed global"),
])
def test_crafted_rebuild_arguments_refused(tmp_path, args, match):
    p = tmp_path / "c.pt"
    p.write_bytes(_rebuild(*args))
    with pytest.raises(pickle.UnpicklingError, match=match):
        ember.load(p)


def test_valid_crafted_tensor_loads(tmp_path):
    p = tmp_path / "c.pt"
    p.write_bytes(_rebuild(4, 1, [3], [1]))
    t = ember.load(p)
    assert t.shape == (3,) and t.storage_offset() == 1


def _good(tmp_path):
    p = tmp_path / "good.pt"
    ember.save({"w": ember.arange(100.0), "n": 3}, p)
    return p, p.read_bytes()


def test_zero_length_and_wrong_magic(tmp_path):
    p = tmp_path / "z.pt"
    p.write_bytes(b"")
    with pytest.raises(EOFError, match="Ran out of input"):  # torch.load's error
        ember.load(p)
    with pytest.raises(EOFError, match="Ran out of input"):
        ember.load(io.BytesIO(b""))
    p.write_bytes(b"GIF89a" + b"\x00" * 100)
    with pytest.raises(pickle.UnpicklingError, match="invalid load key, 'G': not a checkpoint"):
        ember.load(p)


def test_truncated_files(tmp_path):
    p, raw = _good(tmp_path)
    for cut in [4, 30, 100, len(raw) // 2, len(raw) - 30, len(raw) - 1]:
        p.write_bytes(raw[:cut])
        with pytest.raises(RuntimeError):
            ember.load(p)


def test_corrupted_bytes(tmp_path):
    p, raw = _good(tmp_path)
    with zipfile.ZipFile(p) as z:
        info = z.getinfo("good/data.pkl")
    start = info.header_offset + 30 + len(info.filename) + \
        struct.unpack("<H", raw[info.header_offset + 28:info.header_offset + 30])[0]
    bad = bytearray(raw)
    bad[start + 10] ^= 0xFF
    p.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="CRC-32"):
        ember.load(p)
    # The central directory's offset of a record pointing elsewhere.
    bad = bytearray(raw)
    cd = raw.rfind(b"PK\x01\x02")
    bad[cd + 42:cd + 46] = struct.pack("<I", 7)
    p.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="local header"):
        ember.load(p)
    # The end record's directory offset beyond the file.
    bad = bytearray(raw)
    end = raw.rfind(b"PK\x06\x06")
    bad[end + 48:end + 56] = struct.pack("<Q", 2**40)
    p.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="central directory"):
        ember.load(p)


def test_duplicate_names(tmp_path):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps(1, protocol=2))
        with pytest.warns(UserWarning):
            z.writestr("archive/data.pkl", pickle.dumps(2, protocol=2))
    with pytest.raises(RuntimeError, match="duplicate record 'archive/data.pkl'"):
        ember.load(io.BytesIO(b.getvalue()))


def test_absurd_sizes(tmp_path):
    p = tmp_path / "a.pt"
    p.write_bytes(_rebuild(2**31 - 1, 0, [1], [1], rec_bytes=4))
    with pytest.raises(pickle.UnpicklingError, match="holds 4 bytes"):
        ember.load(p)


def test_zip_bomb_and_lying_sizes(tmp_path):
    pkl = pickle.dumps({"x": 1}, protocol=2)
    raw = bytearray(_checkpoint(pkl, compression=zipfile.ZIP_DEFLATED))
    cd = raw.rfind(b"PK\x01\x02", 0, raw.find(b"archive/version", raw.find(b"PK\x01\x02")))
    first_cd = raw.find(b"PK\x01\x02")
    # Declare 10 GiB for data.pkl's few compressed bytes.
    bad = bytearray(raw)
    bad[first_cd + 24:first_cd + 28] = struct.pack("<I", 0xFFFFFFF0)
    with pytest.raises(RuntimeError, match="zip bomb"):
        ember.load(io.BytesIO(bytes(bad)))
    # Declare fewer bytes than the stream inflates to.
    bad = bytearray(raw)
    bad[first_cd + 24:first_cd + 28] = struct.pack("<I", 3)
    with pytest.raises(RuntimeError, match="more than that"):
        ember.load(io.BytesIO(bytes(bad)))
    del cd


def test_deflated_records_from_other_tools_load(tmp_path):
    # A checkpoint re-zipped with compression by another tool still loads, values equal.
    p, _ = _good(tmp_path)
    q = tmp_path / "deflated.pt"
    with zipfile.ZipFile(p) as src, zipfile.ZipFile(q, "w", zipfile.ZIP_DEFLATED) as dst:
        for n in src.namelist():
            dst.writestr(n, src.read(n))
    got = ember.load(q)
    assert got["n"] == 3 and got["w"].tolist() == ember.arange(100.0).tolist()
    # mmap falls back to copies for compressed records.
    assert ember.load(q, mmap=True)["w"].tolist() == ember.arange(100.0).tolist()


def test_zip64_archives_load(tmp_path):
    p, _ = _good(tmp_path)
    q = tmp_path / "z64.pt"
    with zipfile.ZipFile(p) as src, zipfile.ZipFile(q, "w") as dst:
        for n in src.namelist():
            with dst.open(n, "w", force_zip64=True) as f:
                f.write(src.read(n))
    assert ember.load(q)["w"].tolist() == ember.arange(100.0).tolist()


def test_unpickling_errors_in_the_pickle_itself(tmp_path):
    p = tmp_path / "e.pt"
    for pkl, match in [(b"\x80\x02", "truncated"), (b"\x80\x02h\x05.", "Memo value not found"),
                       (b"\x80\x02e.", "could not find MARK"), (b"\x80\x02\xff.", "unsupported pickle opcode 0xff"),
                       (b"\x80\x02(K\x01.", "malformed stack"),
                       (b"\x80\x02X\xff\xff\xff\x7fab.", "truncated")]:
        p.write_bytes(_checkpoint(pkl))
        with pytest.raises(pickle.UnpicklingError, match=match):
            ember.load(p)


def test_random_corruptions_only_raise(tmp_path):
    # Deterministic mutations of a real checkpoint (bytes flipped, inserted, cut, sizes
    # rewritten): every load either succeeds or raises a clear exception, never crashes.
    import random
    obj = {"w": ember.arange(12.0).reshape(3, 4), "v": None, "q": ember.quantize_per_tensor(
        ember.tensor([0.5, 1.0]), 0.5, 1, ember.quint8), "l": [1, "a", (2.5, b"x")]}
    obj["view"] = obj["w"][1:]
    b = io.BytesIO()
    ember.save(obj, b)
    raw = b.getvalue()
    rng = random.Random(1234)
    outcomes = collections.Counter()
    for i in range(600):
        data = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            pos = rng.randrange(len(data))
            if kind < 0.6:
                data[pos] = rng.randrange(256)
            elif kind < 0.75:
                data[pos:pos + 4] = struct.pack("<I", rng.choice([0, 1, 0xFFFF, 0xFFFFFFFF, 2**31]))
            elif kind < 0.9:
                del data[pos:pos + rng.randint(1, 64)]
            else:
                data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        try:
            ember.load(io.BytesIO(bytes(data)))
            outcomes["ok"] += 1
        except (RuntimeError, pickle.UnpicklingError, ValueError, TypeError, KeyError, IndexError,
                OverflowError, UnicodeDecodeError, AssertionError) as e:
            outcomes[type(e).__name__] += 1
    assert sum(outcomes.values()) == 600
    assert outcomes["RuntimeError"] + outcomes["UnpicklingError"] > 300, outcomes


def test_deep_nesting_is_refused_or_freed_without_overflow(tmp_path):
    # A million nested lists: the loader must neither overflow the stack building, converting
    # nor freeing them.
    n = 1_000_000
    pkl = b"\x80\x02" + b"]" * n + b"a" * (n - 1) + b"."
    p = tmp_path / "deep.pt"
    p.write_bytes(_checkpoint(pkl))
    with pytest.raises((ValueError, RecursionError, RuntimeError), match="deeper|nest|recursion"):
        ember.load(p)
