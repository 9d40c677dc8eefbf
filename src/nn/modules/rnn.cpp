// nn::RNNBase / RNN / GRU / LSTM: PyTorch 1.13's modules (torch/nn/modules/rnn.py) with the
// recurrence of aten's _VF.lstm / gru / rnn_tanh written over ember's ops. Every sequence runs
// as packed data (a padded batch is packed data whose batch sizes are all B): one gemm makes
// every step's input gates, then each step runs the recurrent gemm and the fused gate kernel.
#include "ember/nn/modules/rnn.h"

#include <cmath>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/random.h"
#include "ember/ops/rnn.h"
#include "ember/ops/view.h"
#include "ember/warning.h"
#include "module_util.h"
#include "seq_util.h"

namespace ember::nn {

namespace F = functional;
using utils::rnn::PackedSequence;

namespace {

int64_t gate_count(const std::string& mode) {
  if (mode == "LSTM") return 4;
  if (mode == "GRU") return 3;
  if (mode == "RNN_TANH" || mode == "RNN_RELU") return 1;
  EMBER_CHECK_VALUE(false, "Unrecognized RNN mode: ", mode);
  return 0;
}

std::string shape_tuple(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string shape_list(IntArrayRef v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

bool fusable(const Tensor& t) {
  return (t.dtype() == kFloat32 || t.dtype() == kFloat64) && t.device().is_cpu();
}

}  // namespace

// ---- RNNBase ----

RNNBase::RNNBase(const std::string& mode_, const RNNOptions& o, const char* type_name)
    : Module(type_name),
      mode(mode_),
      input_size(o.input_size_),
      hidden_size(o.hidden_size_),
      num_layers(o.num_layers_),
      bias(o.bias_),
      batch_first(o.batch_first_),
      dropout(o.dropout_),
      bidirectional(o.bidirectional_),
      proj_size(o.proj_size_) {
  EMBER_CHECK_VALUE(dropout >= 0 && dropout <= 1,
                    "dropout should be a number in range [0, 1] representing the probability of "
                    "an element being zeroed");
  if (dropout > 0 && num_layers == 1) {
    warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
         "expects num_layers greater than 1, but got dropout=" + detail::py_float(dropout) +
         " and num_layers=" + std::to_string(num_layers));
  }
  EMBER_CHECK_VALUE(proj_size >= 0,
                    "proj_size should be a positive integer or zero to disable projections");
  EMBER_CHECK_VALUE(proj_size < hidden_size, "proj_size has to be smaller than hidden_size");
  const int64_t gate_size = gate_count(mode) * hidden_size;
  const int64_t D = bidirectional ? 2 : 1;
  const int64_t real_hidden = proj_size > 0 ? proj_size : hidden_size;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    for (int64_t dir = 0; dir < D; ++dir) {
      const int64_t layer_input = layer == 0 ? input_size : real_hidden * D;
      const std::string sfx = std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      register_parameter("weight_ih_l" + sfx, empty({gate_size, layer_input}, o.options_));
      register_parameter("weight_hh_l" + sfx, empty({gate_size, real_hidden}, o.options_));
      if (bias) {
        register_parameter("bias_ih_l" + sfx, empty({gate_size}, o.options_));
        register_parameter("bias_hh_l" + sfx, empty({gate_size}, o.options_));
      }
      if (proj_size > 0)
        register_parameter("weight_hr_l" + sfx, empty({proj_size, hidden_size}, o.options_));
    }
  }
  reset_parameters();
}

void RNNBase::reset_parameters() {
  const double stdv = hidden_size > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size)) : 0.0;
  for (auto& w : parameters()) init::uniform_(w, -stdv, stdv);
}

std::vector<std::vector<std::string>> RNNBase::all_weight_names() const {
  std::vector<std::vector<std::string>> out;
  const int64_t D = bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    for (int64_t dir = 0; dir < D; ++dir) {
      const std::string sfx = std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      std::vector<std::string> names{"weight_ih_l" + sfx, "weight_hh_l" + sfx};
      if (bias) names.insert(names.end(), {"bias_ih_l" + sfx, "bias_hh_l" + sfx});
      if (proj_size > 0) names.push_back("weight_hr_l" + sfx);
      out.push_back(names);
    }
  }
  return out;
}

