#include "ember/generator.h"

#include <cmath>

namespace ember {

Generator::Generator(uint64_t seed) : seed_(seed), engine_(seed) {}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  engine_.seed(seed);
  has_cached_normal_ = false;
}

uint64_t Generator::next_u64() {
  std::lock_guard<std::mutex> lock(mutex_);
  return engine_();
}

double Generator::next_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

float Generator::next_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

double Generator::next_normal() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (has_cached_normal_) {
      has_cached_normal_ = false;
      return cached_normal_;
    }
  }
  double u1 = next_double(), u2 = next_double();
  double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  double theta = 2.0 * M_PI * u2;
  std::lock_guard<std::mutex> lock(mutex_);
  cached_normal_ = r * std::sin(theta);
  has_cached_normal_ = true;
  return r * std::cos(theta);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
