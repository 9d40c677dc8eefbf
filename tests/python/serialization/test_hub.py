"""ember.hub against torch.hub's documented behaviour: a local http.server (threads of this test
process) serves checkpoints written by torch 1.13; downloads, the cache, the hash rule, the
texts on stderr, failures that leave nothing behind, file:// URLs."""
import hashlib
import http.server
import os
import pathlib
import re
import subprocess
import sys
import threading
import urllib.error

import pytest
import torch

import ember

HERE = pathlib.Path(__file__).resolve().parent


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        if self.path.startswith("/die/"):
            # Promise the whole file, send half, then drop the connection: a server dying midway.
            data = (pathlib.Path(self.directory) / self.path[len("/die/"):]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    torch.manual_seed(0)
    sd = {"w": torch.randn(64, 32), "b": torch.arange(5), "h": torch.randn(3).half()}
    torch.save(sd, root / "plain.pth")
    data = (root / "plain.pth").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    (root / f"weights-{digest[:8]}.pth").write_bytes(data)
    (root / "weights-deadbeef.pth").write_bytes(data)
    big = {"w": torch.randn(512, 1024)}  # 2 MiB: enough to be cut midway
    torch.save(big, root / "big.pth")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a, **k: Handler(*a, directory=str(root), **k))
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield {"root": root, "url": f"http://127.0.0.1:{server.server_address[1]}", "sd": sd, "digest": digest,
               "server": server, "big": big}
    finally:
        server.shutdown()
        server.server_close()


def same(ember_sd, torch_sd):
    assert list(ember_sd) == list(torch_sd)
    for k, v in torch_sd.items():
        e = ember_sd[k]
        assert str(e.dtype).replace("ember", "torch") == str(v.dtype)
        assert torch.equal(torch.tensor(e.float().tolist()), v.float()), k


def test_download_cache_and_texts(served, tmp_path, capsys):
    url = served["url"] + "/plain.pth"
    sd = ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path))
    same(sd, served["sd"])
    cached = os.path.join(str(tmp_path), "plain.pth")
    err = capsys.readouterr().err
    assert err.startswith(f'Downloading: "{url}" to {cached}\n')
    size = os.path.getsize(cached)
    bar = err.split("\n", 1)[1]
    # tqdm's meter: percent, ten-cell bar, bytes done / total, elapsed < remaining, rate.
    assert re.search(r"\r100%\|██████████\| \S+/\S+ \[\d\d:\d\d<\d\d:\d\d, [0-9.]+[kMG]?B/s\]", bar), bar
    assert f"{size / 1024:.2f}k/{size / 1024:.2f}k" in bar or f"{size / 1024:.1f}k" in bar
    assert bar.endswith("\n")
    assert pathlib.Path(cached).read_bytes() == (served["root"] / "plain.pth").read_bytes()
    n = len(served["server"].requests)
    again = ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path))  # cache hit
    same(again, served["sd"])
    assert len(served["server"].requests) == n
    assert capsys.readouterr().err == ""
    assert sorted(os.listdir(tmp_path)) == ["plain.pth"]


def test_progress_false_prints_only_the_downloading_line(served, tmp_path, capsys):
    url = served["url"] + "/plain.pth"
    ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path), progress=False, file_name="other.pt")
    assert capsys.readouterr().err == f'Downloading: "{url}" to {tmp_path / "other.pt"}\n'
    assert os.listdir(tmp_path) == ["other.pt"]
    ember.hub.download_url_to_file(url, str(tmp_path / "x.pt"), progress=False)
    assert capsys.readouterr().err == ""


def test_check_hash(served, tmp_path):
    digest = served["digest"]
    good = served["url"] + f"/weights-{digest[:8]}.pth"
    same(ember.hub.load_state_dict_from_url(good, model_dir=str(tmp_path), check_hash=True, progress=False),
         served["sd"])
    bad = served["url"] + "/weights-deadbeef.pth"
    with pytest.raises(RuntimeError) as e:
        ember.hub.load_state_dict_from_url(bad, model_dir=str(tmp_path / "b"), check_hash=True, progress=False)
    assert str(e.value) == f'invalid hash value (expected "deadbeef", got "{digest}")'
    assert os.listdir(tmp_path / "b") == []  # nothing cached, no temporary file left
    # Without check_hash the same name is not checked, as in torch.hub.
    ember.hub.load_state_dict_from_url(bad, model_dir=str(tmp_path / "c"), progress=False)
    # download_url_to_file's own hash_prefix.
    with pytest.raises(RuntimeError, match=r'^invalid hash value \(expected "0000", got "[0-9a-f]{64}"\)$'):
        ember.hub.download_url_to_file(good, str(tmp_path / "d.pth"), hash_prefix="0000", progress=False)
    ember.hub.download_url_to_file(good, str(tmp_path / "d.pth"), hash_prefix=digest[:20], progress=False)
    assert (tmp_path / "d.pth").read_bytes() == (served["root"] / "plain.pth").read_bytes()


@pytest.mark.parametrize("name", [
    "resnet18-f37072fd.pth", "mobilenet_v2_qnnpack_37f702c5.pth", "a-b-0fa.pth", "x-.pth", "x-ABC.pth",
    "x-abc.tar.gz", "noext-abc", "m-1a2b-3c.pt", "m.v1-ff.pth", "plain.pth"])
def test_hash_rule_is_torch_hubs(name):
    m = torch.hub.HASH_REGEX.search(name)
    assert ember._C._hub.hash_prefix_of(name) == (m.group(1) if m else None)


