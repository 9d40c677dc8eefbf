"""get_default_qconfig / get_default_qat_qconfig come from one per-backend table; every backend
and version gives torch 1.13's recipe: the same observer / fake-quantize classes and the same
with_args keywords (what qconfig_equals compares), in the same order."""
import pytest

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402

import ember.ao.quantization as eq  # noqa: E402


def describe(partial_or_cls):
    p = partial_or_cls
    if hasattr(p, "p"):  # _PartialWrapper
        p = p.p
    func = getattr(p, "func", p)
    keywords = getattr(p, "keywords", {})
    out = [func.__name__]
    for k, v in keywords.items():
        v = describe(v) if callable(v) and not isinstance(v, (bool, int, float)) else v
        out.append((k, str(v).replace("torch.", "").replace("ember.", "")))
    return out


@pytest.mark.parametrize("backend", ["fbgemm", "qnnpack", "onednn", "x86", "unknown"])
def test_ptq_recipes(backend):
    e, t = eq.get_default_qconfig(backend), tq.get_default_qconfig(backend)
    assert describe(e.activation) == describe(t.activation)
    assert describe(e.weight) == describe(t.weight)


@pytest.mark.parametrize("backend", ["fbgemm", "qnnpack", "onednn", "x86", "unknown"])
@pytest.mark.parametrize("version", [0, 1])
def test_qat_recipes(backend, version):
    e = eq.get_default_qat_qconfig(backend, version)
    t = tq.get_default_qat_qconfig(backend, version)
    assert describe(e.activation) == describe(t.activation)
    assert describe(e.weight) == describe(t.weight)


def test_bad_versions():
    with pytest.raises(AssertionError, match="Version number must be 0$"):
        eq.get_default_qconfig("qnnpack", 1)
    with pytest.raises(AssertionError, match="Version number must be 0 or 1"):
        eq.get_default_qat_qconfig("qnnpack", 2)
