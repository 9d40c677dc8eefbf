#include "random_kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <vector>

#include "convert.h"
#include "loop.h"

namespace ember::cpu {

// Note [Random streams]
// A random op draws one 64-bit key from its Generator (one lock per call, whatever the size).
// Its random bits are then Philox4x32-10(counter, key) — a keyed bijection built as a
// counter-based generator (independent streams by counter, passing BigCrush) — where the
// counter comes from the element's position: its offset from the tensor's first element (sum of
// index * stride; unique, since outputs never overlap themselves). So:
//   * values depend only on (seed, sequence of calls, element positions): any thread count and
//     any split of the work by parallel_for give the same tensor, with no shared state;
//   * rand({3}) after manual_seed(s) is a prefix of rand({5}) after manual_seed(s).
// One Philox call gives four 32-bit words. Each kernel takes the units it needs, in order:
//   * 32-bit units (four per counter): uniform_ of float32 / float16 / bfloat16, element o <- unit o;
//   * 64-bit units (two per counter): uniform_ of float64, bernoulli, element o <- unit o;
//   * random_ takes 32-bit units for ranges up to 2^32 and 64-bit ones beyond; its rejection
//     sampling redraws from the same counter with the `attempt` word set;
//   * Box-Muller pairs: elements 2j and 2j+1 get (r cos θ, r sin θ) of pair j, made from 64-bit
//     unit j for float types and from counter j's two 64-bit units for float64.

namespace {

// ---- Philox ----
inline std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

inline std::array<uint32_t, 4> draw(uint64_t key, uint64_t counter, uint32_t attempt = 0) {
  return philox({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), attempt, 0},
                {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

inline uint64_t join(uint32_t lo, uint32_t hi) { return lo | static_cast<uint64_t>(hi) << 32; }

// words[4j + q] = word q of counter first + j, for j < n: independent iterations, which the
// compiler vectorizes.
constexpr int64_t kBlockCounters = 128;
void draw_block(uint64_t key, uint64_t first, int64_t n, uint32_t* words) {
  for (int64_t j = 0; j < n; ++j) {
    const auto r = draw(key, first + static_cast<uint64_t>(j));
    for (int q = 0; q < 4; ++q) words[4 * j + q] = r[q];
  }
}

// The unit of the elements' kernels: U elements share one counter (U = 4: 32 bits each; U = 2:
// 64 bits each, or one Box-Muller pair of 64 bits for U = 4 kernels taking pairs).
template <int U>
struct Units {
  // Element e's bits, from the words of the counter holding element 0.
  static auto get(const uint32_t* words, int64_t e) {
    if constexpr (U == 4) return words[e];
    else return join(words[2 * e], words[2 * e + 1]);
  }
};

// The last counter's words, so that the elements sharing it share one Philox call.
struct CounterCache {
  uint64_t key;
  uint64_t counter = ~uint64_t{0};
  std::array<uint32_t, 4> words{};
  const uint32_t* get(uint64_t c) {
    if (c != counter) {
      counter = c;
      words = draw(key, c);
    }
    return words.data();
  }
};

// Every multiply-add below is an explicit fma: the compiler contracts a * b + c on its own where
// it likes, which would let the vectorized and the scalar paths round differently.

// ---- uniform ----
// Random mantissa bits per dtype, as PyTorch's uniform_real: a uniform in [0, 1) with this many
// bits is exactly representable in the dtype, so it never rounds up to 1.
template <class T>
constexpr int kDigits = std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24
                        : std::is_same_v<T, Half> ? 11 : 8;
template <class T>
using dist_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
template <class T>
constexpr int kUniformUnits = std::is_same_v<T, double> ? 2 : 4;

// x * (to - from) + from with x ~ U[0, 1); to - from is rounded to T first, as c10's T arithmetic.
template <class T>
struct UniformMap {
  using A = dist_acc_t<T>;
  A from, range;
  UniformMap(double from_d, double to_d) {
    const T f = static_cast<T>(static_cast<opmath_t<T>>(from_d));
    const T t = static_cast<T>(static_cast<opmath_t<T>>(to_d));
    from = static_cast<A>(f);
    range = static_cast<A>(static_cast<T>(static_cast<A>(t) - static_cast<A>(f)));
  }
  template <class Bits>
  T operator()(Bits bits) const {
    // The top bits as a signed integer: that conversion vectorizes, unsigned ones do not.
    using I = std::conditional_t<sizeof(Bits) == 4, int32_t, int64_t>;
    const auto k = static_cast<I>(bits >> (8 * sizeof(Bits) - kDigits<T>));
    const A x = static_cast<A>(k) * (A(1) / static_cast<A>(int64_t{1} << kDigits<T>));
    return convert<T>(std::fma(x, range, from));
  }
};

// ---- normal: Box-Muller in float (float32 and the 16-bit types) or double ----
// The float path uses branch-free polynomials (Cephes' logf, sinf and cosf on [-pi/4, pi/4]; a
// few ulp) so that blocks of pairs vectorize, as PyTorch vectorizes its float normal_.
inline float as_float(uint32_t b) { return std::bit_cast<float>(b); }

// No branches in these two (a branch here, even a select between two arithmetic results, keeps
// the compiler from vectorizing the loop: the arms might raise different FP exceptions).
[[gnu::always_inline]] inline float log_unit(float x) {  // x in (0, 1]
  // x = (1 + m) 2^e with 1 + m in [sqrt(1/2), sqrt(2)), found by integer arithmetic on the bits.
  const uint32_t ix = std::bit_cast<uint32_t>(x) + (0x3f800000u - 0x3f3504f3u);
  const float e = static_cast<float>(static_cast<int32_t>(ix >> 23) - 0x7f);
  const float m = as_float((ix & 0x007fffffu) + 0x3f3504f3u) - 1.f;
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = std::fma(y, m, -1.1514610310e-1f);
  y = std::fma(y, m, 1.1676998740e-1f);
  y = std::fma(y, m, -1.2420140846e-1f);
  y = std::fma(y, m, 1.4249322787e-1f);
  y = std::fma(y, m, -1.6668057665e-1f);
  y = std::fma(y, m, 2.0000714765e-1f);
  y = std::fma(y, m, -2.4999993993e-1f);
  y = std::fma(y, m, 3.3333331174e-1f);
  y = y * m * z;
  y = std::fma(e, -2.12194440e-4f, y);
  y = std::fma(z, -0.5f, y);
  return std::fma(e, 0.693359375f, m + y);
}

// sqrt(x) for x >= 0 by Newton's method on 1/sqrt(x) from the classic bit-level first guess
// (three steps reach float rounding). std::sqrt would do, but its errno path (for negative
// arguments that never come here) keeps the compiler from vectorizing the loop around it.
// x = 0 needs no special case: the guess stays finite, so x * y is 0.
[[gnu::always_inline]] inline float sqrt_nonnegative(float x) {
  float y = as_float(0x5f375a86u - (std::bit_cast<uint32_t>(x) >> 1));
  const float half_x = 0.5f * x;
  y = y * std::fma(-half_x * y, y, 1.5f);
  y = y * std::fma(-half_x * y, y, 1.5f);
  y = y * std::fma(-half_x * y, y, 1.5f);
  return x * y;
}

// (cos, sin) of 2 pi u for u in [0, 1): quarter turns q = round(4u), then polynomials on the
// remaining angle in [-pi/4, pi/4].
[[gnu::always_inline]] inline std::array<float, 2> cos_sin_turn(float u) {
  const float t = u * 4.f;  // exact
  const float q = std::nearbyint(t);
  const float a = (t - q) * 1.57079632679489662f;
  const float z = a * a;
  float s = -1.9515295891e-4f;
  s = std::fma(s, z, 8.3321608736e-3f);
  s = std::fma(s, z, -1.6666654611e-1f);
  s = std::fma(s * z, a, a);
  float c = 2.443315711809948e-5f;
  c = std::fma(c, z, -1.388731625493765e-3f);
  c = std::fma(c, z, 4.166664568298827e-2f);
  c = std::fma(c * z, z, std::fma(z, -0.5f, 1.f));
  const int quarter = static_cast<int>(q) & 3;
  const float cos_v = quarter == 0 ? c : quarter == 1 ? -s : quarter == 2 ? -c : s;
  const float sin_v = quarter == 0 ? s : quarter == 1 ? c : quarter == 2 ? -s : -c;
  return {cos_v, sin_v};
}

// Box-Muller radius and angle from uniforms: u1 = (k + 1/2) 2^-bits is never 0, so
// r = sqrt(-2 ln u1) is finite: at most 6.7 with float's 31 bits (int32 converts in vector
// registers; PyTorch's float path stops at 5.8), 8.6 with double's 53.
[[gnu::always_inline]] inline float radius_f(uint64_t v) {
  const float u1 = std::fma(static_cast<float>(static_cast<int32_t>(v >> 33)), 0x1p-31f, 0x1p-32f);
  return sqrt_nonnegative(-2.f * log_unit(u1));
}
inline float turn_f(uint64_t v) { return static_cast<float>(static_cast<int32_t>(v & 0xffffff)) * 0x1p-24f; }

inline std::array<float, 2> normal_pair_f(uint64_t v, float mean, float std) {
  const float r = radius_f(v);
  const auto cs = cos_sin_turn(turn_f(v));
  return {std::fma(r * cs[0], std, mean), std::fma(r * cs[1], std, mean)};
}

inline std::array<double, 2> normal_pair_d(uint64_t v1, uint64_t v2, double mean, double std) {
  const double u1 = std::fma(static_cast<double>(static_cast<int64_t>(v1 >> 11)), 0x1p-53, 0x1p-54);
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * (static_cast<double>(static_cast<int64_t>(v2 >> 11)) * 0x1p-53);
  return {std::fma(r * std::cos(theta), std, mean), std::fma(r * std::sin(theta), std, mean)};
}

// The pair holding element e (relative to a counter's first element) and e's half of it.
template <class A>
inline A normal_at(const uint32_t* words, int64_t e, A mean, A std) {
  const int64_t pair = e >> 1;
  if constexpr (std::is_same_v<A, float>) {
    return normal_pair_f(Units<2>::get(words, pair), mean, std)[e & 1];
  } else {
    return normal_pair_d(Units<2>::get(words, 2 * pair), Units<2>::get(words, 2 * pair + 1), mean, std)[e & 1];
  }
}

template <class T>
using normal_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// z[e] for e < n (n even), element e of the block starting at a counter's first element. Float
// goes stage by stage over arrays, so that each stage vectorizes; double calls libm and does not.
template <class A>
void normal_block(const uint32_t* words, int64_t n, A mean, A std, A* z) {
  if constexpr (std::is_same_v<A, float>) {
    constexpr int64_t kMax = 2 * kBlockCounters;  // pairs per block (4 elements per counter)
    alignas(64) float r[kMax], c[kMax], s[kMax];
    const int64_t pairs = n / 2;
    for (int64_t j = 0; j < pairs; ++j) r[j] = radius_f(Units<2>::get(words, j));
    for (int64_t j = 0; j < pairs; ++j) {
      const auto cs = cos_sin_turn(turn_f(Units<2>::get(words, j)));
      c[j] = cs[0];
      s[j] = cs[1];
    }
    for (int64_t j = 0; j < pairs; ++j) {
      z[2 * j] = std::fma(r[j] * c[j], std, mean);
      z[2 * j + 1] = std::fma(r[j] * s[j], std, mean);
    }
  } else {
    for (int64_t e = 0; e < n; e += 2) {
      const auto zz = normal_pair_d(Units<2>::get(words, e), Units<2>::get(words, e + 1), mean, std);
      z[e] = zz[0];
      z[e + 1] = zz[1];
    }
  }
}

// ---- bernoulli ----
// u < p with u = (bits >> 11) 2^-53, decided on the integer: u < p exactly when
// bits >> 11 < ceil(p 2^53) (p 2^53 is exact), which vectorizes where the double compare would not.
struct BernoulliMap {
  uint64_t threshold;
  explicit BernoulliMap(double p) : threshold(static_cast<uint64_t>(std::ceil(p * 0x1p53))) {}
  bool operator()(uint64_t bits) const { return (bits >> 11) < threshold; }
};
inline double unit_double(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

// ---- random integers ----
// Unit `offset` of draw `attempt` (attempt > 0: the redraws of rejection sampling).
template <int U>
inline uint64_t unit_at(uint64_t key, uint64_t offset, uint32_t attempt) {
  const auto w = draw(key, offset / U, attempt);
  return Units<U>::get(w.data(), static_cast<int64_t>(offset % U));
}

// r uniform on [0, range) without bias (Lemire, "Fast random integer generation in an
// interval", 2019): the high half of bits * range, rejecting the few low halves below
// 2^w mod range. Ranges up to 2^32 take 32-bit units (w = 32), larger ones 64-bit units.
template <int U>
inline uint64_t uniform_below(uint64_t key, uint64_t offset, uint64_t bits, uint64_t range) {
  if constexpr (U == 4) {
    uint64_t m = bits * range;
    if (static_cast<uint32_t>(m) < range) {
      const uint64_t threshold = ((uint64_t{1} << 32) - range) % range;
      for (uint32_t attempt = 1; static_cast<uint32_t>(m) < threshold; ++attempt) {
        m = unit_at<4>(key, offset, attempt) * range;
      }
    }
    return m >> 32;
  } else {
    unsigned __int128 m = static_cast<unsigned __int128>(bits) * range;
    if (static_cast<uint64_t>(m) < range) {
      const uint64_t threshold = (0 - range) % range;
      for (uint32_t attempt = 1; static_cast<uint64_t>(m) < threshold; ++attempt) {
        m = static_cast<unsigned __int128>(unit_at<2>(key, offset, attempt)) * range;
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
}

// base + r in T; range 0 stands for 2^64 (every int64: the raw 64 bits).
template <class T, int U>
inline T random_value(uint64_t key, uint64_t offset, uint64_t bits, uint64_t range, int64_t base) {
  const uint64_t r = range == 0 ? bits : uniform_below<U>(key, offset, bits, range);
  return convert<T>(static_cast<int64_t>(static_cast<uint64_t>(base) + r));
}

// ---- walks ----
// Fills every element of `t` in parallel, U elements per counter. Contiguous runs go by
// blocks: the counters covering the block are drawn together (draw_block), then
// block_fn(out, words, skip, len, first_offset) writes out[k] from element skip + k of `words`
// (skip = first_offset % U: words start at a counter boundary). Strided runs call
// element_fn(element, offset, cache) one element at a time.
template <class T, int U, class BlockFn, class ElementFn>
void fill_elements(const Tensor& t, uint64_t key, BlockFn&& block_fn, ElementFn&& element_fn) {
  ElementwiseLoop loop({t});
  char* base = static_cast<char*>(t.data_ptr());
  constexpr auto item = static_cast<int64_t>(sizeof(T));
  loop.for_each_run([&](char** ptrs, const int64_t* strides, int64_t n) {
    const auto first = static_cast<uint64_t>((ptrs[0] - base) / item);
    if (strides[0] == item) {
      alignas(64) uint32_t words[4 * kBlockCounters];
      T* out = reinterpret_cast<T*>(ptrs[0]);
      for (int64_t done = 0; done < n;) {
        const uint64_t o = first + static_cast<uint64_t>(done);
        const auto skip = static_cast<int64_t>(o % U);
        const int64_t len = std::min<int64_t>(n - done, U * kBlockCounters - skip);
        const uint64_t c0 = o / U, c1 = (o + static_cast<uint64_t>(len) - 1) / U;
        draw_block(key, c0, static_cast<int64_t>(c1 - c0 + 1), words);
        block_fn(out + done, static_cast<const uint32_t*>(words), skip, len, o);
        done += len;
      }
      return;
    }
    CounterCache cache{key};
    const auto step = static_cast<uint64_t>(strides[0] / item);
    for (int64_t i = 0; i < n; ++i) {
      element_fn(*reinterpret_cast<T*>(ptrs[0] + i * strides[0]), first + static_cast<uint64_t>(i) * step, cache);
    }
  });
}

// The reference walk: logical order, offsets from the strides, one thread, no merging of dims,
// a fresh Philox call per element.
template <class T, class F>
void for_each_element_ref(const Tensor& t, F&& f) {
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
  T* data = static_cast<T*>(t.data_ptr());
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.stride(d);
    f(data[off], static_cast<uint64_t>(off));
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++idx[d] < t.size(d)) break;
      idx[d] = 0;
    }
  }
}

template <class F>
void visit_floating(ScalarType dt, F&& f, const char* op) {
  visit_dtype(dt, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) f.template operator()<T>();
    else EMBER_FAIL("\"", op, "\" not implemented for '", scalar_type_name(dt), "'");
  }, op);
}

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
  return philox(counter, key);
}

uint64_t element_bits(uint64_t key, uint64_t offset, uint32_t attempt) {
  return unit_at<2>(key, offset, attempt);
}

void uniform_kernel(const Tensor& self, double from, double to, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    constexpr int U = kUniformUnits<T>;
    const UniformMap<T> map(from, to);
    fill_elements<T, U>(self, key,
        [&](T* out, const uint32_t* words, int64_t skip, int64_t len, uint64_t) {
          for (int64_t k = 0; k < len; ++k) out[k] = map(Units<U>::get(words, skip + k));
        },
        [&](T& v, uint64_t off, CounterCache& c) { v = map(Units<U>::get(c.get(off / U), off % U)); });
  }, "uniform_");
}

