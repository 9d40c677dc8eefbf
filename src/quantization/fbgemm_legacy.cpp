// PyTorch's legacy FBGEMM functions (QuantizedLinear.cpp) and choose_qparams_optimized
// (QTensor.cpp), with their numerics one float rounding at a time (this directory builds with
// -ffp-contract=off; where FBGEMM's AVX2 code fuses a multiply and add, std::fma says so).
//
// Note [ember's fbgemm packed formats]: PyTorch returns FBGEMM's PackBMatrix / PackedGemmMatrixFP16
// objects hidden in a byte tensor (cpp_custom_type_hack). ember's packed tensors are uint8 too, and
// as opaque: a 32-byte header (an 8-byte tag, N, K as int64, 8 reserved bytes) followed by the
// int8 weight [N, K] (row-major: each output's dot product reads one row), or by its float16
// values. A tensor that does not carry the tag is refused, so a wrong argument fails clearly.
#include "ember/quantization/fbgemm_legacy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/parallel.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/warning.h"

#include "../dispatch/boxing.h"

namespace ember {

namespace dispatch {
// fbgemm_linear_quantize_weight's (Tensor, Tensor, float, int) from an override (the only op with
// these results, so the specialisation lives with it).
template <>
inline std::tuple<Tensor, Tensor, double, int64_t> unbox_result<std::tuple<Tensor, Tensor, double, int64_t>>(
    Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 4 && out[0].is_tensor() && out[1].is_tensor() &&
                       (out[2].is_double() || out[2].is_int()) && out[3].is_int(),
                   op.full_name(), ": an override must return (Tensor, Tensor, float, int), got ", out.size(),
                   " values");
  return {std::move(out[0].to_tensor()), std::move(out[1].to_tensor()), out[2].to_double(), out[3].to_int()};
}
}  // namespace dispatch

using dispatch::OpId;

