"""Gradient rows of issue 16's sequence layers (picked up by grads_table.py): the recurrent
cells (composites over the fused gate kernels) and aten::_embedding_bag's weight and
per-sample-weights gradients, against torch 1.13."""
import torch

from grads_table import Fixed, T, Tensor, op

IDX = Fixed([1, 2, 4, 0, 4, 3, 2])
OFFSETS = Fixed([0, 2, 2, 5])

GRAD_CASES = [
    op("rnn_tanh_cell", [T, Tensor(1), Tensor(2), Tensor(3), Tensor(4), Tensor(5)],
       [((3, 4), (3, 5), (5, 4), (5, 5), (5,), (5,))]),
    op("gru_cell", [T, Tensor(1), Tensor(2), Tensor(3), Tensor(4), Tensor(5)],
       [((3, 4), (3, 5), (15, 4), (15, 5), (15,), (15,))]),
    op("lstm_cell", [T, [Tensor(1), Tensor(2)], Tensor(3), Tensor(4), Tensor(5), Tensor(6)],
       [((3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,))]),
    op("_embedding_bag", [T, IDX, OFFSETS, False, 0], [((5, 3),)], diff=[0], check=False),
    op("_embedding_bag", [T, IDX, OFFSETS, False, 1], [((5, 3),)], diff=[0], check=False),
    op("_embedding_bag", [T, IDX, OFFSETS, False, 2], [((5, 3),)], diff=[0], check=False),
    op("_embedding_bag", [T, IDX, OFFSETS, False, 0, False, Tensor(1)], [((5, 3), (7,))], diff=[0, 6], check=False),
]

GRAD_FN_ALLOWLIST = [
    (r"::gru_cell$", "AddBackward0", "ThnnFusedGruCellBackward0",
     "torch 1.13's CPU gru_cell ends with an add of unfused gate ops; ember runs the fused gate "
     "kernel (aten::_thnn_fused_gru_cell, which PyTorch uses on CUDA)"),
    (r"::lstm_cell$", "AddBackward0", "ThnnFusedLstmCellBackward0",
     "torch 1.13's CPU lstm_cell computes c' = f * c + i * g with unfused ops; ember runs the "
     "fused gate kernel"),
    (r"::lstm_cell$", "MulBackward0", "ThnnFusedLstmCellBackward0",
     "torch 1.13's CPU lstm_cell ends with o * tanh(c); ember runs the fused gate kernel "
     "(aten::_thnn_fused_lstm_cell, which PyTorch uses on CUDA)"),
]