void uniform_kernel_ref(const Tensor& self, double from, double to, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    constexpr int U = kUniformUnits<T>;
    const UniformMap<T> map(from, to);
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      const auto w = draw(key, off / U);
      v = map(Units<U>::get(w.data(), static_cast<int64_t>(off % U)));
    });
  }, "uniform_");
}

void normal_kernel(const Tensor& self, double mean, double std, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    using A = normal_acc_t<T>;
    constexpr int U = std::is_same_v<A, float> ? 4 : 2;
    const A m = static_cast<A>(mean), s = static_cast<A>(std);
    fill_elements<T, U>(self, key,
        [&](T* out, const uint32_t* words, int64_t skip, int64_t len, uint64_t) {
          alignas(64) A z[4 * kBlockCounters];  // the most elements a block holds
          normal_block<A>(words, (skip + len + 1) & ~int64_t{1}, m, s, z);
          for (int64_t k = 0; k < len; ++k) out[k] = convert<T>(z[skip + k]);
        },
        [&](T& v, uint64_t off, CounterCache& c) {
          v = convert<T>(normal_at<A>(c.get(off / U), static_cast<int64_t>(off % U), m, s));
        });
  }, "normal_kernel_cpu");
}

void normal_kernel_ref(const Tensor& self, double mean, double std, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    using A = normal_acc_t<T>;
    constexpr int U = std::is_same_v<A, float> ? 4 : 2;
    const A m = static_cast<A>(mean), s = static_cast<A>(std);
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      const auto w = draw(key, off / U);
      v = convert<T>(normal_at<A>(w.data(), static_cast<int64_t>(off % U), m, s));
    });
  }, "normal_kernel_cpu");
}

