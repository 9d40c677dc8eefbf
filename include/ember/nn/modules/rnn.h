// torch.nn.RNN / LSTM / GRU and RNNCell / LSTMCell / GRUCell: PyTorch 1.13's parameters (names
// weight_ih_l0, weight_hh_l0_reverse, bias_ih_l1, weight_hr_l0 ... in its order), initialisation
// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), reprs, checks and error texts. Sequences run
// time step by time step: one gemm for every step's input gates, then per step the recurrent
// gemm and the fused gate kernel (aten::_thnn_fused_lstm_cell / _thnn_fused_gru_cell).
//
//   auto lstm = std::make_shared<nn::LSTM>(nn::RNNOptions(10, 20).num_layers(2));
//   auto [out, hc] = lstm->forward(x);                       // x [T, B, 10]
//   auto [packed_out, hc2] = lstm->forward_packed(nn::utils::rnn::pack_sequence(seqs, false));
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/nn/utils/rnn.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// The constructor arguments of RNNBase (PyTorch's names and defaults); LSTMOptions and
/// GRUOptions are the same struct (nonlinearity is RNN's only). o.num_layers(2) sets,
/// o.num_layers() reads.
struct RNNOptions {
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
#define EMBER_RNN_OPT(T, name)                      \
  RNNOptions& name(T v) {                           \
    name##_ = v;                                    \
    return *this;                                   \
  }                                                 \
  const T& name() const { return name##_; }         \
  T name##_
  int64_t input_size_;
  int64_t hidden_size_;
  EMBER_RNN_OPT(int64_t, num_layers) = 1;
  EMBER_RNN_OPT(bool, bias) = true;
  EMBER_RNN_OPT(bool, batch_first) = false;
  EMBER_RNN_OPT(double, dropout) = 0.0;
  EMBER_RNN_OPT(bool, bidirectional) = false;
  EMBER_RNN_OPT(int64_t, proj_size) = 0;
  /// RNN only: "tanh" or "relu".
  EMBER_RNN_OPT(std::string, nonlinearity) = "tanh";
  EMBER_RNN_OPT(TensorOptions, options) = {};
#undef EMBER_RNN_OPT
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
};
using LSTMOptions = RNNOptions;
using GRUOptions = RNNOptions;

/// RNNCell / LSTMCell / GRUCell's arguments (libtorch's RNNCellOptions; nonlinearity is
/// RNNCell's only).
struct RNNCellOptions {
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(std::string, nonlinearity) = "tanh";
  EMBER_ARG(TensorOptions, options) = {};
};
using LSTMCellOptions = RNNCellOptions;
using GRUCellOptions = RNNCellOptions;

namespace detail {
/// The recurrence of RNNBase::run over given weights (aten's lstm / gru / rnn_tanh / rnn_relu
/// entry points use it too): `weights` per (layer, direction) in PyTorch's _flat_weights order,
/// [w_ih, w_hh, (b_ih, b_hh), (w_hr)].
std::tuple<Tensor, Tensor, Tensor> rnn_packed(const std::string& mode, const Tensor& data,
                                              const std::vector<int64_t>& batch_sizes,
                                              const Tensor& hx, const Tensor& cx,
                                              const std::vector<Tensor>& weights, bool has_biases,
                                              int64_t num_layers, double dropout, bool train,
                                              bool bidirectional, bool has_proj);
}  // namespace detail

/// The multi-layer recurrences; `mode` is "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
class RNNBase : public Module {
 public:
  RNNBase(const std::string& mode, const RNNOptions& options, const char* type_name);
  void reset_parameters();
  /// A no-op (ember keeps no flat weight buffer), kept for PyTorch's API.
  void flatten_parameters() {}
  std::string extra_repr() const override;
  /// The parameters of each layer and direction, by name (PyTorch's _all_weights).
  std::vector<std::vector<std::string>> all_weight_names() const;
  /// The parameters in PyTorch's _flat_weights order.
  std::vector<Tensor> flat_weights();

  /// The recurrence on time-major packed data [N, input_size] with batch_sizes: returns the
  /// output data [N, D * H_out], h_n and (LSTM) c_n. hx [L * D, B, H_out] (cx [L * D, B, H]).
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& data, const std::vector<int64_t>& batch_sizes,
                                         const Tensor& hx, const Tensor& cx);

