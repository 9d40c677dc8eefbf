// aten's functional recurrent entry points (torch.gru / lstm / rnn_tanh / rnn_relu, _VF's):
// a whole multi-layer (bidirectional) recurrence over flat parameters, on a padded sequence
// (.input) or packed data with its batch sizes (.data). nn.RNN / LSTM / GRU run the same
// recurrence (nn::detail::rnn_packed).
//
//   auto [out, h_n] = ember::gru(x, h0, params, /*has_biases=*/true, /*num_layers=*/1,
//                                /*dropout=*/0.0, /*train=*/false, /*bidirectional=*/false,
//                                /*batch_first=*/false);
#pragma once

#include <tuple>

#include "ember/tensor.h"

namespace ember {

#define EMBER_RNN_FUNCTIONAL(name)                                                                  \
  std::tuple<Tensor, Tensor> name(const Tensor& input, const Tensor& hx, ArrayRef<Tensor> params,    \
                                  bool has_biases, int64_t num_layers, double dropout, bool train,   \
                                  bool bidirectional, bool batch_first);                             \
  std::tuple<Tensor, Tensor> name(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,   \
                                  ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,      \
                                  double dropout, bool train, bool bidirectional);
EMBER_RNN_FUNCTIONAL(gru)
EMBER_RNN_FUNCTIONAL(rnn_tanh)
EMBER_RNN_FUNCTIONAL(rnn_relu)
#undef EMBER_RNN_FUNCTIONAL

/// hx = {h_0, c_0}; returns (output, h_n, c_n).
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, ArrayRef<Tensor> hx, ArrayRef<Tensor> params,
                                        bool has_biases, int64_t num_layers, double dropout, bool train,
                                        bool bidirectional, bool batch_first);
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& data, const Tensor& batch_sizes, ArrayRef<Tensor> hx,
                                        ArrayRef<Tensor> params, bool has_biases, int64_t num_layers,
                                        double dropout, bool train, bool bidirectional);

}  // namespace ember