std::vector<Tensor> RNNBase::flat_weights() {
  std::vector<Tensor> out;
  for (const auto& names : all_weight_names())
    for (const auto& n : names) out.push_back(has_parameter(n) ? parameter(n) : Tensor());
  return out;
}

std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (proj_size != 0) s += ", proj_size=" + std::to_string(proj_size);
  if (num_layers != 1) s += ", num_layers=" + std::to_string(num_layers);
  if (!bias) s += ", bias=False";
  if (batch_first) s += ", batch_first=True";
  if (dropout != 0) s += ", dropout=" + detail::py_float(dropout);
  if (bidirectional) s += ", bidirectional=True";
  return s;
}

void RNNBase::check_input(const Tensor& input, bool packed) const {
  const int64_t expected = packed ? 2 : 3;
  EMBER_CHECK(input.dim() == expected, "input must have ", expected, " dimensions, got ",
              input.dim());
  EMBER_CHECK(input.size(-1) == input_size,
              "input.size(-1) must be equal to input_size. Expected ", input_size, ", got ",
              input.size(-1));
}

std::vector<int64_t> RNNBase::expected_hidden(int64_t mini_batch, bool cell) const {
  const int64_t D = bidirectional ? 2 : 1;
  const int64_t h = !cell && proj_size > 0 ? proj_size : hidden_size;
  return {num_layers * D, mini_batch, h};
}

void RNNBase::check_hidden(const Tensor& hx, IntArrayRef expected, const char* msg) const {
  if (hx.sizes() == expected) return;
  std::string m = msg;
  m.replace(m.find("{}"), 2, shape_tuple(expected));
  m.replace(m.find("{}"), 2, shape_list(hx.sizes()));
  EMBER_CHECK(false, m);
}

// Note [The recurrence over packed data]
// data holds the time steps one after another, batch_sizes[t] rows at step t (decreasing). The
// forward direction starts from all B rows of hx and drops the finished sequences' rows as the
// batch shrinks (their final hidden state is put aside); the reverse direction walks back in
// time starting with the rows of the shortest step and takes each sequence's initial state
// from hx as the batch grows. A padded input is the case where every batch size is B.
std::tuple<Tensor, Tensor, Tensor> RNNBase::run(const Tensor& data_in,
                                                const std::vector<int64_t>& bs,
                                                const Tensor& hx, const Tensor& cx) {
  return detail::rnn_packed(mode, data_in, bs, hx, cx, flat_weights(), bias, num_layers, dropout,
                            is_training(), bidirectional, proj_size > 0);
}

