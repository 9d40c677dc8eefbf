"""ember.nn.utils: torch.nn.utils' parameter-vector helpers and batch-norm fusion (C++:
ember/nn/utils/)."""
from . import convert_parameters, fusion  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (  # noqa: F401
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights,
)
from . import rnn  # noqa: F401,E402  (issue 16: PackedSequence and packing)
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_  # noqa: F401,E402
from . import parametrize, parametrizations  # noqa: F401,E402  (nnutils: reparametrizations)
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401,E402
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401,E402
from . import stateless  # noqa: F401,E402  (pyauto: functional_call)
