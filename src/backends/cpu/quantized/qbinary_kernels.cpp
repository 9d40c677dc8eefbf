// quantized add / mul kernels: the generic float formulas (spec § 7.4) and QNNPACK's fixed-point
// add (spec § 7.2). See Note [PyTorch's two formulas] in qelementwise_kernels.h.
//
// Compiled with -ffp-contract=off (CMakeLists.txt): a*b + c stays two roundings where
// PyTorch's formula has two (the vector formula's fma is written out as std::fma).

#include <immintrin.h>

#include <bit>
#include <cstring>
#include <type_traits>

#include "ember/error.h"
#include "ember/parallel.h"
#include "qavx512.h"
#include "qelementwise_kernels.h"

namespace ember::cpu::quantized {

namespace {

constexpr int64_t kGrain = 32768;

// Splits [0, n) into chunks made of whole rows (so that each element keeps its position in its
// row, which decides its formula).
template <class F>
void for_rows(int64_t n, int64_t row, const F& fn) {
  if (n == 0) return;
  const int64_t rows = n / row;
  const int64_t grain_rows = std::max<int64_t>(1, kGrain / std::max<int64_t>(row, 1));
  parallel_for(0, rows, grain_rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) fn(r * row, row);
  });
}

template <class T>
struct AddConsts {
  float sa, sb, pa, pb, inv_v, inv_s;
  int64_t za, zb, zy;
  explicit AddConsts(QParams a, QParams b, QParams y)
      : sa(static_cast<float>(a.scale)),
        sb(static_cast<float>(b.scale)),
        pa(vec_premul(a)),
        pb(vec_premul(b)),
        inv_v(inv_scale_scalar(y.scale)),
        inv_s(inv_scale_scalar(y.scale)),
        za(a.zero_point),
        zb(b.zero_point),
        zy(y.zero_point) {}
  T vec(T a, T b, bool relu) const {
    float c = dequant_vec(a, sa, pa) + dequant_vec(b, sb, pb);
    if (relu) c = std::max(c, 0.0f);
    return quant_vec<T>(c, inv_v, zy);
  }
  T scalar(T a, T b, bool relu) const {
    float c = dequant_scalar(a, sa, za) + dequant_scalar(b, sb, zb);
    if (relu) c = std::max(c, 0.0f);
    return quant_scalar<T>(c, inv_s, zy);
  }
};

// Note [Loops over codes]: a store through uint8_t* may alias anything, so a loop that reads its
// bounds or constants through a lambda's captured references reloads them at every element and
// does not vectorise. The hot loops are functions whose constants are by-value parameters.
// 8 codes widened to int32 lanes / narrowed back (values already within T's range).
template <class T>
inline __m256i load8_epi32(const T* p) {
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  if constexpr (std::is_signed_v<T>) {
    return _mm256_cvtepi8_epi32(v);
  } else {
    return _mm256_cvtepu8_epi32(v);
  }
}
template <class T>
inline void store8_epi32(T* p, __m256i v) {
  const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
  __m128i b;
  if constexpr (std::is_signed_v<T>) {
    b = _mm_packs_epi16(_mm_packs_epi32(lo, hi), _mm_setzero_si128());
  } else {
    b = _mm_packus_epi16(_mm_packus_epi32(lo, hi), _mm_setzero_si128());
  }
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), b);
}

