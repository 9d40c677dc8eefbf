// FFT kernels over kissfft's C++ header (Note [FFT library] in fft_kernels.cpp). The op layer
// (src/ops/fft.cpp) brings the data into a contiguous complex tensor, and turns real <-> complex
// and onesided <-> full spectra around these.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// `data` (contiguous, complex64 or complex128) replaced by its DFT along `dims`, times `scale`:
/// forward uses e^{-2 pi i jk/n}, inverse e^{+2 pi i jk/n} (unnormalized either way).
void fft_c2c_kernel(const Tensor& data, IntArrayRef dims, bool forward, double scale);
/// `out` (contiguous complex, last dim n/2+1) = the forward DFT of each row of `in` (contiguous
/// real of the matching real type, last dim n, n even), times `scale`: the onesided real
/// transform at half the cost of a complex one (kissfft's transform_real on n/2 points).
void fft_r2c_lastdim_kernel(const Tensor& out, const Tensor& in, double scale);
/// The same by the O(n^2) definition, accumulated in double: the reference the tests compare
/// the fast kernel with.
void fft_c2c_kernel_ref(const Tensor& data, IntArrayRef dims, bool forward, double scale);

}  // namespace ember::cpu
