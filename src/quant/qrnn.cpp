// The dynamic quantized recurrent ops (ember/quantized/rnn.h): PyTorch 1.13's
// QuantizedCellParamsDynamic and the cells / layers of aten/src/ATen/native/RNN.cpp over it.
// Every gemm is quantized::linear_dynamic on the packed weight (bias included); the gates are
// float ops in PyTorch's order (gates = linear_hh(h) + linear_ih(x), then sigmoid / tanh, the
// cell update `(f * c) + (i * g)`), so the float results are PyTorch's bit for bit wherever
// linear_dynamic and the float ops are. As in PyTorch on the CPU, a full layer quantizes its
// whole input sequence at once (linear_ih over [T, B, I], so one set of input qparams for all
// steps) and each step quantizes only its hidden state; a packed sequence does the same with
// its [sum(batch_sizes), I] data.
#include "ember/quantized/rnn.h"

#include <algorithm>

#include "dispatch/boxing.h"
#include "ember/nn/functional.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/random.h"
#include "packed_params.h"

namespace ember::quantized {

using dispatch::OpId;
using Packed = intrusive_ptr<LinearPackedParams>;
using Cell = intrusive_ptr<CellParamsDynamic>;

CellParamsDynamic::CellParamsDynamic(Packed w_ih, Packed w_hh, Tensor b_ih, Tensor b_hh,
                                     bool reduce_range)
    : w_ih_(std::move(w_ih)),
      w_hh_(std::move(w_hh)),
      b_ih_(std::move(b_ih)),
      b_hh_(std::move(b_hh)),
      reduce_range_(reduce_range) {
  EMBER_CHECK(w_ih_ && w_hh_, "make_quantized_cell_params_dynamic: the packed weights are null");
}

Tensor CellParamsDynamic::linear_ih(const Tensor& x) const {
  return linear_dynamic(x, w_ih_, reduce_range_);
}
Tensor CellParamsDynamic::linear_hh(const Tensor& h) const {
  return linear_dynamic(h, w_hh_, reduce_range_);
}

intrusive_ptr<CellParamsDynamic> CellParamsDynamic::deep_copy() const {
  auto copy = [](const Tensor& t) { return t.defined() ? t.clone() : t; };
  return make_intrusive<CellParamsDynamic>(w_ih_->deep_copy(), w_hh_->deep_copy(), copy(b_ih_),
                                           copy(b_hh_), reduce_range_);
}

namespace {

// ---- the cells (RNN.cpp's LSTMCell / GRUCell / SimpleCell over cell params) ----
// `x_w` is the input already multiplied by w_ih when `pre_computed` (a full layer's steps).

std::tuple<Tensor, Tensor> lstm_step(const Tensor& x, const Tensor& h, const Tensor& c,
                                     const CellParamsDynamic& p, bool pre_computed) {
  const Tensor gates = p.linear_hh(h) + (pre_computed ? x : p.linear_ih(x));
  auto g = gates.chunk(4, 1);
  const Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), cg = g[2].tanh(), o = g[3].sigmoid();
  Tensor cy = f * c + i * cg;
  Tensor hy = o * cy.tanh();
  return {std::move(hy), std::move(cy)};
}

Tensor gru_step(const Tensor& x, const Tensor& h, const CellParamsDynamic& p, bool pre_computed) {
  auto ig = (pre_computed ? x : p.linear_ih(x)).chunk(3, 1);
  auto hg = p.linear_hh(h).chunk(3, 1);
  const Tensor r = (hg[0] + ig[0]).sigmoid();
  const Tensor z = (hg[1] + ig[1]).sigmoid();
  const Tensor n = (ig[2] + hg[2] * r).tanh();
  return (h - n) * z + n;
}

Tensor simple_step(const Tensor& x, const Tensor& h, const CellParamsDynamic& p, bool use_tanh) {
  const Tensor pre = p.linear_hh(h) + p.linear_ih(x);
  return use_tanh ? pre.tanh() : nn::functional::relu(pre);
}

CellParamsDynamic cell_of(const Packed& w_ih, const Packed& w_hh, const Tensor& b_ih,
                          const Tensor& b_hh) {
  return CellParamsDynamic(w_ih, w_hh, b_ih, b_hh, false);
}

Cell make_cell_params_impl(const Packed& w_ih, const Packed& w_hh, const Tensor& b_ih,
                           const Tensor& b_hh, const bool& reduce_range) {
  return make_intrusive<CellParamsDynamic>(w_ih, w_hh, b_ih, b_hh, reduce_range);
}
std::tuple<Tensor, Tensor> lstm_cell_impl(const Tensor& input, ArrayRef<Tensor> hx,
                                          const Packed& w_ih, const Packed& w_hh,
                                          const Tensor& b_ih, const Tensor& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm expects two hidden states");
  return lstm_step(input, hx[0], hx[1], cell_of(w_ih, w_hh, b_ih, b_hh), false);
}
Tensor gru_cell_impl(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                     const Packed& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return gru_step(input, hx, cell_of(w_ih, w_hh, b_ih, b_hh), false);
}
Tensor rnn_relu_cell_impl(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                          const Packed& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return simple_step(input, hx, cell_of(w_ih, w_hh, b_ih, b_hh), false);
}
Tensor rnn_tanh_cell_impl(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                          const Packed& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return simple_step(input, hx, cell_of(w_ih, w_hh, b_ih, b_hh), true);
}

// ---- layers (RNN.cpp's FullLayer / FullBidirectionalLayer / PackedLayer / ReversedPackedLayer) ----

// A hidden state: (h) for the GRU, (h, c) for the LSTM.
using Hidden = std::vector<Tensor>;

Hidden step(const Tensor& x_w, const Hidden& h, const CellParamsDynamic& p) {
  if (h.size() == 2) {
    auto [hy, cy] = lstm_step(x_w, h[0], h[1], p, true);
    return {hy, cy};
  }
  return {gru_step(x_w, h[0], p, true)};
}

Hidden slice(const Hidden& h, int64_t start, int64_t end) {
  Hidden r;
  for (const Tensor& t : h) r.push_back(t.narrow(0, start, end - start));
  return r;
}

Hidden concat(const std::vector<Hidden>& parts) {
  Hidden r;
  for (size_t k = 0; k < parts.front().size(); ++k) {
    std::vector<Tensor> ts;
    for (const Hidden& p : parts) ts.push_back(p[k]);
    r.push_back(cat(ts, 0));
  }
  return r;
}

struct LayerOut {
  Tensor output;
  Hidden hidden;
};

// One direction over a [T, B, I] sequence; `reverse` walks it backwards.
LayerOut full_layer(const Tensor& input, const Hidden& h0, const CellParamsDynamic& p,
                    bool reverse) {
  std::vector<Tensor> steps = p.linear_ih(input).unbind(0);
  EMBER_CHECK(!steps.empty(), "Expected sequence length to be larger than 0 in RNN");
  if (reverse) std::reverse(steps.begin(), steps.end());
  Hidden h = h0;
  std::vector<Tensor> outs;
  for (const Tensor& x : steps) {
    h = step(x, h, p);
    outs.push_back(h[0]);
  }
  if (reverse) std::reverse(outs.begin(), outs.end());
  return {stack(outs, 0), h};
}

std::vector<int64_t> batch_sizes_of(const Tensor& batch_sizes) {
  const Tensor b = batch_sizes.to(kInt64).contiguous();
  return std::vector<int64_t>(b.data_ptr<int64_t>(), b.data_ptr<int64_t>() + b.numel());
}

LayerOut packed_layer(const Tensor& data, const std::vector<int64_t>& bs, const Hidden& h0,
                      const CellParamsDynamic& p) {
  const Tensor x_w = p.linear_ih(data);
  std::vector<Tensor> outs;
  std::vector<Hidden> finished;
  int64_t offset = 0, last = bs.empty() ? 0 : bs[0];
  Hidden h = h0;
  for (int64_t b : bs) {
    const Tensor x = x_w.narrow(0, offset, b);
    offset += b;
    if (last - b > 0) {  // sequences that ended: keep their final states
      finished.push_back(slice(h, b, last));
      h = slice(h, 0, b);
    }
    last = b;
    h = step(x, h, p);
    outs.push_back(h[0]);
  }
  finished.push_back(h);
  std::reverse(finished.begin(), finished.end());
  return {cat(outs, 0), concat(finished)};
}

LayerOut reversed_packed_layer(const Tensor& data, const std::vector<int64_t>& bs,
                               const Hidden& h0, const CellParamsDynamic& p) {
  const Tensor x_w = p.linear_ih(data);
  std::vector<Tensor> outs;
  int64_t offset = data.size(0);
  const int64_t n = static_cast<int64_t>(bs.size());
  int64_t last = bs[n - 1];
  Hidden h = slice(h0, 0, last);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t b = bs[i];
    if (b - last > 0) h = concat({h, slice(h0, last, b)});  // sequences that start here
    const Tensor x = x_w.narrow(0, offset - b, b);
    offset -= b;
    last = b;
    h = step(x, h, p);
    outs.push_back(h[0]);
  }
  std::reverse(outs.begin(), outs.end());
  return {cat(outs, 0), h};
}

