// nnqd.LSTM / GRU / RNNCell / LSTMCell / GRUCell (ember/nn/quantized/rnn.h): PyTorch 1.13's
// torch/ao/nn/quantized/dynamic/modules/rnn.py over ember's dynamic recurrent ops.
#include "ember/nn/quantized/rnn.h"

#include <sstream>
#include <typeinfo>

#include "ember/nn/modules/container.h"
#include "ember/nn/modules/rnn.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/print.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "ember/warning.h"
#include "../../nn/modules/module_util.h"
#include "../../nn/modules/seq_util.h"
#include "from_float_util.h"
#include "module_state.h"
#include "quant/packed_params.h"

namespace ember::nn::quantized::dynamic {

namespace q = ember::quantized;
namespace quant = ember::quantization;
using R = utils::rnn::PackedSequence;

namespace {

#define RNN_ASSERT(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) throw ::ember::quantization::AssertionError(::ember::detail::str_cat(__VA_ARGS__)); \
  } while (0)


std::string shape_tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
std::string shape_list(IntArrayRef v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void check_dtype(ScalarType dtype) {
  // PyTorch packs float16 weights with linear_prepack_fp16 (FBGEMM only; its qnnpack and
  // onednn engines refuse it too).
  EMBER_CHECK(dtype != kFloat16, "quantized::linear_prepack_fp16 is not supported by ember: "
                                 "dynamic quantized RNNs take qint8 weights");
  EMBER_CHECK(dtype == kQInt8, "Unsupported dtype specified for dynamic quantized RNN: ",
              dtype_repr(dtype));
}

// The weight observer of a float module being converted: its qconfig's, else the default
// dynamic qconfig's (torch's weight_observer_method), and the dtype it gives.
std::function<std::shared_ptr<Module>()> weight_observer_factory(const Module& mod) {
  if (mod.qconfig() && mod.qconfig()->weight) return mod.qconfig()->weight;
  return quant::default_dynamic_qconfig()->weight;
}

Tensor observe_and_quantize(const Tensor& w, const std::function<std::shared_ptr<Module>()>& f) {
  auto obs = f();
  obs->call({w});
  return from_float_util::quantize_with_observer(w.to(kFloat32), *obs);
}

}  // namespace

// ---- PackedParameter ----

PackedParameter::PackedParameter(intrusive_ptr<q::CellParamsDynamic> p)
    : Module("PackedParameter"), param(std::move(p)) {}

void PackedParameter::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                          bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  destination.insert(prefix + "param", Value(intrusive_ptr<CustomClassHolder>(param.get())));
}

void PackedParameter::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                            LocalMetadata& local_metadata, bool /*strict*/,
                                            std::vector<std::string>& missing_keys,
                                            std::vector<std::string>& unexpected_keys,
                                            std::vector<std::string>& error_msgs) {
  // PyTorch reads (does not pop) the entry: `self.param = state_dict[prefix + 'param']`.
  const std::string key = prefix + "param";
  EMBER_CHECK_KEY(state_dict.contains(key), "'", key, "'");
  const Value& v = state_dict.at(key);
  EMBER_CHECK_TYPE(v.is_object(), "state_dict entry '", key,
                   "' must be a CellParamsBase object, got ", v.type_name());
  auto p = v.to_object<q::CellParamsDynamic>();
  Module::schedule_load_write([this, p] { param = p; });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

// ---- RNNBase ----

RNNBase::RNNBase(const std::string& mode_, int64_t input_size_, int64_t hidden_size_,
                 int64_t num_layers_, bool bias_, bool batch_first_, double dropout_,
                 bool bidirectional_, ScalarType dtype_)
    : RNNBase("DynamicQuantizedRNN", mode_, input_size_, hidden_size_, num_layers_, bias_,
              batch_first_, dropout_, bidirectional_, dtype_) {}

RNNBase::RNNBase(const std::string& type_name, const std::string& mode_, int64_t input_size_,
                 int64_t hidden_size_, int64_t num_layers_, bool bias_, bool batch_first_,
                 double dropout_, bool bidirectional_, ScalarType dtype_)
    : Module(type_name),
      mode(mode_),
      input_size(input_size_),
      hidden_size(hidden_size_),
      num_layers(num_layers_),
      bias(bias_),
      batch_first(batch_first_),
      dropout(dropout_),
      bidirectional(bidirectional_),
      dtype(dtype_) {
  EMBER_CHECK_VALUE(dropout >= 0 && dropout <= 1,
                    "dropout should be a number in range [0, 1] representing the probability of "
                    "an element being zeroed");
  if (dropout > 0 && num_layers == 1) {
    warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
         "expects num_layers greater than 1, but got dropout=" + nn::detail::py_float(dropout) +
         " and num_layers=" + std::to_string(num_layers));
  }
  int64_t gate_size = 0;
  if (mode == "LSTM") {
    gate_size = 4 * hidden_size;
  } else if (mode == "GRU") {
    gate_size = 3 * hidden_size;
  } else {
    EMBER_FAIL_KIND(ErrorKind::Value, "Unrecognized RNN mode: " + mode);
  }
  check_dtype(dtype);
  Module::train(false);  // PyTorch's constructor sets self.training = False
  const int64_t dirs = bidirectional ? 2 : 1;
  q::CellParamsList cells;
  for (int64_t l = 0; l < num_layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = l == 0 ? input_size : hidden_size * dirs;
      const Tensor w_ih = quantize_per_tensor(randn({gate_size, in}), 0.1, 0, kQInt8);
      const Tensor w_hh = quantize_per_tensor(randn({gate_size, hidden_size}), 0.1, 0, kQInt8);
      const Tensor b_ih = randn({gate_size}), b_hh = randn({gate_size});
      cells.push_back(make_cell(w_ih, w_hh, b_ih, b_hh));
    }
  }
  install(cells);
}