std::tuple<Tensor, Tensor, Tensor> detail::rnn_packed(const std::string& mode, const Tensor& data_in,
                                                      const std::vector<int64_t>& bs, const Tensor& hx,
                                                      const Tensor& cx, const std::vector<Tensor>& weights,
                                                      bool bias, int64_t num_layers, double dropout,
                                                      bool train, bool bidirectional, bool has_proj) {
  const bool lstm = mode == "LSTM", gru = mode == "GRU";
  const int64_t D = bidirectional ? 2 : 1, T = static_cast<int64_t>(bs.size());
  const size_t per = weights.size() / static_cast<size_t>(num_layers * D);
  Tensor layer_input = data_in;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> dir_out;
    for (int64_t dir = 0; dir < D; ++dir) {
      const size_t base = static_cast<size_t>(layer * D + dir) * per;
      const Tensor& w_ih = weights[base];
      const Tensor& w_hh = weights[base + 1];
      const std::optional<Tensor> b_ih = bias ? std::optional<Tensor>(weights[base + 2]) : std::nullopt;
      const std::optional<Tensor> b_hh = bias ? std::optional<Tensor>(weights[base + 3]) : std::nullopt;
      const Tensor w_hr = has_proj ? weights[base + (bias ? 4 : 2)] : Tensor();
      const Tensor w_hh_t = w_hh.t();
      // Every step's input gates in one gemm (with b_ih).
      const Tensor igates = F::linear(layer_input, w_ih, b_ih);
      // One split (not a narrow per step): its backward concatenates the steps' gradients once,
      // where T narrows would each scatter into a zero tensor of the whole sequence.
      const std::vector<Tensor> step_gates = split_with_sizes(igates, bs, 0);
      const Tensor h0 = hx.select(0, layer * D + dir);
      const Tensor c0 = lstm ? cx.select(0, layer * D + dir) : Tensor();
      std::vector<Tensor> outs(T);
      auto step = [&](int64_t t, const Tensor& h, const Tensor& c, Tensor& h1, Tensor& c1) {
        const Tensor& ig = step_gates[t];
        if (lstm) {
          const Tensor hg = matmul(h, w_hh_t);
          if (fusable(ig)) {
            auto [hy, cy, ws] = _thnn_fused_lstm_cell(ig, hg, c, std::nullopt, b_hh);
            h1 = hy, c1 = cy;
          } else {
            auto g = (b_hh ? ig + hg + *b_hh : ig + hg).chunk(4, 1);
            c1 = g[1].sigmoid() * c + g[0].sigmoid() * g[2].tanh();
            h1 = g[3].sigmoid() * c1.tanh();
          }
          if (w_hr.defined()) h1 = matmul(h1, w_hr.t());
        } else if (gru) {
          const Tensor hg = matmul(h, w_hh_t);
          if (fusable(ig)) {
            h1 = std::get<0>(_thnn_fused_gru_cell(ig, hg, h, std::nullopt, b_hh));
          } else {
            auto gi = ig.chunk(3, 1);
            auto gh = (b_hh ? hg + *b_hh : hg).chunk(3, 1);
            const Tensor r = (gi[0] + gh[0]).sigmoid(), z = (gi[1] + gh[1]).sigmoid();
            const Tensor n = (gi[2] + r * gh[2]).tanh();
            h1 = n + z * (h - n);
          }
        } else {
          // PyTorch's SimpleCell: linear_hh(h) + igates, b_hh inside the linear (so under CPU
          // autocast, where linear runs in bfloat16, the step stays bfloat16 as there).
          const Tensor pre = F::linear(h, w_hh, b_hh) + ig;
          h1 = mode == "RNN_TANH" ? pre.tanh() : F::relu(pre);
        }
      };
      Tensor h, c;
      if (dir == 0) {
        h = h0, c = c0;
        std::vector<Tensor> done_h, done_c;  // finished rows, latest first at the end
        int64_t cur = h0.size(0);
        for (int64_t t = 0; t < T; ++t) {
          if (bs[t] < cur) {
            done_h.push_back(h.narrow(0, bs[t], cur - bs[t]));
            if (lstm) done_c.push_back(c.narrow(0, bs[t], cur - bs[t]));
            h = h.narrow(0, 0, bs[t]);
            if (lstm) c = c.narrow(0, 0, bs[t]);
            cur = bs[t];
          }
          Tensor h1, c1;
          step(t, h, c, h1, c1);
          outs[t] = h1;
          h = h1, c = c1;
        }
        std::vector<Tensor> hs{h}, cs{c};
        for (auto it = done_h.rbegin(); it != done_h.rend(); ++it) hs.push_back(*it);
        for (auto it = done_c.rbegin(); it != done_c.rend(); ++it) cs.push_back(*it);
        h_n.push_back(hs.size() == 1 ? h : cat(hs, 0));
        if (lstm) c_n.push_back(cs.size() == 1 ? c : cat(cs, 0));
      } else {
        const int64_t last = bs[T - 1];
        h = h0.narrow(0, 0, last);
        if (lstm) c = c0.narrow(0, 0, last);
        for (int64_t t = T - 1; t >= 0; --t) {
          const int64_t cur = h.size(0);
          if (bs[t] > cur) {
            h = cat({h, h0.narrow(0, cur, bs[t] - cur)}, 0);
            if (lstm) c = cat({c, c0.narrow(0, cur, bs[t] - cur)}, 0);
          }
          Tensor h1, c1;
          step(t, h, c, h1, c1);
          outs[t] = h1;
          h = h1, c = c1;
        }
        h_n.push_back(h);
        if (lstm) c_n.push_back(c);
      }
      dir_out.push_back(T == 1 ? outs[0] : cat(outs, 0));
    }
    Tensor out = D == 1 ? dir_out[0] : cat(dir_out, 1);
    if (dropout > 0 && train && layer + 1 < num_layers) out = ember::dropout(out, dropout, true);
    layer_input = out;
  }
  return {layer_input, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
}

