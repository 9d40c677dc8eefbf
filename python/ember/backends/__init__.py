"""ember.backends: which backends this build has (PyTorch's torch.backends). ember runs on the
CPU only: CUDA, cuDNN and MPS are absent; oneDNN (mkldnn) does the convolutions."""
from . import cuda, cudnn, mkldnn, mps, quantized  # noqa: F401
