// Internal to src/backends/cpu/quantized: the pieces of ember's own AVX-512 VNNI int8 kernels
// (the direct depthwise convolution, qdepthwise.cpp): the target attribute, the CPU check, the
// in-place vpdpbusd, and the Onednn formula's requantization of 16 int32 accumulators in
// registers, four pixels at a time. Include only from such kernels' .cpp files (the functions
// are compiled for AVX-512 through the target attribute; the rest of the library stays
// x86-64-v3, and nothing here runs unless cpu_has_vnni_vbmi()).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <vector>

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() as the unused merge operand, which
// -Wmaybe-uninitialized reports once they are inlined; nothing here reads an undefined value.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define EMBER_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

namespace ember::cpu::quantized::detail::avx512 {

/// count elements of buf (a caller's per-thread buffer, grown as needed) starting on a 64-byte
/// boundary, for aligned vector and tile loads.
template <class T>
T* aligned_scratch(std::vector<T>& buf, int64_t count) {
  const int64_t need = count + 64 / static_cast<int64_t>(sizeof(T));
  if (static_cast<int64_t>(buf.size()) < need) buf.resize(need);
  const auto p = reinterpret_cast<uintptr_t>(buf.data());
  return buf.data() + ((64 - p % 64) % 64) / sizeof(T);
}

/// AVX-512 F, BW, VNNI and VBMI on this CPU.
inline bool cpu_has_vnni_vbmi() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vnni") &&
                         __builtin_cpu_supports("avx512vbmi");
  return ok;
}

/// acc + the dot products of u8 groups of 4 with s8 groups of 4 (vpdpbusd), accumulating in
/// place: GCC 12 copies the accumulator around each _mm512_dpbusd_epi32 in a loop (two register
/// moves per multiply-add in the pointwise kernel), which the asm form avoids.
EMBER_AVX512_VNNI inline __m512i dpbusd(__m512i acc, __m512i u8, __m512i s8) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
}

/// The requantization constants of 16 output channels.
struct Requant16 {
  __m512 fbias, mult, zp, hi;
};

/// requantize_one's Onednn branch up to the rounding: (f32(acc) + fbias) * mult + zp, then
/// (kClampHigh) min(255, v), which keeps values beyond int32 at 255 and passes a NaN (the second
/// operand) to the conversion, whose INT32_MIN then ends at lo, as the reference's comparisons
/// do. Without kClampHigh the caller has checked that |v| stays far below 2^31
/// (bounded_below_2_30), so the conversion cannot overflow and the packs clamp to 255 alone.
template <bool kClampHigh = true>
EMBER_AVX512_VNNI inline __m512i rounded(__m512i acc, const Requant16& k) {
  __m512 v = _mm512_add_ps(_mm512_cvtepi32_ps(acc), k.fbias);
  v = _mm512_add_ps(_mm512_mul_ps(v, k.mult), k.zp);
  if constexpr (kClampHigh) v = _mm512_min_ps(k.hi, v);
  return _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/// Whether (|acc| + |fbias|) * |mult| < 2^30 in every lane for |acc| <= max_acc (false for a
/// NaN or infinite constant): then |v| of `rounded` stays below 2^31 (|zp| <= 255).
EMBER_AVX512_VNNI inline bool bounded_below_2_30(const Requant16& k, float max_acc) {
  const __m512 bound = _mm512_mul_ps(_mm512_add_ps(_mm512_set1_ps(max_acc), _mm512_abs_ps(k.fbias)),
                                     _mm512_abs_ps(k.mult));
  return _mm512_cmp_ps_mask(bound, _mm512_set1_ps(0x1p30f), _CMP_LT_OQ) == 0xffff;
}

/// After packs_epi32 then packus_epi16 of pixels (a, b, c, d), 128-bit lane j holds codes
/// 4j..4j+3 of a, then of b, c, d: this vpermb index puts each pixel's 16 codes together.
EMBER_AVX512_VNNI inline __m512i pack4_index() {
  alignas(64) uint8_t bytes[64];
  for (int p = 0; p < 4; ++p) {
    for (int k = 0; k < 16; ++k) {
      bytes[16 * p + k] = static_cast<uint8_t>(16 * (k / 4) + 4 * p + k % 4);
    }
  }
  return _mm512_load_si512(bytes);
}

/// Codes of four pixels' rounded values (a..d), clamped to [lo, 255] (the signed saturating
/// pack to int16, then the unsigned saturating one to uint8, clamp any int32 to [0, 255], and
/// one byte max applies lo), stored as 16 bytes at
/// y0, y0 + stride, y0 + 2 stride, y0 + 3 stride; `mask` selects the channels written.
EMBER_AVX512_VNNI inline void store4(__m512i a, __m512i b, __m512i c, __m512i d, __m512i lo8,
                                     __m512i index, uint8_t* y0, int64_t stride, __mmask16 mask) {
  __m512i codes = _mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
  codes = _mm512_permutexvar_epi8(index, _mm512_max_epu8(codes, lo8));
  if (mask == 0xffff) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y0), _mm512_castsi512_si128(codes));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y0 + stride), _mm512_extracti32x4_epi32(codes, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y0 + 2 * stride),
                     _mm512_extracti32x4_epi32(codes, 2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y0 + 3 * stride),
                     _mm512_extracti32x4_epi32(codes, 3));
    return;
  }
  _mm_mask_storeu_epi8(y0, mask, _mm512_castsi512_si128(codes));
  _mm_mask_storeu_epi8(y0 + stride, mask, _mm512_extracti32x4_epi32(codes, 1));
  _mm_mask_storeu_epi8(y0 + 2 * stride, mask, _mm512_extracti32x4_epi32(codes, 2));
  _mm_mask_storeu_epi8(y0 + 3 * stride, mask, _mm512_extracti32x4_epi32(codes, 3));
}

/// One pixel's codes (the tail of a row), as store4 for a single pixel.
EMBER_AVX512_VNNI inline void store1(__m512i a, __m512i lo32, uint8_t* y, __mmask16 mask) {
  _mm_mask_storeu_epi8(y, mask, _mm512_cvtusepi32_epi8(_mm512_max_epi32(a, lo32)));
}

}  // namespace ember::cpu::quantized::detail::avx512
