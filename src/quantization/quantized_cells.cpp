// The quantized recurrent cells (PyTorch's QuantizedCellParams with its LSTMCell / GRUCell /
// SimpleCell): each linear map is fbgemm_linear_int8_weight_fp32_activation with its bias, the
// gates are float and written as PyTorch's cells write them.
#include <tuple>

#include "ember/nn/functional.h"
#include "ember/quantization/fbgemm_legacy.h"

#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

struct CellParams {
  const Tensor &w_ih, &w_hh, &b_ih, &b_hh, &packed_ih, &packed_hh, &col_offsets_ih, &col_offsets_hh;
  const Scalar &scale_ih, &scale_hh, &zero_point_ih, &zero_point_hh;
  Tensor linear_ih(const Tensor& x) const {
    return fbgemm_linear_int8_weight_fp32_activation(x, w_ih, packed_ih, col_offsets_ih, scale_ih, zero_point_ih,
                                                     b_ih);
  }
  Tensor linear_hh(const Tensor& h) const {
    return fbgemm_linear_int8_weight_fp32_activation(h, w_hh, packed_hh, col_offsets_hh, scale_hh, zero_point_hh,
                                                     b_hh);
  }
};

#define EMBER_CELL_PARAMS_DECL                                                                           \
  const Tensor &w_ih, const Tensor &w_hh, const Tensor &b_ih, const Tensor &b_hh, const Tensor &packed_ih, \
      const Tensor &packed_hh, const Tensor &col_offsets_ih, const Tensor &col_offsets_hh,                  \
      const Scalar &scale_ih, const Scalar &scale_hh, const Scalar &zero_point_ih, const Scalar &zero_point_hh
#define EMBER_CELL_PARAMS_ARGS                                                                        \
  w_ih, w_hh, b_ih, b_hh, packed_ih, packed_hh, col_offsets_ih, col_offsets_hh, scale_ih, scale_hh, \
      zero_point_ih, zero_point_hh

std::tuple<Tensor, Tensor> lstm_cell_impl(const Tensor& input, ArrayRef<Tensor> hx, EMBER_CELL_PARAMS_DECL) {
  EMBER_CHECK(hx.size() == 2, "quantized_lstm_cell(): expected two hidden states (h, c), but got ", hx.size());
  const CellParams p{EMBER_CELL_PARAMS_ARGS};
  const Tensor& h = hx[0];
  const Tensor& c = hx[1];
  Tensor gates = p.linear_hh(h);
  gates.add_(p.linear_ih(input));
  auto g = gates.chunk(4, 1);
  const Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), cg = g[2].tanh(), o = g[3].sigmoid();
  Tensor cy = f * c;
  cy.add_(i * cg);
  Tensor hy = o * cy.tanh();
  return {hy, cy};
}

Tensor gru_cell_impl(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  const CellParams p{EMBER_CELL_PARAMS_ARGS};
  auto ig = p.linear_ih(input).chunk(3, 1);
  auto hg = p.linear_hh(hx).chunk(3, 1);
  const Tensor reset = (hg[0] + ig[0]).sigmoid();
  const Tensor update = (hg[1] + ig[1]).sigmoid();
  const Tensor n = (ig[2] + hg[2] * reset).tanh();
  Tensor hy = (hx - n) * update;
  hy.add_(n);
  return hy;
}

Tensor simple_cell(const Tensor& input, const Tensor& hx, const CellParams& p, bool use_tanh) {
  Tensor pre = p.linear_hh(hx);
  pre.add_(p.linear_ih(input));
  return use_tanh ? pre.tanh() : nn::functional::relu(pre);
}

Tensor rnn_relu_cell_impl(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  return simple_cell(input, hx, CellParams{EMBER_CELL_PARAMS_ARGS}, false);
}
Tensor rnn_tanh_cell_impl(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  return simple_cell(input, hx, CellParams{EMBER_CELL_PARAMS_ARGS}, true);
}

}  // namespace

std::tuple<Tensor, Tensor> quantized_lstm_cell(const Tensor& input, ArrayRef<Tensor> hx, EMBER_CELL_PARAMS_DECL) {
  return dispatch::call<lstm_cell_impl>(OpId::quantized_lstm_cell, input, hx, EMBER_CELL_PARAMS_ARGS);
}
Tensor quantized_gru_cell(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  return dispatch::call<gru_cell_impl>(OpId::quantized_gru_cell, input, hx, EMBER_CELL_PARAMS_ARGS);
}
Tensor quantized_rnn_relu_cell(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  return dispatch::call<rnn_relu_cell_impl>(OpId::quantized_rnn_relu_cell, input, hx, EMBER_CELL_PARAMS_ARGS);
}
Tensor quantized_rnn_tanh_cell(const Tensor& input, const Tensor& hx, EMBER_CELL_PARAMS_DECL) {
  return dispatch::call<rnn_tanh_cell_impl>(OpId::quantized_rnn_tanh_cell, input, hx, EMBER_CELL_PARAMS_ARGS);
}

#undef EMBER_CELL_PARAMS_DECL
#undef EMBER_CELL_PARAMS_ARGS

EMBER_REGISTER_OP(quantized_lstm_cell, &quantized_lstm_cell);
EMBER_REGISTER_OP(quantized_gru_cell, &quantized_gru_cell);
EMBER_REGISTER_OP(quantized_rnn_relu_cell, &quantized_rnn_relu_cell);
EMBER_REGISTER_OP(quantized_rnn_tanh_cell, &quantized_rnn_tanh_cell);

}  // namespace ember
