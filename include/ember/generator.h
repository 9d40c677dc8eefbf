// Random number generators. Ops that draw random numbers take an optional Generator*; nullptr
// means the process-wide default generator (seeded by ember::manual_seed). A random op takes one
// next_u64() per call, under one lock, as the key of its counter-based stream, so its values do
// not depend on the thread count (Note [Random streams] in src/backends/cpu/random_kernels.cpp).
//
//   ember::manual_seed(0);   auto a = ember::rand({3});
//   ember::Generator g;  g.manual_seed(42);  auto b = ember::randn({2, 2}, {}, &g);
//   ember::Tensor s = g.get_state();  auto c = ember::rand({2}, {}, &g);
//   g.set_state(s);                   // rand({2}, {}, &g) gives c again
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

#include "ember/device.h"
#include "ember/tensor.h"

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull);  // PyTorch's default seed
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  /// Seeds from a non-deterministic source and returns that seed (torch.Generator.seed()).
  uint64_t seed();
  /// The whole state (engine, seed, cached normal) as a 1-d uint8 tensor of kStateBytes bytes,
  /// a copy: drawing afterwards does not change it.
  Tensor get_state() const;
  /// Restores a state from get_state() (of any generator). A uint8 tensor of kStateBytes
  /// elements, else TypeError / RuntimeError, leaving the generator unchanged.
  void set_state(const Tensor& state);
  /// Generators live on the CPU (the only device with data).
  Device device() const { return kCPU; }

  /// Raw 64 random bits. Thread-safe (a generator may be shared by parallel kernels).
  uint64_t next_u64();
  /// Uniform double in [0, 1) with 53 random bits.
  double next_double();
  /// Uniform float in [0, 1) with 24 random bits.
  float next_float();
  /// Standard normal (Box-Muller; consumes two uniforms and caches the second value).
  double next_normal();
  /// The engine itself, for kernels that draw many numbers under one lock.
  std::mutex& mutex() { return mutex_; }
  std::mt19937_64& engine() { return engine_; }

  /// The engine's 312 words and position, then the seed, the cached-normal flag and value.
  static constexpr int64_t kStateWords = 312 + 1 + 3;
  static constexpr int64_t kStateBytes = kStateWords * 8;

 private:
  uint64_t seed_;
  std::mt19937_64 engine_;
  mutable std::mutex mutex_;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0;
};

/// The process-wide default generator.
Generator& default_generator();
/// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);
/// Seeds the default generator non-deterministically and returns the seed (torch.seed).
uint64_t seed();
/// The default generator's seed (torch.initial_seed).
uint64_t initial_seed();
/// The default generator's state and its restore (torch.get_rng_state / set_rng_state).
Tensor get_rng_state();
void set_rng_state(const Tensor& state);

}  // namespace ember
