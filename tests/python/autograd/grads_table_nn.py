"""Gradient rows of the nn ops of issue 16 (see ../core/ops_table_nn.py)."""
import torch

from grads_table import BINARY, UNARY, T, T1, T2, Tensor, Fixed, op

VOL = [((1, 2, 4, 4, 5),)]
SEQ = [((2, 3, 7),)]
IMG = [((1, 2, 5, 5),)]
UNIT0, UNIT1 = Tensor(0, "unit"), Tensor(1, "unit")
POS1 = Tensor(1, "pos")

GRAD_CASES = [
    # activations (and the backward ops' double backward)
    op("elu", [T]), op("elu", [T, 0.5, 2.0, 1.5]), op("leaky_relu", [T]), op("leaky_relu", [T, 0.2]),
    op("elu_backward", [T, 1.0, 1.0, 1.0, False, T1], BINARY[:1]),
    op("leaky_relu_backward", [T, T1, 0.1, False], BINARY[:1]),
    op("selu", [T]), op("celu", [T, 0.7]), op("softplus", [T]), op("softplus", [T, 2.0, 1.0]),
    op("mish", [T]), op("log_sigmoid", [T]), op("glu", [T, -1], [((3, 4),)]),
    op("softshrink", [T, 0.3]), op("hardshrink", [T, 0.3]), op("prelu", [T, POS1], [((2, 3, 4), (3,))]),
    op("threshold", [T, 0.1, 2.0]),
    # pooling
    op("avg_pool1d", [T, [3], [2], [1], False, True], SEQ), op("adaptive_avg_pool1d", [T, [3]], SEQ),
    op("max_pool1d", [T, [3], [2], [1], [1], False], SEQ), op("adaptive_max_pool1d", [T, [3]], SEQ),
    op("avg_pool3d", [T, [2, 2, 2], [2, 1, 2], [1, 0, 1], False, True, None], VOL),
    op("avg_pool3d", [T, [2, 3, 2], [1, 2, 2], [0, 1, 1], True, False, 5], VOL),
    op("_adaptive_avg_pool3d", [T, [2, 3, 3]], VOL), op("adaptive_avg_pool3d", [T, [1, 1, 1]], VOL),
    op("max_pool3d_with_indices", [T, [2, 2, 2], [2, 2, 2], [1, 1, 1], [1, 1, 1], False], VOL),
    op("max_pool3d", [T, [2, 2, 2], [1, 1, 1], [0, 0, 0], [1, 1, 1], True], VOL),
    op("adaptive_max_pool3d", [T, [2, 2, 3]], VOL),
    # padding, folding, shuffles
    op("reflection_pad3d", [T, [1, 2, 2, 1, 0, 1]], VOL), op("replication_pad3d", [T, [1, 2, 2, 1, 3, 0]], VOL),
    op("im2col", [T, [2, 3], [1, 2], [1, 0], [2, 1]], IMG),
    op("col2im", [T, [5, 6], [2, 2], [1, 1], [0, 0], [1, 1]], [((2, 8, 20),)]),
    op("pixel_shuffle", [T, 2], [((1, 8, 2, 3),)]), op("pixel_unshuffle", [T, 2], [((1, 2, 4, 2),)]),
    # resampling and grid sampling
    op("upsample_nearest2d.vec", [T, [9, 11], None], IMG),
    op("upsample_bilinear2d.vec", [T, [7, 8], False, None], IMG),
    # float64 only: the grid's gradient sums products of the image with the interpolation
    # weights' derivatives, in another order than torch's kernel (float32 differs by ~1e-5)
    *[op("grid_sampler_2d", [T, UNIT1, mode, pad, ac], [((1, 2, 4, 5), (1, 3, 3, 2))], dtypes=[torch.float64])
      for mode in (0, 2) for pad in (0, 1, 2) for ac in (False, True)],
    op("affine_grid_generator", [T, [2, 3, 4, 5], False], [((2, 2, 3),)]),
    # normalisation, distances, convolutions
    op("native_layer_norm", [T, [4], T1, T2, 1e-5], [((2, 3, 4), (4,), (4,))]),
    op("instance_norm", [T, T1, T2, None, None, True, 0.1, 1e-5, False], [((2, 3, 5), (3,), (3,))]),
    op("cdist", [T, T1, 2.0, None], [((4, 3), (5, 3))]), op("cdist", [T, T1, 1.5, None], [((4, 3), (5, 3))]),
    op("_cdist_forward", [T, T1, 1.0, None], [((4, 3), (5, 3))]),
    op("pdist", [T, 2.0], [((5, 3),)]),
    op("cosine_similarity", [T, T1, 1, 1e-8], [((3, 4), (3, 4))]),
    op("pairwise_distance", [T, T1, 2.0, 1e-6, False], [((3, 4), (3, 4))]),
    op("conv3d", [T, T1, T2, [1], [1], [1], 1], [((1, 2, 3, 4, 4), (3, 2, 2, 3, 3), (3,))], dtypes=[torch.float64]),
    op("conv_transpose1d", [T, T1, T2, [2], [1], [1], 1, [1]], [((2, 3, 5), (3, 2, 3), (2,))], dtypes=[torch.float64]),
    # losses
    op("kl_div", [T, T1, 1, True], BINARY[:1]), op("huber_loss", [T, T1, 1, 0.5], BINARY[:1]),
    op("margin_ranking_loss", [T, T1, T2, 0.2, 1], [((5,), (5,), (5,))], diff=[0, 1]),
    op("cosine_embedding_loss", [T, T1, Fixed([1, -1, 1, -1]), 0.1, 1], [((4, 3), (4, 3))]),
    op("triplet_margin_loss", [T, T1, T2, 1.0, 2.0, 1e-6, False, 1], [((4, 3), (4, 3), (4, 3))]),
    op("poisson_nll_loss", [T, POS1, True, False, 1e-8, 1], BINARY[:1], diff=[0]),
]