void bernoulli_scalar_kernel(const Tensor& self, double p, uint64_t key) {
  const BernoulliMap map(p);
  visit_dtype(self.dtype(), [&]<class T>() {
    fill_elements<T, 2>(self, key,
        [&](T* out, const uint32_t* words, int64_t skip, int64_t len, uint64_t) {
          for (int64_t k = 0; k < len; ++k) out[k] = convert<T>(map(Units<2>::get(words, skip + k)));
        },
        [&](T& v, uint64_t off, CounterCache& c) { v = convert<T>(map(Units<2>::get(c.get(off / 2), off % 2))); });
  }, "bernoulli_scalar_cpu_");
}

void bernoulli_scalar_kernel_ref(const Tensor& self, double p, uint64_t key) {
  visit_dtype(self.dtype(), [&]<class T>() {
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      v = convert<T>(unit_double(element_bits(key, off)) < p);  // the plain double compare
    });
  }, "bernoulli_scalar_cpu_");
}

void check_probabilities(const Tensor& probs) {
  visit_floating(probs.dtype(), [&]<class P>() {
    for_each_element_ref<P>(probs, [&](P& v, uint64_t) {
      const double p = static_cast<double>(static_cast<opmath_t<P>>(v));
      EMBER_CHECK(p >= 0 && p <= 1, "Expected p_in >= 0 && p_in <= 1 to be true, but got false. "
                  "(bernoulli: every probability must be in [0, 1], found ", p, ")");
    });
  }, "bernoulli_tensor_cpu_p_");
}

