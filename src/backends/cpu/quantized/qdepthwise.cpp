// Note [Direct 3x3 depthwise int8 kernel]
// MobileNetV2's 17 depthwise 3x3 layers took about a third of its int8 convolution time in
// oneDNN 2.6, whose depthwise kernel widens every input byte to 32 bits (vpmovzxbd) and does
// one multiply-add per lane per instruction: 9 widening loads and 9 vpdpwssd per 16 outputs.
// This kernel does 3 vpdpbusd per 16 outputs instead. vpdpbusd sums four u8 x s8 products per
// 32-bit lane, so each lane holds one channel's three horizontal taps of one kernel row (the
// fourth byte's weight is 0):
//   Q[ih][ow] lane c = (x[ih][iw0][c], x[ih][iw0+1][c], x[ih][iw0+2][c], -),  iw0 = ow*s - 1
//   W[kh]     lane c = (w[c][kh][0],   w[c][kh][1],     w[c][kh][2],     0)
//   acc[oh][ow] = Q[oh*s-1][ow].W[0] + Q[oh*s][ow].W[1] + Q[oh*s+1][ow].W[2] - z_x * sum(w[c])
// A Q row is built once per input row and 16-channel block (three 16-byte loads into one
// register and one vpermb) into a ring of three rows that stays in L1 (at most 3 x 112 x 64
// bytes), and serves the output rows that read it (three at stride 1, one or two at stride 2).
// Padding reads the code z_x, i.e. the real value 0, as oneDNN and PyTorch do: the padded
// columns load a vector of z_x, the padded rows are a Q row of z_x, and the -z_x*sum(w) term
// makes every tap exact: acc equals the reference's integer sum. The Onednn formula
// (Note [int8 requantization formulas]) then runs on the accumulators in registers, in the
// reference's order of float operations, so the output equals qconv2d_ref bit for bit
// (tests/cpp/quant/test_qspeed_depthwise.cpp). Loop order: 16-channel block outermost, then
// output rows, so the ring holds one block's rows only. Per-shape timings against oneDNN are
// in docs/quantization.md § Speed: 0.67-0.69 of oneDNN's time over MobileNetV2's 17 depthwise
// layers, faster on 9 of their 10 shapes and level on the 96-channel stride-2 one at 112x112
// (stride 2 builds two Q vectors per output).
#include "qdepthwise.h"

#include <atomic>
#include <cstring>

#include "ember/parallel.h"
#include "qavx512.h"

namespace ember::cpu::quantized::detail {
namespace {

std::atomic<bool> g_enabled{true};

constexpr int64_t kBlock = 16;   // channels per block (32-bit lanes of a zmm)
constexpr int64_t kQBytes = 64;  // one Q vector

// One (image, channel block, output rows [oh0, oh1)) of the convolution.
struct Task {
  const Dw3x3Weights* w;
  const Requant* r;
  const uint8_t* x;  // the image's first code
  uint8_t* y;        // the image's first output code
  int64_t H, W, C, OW, stride;
  int32_t zx;
};

// Q vectors of input row `xrow` (pointing at channel block cb of pixel 0) for every output
// column.
EMBER_AVX512_VNNI void build_q_row(const Task& t, const uint8_t* xrow, const uint8_t* zbuf,
                                   __m512i idx, uint8_t* out) {
  const int64_t C = t.C, W = t.W, s = t.stride;
  for (int64_t ow = 0; ow < t.OW; ++ow) {
    const int64_t iw0 = ow * s - 1;
    const uint8_t* p0 = iw0 >= 0 ? xrow + iw0 * C : zbuf;
    const uint8_t* p1 = xrow + (iw0 + 1) * C;  // ow*s < W always
    const uint8_t* p2 = iw0 + 2 < W ? xrow + (iw0 + 2) * C : zbuf;
    __m512i z = _mm512_zextsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p0)));
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p1)), 1);
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p2)), 2);
    _mm512_store_si512(out + ow * kQBytes, _mm512_permutexvar_epi8(idx, z));
  }
}

// comp + the three kernel rows' dot products at byte offset `at` of the Q rows.
EMBER_AVX512_VNNI inline __m512i dot3(const uint8_t* const q[3], int64_t at, __m512i comp,
                                      __m512i w0, __m512i w1, __m512i w2) {
  __m512i acc = avx512::dpbusd(comp, _mm512_load_si512(q[0] + at), w0);
  acc = avx512::dpbusd(acc, _mm512_load_si512(q[1] + at), w1);
  return avx512::dpbusd(acc, _mm512_load_si512(q[2] + at), w2);
}

// One output row's codes from its three Q rows.
template <bool kClampHigh>
EMBER_AVX512_VNNI void row_codes(const uint8_t* const q[3], int64_t OW, __m512i comp, __m512i w0,
                                 __m512i w1, __m512i w2, const avx512::Requant16& rq, __m512i lo,
                                 __m512i lo8, __m512i unpack, uint8_t* yrow, int64_t C) {
  const auto codes = [&](int64_t ow) EMBER_AVX512_VNNI {
    return avx512::rounded<kClampHigh>(dot3(q, ow * kQBytes, comp, w0, w1, w2), rq);
  };
  int64_t ow = 0;
  for (; ow + 4 <= OW; ow += 4) {
    avx512::store4(codes(ow), codes(ow + 1), codes(ow + 2), codes(ow + 3), lo8, unpack,
                   yrow + ow * C, C, 0xffff);
  }
  for (; ow < OW; ++ow) avx512::store1(codes(ow), lo, yrow + ow * C, 0xffff);
}