// apply_layer_stack over layers (and directions): returns the output and the final hidden
// states, one per layer and direction, in PyTorch's order.
struct StackOut {
  Tensor output;
  std::vector<Hidden> hiddens;
};

StackOut run_stack(const Tensor& input, const std::vector<int64_t>* packed_bs,
                   const std::vector<Hidden>& hiddens, const CellParamsList& params,
                   int64_t num_layers, double dropout_p, bool train, bool bidirectional) {
  const int64_t dirs = bidirectional ? 2 : 1;
  if (bidirectional) {
    EMBER_CHECK(params.size() % 2 == 0 && hiddens.size() % 2 == 0,
                "Odd number of params or hiddens given to a bidirectional RNN");
  }
  EMBER_CHECK(num_layers == static_cast<int64_t>(hiddens.size()) / dirs,
              "Expected more hidden states in stacked_rnn");
  EMBER_CHECK(num_layers == static_cast<int64_t>(params.size()) / dirs,
              "Expected more weights in stacked_rnn");
  for (const Cell& c : params) EMBER_CHECK(c, "quantized RNN: a cell params object is null");
  Tensor x = input;
  std::vector<Hidden> finals;
  for (int64_t l = 0; l < num_layers; ++l) {
    std::vector<LayerOut> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const CellParamsDynamic& p = *params[l * dirs + d];
      const Hidden& h = hiddens[l * dirs + d];
      if (packed_bs) {
        outs.push_back(d == 0 ? packed_layer(x, *packed_bs, h, p)
                              : reversed_packed_layer(x, *packed_bs, h, p));
      } else {
        outs.push_back(full_layer(x, h, p, d == 1));
      }
      finals.push_back(outs.back().hidden);
    }
    x = dirs == 1 ? outs[0].output
                  : cat({outs[0].output, outs[1].output}, outs[0].output.dim() - 1);
    if (dropout_p != 0 && train && l < num_layers - 1) x = dropout(x, dropout_p, true);
  }
  return {x, finals};
}

