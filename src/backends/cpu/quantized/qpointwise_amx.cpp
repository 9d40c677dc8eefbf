// Note [1x1 int8 convolutions on AMX tiles]
// MobileNetV2's 35 1x1 convolutions were the largest part of its int8 time on oneDNN 2.6's VNNI
// kernels (about 1.3 of 2.5-2.9 ms), and oneDNN 2.6's own AMX 1x1 kernel was both slower at
// batch 1 and wrong on small maps (Note [Choosing among oneDNN's int8 implementations]). This
// CPU's AMX unit multiplies a 16 x 64 u8 tile by a 64 x 16 s8 tile into 16 x 16 int32 sums in
// one tdpbusd (16,384 multiply-adds; ~1.8 T/s on one core here, against ~0.2 T/s for
// AVX-512 vpdpbusd), so a 1x1 convolution is a plain tiled matmul:
//   acc[i][o] = sum_k x[i][k] * w[o][k]  -  zx * sum_k w[o][k]
// over blocks of 32 pixels (two A tiles, read straight from the NHWC input with its row
// stride) and 32 output channels (two B tiles of the packed weight), four C tiles of int32.
// The C tiles start from the compensation -zx * sum(w[o]) (loaded with row stride 0), so they
// end as the exact integer sums of the reference, whatever the input zero point. tdpbusd does
// not saturate: its int32 sums wrap as the reference's int32 accumulators do.
// Input channels are consumed 64 at a time. When `in` is not a multiple of 64 a row's last A
// tile reads past its own codes into the next pixel's, which meets zero weights (the packed
// weight is zero past `in`) and adds nothing; only where that would read past the end of the
// input (the last block) are the rows copied into a zero-padded buffer first. Blocks with fewer
// than 32 pixels read the same padded copy; their extra rows are computed and dropped.
// The exact sums then go through requantize_rows (either formula, bit for bit the reference's),
// one block at a time while they are in L1/L2. The tiles are configured once per call and
// released after it, so a thread that ran this holds no tile state afterwards.
// Timings against oneDNN are in docs/quantization.md § Speed.
#include "qpointwise_amx.h"

#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cpuid.h>
#include <cstdlib>
#include <cstring>

#include "ember/parallel.h"
#include "qavx512.h"

#define EMBER_AMX_INT8 \
  __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

namespace ember::cpu::quantized::detail {
namespace {

using avx512::aligned_scratch;

std::atomic<bool> g_enabled{true};

constexpr int64_t kTileRows = 16;   // rows of an A or C tile; k quads of a B tile
constexpr int64_t kTileBytes = 64;  // bytes per tile row
constexpr int64_t kTileK = 64;      // input channels per A / B tile
constexpr int64_t kTileN = 16;      // output channels per B / C tile
constexpr int64_t kBlockRows = 2 * kTileRows;

bool cpu_has_amx_int8() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool tile = (d >> 24) & 1, int8 = (d >> 25) & 1;
  return tile && int8 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
         __builtin_cpu_supports("avx512vbmi");
}

// Linux keeps the 8 KB tile-data state off until a process asks for it (since 5.16); a tile
// instruction before that raises SIGILL.
bool linux_grants_tile_data() {
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

// ldtilecfg's 64-byte operand, palette 1.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-1: A (pixels x 64 input codes); 2-3: B (16 k quads x 16 channels x 4); 4-7: C.
EMBER_AMX_INT8 void configure_tiles() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = kTileRows;
    cfg.colsb[t] = kTileBytes;
  }
  _tile_loadconfig(&cfg);
}

EMBER_AMX_INT8 void release_tiles() { _tile_release(); }