EMBER_AVX512_VNNI void run_task(const Task& t, int64_t cb, int64_t oh0, int64_t oh1, uint8_t* ring,
                                uint8_t* pad_row) {
  const int64_t C = t.C, OW = t.OW, s = t.stride, c0 = cb * kBlock;
  const Requant& r = *t.r;
  const int8_t* wp = t.w->packed.data() + cb * 3 * kQBytes;
  const __m512i w0 = _mm512_loadu_si512(wp), w1 = _mm512_loadu_si512(wp + kQBytes),
                w2 = _mm512_loadu_si512(wp + 2 * kQBytes);
  const __m512i comp =
      _mm512_mullo_epi32(_mm512_set1_epi32(-t.zx), _mm512_loadu_si512(t.w->sums.data() + c0));
  const avx512::Requant16 rq{
      _mm512_loadu_ps(r.fbias.data() + c0), _mm512_loadu_ps(r.mult.data() + c0),
      _mm512_set1_ps(static_cast<float>(r.zero_point)), _mm512_set1_ps(255.f)};
  const __m512i lo = _mm512_set1_epi32(r.lo);
  // |acc| <= 9 * 255 * 128: most layers cannot reach int32's limits, and skip the clamp.
  const bool no_overflow = avx512::bounded_below_2_30(rq, 9.f * 255.f * 128.f);
  // Byte 4c + k of a Q vector is byte c of the k-th 16-byte load (k < 3; byte 3's weight is 0).
  alignas(64) uint8_t idx_bytes[64];
  for (int c = 0; c < 16; ++c) {
    for (int k = 0; k < 4; ++k) idx_bytes[4 * c + k] = static_cast<uint8_t>(16 * k + c);
  }
  const __m512i idx = _mm512_load_si512(idx_bytes);
  const __m512i unpack = avx512::pack4_index();
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(r.lo));
  alignas(16) uint8_t zbuf[16];
  std::memset(zbuf, t.zx, sizeof zbuf);
  const __m512i zq = _mm512_set1_epi8(static_cast<char>(t.zx));
  for (int64_t ow = 0; ow < OW; ++ow) _mm512_store_si512(pad_row + ow * kQBytes, zq);
  int64_t held[3] = {-2, -2, -2};  // the input row each ring slot holds
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const uint8_t* q[3];
    for (int64_t kh = 0; kh < 3; ++kh) {
      const int64_t ih = oh * s - 1 + kh;
      if (ih < 0 || ih >= t.H) {
        q[kh] = pad_row;
        continue;
      }
      const int64_t slot = ih % 3;
      uint8_t* dst = ring + slot * OW * kQBytes;
      if (held[slot] != ih) {
        build_q_row(t, t.x + ih * t.W * C + c0, zbuf, idx, dst);
        held[slot] = ih;
      }
      q[kh] = dst;
    }
    uint8_t* yrow = t.y + oh * OW * C + c0;
    if (no_overflow) {
      row_codes<false>(q, OW, comp, w0, w1, w2, rq, lo, lo8, unpack, yrow, C);
    } else {
      row_codes<true>(q, OW, comp, w0, w1, w2, rq, lo, lo8, unpack, yrow, C);
    }
  }
}

// 64-byte aligned per-thread scratch of at least `bytes`.
uint8_t* scratch(int64_t bytes) {
  thread_local std::vector<uint8_t> buf;
  return avx512::aligned_scratch(buf, bytes);
}

}  // namespace

bool dw3x3_applies(const QConvGeometry& g) {
  return g.groups == g.in_channels && g.out_channels == g.in_channels &&
         g.in_channels % kBlock == 0 && g.kernel_h == 3 && g.kernel_w == 3 &&
         g.stride_h == g.stride_w && (g.stride_h == 1 || g.stride_h == 2) && g.pad_h == 1 &&
         g.pad_w == 1 && g.dilation_h == 1 && g.dilation_w == 1 && avx512::cpu_has_vnni_vbmi();
}

void set_dw3x3_enabled(bool enabled) { g_enabled.store(enabled); }
bool dw3x3_enabled() { return g_enabled.load(); }

Dw3x3Weights::Dw3x3Weights(const int8_t* weight, int64_t c)
    : channels(c), packed(c / kBlock * 3 * kQBytes, 0), sums(c, 0) {
  for (int64_t ch = 0; ch < c; ++ch) {
    const int64_t cb = ch / kBlock, lane = ch % kBlock;
    for (int64_t kh = 0; kh < 3; ++kh) {
      for (int64_t kw = 0; kw < 3; ++kw) {
        const int8_t v = weight[ch * 9 + kh * 3 + kw];
        packed[(cb * 3 + kh) * kQBytes + lane * 4 + kw] = v;
        sums[ch] += v;
      }
    }
  }
}

void dw3x3_run(const Dw3x3Weights& w, const QConvGeometry& g, const uint8_t* x, int64_t n,
               int64_t h, int64_t wd, int32_t zx, const Requant& r, uint8_t* y) {
  const int64_t C = g.in_channels, oh_n = g.out_h(h), ow_n = g.out_w(wd);
  if (n == 0 || oh_n <= 0 || ow_n <= 0) return;
  const int64_t blocks = C / kBlock;
  Task base{&w, &r, x, y, h, wd, C, ow_n, g.stride_h, zx};
  parallel_for(0, n * blocks, 1, [&](int64_t b, int64_t e) {
    uint8_t* ring = scratch(4 * ow_n * kQBytes);
    for (int64_t i = b; i < e; ++i) {
      Task t = base;
      t.x = x + (i / blocks) * h * wd * C;
      t.y = y + (i / blocks) * oh_n * ow_n * C;
      run_task(t, i % blocks, 0, oh_n, ring, ring + 3 * ow_n * kQBytes);
    }
  });
}

}  // namespace ember::cpu::quantized::detail
