"""ember.cuda / ember.backends, Tensor.is_cuda / cpu() / cuda(), CUDA devices refused with a
CPU-only PyTorch's AssertionError, ember.device parsing, ember.vision reachable lazily."""
import subprocess
import sys

import pytest
import torch

import ember

NO_CUDA = "ember not compiled with CUDA enabled"


def test_cuda_module_answers_like_cpu_only_torch():
    assert ember.cuda.is_available() is False is torch.cuda.is_available()
    assert ember.cuda.device_count() == 0 == torch.cuda.device_count()
    assert ember.cuda.is_initialized() is False
    assert ember.cuda.get_arch_list() == []
    assert ember.cuda.memory_allocated() == 0
    assert ember.cuda.manual_seed_all(1) is None and ember.cuda.manual_seed(1) is None
    assert ember.cuda.get_rng_state_all() == []
    for fn in [ember.cuda.current_device, ember.cuda.init, ember.cuda.synchronize,
               ember.cuda.get_device_name, ember.cuda.is_bf16_supported]:
        with pytest.raises(AssertionError, match=f"^{NO_CUDA}$"):
            fn()
    with pytest.raises(AssertionError, match=NO_CUDA):
        with ember.cuda.device(0):
            pass
    with ember.cuda.device(None):
        pass


def test_device_selecting_code_runs():
    device = ember.device("cuda" if ember.cuda.is_available() else "cpu")
    model = ember.nn.Linear(2, 2).to(device)
    assert model(ember.ones(1, 2).to(device)).device == device


def test_backends():
    assert ember.backends.mps.is_available() is False is torch.backends.mps.is_available()
    assert ember.backends.mps.is_built() is False
    assert ember.backends.cudnn.is_available() is False
    ember.backends.cudnn.benchmark = True
    ember.backends.cudnn.benchmark = False
    assert ember.backends.mkldnn.is_available() is True
    assert ember.backends.cuda.is_built() is False


def test_tensor_cpu_and_is_cuda():
    x = ember.ones(2)
    assert x.is_cuda is False and torch.ones(2).is_cuda is False
    assert x.cpu() is x
    assert torch.ones(2).cpu() is not None


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(2, device="cuda"),
    lambda m: m.zeros(2, device="cuda:0"),
    lambda m: m.zeros(2, device=m.device("cuda")),
    lambda m: m.zeros(2).to("cuda"),
    lambda m: m.zeros(2).to(m.device("cuda", 1)),
    lambda m: m.zeros(2).to("cuda", m.float64),
    lambda m: m.zeros(2).cuda(),
    lambda m: m.zeros(2).cuda(0),
    lambda m: m.zeros(2, device="meta").cuda(),
    lambda m: m.ones(2, 2, device="cuda"),
    lambda m: m.nn.Linear(2, 2).to("cuda"),
])
def test_cuda_use_raises_torch_assertion(make):
    with pytest.raises(AssertionError) as t_err:
        make(torch)
    assert str(t_err.value) == "Torch not compiled with CUDA enabled"
    with pytest.raises(AssertionError) as e_err:
        make(ember)
    assert str(e_err.value) == NO_CUDA


@pytest.mark.parametrize("args", [("cuda",), ("cuda:0",), ("cuda:3",), ("cpu",), ("cpu:0",),
                                  ("meta",), ("cuda", 0), ("cuda", 2), ("cpu", 0), (0,), (1,)])
def test_device_objects_as_torch(args):
    t, e = torch.device(*args), ember.device(*args)
    assert repr(e) == repr(t)
    assert str(e) == str(t)
    assert (e.type, e.index) == (t.type, t.index)
    assert e == ember.device(*args) and hash(e) == hash(ember.device(*args))
    assert ember.device(e) == e


def test_device_equality_and_errors():
    assert ember.device("cuda") != ember.device("cuda:0")
    assert ember.device("cpu") != ember.device("cuda")
    for spec in ["cuda:x", "cuda:-1", "cuda:0:1", "foo"]:
        with pytest.raises(RuntimeError) as t_err:
            torch.device(spec)
        with pytest.raises(RuntimeError) as e_err:
            ember.device(spec)
        if spec != "foo":  # PyTorch lists its many device types; ember names its own
            assert str(e_err.value) == str(t_err.value)
        else:
            assert str(e_err.value) == ("Expected one of cpu, cuda, meta device type at start of "
                                        "device string: foo")
    with pytest.raises(RuntimeError, match="^Device index must not be negative$"):
        ember.device("cuda", -1)


def test_cuda_device_as_context_raises():
    with pytest.raises(AssertionError, match=NO_CUDA):
        with ember.device("cuda"):
            pass


def test_vision_is_a_lazy_attribute():
    code = ("import sys, ember; assert 'ember.vision' not in sys.modules; "
            "m = ember.vision.models; assert 'ember.vision' in sys.modules; "
            "import ember.vision; assert ember.vision.models is m; "
            "assert callable(ember.vision.models.resnet18); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(__import__("os").environ, PYTHONPATH=ember.__path__[0] + "/.."))
    assert out.stdout.strip() == "ok", out.stderr
    with pytest.raises(AttributeError, match="module 'ember' has no attribute 'nonexistent'"):
        ember.nonexistent


def test_version():
    import re
    from pathlib import Path
    cmake = (Path(__file__).resolve().parents[3] / "CMakeLists.txt").read_text()
    version = re.search(r"project\(ember VERSION ([0-9.]+)", cmake).group(1)
    assert isinstance(ember.__version__, str)
    assert ember.__version__ == version == ember.version.__version__
    assert ember.__version__ >= "0.1"
    assert ember.__version__ > (0, 0, 9)
    assert ember.__version__ < "1.0.0a1"
    assert ember.__version__ < (1,)
    assert ember.__version__ > "0.1.0rc1"
    assert ember.__version__ > "0.1.0.dev3"
    assert ember.version.cuda is None
    # torch's behaves the same way
    assert torch.__version__ >= "1.12" and torch.__version__ < (2,)