void check_lstm_args(ArrayRef<Tensor> hx, bool has_biases, std::optional<ScalarType> dtype) {
  EMBER_CHECK(hx.size() == 2, "lstm expects two hidden states");
  EMBER_CHECK(hx[0].size(2) == hx[1].size(2), "quantized LSTM with projections is not supported");
  const ScalarType d = dtype.value_or(kInt8);
  EMBER_CHECK(has_biases, "quantized LSTM requires biases");
  EMBER_CHECK(d == kInt8 || d == kQInt8 || d == kFloat16, "dtype is not supported");
  // PyTorch runs float16 cells on fp16 packed weights (linear_prepack_fp16, FBGEMM only);
  // ember has no fp16 packed weights (neither has PyTorch 1.13's qnnpack / onednn build).
  EMBER_CHECK(d != kFloat16, "quantized LSTM: float16 weights are not supported by ember");
}

std::vector<Hidden> lstm_hiddens(ArrayRef<Tensor> hx) {
  auto hs = hx[0].unbind(0), cs = hx[1].unbind(0);
  std::vector<Hidden> r;
  for (size_t i = 0; i < hs.size(); ++i) r.push_back({hs[i], cs[i]});
  return r;
}

std::vector<Hidden> gru_hiddens(const Tensor& hx) {
  std::vector<Hidden> r;
  for (Tensor& h : hx.unbind(0)) r.push_back({h});
  return r;
}

Tensor stack_part(const std::vector<Hidden>& hs, size_t k) {
  std::vector<Tensor> ts;
  for (const Hidden& h : hs) ts.push_back(h[k]);
  return stack(ts, 0);
}

}  // namespace

// ---- frontends ----

Cell make_quantized_cell_params_dynamic(const Packed& w_ih, const Packed& w_hh,
                                        const Tensor& bias_ih, const Tensor& bias_hh,
                                        bool reduce_range) {
  return dispatch::call<&make_cell_params_impl>(OpId::quantized_make_quantized_cell_params_dynamic,
                                                w_ih, w_hh, bias_ih, bias_hh, reduce_range);
}
EMBER_REGISTER_OP(quantized_make_quantized_cell_params_dynamic,
                  &make_quantized_cell_params_dynamic);

std::tuple<Tensor, Tensor> quantized_lstm_cell_dynamic(const Tensor& input, ArrayRef<Tensor> hx,
                                                       const Packed& w_ih, const Packed& w_hh,
                                                       const Tensor& bias_ih,
                                                       const Tensor& bias_hh) {
  return dispatch::call<&lstm_cell_impl>(OpId::quantized_lstm_cell_dynamic, input, hx, w_ih,
                                         w_hh, bias_ih, bias_hh);
}
EMBER_REGISTER_OP(quantized_lstm_cell_dynamic, &quantized_lstm_cell_dynamic);

