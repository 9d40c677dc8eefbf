"""Exports the torchvision networks bench_models times on the libtorch side, as TorchScript.

    /usr/bin/python3 benchmarks/export_torchvision_models.py OUT_DIR

bench_models runs this itself at start (into build-bench/benchmarks/models, unless the files
are already there), since Debian packages torchvision for Python only: libtorch has no C++
torchvision, so the C++ benchmark loads these modules with torch::jit::load. For each of
mobilenet_v2 and resnet18 (torchvision 0.14, weights=None, torch.manual_seed(0), eval mode):

    NAME_script.pt          torch.jit.script(model): the eager op sequence (bench_models runs it
                            with the graph executor's optimizations off: eager's ATen calls
                            without Python's per-module overhead); its parameters and buffers are
                            also the weights bench_models copies into ember's model, by name
    NAME_script_cl.pt       the same after model.to(memory_format=torch.channels_last)
    NAME_frozen.pt          torch.jit.freeze(torch.jit.script(model)): the issue's
                            "TorchScript-frozen" figure (conv-bn folding, constant weights)
    NAME_frozen_cl.pt       frozen, channels_last
"""
import copy
import os
import sys

import torch
import torchvision


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name in ("mobilenet_v2", "resnet18"):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        cl = copy.deepcopy(model).to(memory_format=torch.channels_last)
        for suffix, net in (("", model), ("_cl", cl)):
            scripted = torch.jit.script(net)
            scripted.save(os.path.join(out_dir, f"{name}_script{suffix}.pt"))
            frozen = torch.jit.freeze(torch.jit.script(copy.deepcopy(net)))
            frozen.save(os.path.join(out_dir, f"{name}_frozen{suffix}.pt"))
    with open(os.path.join(out_dir, "done"), "w") as f:
        f.write(f"torch {torch.__version__}, torchvision {torchvision.__version__}\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: export_torchvision_models.py OUT_DIR")
    main(sys.argv[1])
