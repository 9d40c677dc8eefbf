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

NOT_YET = set()  # the opset is complete


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