namespace {

#define EMBER_CHECK_PLAIN(cond)                                                                         \
  EMBER_CHECK(cond, "Expected " #cond " to be true, but got false.  (Could this error message be improved?  " \
              "If so, please report an enhancement request to PyTorch.)")

void deprecated_once(bool& warned, const char* name) {
  if (warned) return;
  warned = true;
  warn(std::string(name) + " is deprecated and will be removed in a future PyTorch release.");
}

void check_float(const Tensor& t) {
  EMBER_CHECK(t.dtype() == kFloat32, "expected scalar type Float but found ", scalar_type_name(t.dtype()));
}

// ---- choose_qparams_optimized ----

// The L2 error of quantizing to [xmin, xmax] with 2^bit_width levels (scale and xmin in
// float16, as embedding tables store them).
float quant_loss(const float* input, int64_t numel, float xmin, float xmax, int bit_width) {
  xmin = static_cast<float>(static_cast<Half>(xmin));
  const float data_range = xmax - xmin;
  const float qmax = static_cast<float>((1 << bit_width) - 1);
  const float scale = data_range == 0 ? 1.0f : static_cast<float>(static_cast<Half>(data_range / qmax));
  const float inverse_scale = scale == 0 ? 1.0f : 1.0f / scale;
  float norm = 0.0f;
  for (int64_t i = 0; i < numel; ++i) {
    float q = std::max(0.0f, std::min<float>(std::nearbyint((input[i] - xmin) * inverse_scale), qmax));
    q = q * scale + xmin;
    const float d = input[i] - q;
    norm += d * d;
  }
  return std::sqrt(norm);
}

std::tuple<Tensor, Tensor> choose_qparams_optimized_impl(const Tensor& input, int64_t numel, int64_t n_bins,
                                                         double ratio, int64_t bit_width) {
  EMBER_CHECK(numel <= input.numel(), "numel ", numel, " greater than input_tensor.numel() ", input.numel());
  EMBER_CHECK(numel >= 0, "choose_qparams_optimized(): expected numel >= 0, but got ", numel);
  EMBER_CHECK(bit_width > 0 && bit_width < 31, "choose_qparams_optimized(): expected bit_width in [1, 30], but got ",
              bit_width);
  Tensor xmax_t = empty({1}, TensorOptions(kFloat32).device(input.device()));
  Tensor xmin_t = empty({1}, TensorOptions(kFloat32).device(input.device()));
  if (xmax_t.is_meta()) return {xmax_t, xmin_t};
  check_float(input);
  EMBER_CHECK(input.numel() > 0, "choose_qparams_optimized(): expected a non-empty input");
  const Tensor in = input.contiguous();
  const float* x = in.data_ptr<float>();
  // PyTorch takes std::min_element over an empty range when numel is 0: the first value.
  float xmin = numel == 0 ? x[0] : *std::min_element(x, x + numel);
  float xmax = numel == 0 ? x[0] : *std::max_element(x, x + numel);
  const float stepsize = (xmax - xmin) / static_cast<float>(n_bins);
  const int min_bins = static_cast<int>(static_cast<double>(n_bins) * (1.0 - static_cast<double>(static_cast<float>(ratio))));
  const int bw = static_cast<int>(bit_width);
  const float loss = quant_loss(x, numel, xmin, xmax, bw);
  float best_loss = loss, cur_min = xmin, cur_max = xmax, cur_loss = loss;
  const float thr = static_cast<float>(min_bins) * stepsize;
  while (cur_min + thr < cur_max) {
    const float loss1 = quant_loss(x, numel, cur_min + stepsize, cur_max, bw);  // move the minimum up
    const float loss2 = quant_loss(x, numel, cur_min, cur_max - stepsize, bw);  // the maximum down
    if (cur_loss < loss1 && cur_loss < loss2 && cur_loss < best_loss) {
      best_loss = cur_loss;  // a local optimum
      xmin = cur_min;
      xmax = cur_max;
    }
    if (loss1 < loss2) {
      cur_min = cur_min + stepsize;
      cur_loss = loss1;
    } else {
      cur_max = cur_max - stepsize;
      cur_loss = loss2;
    }
  }
  xmax_t.data_ptr<float>()[0] = xmax;
  xmin_t.data_ptr<float>()[0] = xmin;
  return {xmax_t, xmin_t};
}

// ---- packed formats (Note [ember's fbgemm packed formats]) ----

constexpr int64_t kHeader = 32;
constexpr char kTagInt8[8] = {'e', 'm', 'b', 'r', 'q', 'i', '8', 0};
constexpr char kTagFp16[8] = {'e', 'm', 'b', 'r', 'f', '1', '6', 0};

Tensor make_packed(const char* tag, int64_t N, int64_t K, int64_t payload_bytes, const Tensor& like) {
  Tensor p = empty({kHeader + payload_bytes}, TensorOptions(kUInt8).device(like.device()));
  if (p.is_meta()) return p;
  uint8_t* d = p.data_ptr<uint8_t>();
  std::memset(d, 0, kHeader);
  std::memcpy(d, tag, 8);
  std::memcpy(d + 8, &N, 8);
  std::memcpy(d + 16, &K, 8);
  return p;
}

// N and K of a packed tensor carrying `tag`; fails otherwise.
std::pair<int64_t, int64_t> unpack_header(const Tensor& packed, const char* tag, int64_t elem_bytes,
                                          const char* api, const char* producer) {
  bool ok = packed.dtype() == kUInt8 && packed.dim() == 1 && packed.is_contiguous() && packed.numel() >= kHeader &&
            std::memcmp(packed.data_ptr<uint8_t>(), tag, 8) == 0;
  int64_t N = 0, K = 0;
  if (ok) {
    std::memcpy(&N, packed.data_ptr<uint8_t>() + 8, 8);
    std::memcpy(&K, packed.data_ptr<uint8_t>() + 16, 8);
    ok = N >= 0 && K >= 0 && packed.numel() == kHeader + N * K * elem_bytes;
  }
  EMBER_CHECK(ok, api, "(): expected a packed weight made by ", producer, ", but got a tensor of dtype ",
              scalar_type_name(packed.dtype()), " and shape ", packed.sizes());
  return {N, K};
}

// ---- int8 ----

// FBGEMM's Quantize<T, LEGACY>: x * (1 / scale), rounded half to even; LEGACY adds the zero
// point before rounding (FBGEMM's AVX2 code with one fused multiply-add), else after.
template <bool Legacy>
int32_t quantize_value(float x, float inv_scale, int32_t zp, int32_t qmin, int32_t qmax) {
  float v;
  if constexpr (Legacy) {
    v = std::nearbyint(std::fma(x, inv_scale, static_cast<float>(zp)));
  } else {
    v = static_cast<float>(zp) + std::nearbyint(x * inv_scale);
  }
  const int64_t q = static_cast<int64_t>(v);
  return static_cast<int32_t>(std::clamp<int64_t>(q, qmin, qmax));
}

std::tuple<Tensor, Tensor, double, int64_t> quantize_weight_impl(const Tensor& input) {
  static bool warned = false;
  deprecated_once(warned, "fbgemm_linear_quantize_weight");
  EMBER_CHECK(input.dim() == 2, "fbgemm_linear_quantize_weight(): expected a 2-D weight [N, K], but got ",
              input.dim(), "-D");
  const int64_t N = input.size(0), K = input.size(1);
  Tensor q = empty({N, K}, TensorOptions(kInt8).device(input.device()));
  Tensor col = empty({N}, TensorOptions(kInt32).device(input.device()));
  if (q.is_meta()) return {q, col, 1.0, 0};
  check_float(input);
  const Tensor w = input.contiguous();
  const float* src = w.data_ptr<float>();
  float mn = 0, mx = 0;
  if (w.numel() > 0) {
    mn = *std::min_element(src, src + w.numel());
    mx = *std::max_element(src, src + w.numel());
  }
  const auto [scale, zp] = quantization::choose_quantization_params(mn, mx, -128, 127, false);
  const float inv = 1.0f / scale;
  int8_t* dst = q.data_ptr<int8_t>();
  for (int64_t i = 0; i < w.numel(); ++i) dst[i] = static_cast<int8_t>(quantize_value<false>(src[i], inv, zp, -128, 127));
  int32_t* c = col.data_ptr<int32_t>();
  for (int64_t n = 0; n < N; ++n) {
    int32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) sum += dst[n * K + k];
    c[n] = sum - zp * static_cast<int32_t>(K);
  }
  return {q, col, static_cast<double>(scale), static_cast<int64_t>(zp)};
}