std::tuple<Tensor, Tensor> RNNBase::forward_single(const Tensor& input_in,
                                                   const std::optional<Tensor>& hx_in) {
  const bool is_batched = input_in.dim() == 3;
  const int64_t batch_dim = batch_first ? 0 : 1;
  Tensor input = input_in;
  std::optional<Tensor> hx = hx_in;
  if (!is_batched) {
    input = input.unsqueeze(batch_dim);
    if (hx) {
      EMBER_CHECK(hx->dim() == 2, "For unbatched 2-D input, hx should also be 2-D but got ",
                  hx->dim(), "-D tensor");
      hx = hx->unsqueeze(1);
    }
  } else if (hx) {
    EMBER_CHECK(hx->dim() == 3, "For batched 3-D input, hx should also be 3-D but got ",
                hx->dim(), "-D tensor");
  }
  const int64_t B = input.size(batch_dim);
  Tensor h = hx ? *hx
                : zeros(expected_hidden(B, false), TensorOptions(input.dtype()).device(input.device()));
  check_input(input, false);
  check_hidden(h, expected_hidden(B, false), "Expected hidden size {}, got {}");
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0);
  auto [out, hn, cn] = run(x.reshape({T * B, input_size}), std::vector<int64_t>(T, B), h, Tensor());
  Tensor output = out.view({T, B, out.size(1)});
  if (batch_first) output = output.transpose(0, 1);
  if (!is_batched) return {output.squeeze(batch_dim), hn.squeeze(1)};
  return {output, hn};
}

namespace {
std::vector<int64_t> batch_size_values(const Tensor& bs) {
  const Tensor c = bs.to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}
Tensor permute(const Tensor& hx, const Tensor& perm) {
  return perm.defined() ? index_select(hx, 1, perm) : hx;
}
}  // namespace

std::tuple<PackedSequence, Tensor> RNNBase::forward_single_packed(const PackedSequence& input,
                                                                  const std::optional<Tensor>& hx) {
  const std::vector<int64_t> bs = batch_size_values(input.batch_sizes);
  EMBER_CHECK(!bs.empty(), "PackedSequence with no time steps");
  const Tensor& data = input.data;
  Tensor h = hx ? permute(*hx, input.sorted_indices)
                : zeros(expected_hidden(bs[0], false), TensorOptions(data.dtype()).device(data.device()));
  check_input(data, true);
  check_hidden(h, expected_hidden(bs[0], false), "Expected hidden size {}, got {}");
  auto [out, hn, cn] = run(data, bs, h, Tensor());
  PackedSequence p{out, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  return {p, permute(hn, input.unsorted_indices)};
}

// ---- RNN, GRU, LSTM ----

namespace {
std::string rnn_mode(const std::string& nonlinearity) {
  if (nonlinearity == "tanh") return "RNN_TANH";
  EMBER_CHECK_VALUE(nonlinearity == "relu", "Unknown nonlinearity '", nonlinearity, "'");
  return "RNN_RELU";
}
RNNOptions no_proj(const RNNOptions& o) {
  EMBER_CHECK_VALUE(o.proj_size_ == 0, "proj_size argument is only supported for LSTM, not RNN or GRU");
  return o;
}
}  // namespace

RNN::RNN(const RNNOptions& o)
    : RNNBase(rnn_mode(o.nonlinearity_), no_proj(o), "RNN"), nonlinearity(o.nonlinearity_) {}

Value RNN::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  auto [out, h] = forward_single(in[0].to_tensor(), detail::value_opt_tensor(in, 1));
  return Value(std::vector<Tensor>{out, h});
}

GRU::GRU(const RNNOptions& o) : RNNBase("GRU", no_proj(o), "GRU") {}

Value GRU::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  auto [out, h] = forward_single(in[0].to_tensor(), detail::value_opt_tensor(in, 1));
  return Value(std::vector<Tensor>{out, h});
}

LSTM::LSTM(const RNNOptions& o) : RNNBase("LSTM", o, "LSTM") {}

