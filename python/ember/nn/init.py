"""ember.nn.init: torch.nn.init's in-place fills (ember::nn::init, under no_grad in C++)."""
from .. import _C

_init = _C._nn.init

calculate_gain = _init.calculate_gain
_calculate_fan_in_and_fan_out = _init._calculate_fan_in_and_fan_out
_calculate_correct_fan = _init._calculate_correct_fan
uniform_ = _init.uniform_
normal_ = _init.normal_
trunc_normal_ = _init.trunc_normal_
constant_ = _init.constant_
ones_ = _init.ones_
zeros_ = _init.zeros_
eye_ = _init.eye_
xavier_uniform_ = _init.xavier_uniform_
xavier_normal_ = _init.xavier_normal_
kaiming_uniform_ = _init.kaiming_uniform_
kaiming_normal_ = _init.kaiming_normal_
orthogonal_ = _init.orthogonal_
sparse_ = _init.sparse_