// The C tiles of (A0[, A1]) x (B0[, B1]) over all k tiles, stored to c: tile (ai, bi) at
// c + (2 * ai + bi) * 256, rows 16 int32s apart. a: the block's first row, lda bytes apart;
// b0 / b1: the first k tile of each output tile; comp0 / comp1: the compensation at their
// first channel. kAResident: one k tile, whose A tiles the caller has loaded already.
template <int kA, int kB, bool kAResident>
EMBER_AMX_INT8 void tile_block(const uint8_t* a, int64_t lda, const int8_t* b0, const int8_t* b1,
                               int64_t k_tiles, const int32_t* comp0, const int32_t* comp1,
                               int32_t* c) {
  constexpr int64_t kC = kTileRows * kTileN, kCBytes = kTileN * 4;
  _tile_loadd(4, comp0, 0);
  if constexpr (kB == 2) _tile_loadd(5, comp1, 0);
  if constexpr (kA == 2) {
    _tile_loadd(6, comp0, 0);
    if constexpr (kB == 2) _tile_loadd(7, comp1, 0);
  }
  for (int64_t kt = 0; kt < k_tiles; ++kt) {
    _tile_loadd(2, b0 + kt * kTileRows * kTileBytes, kTileBytes);
    if constexpr (kB == 2) _tile_loadd(3, b1 + kt * kTileRows * kTileBytes, kTileBytes);
    if constexpr (!kAResident) _tile_loadd(0, a + kt * kTileK, lda);
    _tile_dpbusd(4, 0, 2);
    if constexpr (kB == 2) _tile_dpbusd(5, 0, 3);
    if constexpr (kA == 2) {
      if constexpr (!kAResident) _tile_loadd(1, a + kTileRows * lda + kt * kTileK, lda);
      _tile_dpbusd(6, 1, 2);
      if constexpr (kB == 2) _tile_dpbusd(7, 1, 3);
    }
  }
  _tile_stored(4, c, kCBytes);
  if constexpr (kB == 2) _tile_stored(5, c + kC, kCBytes);
  if constexpr (kA == 2) {
    _tile_stored(6, c + 2 * kC, kCBytes);
    if constexpr (kB == 2) _tile_stored(7, c + 3 * kC, kCBytes);
  }
}

template <int kA, bool kAResident>
EMBER_AMX_INT8 void tile_pair(const uint8_t* a, int64_t lda, const int8_t* b0, int64_t nb,
                              int64_t tile_stride, int64_t k_tiles, const int32_t* comp0,
                              int32_t* c) {
  if (nb == 2) {
    tile_block<kA, 2, kAResident>(a, lda, b0, b0 + tile_stride, k_tiles, comp0, comp0 + kTileN,
                                  c);
  } else {
    tile_block<kA, 1, kAResident>(a, lda, b0, nullptr, k_tiles, comp0, nullptr, c);
  }
}

// What happens to a finished C tile: the Onednn formula's codes straight from it (AVX-512, the
// reference's order of float operations, as the depthwise kernel does), or a copy of its sums
// (for the Qnnpack formula's requantize_rows, or for the caller's own use).
struct Epilogue {
  const Requant* r;
  int64_t out;               // output channels (y's row length)
  bool fused;                // Onednn formula: codes from the tile
  bool clamp_high;           // values may pass 2^30: clamp before the conversion
  uint8_t* y;                // the block's first output row
  int32_t* acc;              // !fused: the block's first row of sums (rows of `out`)
};

// The Onednn formula's constants of channels n0.. (mask: those that exist; 0 past them).
EMBER_AMX_INT8 avx512::Requant16 constants(const Requant& r, int64_t n0, __mmask16 mask) {
  return avx512::Requant16{_mm512_maskz_loadu_ps(mask, r.fbias.data() + n0),
                            _mm512_maskz_loadu_ps(mask, r.mult.data() + n0),
                            _mm512_set1_ps(static_cast<float>(r.zero_point)),
                            _mm512_set1_ps(255.f)};
}

template <bool kClampHigh>
EMBER_AMX_INT8 void codes_from_tile(const int32_t* c, int64_t rows, const avx512::Requant16& k,
                                    int32_t lo, __mmask16 mask, uint8_t* y, int64_t ldy) {
  const __m512i lo32 = _mm512_set1_epi32(lo), index = avx512::pack4_index();
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(lo));
  const auto codes = [&](int64_t i) EMBER_AMX_INT8 {
    return avx512::rounded<kClampHigh>(_mm512_load_si512(c + i * kTileN), k);
  };
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4) {
    avx512::store4(codes(i), codes(i + 1), codes(i + 2), codes(i + 3), lo8, index, y + i * ldy,
                   ldy, mask);
  }
  for (; i < rows; ++i) avx512::store1(codes(i), lo32, y + i * ldy, mask);
}