std::tuple<Tensor, LSTM::State> LSTM::forward(const Tensor& input_in, const std::optional<State>& hx_in) {
  const bool is_batched = input_in.dim() == 3;
  const int64_t batch_dim = batch_first ? 0 : 1;
  const Tensor input = is_batched ? input_in : input_in.unsqueeze(batch_dim);
  const int64_t B = input.size(batch_dim);
  Tensor h, c;
  if (!hx_in) {
    const TensorOptions o = TensorOptions(input.dtype()).device(input.device());
    h = zeros(expected_hidden(B, false), o);
    c = zeros(expected_hidden(B, true), o);
  } else {
    h = std::get<0>(*hx_in), c = std::get<1>(*hx_in);
    if (is_batched) {
      EMBER_CHECK(h.dim() == 3 && c.dim() == 3,
                  "For batched 3-D input, hx and cx should also be 3-D but got (", h.dim(),
                  "-D, ", c.dim(), "-D) tensors");
    } else {
      EMBER_CHECK(h.dim() == 2 && c.dim() == 2,
                  "For unbatched 2-D input, hx and cx should also be 2-D but got (", h.dim(),
                  "-D, ", c.dim(), "-D) tensors");
      h = h.unsqueeze(1), c = c.unsqueeze(1);
    }
  }
  check_input(input, false);
  check_hidden(h, expected_hidden(B, false), "Expected hidden[0] size {}, got {}");
  check_hidden(c, expected_hidden(B, true), "Expected hidden[1] size {}, got {}");
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0);
  auto [out, hn, cn] = run(x.reshape({T * B, input_size}), std::vector<int64_t>(T, B), h, c);
  Tensor output = out.view({T, B, out.size(1)});
  if (batch_first) output = output.transpose(0, 1);
  if (!is_batched) return {output.squeeze(batch_dim), State{hn.squeeze(1), cn.squeeze(1)}};
  return {output, State{hn, cn}};
}

std::tuple<PackedSequence, LSTM::State> LSTM::forward_packed(const PackedSequence& input,
                                                             const std::optional<State>& hx) {
  const std::vector<int64_t> bs = batch_size_values(input.batch_sizes);
  EMBER_CHECK(!bs.empty(), "PackedSequence with no time steps");
  const Tensor& data = input.data;
  Tensor h, c;
  if (hx) {
    h = permute(std::get<0>(*hx), input.sorted_indices);
    c = permute(std::get<1>(*hx), input.sorted_indices);
  } else {
    const TensorOptions o = TensorOptions(data.dtype()).device(data.device());
    h = zeros(expected_hidden(bs[0], false), o);
    c = zeros(expected_hidden(bs[0], true), o);
  }
  check_input(data, true);
  check_hidden(h, expected_hidden(bs[0], false), "Expected hidden[0] size {}, got {}");
  check_hidden(c, expected_hidden(bs[0], true), "Expected hidden[1] size {}, got {}");
  auto [out, hn, cn] = run(data, bs, h, c);
  PackedSequence p{out, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  return {p, State{permute(hn, input.unsorted_indices), permute(cn, input.unsorted_indices)}};
}

Value LSTM::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  std::optional<State> hx;
  if (in.size() > 1 && !in[1].is_none()) {
    const auto& l = in[1].to_tensor_list();
    EMBER_CHECK(l.size() == 2, "LSTM: hx must be a pair (h_0, c_0)");
    hx = State{l[0], l[1]};
  }
  auto [out, hc] = forward(in[0].to_tensor(), hx);
  return Value(std::vector<Tensor>{out, std::get<0>(hc), std::get<1>(hc)});
}

// ---- cells ----

RNNCellBase::RNNCellBase(const char* type_name, int64_t input_size_, int64_t hidden_size_,
                         bool bias_, int64_t num_chunks, TensorOptions options)
    : Module(type_name), input_size(input_size_), hidden_size(hidden_size_), bias(bias_) {
  register_parameter("weight_ih", empty({num_chunks * hidden_size, input_size}, options));
  register_parameter("weight_hh", empty({num_chunks * hidden_size, hidden_size}, options));
  register_parameter("bias_ih", bias ? empty({num_chunks * hidden_size}, options) : Tensor());
  register_parameter("bias_hh", bias ? empty({num_chunks * hidden_size}, options) : Tensor());
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  const double stdv = hidden_size > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size)) : 0.0;
  for (auto& w : parameters()) init::uniform_(w, -stdv, stdv);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!bias) s += ", bias=False";
  return s;
}

bool RNNCellBase::check_batched(const Tensor& input, const char* cell) const {
  EMBER_CHECK_ASSERTION(input.dim() == 1 || input.dim() == 2, cell,
                    ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
  return input.dim() == 2;
}

namespace {
std::optional<Tensor> opt_param(Module& m, const char* name) {
  return detail::optional_tensor(m.parameter(name));
}
}  // namespace

RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, bool bias, std::string nonlinearity_,
                 TensorOptions options)
    : RNNCellBase("RNNCell", input_size, hidden_size, bias, 1, options),
      nonlinearity(std::move(nonlinearity_)) {}