intrusive_ptr<q::CellParamsDynamic> RNNBase::make_cell(const Tensor& w_ih, const Tensor& w_hh,
                                                       const Tensor& b_ih,
                                                       const Tensor& b_hh) const {
  const auto ih = q::linear_prepack(w_ih, nn::detail::optional_tensor(b_ih));
  const auto hh = q::linear_prepack(w_hh, nn::detail::optional_tensor(b_hh));
  // Version 2 packs reduce_range = True (PyTorch's make_quantized_cell_params_dynamic(..., True)).
  const bool reduce_range = loaded_version && *loaded_version >= 2;
  return q::make_quantized_cell_params_dynamic(ih, hh, b_ih, b_hh, reduce_range);
}

void RNNBase::install(const q::CellParamsList& cells) {
  auto list = std::make_shared<ModuleList>();
  for (const auto& c : cells) list->push_back(std::make_shared<PackedParameter>(c));
  bool present = false;
  for (const auto& [n, m] : named_children()) present = present || n == "_all_weight_values";
  if (present) unregister_module("_all_weight_values");
  register_module("_all_weight_values", list);
}

q::CellParamsList RNNBase::cell_params() const {
  q::CellParamsList r;
  std::shared_ptr<Module> list;
  for (const auto& [n, m] : named_children())
    if (n == "_all_weight_values") list = m;
  EMBER_CHECK_TYPE(list != nullptr, type_name(), "._all_weight_values is missing");
  for (const auto& [n, m] : list->named_children()) {
    auto* p = dynamic_cast<PackedParameter*>(m.get());
    EMBER_CHECK_TYPE(p != nullptr, type_name(), "._all_weight_values.", n,
                     " must be a PackedParameter, got ", m->type_name());
    r.push_back(p->param);
  }
  return r;
}

std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (num_layers != 1) s += ", num_layers=" + std::to_string(num_layers);
  if (!bias) s += ", bias=False";
  if (batch_first) s += ", batch_first=True";
  if (dropout != 0) s += ", dropout=" + nn::detail::py_float(dropout);
  if (bidirectional) s += ", bidirectional=True";
  return s;
}

std::string RNNBase::repr() const {
  // Module::repr without the packed-params children (PyTorch's hide_packed_params_repr).
  std::vector<std::pair<std::string, const Module*>> children;
  for (const auto& [n, m] : named_children()) {
    if (!dynamic_cast<const PackedParameter*>(m.get()) && !dynamic_cast<const ModuleList*>(m.get()))
      children.emplace_back(n, m.get());
  }
  return nn::detail::format_repr(type_name(), extra_repr(), children);
}

void RNNBase::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                    LocalMetadata& local_metadata, bool /*strict*/,
                                    std::vector<std::string>& missing_keys,
                                    std::vector<std::string>& unexpected_keys,
                                    std::vector<std::string>& error_msgs) {
  std::optional<int64_t> version;
  auto it = local_metadata.find("version");
  if (it != local_metadata.end() && !it->second.is_none()) version = it->second.to_int();
  Module::schedule_load_write([this, version] { loaded_version = version; });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

namespace {
std::string weight_name(const char* kind, const char* ihhh, int64_t layer, bool reverse) {
  return std::string(kind) + "_" + ihhh + "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
}
const Tensor& named(const WeightMap& d, const std::string& key) {
  for (const auto& [k, v] : d)
    if (k == key) return v;
  EMBER_FAIL_KIND(ErrorKind::Key, "'", key, "'");
}
}  // namespace

void RNNBase::set_weight_bias(const WeightMap& wb) {
  const int64_t dirs = bidirectional ? 2 : 1;
  q::CellParamsList cells;
  for (int64_t l = 0; l < num_layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      cells.push_back(make_cell(named(wb, weight_name("weight", "ih", l, d == 1)),
                                named(wb, weight_name("weight", "hh", l, d == 1)),
                                named(wb, weight_name("bias", "ih", l, d == 1)),
                                named(wb, weight_name("bias", "hh", l, d == 1))));
    }
  }
  install(cells);
}

