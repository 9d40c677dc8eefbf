#include "ember/generator.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>

#include "ember/ops/factory.h"

namespace ember {

Generator::Generator(uint64_t seed) : seed_(seed), engine_(seed) {}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  engine_.seed(seed);
  has_cached_normal_ = false;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  manual_seed(s);
  return s;
}

// Note [Generator state]
// std::mt19937_64 exposes its state only as text (operator<< / >>): libstdc++ writes the 312
// words and then its position. get_state parses that text into fixed-size little-endian words
// (so a state is kStateBytes bytes whatever the values, as PyTorch's is always 5056), followed
// by the seed and the Box-Muller cache, which next_normal() consumes before the engine.
Tensor Generator::get_state() const {
  std::array<uint64_t, kStateWords> words{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::stringstream text;
    text << engine_;
    int64_t n = 0;
    for (uint64_t w; n < kStateWords - 3 && text >> w; ++n) words[static_cast<size_t>(n)] = w;
    EMBER_ASSERT(n == kStateWords - 3 && !(text >> std::ws).good(),
                 "Generator::get_state: unexpected std::mt19937_64 text layout");
    words[kStateWords - 3] = seed_;
    words[kStateWords - 2] = has_cached_normal_ ? 1 : 0;
    words[kStateWords - 1] = std::bit_cast<uint64_t>(cached_normal_);
  }
  Tensor state = empty({kStateBytes}, TensorOptions().dtype(kUInt8).device(kCPU));
  auto* out = static_cast<uint8_t*>(state.data_ptr());
  for (size_t k = 0; k < words.size(); ++k) {
    for (int b = 0; b < 8; ++b) out[8 * k + static_cast<size_t>(b)] = static_cast<uint8_t>(words[k] >> (8 * b));
  }
  return state;
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK_TYPE(state.defined() && state.dtype() == kUInt8 && state.is_cpu() &&
                       !state.is_quantized(),
                   "RNG state must be a ember.ByteTensor");
  EMBER_CHECK(state.numel() == kStateBytes, "Expected an ember Generator state of size ",
              kStateBytes, " but found the input RNG state size to be ", state.numel());
  const Tensor bytes = state.contiguous();
  const auto* in = static_cast<const uint8_t*>(bytes.data_ptr());
  std::array<uint64_t, kStateWords> words{};
  for (size_t k = 0; k < words.size(); ++k) {
    for (int b = 0; b < 8; ++b) words[k] |= static_cast<uint64_t>(in[8 * k + static_cast<size_t>(b)]) << (8 * b);
  }
  const uint64_t position = words[kStateWords - 4];
  const uint64_t has_normal = words[kStateWords - 2];
  EMBER_CHECK(position <= 312 && has_normal <= 1,
              "Invalid RNG state: the engine position must be in [0, 312] and the cached-normal "
              "flag 0 or 1, got ", position, " and ", has_normal);
  std::stringstream text;
  for (int64_t k = 0; k < kStateWords - 3; ++k) text << words[static_cast<size_t>(k)] << ' ';
  std::mt19937_64 engine;
  text >> engine;
  EMBER_ASSERT(!text.fail(), "Generator::set_state: the engine did not read its state");
  std::lock_guard<std::mutex> lock(mutex_);
  engine_ = engine;
  seed_ = words[kStateWords - 3];
  has_cached_normal_ = has_normal == 1;
  cached_normal_ = std::bit_cast<double>(words[kStateWords - 1]);
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
uint64_t seed() { return default_generator().seed(); }
uint64_t initial_seed() { return default_generator().initial_seed(); }
Tensor get_rng_state() { return default_generator().get_state(); }
void set_rng_state(const Tensor& state) { default_generator().set_state(state); }

}  // namespace ember
