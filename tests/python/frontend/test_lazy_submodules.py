"""`torch.utils.data` and `torch.utils.checkpoint` are reachable as attributes after a bare
`import torch`, as in PyTorch (whose torch/__init__ imports both). ember imports them on first
attribute access (ember/utils/__init__.py); each name must give its own module. Checked in a
fresh interpreter, where nothing else has imported them yet."""
import os
import subprocess
import sys

import ember

SCRIPT = """
import sys
import ember
assert "ember.utils.checkpoint" not in sys.modules and "ember.utils.data" not in sys.modules
ck, data = ember.utils.checkpoint, ember.utils.data
print(ck.__name__, data.__name__)
x = ember.ones(3, requires_grad=True)
ck.checkpoint(lambda t: t.sin(), x, use_reentrant=False).sum().backward()
print(ember.allclose(x.grad, x.detach().cos()))
print(type(next(iter(data.DataLoader(data.TensorDataset(ember.arange(4)), batch_size=2)))[0]).__name__)
"""


def test_utils_submodules_by_attribute_in_a_fresh_interpreter():
    path = os.path.dirname(os.path.dirname(ember.__file__))
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ember.utils.checkpoint", "ember.utils.data", "True", "Tensor"]


def test_unknown_utils_attribute_raises():
    try:
        ember.utils.no_such_module
    except AttributeError as e:
        assert "no attribute 'no_such_module'" in str(e)
    else:
        raise AssertionError("expected AttributeError")
