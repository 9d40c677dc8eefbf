// Kernels of the distributions of src/ops/random_more.cpp. Each element draws from its own
// counter-based stream (cpu::element_bits(key, position, attempt), Note [Random streams]), so the
// values depend on the generator's key and the element's position only, not on threads; the
// rejection samplers (Poisson, binomial) take further attempts of the same element's stream.
// Scalar loops over contiguous double buffers: no separate fast path, so no *_ref twin.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::cpu {

/// self (any real dtype; computed in double) ~ Cauchy(median, sigma), LogNormal(mean, std) and
/// Geometric(p) (the trials up to the first success: 1, 2, ...). Parameters already validated.
void cauchy_kernel(const Tensor& self, double median, double sigma, uint64_t key);
void log_normal_kernel(const Tensor& self, double mean, double std, uint64_t key);
void geometric_kernel(const Tensor& self, double p, uint64_t key);
/// out ~ Poisson(rate) elementwise (rate: out's shape, floating).
void poisson_kernel(const Tensor& out, const Tensor& rate, uint64_t key);
/// out ~ Binomial(count, prob) elementwise (count and prob broadcast to out's shape).
void binomial_kernel(const Tensor& out, const Tensor& count, const Tensor& prob, uint64_t key);

/// One draw of each sampler from uniforms `u(attempt)` in (0, 1) (exposed for tests).
double sample_poisson(double rate, uint64_t key, uint64_t position);
double sample_binomial(double count, double prob, uint64_t key, uint64_t position);

}  // namespace ember::cpu
