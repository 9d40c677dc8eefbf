"""ember: PyTorch's extension points on a small C++ core. `import ember as torch`."""
from . import _C
from ._C import (  # noqa: F401  dtypes, devices, layouts, memory formats
    dtype, device, layout, memory_format, strided,
    contiguous_format, preserve_format, channels_last, channels_last_3d,
    float32, float, float64, double, float16, half, bfloat16, int8, uint8, int16, short,
    int32, int, int64, long, bool, quint8, qint8, qint32,
    get_default_dtype, set_default_dtype,
)
from ._size import Size
from ._tensor import Tensor
from . import autograd

_C._set_size_class(Size)

# Every op of the table as a function (ember.add, ember.sum, ...); private aten names stay in _C.
globals().update({name: fn for name, fn in _C._op_functions.items() if not name.startswith("_")})