Tensor pack_quantized_impl(const Tensor& input) {
  static bool warned = false;
  deprecated_once(warned, "fbgemm_pack_quantized_matrix");
  EMBER_CHECK(input.dim() == 2, "fbgemm_pack_quantized_matrix(): expected a 2-D int8 weight [N, K], but got ",
              input.dim(), "-D");
  EMBER_CHECK(input.dtype() == kInt8, "expected scalar type Char but found ", scalar_type_name(input.dtype()));
  const int64_t N = input.size(0), K = input.size(1);
  Tensor p = make_packed(kTagInt8, N, K, N * K, input);
  if (p.is_meta()) return p;
  const Tensor w = input.contiguous();
  std::memcpy(p.data_ptr<uint8_t>() + kHeader, w.data_ptr<int8_t>(), static_cast<size_t>(N * K));
  return p;
}

// The int8 GEMM with FBGEMM's requantization to float (one scalar kernel: integer products are
// exact in any order, the float steps follow FBGEMM's ReQuantizeForFloat).
void linear_int8_kernel(const float* x, int64_t M, int64_t K, const int8_t* w, int64_t N, const int32_t* col_offsets,
                     float w_scale, int32_t w_zp, const float* bias, float* y) {
  // The activation's own range, quantized to uint8 [0, 255] (zero point included in the range).
  float mn = 0, mx = 0;
  if (M * K > 0) {
    mn = *std::min_element(x, x + M * K);
    mx = *std::max_element(x, x + M * K);
  }
  const auto [a_scale, a_zp] = quantization::choose_quantization_params(mn, mx, 0, 255, false);
  const float inv = 1.0f / a_scale;
  parallel_for(0, M, 1, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> qa(static_cast<size_t>(K));
    for (int64_t m = begin; m < end; ++m) {
      int32_t row_offset = 0;
      for (int64_t k = 0; k < K; ++k) {
        qa[static_cast<size_t>(k)] = quantize_value<true>(x[m * K + k], inv, a_zp, 0, 255);
        row_offset += qa[static_cast<size_t>(k)];
      }
      for (int64_t n = 0; n < N; ++n) {
        int32_t acc = 0;
        const int8_t* wr = w + n * K;
        for (int64_t k = 0; k < K; ++k) acc += qa[static_cast<size_t>(k)] * static_cast<int32_t>(wr[k]);
        // FBGEMM's ReQuantizeForFloat: the zero points' cross terms removed, then scaled
        const int32_t raw = acc - a_zp * col_offsets[n] - row_offset * w_zp;
        float res = static_cast<float>(raw) * a_scale * w_scale;
        res += bias[n];
        y[m * N + n] = res;
      }
    }
  });
}

