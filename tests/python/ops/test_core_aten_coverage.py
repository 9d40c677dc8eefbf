"""Coverage of PyTorch's Core ATen IR opset (issue 16).

`core_aten_ops.txt` beside this file is the fixture: every `core`-tagged entry of PyTorch's
native_functions.yaml, pinned to one PyTorch commit (its header says which). Every entry must resolve
as `ember.ops.aten.<name>.<overload>` to an op of ember's table.

`NOT_YET` lists the entries ember does not have yet. The test fails both when an op outside the list
is missing (a regression) and when an op on the list has arrived (so the list only shrinks, and
the test says which lines to delete). When the opset is complete the list is empty.
"""
import pathlib

import pytest

import ember

FIXTURE = pathlib.Path(__file__).with_name("core_aten_ops.txt")

NOT_YET = {
    "_adaptive_avg_pool3d", "_cdist_forward", "_embedding_bag", "_fft_c2r", "_fft_r2c",
    "_local_scalar_dense", "_native_batch_norm_legit", "_native_batch_norm_legit.no_stats",
    "_native_batch_norm_legit_no_training", "_pdist_forward", "acos", "acosh",
    "adaptive_avg_pool1d", "add.Scalar", "any.dims", "asin", "asinh", "atan", "atan2", "atan2.out",
    "atanh", "avg_pool1d", "avg_pool3d", "bitwise_and.Scalar", "bitwise_or.Scalar",
    "bitwise_xor.Scalar", "ceil", "col2im", "copy", "cosh", "diagonal", "div.Scalar_mode", "elu",
    "eq.Scalar", "erf", "fill.Scalar", "flip", "floor", "fmod.Scalar", "fmod.Tensor", "ge.Scalar",
    "grid_sampler_2d", "gt.Scalar", "index_put", "isinf", "isnan", "le.Scalar", "leaky_relu",
    "log10", "log2", "lt.Scalar", "masked_scatter", "max_pool3d_with_indices",
    "native_group_norm_backward", "native_layer_norm", "native_layer_norm_backward", "ne.Scalar",
    "pow.Scalar", "reciprocal", "reflection_pad3d", "remainder.Scalar", "repeat",
    "replication_pad3d", "resize_", "round", "scalar_tensor", "scatter_reduce.two",
    "select_scatter", "sinh", "slice_scatter", "squeeze.dims", "sub.Scalar", "sym_is_contiguous",
    "sym_numel", "sym_size.int", "sym_storage_offset", "sym_stride.int", "tan", "trunc",
    "upsample_bilinear2d.vec", "upsample_nearest2d.vec",
}


def core_entries():
    for line in FIXTURE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, overload = line.partition(".")
            yield line, name, overload or "default"


def resolves(name: str, overload: str) -> bool:
    try:
        packet = getattr(ember.ops.aten, name)
        op = getattr(packet, overload)
    except AttributeError:
        return False
    return callable(op)


def test_fixture_is_the_pinned_opset():
    entries = list(core_entries())
    header = FIXTURE.read_text().splitlines()[:5]
    assert any("193 entries" in line for line in header)
    assert len(entries) == 193
    assert len({e[0] for e in entries}) == 193


def test_every_core_aten_op_resolves():
    missing = {entry for entry, name, overload in core_entries() if not resolves(name, overload)}
    regressed = sorted(missing - NOT_YET)
    arrived = sorted(NOT_YET - missing)
    assert not regressed, f"Core ATen ops that no longer resolve: {regressed}"
    assert not arrived, f"these ops resolve now; delete them from NOT_YET: {arrived}"


@pytest.mark.parametrize("entry", ["add.Tensor", "convolution", "native_dropout"])
def test_resolved_entries_are_ops_of_the_table(entry):
    name, _, overload = entry.partition(".")
    if entry in NOT_YET:
        pytest.skip(f"{entry} is not in ember yet")
    op = getattr(getattr(ember.ops.aten, name), overload or "default")
    assert str(op) == f"aten.{name}.{overload or 'default'}"
