// FFT kernels over ember's own Stockham engine (fft_engine.h; Note [FFT library] in
// fft_kernels.cpp). The op layer (src/ops/fft.cpp) brings the data into contiguous tensors and
// chooses the kernels; these transform lines along one dim of them.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// `data` (contiguous, complex64 or complex128) replaced by its DFT along `dims`, times `scale`:
/// forward uses e^{-2 pi i jk/n}, inverse e^{+2 pi i jk/n} (unnormalized either way).
void fft_c2c_kernel(const Tensor& data, IntArrayRef dims, bool forward, double scale);
/// `out` (contiguous complex, size n/2+1 along `dim`) = the forward DFT's non-redundant half of
/// each line of `in` (contiguous real of the matching real type, size n along `dim`), times
/// `scale`. Even n take a complex transform of n/2 points.
void fft_r2c_kernel(const Tensor& out, const Tensor& in, int64_t dim, double scale);
/// `out` (contiguous real, size n along `dim`) = the inverse DFT of the Hermitian spectra whose
/// halves are the lines of `in` (contiguous complex, size n/2+1 along `dim`), times `scale`. The
/// imaginary parts of the zero frequency (and of the Nyquist one for even n) are ignored.
void fft_c2r_kernel(const Tensor& out, const Tensor& in, int64_t dim, double scale);
/// fft_c2c_kernel by the O(n^2) definition, accumulated in double: the reference the tests
/// compare the fast kernels with.
void fft_c2c_kernel_ref(const Tensor& data, IntArrayRef dims, bool forward, double scale);

}  // namespace ember::cpu