// AddConsts::vec on 8 lanes at a time (8-bit codes): the same float operations in the same
// order (fma dequantization, add, max with 0 written so that a NaN stays, multiply), then
// quant_vec's clamp to ±2^22, ties-to-even conversion, INT32_MIN outside int32 range, + z with
// wrap-around and the clamp to T's range. GCC does not vectorise the scalar form (its
// NaN-preserving max and out-of-range select), which made the residual adds of MobileNetV2
// 5x slower than PyTorch's.
template <class T>
struct AddVec8 {
  __m256 sa, sb, pa, pb, inv, zero, lim_lo, lim_hi, i32_lo, i32_hi;
  __m256i zy, int_min, qlo, qhi;
  bool relu;
  AddVec8(const AddConsts<T>& k, bool relu_)
      : sa(_mm256_set1_ps(k.sa)),
        sb(_mm256_set1_ps(k.sb)),
        pa(_mm256_set1_ps(k.pa)),
        pb(_mm256_set1_ps(k.pb)),
        inv(_mm256_set1_ps(k.inv_v)),
        zero(_mm256_setzero_ps()),
        lim_lo(_mm256_set1_ps(-4194304.0f)),
        lim_hi(_mm256_set1_ps(4194304.0f)),
        i32_lo(_mm256_set1_ps(-2147483648.0f)),
        i32_hi(_mm256_set1_ps(2147483648.0f)),
        zy(_mm256_set1_epi32(static_cast<int32_t>(k.zy))),
        int_min(_mm256_set1_epi32(INT32_MIN)),
        qlo(_mm256_set1_epi32(static_cast<int32_t>(qmin_of<T>()))),
        qhi(_mm256_set1_epi32(static_cast<int32_t>(qmax_of<T>()))),
        relu(relu_) {}
  // Codes of 8 lanes (int32, within T's range).
  __m256i operator()(__m256i qa, __m256i qb) const {
    const __m256 fa = _mm256_fmadd_ps(sa, _mm256_cvtepi32_ps(qa), pa);
    const __m256 fb = _mm256_fmadd_ps(sb, _mm256_cvtepi32_ps(qb), pb);
    __m256 c = _mm256_add_ps(fa, fb);
    if (relu) c = _mm256_max_ps(zero, c);  // (c < 0) ? 0 : c, as std::max(c, 0.0f)
    const __m256 v = _mm256_mul_ps(c, inv);
    const __m256 vc = _mm256_min_ps(_mm256_max_ps(v, lim_lo), lim_hi);
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(v, i32_lo, _CMP_GE_OQ),
                                    _mm256_cmp_ps(v, i32_hi, _CMP_LT_OQ));
    __m256i r = _mm256_blendv_epi8(int_min, _mm256_cvtps_epi32(vc), _mm256_castps_si256(ok));
    r = _mm256_add_epi32(r, zy);
    return _mm256_min_epi32(_mm256_max_epi32(r, qlo), qhi);
  }
};

// 32 lanes of int32 codes (r0..r3, 8 each, in order) as 32 bytes.
template <class T>
inline void store32_epi32(T* p, __m256i r0, __m256i r1, __m256i r2, __m256i r3) {
  __m256i b;
  if constexpr (std::is_signed_v<T>) {
    b = _mm256_packs_epi16(_mm256_packs_epi32(r0, r1), _mm256_packs_epi32(r2, r3));
  } else {
    b = _mm256_packus_epi16(_mm256_packus_epi32(r0, r1), _mm256_packus_epi32(r2, r3));
  }
  // The packs interleave 128-bit lanes: dwords hold r0.lo r1.lo r2.lo r3.lo | r0.hi ... r3.hi.
  b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), b);
}

template <class T>
void add_vec8(const T* a, const T* b, T* y, int64_t i0, int64_t i1, const AddConsts<T>& k,
              bool relu) {
  const AddVec8<T> f(k, relu);
  int64_t i = i0;
  for (; i + 32 <= i1; i += 32) {
    const __m256i r0 = f(load8_epi32(a + i), load8_epi32(b + i));
    const __m256i r1 = f(load8_epi32(a + i + 8), load8_epi32(b + i + 8));
    const __m256i r2 = f(load8_epi32(a + i + 16), load8_epi32(b + i + 16));
    const __m256i r3 = f(load8_epi32(a + i + 24), load8_epi32(b + i + 24));
    store32_epi32(y + i, r0, r1, r2, r3);
  }
  for (; i + 8 <= i1; i += 8) store8_epi32(y + i, f(load8_epi32(a + i), load8_epi32(b + i)));
  for (; i < i1; ++i) y[i] = k.vec(a[i], b[i], relu);
}