void bernoulli_tensor_kernel(const Tensor& out, const Tensor& probs, uint64_t key) {
  visit_dtype(out.dtype(), [&]<class T>() {
    visit_floating(probs.dtype(), [&]<class P>() {
      ElementwiseLoop loop({out, probs});
      char* base = static_cast<char*>(out.data_ptr());
      constexpr auto item = static_cast<int64_t>(sizeof(T));
      loop.for_each_run([&](char** ptrs, const int64_t* s, int64_t n) {
        CounterCache cache{key};
        const auto first = static_cast<uint64_t>((ptrs[0] - base) / item);
        const auto step = static_cast<uint64_t>(s[0] / item);
        for (int64_t i = 0; i < n; ++i) {
          const double p = static_cast<double>(static_cast<opmath_t<P>>(*reinterpret_cast<const P*>(ptrs[1] + i * s[1])));
          const uint64_t off = first + static_cast<uint64_t>(i) * step;
          const uint64_t bits = Units<2>::get(cache.get(off / 2), static_cast<int64_t>(off % 2));
          *reinterpret_cast<T*>(ptrs[0] + i * s[0]) = convert<T>(unit_double(bits) < p);
        }
      });
    }, "bernoulli_tensor_cpu_p_");
  }, "bernoulli_tensor_cpu_self_");
}

