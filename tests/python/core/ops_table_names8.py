"""names8's rows of the op differential table (test_ops_vs_torch.py): segment_reduce (lengths,
offsets, axis, initial; the float types torch's CPU kernel has), choose_qparams_optimized,
fractional max pooling and grid_sampler_3d (now op rows), the functional recurrences' rows."""
import torch

from ops_table import Op, T, Tensor, err

F = [torch.float32, torch.float64]
FH = F + [torch.float16, torch.bfloat16]


class Given(Tensor):
    """A fixed tensor (segment lengths / offsets), whatever the shape set says."""

    def __init__(self, values, dtype=torch.int64):
        super().__init__(0)
        self.values, self.given_dtype = values, dtype

    def build(self, shape, dtype, layout, gen):
        return Tensor.Built(torch.tensor(self.values, dtype=self.given_dtype), "c")


class Rand(Tensor):
    """Uniform [0, 1) samples of the case's dtype (fractional pooling's random samples)."""

    def build(self, shape, dtype, layout, gen):
        return Tensor.Built(torch.rand(shape, generator=gen, dtype=torch.float64).to(dtype), "c")


L1 = Given([2, 0, 3, 1])
L1_32 = Given([2, 0, 3, 1], torch.int32)
OFF1 = Given([0, 2, 2, 5, 6])
L2 = Given([[1, 2, 3], [6, 0, 0]])
OFF2 = Given([[0, 1, 3, 6], [0, 6, 6, 6]])
SEG1 = [((6,),), ((6, 3),)]
SEG2 = [((2, 6),), ((2, 6, 3),)]

CASES = []
for _r in ("sum", "mean", "max", "min", "prod"):
    CASES += [
        Op("aten::segment_reduce", [T, _r, L1], FH, SEG1),
        Op("aten::segment_reduce", [T, _r, L1_32, None, None, 0, True, 2.5], F, SEG1),
        Op("aten::segment_reduce", [T, _r, None, None, OFF1], F, SEG1),
        Op("aten::segment_reduce", [T, _r, L2, None, None, 1], F, SEG2),
        Op("aten::segment_reduce", [T, _r, None, None, OFF2, 1, False, -1.0], F, SEG2),
    ]
CASES += [
    err("segment_reduce", [T, "foo", L1], [((6,),)]),
    err("segment_reduce", [T, "sum"], [((6,),)]),
    err("segment_reduce", [T, "sum", Given([2, 2])], [((6,),)]),
    err("segment_reduce", [T, "sum", L1], [((6,),)], [torch.int64]),
    err("segment_reduce", [T, "sum", L2, None, None, 0], [((2, 6),)]),
    Op("aten::choose_qparams_optimized", [T, 24, 200, 0.16, 8], [torch.float32], [((24,),), ((30,),)],
       vary_layout=False),
    Op("aten::choose_qparams_optimized", [T, 16, 100, 0.5, 4], [torch.float32], [((4, 6),)], vary_layout=False),
    err("choose_qparams_optimized", [T, 7, 200, 0.16, 8], [((6,),)]),
    Op("aten::fractional_max_pool2d", [T, [2, 2], [3, 4], Rand(1)], F, [((2, 3, 7, 6), (2, 3, 2)), ((3, 6, 5), (1, 3, 2))]),
    Op("aten::fractional_max_pool3d", [T, [2, 2, 2], [3, 3, 2], Rand(1)], F,
       [((1, 2, 5, 6, 4), (1, 2, 3)), ((2, 4, 5, 3), (1, 2, 3))]),
    err("fractional_max_pool2d", [T, [2, 2], [7, 7], Rand(1)], [((1, 2, 6, 6), (1, 2, 2))]),
    Op("aten::grid_sampler_3d", [T, Tensor(1, "unit"), 0, 0, False], F, [((2, 3, 4, 5, 3), (2, 3, 2, 4, 3))],
       vary_layout=False),
    Op("aten::grid_sampler_3d", [T, Tensor(1, "unit"), 1, 1, True], F, [((1, 2, 3, 3, 3), (1, 2, 2, 2, 3))],
       vary_layout=False),
    Op("aten::grid_sampler_3d", [T, Tensor(1, "unit"), 0, 2, False], F, [((1, 2, 3, 3, 3), (1, 2, 2, 2, 3))],
       vary_layout=False),
    err("grid_sampler_3d", [T, Tensor(1), 2, 0, False], [((1, 2, 3, 3, 3), (1, 2, 2, 2, 3))]),
]

# The recurrences: input (4, 2, 3), h (1, 2, 5), one layer of weights with biases.
_W = lambda gates: [Tensor(2), Tensor(3), Tensor(4), Tensor(5)]  # noqa: E731
for _name, _gates in (("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)):
    _g = 5 * _gates
    CASES.append(Op(f"aten::{_name}.input", [T, Tensor(1), _W(_gates), True, 1, 0.0, False, False, False], F,
                    [((4, 2, 3), (1, 2, 5), (_g, 3), (_g, 5), (_g,), (_g,))], vary_layout=False, loose=True))
CASES.append(Op("aten::lstm.input", [T, [Tensor(1), Tensor(6)], _W(4), True, 1, 0.0, False, False, True], F,
                [((2, 4, 3), (1, 2, 5), (20, 3), (20, 5), (20,), (20,), (1, 2, 5))], vary_layout=False, loose=True))

# tests/python/quantized/test_qtensor_unsupported.py: where ember refuses a quantized input at
# another step than PyTorch (both refuse).
QUANTIZED_KNOWN = {
    "aten::choose_qparams_optimized": "PyTorch reads the data as float first; ember finds no QuantizedCPU kernel",
    **{f"aten::{n}.input": "PyTorch's composite reaches a float matmul with a quantized operand; ember's "
       "recurrence reaches mm's missing QuantizedCPU kernel" for n in ("gru", "rnn_tanh", "rnn_relu", "lstm")},
}
