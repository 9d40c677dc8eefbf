// ember::fft: discrete Fourier transforms as torch.fft computes them (docs/complex.md), over
// ember's own SIMD Stockham FFT (Note [FFT library] in src/backends/cpu/fft_kernels.cpp); and
// ember::stft / istft, the short-time transform and its inverse.
//
//   auto X = ember::fft::rfft(x);                          // (..., n) real -> (..., n/2+1) complex
//   auto y = ember::fft::irfft(X, x.size(-1));             // back, the length given
//   auto F = ember::fft::fft2(img, std::nullopt, {-2, -1}, "ortho");
//   auto f = ember::fft::fftfreq(8, 0.1);                  // the sample frequencies
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// The primitives the public functions lower to (PyTorch's Core ATen ops). normalization: 0 none,
/// 1 by 1/sqrt(n), 2 by 1/n, n the product of the transformed sizes (of the output for c2r).
Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided);
Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size);
Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward);

namespace fft {

using OptInt = std::optional<int64_t>;
using OptInts = std::optional<std::vector<int64_t>>;
using OptStr = std::optional<std::string>;

Tensor fft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);
Tensor ifft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);
Tensor rfft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);
Tensor irfft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);
Tensor hfft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);
Tensor ihfft(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, OptStr norm = std::nullopt);

Tensor fft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);
Tensor ifft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);
Tensor rfft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);
Tensor irfft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);
Tensor hfft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);
Tensor ihfft2(const Tensor& self, OptInts s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, OptStr norm = std::nullopt);

Tensor fftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);
Tensor ifftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);
Tensor rfftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);
Tensor irfftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);
Tensor hfftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);
Tensor ihfftn(const Tensor& self, OptInts s = std::nullopt, OptInts dim = std::nullopt, OptStr norm = std::nullopt);

/// The sample frequencies [0, 1, ..., n/2-1, -n/2, ..., -1] / (d*n) (default dtype unless given).
Tensor fftfreq(int64_t n, double d = 1.0, std::optional<ScalarType> dtype = std::nullopt,
               std::optional<Device> device = std::nullopt);
Tensor rfftfreq(int64_t n, double d = 1.0, std::optional<ScalarType> dtype = std::nullopt,
                std::optional<Device> device = std::nullopt);
/// Rolls the zero frequency to the centre (all dims by default) and back.
Tensor fftshift(const Tensor& self, OptInts dim = std::nullopt);
Tensor ifftshift(const Tensor& self, OptInts dim = std::nullopt);

}  // namespace fft

/// torch.stft without centring (the aten::stft overload): frames of n_fft samples every
/// hop_length (default n_fft / 4), times `window` (win_length long, centred in n_fft; default
/// all ones), each transformed; (batch?, freq, frames), complex unless return_complex is false
/// (then view_as_real of it; a real input without return_complex warns once, as PyTorch 1.13).
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
            std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = std::nullopt,
            bool normalized = false, std::optional<bool> onesided = std::nullopt,
            std::optional<bool> return_complex = std::nullopt);
/// torch.stft (aten::stft.center): the signal first padded by n_fft / 2 on both sides with
/// `pad_mode` ("reflect", "constant", "replicate", "circular") when `center`.
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool center, const std::string& pad_mode = "reflect",
            bool normalized = false, std::optional<bool> onesided = std::nullopt,
            std::optional<bool> return_complex = std::nullopt);
/// torch.istft: the inverse by overlap-add, divided by the window's squared envelope (which must
/// not vanish: NOLA), trimmed by n_fft / 2 when `center`, to `length` when given.
Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
             std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = std::nullopt,
             bool center = true, bool normalized = false, std::optional<bool> onesided = std::nullopt,
             std::optional<int64_t> length = std::nullopt, bool return_complex = false);
}  // namespace ember
