#include "random_kernels.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "convert.h"
#include "loop.h"

namespace ember::cpu {

// Note [Random streams]
// A random op draws one 64-bit key from its Generator (one lock per call, whatever the size) and
// gives every element the bits Philox4x32-10(counter, key), where the counter is the element's
// offset from the tensor's first element (sum of index * stride; unique, since outputs never
// overlap themselves). Philox is a keyed bijection built for exactly this use — independent
// streams by counter, passing BigCrush — so:
//   * values depend only on (seed, sequence of calls, element position): any thread count and
//     any split of the work by parallel_for give the same tensor, with no shared state;
//   * rand({3}) after manual_seed(s) is a prefix of rand({5}) after manual_seed(s).
// One Philox call gives 128 bits: elements 2j and 2j+1 take its low and high 64 bits; a normal
// draw turns the pair into (r cos θ, r sin θ) and hands one to each. Rejection sampling
// (random_) draws again from the same counter with a nonzero `attempt` word.

namespace {

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

// The 128 bits shared by elements 2 * pair and 2 * pair + 1.
inline std::array<uint64_t, 2> pair_bits(uint64_t key, uint64_t pair, uint32_t attempt) {
  const auto r = philox({static_cast<uint32_t>(pair), static_cast<uint32_t>(pair >> 32), attempt, 0},
                        {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
  return {r[0] | static_cast<uint64_t>(r[1]) << 32, r[2] | static_cast<uint64_t>(r[3]) << 32};
}

// Remembers the last pair so that neighbouring elements share one Philox call.
struct BitsCache {
  uint64_t key;
  uint64_t pair = ~uint64_t{0};
  std::array<uint64_t, 2> bits{};
  uint64_t get(uint64_t offset) {
    if ((offset >> 1) != pair) {
      pair = offset >> 1;
      bits = pair_bits(key, pair, 0);
    }
    return bits[offset & 1];
  }
};

inline double unit_double(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

// Box-Muller on one pair of uniforms; 1 - u1 is in (0, 1], so the log is finite.
inline std::array<double, 2> normal_pair(const std::array<uint64_t, 2>& bits) {
  const double r = std::sqrt(-2.0 * std::log1p(-unit_double(bits[0])));
  const double theta = 2.0 * std::numbers::pi * unit_double(bits[1]);
  return {r * std::cos(theta), r * std::sin(theta)};
}

struct NormalCache {
  uint64_t key;
  uint64_t pair = ~uint64_t{0};
  std::array<double, 2> z{};
  double get(uint64_t offset) {
    if ((offset >> 1) != pair) {
      pair = offset >> 1;
      z = normal_pair(pair_bits(key, pair, 0));
    }
    return z[offset & 1];
  }
};

// Random mantissa bits per dtype, as PyTorch's uniform_real: a uniform in [0, 1) with this many
// bits is exactly representable in the dtype, so it never rounds up to 1.
template <class T>
constexpr int kDigits = std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24
                        : std::is_same_v<T, Half> ? 11 : 8;
template <class T>
using dist_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

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
  T operator()(uint64_t bits) const {
    const A x = static_cast<A>(bits >> (64 - kDigits<T>)) * (A(1) / static_cast<A>(uint64_t{1} << kDigits<T>));
    return convert<T>(x * range + from);
  }
};

// r uniform on [0, range) from 64-bit draws, without bias (Lemire, "Fast random integer
// generation in an interval", 2019): reject the few low products below 2^64 mod range.
inline uint64_t uniform_below(uint64_t key, uint64_t offset, uint64_t bits, uint64_t range) {
  unsigned __int128 m = static_cast<unsigned __int128>(bits) * range;
  auto low = static_cast<uint64_t>(m);
  if (low < range) {
    const uint64_t threshold = (0 - range) % range;
    for (uint32_t attempt = 1; low < threshold; ++attempt) {
      m = static_cast<unsigned __int128>(element_bits(key, offset, attempt)) * range;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

template <class T>
inline T random_value(uint64_t key, uint64_t offset, uint64_t bits, uint64_t range, int64_t base) {
  const uint64_t r = range == 0 ? bits : uniform_below(key, offset, bits, range);
  return convert<T>(static_cast<int64_t>(static_cast<uint64_t>(base) + r));
}

// Calls f(element, offset, cache) for every element of `t`, in parallel; each run of the loop
// gets its own cache (caches only save work: values never depend on them).
template <class T, class Cache, class F>
void for_each_element(const Tensor& t, uint64_t key, F&& f) {
  ElementwiseLoop loop({t});
  char* base = static_cast<char*>(t.data_ptr());
  constexpr auto item = static_cast<int64_t>(sizeof(T));
  loop.for_each_run([&](char** ptrs, const int64_t* strides, int64_t n) {
    Cache cache{key};
    const auto first = static_cast<uint64_t>((ptrs[0] - base) / item);
    const auto step = static_cast<uint64_t>(strides[0] / item);
    for (int64_t i = 0; i < n; ++i) {
      f(*reinterpret_cast<T*>(ptrs[0] + i * strides[0]), first + static_cast<uint64_t>(i) * step, cache);
    }
  });
}

// The reference walk: logical order, offsets from the strides, one thread, no merging of dims.
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
  return pair_bits(key, offset >> 1, attempt)[offset & 1];
}

void uniform_kernel(const Tensor& self, double from, double to, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    const UniformMap<T> map(from, to);
    for_each_element<T, BitsCache>(self, key, [&](T& v, uint64_t off, BitsCache& c) { v = map(c.get(off)); });
  }, "uniform_");
}

void uniform_kernel_ref(const Tensor& self, double from, double to, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    const UniformMap<T> map(from, to);
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) { v = map(element_bits(key, off)); });
  }, "uniform_");
}