std::pair<WeightMap, WeightMap> RNNBase::_weight_bias() const {
  WeightMap w, b;
  const auto cells = cell_params();
  const int64_t dirs = bidirectional ? 2 : 1;
  size_t k = 0;
  for (int64_t l = 0; l < num_layers; ++l) {
    for (int64_t d = 0; d < dirs && k < cells.size(); ++d, ++k) {
      const auto& c = *cells[k];
      w.emplace_back(weight_name("weight", "ih", l, d == 1), c.w_ih()->weight());
      w.emplace_back(weight_name("weight", "hh", l, d == 1), c.w_hh()->weight());
      b.emplace_back(weight_name("bias", "ih", l, d == 1), c.w_ih()->bias().value_or(Tensor()));
      b.emplace_back(weight_name("bias", "hh", l, d == 1), c.w_hh()->bias().value_or(Tensor()));
    }
  }
  return {w, b};
}

void RNNBase::check_input(const Tensor& input, bool packed) const {
  const int64_t expected = packed ? 2 : 3;
  EMBER_CHECK(input.dim() == expected, "input must have ", expected, " dimensions, got ",
              input.dim());
  EMBER_CHECK(input.size(-1) == input_size,
              "input.size(-1) must be equal to input_size. Expected ", input_size, ", got ",
              input.size(-1));
}

std::vector<int64_t> RNNBase::expected_hidden(const Tensor& input, const Tensor* batch_sizes) const {
  int64_t mini_batch = 0;
  if (batch_sizes) {
    mini_batch = batch_sizes->select(0, 0).item().to<int64_t>();
  } else {
    mini_batch = batch_first ? input.size(0) : input.size(1);
  }
  return {num_layers * (bidirectional ? 2 : 1), mini_batch, hidden_size};
}

void RNNBase::check_hidden(const Tensor& hx, const std::vector<int64_t>& expected,
                           const char* label) const {
  const auto sizes = hx.sizes();
  EMBER_CHECK(std::vector<int64_t>(sizes.begin(), sizes.end()) == expected, "Expected ", label,
              " size ", shape_tuple(expected), ", got ", shape_list(sizes));
}

Tensor RNNBase::zeros_hidden(const Tensor& input, int64_t max_batch) const {
  return zeros({num_layers * (bidirectional ? 2 : 1), max_batch, hidden_size},
               TensorOptions(input.dtype()).device(input.device()));
}

// ---- LSTM ----

LSTM::LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
           bool batch_first, double dropout, bool bidirectional, ScalarType dtype)
    : RNNBase("DynamicQuantizedLSTM", "LSTM", input_size, hidden_size, num_layers, bias,
              batch_first, dropout, bidirectional, dtype) {}

namespace {
LSTM::State permute(const LSTM::State& s, const Tensor& perm) {
  if (!perm.defined()) return s;
  return {std::get<0>(s).index_select(1, perm), std::get<1>(s).index_select(1, perm)};
}
Tensor permute(const Tensor& s, const Tensor& perm) {
  return perm.defined() ? s.index_select(1, perm) : s;
}
}  // namespace

std::tuple<Tensor, LSTM::State> LSTM::forward(const Tensor& input, const std::optional<State>& hx) {
  const int64_t max_batch = input.dim() >= 2 ? input.size(batch_first ? 0 : 1) : 0;
  State h;
  if (hx) {
    h = *hx;
  } else {
    const Tensor z = zeros_hidden(input, max_batch);
    h = {z, z};
  }
  check_input(input, false);
  const auto expected = expected_hidden(input, nullptr);
  check_hidden(std::get<0>(h), expected, "hidden[0]");
  check_hidden(std::get<1>(h), expected, "hidden[1]");
  auto [out, hn, cn] = q::quantized_lstm(input, {std::get<0>(h), std::get<1>(h)}, cell_params(),
                                         bias, num_layers, dropout, is_training(), bidirectional,
                                         batch_first, dtype, true);
  return {out, State{hn, cn}};
}

