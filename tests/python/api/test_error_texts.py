"""No text ember shows a user says `torch.` where PyTorch's says it (issue 17): ember says
`ember.`. tests/python/conftest.py checks every error text the suite provokes (C++ and Python);
this file checks that the check is live, the rule itself, the two texts the issue found, and
every error and warning text written in ember's Python sources, provoked or not."""
import ast
import pathlib

import pytest

import ember
from error_texts import names_torch

REPO = pathlib.Path(__file__).resolve().parents[3]


def test_rule():
    assert names_torch("expected torch.Tensor but received <class 'int'>")
    assert names_torch("copying a param with shape torch.Size([4, 3])")
    assert names_torch("with `torch.__future__.set_swap_module_params_on_conversion(True)`")
    assert not names_torch("expected ember.Tensor")
    assert not names_torch("see https://pytorch.org/docs/stable/optim.html")
    assert not names_torch("__torch__.torch.classes.quantized.LinearPackedParamsBase")
    assert not names_torch("as safetensors.torch.save_model does")
    assert not names_torch("Unsupported global: torch._utils._rebuild_device_tensor_from_numpy")
    assert not names_torch("expected a Tensor, got <class 'torch.Tensor'>")
    assert not names_torch("Unsupported global: GLOBAL torch.nn.modules._copy._rebuild_module is not "
                           "an allowed global")
    assert not names_torch("see https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
    assert names_torch("https://x.org/ torch.nn")


def test_cpp_error_texts_are_recorded():
    """The conftest's check sees C++ errors: recording is on in this process."""
    ember._C._take_recorded_errors()
    with pytest.raises(IndexError):
        ember.zeros(3)[5]
    texts = ember._C._take_recorded_errors()
    assert "index 5 is out of bounds for dimension 0 with size 3" in texts


def test_load_state_dict_size_mismatch_says_ember_size():
    m = ember.nn.Linear(3, 4)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({"weight": ember.zeros(4, 2), "bias": ember.zeros(4)})
    text = str(info.value)
    assert "copying a param with shape ember.Size([4, 2]) from checkpoint, the shape in current " \
           "model is ember.Size([4, 3])." in text
    assert not names_torch(text)


def test_swap_poisoning_says_ember_future():
    ember.__future__.set_swap_module_params_on_conversion(True)
    try:
        m = ember.nn.Linear(2, 2)
        out = (m.weight * 2).sum()
        m.double()
        with pytest.raises(RuntimeError) as info:
            out.backward()
    finally:
        ember.__future__.set_swap_module_params_on_conversion(False)
    text = str(info.value)
    assert "ember.__future__.set_swap_module_params_on_conversion(True)" in text
    assert not names_torch(text)


def _texts(node):
    """The string constants of an expression (f-strings' literal parts included)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            yield n.value


def _is_warn(call):
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "warn") or (isinstance(f, ast.Name) and f.id == "warn")


def test_python_sources_say_ember():
    """Every `raise X("...")` and `warnings.warn("...")` text in python/ember."""
    bad = []
    for path in sorted((REPO / "python" / "ember").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            exprs = []
            if isinstance(node, ast.Raise) and node.exc is not None:
                exprs.append(node.exc)
            elif isinstance(node, ast.Call) and _is_warn(node):
                exprs.extend(node.args[:1])
            for e in exprs:
                for text in _texts(e):
                    if names_torch(text):
                        bad.append(f"{path.relative_to(REPO)}:{node.lineno}: {text!r}")
    assert not bad, "\n".join(bad)