void bernoulli_tensor_kernel_ref(const Tensor& out, const Tensor& probs, uint64_t key) {
  visit_dtype(out.dtype(), [&]<class T>() {
    visit_floating(probs.dtype(), [&]<class P>() {
      // probs has out's shape; walk both by logical index.
      std::vector<int64_t> idx(static_cast<size_t>(out.dim()), 0);
      for (int64_t n = 0; n < out.numel(); ++n) {
        int64_t oo = 0, po = 0;
        for (int64_t d = 0; d < out.dim(); ++d) {
          oo += idx[d] * out.stride(d);
          po += idx[d] * probs.stride(d);
        }
        const double p = static_cast<double>(static_cast<opmath_t<P>>(static_cast<const P*>(probs.data_ptr())[po]));
        static_cast<T*>(out.data_ptr())[oo] =
            convert<T>(unit_double(element_bits(key, static_cast<uint64_t>(oo))) < p);
        for (int64_t d = out.dim() - 1; d >= 0; --d) {
          if (++idx[d] < out.size(d)) break;
          idx[d] = 0;
        }
      }
    }, "bernoulli_tensor_cpu_p_");
  }, "bernoulli_tensor_cpu_self_");
}

void random_from_to_kernel(const Tensor& self, uint64_t range, int64_t base, uint64_t key) {
  auto run = [&]<int U>() {
    visit_dtype(self.dtype(), [&]<class T>() {
      fill_elements<T, U>(self, key,
          [&](T* out, const uint32_t* words, int64_t skip, int64_t len, uint64_t first) {
            for (int64_t k = 0; k < len; ++k) {
              out[k] = random_value<T, U>(key, first + static_cast<uint64_t>(k),
                                          Units<U>::get(words, skip + k), range, base);
            }
          },
          [&](T& v, uint64_t off, CounterCache& c) {
            v = random_value<T, U>(key, off, Units<U>::get(c.get(off / U), off % U), range, base);
          });
    }, "random_from_to_kernel_cpu");
  };
  if (range != 0 && range <= (uint64_t{1} << 32)) run.template operator()<4>();
  else run.template operator()<2>();
}

