// The recurrent cells: composites over two gemms and the gates (PyTorch's CPU cells compute the
// gates with separate elementwise ops; ember fuses them into one pass, the primitives
// _thnn_fused_lstm_cell / _thnn_fused_gru_cell, whose backward rules run the fused backward
// ops). Non-floating or non-CPU inputs take the unfused path.
#include "ember/ops/rnn.h"

#include "../autograd/record.h"
#include "ember/grad_mode.h"
#include "ember/ops/index_ops.h"
#include "../backends/cpu/rnn_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's check_rnn_cell_forward_input / _hidden.
void check_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, int64_t hidden_size,
                const char* hx_name) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2,
              "Expected input to be 1D or 2D, got ", input.dim(), "D instead");
  EMBER_CHECK(input.size(-1) == w_ih.size(1), "input has inconsistent input_size: got ",
              input.size(-1), " expected ", w_ih.size(1));
  EMBER_CHECK(hx.dim() == input.dim(), "Expected hidden to be ", input.dim(), "D, got ",
              hx.dim(), "D instead");
  EMBER_CHECK(input.dim() == 1 || input.size(0) == hx.size(0), "Input batch size ",
              input.size(0), " doesn't match hidden", hx_name, " batch size ", hx.size(0));
  EMBER_CHECK(hx.size(-1) == hidden_size, "hidden", hx_name, " has inconsistent hidden_size: got ",
              hx.size(-1), ", expected ", hidden_size);
}

// With biases the gates start with addmm, whose dtype check PyTorch reports before any kernel
// sees a quantized or mixed-dtype input (without biases its mm refuses them, as ember's does).
void check_addmm_dtypes(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                        const std::optional<Tensor>& b_ih) {
  if (!b_ih) return;
  EMBER_CHECK(input.dtype() == w_ih.dtype() && hx.dtype() == w_ih.dtype(),
              "mat1 and mat2 must have the same dtype");
}

bool fusable(const Tensor& a, const Tensor& b) {
  return (a.dtype() == kFloat32 || a.dtype() == kFloat64) && a.dtype() == b.dtype() &&
         a.device().is_cpu() && a.dim() == 2;
}

// Whether the weights have the cell's shapes (`gates` gates of hidden size H): PyTorch's cells
// do not check them (other shapes broadcast through its elementwise ops), so the unfused path
// takes whatever the fused kernel cannot.
bool gate_shapes(int64_t gates, int64_t H, const Tensor& w_ih, const Tensor& w_hh,
                 const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  auto bias_ok = [&](const std::optional<Tensor>& b) {
    return !b || (b->dim() == 1 && b->size(0) == gates * H && b->dtype() == w_ih.dtype());
  };
  return w_ih.dim() == 2 && w_hh.dim() == 2 && w_ih.size(0) == gates * H &&
         w_hh.size(0) == gates * H && w_hh.dtype() == w_ih.dtype() && bias_ok(b_ih) && bias_ok(b_hh);
}

// ---- fused primitives ----

std::tuple<Tensor, Tensor, Tensor> fused_lstm_impl(const Tensor& ig, const Tensor& hg,
                                                   const Tensor& cx,
                                                   const std::optional<Tensor>& ib,
                                                   const std::optional<Tensor>& hb) {
  EMBER_CHECK(ig.dim() == 2 && ig.sizes() == hg.sizes() && cx.dim() == 2 &&
                  ig.size(0) == cx.size(0) && ig.size(1) == 4 * cx.size(1),
              "_thnn_fused_lstm_cell: expected input_gates and hidden_gates [B, 4H] and cx "
              "[B, H], got ", size_str(ig.sizes()), ", ", size_str(hg.sizes()), " and ",
              size_str(cx.sizes()));
  const TensorOptions o = TensorOptions(cx.dtype()).device(cx.device());
  Tensor hy = empty(cx.sizes(), o), cy = empty(cx.sizes(), o), ws = empty(ig.sizes(), o);
  if (!hy.is_meta()) {
    cpu::lstm_cell_kernel(hy, cy, ws, ig.contiguous(), hg.contiguous(), cx.contiguous(),
                          ib ? ib->contiguous() : Tensor(), hb ? hb->contiguous() : Tensor());
  }
  return {hy, cy, ws};
}