// Tile (ai, nt) of a block with m valid rows.
EMBER_AMX_INT8 void finish_tile(const Epilogue& e, const int32_t* c, int64_t ai, int64_t nt,
                                int64_t m) {
  const int64_t rows = std::min(kTileRows, m - ai * kTileRows), n0 = nt * kTileN;
  if (rows <= 0) return;
  const int64_t n = std::min(kTileN, e.out - n0);
  if (!e.fused) {
    for (int64_t i = 0; i < rows; ++i) {
      std::memcpy(e.acc + (ai * kTileRows + i) * e.out + n0, c + i * kTileN, n * sizeof(int32_t));
    }
    return;
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
  const avx512::Requant16 k = constants(*e.r, n0, mask);
  uint8_t* y = e.y + ai * kTileRows * e.out + n0;
  if (e.clamp_high) {
    codes_from_tile<true>(c, rows, k, e.r->lo, mask, y, e.out);
  } else {
    codes_from_tile<false>(c, rows, k, e.r->lo, mask, y, e.out);
  }
}

// Whether no output of the call can pass 2^30 before its conversion (|acc| <= max_acc), so the
// codes need no clamp at 255 first (avx512::rounded).
EMBER_AMX_INT8 bool bounded(const Requant& r, int64_t out, float max_acc) {
  for (int64_t n0 = 0; n0 < out; n0 += kTileN) {
    const int64_t n = std::min(kTileN, out - n0);
    const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
    if (!avx512::bounded_below_2_30(constants(r, n0, mask), max_acc)) return false;
  }
  return true;
}

// The tiles of output tiles nt (and nt + 1 when nb == 2) in c, to the epilogue.
EMBER_AMX_INT8 void finish_pair(const Epilogue& e, const int32_t* c, int64_t nt, int64_t nb,
                                int64_t m) {
  constexpr int64_t kC = kTileRows * kTileN;
  finish_tile(e, c, 0, nt, m);
  if (nb == 2) finish_tile(e, c + kC, 0, nt + 1, m);
  if (m > kTileRows) {
    finish_tile(e, c + 2 * kC, 1, nt, m);
    if (nb == 2) finish_tile(e, c + 3 * kC, 1, nt + 1, m);
  }
}

// All output channels of one block of m <= 32 rows (a: lda bytes apart), each finished tile
// handed to the epilogue. c: two 4-tile buffers. Software-pipelined: the epilogue of one pair
// of output tiles runs after the next pair's tile instructions are issued, so the vector units
// requantize while the tile unit multiplies. With a single k tile the A tiles are loaded once
// for all pairs.
EMBER_AMX_INT8 void block_codes(const AmxWeights& w, const uint8_t* a, int64_t lda, int64_t m,
                                const int32_t* comp, int32_t* c, const Epilogue& e) {
  constexpr int64_t kBuf = 4 * kTileRows * kTileN;
  const int64_t tile_stride = w.k_tiles * kTileRows * kTileBytes;
  const int8_t* packed = w.packed.data();
  const bool two_a = m > kTileRows, resident = w.k_tiles == 1;
  if (resident) {
    _tile_loadd(0, a, lda);
    if (two_a) _tile_loadd(1, a + kTileRows * lda, lda);
  }
  int64_t prev = -1, prev_nb = 0;
  for (int64_t nt = 0; nt < w.out_tiles; nt += 2) {
    const int64_t nb = std::min<int64_t>(2, w.out_tiles - nt);
    int32_t* buf = c + (nt / 2 % 2) * kBuf;
    const int8_t* b0 = packed + nt * tile_stride;
    const int32_t* c0 = comp + nt * kTileN;
    if (two_a) {
      if (resident) {
        tile_pair<2, true>(a, lda, b0, nb, tile_stride, w.k_tiles, c0, buf);
      } else {
        tile_pair<2, false>(a, lda, b0, nb, tile_stride, w.k_tiles, c0, buf);
      }
    } else if (resident) {
      tile_pair<1, true>(a, lda, b0, nb, tile_stride, w.k_tiles, c0, buf);
    } else {
      tile_pair<1, false>(a, lda, b0, nb, tile_stride, w.k_tiles, c0, buf);
    }
    if (prev >= 0) finish_pair(e, c + (prev / 2 % 2) * kBuf, prev, prev_nb, m);
    prev = nt;
    prev_nb = nb;
  }
  if (prev >= 0) finish_pair(e, c + (prev / 2 % 2) * kBuf, prev, prev_nb, m);
}

// Rows [m0, m1) of one call, in blocks of 32: the exact sums into `sums` (rows x out) when it is
// given, else codes into y by r.
EMBER_AMX_INT8 void run_rows(const AmxWeights& w, const uint8_t* x, int64_t rows, int64_t m0,
                             int64_t m1, const int32_t* comp, const Requant* r, uint8_t* y,
                             int32_t* sums) {
  thread_local std::vector<int32_t> acc_buf, tile_buf;
  thread_local std::vector<uint8_t> pad_buf;
  const int64_t K = w.in, O = w.out, kp = w.k_tiles * kTileK;
  Epilogue e{r, O, !sums && r->formula == QFormula::Onednn, true, nullptr, nullptr};
  // |acc| <= 255 * 128 * K: most layers cannot reach 2^30 and skip the clamp.
  if (e.fused) e.clamp_high = !bounded(*r, O, 255.f * 128.f * static_cast<float>(K));
  int32_t* block_acc = !e.fused && !sums ? aligned_scratch(acc_buf, kBlockRows * O) : nullptr;
  int32_t* c = aligned_scratch(tile_buf, 8 * kTileRows * kTileN);
  configure_tiles();
  for (int64_t b = m0; b < m1; b += kBlockRows) {
    const int64_t m = std::min(kBlockRows, m1 - b);
    const uint8_t* a = x + b * K;
    int64_t lda = K;
    // The A tiles read kBlockRows rows of kp bytes from a (the last one kp bytes from its start):
    // copy the block where that passes the input's end.
    if ((b + kBlockRows - 1) * K + kp > rows * K) {
      uint8_t* pad = aligned_scratch(pad_buf, kBlockRows * kp);
      std::memset(pad, 0, kBlockRows * kp);
      for (int64_t i = 0; i < m; ++i) std::memcpy(pad + i * kp, a + i * K, K);
      a = pad;
      lda = kp;
    }
    if (y) e.y = y + b * O;
    e.acc = sums ? sums + b * O : block_acc;
    block_codes(w, a, lda, m, comp, c, e);
    if (block_acc) requantize_rows(*r, block_acc, m, O, e.y);
  }
  release_tiles();
}

// comp[o] = -zx * sum(w[o]), wrapping as the int32 accumulators do.
const int32_t* compensation(const AmxWeights& w, int32_t zx) {
  thread_local std::vector<int32_t> comp_buf;
  int32_t* comp = aligned_scratch(comp_buf, w.out_tiles * kTileN);
  for (int64_t o = 0; o < w.out_tiles * kTileN; ++o) {
    comp[o] = static_cast<int32_t>(static_cast<uint32_t>(-zx) * static_cast<uint32_t>(w.sums[o]));
  }
  return comp;
}

void run(const AmxWeights& w, const uint8_t* x, int64_t rows, int32_t zx, const Requant* r,
         uint8_t* y, int32_t* sums) {
  if (rows <= 0 || w.out == 0) return;
  const int32_t* comp = compensation(w, zx);
  const int64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
  // ~16K outputs per task, as the other kernels' row grain.
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, kBlockRows * w.out));
  parallel_for(0, blocks, grain, [&](int64_t b, int64_t e) {
    run_rows(w, x, rows, b * kBlockRows, std::min(rows, e * kBlockRows), comp, r, y, sums);
  });
}

}  // namespace

