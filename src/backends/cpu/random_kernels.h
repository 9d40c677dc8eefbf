// Random kernels. Each takes a 64-bit `key` (drawn by the op from its Generator, once per call)
// and fills its output from counter-based random bits (Note [Random streams]), so the values
// depend on the key and the element positions only — not on the thread count. Each fast kernel
// has a scalar *_ref twin producing identical values, used by the tests.
#pragma once

#include <array>
#include <cstdint>

#include "ember/tensor.h"

namespace ember::cpu {

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

/// The 64 random bits of the element at `offset` (elements from the tensor's first one);
/// `attempt` > 0 gives further independent draws for rejection sampling.
uint64_t element_bits(uint64_t key, uint64_t offset, uint32_t attempt = 0);

/// self ~ U[from, to) (floating dtypes; from and to already validated and clamped to the dtype).
void uniform_kernel(const Tensor& self, double from, double to, uint64_t key);
void uniform_kernel_ref(const Tensor& self, double from, double to, uint64_t key);

/// self ~ N(mean, std²) by Box-Muller (floating dtypes).
void normal_kernel(const Tensor& self, double mean, double std, uint64_t key);
void normal_kernel_ref(const Tensor& self, double mean, double std, uint64_t key);

/// self = (u < p) as 0 / 1 in self's dtype, u ~ U[0, 1) with 53 bits (any non-quantized dtype).
void bernoulli_scalar_kernel(const Tensor& self, double p, uint64_t key);
void bernoulli_scalar_kernel_ref(const Tensor& self, double p, uint64_t key);

/// Throws unless every element of `probs` (floating) is in [0, 1].
void check_probabilities(const Tensor& probs);
/// out = (u < probs) elementwise; out has probs' shape (any non-quantized dtype).
void bernoulli_tensor_kernel(const Tensor& out, const Tensor& probs, uint64_t key);
void bernoulli_tensor_kernel_ref(const Tensor& out, const Tensor& probs, uint64_t key);

/// self = base + r with r uniform on [0, range) without modulo bias; range 0 means 2^64 (every
/// int64 value). Any non-quantized dtype; base and range already validated for it.
void random_from_to_kernel(const Tensor& self, uint64_t range, int64_t base, uint64_t key);
void random_from_to_kernel_ref(const Tensor& self, uint64_t range, int64_t base, uint64_t key);

/// self ~ Exponential(lambda): -log(1 - u) / lambda (floating dtypes; lambda >= 0 checked).
void exponential_kernel(const Tensor& self, double lambda, uint64_t key);
void exponential_kernel_ref(const Tensor& self, double lambda, uint64_t key);

/// out (1-d, n elements, any non-bool dtype that holds n - 1) = a random permutation of 0..n-1.
void randperm_kernel(const Tensor& out, int64_t n, uint64_t key);

/// Dropout in one pass over fresh outputs: mask ~ Bernoulli(1 - p) (bool, drawn as
/// bernoulli_scalar_kernel draws), out = input * mask * scale in input's dtype (floating), as
/// PyTorch's input.mul(mask).mul_(scale). out and mask have input's shape.
void dropout_kernel(const Tensor& out, const Tensor& mask, const Tensor& input, double p,
                    double scale, uint64_t key);

}  // namespace ember::cpu
