"""torch.nn.utils.fusion over ember::nn::utils (fusion.h): the folding math is C++'s. The
eval-mode checks are repeated here because PyTorch raises them as AssertionErrors."""
from ... import _C


def fuse_conv_bn_eval(conv, bn, transpose=False):
    assert not (conv.training or bn.training), "Fusion only for eval!"
    return _C._nn.fuse_conv_bn_eval(conv, bn, transpose)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    return _C._nn.fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b,
                                       transpose)


def fuse_linear_bn_eval(linear, bn):
    assert not (linear.training or bn.training), "Fusion only for eval!"
    return _C._nn.fuse_linear_bn_eval(linear, bn)


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    return _C._nn.fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
