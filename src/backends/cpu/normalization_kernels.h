// CPU kernels of batch_norm and group_norm (internal; src/ops/normalization.cpp validates and
// allocates). Per-channel coefficients come in as float64 vectors; the loops compute in
// opmath_t (float for 16-bit inputs, float64 for float64). Tensors are read through NCS views
// (layout.h), so NCHW and channels_last inputs share the code; fast loops cover the unit-stride
// cases, *_ref the general one.
#pragma once

#include <vector>

#include "layout.h"

namespace ember::cpu {

/// Per-channel mean and biased variance of x ([N, C, *], NCS-viewable), in float64: two passes
/// (the mean, then the centred squares), vectorized over unit-stride runs (Note [Fast batch norm]).
void batch_norm_stats(const Tensor& x, std::vector<double>& mean, std::vector<double>& var);
/// The strided single-chain loop of batch_norm_stats (tests compare the fast paths with it).
void batch_norm_stats_ref(const Tensor& x, std::vector<double>& mean, std::vector<double>& var);

/// out[n, c, s] = x[n, c, s] * a[c] + b[c] (out and x: same sizes, both NCS-viewable).
void channel_affine(const Tensor& out, const Tensor& x, const std::vector<double>& a,
                    const std::vector<double>& b);
/// The general strided loop of channel_affine (tests compare the fast paths with it).
void channel_affine_ref(const Tensor& out, const Tensor& x, const std::vector<double>& a,
                        const std::vector<double>& b);

/// out = dy * a[c] + x * b[c] + k[c] (the input gradient of batch_norm).
void channel_affine2(const Tensor& out, const Tensor& dy, const Tensor& x,
                     const std::vector<double>& a, const std::vector<double>& b,
                     const std::vector<double>& k);
/// The strided loop of channel_affine2.
void channel_affine2_ref(const Tensor& out, const Tensor& dy, const Tensor& x,
                         const std::vector<double>& a, const std::vector<double>& b,
                         const std::vector<double>& k);

/// Per-channel sum(dy) and sum(dy * (x - mean[c])).
void batch_norm_grad_sums(const Tensor& dy, const Tensor& x, const std::vector<double>& mean,
                          std::vector<double>& sum_dy, std::vector<double>& sum_dy_xmu);
/// The strided single-chain loop of batch_norm_grad_sums.
void batch_norm_grad_sums_ref(const Tensor& dy, const Tensor& x, const std::vector<double>& mean,
                              std::vector<double>& sum_dy, std::vector<double>& sum_dy_xmu);

/// group_norm over a contiguous x [N, C, HxW]: y = (x - mean) * rstd * w[c] + b[c]; mean and
/// rstd ([N * group], float64) are returned. w / b may be empty (1 / 0).
void group_norm_kernel(const Tensor& y, const Tensor& x, int64_t group, double eps,
                       const std::vector<double>& w, const std::vector<double>& b,
                       std::vector<double>& mean, std::vector<double>& rstd);

}  // namespace ember::cpu