void random_from_to_kernel_ref(const Tensor& self, uint64_t range, int64_t base, uint64_t key) {
  auto run = [&]<int U>() {
    visit_dtype(self.dtype(), [&]<class T>() {
      for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
        v = random_value<T, U>(key, off, unit_at<U>(key, off, 0), range, base);
      });
    }, "random_from_to_kernel_cpu");
  };
  if (range != 0 && range <= (uint64_t{1} << 32)) run.template operator()<4>();
  else run.template operator()<2>();
}

// ---- exponential: -log(1 - u) / lambda in double, u with 53 bits (64-bit units) ----
namespace {
struct ExponentialMap {
  double lambda;
  double operator()(uint64_t bits) const { return -std::log1p(-unit_double(bits)) / lambda; }
};
}  // namespace

void exponential_kernel(const Tensor& self, double lambda, uint64_t key) {
  const ExponentialMap map{lambda};
  visit_floating(self.dtype(), [&]<class T>() {
    fill_elements<T, 2>(self, key,
        [&](T* out, const uint32_t* words, int64_t skip, int64_t len, uint64_t) {
          for (int64_t k = 0; k < len; ++k) out[k] = convert<T>(map(Units<2>::get(words, skip + k)));
        },
        [&](T& v, uint64_t off, CounterCache& c) { v = convert<T>(map(Units<2>::get(c.get(off / 2), off % 2))); });
  }, "exponential_cpu");
}

