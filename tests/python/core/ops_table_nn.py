"""Op rows of the nn ops of issue 16 (src/ops/nn_*.cpp, src/nn/functional/loss_more.cpp):
parameterised activations, 1-d / 3-d pooling, 3-d padding, im2col / col2im, resampling, grid
sampling, native normalisations, distances, convolutions and losses."""
import torch

from ops_table import FLOATS, T, T1, T2, UNARY, BINARY, Op, Tensor, err, idx

F2 = FLOATS[:2]
VOL = [((2, 3, 4, 5, 6),), ((2, 5, 5, 4),)]
SEQ = [((2, 3, 9),), ((3, 8),)]
IMG = [((2, 3, 5, 6),), ((1, 2, 7, 7),)]
T3, T4 = Tensor(3), Tensor(4, "pos")


def _activations():
    return [
        Op("aten::elu", [T], F2 + [torch.bfloat16], UNARY),
        Op("aten::elu", [T, 0.5, 2.0, 1.5], F2, UNARY),
        Op("aten::elu_backward", [T, 1.0, 1.0, 1.0, False, T1], F2, BINARY[:2]),
        Op("aten::elu_backward", [T, 0.5, 1.5, 2.0, True, T1], F2, BINARY[:2]),
        Op("aten::leaky_relu", [T], F2 + [torch.bfloat16], UNARY),
        Op("aten::leaky_relu", [T, 0.2], F2, UNARY),
        Op("aten::leaky_relu_backward", [T, T1, 0.1, False], F2, BINARY[:2]),
        Op("aten::selu", [T], F2, UNARY), Op("aten::celu", [T, 0.7], F2, UNARY),
        Op("aten::softplus", [T], F2, UNARY), Op("aten::softplus", [T, 2.0, 1.0], F2, UNARY),
        Op("aten::mish", [T], F2, UNARY), Op("aten::log_sigmoid", [T], F2, UNARY),
        Op("aten::glu", [T, -1], F2, [((3, 4),), ((2, 4, 6),)]), Op("aten::glu", [T, 0], F2, [((4, 3),)]),
        Op("aten::softshrink", [T], F2, UNARY), Op("aten::softshrink", [T, 1.0], F2, UNARY),
        Op("aten::hardshrink", [T, 0.8], F2, UNARY),
        Op("aten::prelu", [T, Tensor(1)], F2, [((2, 3, 4), (3,)), ((2, 3), (1,))]),
        Op("aten::rrelu", [T, 0.1, 0.3, False, None], F2, UNARY),
        Op("aten::threshold", [T, 0.1, 20.0], F2 + [torch.int64], UNARY),
        err("elu", [T], UNARY[:1], [torch.int64]), err("leaky_relu", [T], UNARY[:1], [torch.int64]),
        err("glu", [T, 0], [((3, 4),)]), err("prelu", [T, Tensor(1)], [((2, 4), (3,))]),
        err("celu", [T, 0.0], UNARY[:1]), err("softshrink", [T, -1.0], UNARY[:1]),
    ]


def _pools():
    return [
        Op("aten::avg_pool1d", [T, [3], [2], [1], False, True], F2, SEQ),
        Op("aten::avg_pool1d", [T, [2], [], [0], True, False], F2, SEQ),
        Op("aten::adaptive_avg_pool1d", [T, [4]], F2, SEQ),
        Op("aten::max_pool1d", [T, [3], [2], [1], [1], False], F2, SEQ),
        Op("aten::max_pool1d_with_indices", [T, [2], [1], [0], [2], True], F2, SEQ),
        Op("aten::adaptive_max_pool1d", [T, [4]], F2, SEQ),
        Op("aten::avg_pool3d", [T, [2, 2, 2], [2, 1, 2], [1, 0, 1], False, True, None], F2, VOL),
        Op("aten::avg_pool3d", [T, [3, 2, 2], [2, 2, 2], [1, 1, 0], True, False, None], F2, VOL),
        Op("aten::avg_pool3d", [T, [2, 2, 2], [], [0, 0, 0], False, True, 3], F2, VOL),
        Op("aten::_adaptive_avg_pool3d", [T, [2, 3, 4]], F2, VOL),
        Op("aten::adaptive_avg_pool3d", [T, [1, 1, 1]], F2, VOL),
        Op("aten::max_pool3d_with_indices", [T, [2, 2, 2], [2, 2, 2], [1, 1, 1], [1, 1, 1], False], F2, VOL),
        Op("aten::max_pool3d_with_indices", [T, [3, 2, 2], [1, 2, 1], [0, 1, 0], [1, 1, 2], True], F2, VOL),
        Op("aten::max_pool3d", [T, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], True], F2, VOL),
        Op("aten::adaptive_max_pool3d", [T, [2, 3, 3]], F2, VOL),
        err("max_pool3d_with_indices", [T, [2, 2, 2], [2, 2, 2], [2, 2, 2], [1, 1, 1], False], VOL[:1]),
        err("avg_pool3d", [T, [5, 5, 5], [], [0, 0, 0], False, True, None], VOL[:1]),
        err("avg_pool3d", [T, [2, 2, 2], [], [0, 0, 0], False, True, 0], VOL[:1]),
        err("max_pool3d_with_indices", [T, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], False], [((3, 4, 4),)]),
        err("adaptive_avg_pool3d", [T, [2, 2, 2]], [((3, 4),)]),
        err("avg_pool1d", [T, [2], [], [0], False, True], [((3,),)]),
        err("max_pool1d", [T, [2], [], [2], [1], False], SEQ[:1]),
    ]