Tensor linear_int8_impl(const Tensor& input, const Tensor& weight, const Tensor& packed, const Tensor& col_offsets,
                        const Scalar& weight_scale, const Scalar& weight_zero_point, const Tensor& bias) {
  static bool warned = false;
  deprecated_once(warned, "fbgemm_linear_int8_weight_fp32_activation");
  EMBER_CHECK_PLAIN(input.dim() >= 2);
  const int64_t K = input.size(input.dim() - 1);
  EMBER_CHECK_PLAIN(weight.dim() == 2);
  EMBER_CHECK_PLAIN(K == weight.size(1));
  const int64_t N = weight.size(0);
  EMBER_CHECK_PLAIN(bias.dim() == 1);
  EMBER_CHECK_PLAIN(bias.size(0) == N);
  EMBER_CHECK(weight_scale.is_floating(), "Expected weight_scale.isFloatingPoint() to be true, but got false.  ",
              "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
  EMBER_CHECK(weight_zero_point.is_integral(), "Expected weight_zero_point.isIntegral(false) to be true, but got ",
              "false.  (Could this error message be improved?  If so, please report an enhancement request to ",
              "PyTorch.)");
  DimVector shape(input.sizes().begin(), input.sizes().end());
  shape.back() = N;
  Tensor out = empty(shape, TensorOptions(kFloat32).device(input.device()));
  if (out.is_meta()) return out;
  check_float(input);
  check_float(bias);
  const auto [pn, pk] = unpack_header(packed, kTagInt8, 1, "fbgemm_linear_int8_weight_fp32_activation",
                                      "fbgemm_pack_quantized_matrix");
  EMBER_CHECK(pn == N && pk == K, "fbgemm_linear_int8_weight_fp32_activation(): the packed weight is [", pn, ", ",
              pk, "], the weight [", N, ", ", K, "]");
  EMBER_CHECK(col_offsets.dtype() == kInt32 && col_offsets.numel() == N,
              "fbgemm_linear_int8_weight_fp32_activation(): expected int32 col_offsets of ", N,
              " elements, but got ", scalar_type_name(col_offsets.dtype()), " of ", col_offsets.numel());
  const Tensor x = input.contiguous(), b = bias.contiguous(), co = col_offsets.contiguous();
  int64_t M = 1;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) M *= input.size(d);
  linear_int8_kernel(x.data_ptr<float>(), M, K,
                              reinterpret_cast<const int8_t*>(packed.data_ptr<uint8_t>() + kHeader), N,
                              co.data_ptr<int32_t>(), static_cast<float>(weight_scale.to_double()),
                              static_cast<int32_t>(weight_zero_point.to_int()), b.data_ptr<float>(),
                              out.data_ptr<float>());
  return out;
}

