"""Differential op rows of issue 16's sequence layers (picked up by ops_table.py): the recurrent
cells and aten::_embedding_bag / embedding_bag. (aten::scaled_dot_product_attention and the
fused _thnn cells are not callable on torch 1.13's CPU build: tests/python/nn/test_seq_*.py
check them against written-out references instead.)"""
import torch

from ops_table import Op, T, Tensor

FL = [torch.float32, torch.float64]


class FixedT(Tensor):
    """A given index tensor whatever the shape set says (offsets must start at 0 and grow)."""

    def __init__(self, values):
        super().__init__(0, "index", torch.int64)
        self.values = values

    def build(self, shape, dtype, layout, gen):
        return Tensor.Built(torch.tensor(self.values, dtype=torch.int64), "c")


IDX = Tensor(1, "index", torch.int64, high=5)
OFFSETS = FixedT([0, 2, 2, 5])
CELL = [((3, 4), (3, 5), (15, 4), (15, 5), (15,), (15,))]
LSTM = [((3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,))]

CASES = [
    Op("aten::rnn_tanh_cell", [T, Tensor(1), Tensor(2), Tensor(3), Tensor(4), Tensor(5)], FL,
       [((3, 4), (3, 5), (5, 4), (5, 5), (5,), (5,))], vary_layout=False),
    Op("aten::rnn_relu_cell", [T, Tensor(1), Tensor(2), Tensor(3)], FL,
       [((3, 4), (3, 5), (5, 4), (5, 5))], vary_layout=False),
    Op("aten::gru_cell", [T, Tensor(1), Tensor(2), Tensor(3), Tensor(4), Tensor(5)], FL, CELL,
       vary_layout=False),
    Op("aten::lstm_cell", [T, [Tensor(1), Tensor(2)], Tensor(3), Tensor(4), Tensor(5), Tensor(6)],
       FL, LSTM, vary_layout=False),
    Op("aten::_embedding_bag", [T, IDX, OFFSETS, False, 0], FL, [((5, 3), (7,))], vary_layout=False),
    Op("aten::_embedding_bag", [T, IDX, OFFSETS, False, 1], FL, [((5, 3), (7,))], vary_layout=False),
    Op("aten::_embedding_bag", [T, IDX, OFFSETS, False, 2], FL, [((5, 3), (7,))], vary_layout=False),
    Op("aten::embedding_bag", [T, IDX, OFFSETS, False, 1, False, None, False], FL,
       [((5, 3), (7,))], vary_layout=False),
]