# Composite rows: their grad_fn is that of the last primitive their body calls (PyTorch has a
# derivative of its own for these ops). The values and gradients still match torch's.
_COMPOSITE = "ember's {} is a Composite row of ops.def (src/{}): its grad_fn is its body's last primitive's"
GRAD_FN_ALLOWLIST = [
    (r"::celu$", "CeluBackward0", "EluBackward0", "ember's celu is elu(x, alpha, 1, 1 / alpha), as torch's forward"),
    (r"::softplus$", "SoftplusBackward0", "WhereBackward0", _COMPOSITE.format("softplus", "ops/nn_activation.cpp")),
    (r"::threshold$", "ThresholdBackward0", "WhereBackward0", _COMPOSITE.format("threshold", "ops/nn_activation.cpp")),
    (r"::softshrink$", "SoftshrinkBackward0", "WhereBackward0", _COMPOSITE.format("softshrink", "ops/nn_activation.cpp")),
    (r"::hardshrink$", "HardshrinkBackward0", "WhereBackward0", _COMPOSITE.format("hardshrink", "ops/nn_activation.cpp")),
    (r"::log_sigmoid$", "LogSigmoidBackward0", "SubBackward0", _COMPOSITE.format("log_sigmoid", "ops/nn_activation.cpp")),
    (r"::mish$", "MishBackward0", "MulBackward0", _COMPOSITE.format("mish", "ops/nn_activation.cpp")),
    (r"::glu$", "GluBackward0", "MulBackward0", _COMPOSITE.format("glu", "ops/nn_activation.cpp")),
    (r"::prelu$", "PreluBackward0", "WhereBackward0", _COMPOSITE.format("prelu", "ops/nn_activation.cpp")),
    (r"::grid_sampler_2d$", "GridSampler2DBackward0", "AddBackward0", _COMPOSITE.format("grid_sampler_2d", "ops/nn_sample.cpp")),
    (r"::grid_sampler_2d$", "GridSampler2DBackward0", "MulBackward0", _COMPOSITE.format("grid_sampler_2d", "ops/nn_sample.cpp")),
    (r"::affine_grid_generator$", "AffineGridGeneratorBackward0", "ViewBackward0",
     _COMPOSITE.format("affine_grid_generator", "ops/nn_sample.cpp")),
    (r"::upsample_nearest2d\.vec$", "UpsampleNearest2DBackward1", "UpsampleNearest2DBackward0",
     "ember's .vec overload computes the sizes and calls upsample_nearest2d (torch 1.13 has a derivative per overload)"),
    (r"::upsample_bilinear2d\.vec$", "UpsampleBilinear2DBackward1", "UpsampleBilinear2DBackward0",
     "ember's .vec overload computes the sizes and calls upsample_bilinear2d (torch 1.13 has a derivative per overload)"),
    (r"::pixel_(un)?shuffle$", "PixelShuffleBackward0", "UnsafeViewBackward0", _COMPOSITE.format("pixel_shuffle", "ops/nn_pad3d.cpp")),
    (r"::pixel_(un)?shuffle$", "PixelUnshuffleBackward0", "UnsafeViewBackward0", _COMPOSITE.format("pixel_unshuffle", "ops/nn_pad3d.cpp")),
    (r"::pixel_(un)?shuffle$", "PixelShuffleBackward0", "ViewBackward0", _COMPOSITE.format("pixel_shuffle", "ops/nn_pad3d.cpp")),
    (r"::pixel_(un)?shuffle$", "PixelUnshuffleBackward0", "ViewBackward0", _COMPOSITE.format("pixel_unshuffle", "ops/nn_pad3d.cpp")),
    (r"::huber_loss$", "HuberLossBackward0", "MeanBackward0", _COMPOSITE.format("huber_loss", "nn/functional/loss_more.cpp")),
]
