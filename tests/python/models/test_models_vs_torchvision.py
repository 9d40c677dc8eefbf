"""ember::models against torchvision 0.14 (Debian's python3-torchvision, the oracle).

For MobileNetV2 (widths 1.0 and 0.5) and ResNet-18/34/50, the C++ tool tests/tools/ember_models
builds ember's model; this test checks that

* the repr is torchvision's, character for character,
* the state_dict keys, dtypes and shapes are torchvision's, in the same order,
* with torchvision's weights copied by name (batch-norm statistics and affine parameters
  randomised, so that the norms are not identities) the outputs agree within float tolerance,
  in eval mode and (for the ResNets, which have no dropout) in train mode, and a training
  forward leaves the same running statistics and num_batches_tracked behind.

Run: /usr/bin/python3 -m pytest tests/python/models/test_models_vs_torchvision.py
"""
import subprocess

import numpy as np
import pytest
import torch

torchvision = pytest.importorskip("torchvision")
from torchvision import models as tvm  # noqa: E402

CASES = [
    ("mobilenet_v2", 1000, 1.0, 96),
    ("mobilenet_v2", 10, 0.5, 64),
    ("resnet18", 1000, 1.0, 64),
    ("resnet34", 100, 1.0, 64),
    ("resnet50", 1000, 1.0, 64),
]


def torchvision_model(name, num_classes, width):
    if name == "mobilenet_v2":
        return tvm.mobilenet_v2(num_classes=num_classes, width_mult=width)
    return getattr(tvm, name)(num_classes=num_classes)


def randomise_norms(model, gen):
    """BatchNorm statistics and affine parameters away from their identity init."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)
                m.num_batches_tracked.fill_(3)


def dtype_name(t):
    return str(t.dtype).split(".")[1]


def write_spec(tmp_path, name, num_classes, width, mode, sd, x):
    blob = tmp_path / "tensors.bin"
    lines = [f"model {name} {num_classes} {width}", f"mode {mode}"]
    offset = 0
    with open(blob, "wb") as f:
        items = list(sd.items()) + [("<input>", x)]
        for key, t in items:
            t = t.detach().contiguous()
            data = t.numpy().tobytes()
            f.write(data)
            desc = f"T {dtype_name(t)} c {t.dim()} " + " ".join(str(s) for s in t.shape)
            desc += f" {blob}@{offset}"
            offset += len(data)
            lines.append(f"input {desc}" if key == "<input>" else f"param {key} {desc}")
    spec = tmp_path / "spec.txt"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def read_results(outdir):
    """{"out": array, "sd <key>": array} from results.txt."""
    res = {}
    for line in (outdir / "results.txt").read_text().splitlines():
        if line.startswith("error"):
            raise AssertionError(f"ember_models failed: {line}")
        head, rest = line.split(" T ", 1)
        parts = rest.split()
        dtype, ndim = parts[0], int(parts[1])
        sizes = [int(s) for s in parts[2:2 + ndim]]
        path, off = parts[2 + ndim].rsplit("@", 1)
        np_dtype = {"float32": np.float32, "int64": np.int64}[dtype]
        count = int(np.prod(sizes)) if sizes else 1
        arr = np.fromfile(path, dtype=np_dtype, count=count, offset=int(off)).reshape(sizes)
        res[head] = arr
    return res


def run_tool(tool, tmp_path, name, num_classes, width, mode, sd, x):
    out = tmp_path / f"out_{mode}"
    out.mkdir()
    spec = write_spec(tmp_path, name, num_classes, width, mode, sd, x)
    subprocess.run([str(tool), str(spec), str(out)], check=True, timeout=600)
    return out


def assert_close(got, want, what):
    scale = max(1.0, float(np.abs(want).max()))
    err = float(np.abs(got - want).max())
    assert err <= 1e-4 * scale, f"{what}: max |ember - torchvision| = {err} (scale {scale})"


@pytest.mark.parametrize("name,num_classes,width,size", CASES)
def test_model_matches_torchvision(ember_tool, tmp_path, name, num_classes, width, size):
    tool = ember_tool("ember_models")
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    ref = torchvision_model(name, num_classes, width)
    randomise_norms(ref, gen)
    sd = ref.state_dict()
    x = torch.randn(2, 3, size, size, generator=gen)

    # Eval: the tree, names and shapes first, then the outputs.
    out = run_tool(tool, tmp_path, name, num_classes, width, "eval", sd, x)
    assert (out / "repr.txt").read_text() == repr(ref)
    keys = [line.split() for line in (out / "keys.txt").read_text().splitlines()]
    want_keys = [[k, dtype_name(v)] + [str(s) for s in v.shape] for k, v in sd.items()]
    assert keys == want_keys
    ref.eval()
    with torch.no_grad():
        want = ref(x).numpy()
    res = read_results(out)
    assert res["out"].shape == want.shape
    assert_close(res["out"], want, f"{name} eval output")

    # Train: batch statistics, and the running statistics each BatchNorm leaves behind.
    ref.load_state_dict(sd)
    sd_before = {k: v.clone() for k, v in sd.items()}
    ref.train()
    with torch.no_grad():
        want = ref(x).numpy()
    out = run_tool(tool, tmp_path, name, num_classes, width, "train", sd_before, x)
    res = read_results(out)
    if name.startswith("resnet"):
        # MobileNetV2's classifier starts with Dropout(0.2): its training outputs are random.
        assert_close(res["out"], want, f"{name} train output")
    for k, v in ref.state_dict().items():
        got = res["sd " + k]
        if k.endswith("num_batches_tracked"):
            assert int(got) == int(v) == 4, k
        else:
            assert_close(got, v.numpy(), k)