void exponential_kernel_ref(const Tensor& self, double lambda, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      v = convert<T>(-std::log1p(-unit_double(element_bits(key, off))) / lambda);
    });
  }, "exponential_cpu");
}

// ---- randperm: Fisher-Yates over 0..n-1, swap i drawing element i's 64 bits ----
// Sequential by nature (each swap reads the previous ones), as PyTorch's CPU randperm; the
// slight modulo bias of a 64-bit draw is PyTorch's too.
void randperm_kernel(const Tensor& out, int64_t n, uint64_t key) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[static_cast<size_t>(i)] = i;
  for (int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<int64_t>(element_bits(key, static_cast<uint64_t>(i)) %
                                        static_cast<uint64_t>(n - i));
    std::swap(r[static_cast<size_t>(i)], r[static_cast<size_t>(i + z)]);
  }
  visit_dtype(out.dtype(), [&]<class T>() {
    T* p = static_cast<T*>(out.data_ptr());
    const int64_t stride = out.stride(0);
    for (int64_t i = 0; i < n; ++i) p[i * stride] = convert<T>(r[static_cast<size_t>(i)]);
  }, "randperm");
}

void dropout_kernel(const Tensor& out, const Tensor& mask, const Tensor& input, double p,
                    double scale, uint64_t key) {
  bernoulli_scalar_kernel(mask, 1 - p, key);
  visit_floating(input.dtype(), [&]<class T>() {
    using O = opmath_t<T>;
    const O s = static_cast<O>(scale);
    ElementwiseLoop loop({out, input, mask});
    loop.run<T, T, bool>([s](T x, bool m) {
      // Two roundings, as input.mul(mask).mul_(scale): NaN * 0 stays NaN.
      const T xm = static_cast<T>(static_cast<O>(x) * static_cast<O>(m));
      return static_cast<T>(static_cast<O>(xm) * s);
    });
  }, "native_dropout");
}

}  // namespace ember::cpu