def test_server_dying_midway_leaves_nothing(served, tmp_path):
    url = served["url"] + "/die/big.pth"
    with pytest.raises(urllib.error.URLError) as e:
        ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path), progress=False)
    assert "partial" in str(e.value.reason).lower() or "closed" in str(e.value.reason).lower()
    assert os.listdir(tmp_path) == []
    with pytest.raises(urllib.error.URLError):
        ember.hub.download_url_to_file(url, str(tmp_path / "big.pth"), progress=True)
    assert os.listdir(tmp_path) == []
    # The whole file from the live server loads.
    big = ember.hub.load_state_dict_from_url(served["url"] + "/big.pth", model_dir=str(tmp_path), progress=False)
    same(big, served["big"])


def test_http_errors_are_urllibs(served, tmp_path):
    with pytest.raises(urllib.error.HTTPError) as e:
        ember.hub.load_state_dict_from_url(served["url"] + "/missing.pth", model_dir=str(tmp_path),
                                           progress=False)
    assert e.value.code == 404 and str(e.value) == "HTTP Error 404: Not Found"
    assert os.listdir(tmp_path) == []
    with pytest.raises(urllib.error.URLError):  # nobody listens there
        ember.hub.download_url_to_file("http://127.0.0.1:9/x.pth", str(tmp_path / "x"), progress=False)
    assert os.listdir(tmp_path) == []


def test_file_urls(served, tmp_path):
    src = served["root"] / "plain.pth"
    url = src.as_uri()
    ember.hub.download_url_to_file(url, str(tmp_path / "copy.pth"), hash_prefix=served["digest"][:8], progress=False)
    assert (tmp_path / "copy.pth").read_bytes() == src.read_bytes()
    same(ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / "cache"), progress=False), served["sd"])
    with pytest.raises(urllib.error.URLError):
        ember.hub.download_url_to_file((served["root"] / "nope.pth").as_uri(), str(tmp_path / "n"), progress=False)
    assert not (tmp_path / "n").exists()


def test_map_location_and_weights_only_go_to_load(served, tmp_path):
    url = served["url"] + "/plain.pth"
    sd = ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path), progress=False, map_location="cpu",
                                            weights_only=False)
    same(sd, served["sd"])
    seen = []
    ember.hub.load_state_dict_from_url(url, model_dir=str(tmp_path), progress=False,
                                       map_location=lambda storage, loc: seen.append(loc) or storage)
    assert seen and set(seen) == {"cpu"}


def run_py(code, env):
    full = {k: v for k, v in os.environ.items() if k not in ("EMBER_HOME", "XDG_CACHE_HOME")}
    full.update(env)
    full["PYTHONPATH"] = str(pathlib.Path(ember.__file__).parents[1])
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_get_dir_follows_the_environment_as_torch_hub(tmp_path):
    code = "import ember; print(ember.hub.get_dir())"
    assert run_py(code, {"HOME": str(tmp_path)}) == f"{tmp_path}/.cache/ember/hub"
    assert run_py(code, {"XDG_CACHE_HOME": "/xdg"}) == "/xdg/ember/hub"
    assert run_py(code, {"XDG_CACHE_HOME": "/xdg", "EMBER_HOME": "/eh"}) == "/eh/hub"
    assert run_py(code, {"EMBER_HOME": "~/eh", "HOME": "/home/u"}) == "/home/u/eh/hub"
    assert run_py("import ember; ember.hub.set_dir('~/hubdir'); print(ember.hub.get_dir())",
                  {"HOME": "/home/u"}) == "/home/u/hubdir"


def test_default_model_dir_is_get_dir_checkpoints(served, tmp_path):
    old = ember.hub.get_dir()
    ember.hub.set_dir(tmp_path)
    try:
        ember.hub.load_state_dict_from_url(served["url"] + "/plain.pth", progress=False)
        assert os.listdir(tmp_path / "checkpoints") == ["plain.pth"]
    finally:
        ember.hub.set_dir(old)


def test_the_notebooks_quantized_mobilenet_checkpoint(served, tmp_path):
    """torch 1.13 converts torchvision's quantizable MobileNetV2 on qnnpack and saves its
    state_dict under the notebook's file name (no dash: check_hash does not apply); ember
    downloads it with load_state_dict_from_url and loads it into its quantized twin, which then
    computes torch's logits."""
    pytest.importorskip("torchvision")
    sys.path.insert(0, str(HERE.parent / "quantized"))
    try:
        import mobilenet_port as port
    finally:
        sys.path.pop(0)
    prev_t, prev_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    try:
        check_quantized_mobilenet(port, served, tmp_path)
    finally:
        torch.backends.quantized.engine = prev_t
        ember.backends.quantized.engine = prev_e


def check_quantized_mobilenet(port, served, tmp_path):
    tmodel = port.torch_int8_mobilenet("qnnpack", calibration_batches=1)
    name = "mobilenet_v2_qnnpack_37f702c5.pth"
    torch.save(tmodel.state_dict(), served["root"] / name)
    sd = ember.hub.load_state_dict_from_url(served["url"] + "/" + name, model_dir=str(tmp_path),
                                            progress=False, check_hash=True)
    assert any(k.endswith("_packed_params._packed_params") for k in sd)
    ember.backends.quantized.engine = "qnnpack"  # weights are packed for the engine at load
    emodel = port.QuantizedMobileNetV2(port._twin(tmodel.features), port._twin(tmodel.classifier),
                                       port._twin(tmodel.quant))
    emodel.load_state_dict(sd)
    emodel.eval()
    x_t, x_e = port.same_input()
    with torch.no_grad():
        want = tmodel(x_t)
    got = emodel(x_e)
    assert torch.equal(torch.tensor(got.tolist()), want)