// AddVec8's lanes on AVX-512, 64 codes per step: the same operations in the same order (the
// max operands kept where a NaN must stay, the int32 range test as masks); the tail goes to
// add_vec8. Taken where the CPU has AVX-512 (the residual adds of the int8 models).
template <class T>
EMBER_AVX512_VNNI inline __m512i load16_epi32(const T* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (std::is_signed_v<T>) {
    return _mm512_cvtepi8_epi32(v);
  } else {
    return _mm512_cvtepu8_epi32(v);
  }
}

struct AddVec16Consts {
  __m512 sa, sb, pa, pb, inv, lim_lo, lim_hi, i32_lo, i32_hi;
  __m512i zy, int_min, qlo, qhi;
};

template <class T>
EMBER_AVX512_VNNI inline __m512i add16(const T* a, const T* b, const AddVec16Consts& k, bool relu) {
  const __m512 fa = _mm512_fmadd_ps(k.sa, _mm512_cvtepi32_ps(load16_epi32(a)), k.pa);
  const __m512 fb = _mm512_fmadd_ps(k.sb, _mm512_cvtepi32_ps(load16_epi32(b)), k.pb);
  __m512 c = _mm512_add_ps(fa, fb);
  if (relu) c = _mm512_max_ps(_mm512_setzero_ps(), c);  // (c < 0) ? 0 : c, a NaN stays
  const __m512 v = _mm512_mul_ps(c, k.inv);
  const __m512 vc = _mm512_min_ps(_mm512_max_ps(v, k.lim_lo), k.lim_hi);
  const __mmask16 ok =
      _mm512_cmp_ps_mask(v, k.i32_lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v, k.i32_hi, _CMP_LT_OQ);
  __m512i r = _mm512_mask_blend_epi32(ok, k.int_min, _mm512_cvtps_epi32(vc));
  r = _mm512_add_epi32(r, k.zy);
  return _mm512_min_epi32(_mm512_max_epi32(r, k.qlo), k.qhi);
}

template <class T>
EMBER_AVX512_VNNI void add_vec16(const T* a, const T* b, T* y, int64_t i0, int64_t i1,
                                 const AddConsts<T>& k, bool relu) {
  const AddVec16Consts c{_mm512_set1_ps(k.sa),
                         _mm512_set1_ps(k.sb),
                         _mm512_set1_ps(k.pa),
                         _mm512_set1_ps(k.pb),
                         _mm512_set1_ps(k.inv_v),
                         _mm512_set1_ps(-4194304.0f),
                         _mm512_set1_ps(4194304.0f),
                         _mm512_set1_ps(-2147483648.0f),
                         _mm512_set1_ps(2147483648.0f),
                         _mm512_set1_epi32(static_cast<int32_t>(k.zy)),
                         _mm512_set1_epi32(INT32_MIN),
                         _mm512_set1_epi32(static_cast<int32_t>(qmin_of<T>())),
                         _mm512_set1_epi32(static_cast<int32_t>(qmax_of<T>()))};
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  int64_t i = i0;
  for (; i + 64 <= i1; i += 64) {
    const __m512i r0 = add16(a + i, b + i, c, relu), r1 = add16(a + i + 16, b + i + 16, c, relu),
                  r2 = add16(a + i + 32, b + i + 32, c, relu),
                  r3 = add16(a + i + 48, b + i + 48, c, relu);
    __m512i v;
    if constexpr (std::is_signed_v<T>) {
      v = _mm512_packs_epi16(_mm512_packs_epi32(r0, r1), _mm512_packs_epi32(r2, r3));
    } else {
      v = _mm512_packus_epi16(_mm512_packus_epi32(r0, r1), _mm512_packus_epi32(r2, r3));
    }
    // The packs interleave 128-bit lanes: lane j holds dwords j of r0, r1, r2, r3.
    _mm512_storeu_si512(y + i, _mm512_permutexvar_epi32(order, v));
  }
  add_vec8<T>(a, b, y, i, i1, k, relu);
}