std::tuple<Tensor, Tensor, Tensor> fused_lstm_backward_impl(const std::optional<Tensor>& ghy,
                                                            const std::optional<Tensor>& gcy,
                                                            const Tensor& cx, const Tensor& cy,
                                                            const Tensor& ws, bool has_bias) {
  const TensorOptions o = TensorOptions(cx.dtype()).device(cx.device());
  Tensor gg = empty(ws.sizes(), o), gcx = empty(cx.sizes(), o);
  if (!gg.is_meta()) {
    cpu::lstm_cell_backward_kernel(gg, gcx, ghy ? ghy->contiguous() : Tensor(),
                                   gcy ? gcy->contiguous() : Tensor(), cx.contiguous(),
                                   cy.contiguous(), ws);
  }
  Tensor gb = has_bias ? gg.sum(std::vector<int64_t>{0}) : Tensor();
  return {gg, gcx, gb};
}

std::tuple<Tensor, Tensor> fused_gru_impl(const Tensor& ig, const Tensor& hg, const Tensor& hx,
                                          const std::optional<Tensor>& ib,
                                          const std::optional<Tensor>& hb) {
  EMBER_CHECK(ig.dim() == 2 && ig.sizes() == hg.sizes() && hx.dim() == 2 &&
                  ig.size(0) == hx.size(0) && ig.size(1) == 3 * hx.size(1),
              "_thnn_fused_gru_cell: expected input_gates and hidden_gates [B, 3H] and hx "
              "[B, H], got ", size_str(ig.sizes()), ", ", size_str(hg.sizes()), " and ",
              size_str(hx.sizes()));
  const TensorOptions o = TensorOptions(hx.dtype()).device(hx.device());
  Tensor hy = empty(hx.sizes(), o), ws = empty({hx.size(0), 5 * hx.size(1)}, o);
  if (!hy.is_meta()) {
    cpu::gru_cell_kernel(hy, ws, ig.contiguous(), hg.contiguous(), hx.contiguous(),
                         ib ? ib->contiguous() : Tensor(), hb ? hb->contiguous() : Tensor());
  }
  return {hy, ws};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> fused_gru_backward_impl(const Tensor& ghy,
                                                                           const Tensor& ws,
                                                                           bool has_bias) {
  const int64_t B = ghy.size(0), H = ghy.size(1);
  const TensorOptions o = TensorOptions(ghy.dtype()).device(ghy.device());
  Tensor gi = empty({B, 3 * H}, o), gh = empty({B, 3 * H}, o), ghx = empty({B, H}, o);
  if (!gi.is_meta()) cpu::gru_cell_backward_kernel(gi, gh, ghx, ghy.contiguous(), ws);
  Tensor gib = has_bias ? gi.sum(std::vector<int64_t>{0}) : Tensor();
  Tensor ghb = has_bias ? gh.sum(std::vector<int64_t>{0}) : Tensor();
  return {gi, gh, ghx, gib, ghb};
}

// ---- composite cells ----

std::tuple<Tensor, Tensor> lstm_cell_impl(const Tensor& input, ArrayRef<Tensor> hx,
                                          const Tensor& w_ih, const Tensor& w_hh,
                                          const std::optional<Tensor>& b_ih,
                                          const std::optional<Tensor>& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell expects two hidden states");
  const int64_t H = w_hh.size(1);
  check_cell(input, hx[0], w_ih, H, "[0]");
  check_cell(input, hx[1], w_ih, H, "[1]");
  check_addmm_dtypes(input, hx[0], w_ih, b_ih);
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor h = batched ? hx[0] : hx[0].unsqueeze(0);
  const Tensor c = batched ? hx[1] : hx[1].unsqueeze(0);
  Tensor hy, cy;
  if (fusable(x, w_ih) && fusable(h, w_ih) && fusable(c, w_ih) && gate_shapes(4, H, w_ih, w_hh, b_ih, b_hh)) {
    auto [h1, c1, ws] = _thnn_fused_lstm_cell(matmul(x, w_ih.t()), matmul(h, w_hh.t()), c, b_ih, b_hh);
    hy = h1, cy = c1;
  } else {
    Tensor gates = linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh);
    auto g = gates.chunk(4, 1);
    Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), gg = g[2].tanh(), o = g[3].sigmoid();
    cy = f * c + i * gg;
    hy = o * cy.tanh();
  }
  if (!batched) return {hy.squeeze(0), cy.squeeze(0)};
  return {hy, cy};
}

