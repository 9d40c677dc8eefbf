"""ember.nn.quantized.modules.embedding_ops: re-exports
ember.ao.nn.quantized.modules.embedding_ops."""
from ....ao.nn.quantized.modules.embedding_ops import *  # noqa: F401,F403
from ....ao.nn.quantized.modules.embedding_ops import __all__  # noqa: F401