template <class T>
void add_range(const T* a, const T* b, T* y, int64_t i0, int64_t i1, const AddConsts<T> k, bool vec,
               bool relu) {
  if (vec) {
    if constexpr (sizeof(T) == 1) {
      if (detail::avx512::cpu_has_vnni_vbmi()) {
        add_vec16<T>(a, b, y, i0, i1, k, relu);
      } else {
        add_vec8<T>(a, b, y, i0, i1, k, relu);
      }
    } else {
      for (int64_t i = i0; i < i1; ++i) y[i] = k.vec(a[i], b[i], relu);
    }
  } else {
    for (int64_t i = i0; i < i1; ++i) y[i] = k.scalar(a[i], b[i], relu);
  }
}

}  // namespace

template <class T>
void qadd_generic_ref(const T* a, const T* b, T* y, int64_t n, int64_t row, QParams pa, QParams pb,
                      QParams py, bool relu) {
  const AddConsts<T> k(pa, pb, py);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pos = i % row;
    y[i] = pos < vec_part<T>(row) ? k.vec(a[i], b[i], relu) : k.scalar(a[i], b[i], relu);
  }
}

template <class T>
void qadd_generic(const T* a, const T* b, T* y, int64_t n, int64_t row, QParams pa, QParams pb,
                  QParams py, bool relu) {
  const AddConsts<T> k(pa, pb, py);
  auto run = [&](int64_t off, int64_t len) {
    const int64_t v = vec_part<T>(len);
    const T* pa_ = a + off;
    const T* pb_ = b + off;
    T* py_ = y + off;
    add_range<T>(pa_, pb_, py_, 0, v, k, true, relu);
    add_range<T>(pa_, pb_, py_, v, len, k, false, relu);
  };
  if (row == n && n > 2 * kGrain) {
    // One long row: its vector part split any way keeps every element's formula.
    const int64_t v = vec_part<T>(n);
    parallel_for(0, v, kGrain,
                 [&](int64_t i0, int64_t i1) { add_range<T>(a, b, y, i0, i1, k, true, relu); });
    add_range<T>(a, b, y, v, n, k, false, relu);
    return;
  }
  for_rows(n, row, run);
}

// ---- QNNPACK add ----
QnnpackAddParams QnnpackAddParams::make(QParams pa, QParams pb, QParams py, bool relu) {
  const float ra = static_cast<float>(pa.scale) / static_cast<float>(py.scale);
  const float rb = static_cast<float>(pb.scale) / static_cast<float>(py.scale);
  const bool ok = ra >= 0x1.0p-14f && ra < 0x1.0p+8f && rb >= 0x1.0p-14f && rb < 0x1.0p+8f;
  // PyTorch asserts on QNNPACK's status; its text is kept as the oracle (spec § 7.2).
  const int64_t y_min = relu ? std::clamp<int64_t>(py.zero_point, 0, 255) : 0;
  EMBER_CHECK(ok && y_min < 255,
              "createStatus == pytorch_qnnp_status_success INTERNAL ASSERT FAILED at "
              "\"./aten/src/ATen/native/quantized/cpu/BinaryOps.cpp\":189, please report a bug "
              "to PyTorch. failed to create QNNPACK Add operator");
  const float rmax = std::max(ra, rb);
  const int32_t exponent = static_cast<int32_t>(std::bit_cast<uint32_t>(rmax) >> 23) - 127;
  const uint32_t shift = static_cast<uint32_t>(21 - exponent);
  QnnpackAddParams p{};
  p.a_mult = static_cast<int32_t>(std::lrintf(std::ldexp(ra, static_cast<int>(shift))));
  p.b_mult = static_cast<int32_t>(std::lrintf(std::ldexp(rb, static_cast<int>(shift))));
  p.bias = -(p.a_mult * static_cast<int32_t>(pa.zero_point)) -
           p.b_mult * static_cast<int32_t>(pb.zero_point);
  p.shift = shift;
  p.y_zero_point = static_cast<int32_t>(py.zero_point);
  p.y_min = static_cast<uint8_t>(y_min);
  p.y_max = 255;
  return p;
}