Tensor gru_cell_impl(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  check_cell(input, hx, w_ih, w_hh.size(1), "");
  check_addmm_dtypes(input, hx, w_ih, b_ih);
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor h = batched ? hx : hx.unsqueeze(0);
  Tensor hy;
  if (fusable(x, w_ih) && fusable(h, w_ih) && gate_shapes(3, h.size(1), w_ih, w_hh, b_ih, b_hh)) {
    hy = std::get<0>(_thnn_fused_gru_cell(matmul(x, w_ih.t()), matmul(h, w_hh.t()), h, b_ih, b_hh));
  } else {
    auto ig = linear(x, w_ih, b_ih).chunk(3, 1);
    auto hg = linear(h, w_hh, b_hh).chunk(3, 1);
    Tensor r = (ig[0] + hg[0]).sigmoid(), z = (ig[1] + hg[1]).sigmoid();
    Tensor n = (ig[2] + r * hg[2]).tanh();
    hy = n + z * (h - n);
  }
  return batched ? hy : hy.squeeze(0);
}

Tensor simple_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                   const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh,
                   bool use_tanh) {
  check_cell(input, hx, w_ih, w_hh.size(1), "");
  check_addmm_dtypes(input, hx, w_ih, b_ih);
  Tensor pre = linear(input, w_ih, b_ih) + linear(hx, w_hh, b_hh);
  return use_tanh ? pre.tanh() : relu(pre);
}

Tensor rnn_tanh_cell_impl(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                          const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                          const std::optional<Tensor>& b_hh) {
  return simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh, true);
}
Tensor rnn_relu_cell_impl(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                          const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                          const std::optional<Tensor>& b_hh) {
  return simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh, false);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// Note [Fused cell backward and double backward]
// The backward of a fused cell runs the fused backward op (one pass over the gates) when no
// graph is being built. Under create_graph it recomputes the gates from the saved inputs and
// writes the derivative with Tensor ops, which record themselves: double backward works, as
// through PyTorch's CPU cells (composites of differentiable ops).
Tensor gates_sum(const Tensor& ig, const Tensor& hg, const Tensor& ib, const Tensor& hb) {
  Tensor g = ig + hg;
  if (ib.defined()) g = g + ib;
  if (hb.defined()) g = g + hb;
  return g;
}

tensor_list lstm_backward_differentiable(const Tensor& ghy, const Tensor& gcy, const Tensor& ig,
                                         const Tensor& hg, const Tensor& cx, const Tensor& ib,
                                         const Tensor& hb) {
  auto g = gates_sum(ig, hg, ib, hb).chunk(4, 1);
  const Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), gg = g[2].tanh(), o = g[3].sigmoid();
  const Tensor c = f * cx + i * gg;
  const Tensor tc = c.tanh();
  const Tensor dh = ghy.defined() ? ghy : zeros_like(cx);
  Tensor dc = dh * o * (1 - tc * tc);
  if (gcy.defined()) dc = dc + gcy;
  const Tensor grad_gates = cat({dc * gg * i * (1 - i), dc * cx * f * (1 - f),
                                 dc * i * (1 - gg * gg), dh * tc * o * (1 - o)}, 1);
  const Tensor gb = ib.defined() || hb.defined() ? grad_gates.sum(std::vector<int64_t>{0}) : Tensor();
  return {grad_gates, grad_gates, dc * f, gb, gb};
}

