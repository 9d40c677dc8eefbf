"""ember.save's fast path (Note [Saving at disk speed]): with O_DIRECT (the default for atomic
saves where the file system takes it), without it (EMBER_DIRECT_IO=0), and in place
(atomic=False), the file holds the same bytes, record for record what torch.save writes, with
exact sizes (the padded O_DIRECT tail is truncated away)."""
import collections
import os
import zipfile

import pytest

import ember

torch = pytest.importorskip("torch")


def _state(seed):
    g = torch.Generator().manual_seed(seed)
    # Sizes that span several 16 MiB staging buffers and end off any 4096-byte block.
    return collections.OrderedDict([
        ("big", torch.randn(9 * 1024 * 1024 + 17, generator=g)),   # 36 MiB + 68 bytes
        ("odd", torch.randn(333, 7, generator=g).double()),
        ("empty", torch.zeros(0)),
        ("ints", torch.arange(4099, dtype=torch.int16)),
    ])


def _records(path):
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every record's CRC-32 checks
        return collections.OrderedDict((i.filename, (i.header_offset, i.CRC, z.read(i.filename)))
                                       for i in z.infolist())


def _records_of(data):
    import io
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        return {i.filename: z.read(i.filename) for i in z.infolist()}


def _ember(sd):
    # (an empty tensor made anew: from_numpy gives it numpy's stride 0, torch.zeros(0) has 1)
    return collections.OrderedDict((k, ember.from_numpy(v.numpy()) if v.numel() else ember.zeros(0))
                                   for k, v in sd.items())


@pytest.mark.parametrize("how", ["direct", "buffered", "in_place"])
def test_save_writes_torch_records_whatever_the_path(tmp_path, monkeypatch, how):
    sd = _state(0)
    torch.save(sd, tmp_path / "ckpt.pt")
    expect = _records(tmp_path / "ckpt.pt")
    os.replace(tmp_path / "ckpt.pt", tmp_path / "torch.pt")
    p = tmp_path / "ckpt.pt"  # the same stem, so the same archive name
    if how == "buffered":
        monkeypatch.setenv("EMBER_DIRECT_IO", "0")
    if how == "in_place":
        ember._C._serialization.save(_ember(sd), str(p), 2, "", atomic=False)
    else:
        ember.save(_ember(sd), p)
    got = _records(p)
    # torch 1.13's records, plus the two that 2.x writes (byteorder, .data/serialization_id).
    assert [n for n in got if n not in ("ckpt/byteorder", "ckpt/.data/serialization_id")] == list(expect)
    for name, (_, crc, data) in expect.items():
        assert got[name][1:] == (crc, data), name
    with zipfile.ZipFile(p) as z:
        for info in z.infolist():
            raw = open(p, "rb").read(info.header_offset + 30)[-30:]
            n_name, n_extra = int.from_bytes(raw[26:28], "little"), int.from_bytes(raw[28:30], "little")
            assert (info.header_offset + 30 + n_name + n_extra) % 64 == 0, info.filename
    # Exactly the bytes written: the file ends with the end-of-central-directory record.
    assert open(p, "rb").read()[-22:-18] == b"PK\x05\x06"
    back = torch.load(p)
    for k, v in sd.items():
        assert torch.equal(back[k], v), k
    assert [f for f in os.listdir(tmp_path) if ".tmp." in f] == []


def test_direct_and_buffered_saves_are_byte_identical(tmp_path, monkeypatch):
    sd = _ember(_state(1))
    ember.save(sd, tmp_path / "m.pt")
    a = (tmp_path / "m.pt").read_bytes()
    monkeypatch.setenv("EMBER_DIRECT_IO", "0")
    ember.save(sd, tmp_path / "m.pt")
    b = (tmp_path / "m.pt").read_bytes()
    sid = zipfile.ZipFile(tmp_path / "m.pt").getinfo("m/.data/serialization_id")
    # Every byte up to the serialization id's digits (random in each save) is the same; the
    # records after it (the id's data descriptor, the directory) hold the id's CRC.
    assert len(a) == len(b)
    assert a[:sid.header_offset] == b[:sid.header_offset]
    assert _records(tmp_path / "m.pt").keys() == {**_records_of(a)}.keys()

def test_save_to_a_folder_that_is_gone_names_it(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*nope does not exist"):
        ember.save({"a": ember.ones(3)}, tmp_path / "nope" / "x.pt")
