"""ember.testing (torch.testing): assert_close, make_tensor, and the deprecated assert_allclose."""
import warnings

from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]



def _allclose_precisions():
    import ember
    return {ember.float16: (1e-3, 1e-3), ember.float32: (1e-4, 1e-5),
            ember.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (since PyTorch 1.12): assert_close with the old defaults (NaNs equal, dtypes
    not checked, non-Tensors converted). Warns FutureWarning as PyTorch does."""
    import ember
    if not isinstance(actual, ember.Tensor):
        actual = ember.tensor(actual)
    if not isinstance(expected, ember.Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        table = _allclose_precisions()
        ra, aa = table.get(actual.dtype, (0.0, 0.0))
        re, ae = table.get(expected.dtype, (0.0, 0.0))
        rtol, atol = max(ra, re), max(aa, ae)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
    warnings.warn("ember.testing.assert_allclose() is deprecated since 1.12 and will be removed "
                  "in 1.14. Use ember.testing.assert_close() instead. For detailed upgrade "
                  "instructions see https://github.com/pytorch/pytorch/issues/61844.",
                  FutureWarning)
