"""The layers of issue 16, bound from ember._C._nn (C++ classes, see nn_nnlayers.cpp)."""
from ... import _C

__all__ = [
    "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GLU", "Softplus", "Softsign", "Softshrink",
    "Hardshrink", "Tanhshrink", "Mish", "LogSigmoid", "Hardsigmoid", "Threshold", "Softmin",
    "Softmax2d", "RReLU",
    "Conv3d", "ConvTranspose1d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool3d", "AvgPool1d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
    "MaxUnpool3d",
    "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "Unflatten",
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Fold", "Unfold", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "CosineSimilarity", "PairwiseDistance", "Dropout1d", "Dropout3d",
    "AlphaDropout", "FeatureAlphaDropout",
    "BCELoss", "KLDivLoss", "HuberLoss", "SmoothL1Loss", "SoftMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "HingeEmbeddingLoss",
    "PoissonNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss",
    "GaussianNLLLoss", "ParameterList", "ParameterDict",
]

globals().update({name: getattr(_C._nn, name) for name in __all__})