  std::string mode;
  int64_t input_size;
  int64_t hidden_size;
  int64_t num_layers;
  bool bias;
  bool batch_first;
  double dropout;
  bool bidirectional;
  int64_t proj_size;

 protected:
  /// Shape checks of check_forward_args (and LSTM's cell check).
  void check_input(const Tensor& input, bool packed) const;
  void check_hidden(const Tensor& hx, IntArrayRef expected, const char* msg) const;
  std::vector<int64_t> expected_hidden(int64_t mini_batch, bool cell) const;
  /// forward for RNN / GRU (tensor input, batch_first / unbatched handled).
  std::tuple<Tensor, Tensor> forward_single(const Tensor& input, const std::optional<Tensor>& hx);
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_single_packed(
      const utils::rnn::PackedSequence& input, const std::optional<Tensor>& hx);
};

class RNN : public RNNBase {
 public:
  /// nonlinearity "tanh" or "relu" (ValueError "Unknown nonlinearity 'x'" otherwise).
  explicit RNN(const RNNOptions& options);
  RNN(int64_t input_size, int64_t hidden_size) : RNN(RNNOptions(input_size, hidden_size)) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt) {
    return forward_single(input, hx);
  }
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_packed(
      const utils::rnn::PackedSequence& input, const std::optional<Tensor>& hx = std::nullopt) {
    return forward_single_packed(input, hx);
  }
  /// (input, hx=None) -> (output, h_n)
  Value forward(const std::vector<Value>& inputs) override;
  /// As PyTorch 1.13's RNN, the repr does not show the nonlinearity (RNNCell's does).
  std::string nonlinearity;
};

class GRU : public RNNBase {
 public:
  explicit GRU(const RNNOptions& options);
  GRU(int64_t input_size, int64_t hidden_size) : GRU(RNNOptions(input_size, hidden_size)) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt) {
    return forward_single(input, hx);
  }
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_packed(
      const utils::rnn::PackedSequence& input, const std::optional<Tensor>& hx = std::nullopt) {
    return forward_single_packed(input, hx);
  }
  Value forward(const std::vector<Value>& inputs) override;
};

class LSTM : public RNNBase {
 public:
  using State = std::tuple<Tensor, Tensor>;
  explicit LSTM(const RNNOptions& options);
  LSTM(int64_t input_size, int64_t hidden_size) : LSTM(RNNOptions(input_size, hidden_size)) {}
  std::tuple<Tensor, State> forward(const Tensor& input, const std::optional<State>& hx = std::nullopt);
  std::tuple<utils::rnn::PackedSequence, State> forward_packed(
      const utils::rnn::PackedSequence& input, const std::optional<State>& hx = std::nullopt);
  /// (input, hx=None) -> [output, h_n, c_n] (the Python binding nests PyTorch's tuples).
  Value forward(const std::vector<Value>& inputs) override;
};

/// RNNCell / LSTMCell / GRUCell: weight_ih [G, input], weight_hh [G, hidden], bias_ih, bias_hh.
class RNNCellBase : public Module {
 public:
  RNNCellBase(const char* type_name, int64_t input_size, int64_t hidden_size, bool bias,
              int64_t num_chunks, TensorOptions options);
  void reset_parameters();
  std::string extra_repr() const override;
  int64_t input_size;
  int64_t hidden_size;
  bool bias;

 protected:
  /// Unbatched 1-d or batched 2-d input, PyTorch's texts.
  bool check_batched(const Tensor& input, const char* cell) const;
};

class RNNCell : public RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true,
          std::string nonlinearity = "tanh", TensorOptions options = {});
  explicit RNNCell(const RNNCellOptions& o)
      : RNNCell(o.input_size(), o.hidden_size(), o.bias(), o.nonlinearity(), o.options()) {}
  Tensor forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  std::string nonlinearity;
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true, TensorOptions options = {});
  explicit GRUCell(const RNNCellOptions& o)
      : GRUCell(o.input_size(), o.hidden_size(), o.bias(), o.options()) {}
  Tensor forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true, TensorOptions options = {});
  explicit LSTMCell(const RNNCellOptions& o)
      : LSTMCell(o.input_size(), o.hidden_size(), o.bias(), o.options()) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  /// (input, hx=None) with hx a pair [h, c] -> [h', c'].
  Value forward(const std::vector<Value>& inputs) override;
};

}  // namespace ember::nn
