#!/usr/bin/env python3
"""Checkpoints: ember.save / ember.load beside torch.save / torch.load (1.13), in the same run.

Figures (one JSON line each, as the other benchmarks print them; best of several runs, each run
in a fresh process so that page faults and peak RSS are those of a real load):
  save_512MiB                   a state_dict of 32 x 2048x2048 float32 to a file (ember's save
                                is atomic: temp file, fsync, rename; torch's is not: the line
                                also carries ember without the fsync, "ember_no_fsync")
  load_512MiB                   the same file (written by torch) loaded; with peak RSS growth
                                during the load in MiB for both ("rss_peak_mib")
  load_mmap_512MiB              ember.load(mmap=True) of the file: time, and RSS growth in % of
                                the file (torch 1.13 has no mmap=True: "pytorch": null)
  resnet50_load_to_first_forward torchvision ResNet-50's checkpoint to the first forward of a
                                batch of 1 at 224x224: ember builds the model on meta and loads
                                with mmap=True and load_state_dict(assign=True); torch 1.13 (no
                                assign=) builds the model and copies the state_dict in

Usage: /usr/bin/python3 benchmarks/bench_serialization.py [substring]   (PYTHONPATH=<build>/python)
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap

RUNS = 3

CHILD = textwrap.dedent(r"""
    import sys, time, json, os, collections
    which, what, path = sys.argv[1], sys.argv[2], sys.argv[3]
    import torch, ember

    def rss():
        with open("/proc/self/status") as f:
            return {l.split(":")[0]: int(l.split()[1]) for l in f if l.startswith(("VmRSS", "VmHWM"))}

    def reset_peak():
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    out = {}
    if what == "save":
        g = torch.Generator().manual_seed(0)
        sd = collections.OrderedDict((f"layer{i}.weight", torch.randn(2048, 2048, generator=g)) for i in range(32))
        if which.startswith("ember"):
            sd = collections.OrderedDict((k, ember.from_numpy(v.numpy())) for k, v in sd.items())
        t0 = time.perf_counter()
        if which == "ember":
            ember.save(sd, path)
        elif which == "ember_no_fsync":  # written in place, no fsync, as torch.save does
            ember._C._serialization.save(sd, path, 2, "", atomic=False)
        else:
            torch.save(sd, path)
        out["s"] = time.perf_counter() - t0
    elif what in ("load", "load_mmap"):
        reset_peak()
        before = rss()["VmRSS"]
        t0 = time.perf_counter()
        if which == "ember":
            sd = ember.load(path, mmap=(what == "load_mmap"))
        else:
            sd = torch.load(path)
        out["s"] = time.perf_counter() - t0
        after = rss()
        out["rss_peak_mib"] = (after["VmHWM"] - before) / 1024
        out["rss_growth_mib"] = (after["VmRSS"] - before) / 1024
        assert len(sd) == 32
    elif what == "resnet50":
        import torchvision
        x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0))
        if which == "ember":
            ex = ember.from_numpy(x.numpy())
            t0 = time.perf_counter()
            with ember.device("meta"):
                m = ember.vision.models.resnet50()
            m.load_state_dict(ember.load(path, mmap=True), assign=True)
            m.eval()
            t1 = time.perf_counter()
            with ember.no_grad():
                m(ex)
        else:
            t0 = time.perf_counter()
            m = torchvision.models.resnet50()
            m.load_state_dict(torch.load(path))
            m.eval()
            t1 = time.perf_counter()
            with torch.no_grad():
                m(x)
        out["s"] = time.perf_counter() - t0
        out["load_s"] = t1 - t0  # until the model holds the checkpoint's weights
    print(json.dumps(out))
""")


def child(which, what, path):
    r = subprocess.run([sys.executable, "-c", CHILD, which, what, path], capture_output=True,
                       text=True, env=dict(os.environ))
    if r.returncode != 0:
        raise RuntimeError(f"{which} {what} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def best(which, what, path, key="s"):
    runs = [child(which, what, path) for _ in range(RUNS)]
    return min(runs, key=lambda r: r[key])


def line(name, unit, ember_v, torch_v, **extra):
    d = {"bench": name, "unit": unit, "ember": round(ember_v, 4),
         "pytorch": None if torch_v is None else round(torch_v, 4),
         "ratio": None if torch_v is None else round(ember_v / torch_v, 3), "lower_is_better": True}
    d.update(extra)
    print(json.dumps(d), flush=True)


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    with tempfile.TemporaryDirectory(dir=os.environ.get("EMBER_BENCH_TMP")) as d:
        tpath, epath = os.path.join(d, "torch512.pt"), os.path.join(d, "ember512.pt")
        if only in "save_512MiB":
            e = best("ember", "save", epath)
            e2 = best("ember_no_fsync", "save", epath)
            t = best("torch", "save", tpath)
            line("save_512MiB", "s", e["s"], t["s"], ember_no_fsync=round(e2["s"], 4))
        if not os.path.exists(tpath):
            child("torch", "save", tpath)
        if only in "load_512MiB":
            e = best("ember", "load", tpath)
            t = best("torch", "load", tpath)
            line("load_512MiB", "s", e["s"], t["s"],
                 rss_peak_mib={"ember": round(e["rss_peak_mib"], 1), "pytorch": round(t["rss_peak_mib"], 1)})
        if only in "load_mmap_512MiB":
            e = best("ember", "load_mmap", tpath)
            size_mib = os.path.getsize(tpath) / 2**20
            line("load_mmap_512MiB", "ms", e["s"] * 1e3, None,
                 rss_growth_pct_of_file=round(100 * e["rss_growth_mib"] / size_mib, 2))
        if only in "resnet50_load_to_first_forward":
            import torch
            import torchvision
            torch.manual_seed(0)
            rpath = os.path.join(d, "resnet50.pth")
            torch.save(torchvision.models.resnet50().state_dict(), rpath)
            e = best("ember", "resnet50", rpath)
            t = best("torch", "resnet50", rpath)
            line("resnet50_load_to_first_forward", "s", e["s"], t["s"],
                 load_only_s={"ember": round(e["load_s"], 4), "pytorch": round(t["load_s"], 4)},
                 first_forward_s={"ember": round(e["s"] - e["load_s"], 4),
                                  "pytorch": round(t["s"] - t["load_s"], 4)})


if __name__ == "__main__":
    main()
