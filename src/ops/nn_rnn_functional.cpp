// torch.gru / lstm / rnn_tanh / rnn_relu (.input and .data) over the recurrence nn.RNN / LSTM /
// GRU run (nn::detail::rnn_packed, src/nn/modules/rnn.cpp), so autograd records the same cells.
// A padded input [T, B, I] (or [B, T, I] with batch_first) is packed data whose batch sizes are
// all B (Note [The recurrence over packed data]).
//
// They are Composite rows, as in PyTorch (CompositeImplicitAutograd): they run with autograd
// through the ops they call, and __torch_function__ sees aten::gru.input etc. (Until session 11
// they, fractional max pooling and grid_sampler_3d were bound to Python without op rows.)
#include "ember/ops/rnn_functional.h"

#include <string>
#include <vector>

#include "ember/nn/modules/rnn.h"

#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

// A projection (LSTM's proj_size) shows as a fifth (with biases) or third weight per layer.
bool has_projection(size_t n_params, bool has_biases, int64_t num_layers, bool bidirectional) {
  const size_t groups = static_cast<size_t>(num_layers * (bidirectional ? 2 : 1));
  EMBER_CHECK(groups > 0 && n_params % groups == 0, "rnn: expected ", groups,
              " groups of parameters, got ", n_params, " parameters");
  const size_t per = n_params / groups, plain = has_biases ? 4 : 2;
  EMBER_CHECK(per == plain || per == plain + 1, "rnn: expected ", plain, " parameters per layer",
              has_biases ? " (with biases)" : "", ", got ", per);
  return per == plain + 1;
}

std::tuple<Tensor, Tensor, Tensor> run_input(const char* mode, const Tensor& input, const Tensor& hx,
                                             const Tensor& cx, ArrayRef<Tensor> params, bool has_biases,
                                             int64_t num_layers, double dropout, bool train,
                                             bool bidirectional, bool batch_first) {
  EMBER_CHECK(input.dim() == 3, "rnn: expected input with 3 dimensions (seq, batch, feature), got ",
              input.dim());
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0), B = x.size(1);
  const std::vector<Tensor> weights(params.begin(), params.end());
  auto [out, hn, cn] = nn::detail::rnn_packed(
      mode, x.reshape({T * B, x.size(2)}), std::vector<int64_t>(static_cast<size_t>(T), B), hx, cx, weights,
      has_biases, num_layers, dropout, train, bidirectional,
      has_projection(weights.size(), has_biases, num_layers, bidirectional));
  Tensor output = out.view({T, B, out.size(1)});
  if (batch_first) output = output.transpose(0, 1);
  return {output, hn, cn};
}

std::tuple<Tensor, Tensor, Tensor> run_data(const char* mode, const Tensor& data, const Tensor& batch_sizes,
                                            const Tensor& hx, const Tensor& cx, ArrayRef<Tensor> params,
                                            bool has_biases, int64_t num_layers, double dropout, bool train,
                                            bool bidirectional) {
  EMBER_CHECK(batch_sizes.dim() == 1 && !is_floating(batch_sizes.dtype()),
              "rnn: batch_sizes must be a 1-d integer tensor");
  const Tensor bs = batch_sizes.to(kInt64).contiguous();
  const std::vector<int64_t> sizes(bs.data_ptr<int64_t>(), bs.data_ptr<int64_t>() + bs.numel());
  EMBER_CHECK(!sizes.empty(), "PackedSequence with no time steps");
  const std::vector<Tensor> weights(params.begin(), params.end());
  return nn::detail::rnn_packed(mode, data, sizes, hx, cx, weights, has_biases, num_layers, dropout, train,
                                bidirectional, has_projection(weights.size(), has_biases, num_layers, bidirectional));
}

}  // namespace

// The two overloads' function types (for picking one in EMBER_REGISTER_OP).
using RnnInputFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, ArrayRef<Tensor>, bool, int64_t,
                                                  double, bool, bool, bool);
using RnnDataFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, const Tensor&, ArrayRef<Tensor>, bool,
                                                 int64_t, double, bool, bool);