// ---- float16 ----

Tensor pack_fp16_impl(const Tensor& input) {
  static bool warned = false;
  deprecated_once(warned, "fbgemm_pack_gemm_matrix_fp16");
  EMBER_CHECK(input.dim() == 2, "fbgemm_pack_gemm_matrix_fp16(): expected a 2-D weight [N, K], but got ",
              input.dim(), "-D");
  const int64_t N = input.size(0), K = input.size(1);
  Tensor p = make_packed(kTagFp16, N, K, N * K * 2, input);
  if (p.is_meta()) return p;
  check_float(input);
  const Tensor w = input.contiguous();
  const float* src = w.data_ptr<float>();
  const float kMax = 65504.0f;  // FBGEMM saturates to float16's largest finite value
  bool saturated = false;
  std::vector<Half> h(static_cast<size_t>(N * K));
  for (int64_t i = 0; i < N * K; ++i) {
    float v = src[i];
    if (v > kMax || v < -kMax) {
      v = v > kMax ? kMax : -kMax;
      saturated = true;
    }
    h[static_cast<size_t>(i)] = static_cast<Half>(v);
  }
  if (saturated) warn("FOUND weight out of range ");
  std::memcpy(p.data_ptr<uint8_t>() + kHeader, h.data(), h.size() * sizeof(Half));
  return p;
}

Tensor linear_fp16_impl(const Tensor& input, const Tensor& packed_weight, const Tensor& bias) {
  static bool warned = false;
  deprecated_once(warned, "fbgemm_linear_fp16_weight_fp32_activation");
  EMBER_CHECK(!packed_weight.is_meta(), "fbgemm_linear_fp16_weight_fp32_activation(): the packed weight's ",
              "shape is in its bytes: a meta tensor cannot carry it");
  const auto [N, K] = unpack_header(packed_weight, kTagFp16, 2, "fbgemm_linear_fp16_weight_fp32_activation",
                                    "fbgemm_pack_gemm_matrix_fp16");
  EMBER_CHECK(input.dim() >= 1 && input.size(input.dim() - 1) == K,
              "Expected input.size(input.dim() - 1) == packed_weight_fp16.numRows() to be true, but got false.  ",
              "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
  EMBER_CHECK_PLAIN(input.dim() >= 2);
  EMBER_CHECK_PLAIN(bias.dim() == 1);
  check_float(input);
  check_float(bias);
  Tensor w16 = empty({N, K}, TensorOptions(kFloat16));
  std::memcpy(w16.data_ptr<Half>(), packed_weight.data_ptr<uint8_t>() + kHeader, static_cast<size_t>(N * K * 2));
  Tensor out = matmul(input.contiguous(), w16.to(kFloat32).t());
  out.add_(bias);
  return out;
}

}  // namespace


// ---- frontends ----

