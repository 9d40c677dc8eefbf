// The recurrent cells as ops: the composites aten::lstm_cell / gru_cell / rnn_tanh_cell /
// rnn_relu_cell (two gemms, then the gates) and the fused gate primitives they run on floating
// CPU tensors, aten::_thnn_fused_lstm_cell / _thnn_fused_gru_cell, with their backward ops.
//
//   auto [hy, cy] = ember::lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, ArrayRef<Tensor> hx,
                                     const Tensor& w_ih, const Tensor& w_hh,
                                     const std::optional<Tensor>& b_ih = std::nullopt,
                                     const std::optional<Tensor>& b_hh = std::nullopt);
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih = std::nullopt,
                const std::optional<Tensor>& b_hh = std::nullopt);
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = std::nullopt,
                     const std::optional<Tensor>& b_hh = std::nullopt);
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = std::nullopt,
                     const std::optional<Tensor>& b_hh = std::nullopt);

/// (hy, cy, workspace) from the two gate products [B, 4H] and cx [B, H].
std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell(
    const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& cx,
    const std::optional<Tensor>& input_bias = std::nullopt,
    const std::optional<Tensor>& hidden_bias = std::nullopt);
/// (grad_gates, grad_cx, grad_bias or undefined).
std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell_backward_impl(
    const std::optional<Tensor>& grad_hy, const std::optional<Tensor>& grad_cy, const Tensor& cx,
    const Tensor& cy, const Tensor& workspace, bool has_bias);
/// (hy, workspace) from the two gate products [B, 3H] and hx [B, H].
std::tuple<Tensor, Tensor> _thnn_fused_gru_cell(
    const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
    const std::optional<Tensor>& input_bias = std::nullopt,
    const std::optional<Tensor>& hidden_bias = std::nullopt);
/// (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _thnn_fused_gru_cell_backward(
    const Tensor& grad_hy, const Tensor& workspace, bool has_bias);

}  // namespace ember
