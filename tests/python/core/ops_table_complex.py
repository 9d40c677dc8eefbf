"""complex64 / complex128 rows of the op differential table (test_ops_vs_torch.py): the ops whose
complex results are exact (no rounding that could differ between ember's kernels and torch's
vectorized ones), and the errors on real input. Values of the transcendental functions, the
products and the FFTs are compared with tolerances in tests/python/complex/."""
import torch

from ops_table import BINARY, UNARY, Op, Tensor, err

C = [torch.complex64, torch.complex128]
F = [torch.float32, torch.float64]
# This table's own random stream: the shared one (test_ops_vs_torch.py) feeds the families that
# sort after this file, whose inputs must not change because rows were added here.
_GEN = torch.Generator().manual_seed(16)


class CTensor(Tensor):
    """An argument drawn from this table's stream; complex ones get real and imaginary parts as
    the float rows draw theirs."""

    def build(self, shape, dtype, layout, gen):
        if not dtype.is_complex:
            return super().build(shape, dtype, layout, _GEN)
        re = torch.randn(shape, generator=_GEN, dtype=torch.float64) * 2
        im = torch.randn(shape, generator=_GEN, dtype=torch.float64) * 2
        return Tensor.Built(torch.complex(re, im).to(dtype), layout)


Z, Z1 = CTensor(0), CTensor(1)
T, T1 = Z, Z1

CASES = [
    Op("aten::add.Tensor", [Z, Z1], C, BINARY),
    Op("aten::sub.Tensor", [Z, Z1], C, BINARY),
    Op("aten::neg", [Z], C, UNARY),
    Op("aten::conj_physical", [Z], C + F, UNARY),
    Op("aten::_conj_copy", [Z], C, UNARY),  # (real input: torch fails an internal assert)
    Op("aten::view_as_real", [Z], C, UNARY),
    Op("aten::view_as_real_copy", [Z], C, UNARY),
    Op("aten::real", [Z], C, UNARY),
    Op("aten::imag", [Z], C, UNARY),
    Op("aten::eq.Tensor", [Z, Z1], C, BINARY),
    Op("aten::ne.Tensor", [Z, Z1], C, BINARY),
    Op("aten::complex", [T, T1], F, BINARY),
    Op("aten::view_as_complex", [T], F, [((3, 2),), ((2, 4, 2),), ((0, 2),)], vary_layout=False),
    Op("aten::_to_copy", [Z, torch.complex128], [torch.complex64], UNARY),
    Op("aten::_to_copy", [T, torch.complex64], F, UNARY),
    err("view_as_real", [T], [((3,),)]),
    err("view_as_complex", [T], [((3, 3),)]),
    err("imag", [T], [((3,),)]),
    err("complex", [T, T1], [((3,), (3,))], [torch.int32]),
]

# tests/python/quantized/test_qtensor_unsupported.py: where ember refuses a quantized input at
# another step than PyTorch (both refuse).
QUANTIZED_KNOWN = {
    "aten::complex": "PyTorch checks the parts' dtypes first; ember reaches the missing QuantizedCPU kernel",
}
