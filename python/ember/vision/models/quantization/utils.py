"""torchvision.models.quantization.utils: _replace_relu, quantize_model and _fuse_modules."""
from .... import _C

__all__ = ["_replace_relu", "quantize_model", "_fuse_modules"]



def _replace_relu(module):
    """Replaces every child of exact class nn.ReLU or nn.ReLU6 (recursively) by
    nn.ReLU(inplace=False) (C++: ember::models::quantization::_replace_relu)."""
    _C._vision._replace_relu(module)


def quantize_model(model, backend):
    """torchvision's quantize_model: sets the engine, eval, the backend's qconfig (default_observer
    activations; default_weight_observer for qnnpack, default_per_channel_weight_observer for
    fbgemm, none otherwise), fuse_model, prepare, one calibration pass on rand(1, 3, 299, 299),
    convert, all in place (C++: ember::models::quantization::quantize_model).

    `model.fuse_model` is called with is_qat=False: torchvision calls `model.fuse_model()`,
    whose default (None) resolves to False once the model is in eval mode; the notebook's
    fuse_model(self, is_qat) has no default, so ember passes the value explicitly."""
    _C._vision.quantize_model(model, backend, lambda m, is_qat: m.fuse_model(is_qat))


def _fuse_modules(model, modules_to_fuse, is_qat, **kwargs):
    from ....ao import quantization as _q
    if is_qat is None:
        is_qat = model.training
    method = _q.fuse_modules_qat if is_qat else _q.fuse_modules
    return method(model, modules_to_fuse, **kwargs)