#define EMBER_RNN_FUNCTIONAL(name, Mode)                                                                 \
  namespace {                                                                                           \
  std::tuple<Tensor, Tensor> name##_input_impl(const Tensor& input, const Tensor& hx, ArrayRef<Tensor> params, \
                                               bool has_biases, int64_t num_layers, double dropout,     \
                                               bool train, bool bidirectional, bool batch_first) {      \
    auto [out, hn, cn] = run_input(Mode, input, hx, Tensor(), params, has_biases, num_layers, dropout,    \
                                   train, bidirectional, batch_first);                                  \
    return {out, hn};                                                                                   \
  }                                                                                                     \
  std::tuple<Tensor, Tensor> name##_data_impl(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx, \
                                              ArrayRef<Tensor> params, bool has_biases, int64_t num_layers, \
                                              double dropout, bool train, bool bidirectional) {         \
    auto [out, hn, cn] = run_data(Mode, data, batch_sizes, hx, Tensor(), params, has_biases, num_layers,  \
                                  dropout, train, bidirectional);                                       \
    return {out, hn};                                                                                   \
  }                                                                                                     \
  }                                                                                                     \
  std::tuple<Tensor, Tensor> name(const Tensor& input, const Tensor& hx, ArrayRef<Tensor> params,       \
                                  bool has_biases, int64_t num_layers, double dropout, bool train,      \
                                  bool bidirectional, bool batch_first) {                               \
    return dispatch::call<name##_input_impl>(OpId::name##_input, input, hx, params, has_biases, num_layers, \
                                             dropout, train, bidirectional, batch_first);               \
  }                                                                                                     \
  std::tuple<Tensor, Tensor> name(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,      \
                                  ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,         \
                                  double dropout, bool train, bool bidirectional) {                     \
    return dispatch::call<name##_data_impl>(OpId::name##_data, data, batch_sizes, hx, params, has_biases, \
                                            num_layers, dropout, train, bidirectional);                 \
  }                                                                                                     \
  EMBER_REGISTER_OP(name##_input, static_cast<RnnInputFn>(&name));                                     \
  EMBER_REGISTER_OP(name##_data, static_cast<RnnDataFn>(&name));
EMBER_RNN_FUNCTIONAL(gru, "GRU")
EMBER_RNN_FUNCTIONAL(rnn_tanh, "RNN_TANH")
EMBER_RNN_FUNCTIONAL(rnn_relu, "RNN_RELU")
#undef EMBER_RNN_FUNCTIONAL

namespace {
void check_lstm_hx(ArrayRef<Tensor> hx) {
  EMBER_CHECK(hx.size() == 2, "lstm: expected two hidden states (h_0, c_0), got ", hx.size());
}

std::tuple<Tensor, Tensor, Tensor> lstm_input_impl(const Tensor& input, ArrayRef<Tensor> hx, ArrayRef<Tensor> params,
                                                   bool has_biases, int64_t num_layers, double dropout, bool train,
                                                   bool bidirectional, bool batch_first) {
  check_lstm_hx(hx);
  return run_input("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first);
}
std::tuple<Tensor, Tensor, Tensor> lstm_data_impl(const Tensor& data, const Tensor& batch_sizes, ArrayRef<Tensor> hx,
                                                  ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,
                                                  double dropout, bool train, bool bidirectional) {
  check_lstm_hx(hx);
  return run_data("LSTM", data, batch_sizes, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                  bidirectional);
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, ArrayRef<Tensor> hx, ArrayRef<Tensor> params,
                                        bool has_biases, int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first) {
  return dispatch::call<lstm_input_impl>(OpId::lstm_input, input, hx, params, has_biases, num_layers, dropout,
                                         train, bidirectional, batch_first);
}
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes, ArrayRef<Tensor> hx,
                                        ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,
                                        double dropout, bool train, bool bidirectional) {
  return dispatch::call<lstm_data_impl>(OpId::lstm_data, data, batch_sizes, hx, params, has_biases, num_layers,
                                        dropout, train, bidirectional);
}

using LstmInputFn = std::tuple<Tensor, Tensor, Tensor> (*)(const Tensor&, ArrayRef<Tensor>, ArrayRef<Tensor>, bool,
                                                            int64_t, double, bool, bool, bool);
using LstmDataFn = std::tuple<Tensor, Tensor, Tensor> (*)(const Tensor&, const Tensor&, ArrayRef<Tensor>,
                                                           ArrayRef<Tensor>, bool, int64_t, double, bool, bool);
EMBER_REGISTER_OP(lstm_input, static_cast<LstmInputFn>(&lstm));
EMBER_REGISTER_OP(lstm_data, static_cast<LstmDataFn>(&lstm));

}  // namespace ember