Tensor quantized_gru_cell_dynamic(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                                  const Packed& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return dispatch::call<&gru_cell_impl>(OpId::quantized_gru_cell_dynamic, input, hx, w_ih, w_hh,
                                        b_ih, b_hh);
}
EMBER_REGISTER_OP(quantized_gru_cell_dynamic, &quantized_gru_cell_dynamic);

Tensor quantized_rnn_relu_cell_dynamic(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                                       const Packed& w_hh, const Tensor& b_ih,
                                       const Tensor& b_hh) {
  return dispatch::call<&rnn_relu_cell_impl>(OpId::quantized_rnn_relu_cell_dynamic, input, hx,
                                             w_ih, w_hh, b_ih, b_hh);
}
EMBER_REGISTER_OP(quantized_rnn_relu_cell_dynamic, &quantized_rnn_relu_cell_dynamic);

Tensor quantized_rnn_tanh_cell_dynamic(const Tensor& input, const Tensor& hx, const Packed& w_ih,
                                       const Packed& w_hh, const Tensor& b_ih,
                                       const Tensor& b_hh) {
  return dispatch::call<&rnn_tanh_cell_impl>(OpId::quantized_rnn_tanh_cell_dynamic, input, hx,
                                             w_ih, w_hh, b_ih, b_hh);
}
EMBER_REGISTER_OP(quantized_rnn_tanh_cell_dynamic, &quantized_rnn_tanh_cell_dynamic);

std::tuple<Tensor, Tensor, Tensor> quantized_lstm(const Tensor& input, ArrayRef<Tensor> hx,
                                                  const CellParamsList& params, bool has_biases,
                                                  int64_t num_layers, double dropout, bool train,
                                                  bool bidirectional, bool batch_first,
                                                  std::optional<ScalarType> dtype,
                                                  bool /*use_dynamic*/) {
  check_lstm_args(hx, has_biases, dtype);
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  StackOut r = run_stack(x, nullptr, lstm_hiddens(hx), params, num_layers, dropout, train,
                         bidirectional);
  Tensor out = batch_first ? r.output.transpose(0, 1) : r.output;
  return {out, stack_part(r.hiddens, 0), stack_part(r.hiddens, 1)};
}

std::tuple<Tensor, Tensor, Tensor> quantized_lstm(const Tensor& data, const Tensor& batch_sizes,
                                                  ArrayRef<Tensor> hx, const CellParamsList& params,
                                                  bool has_biases, int64_t num_layers,
                                                  double dropout, bool train, bool bidirectional,
                                                  std::optional<ScalarType> dtype,
                                                  bool /*use_dynamic*/) {
  check_lstm_args(hx, has_biases, dtype);
  const std::vector<int64_t> bs = batch_sizes_of(batch_sizes);
  EMBER_CHECK(!bs.empty(), "Expected sequence length to be larger than 0 in RNN");
  StackOut r = run_stack(data, &bs, lstm_hiddens(hx), params, num_layers, dropout, train,
                         bidirectional);
  return {r.output, stack_part(r.hiddens, 0), stack_part(r.hiddens, 1)};
}

std::tuple<Tensor, Tensor> quantized_gru(const Tensor& input, const Tensor& hx,
                                         const CellParamsList& params, bool /*has_biases*/,
                                         int64_t num_layers, double dropout, bool train,
                                         bool bidirectional, bool batch_first) {
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  StackOut r = run_stack(x, nullptr, gru_hiddens(hx), params, num_layers, dropout, train,
                         bidirectional);
  Tensor out = batch_first ? r.output.transpose(0, 1) : r.output;
  return {out, stack_part(r.hiddens, 0)};
}

std::tuple<Tensor, Tensor> quantized_gru(const Tensor& data, const Tensor& batch_sizes,
                                         const Tensor& hx, const CellParamsList& params,
                                         bool /*has_biases*/, int64_t num_layers, double dropout,
                                         bool train, bool bidirectional) {
  const std::vector<int64_t> bs = batch_sizes_of(batch_sizes);
  EMBER_CHECK(!bs.empty(), "Expected sequence length to be larger than 0 in RNN");
  StackOut r = run_stack(data, &bs, gru_hiddens(hx), params, num_layers, dropout, train,
                         bidirectional);
  return {r.output, stack_part(r.hiddens, 0)};
}

}  // namespace ember::quantized
