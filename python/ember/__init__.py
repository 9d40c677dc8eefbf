"""ember: PyTorch's extension points on a small C++ core. `import ember as torch`."""
from . import _C
from ._C import (  # noqa: F401  dtypes, devices, layouts, memory formats
    dtype, device, layout, memory_format, strided,
    contiguous_format, preserve_format, channels_last, channels_last_3d,
    float32, float, float64, double, float16, half, bfloat16, int8, uint8, int16, short,
    int32, int, int64, long, bool, quint8, qint8, qint32, complex64, cfloat, complex128, cdouble,
    quint4x2, quint2x4,
    get_default_dtype, set_default_dtype, get_num_threads, set_num_threads,
)
from ._size import Size
from ._tensor import Tensor
from .storage import TypedStorage, UntypedStorage  # noqa: F401  (copy / pickle: _utils.py)
from . import overrides, utils, __future__  # noqa: F401  (overrides installs the dispatcher)
from ._ops import ops  # noqa: F401
from . import autograd  # noqa: F401
from . import library  # noqa: F401  (operators defined at run time)

_C._set_size_class(Size)

# Every op of the table as a function (ember.add, ember.sum, ...); private aten names stay in _C.
# (the special_* and fft_* rows are ember.special's and ember.fft's functions, as torch.special's
# and torch.fft's are not torch.* names)
globals().update({name: fn for name, fn in _C._op_functions.items()
                  if not name.startswith(("_", "special_", "fft_"))})
# Quantized tensors: the ember.qscheme objects, and the private aten names PyTorch exposes too.
from ._C import (  # noqa: E402,F401
    empty_quantized, qscheme, per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
    per_channel_affine_float_qparams,
)
globals().update({name: _C._op_functions[name] for name in (
    "_empty_affine_quantized", "_empty_per_channel_affine_quantized",
    "_make_per_tensor_quantized_tensor", "_make_per_channel_quantized_tensor")})
# The tensor-qparams overloads first, as PyTorch's binding tries Tensor parameters before float
# ones (a 0-d tensor also fits a float): its grad_fn names that overload.
quantize_per_tensor = _C._make_op_function("quantize_per_tensor", [
    "aten::quantize_per_tensor.tensor_qparams", "aten::quantize_per_tensor",
    "aten::quantize_per_tensor.tensors"], False)
fake_quantize_per_tensor_affine = _C._make_op_function("fake_quantize_per_tensor_affine", [
    "aten::fake_quantize_per_tensor_affine.tensor_qparams",
    "aten::fake_quantize_per_tensor_affine"], False)
for _fn in (quantize_per_tensor, fake_quantize_per_tensor_affine):
    _fn.__module__ = "ember"
del _fn
# Tensor.dequantize is the one-tensor overload (dequantize.tensors takes a list).
Tensor.dequantize = _C._make_op_function("dequantize", ["aten::dequantize.self"], True)
from ._creation import *  # noqa: E402,F401,F403  tensor, from_numpy, from_dlpack, arange(end), ...
from ._shape import *  # noqa: E402,F401,F403  einsum, meshgrid, unique, tensordot, ... (torch.functional)
from ._shape import _install_methods as _shape_methods  # noqa: E402
_shape_methods(Tensor)
from ._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: E402,F401
from ._C._autograd import (  # noqa: E402,F401  (Note [Anomaly mode])
    is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled,
)
from . import nn, optim  # noqa: E402,F401
from . import ao  # noqa: E402,F401  (ao.nn.quantized: the quantized modules)
import ember.ao.quantization  # noqa: E402,F401  (after nn: the workflow builds on its modules)
from . import quantization  # noqa: E402,F401  (torch.quantization: the same modules)
from ._C._quantization import fused_moving_avg_obs_fake_quant  # noqa: E402,F401
from ._predicates import allclose, equal  # noqa: E402,F401
from ._deterministic import (  # noqa: E402,F401
    use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
    get_deterministic_debug_mode,
)
from ._pointwise_aliases import functions as _aliases  # noqa: E402  (arccos, clip, fix, ...)
globals().update(_aliases)
from . import special  # noqa: E402,F401
from .functional import norm  # noqa: E402,F401  (Python in PyTorch too: torch.functional.norm)
from . import linalg  # noqa: E402,F401  (ember.linalg, as torch.linalg)
from . import fft  # noqa: E402,F401  (ember.fft, as torch.fft)
from . import _complex  # noqa: E402,F401  (Tensor.real / imag and the complex methods)
from ._complex2 import stft  # noqa: E402,F401  (torch.stft's centring signature)
is_conj = _complex._is_conj_function  # noqa: E402
_conj_copy = _C._op_functions["_conj_copy"]  # noqa: E402  (torch._conj_copy)
from .functional import chain_matmul  # noqa: E402,F401
from ._lowrank import svd_lowrank, pca_lowrank  # noqa: E402,F401  (Python, as torch._lowrank)
from ._qrnn import quantized_lstm, quantized_gru  # noqa: E402,F401  (dynamic quantized RNNs, aten::quantized_lstm / gru)
Tensor.allclose = allclose
from ._nnutils_tensor import _install as _nnutils_install  # noqa: E402  (dot, mv, mT, mH)
_nnutils_install(globals(), Tensor)
Tensor.equal = equal
from . import multiprocessing  # noqa: E402,F401  (registers the shared-memory tensor reducers)
from ._namesa import install as _namesa_install  # noqa: E402  (Tensor.H, flags, histogramdd, gradient, ...)
_namesa_install(globals(), Tensor)

# ---- the package's identity: version, generators, type utilities, printing, devices ----
from .version import __version__  # noqa: E402,F401
from ._C import (  # noqa: E402,F401
    Generator, default_generator, finfo, iinfo, promote_types, can_cast, result_type,
    ScriptObject,  # objects of C++ classes: the quantized ops' packed params (torch.ScriptObject)
)
from .random import (  # noqa: E402,F401
    manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
)
from ._tensor_str import set_printoptions  # noqa: E402,F401
from . import random, cuda, backends  # noqa: E402,F401
from ._type_utils import (  # noqa: E402,F401
    is_tensor, is_storage, is_floating_point, is_complex, is_nonzero, numel,
)
for _cls in (finfo, iinfo):
    _cls.__module__ = "ember"
del _cls


def __getattr__(name):
    # Subpackages loaded on first use, as `torch.vision`-style attributes after `import ember`.
    if name == "vision":
        import importlib
        return importlib.import_module(".vision", __name__)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")

from . import serialization  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import hub  # noqa: E402,F401  (ember.hub, as torch.hub)
from . import testing  # noqa: E402,F401  (ember.testing, as torch.testing)
from ._namesb import functions as _namesb_functions  # noqa: E402  (special/linalg names, torch.lu, loss defaults)
globals().update(_namesb_functions)
from ._names8 import install as _names8_install  # noqa: E402  (Tensor._backward_hooks, lobpcg)
_names8_install(globals(), Tensor)

# ---- automatic mixed precision (docs/amp.md): the thread's autocast state, ember.autocast,
# ember.amp, ember.cpu.amp and ember.cuda.amp (CUDA's disabled, as in a CPU-only PyTorch) ----
from ._C import (  # noqa: E402,F401
    is_autocast_enabled, set_autocast_enabled, get_autocast_gpu_dtype, set_autocast_gpu_dtype,
    is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype,
    set_autocast_cpu_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
    clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting,
)
from . import amp, cpu  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401
from .cuda import amp as _cuda_amp  # noqa: E402,F401  (ember.cuda.amp, as torch.cuda.amp)
del _cuda_amp
