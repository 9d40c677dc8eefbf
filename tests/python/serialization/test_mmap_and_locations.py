"""mmap=True (views of the mapped file), map_location in each of its forms, weights_only=False,
and atomic saves (a save killed midway leaves the previous file intact)."""
import collections
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import ember

torch = pytest.importorskip("torch")


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _maps_containing(addr):
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= addr < hi:
                return line.strip()
    return ""


def test_mmap_tensors_are_views_of_the_file(tmp_path):
    sd = collections.OrderedDict((f"w{i}", ember.randn(256, 256)) for i in range(8))
    p = tmp_path / "m.pt"
    ember.save(sd, p)
    got = ember.load(p, mmap=True)
    for k, v in sd.items():
        assert ember.equal(got[k], v)
        # The tensor's memory is the file's mapping, not a copy.
        assert str(p) in _maps_containing(got[k].data_ptr())
    plain = ember.load(p)
    assert str(p) not in _maps_containing(plain["w0"].data_ptr())
    # Copy-on-write: writing to a mapped tensor changes neither the file nor other loads.
    got["w0"].fill_(7.0)
    assert ember.equal(ember.load(p)["w0"], sd["w0"])
    # The mapping outlives the file name and the other tensors.
    w1 = got["w1"]
    del got
    os.unlink(p)
    assert ember.equal(w1, sd["w1"])


def test_mmap_load_does_not_read_the_file(tmp_path):
    sd = collections.OrderedDict((f"w{i}", ember.ones(1024, 1024)) for i in range(16))  # 64 MiB
    p = tmp_path / "big.pt"
    ember.save(sd, p)
    before = _rss_kib()
    got = ember.load(p, mmap=True)
    grown = _rss_kib() - before
    assert grown < 0.05 * 64 * 1024, f"RSS grew by {grown} KiB for a 64 MiB file"
    assert got["w15"][1023, 1023].item() == 1.0


def test_mmap_of_torch_files_and_unaligned_fallback(tmp_path):
    t = {"a": torch.arange(10.0), "b": torch.arange(6).reshape(2, 3)}
    torch.save(t, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt", mmap=True)
    assert got["a"].tolist() == list(range(10)) and got["b"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert str(tmp_path / "t.pt") in _maps_containing(got["a"].data_ptr())
    # Records Python's zipfile wrote are not aligned: copies, with the right values.
    import zipfile
    with zipfile.ZipFile(tmp_path / "t.pt") as src, zipfile.ZipFile(tmp_path / "u.pt", "w") as dst:
        dst.writestr("t/data.pkl", src.read("t/data.pkl"))
        dst.writestr("t/data/00", b"")  # shifts the next record off any alignment
        for n in src.namelist():
            if n != "t/data.pkl":
                dst.writestr(n, src.read(n))
    got = ember.load(tmp_path / "u.pt", mmap=True)
    assert got["a"].tolist() == list(range(10)) and got["b"].tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="mmap"):
        import io
        ember.load(io.BytesIO((tmp_path / "t.pt").read_bytes()), mmap=True)


def test_map_location_forms(tmp_path):
    p = tmp_path / "l.pt"
    ember.save({"w": ember.arange(4.0)}, p)
    for loc in ["cpu", ember.device("cpu"), {"cpu": "cpu"}, None]:
        assert ember.load(p, map_location=loc)["w"].device == ember.device("cpu")
    for loc in ["meta", ember.device("meta"), {"cpu": "meta"}]:
        w = ember.load(p, map_location=loc)["w"]
        assert w.device == ember.device("meta") and w.shape == (4,)
    seen = []

    def fn(storage, location):
        seen.append((location, storage.nbytes()))
        return None

    assert ember.load(p, map_location=fn)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert seen == [("cpu", 16)]
    # A callable may hand back another storage.
    repl = ember.full((4,), 5.0)
    got = ember.load(p, map_location=lambda s, loc: repl.untyped_storage())
    assert got["w"].tolist() == [5.0, 5.0, 5.0, 5.0]


def test_cuda_files_need_map_location(tmp_path):
    # A checkpoint whose storages were saved on "cuda:0" (location rewritten in torch's pickle).
    torch.save({"w": torch.arange(3.0)}, tmp_path / "c.pt")
    import zipfile
    with zipfile.ZipFile(tmp_path / "c.pt") as z:
        recs = {n: z.read(n) for n in z.namelist()}
    recs["c/data.pkl"] = recs["c/data.pkl"].replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    with zipfile.ZipFile(tmp_path / "g.pt", "w") as z:
        for n, b in recs.items():
            z.writestr(n, b)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        ember.load(tmp_path / "g.pt")
    assert ember.load(tmp_path / "g.pt", map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]
    assert ember.load(tmp_path / "g.pt", map_location={"cuda:0": "cpu"})["w"].tolist() == [0.0, 1.0, 2.0]
    assert ember.load(tmp_path / "g.pt", map_location=lambda s, loc: s)["w"].tolist() == [0.0, 1.0, 2.0]


class Custom:
    def __init__(self, t):
        self.t = t
        self.name = "custom"


def test_weights_only_false_loads_arbitrary_objects(tmp_path):
    obj = {"c": Custom(ember.arange(3.0)), "shared": None}
    obj["shared"] = obj["c"].t
    p = tmp_path / "o.pt"
    ember.save(obj, p)
    with pytest.raises(pickle.UnpicklingError, match="Custom"):
        ember.load(p)
    got = ember.load(p, weights_only=False)
    assert isinstance(got["c"], Custom) and got["c"].name == "custom"
    assert got["shared"] is got["c"].t and got["c"].t.tolist() == [0.0, 1.0, 2.0]
    # torch reads the file too (ember's globals are written under torch's names).
    sys.modules.setdefault("test_mmap_and_locations", sys.modules[__name__])
    t = torch.load(p)
    assert t["c"].t.tolist() == [0.0, 1.0, 2.0] and t["shared"] is t["c"].t
    # and ember loads torch's pickles of custom objects with weights_only=False.
    torch.save({"c": Custom(torch.arange(2.0))}, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt", weights_only=False)
    assert isinstance(got["c"].t, ember.Tensor) and got["c"].t.tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        ember.load(p, pickle_module=pickle)


_SAVER = textwrap.dedent("""
    import sys, os
    sys.path.insert(0, {pkg!r})
    import ember
    big = {{f"w{{i}}": ember.full((1024, 1024), float(i)) for i in range(64)}}  # 256 MiB
    print("ready", flush=True)
    while True:
        ember.save(big, {path!r})
""")


def test_save_killed_midway_leaves_previous_file_intact(tmp_path):
    p = tmp_path / "ckpt.pt"
    ember.save({"old": ember.arange(5.0)}, p)
    before = p.read_bytes()
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))  # <build>/python
    code = _SAVER.format(pkg=pkg, path=str(p))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        # Wait until the temporary file exists and is being written, then kill the saver.
        deadline = time.time() + 60
        while time.time() < deadline:
            tmps = [f for f in os.listdir(tmp_path) if f.startswith(".ckpt.pt.tmp.")]
            if tmps and os.path.getsize(tmp_path / tmps[0]) > (1 << 20):
                break
            time.sleep(0.005)
        else:
            pytest.fail("the saver never started writing")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert p.read_bytes() == before
    assert ember.load(p)["old"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    # A later save completes and replaces it atomically; stale temporaries are never loaded.
    ember.save({"new": ember.ones(2)}, p)
    assert list(ember.load(p)) == ["new"]
    assert oct(os.stat(p).st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m