namespace {
inline uint8_t qnnpack_add_one(uint8_t a, uint8_t b, const QnnpackAddParams& p) {
  const int32_t acc =
      p.bias + p.a_mult * static_cast<int32_t>(a) + p.b_mult * static_cast<int32_t>(b);
  const int32_t mask = static_cast<int32_t>((uint32_t{1} << p.shift) - 1);
  const int32_t rem = (acc & mask) - static_cast<int32_t>(acc < 0);
  const int32_t q = (acc >> p.shift) + static_cast<int32_t>(rem > (mask >> 1));
  const int32_t y = q + p.y_zero_point;
  return static_cast<uint8_t>(std::min<int32_t>(std::max<int32_t>(y, p.y_min), p.y_max));
}
}  // namespace

void qadd_qnnpack_ref(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n,
                      const QnnpackAddParams& p) {
  for (int64_t i = 0; i < n; ++i) y[i] = qnnpack_add_one(a[i], b[i], p);
}

namespace {
void qnnpack_add_range(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t i0, int64_t i1,
                       const QnnpackAddParams p) {
  for (int64_t i = i0; i < i1; ++i) y[i] = qnnpack_add_one(a[i], b[i], p);
}
}  // namespace

void qadd_qnnpack(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n,
                  const QnnpackAddParams& p) {
  parallel_for(0, n, kGrain,
               [&](int64_t i0, int64_t i1) { qnnpack_add_range(a, b, y, i0, i1, p); });
}

// ---- mul ----
namespace {
template <class T>
struct MulConsts {
  float m;
  int64_t za, zb, zy, lo;
  MulConsts(QParams a, QParams b, QParams y, bool relu)
      : m(static_cast<float>(a.scale * b.scale / y.scale)),
        za(a.zero_point),
        zb(b.zero_point),
        zy(y.zero_point),
        lo(relu ? std::max(y.zero_point, qmin_of<T>()) : qmin_of<T>()) {}
  T one(T a, T b) const {
    const int64_t prod = (static_cast<int64_t>(a) - za) * (static_cast<int64_t>(b) - zb);
    const float r = std::nearbyint(static_cast<float>(static_cast<int32_t>(prod)) * m);
    const int64_t q = zy + static_cast<int64_t>(r);
    return static_cast<T>(std::min(std::max(q, lo), qmax_of<T>()));
  }
};
}  // namespace

template <class T>
void qmul_ref(const T* a, const T* b, T* y, int64_t n, QParams pa, QParams pb, QParams py,
              bool relu) {
  const MulConsts<T> k(pa, pb, py, relu);
  for (int64_t i = 0; i < n; ++i) y[i] = k.one(a[i], b[i]);
}

namespace {
template <class T>
void mul_range(const T* a, const T* b, T* y, int64_t i0, int64_t i1, const MulConsts<T> k) {
  for (int64_t i = i0; i < i1; ++i) y[i] = k.one(a[i], b[i]);
}
}  // namespace

template <class T>
void qmul(const T* a, const T* b, T* y, int64_t n, QParams pa, QParams pb, QParams py, bool relu) {
  const MulConsts<T> k(pa, pb, py, relu);
  parallel_for(0, n, kGrain, [&](int64_t i0, int64_t i1) { mul_range<T>(a, b, y, i0, i1, k); });
}

#define EMBER_QBINARY_INST(T)                                                                   \
  template void qadd_generic<T>(const T*, const T*, T*, int64_t, int64_t, QParams, QParams,     \
                                QParams, bool);                                                 \
  template void qadd_generic_ref<T>(const T*, const T*, T*, int64_t, int64_t, QParams, QParams, \
                                    QParams, bool);                                             \
  template void qmul<T>(const T*, const T*, T*, int64_t, QParams, QParams, QParams, bool);      \
  template void qmul_ref<T>(const T*, const T*, T*, int64_t, QParams, QParams, QParams, bool);
EMBER_QBINARY_INST(uint8_t)
EMBER_QBINARY_INST(int8_t)
EMBER_QBINARY_INST(int32_t)
#undef EMBER_QBINARY_INST

}  // namespace ember::cpu::quantized
