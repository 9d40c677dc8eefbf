"""ember.autograd.detect_anomaly / set_detect_anomaly against torch 1.13: the warnings (enabling,
and the forward traceback of the node whose backward failed), the NaN check and its text, the
flags, check_nan=False, and the decorator form (Note [Anomaly mode])."""
import warnings

import pytest
import torch

import ember


def failing_function(lib):
    class Broken(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("Some error in backward")
    return Broken


@pytest.mark.parametrize("lib", [torch, ember])
def test_failing_backward_warns_with_the_forward_traceback(lib):
    Broken = failing_function(lib)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            a = lib.rand(3, requires_grad=True)
            out = Broken.apply(a)  # THE FORWARD LINE
            with pytest.raises(RuntimeError, match="Some error in backward"):
                out.sum().backward()
    texts = [str(x.message) for x in w]
    assert texts[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                        "should only be enabled for debugging.")
    err = [t for t in texts if t.startswith("Error detected in BrokenBackward.")]
    assert len(err) == 1
    assert "Traceback of forward call that caused the error:" in err[0]
    assert "out = Broken.apply(a)  # THE FORWARD LINE" in err[0]
    assert __file__ in err[0]


@pytest.mark.parametrize("lib", [torch, ember])
def test_nan_in_a_gradient_raises(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            a = lib.tensor([0.0, 1.0], requires_grad=True)
            y = (a.sqrt() * 0).sum()  # sqrt's backward at 0: inf * 0 = nan
            with pytest.raises(RuntimeError) as e:
                y.backward()
            assert str(e.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."
        with lib.autograd.detect_anomaly(check_nan=False):
            assert not lib.is_anomaly_check_nan_enabled()
            a = lib.tensor([0.0], requires_grad=True)
            (a.sqrt() * 0).sum().backward()
            assert a.grad.isnan().all()


@pytest.mark.parametrize("lib", [torch, ember])
def test_flags_and_set_detect_anomaly(lib):
    assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
    lib.autograd.set_detect_anomaly(True)
    try:
        assert lib.is_anomaly_enabled()
    finally:
        lib.autograd.set_detect_anomaly(False)
    assert not lib.is_anomaly_enabled()
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
    assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
    lib.set_anomaly_enabled(True)
    lib.set_anomaly_enabled(False)
    assert not lib.is_anomaly_enabled()


def test_nodes_made_without_anomaly_mode_say_so():
    Broken = failing_function(ember)
    a = ember.rand(3, requires_grad=True)
    out = Broken.apply(a)  # recorded with anomaly mode off
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with ember.autograd.set_detect_anomaly(True):
            with pytest.raises(RuntimeError, match="Some error in backward"):
                out.sum().backward()
    assert [str(x.message) for x in w] == [
        "Error detected in BrokenBackward. No forward pass information available. Enable detect anomaly "
        "during forward pass for more information."]


def test_decorator_form():
    @ember.autograd.detect_anomaly()
    def run():
        return ember.is_anomaly_enabled()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run() is True
    assert not ember.is_anomaly_enabled()


def test_saved_tensor_error_points_to_an_existing_switch():
    a = ember.ones(2, requires_grad=True)
    y = (a * 1).exp()  # exp saves its result
    with ember.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=r"ember.autograd.set_detect_anomaly\(True\)"):
        y.sum().backward()
    assert callable(ember.autograd.set_detect_anomaly)
