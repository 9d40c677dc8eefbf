#include "pointwise_kernels.h"

#include <bit>
#include <cstdint>

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

void clamp_kernel(const Tensor& out, const Tensor& in, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max) {
  EMBER_ASSERT(min || max, "clamp_kernel: no limit");
  const char* name = min && max ? "clamp_scalar_cpu" : min ? "clamp_min_cpu" : "clamp_max_scalar_cpu";
  ElementwiseLoop loop({out, in});
  dispatch_types(kRealTypes, out.dtype(), name, [&]<class T>() {
    using M = opmath_t<T>;
    // Comparisons written as std::max / std::min are: a NaN input is returned as it is.
    if (min && max) {
      const T lo = min->to<T>(), hi = max->to<T>();
      loop.run<T, T>([lo, hi](T x) {
        T v = M(x) < M(lo) ? lo : x;
        return M(hi) < M(v) ? hi : v;
      });
    } else if (min) {
      const T lo = min->to<T>();
      loop.run<T, T>([lo](T x) { return M(x) < M(lo) ? lo : x; });
    } else {
      const T hi = max->to<T>();
      loop.run<T, T>([hi](T x) { return M(hi) < M(x) ? hi : x; });
    }
  });
}

namespace {
template <size_t N> struct SameSizeUnsigned;
template <> struct SameSizeUnsigned<1> { using type = uint8_t; };
template <> struct SameSizeUnsigned<2> { using type = uint16_t; };
template <> struct SameSizeUnsigned<4> { using type = uint32_t; };
template <> struct SameSizeUnsigned<8> { using type = uint64_t; };

// `c ? x : y` without a branch: a mask of the condition selects the bits. The compiler turns
// `c ? x : y` on loaded values into a branch per element, which a random mask (relu's backward
// is where(result <= 0, 0, grad)) mispredicts half the time: 8 ns per element measured, against
// well under 1 ns for this form, which vectorizes.
template <class T>
T select_bits(bool c, T x, T y) {
  using U = typename SameSizeUnsigned<sizeof(T)>::type;
  const U mask = static_cast<U>(-static_cast<U>(c));
  return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(x) & mask) |
                                         (std::bit_cast<U>(y) & static_cast<U>(~mask))));
}
}  // namespace

void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  ElementwiseLoop loop({out, condition, a, b});
  dispatch_types(kAllTypesAndComplex, out.dtype(), "where_cpu", [&]<class T>() {
    if constexpr (is_complex_v<T>) {  // 16-byte complex128 has no same-size integer for select_bits
      if (condition.dtype() == kBool) loop.run<T, bool, T, T>([](bool c, T x, T y) { return c ? x : y; });
      else loop.run<T, uint8_t, T, T>([](uint8_t c, T x, T y) { return c ? x : y; });
    } else if (condition.dtype() == kBool) {
      loop.run<T, bool, T, T>([](bool c, T x, T y) { return select_bits(c, x, y); });
    } else {
      EMBER_ASSERT(condition.dtype() == kUInt8, "where: condition must be bool or uint8");
      loop.run<T, uint8_t, T, T>([](uint8_t c, T x, T y) { return select_bits(c != 0, x, y); });
    }
  });
}

void where_kernel_ref(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  ElementwiseLoop loop({out, condition, a, b});
  dispatch_types(kAllTypesAndComplex, out.dtype(), "where_cpu", [&]<class T>() {
    if (condition.dtype() == kBool) {
      loop.run<T, bool, T, T>([](bool c, T x, T y) { return c ? x : y; });
    } else {
      loop.run<T, uint8_t, T, T>([](uint8_t c, T x, T y) { return c ? x : y; });
    }
  });
}

namespace {
template <class T, class Mask>
void masked_fill_typed(const ElementwiseLoop& loop, T value) {
  loop.for_each_run([value](char** ptrs, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      if (*reinterpret_cast<const Mask*>(ptrs[1] + i * strides[1])) {
        *reinterpret_cast<T*>(ptrs[0] + i * strides[0]) = value;
      }
    }
  });
}
}  // namespace

void masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  ElementwiseLoop loop({self, mask});
  dispatch_types(kAllTypesAndComplex, self.dtype(), "masked_fill", [&]<class T>() {
    const T v = value.to<T>();
    if (mask.dtype() == kBool) {
      masked_fill_typed<T, bool>(loop, v);
    } else {
      EMBER_ASSERT(mask.dtype() == kUInt8, "masked_fill_: mask must be bool or uint8");
      masked_fill_typed<T, uint8_t>(loop, v);
    }
  });
}

}  // namespace ember::cpu