bool amx_int8_usable() {
  static const bool usable = [] {
    const char* env = std::getenv("EMBER_INT8_AMX");
    if (env && std::strcmp(env, "0") == 0) return false;
    return cpu_has_amx_int8() && linux_grants_tile_data();
  }();
  return usable;
}

void set_pointwise_amx_enabled(bool enabled) { g_enabled.store(enabled); }
bool pointwise_amx_enabled() { return g_enabled.load(); }

AmxWeights::AmxWeights(const int8_t* weight, int64_t out_, int64_t in_)
    : out(out_),
      in(in_),
      out_tiles((out_ + kTileN - 1) / kTileN),
      k_tiles((in_ + kTileK - 1) / kTileK),
      packed(out_tiles * k_tiles * kTileRows * kTileBytes, 0),
      sums(out_tiles * kTileN, 0) {
  for (int64_t o = 0; o < out; ++o) {
    const int64_t nt = o / kTileN, lane = o % kTileN;
    for (int64_t k = 0; k < in; ++k) {
      const int8_t v = weight[o * in + k];
      const int64_t kt = k / kTileK, q = (k % kTileK) / 4;
      packed[((nt * k_tiles + kt) * kTileRows + q) * kTileBytes + lane * 4 + k % 4] = v;
      sums[o] += v;
    }
  }
}

void pointwise_amx_run(const AmxWeights& w, const uint8_t* x, int64_t rows, int32_t zx,
                       const Requant& r, uint8_t* y) {
  run(w, x, rows, zx, &r, y, nullptr);
}

void pointwise_amx_sums(const AmxWeights& w, const uint8_t* x, int64_t rows, int32_t zx,
                        int32_t* acc) {
  run(w, x, rows, zx, nullptr, nullptr, acc);
}

}  // namespace ember::cpu::quantized::detail