tensor_list gru_backward_differentiable(const Tensor& ghy, const Tensor& ig, const Tensor& hg,
                                        const Tensor& hx, const Tensor& ib, const Tensor& hb) {
  auto gi = (ib.defined() ? ig + ib : ig).chunk(3, 1);
  auto gh = (hb.defined() ? hg + hb : hg).chunk(3, 1);
  const Tensor r = (gi[0] + gh[0]).sigmoid(), z = (gi[1] + gh[1]).sigmoid();
  const Tensor n = (gi[2] + r * gh[2]).tanh();
  const Tensor gn = ghy * (1 - z) * (1 - n * n);
  const Tensor gz = ghy * (hx - n) * z * (1 - z);
  const Tensor gr = gn * gh[2] * r * (1 - r);
  const Tensor g_in = cat({gr, gz, gn}, 1), g_hid = cat({gr, gz, gn * r}, 1);
  const bool has_bias = ib.defined() || hb.defined();
  return {g_in, g_hid, ghy * z, has_bias ? g_in.sum(std::vector<int64_t>{0}) : Tensor(),
          has_bias ? g_hid.sum(std::vector<int64_t>{0}) : Tensor()};
}

std::tuple<Tensor, Tensor, Tensor> fused_lstm_autograd(const Tensor& ig, const Tensor& hg,
                                                       const Tensor& cx,
                                                       const std::optional<Tensor>& ib,
                                                       const std::optional<Tensor>& hb) {
  autograd::Recorder r("ThnnFusedLstmCellBackward0", ig, hg, cx, ib, hb);
  auto outs = r.forward([&] {
    return dispatch::call<fused_lstm_impl>(OpId::_thnn_fused_lstm_cell, ig, hg, cx, ib, hb);
  });
  if (!r) return outs;
  const bool has_bias = ib.has_value() || hb.has_value();
  // Slots: 0 cx, 1 ig, 2 hg, 3 ib, 4 hb, 5 cy, 6 workspace.
  r.save(cx, "cx");
  r.save(ig, "input_gates");
  r.save(hg, "hidden_gates");
  r.save_if(ib.has_value(), ib, "input_bias");
  r.save_if(hb.has_value(), hb, "hidden_bias");
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (GradMode::is_enabled()) {
      return lstm_backward_differentiable(g[0], g[1], n.saved(1), n.saved(2), n.saved(0),
                                          has_bias && ib ? n.saved(3) : Tensor(),
                                          has_bias && hb ? n.saved(4) : Tensor());
    }
    auto some = [](const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; };
    auto [gg, gcx, gb] = _thnn_fused_lstm_cell_backward_impl(some(g[0]), some(g[1]), n.saved(0),
                                                             n.saved(5), n.saved(6), has_bias);
    return {gg, gg, gcx, ib ? gb : Tensor(), hb ? gb : Tensor()};
  }, {true, true, false});
  r.save_output(list[1], "result1");
  r.save_output(list[2], "result2");
  return {list[0], list[1], list[2]};
}

