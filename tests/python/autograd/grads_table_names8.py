"""names8's rows of the gradient differential table (test_grads_vs_torch.py): segment_reduce's
five reductions (lengths and offsets), fractional max pooling and grid_sampler_3d (op rows with
their backward rows), and the functional recurrences."""
import torch

from grads_table import Fixed, Tensor, op

T, T1 = Tensor(0), Tensor(1)
DISTINCT = Tensor(0, "distinct")
NONZERO = Tensor(0, "nonzero")
L1 = Fixed([2, 0, 3, 1])
OFF1 = Fixed([0, 2, 2, 5, 6])
SEG = [((6,),), ((6, 3),)]


class Rand(Tensor):
    """Uniform [0, 1) samples (fractional pooling's), not differentiated."""

    def build(self, shape, dtype, layout, gen):
        return Tensor.Built(torch.rand(shape, generator=gen, dtype=torch.float64).to(dtype), "c")


# segment_reduce's and grid_sampler_3d's backward rows have no derivative (torch's neither), so
# gradgradcheck cannot run: check=False (their gradcheck is in tests/python/ops/test_names8_*.py).
GRAD_CASES = [
    op("segment_reduce", [T, "sum", L1], SEG, diff=[0], check=False),
    op("segment_reduce", [T, "mean", None, None, OFF1], SEG, diff=[0], check=False),
    op("segment_reduce", [DISTINCT, "max", L1], SEG, diff=[0], check=False),
    op("segment_reduce", [DISTINCT, "min", None, None, OFF1, 0, False, 0.5], SEG, diff=[0], check=False),
    op("segment_reduce", [NONZERO, "prod", L1, None, None, 0, False, 1.5], SEG, diff=[0], check=False),
    op("fractional_max_pool2d", [DISTINCT, [2, 2], [3, 3], Rand(1)], [((2, 3, 6, 5), (2, 3, 2))], diff=[0]),
    op("fractional_max_pool3d", [DISTINCT, [2, 2, 2], [2, 3, 2], Rand(1)], [((1, 2, 4, 5, 4), (1, 2, 3))],
       diff=[0]),
    op("grid_sampler_3d", [T, Tensor(1, "unit"), 0, 0, False], [((1, 2, 3, 4, 3), (1, 2, 2, 3, 3))],
       layouts=["c"], check=False),
    op("grid_sampler_3d", [T, Tensor(1, "unit"), 0, 1, True], [((1, 2, 3, 3, 3), (1, 2, 2, 2, 3))],
       layouts=["c"], check=False),
    op("gru.input", [T, T1, [Tensor(2), Tensor(3), Tensor(4), Tensor(5)], True, 1, 0.0, True, False, False],
       [((3, 2, 3), (1, 2, 4), (12, 3), (12, 4), (12,), (12,))], layouts=["c"]),
    op("lstm.input", [T, [T1, Tensor(6)], [Tensor(2), Tensor(3), Tensor(4), Tensor(5)], True, 1, 0.0, True, False,
                      False], [((3, 2, 3), (1, 2, 4), (16, 3), (16, 4), (16,), (16,), (1, 2, 4))], layouts=["c"]),
]

# The recurrences are Composite rows in both libraries; the last op each runs differs (torch's
# CPU loop stacks the steps and the final states, ember's packed loop views its output buffer and
# concatenates the final states).
_RNN_REASON = "gru / lstm .input are composites: the last op of ember's recurrence differs from torch's"
GRAD_FN_ALLOWLIST = [
    (r"::(gru|lstm)\.input$", "StackBackward0", "ViewBackward0", _RNN_REASON),
    (r"::(gru|lstm)\.input$", "StackBackward0", "CatBackward0", _RNN_REASON),
]
