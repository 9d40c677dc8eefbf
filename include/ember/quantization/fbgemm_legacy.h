// PyTorch's legacy FBGEMM entry points (torch.fbgemm_*, deprecated there too) and the quantized
// RNN cells built on them, with ember's own packed formats (opaque uint8 tensors), and
// torch.choose_qparams_optimized (the greedy L2 range search of embedding quantization).
//
//   auto [w8, col_offsets, scale, zp] = ember::fbgemm_linear_quantize_weight(w);   // int8 [N, K]
//   Tensor packed = ember::fbgemm_pack_quantized_matrix(w8);
//   Tensor y = ember::fbgemm_linear_int8_weight_fp32_activation(x, w8, packed, col_offsets, scale, zp, b);
#pragma once

#include <tuple>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// (xmax, xmin) of the first `numel` values of a float tensor after the greedy search: the
/// range whose 2^bit_width-level quantization has the smallest L2 error.
std::tuple<Tensor, Tensor> choose_qparams_optimized(const Tensor& input, int64_t numel, int64_t n_bins,
                                                    double ratio, int64_t bit_width);

/// The weight [N, K] quantized to int8 per tensor: (int8 weight, int32 column offsets
/// (row sums minus zero_point * K), scale, zero_point).
std::tuple<Tensor, Tensor, double, int64_t> fbgemm_linear_quantize_weight(const Tensor& input);
/// An int8 weight [N, K] packed for the int8 GEMM (uint8 bytes, opaque).
Tensor fbgemm_pack_quantized_matrix(const Tensor& input);
Tensor fbgemm_pack_quantized_matrix(const Tensor& input, int64_t K, int64_t N);
/// y = x W^T + bias, x quantized per call to uint8 (its own range), int32 accumulation.
Tensor fbgemm_linear_int8_weight_fp32_activation(const Tensor& input, const Tensor& weight, const Tensor& packed,
                                                 const Tensor& col_offsets, const Scalar& weight_scale,
                                                 const Scalar& weight_zero_point, const Tensor& bias);
Tensor fbgemm_linear_int8_weight(const Tensor& input, const Tensor& weight, const Tensor& packed,
                                 const Tensor& col_offsets, const Scalar& weight_scale,
                                 const Scalar& weight_zero_point, const Tensor& bias);
/// A float weight [N, K] rounded to float16 (saturated at +-65504) and packed (uint8 bytes, opaque).
Tensor fbgemm_pack_gemm_matrix_fp16(const Tensor& input);
/// y = x W16^T + bias in float.
Tensor fbgemm_linear_fp16_weight_fp32_activation(const Tensor& input, const Tensor& packed_weight,
                                                 const Tensor& bias);
Tensor fbgemm_linear_fp16_weight(const Tensor& input, const Tensor& packed_weight, const Tensor& bias);

/// The recurrent cells over fbgemm_linear_int8_weight_fp32_activation (PyTorch's
/// QuantizedCellParams): gates = linear_hh(h) + linear_ih(x).
#define EMBER_QUANTIZED_CELL_ARGS                                                                       \
  const Tensor &w_ih, const Tensor &w_hh, const Tensor &b_ih, const Tensor &b_hh, const Tensor &packed_ih, \
      const Tensor &packed_hh, const Tensor &col_offsets_ih, const Tensor &col_offsets_hh,                  \
      const Scalar &scale_ih, const Scalar &scale_hh, const Scalar &zero_point_ih, const Scalar &zero_point_hh
std::tuple<Tensor, Tensor> quantized_lstm_cell(const Tensor& input, ArrayRef<Tensor> hx, EMBER_QUANTIZED_CELL_ARGS);
Tensor quantized_gru_cell(const Tensor& input, const Tensor& hx, EMBER_QUANTIZED_CELL_ARGS);
Tensor quantized_rnn_relu_cell(const Tensor& input, const Tensor& hx, EMBER_QUANTIZED_CELL_ARGS);
Tensor quantized_rnn_tanh_cell(const Tensor& input, const Tensor& hx, EMBER_QUANTIZED_CELL_ARGS);
#undef EMBER_QUANTIZED_CELL_ARGS

}  // namespace ember