def _pads_and_shapes():
    return [
        Op("aten::reflection_pad3d", [T, [1, 2, 2, 1, 0, 1]], F2, VOL),
        Op("aten::replication_pad3d", [T, [1, 2, 2, 1, 3, 0]], F2, VOL),
        Op("aten::replication_pad3d", [T, [-1, 2, 0, 1, 1, -1]], F2, VOL[:1]),
        Op("aten::pad", [T, [1, 1, 2, 2, 1, 0], "reflect", None], F2, VOL),
        Op("aten::pad", [T, [1, 1, 2, 2, 1, 0], "replicate", None], F2, VOL),
        err("reflection_pad3d", [T, [5, 0, 0, 0, 0, 0]], VOL[:1]),
        err("reflection_pad3d", [T, [1, 1]], VOL[:1]),
        Op("aten::im2col", [T, [2, 3], [1, 2], [1, 0], [2, 1]], F2, IMG + [((3, 5, 5),)]),
        Op("aten::col2im", [T, [5, 6], [2, 2], [1, 1], [0, 0], [1, 1]], F2, [((2, 12, 20),), ((8, 20),)]),
        err("col2im", [T, [5, 6], [2, 2], [1, 1], [0, 0], [1, 1]], [((2, 12, 21),)]),
        err("im2col", [T, [6, 6], [1, 1], [0, 0], [1, 1]], IMG[:1]),
        Op("aten::pixel_shuffle", [T, 2], F2 + [torch.int64], [((2, 8, 3, 4),), ((4, 2, 3),)]),
        Op("aten::pixel_unshuffle", [T, 2], F2 + [torch.int64], [((2, 2, 4, 6),), ((1, 4, 2),)]),
        Op("aten::channel_shuffle", [T, 2], F2, [((2, 4, 3, 3),), ((2, 6, 5),)]),
        err("pixel_shuffle", [T, 2], [((1, 3, 2, 2),)]),
        err("pixel_unshuffle", [T, 2], [((1, 3, 3, 3),)]),
        Op("aten::one_hot", [idx(0, 5), -1], [torch.int64], [((3, 4),), ((6,),)], vary_layout=False),
        Op("aten::one_hot", [idx(0, 3), 6], [torch.int64], [((2, 5),)], vary_layout=False),
    ]


def _sampling():
    grid = Tensor(1, "unit")
    gshapes = [((2, 3, 5, 6), (2, 4, 3, 2)), ((1, 2, 4, 4), (1, 5, 5, 2))]
    rows = [Op("aten::upsample_nearest2d.vec", [T, [9, 11], None], F2, IMG),
            Op("aten::upsample_bilinear2d.vec", [T, [9, 11], True, None], F2, IMG),
            Op("aten::upsample_bilinear2d.vec", [T, [4, 9], False, None], F2, IMG)]
    for mode in (0, 1, 2):
        for pad in (0, 1, 2):
            for ac in (False, True):
                rows.append(Op("aten::grid_sampler_2d", [T, grid, mode, pad, ac], F2, gshapes, vary_layout=False))
    rows += [
        Op("aten::affine_grid_generator", [T, [2, 3, 4, 5], False], F2, [((2, 2, 3),)], vary_layout=False),
        Op("aten::affine_grid_generator", [T, [2, 3, 4, 5], True], F2, [((2, 2, 3),)], vary_layout=False),
        Op("aten::affine_grid_generator", [T, [1, 1, 2, 3, 4], False], F2, [((1, 3, 4),)], vary_layout=False),
        err("grid_sampler_2d", [T, Tensor(1), 0, 0, False], [((1, 1, 3, 3), (2, 2, 2, 2))]),
    ]
    return rows


