// Internal to src/backends/cpu/quantized: 1x1 int8 convolutions (matmuls over NHWC pixels) on
// AMX tiles, exact int32 sums then either formula's requantization. See Note [1x1 int8
// convolutions on AMX tiles] in qpointwise_amx.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "requant.h"

namespace ember::cpu::quantized::detail {

/// Whether this process may run AMX int8 tiles: the CPU has AMX-TILE, AMX-INT8 and AVX-512
/// (F, BW, VL, VNNI, VBMI), Linux granted the tile-data state (arch_prctl
/// ARCH_REQ_XCOMP_PERM, asked once), and the environment variable EMBER_INT8_AMX is not "0"
/// (tools that do not emulate AMX, such as valgrind, need it off).
bool amx_int8_usable();

/// Whether packs may use the AMX kernel (default true; tests and benchmarks turn it off to
/// time or check oneDNN's kernel on the same shapes). Read at each call.
void set_pointwise_amx_enabled(bool enabled);
bool pointwise_amx_enabled();

/// Fewer rows than this run faster on oneDNN's VNNI kernel: a tile product costs the same for 1
/// row as for 16 (measured on the 1280 -> 1000 classifier: 1 row 30 vs 13 us, 4 rows 16 vs 19,
/// 8 rows 17 vs 34, 16 rows 18 vs 69; docs/quantization.md § Speed).
constexpr int64_t kAmxMinRows = 8;

/// A weight of `out` rows by `in` int8 codes (zero points 0) in the tiles' layout: per block of
/// 16 output channels and 64 input channels, one 1 KB B tile whose row q holds, for each of the
/// 16 channels, the four codes of inputs 4q..4q+3 (zeros past `in` and `out`); and per output
/// channel the sum of its codes.
struct AmxWeights {
  AmxWeights(const int8_t* weight, int64_t out, int64_t in);
  int64_t out, in;
  int64_t out_tiles, k_tiles;  // ceil(out / 16), ceil(in / 64)
  std::vector<int8_t> packed;  // out_tiles x k_tiles x 1024 bytes
  std::vector<int32_t> sums;   // out_tiles * 16 (0 past out)
};

/// y (rows x out codes) = requantize_rows(r) of the exact sums acc[i][o] = sum_k (x[i][k] - zx)
/// * w[o][k], for x rows x in codes (row-major). Requires amx_int8_usable().
void pointwise_amx_run(const AmxWeights& w, const uint8_t* x, int64_t rows, int32_t zx,
                       const Requant& r, uint8_t* y);

/// acc (rows x out) = the exact sums alone (the dynamic linear dequantizes them itself).
void pointwise_amx_sums(const AmxWeights& w, const uint8_t* x, int64_t rows, int32_t zx,
                        int32_t* acc);

}  // namespace ember::cpu::quantized::detail
