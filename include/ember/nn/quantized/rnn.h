// torch.ao.nn.quantized.dynamic's recurrent modules: LSTM and GRU (DynamicQuantizedLSTM / GRU)
// and the cells RNNCell, LSTMCell, GRUCell, float in and out, qint8 weights packed for
// quantized::linear_dynamic (ember/quantized/rnn.h). State as PyTorch 1.13 lays it out:
//   LSTM / GRU (version 2): "_all_weight_values.<k>.param", one CellParamsBase object per layer
//     and direction (k = layer * directions + direction), in a ModuleList of PackedParameter;
//   the cells: "_packed_weight_ih" / "_packed_weight_hh", LinearPackedParamsBase objects (the
//     float biases live in the packed objects; `bias_ih` / `bias_hh` are plain attributes).
//
//   namespace nnqd = ember::nn::quantized::dynamic;
//   auto q = std::dynamic_pointer_cast<nnqd::LSTM>(nnqd::RNNBase::from_float(float_lstm));
//   auto [out, hc] = q->forward(x);   // DynamicQuantizedLSTM(10, 20, num_layers=2)
#pragma once

#include <utility>
#include <vector>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "ember/custom_class.h"
#include "ember/intrusive_ptr.h"
#include "ember/nn/module.h"
#include "ember/nn/utils/rnn.h"
#include "ember/quantized/rnn.h"

namespace ember::quantized {
class LinearPackedParams;
}

namespace ember::nn::quantized::dynamic {

/// Holds one CellParamsBase object as its "param" state entry (PyTorch's PackedParameter).
class PackedParameter : public Module {
 public:
  explicit PackedParameter(intrusive_ptr<ember::quantized::CellParamsDynamic> param);
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  intrusive_ptr<ember::quantized::CellParamsDynamic> param;
};

/// Weights by name ("weight_ih_l0", "bias_hh_l1_reverse", ...) in the order of PyTorch's dicts.
using WeightMap = std::vector<std::pair<std::string, Tensor>>;

class RNNBase : public Module {
 public:
  /// mode "LSTM" or "GRU" (ValueError "Unrecognized RNN mode: ..." otherwise); random qint8
  /// weights (scale 0.1) and float biases, as PyTorch's constructor.
  RNNBase(const std::string& mode, int64_t input_size, int64_t hidden_size, int64_t num_layers = 1,
          bool bias = true, bool batch_first = false, double dropout = 0.0,
          bool bidirectional = false, ScalarType dtype = kQInt8);
  /// torch's RNNBase.from_float: an nn::LSTM or nn::GRU with a qconfig (or its weight observer);
  /// LSTM::from_float / GRU::from_float are this one (the result follows the float module).
  static std::shared_ptr<RNNBase> from_float(Module& mod);

  /// "3, 4, num_layers=2, bidirectional=True".
  std::string extra_repr() const override;
  /// Module's repr without the PackedParameter / ModuleList children.
  std::string repr() const override;
  int64_t version() const override { return 2; }
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  /// The cell params of every layer and direction, from the _all_weight_values children.
  ember::quantized::CellParamsList cell_params() const;
  /// PyTorch's set_weight_bias(dict): weight_{ih,hh}_l<k>[_reverse] (qint8) and bias_...
  void set_weight_bias(const WeightMap& weight_bias);
  /// {"weight": {...}, "bias": {...}}: the packed weights and biases.
  std::pair<WeightMap, WeightMap> _weight_bias() const;

  std::string mode;
  int64_t input_size;
  int64_t hidden_size;
  int64_t num_layers;
  bool bias;
  bool batch_first;
  double dropout;
  bool bidirectional;
  ScalarType dtype;
  /// PyTorch's `self.version`: 2 when built, the checkpoint's version (None: nullopt) once loaded.
  std::optional<int64_t> loaded_version = 2;

 protected:
  RNNBase(const std::string& type_name, const std::string& mode, int64_t input_size,
          int64_t hidden_size, int64_t num_layers, bool bias, bool batch_first, double dropout,
          bool bidirectional, ScalarType dtype);
  void install(const ember::quantized::CellParamsList& cells);
  intrusive_ptr<ember::quantized::CellParamsDynamic> make_cell(
      const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) const;
  /// PyTorch's check_input / get_expected_hidden_size / check_hidden_size (RuntimeError texts).
  void check_input(const Tensor& input, bool packed) const;
  std::vector<int64_t> expected_hidden(const Tensor& input, const Tensor* batch_sizes) const;
  void check_hidden(const Tensor& hx, const std::vector<int64_t>& expected, const char* label) const;
  Tensor zeros_hidden(const Tensor& input, int64_t max_batch) const;
};

class LSTM : public RNNBase {
 public:
  using State = std::tuple<Tensor, Tensor>;
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool bias = true,
       bool batch_first = false, double dropout = 0.0, bool bidirectional = false,
       ScalarType dtype = kQInt8);
  std::tuple<Tensor, State> forward(const Tensor& input, const std::optional<State>& hx = std::nullopt);
  std::tuple<utils::rnn::PackedSequence, State> forward_packed(
      const utils::rnn::PackedSequence& input, const std::optional<State>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool bias = true,
      bool batch_first = false, double dropout = 0.0, bool bidirectional = false,
      ScalarType dtype = kQInt8);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt);
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_packed(
      const utils::rnn::PackedSequence& input, const std::optional<Tensor>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

class RNNCellBase : public Module {
 public:
  /// torch's RNNCellBase.from_float: an nn::LSTMCell / GRUCell / RNNCell with a qconfig (the
  /// subclasses' from_float are this one: the result follows the float module).
  static std::shared_ptr<RNNCellBase> from_float(Module& mod);
  RNNCellBase(int64_t input_size, int64_t hidden_size, bool bias = true, int64_t num_chunks = 4,
              ScalarType dtype = kQInt8);
  /// "3, 4", then ", bias=False" and ", nonlinearity=relu" where they differ from the defaults.
  std::string extra_repr() const override;
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  /// weight_ih / weight_hh (qint8) and bias_ih / bias_hh: packs both.
  void set_weight_bias(const Tensor& weight_ih, const std::optional<Tensor>& bias_ih,
                       const Tensor& weight_hh, const std::optional<Tensor>& bias_hh);
  std::pair<WeightMap, WeightMap> _weight_bias() const;

  int64_t input_size;
  int64_t hidden_size;
  bool bias;
  ScalarType weight_dtype;
  std::optional<Tensor> bias_ih, bias_hh;
  intrusive_ptr<ember::quantized::LinearPackedParams> packed_weight_ih, packed_weight_hh;
  /// Only RNNCell has one (PyTorch's extra_repr looks it up in __dict__).
  std::optional<std::string> nonlinearity;

 protected:
  RNNCellBase(const char* type_name, int64_t input_size, int64_t hidden_size, bool bias,
              int64_t num_chunks, ScalarType dtype);
  void check_forward_input(const Tensor& input) const;
  void check_forward_hidden(const Tensor& input, const Tensor& hx, const char* label) const;
  Tensor zeros_hidden(const Tensor& input) const;
  Tensor bias_or_undefined(const std::optional<Tensor>& b) const { return b ? *b : Tensor(); }
};

class RNNCell : public RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true,
          const std::string& nonlinearity = "tanh", ScalarType dtype = kQInt8);
  Tensor forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true, ScalarType dtype = kQInt8);
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true, ScalarType dtype = kQInt8);
  Tensor forward(const Tensor& input, const std::optional<Tensor>& hx = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
};

}  // namespace ember::nn::quantized::dynamic
