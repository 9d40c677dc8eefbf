// The dynamic quantized recurrent ops (PyTorch 1.13's quantized::make_quantized_cell_params_dynamic,
// quantized::quantized_{lstm,gru,rnn_relu,rnn_tanh}_cell_dynamic and aten::quantized_lstm /
// quantized_gru with `use_dynamic`): float inputs and hidden states, qint8 weights in
// LinearPackedParams whose bias is packed with them, each gemm a quantized::linear_dynamic (the
// input quantized on the fly from its own range), the gates in float as PyTorch's CPU cells.
//
//   auto ih = ember::quantized::linear_prepack(qw_ih, b_ih), hh = ...;
//   auto cell = ember::quantized::make_quantized_cell_params_dynamic(ih, hh, b_ih, b_hh, true);
//   auto [out, h, c] = ember::quantized::quantized_lstm(x, {h0, c0}, {cell}, true, 1, 0.0, false,
//                                                     false, false, ember::kQInt8, true);
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/custom_class.h"
#include "ember/intrusive_ptr.h"
#include "ember/tensor.h"

namespace ember::quantized {

class LinearPackedParams;

/// PyTorch's QuantizedCellParamsDynamic, a `__torch__.torch.classes.rnn.CellParamsBase`: the
/// packed input-hidden and hidden-hidden weights of one layer and direction, the float biases
/// (kept for serialization; the packed weights already carry them) and reduce_range.
class CellParamsDynamic : public CustomClassHolder {
 public:
  static constexpr const char* kClassName = "__torch__.torch.classes.rnn.CellParamsBase";
  const char* class_name() const override { return kClassName; }

  CellParamsDynamic(intrusive_ptr<LinearPackedParams> w_ih, intrusive_ptr<LinearPackedParams> w_hh,
                    Tensor b_ih, Tensor b_hh, bool reduce_range);

  /// linear_dynamic(x, w_ih, reduce_range) / linear_dynamic(h, w_hh, reduce_range).
  Tensor linear_ih(const Tensor& x) const;
  Tensor linear_hh(const Tensor& h) const;

  const intrusive_ptr<LinearPackedParams>& w_ih() const { return w_ih_; }
  const intrusive_ptr<LinearPackedParams>& w_hh() const { return w_hh_; }
  const Tensor& b_ih() const { return b_ih_; }
  const Tensor& b_hh() const { return b_hh_; }
  bool reduce_range() const { return reduce_range_; }

  /// copy.deepcopy: the packed weights re-packed (for the active engine) from copies.
  intrusive_ptr<CellParamsDynamic> deep_copy() const;

 private:
  intrusive_ptr<LinearPackedParams> w_ih_, w_hh_;
  Tensor b_ih_, b_hh_;
  bool reduce_range_ = false;
};

using CellParamsList = std::vector<intrusive_ptr<CellParamsDynamic>>;

// ---- ops of the op table ----
intrusive_ptr<CellParamsDynamic> make_quantized_cell_params_dynamic(
    const intrusive_ptr<LinearPackedParams>& w_ih, const intrusive_ptr<LinearPackedParams>& w_hh,
    const Tensor& bias_ih, const Tensor& bias_hh, bool reduce_range = false);
/// (hy, cy) of one LSTM step; input [B, I], hx = (h [B, H], c [B, H]).
std::tuple<Tensor, Tensor> quantized_lstm_cell_dynamic(
    const Tensor& input, ArrayRef<Tensor> hx, const intrusive_ptr<LinearPackedParams>& w_ih,
    const intrusive_ptr<LinearPackedParams>& w_hh, const Tensor& bias_ih, const Tensor& bias_hh);
Tensor quantized_gru_cell_dynamic(const Tensor& input, const Tensor& hx,
                                  const intrusive_ptr<LinearPackedParams>& w_ih,
                                  const intrusive_ptr<LinearPackedParams>& w_hh,
                                  const Tensor& b_ih, const Tensor& b_hh);
Tensor quantized_rnn_relu_cell_dynamic(const Tensor& input, const Tensor& hx,
                                       const intrusive_ptr<LinearPackedParams>& w_ih,
                                       const intrusive_ptr<LinearPackedParams>& w_hh,
                                       const Tensor& b_ih, const Tensor& b_hh);
Tensor quantized_rnn_tanh_cell_dynamic(const Tensor& input, const Tensor& hx,
                                       const intrusive_ptr<LinearPackedParams>& w_ih,
                                       const intrusive_ptr<LinearPackedParams>& w_hh,
                                       const Tensor& b_ih, const Tensor& b_hh);

// ---- the multi-layer forms (aten::quantized_lstm / quantized_gru with CellParamsBase[]) ----
// Note [Lists of packed objects]: the op table's boxed values have no list of objects, so these
// are plain C++ functions (bound to Python as ember.quantized_lstm / quantized_gru); each step
// inside them runs through the dispatcher (linear_dynamic and the float gate ops).

/// (output, h_n, c_n). input [T, B, I] ([B, T, I] with batch_first), hx = (h0, c0) of
/// [layers * directions, B, H]. dtype: qint8 / int8 (the default) only; float16 raises.
std::tuple<Tensor, Tensor, Tensor> quantized_lstm(const Tensor& input, ArrayRef<Tensor> hx,
                                                  const CellParamsList& params, bool has_biases,
                                                  int64_t num_layers, double dropout, bool train,
                                                  bool bidirectional, bool batch_first,
                                                  std::optional<ScalarType> dtype = std::nullopt,
                                                  bool use_dynamic = false);
/// The packed-sequence form: data [sum(batch_sizes), I] and int64 batch_sizes.
std::tuple<Tensor, Tensor, Tensor> quantized_lstm(const Tensor& data, const Tensor& batch_sizes,
                                                  ArrayRef<Tensor> hx, const CellParamsList& params,
                                                  bool has_biases, int64_t num_layers,
                                                  double dropout, bool train, bool bidirectional,
                                                  std::optional<ScalarType> dtype = std::nullopt,
                                                  bool use_dynamic = false);
/// (output, h_n).
std::tuple<Tensor, Tensor> quantized_gru(const Tensor& input, const Tensor& hx,
                                         const CellParamsList& params, bool has_biases,
                                         int64_t num_layers, double dropout, bool train,
                                         bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor> quantized_gru(const Tensor& data, const Tensor& batch_sizes,
                                         const Tensor& hx, const CellParamsList& params,
                                         bool has_biases, int64_t num_layers, double dropout,
                                         bool train, bool bidirectional);

}  // namespace ember::quantized
