// Random factories, in-place random fills and dropout. `gen` nullptr = default_generator().
//
//   ember::manual_seed(0);
//   auto u = ember::rand({2, 3});  auto n = ember::randn({4});  auto i = ember::randint(0, 10, {5});
//   auto y = ember::dropout(x, 0.5, /*train=*/true);
//   ember::Generator g;  g.manual_seed(1);  auto r = ember::rand({3}, {}, &g);   // rand.generator
#pragma once

#include <optional>
#include <tuple>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

Tensor rand(IntArrayRef sizes, TensorOptions options = {}, Generator* gen = nullptr);
Tensor randn(IntArrayRef sizes, TensorOptions options = {}, Generator* gen = nullptr);
/// Integers in [low, high); dtype int64 unless given.
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, TensorOptions options = {},
               Generator* gen = nullptr);
Tensor randint(int64_t high, IntArrayRef sizes, TensorOptions options = {}, Generator* gen = nullptr);
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, Generator* gen = nullptr);
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& self, double p = 0.5, Generator* gen = nullptr);
/// Integers in [from, to) in self's dtype; `to` nullopt: up to the dtype's largest value (2^digits
/// for floating dtypes), or every int64 when `from` is the lowest int64.
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen = nullptr);
/// Integers in [0, to). (No generator argument here: random_(t, 5, 0) must not read 0 as one;
/// random_(t, 0, to, &g) takes one.)
Tensor& random_(Tensor& self, int64_t to);
/// random_(self, 0, nullopt): [0, the dtype's largest value] (2^digits for floating dtypes).
Tensor& random_(Tensor& self);
/// self ~ Exponential(lambd) (floating dtypes, lambd >= 0).
Tensor& exponential_(Tensor& self, double lambd = 1, Generator* gen = nullptr);
/// A random permutation of 0..n-1 (int64 unless a dtype is given).
Tensor randperm(int64_t n, TensorOptions options = {}, Generator* gen = nullptr);
/// torch.normal's four forms: mean and std as tensors (broadcast) or numbers.
Tensor normal(const Tensor& mean, double std = 1, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(double mean, double std, IntArrayRef size, TensorOptions options = {},
              Generator* gen = nullptr);
/// Draws 0/1 with the probabilities in `self` (values in [0, 1]).
Tensor bernoulli(const Tensor& self, Generator* gen = nullptr);
/// Returns (output, mask); in eval mode (train false) output is a copy of input and mask all true.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train);
Tensor dropout(const Tensor& input, double p, bool train);

}  // namespace ember
