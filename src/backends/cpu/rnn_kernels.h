// The fused LSTM / GRU gate kernels (one pass over the gates of a step, after the two gemms).
// Contiguous float / double tensors; biases may be undefined.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// gates = ig + hg (+ ib + hb), order i, f, g, o: cy = f cx + i g, hy = o tanh(cy); workspace
/// [B, 4H] keeps the activated gates.
void lstm_cell_kernel(Tensor& hy, Tensor& cy, Tensor& workspace, const Tensor& ig,
                      const Tensor& hg, const Tensor& cx, const Tensor& ib, const Tensor& hb);
/// grad_gates [B, 4H] (pre-activation) and grad_cx from grad_hy / grad_cy (either undefined).
void lstm_cell_backward_kernel(Tensor& grad_gates, Tensor& grad_cx, const Tensor& grad_hy,
                               const Tensor& grad_cy, const Tensor& cx, const Tensor& cy,
                               const Tensor& workspace);
/// order r, z, n: r, z = sigmoid(ig + hg), n = tanh(ig_n + r hg_n), hy = n + z (hx - n);
/// workspace [B, 5H] = r, z, n, hx, hg_n (biases included).
void gru_cell_kernel(Tensor& hy, Tensor& workspace, const Tensor& ig, const Tensor& hg,
                     const Tensor& hx, const Tensor& ib, const Tensor& hb);
/// grad_input_gates, grad_hidden_gates [B, 3H] and grad_hx.
void gru_cell_backward_kernel(Tensor& grad_ig, Tensor& grad_hg, Tensor& grad_hx,
                              const Tensor& grad_hy, const Tensor& workspace);

/// The scalar references (std::exp / std::tanh in the tensors' type) of the four kernels above,
/// which use them for float64 and run vectorized sigmoids for float32.
void lstm_cell_kernel_ref(Tensor& hy, Tensor& cy, Tensor& workspace, const Tensor& ig,
                          const Tensor& hg, const Tensor& cx, const Tensor& ib, const Tensor& hb);
void lstm_cell_backward_kernel_ref(Tensor& grad_gates, Tensor& grad_cx, const Tensor& grad_hy,
                                   const Tensor& grad_cy, const Tensor& cx, const Tensor& cy,
                                   const Tensor& workspace);
void gru_cell_kernel_ref(Tensor& hy, Tensor& workspace, const Tensor& ig, const Tensor& hg,
                         const Tensor& hx, const Tensor& ib, const Tensor& hb);
void gru_cell_backward_kernel_ref(Tensor& grad_ig, Tensor& grad_hg, Tensor& grad_hx,
                                  const Tensor& grad_hy, const Tensor& workspace);

}  // namespace ember::cpu
