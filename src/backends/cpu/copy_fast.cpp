// Streaming copies and the vector float32 -> bfloat16 conversion (Note [Streaming copies]).
#include "copy_fast.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ember/half.h"

namespace ember::cpu {

void copy_bytes_ref(void* dst, const void* src, size_t n) {
  auto* d = static_cast<volatile unsigned char*>(dst);  // volatile: no memcpy idiom here
  const auto* s = static_cast<const unsigned char*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}

void copy_bytes_streaming(void* dst, const void* src, size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Head: up to the destination's next 32-byte boundary (streaming stores need it).
  const size_t head = std::min(n, static_cast<size_t>((32 - reinterpret_cast<uintptr_t>(d) % 32) % 32));
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
  }
  _mm_sfence();  // streaming stores are weakly ordered: publish them before returning
  std::memcpy(d + i, s + i, n - i);
}

void float_to_bfloat16_ref(uint16_t* dst, const float* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = detail::float_to_bf16_bits(src[i]);
}

namespace {

// Eight floats to eight bfloat16 bit patterns (in the low halves of the 32-bit lanes), exactly
// detail::float_to_bf16_bits: u + 0x7fff + ((u >> 16) & 1), high half; NaN -> 0x7fc0.
inline __m256i bf16_lanes(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
  const __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));  // abs < 2^31: signed compare is fine
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
  return _mm256_blendv_epi8(rounded, _mm256_set1_epi32(0x7fc0), nan);
}

template <bool kStream>
void convert_bf16(uint16_t* dst, const float* src, int64_t n) {
  int64_t i = 0;
  if constexpr (kStream) {
    // Scalar head up to a 32-byte aligned destination.
    while (i < n && reinterpret_cast<uintptr_t>(dst + i) % 32 != 0) {
      dst[i] = detail::float_to_bf16_bits(src[i]);
      ++i;
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m256i a = bf16_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m256i b = bf16_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8)));
    // packus works within 128-bit lanes: a0 b0 a1 b1 -> reorder the quadwords to a0 a1 b0 b1.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    if constexpr (kStream) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), packed);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
    }
  }
  if constexpr (kStream) _mm_sfence();
  for (; i < n; ++i) dst[i] = detail::float_to_bf16_bits(src[i]);
}

}  // namespace

void float_to_bfloat16(uint16_t* dst, const float* src, int64_t n, bool stream) {
  if (stream) {
    convert_bf16<true>(dst, src, n);
  } else {
    convert_bf16<false>(dst, src, n);
  }
}

}  // namespace ember::cpu