std::tuple<Tensor, Tensor> fused_gru_autograd(const Tensor& ig, const Tensor& hg, const Tensor& hx,
                                              const std::optional<Tensor>& ib,
                                              const std::optional<Tensor>& hb) {
  autograd::Recorder r("ThnnFusedGruCellBackward0", ig, hg, hx, ib, hb);
  auto outs = r.forward([&] {
    return dispatch::call<fused_gru_impl>(OpId::_thnn_fused_gru_cell, ig, hg, hx, ib, hb);
  });
  if (!r) return outs;
  const bool has_bias = ib.has_value() || hb.has_value();
  // Slots: 0 ig, 1 hg, 2 hx, 3 ib, 4 hb, 5 workspace.
  r.save(ig, "input_gates");
  r.save(hg, "hidden_gates");
  r.save(hx, "hx");
  r.save_if(ib.has_value(), ib, "input_bias");
  r.save_if(hb.has_value(), hb, "hidden_bias");
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (!g[0].defined()) return {Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
    if (GradMode::is_enabled()) {
      return gru_backward_differentiable(g[0], n.saved(0), n.saved(1), n.saved(2),
                                         ib ? n.saved(3) : Tensor(), hb ? n.saved(4) : Tensor());
    }
    auto [gi, gh, ghx, gib, ghb] = _thnn_fused_gru_cell_backward(g[0], n.saved(5), has_bias);
    return {gi, gh, ghx, ib ? gib : Tensor(), hb ? ghb : Tensor()};
  }, {true, false});
  r.save_output(list[1], "result1");
  return {list[0], list[1]};
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(_thnn_fused_lstm_cell, &fused_lstm_autograd);
EMBER_REGISTER_AUTOGRAD(_thnn_fused_gru_cell, &fused_gru_autograd);

std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell(const Tensor& ig, const Tensor& hg,
                                                         const Tensor& cx,
                                                         const std::optional<Tensor>& ib,
                                                         const std::optional<Tensor>& hb) {
  return dispatch::call<fused_lstm_impl>(OpId::_thnn_fused_lstm_cell, ig, hg, cx, ib, hb);
}
std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell_backward_impl(
    const std::optional<Tensor>& grad_hy, const std::optional<Tensor>& grad_cy, const Tensor& cx,
    const Tensor& cy, const Tensor& workspace, bool has_bias) {
  return dispatch::call<fused_lstm_backward_impl>(OpId::_thnn_fused_lstm_cell_backward_impl,
                                                  grad_hy, grad_cy, cx, cy, workspace, has_bias);
}
std::tuple<Tensor, Tensor> _thnn_fused_gru_cell(const Tensor& ig, const Tensor& hg,
                                                const Tensor& hx, const std::optional<Tensor>& ib,
                                                const std::optional<Tensor>& hb) {
  return dispatch::call<fused_gru_impl>(OpId::_thnn_fused_gru_cell, ig, hg, hx, ib, hb);
}
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _thnn_fused_gru_cell_backward(
    const Tensor& grad_hy, const Tensor& workspace, bool has_bias) {
  return dispatch::call<fused_gru_backward_impl>(OpId::_thnn_fused_gru_cell_backward, grad_hy,
                                                 workspace, has_bias);
}
std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, ArrayRef<Tensor> hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                     const std::optional<Tensor>& b_hh) {
  return dispatch::call<lstm_cell_impl>(OpId::lstm_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
}
Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return dispatch::call<gru_cell_impl>(OpId::gru_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
}
Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return dispatch::call<rnn_tanh_cell_impl>(OpId::rnn_tanh_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
}
Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return dispatch::call<rnn_relu_cell_impl>(OpId::rnn_relu_cell, input, hx, w_ih, w_hh, b_ih, b_hh);
}

EMBER_REGISTER_OP(_thnn_fused_lstm_cell, &_thnn_fused_lstm_cell);
EMBER_REGISTER_OP(_thnn_fused_lstm_cell_backward_impl, &_thnn_fused_lstm_cell_backward_impl);
EMBER_REGISTER_OP(_thnn_fused_gru_cell, &_thnn_fused_gru_cell);
EMBER_REGISTER_OP(_thnn_fused_gru_cell_backward, &_thnn_fused_gru_cell_backward);
EMBER_REGISTER_OP(lstm_cell, &lstm_cell);
EMBER_REGISTER_OP(gru_cell, &gru_cell);
EMBER_REGISTER_OP(rnn_tanh_cell, &rnn_tanh_cell);
EMBER_REGISTER_OP(rnn_relu_cell, &rnn_relu_cell);

}  // namespace ember
