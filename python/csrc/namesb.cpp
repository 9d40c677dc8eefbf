// ember._C._namesb: the entry points of Note [namesb entry points without op rows]
// (src/ops/nn_rnn_functional.cpp): the functional recurrences (torch.gru / lstm / rnn_tanh /
// rnn_relu, both overloads), fractional max pooling and grid_sampler_3d. ember/_namesb.py and
// ember/nn/_functional_namesb.py give them PyTorch's Python signatures.
#include <vector>

#include "common.h"
#include "ember/ops/fractional_pool.h"
#include "ember/ops/grid_sample3d.h"
#include "ember/ops/rnn_functional.h"

namespace ember::python {

namespace {
using Tensors = std::vector<Tensor>;
using Ints = std::vector<int64_t>;
}  // namespace

void init_namesb(py::module_& parent) {
  py::module_ m = parent.def_submodule("_namesb", "namesb's entry points without op rows");
  auto two = [](std::tuple<Tensor, Tensor> r) { return py::make_tuple(std::get<0>(r), std::get<1>(r)); };
  m.def("gru_input", [two](const Tensor& input, const Tensor& hx, const Tensors& params, bool has_biases,
                           int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
    return two(gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first));
  });
  m.def("gru_data", [two](const Tensor& data, const Tensor& batch_sizes, const Tensor& hx, const Tensors& params,
                          bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional) {
    return two(gru(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional));
  });
  m.def("rnn_tanh_input", [two](const Tensor& input, const Tensor& hx, const Tensors& params, bool has_biases,
                                int64_t num_layers, double dropout, bool train, bool bidirectional,
                                bool batch_first) {
    return two(rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first));
  });
  m.def("rnn_tanh_data", [two](const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               const Tensors& params, bool has_biases, int64_t num_layers, double dropout,
                               bool train, bool bidirectional) {
    return two(rnn_tanh(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional));
  });
  m.def("rnn_relu_input", [two](const Tensor& input, const Tensor& hx, const Tensors& params, bool has_biases,
                                int64_t num_layers, double dropout, bool train, bool bidirectional,
                                bool batch_first) {
    return two(rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first));
  });
  m.def("rnn_relu_data", [two](const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                               const Tensors& params, bool has_biases, int64_t num_layers, double dropout,
                               bool train, bool bidirectional) {
    return two(rnn_relu(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional));
  });
  m.def("lstm_input", [](const Tensor& input, const Tensors& hx, const Tensors& params, bool has_biases,
                         int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
    auto [o, h, c] = lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first);
    return py::make_tuple(o, h, c);
  });
  m.def("lstm_data", [](const Tensor& data, const Tensor& batch_sizes, const Tensors& hx, const Tensors& params,
                        bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional) {
    auto [o, h, c] = lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional);
    return py::make_tuple(o, h, c);
  });
  m.def("fractional_max_pool2d", [two](const Tensor& self, const Ints& k, const Ints& out, const Tensor& samples) {
    return two(fractional_max_pool2d(self, k, out, samples));
  });
  m.def("fractional_max_pool3d", [two](const Tensor& self, const Ints& k, const Ints& out, const Tensor& samples) {
    return two(fractional_max_pool3d(self, k, out, samples));
  });
  m.def("grid_sampler_3d", &grid_sampler_3d);
}

}  // namespace ember::python