Tensor RNNCell::forward(const Tensor& input_in, const std::optional<Tensor>& hx_in) {
  const bool batched = check_batched(input_in, "RNNCell");
  const Tensor input = batched ? input_in : input_in.unsqueeze(0);
  const Tensor hx = hx_in ? (batched ? *hx_in : hx_in->unsqueeze(0))
                          : zeros({input.size(0), hidden_size},
                                  TensorOptions(input.dtype()).device(input.device()));
  Tensor ret;
  if (nonlinearity == "tanh") {
    ret = rnn_tanh_cell(input, hx, parameter("weight_ih"), parameter("weight_hh"),
                        opt_param(*this, "bias_ih"), opt_param(*this, "bias_hh"));
  } else {
    EMBER_CHECK(nonlinearity == "relu", "Unknown nonlinearity: ", nonlinearity);
    ret = rnn_relu_cell(input, hx, parameter("weight_ih"), parameter("weight_hh"),
                        opt_param(*this, "bias_ih"), opt_param(*this, "bias_hh"));
  }
  return batched ? ret : ret.squeeze(0);
}

Value RNNCell::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  return forward(in[0].to_tensor(), detail::value_opt_tensor(in, 1));
}

std::string RNNCell::extra_repr() const {
  std::string s = RNNCellBase::extra_repr();
  if (nonlinearity != "tanh") s += ", nonlinearity=" + nonlinearity;
  return s;
}

GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, bool bias, TensorOptions options)
    : RNNCellBase("GRUCell", input_size, hidden_size, bias, 3, options) {}

Tensor GRUCell::forward(const Tensor& input_in, const std::optional<Tensor>& hx_in) {
  const bool batched = check_batched(input_in, "GRUCell");
  const Tensor input = batched ? input_in : input_in.unsqueeze(0);
  const Tensor hx = hx_in ? (batched ? *hx_in : hx_in->unsqueeze(0))
                          : zeros({input.size(0), hidden_size},
                                  TensorOptions(input.dtype()).device(input.device()));
  Tensor ret = gru_cell(input, hx, parameter("weight_ih"), parameter("weight_hh"),
                        opt_param(*this, "bias_ih"), opt_param(*this, "bias_hh"));
  return batched ? ret : ret.squeeze(0);
}

Value GRUCell::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  return forward(in[0].to_tensor(), detail::value_opt_tensor(in, 1));
}

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, bool bias, TensorOptions options)
    : RNNCellBase("LSTMCell", input_size, hidden_size, bias, 4, options) {}

std::tuple<Tensor, Tensor> LSTMCell::forward(const Tensor& input_in,
                                             const std::optional<std::tuple<Tensor, Tensor>>& hx) {
  const bool batched = check_batched(input_in, "LSTMCell");
  const Tensor input = batched ? input_in : input_in.unsqueeze(0);
  Tensor h, c;
  if (hx) {
    h = batched ? std::get<0>(*hx) : std::get<0>(*hx).unsqueeze(0);
    c = batched ? std::get<1>(*hx) : std::get<1>(*hx).unsqueeze(0);
  } else {
    h = zeros({input.size(0), hidden_size}, TensorOptions(input.dtype()).device(input.device()));
    c = h;
  }
  auto [hy, cy] = lstm_cell(input, std::vector<Tensor>{h, c}, parameter("weight_ih"),
                            parameter("weight_hh"), opt_param(*this, "bias_ih"),
                            opt_param(*this, "bias_hh"));
  if (!batched) return {hy.squeeze(0), cy.squeeze(0)};
  return {hy, cy};
}

Value LSTMCell::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  std::optional<std::tuple<Tensor, Tensor>> hx;
  if (in.size() > 1 && !in[1].is_none()) {
    const auto& l = in[1].to_tensor_list();
    EMBER_CHECK(l.size() == 2, "LSTMCell: hx must be a pair (h_0, c_0)");
    hx = std::make_tuple(l[0], l[1]);
  }
  auto [h, c] = forward(in[0].to_tensor(), hx);
  return Value(std::vector<Tensor>{h, c});
}

namespace {
const bool registered = [] {
  register_cloneable<RNN>();
  register_cloneable<GRU>();
  register_cloneable<LSTM>();
  register_cloneable<RNNCell>();
  register_cloneable<GRUCell>();
  register_cloneable<LSTMCell>();
  return true;
}();
}  // namespace

}  // namespace ember::nn
