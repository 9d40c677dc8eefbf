"""torch.nn.utils.convert_parameters over ember::nn::utils (convert_parameters.h)."""
from ... import _C


def parameters_to_vector(parameters):
    return _C._nn.parameters_to_vector(parameters)


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, _C.TensorBase):
        raise TypeError("expected ember.Tensor, but got: {}".format(type(vec).__name__))
    _C._nn.vector_to_parameters(vec, parameters)