def _norms_and_distances():
    ln = [((2, 3, 4), (3, 4), (3, 4)), ((5, 4), (4,), (4,))]
    return [
        Op("aten::native_layer_norm", [T, [4], T1, T2, 1e-5], F2, [((2, 3, 4), (4,), (4,)), ((5, 4), (4,), (4,))]),
        Op("aten::native_layer_norm", [T, [3, 4], None, None, 1e-5], F2, [((2, 3, 4),)]),
        Op("aten::native_layer_norm_backward", [T, T1, [3, 4], Tensor(2), Tensor(3, "pos"), Tensor(4),
                                                Tensor(5), [True, True, True]], F2,
           [((2, 3, 4), (2, 3, 4), (2, 1, 1), (2, 1, 1), (3, 4), (3, 4))], vary_layout=False),
        Op("aten::instance_norm", [T, T1, T2, None, None, True, 0.1, 1e-5, False], F2,
           [((2, 3, 4, 5), (3,), (3,)), ((2, 3, 6), (3,), (3,))]),
        Op("aten::cdist", [T, T1, 2.0, None], F2, [((4, 3), (5, 3)), ((2, 4, 3), (5, 3)), ((30, 3), (4, 3))]),
        Op("aten::cdist", [T, T1, 1.0, None], F2, [((4, 3), (5, 3))]),
        Op("aten::_cdist_forward", [T, T1, 3.0, None], F2, [((4, 3), (5, 3))]),
        Op("aten::_cdist_forward", [T, T1, float("inf"), None], F2, [((4, 3), (5, 3))]),
        Op("aten::_cdist_forward", [T, T1, 0.0, None], F2, [((4, 3), (5, 3))]),
        Op("aten::pdist", [T, 2.0], F2, [((5, 3),), ((1, 3),)]), Op("aten::pdist", [T, 1.5], F2, [((5, 3),)]),
        Op("aten::_pdist_forward", [T, 1.0], F2, [((4, 2),)]),
        Op("aten::cosine_similarity", [T, T1, 1, 1e-8], F2, [((3, 4), (3, 4)), ((2, 3, 4), (3, 1))]),
        Op("aten::pairwise_distance", [T, T1, 2.0, 1e-6, False], F2, [((3, 4), (3, 4)), ((4,), (4,))]),
        Op("aten::pairwise_distance", [T, T1, 1.0, 1e-6, True], F2, [((3, 4), (3, 4))]),
        err("cdist", [T, T1, 2.0, None], [((3,), (3,))]), err("cdist", [T, T1, 2.0, None], [((2, 3), (2, 4))]),
        err("cdist", [T, T1, -1.0, None], [((2, 3), (2, 3))]),
        Op("aten::conv3d", [T, T1, T2, [1], [1], [1], 1], F2, [((1, 2, 4, 5, 5), (3, 2, 3, 3, 3), (3,))], vary_layout=False),
        Op("aten::conv3d", [T, T1, None, [2, 1, 1], [0, 1, 1], [1], 1], F2, [((1, 2, 5, 5, 5), (4, 2, 2, 3, 3))], vary_layout=False),
        Op("aten::conv_transpose1d", [T, T1, T2, [2], [1], [1], 1, [1]], F2, [((2, 3, 6), (3, 4, 3), (4,))], vary_layout=False),
        Op("aten::conv_transpose3d.input", [T, T1, None, [2], [0], [0], 1, [1]], F2, [((1, 2, 3, 3, 3), (2, 3, 2, 2, 2))], vary_layout=False),
    ]


def _losses():
    return [
        Op("aten::binary_cross_entropy", [Tensor(0, "unit"), Tensor(1, "unit"), None, 1], F2, BINARY[:1]),
        Op("aten::kl_div", [T, T1, 1, False], F2, BINARY[:2]), Op("aten::kl_div", [T, T1, 2, True], F2, BINARY[:2]),
        Op("aten::huber_loss", [T, T1, 1, 1.0], F2, BINARY[:2]), Op("aten::huber_loss", [T, T1, 0, 0.5], F2, BINARY[:2]),
        Op("aten::soft_margin_loss", [T, T1, 1], F2, BINARY[:2]),
        Op("aten::margin_ranking_loss", [T, T1, T2, 0.2, 1], F2, [((5,), (5,), (5,))]),
        Op("aten::hinge_embedding_loss", [T, T1, 1.0, 0], F2, BINARY[:2]),
        Op("aten::cosine_embedding_loss", [T, T1, T2, 0.1, 1], F2, [((4, 3), (4, 3), (4,))]),
        Op("aten::triplet_margin_loss", [T, T1, T2, 1.0, 2.0, 1e-6, False, 1], F2, [((4, 3), (4, 3), (4, 3))]),
        Op("aten::triplet_margin_loss", [T, T1, T2, 0.5, 1.0, 1e-6, True, 0], F2, [((4, 3), (4, 3), (4, 3))]),
        Op("aten::poisson_nll_loss", [T, Tensor(1, "pos"), True, False, 1e-8, 1], F2, BINARY[:1]),
        Op("aten::poisson_nll_loss", [Tensor(0, "pos"), Tensor(1, "pos"), False, True, 1e-8, 2], F2, BINARY[:1]),
        err("binary_cross_entropy", [T, Tensor(1, "unit"), None, 1], [((3, 4), (3, 4))]),
        err("huber_loss", [T, T1, 1, 0.0], BINARY[:1]),
        err("cosine_embedding_loss", [T, T1, T2, 0.0, 1], [((3,), (3,), (2,))]),
    ]


CASES = [*_activations(), *_pools(), *_pads_and_shapes(), *_sampling(), *_norms_and_distances(), *_losses()]