void normal_kernel(const Tensor& self, double mean, double std, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    for_each_element<T, NormalCache>(self, key, [&](T& v, uint64_t off, NormalCache& c) {
      v = convert<T>(c.get(off) * std + mean);
    });
  }, "normal_kernel_cpu");
}

void normal_kernel_ref(const Tensor& self, double mean, double std, uint64_t key) {
  visit_floating(self.dtype(), [&]<class T>() {
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      v = convert<T>(normal_pair(pair_bits(key, off >> 1, 0))[off & 1] * std + mean);
    });
  }, "normal_kernel_cpu");
}

void bernoulli_scalar_kernel(const Tensor& self, double p, uint64_t key) {
  visit_dtype(self.dtype(), [&]<class T>() {
    for_each_element<T, BitsCache>(self, key, [&](T& v, uint64_t off, BitsCache& c) {
      v = convert<T>(unit_double(c.get(off)) < p);
    });
  }, "bernoulli_scalar_cpu_");
}

void bernoulli_scalar_kernel_ref(const Tensor& self, double p, uint64_t key) {
  visit_dtype(self.dtype(), [&]<class T>() {
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      v = convert<T>(unit_double(element_bits(key, off)) < p);
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
        BitsCache cache{key};
        const auto first = static_cast<uint64_t>((ptrs[0] - base) / item);
        for (int64_t i = 0; i < n; ++i) {
          const double p = static_cast<double>(static_cast<opmath_t<P>>(*reinterpret_cast<const P*>(ptrs[1] + i * s[1])));
          const uint64_t off = first + static_cast<uint64_t>(i * (s[0] / item));
          *reinterpret_cast<T*>(ptrs[0] + i * s[0]) = convert<T>(unit_double(cache.get(off)) < p);
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
  visit_dtype(self.dtype(), [&]<class T>() {
    for_each_element<T, BitsCache>(self, key, [&](T& v, uint64_t off, BitsCache& c) {
      v = random_value<T>(key, off, c.get(off), range, base);
    });
  }, "random_from_to_kernel_cpu");
}

void random_from_to_kernel_ref(const Tensor& self, uint64_t range, int64_t base, uint64_t key) {
  visit_dtype(self.dtype(), [&]<class T>() {
    for_each_element_ref<T>(self, [&](T& v, uint64_t off) {
      v = random_value<T>(key, off, element_bits(key, off), range, base);
    });
  }, "random_from_to_kernel_cpu");
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