std::tuple<Tensor, Tensor> choose_qparams_optimized(const Tensor& input, int64_t numel, int64_t n_bins,
                                                    double ratio, int64_t bit_width) {
  return dispatch::call<choose_qparams_optimized_impl>(OpId::choose_qparams_optimized, input, numel, n_bins, ratio,
                                                       bit_width);
}
std::tuple<Tensor, Tensor, double, int64_t> fbgemm_linear_quantize_weight(const Tensor& input) {
  return dispatch::call<quantize_weight_impl>(OpId::fbgemm_linear_quantize_weight, input);
}
Tensor fbgemm_pack_quantized_matrix(const Tensor& input) {
  return dispatch::call<pack_quantized_impl>(OpId::fbgemm_pack_quantized_matrix, input);
}
namespace {
Tensor pack_quantized_kn_impl(const Tensor& input, int64_t K, int64_t N) {
  (void)K;  // PyTorch ignores them too: the weight's shape decides
  (void)N;
  return fbgemm_pack_quantized_matrix(input);
}
}  // namespace
Tensor fbgemm_pack_quantized_matrix(const Tensor& input, int64_t K, int64_t N) {
  return dispatch::call<pack_quantized_kn_impl>(OpId::fbgemm_pack_quantized_matrix_KN, input, K, N);
}
Tensor fbgemm_linear_int8_weight_fp32_activation(const Tensor& input, const Tensor& weight, const Tensor& packed,
                                                 const Tensor& col_offsets, const Scalar& weight_scale,
                                                 const Scalar& weight_zero_point, const Tensor& bias) {
  return dispatch::call<linear_int8_impl>(OpId::fbgemm_linear_int8_weight_fp32_activation, input, weight, packed,
                                          col_offsets, weight_scale, weight_zero_point, bias);
}
namespace {
Tensor linear_int8_weight_impl(const Tensor& input, const Tensor& weight, const Tensor& packed,
                               const Tensor& col_offsets, const Scalar& weight_scale,
                               const Scalar& weight_zero_point, const Tensor& bias) {
  return fbgemm_linear_int8_weight_fp32_activation(input, weight, packed, col_offsets, weight_scale,
                                                   weight_zero_point, bias);
}
}  // namespace
Tensor fbgemm_linear_int8_weight(const Tensor& input, const Tensor& weight, const Tensor& packed,
                                 const Tensor& col_offsets, const Scalar& weight_scale,
                                 const Scalar& weight_zero_point, const Tensor& bias) {
  return dispatch::call<linear_int8_weight_impl>(OpId::fbgemm_linear_int8_weight, input, weight, packed,
                                                 col_offsets, weight_scale, weight_zero_point, bias);
}
Tensor fbgemm_pack_gemm_matrix_fp16(const Tensor& input) {
  return dispatch::call<pack_fp16_impl>(OpId::fbgemm_pack_gemm_matrix_fp16, input);
}
Tensor fbgemm_linear_fp16_weight_fp32_activation(const Tensor& input, const Tensor& packed_weight,
                                                 const Tensor& bias) {
  return dispatch::call<linear_fp16_impl>(OpId::fbgemm_linear_fp16_weight_fp32_activation, input, packed_weight,
                                          bias);
}
namespace {
Tensor linear_fp16_weight_impl(const Tensor& input, const Tensor& packed_weight, const Tensor& bias) {
  return fbgemm_linear_fp16_weight_fp32_activation(input, packed_weight, bias);
}
}  // namespace
Tensor fbgemm_linear_fp16_weight(const Tensor& input, const Tensor& packed_weight, const Tensor& bias) {
  return dispatch::call<linear_fp16_weight_impl>(OpId::fbgemm_linear_fp16_weight, input, packed_weight, bias);
}

EMBER_REGISTER_OP(choose_qparams_optimized, &choose_qparams_optimized);
EMBER_REGISTER_OP(fbgemm_linear_quantize_weight, &fbgemm_linear_quantize_weight);
EMBER_REGISTER_OP(fbgemm_pack_quantized_matrix, static_cast<Tensor (*)(const Tensor&)>(&fbgemm_pack_quantized_matrix));
EMBER_REGISTER_OP(fbgemm_pack_quantized_matrix_KN,
                  static_cast<Tensor (*)(const Tensor&, int64_t, int64_t)>(&fbgemm_pack_quantized_matrix));
EMBER_REGISTER_OP(fbgemm_linear_int8_weight_fp32_activation, &fbgemm_linear_int8_weight_fp32_activation);
EMBER_REGISTER_OP(fbgemm_linear_int8_weight, &fbgemm_linear_int8_weight);
EMBER_REGISTER_OP(fbgemm_pack_gemm_matrix_fp16, &fbgemm_pack_gemm_matrix_fp16);
EMBER_REGISTER_OP(fbgemm_linear_fp16_weight_fp32_activation, &fbgemm_linear_fp16_weight_fp32_activation);
EMBER_REGISTER_OP(fbgemm_linear_fp16_weight, &fbgemm_linear_fp16_weight);

}  // namespace ember