std::tuple<R, LSTM::State> LSTM::forward_packed(const R& input, const std::optional<State>& hx) {
  const int64_t max_batch = input.batch_sizes.select(0, 0).item().to<int64_t>();
  State h;
  if (hx) {
    h = permute(*hx, input.sorted_indices);
  } else {
    const Tensor z = zeros_hidden(input.data, max_batch);
    h = {z, z};
  }
  check_input(input.data, true);
  const auto expected = expected_hidden(input.data, &input.batch_sizes);
  check_hidden(std::get<0>(h), expected, "hidden[0]");
  check_hidden(std::get<1>(h), expected, "hidden[1]");
  auto [out, hn, cn] = q::quantized_lstm(input.data, input.batch_sizes,
                                         {std::get<0>(h), std::get<1>(h)}, cell_params(), bias,
                                         num_layers, dropout, is_training(), bidirectional, dtype,
                                         true);
  R packed{out, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  return {packed, permute(State{hn, cn}, input.unsorted_indices)};
}

Value LSTM::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  std::optional<State> hx;
  if (in.size() > 1 && !in[1].is_none()) {
    const auto& l = in[1].to_tensor_list();
    EMBER_CHECK(l.size() == 2, type_name(), ": hx must be a pair (h_0, c_0)");
    hx = State{l[0], l[1]};
  }
  auto [out, hc] = forward(in[0].to_tensor(), hx);
  return Value(std::vector<Tensor>{out, std::get<0>(hc), std::get<1>(hc)});
}

// ---- GRU ----

GRU::GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias, bool batch_first,
         double dropout, bool bidirectional, ScalarType dtype)
    : RNNBase("DynamicQuantizedGRU", "GRU", input_size, hidden_size, num_layers, bias,
              batch_first, dropout, bidirectional, dtype) {}

std::tuple<Tensor, Tensor> GRU::forward(const Tensor& input, const std::optional<Tensor>& hx) {
  const int64_t max_batch = input.dim() >= 2 ? input.size(batch_first ? 0 : 1) : 0;
  check_input(input, false);
  const Tensor h = hx ? *hx : zeros_hidden(input, max_batch);
  check_hidden(h, expected_hidden(input, nullptr), "hidden");
  return q::quantized_gru(input, h, cell_params(), bias, num_layers, dropout, is_training(),
                          bidirectional, batch_first);
}

std::tuple<R, Tensor> GRU::forward_packed(const R& input, const std::optional<Tensor>& hx) {
  const int64_t max_batch = input.batch_sizes.select(0, 0).item().to<int64_t>();
  const Tensor h = hx ? permute(*hx, input.sorted_indices) : zeros_hidden(input.data, max_batch);
  check_input(input.data, true);
  check_hidden(h, expected_hidden(input.data, &input.batch_sizes), "hidden");
  auto [out, hn] = q::quantized_gru(input.data, input.batch_sizes, h, cell_params(), bias,
                                    num_layers, dropout, is_training(), bidirectional);
  R packed{out, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  return {packed, permute(hn, input.unsorted_indices)};
}

Value GRU::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  auto [out, h] = forward(in[0].to_tensor(), nn::detail::value_opt_tensor(in, 1));
  return Value(std::vector<Tensor>{out, h});
}

// ---- from_float ----

std::shared_ptr<RNNBase> RNNBase::from_float(Module& mod) {
  const bool is_lstm = typeid(mod) == typeid(nn::LSTM), is_gru = typeid(mod) == typeid(nn::GRU);
  RNN_ASSERT(is_lstm || is_gru, "nn.quantized.dynamic.RNNBase.from_float only works for nn.LSTM "
                                "and nn.GRU");
  RNN_ASSERT(mod.has_qconfig(), "Input float module must have qconfig defined");
  const auto factory = weight_observer_factory(mod);
  const ScalarType dtype = from_float_util::weight_observer_dtype(*factory());
  EMBER_CHECK(dtype == kQInt8 || dtype == kFloat16,
              "Unsupported dtype for dynamic RNN quantization: ", dtype_repr(dtype));
  auto& f = dynamic_cast<nn::RNNBase&>(mod);
  std::shared_ptr<RNNBase> q;
  if (is_lstm) {
    q = std::make_shared<LSTM>(f.input_size, f.hidden_size, f.num_layers, f.bias, f.batch_first,
                               f.dropout, f.bidirectional, dtype);
  } else {
    q = std::make_shared<GRU>(f.input_size, f.hidden_size, f.num_layers, f.bias, f.batch_first,
                              f.dropout, f.bidirectional, dtype);
  }
  RNN_ASSERT(f.bias, "");
  const int64_t dirs = f.bidirectional ? 2 : 1;
  q::CellParamsList cells;
  for (int64_t l = 0; l < f.num_layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      auto p = [&](const char* kind, const char* ihhh) {
        return f.parameter(weight_name(kind, ihhh, l, d == 1));
      };
      cells.push_back(q->make_cell(observe_and_quantize(p("weight", "ih"), factory),
                                   observe_and_quantize(p("weight", "hh"), factory),
                                   p("bias", "ih"), p("bias", "hh")));
    }
  }
  q->install(cells);
  return q;
}


}  // namespace ember::nn::quantized::dynamic
