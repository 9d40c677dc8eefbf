// nnqd.RNNCell / LSTMCell / GRUCell (ember/nn/quantized/rnn.h): PyTorch 1.13's RNNCellBase and
// its subclasses over quantized::quantized_{rnn_tanh,rnn_relu,lstm,gru}_cell_dynamic.
#include <typeinfo>

#include "ember/nn/modules/rnn.h"
#include "ember/nn/quantized/rnn.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "../../nn/modules/seq_util.h"
#include "from_float_util.h"
#include "module_state.h"
#include "quant/packed_params.h"

namespace ember::nn::quantized::dynamic {

namespace q = ember::quantized;
namespace quant = ember::quantization;

RNNCellBase::RNNCellBase(int64_t input_size_, int64_t hidden_size_, bool bias_, int64_t num_chunks,
                         ScalarType dtype)
    : RNNCellBase("DynamicQuantizedRNNBase", input_size_, hidden_size_, bias_, num_chunks, dtype) {}

RNNCellBase::RNNCellBase(const char* type_name, int64_t input_size_, int64_t hidden_size_,
                         bool bias_, int64_t num_chunks, ScalarType dtype)
    : Module(type_name),
      input_size(input_size_),
      hidden_size(hidden_size_),
      bias(bias_),
      weight_dtype(dtype) {
  // PyTorch packs float16 weights with linear_prepack_fp16 (FBGEMM only; its qnnpack and
  // onednn engines refuse it too).
  EMBER_CHECK(dtype != kFloat16, "quantized::linear_prepack_fp16 is not supported by ember: "
                                 "dynamic quantized RNN cells take qint8 weights");
  EMBER_CHECK(dtype == kQInt8, "Unsupported dtype specified for dynamic quantized RNN cell: ",
              dtype_repr(dtype));
  if (bias) {
    bias_ih = randn({num_chunks * hidden_size});
    bias_hh = randn({num_chunks * hidden_size});
  }
  const Tensor w_ih = quantize_per_tensor(randn({num_chunks * hidden_size, input_size}), 1, 0, kQInt8);
  const Tensor w_hh = quantize_per_tensor(randn({num_chunks * hidden_size, hidden_size}), 1, 0, kQInt8);
  set_weight_bias(w_ih, bias_ih, w_hh, bias_hh);
}

void RNNCellBase::set_weight_bias(const Tensor& weight_ih, const std::optional<Tensor>& b_ih,
                                  const Tensor& weight_hh, const std::optional<Tensor>& b_hh) {
  auto ih = q::linear_prepack(weight_ih, b_ih);
  auto hh = q::linear_prepack(weight_hh, b_hh);
  packed_weight_ih = ih;
  packed_weight_hh = hh;
}

std::pair<WeightMap, WeightMap> RNNCellBase::_weight_bias() const {
  WeightMap w, b;
  w.emplace_back("weight_ih", packed_weight_ih->weight());
  w.emplace_back("weight_hh", packed_weight_hh->weight());
  b.emplace_back("bias_ih", packed_weight_ih->bias().value_or(Tensor()));
  b.emplace_back("bias_hh", packed_weight_hh->bias().value_or(Tensor()));
  return {w, b};
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!bias) s += ", bias=False";
  if (nonlinearity && *nonlinearity != "tanh") s += ", nonlinearity=" + *nonlinearity;
  return s;
}

void RNNCellBase::_save_to_state_dict(StateDict& destination, const std::string& prefix,
                                      bool keep_vars) {
  Module::_save_to_state_dict(destination, prefix, keep_vars);
  destination.insert(prefix + "_packed_weight_ih",
                     Value(intrusive_ptr<CustomClassHolder>(packed_weight_ih.get())));
  destination.insert(prefix + "_packed_weight_hh",
                     Value(intrusive_ptr<CustomClassHolder>(packed_weight_hh.get())));
}

void RNNCellBase::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                        LocalMetadata& local_metadata, bool /*strict*/,
                                        std::vector<std::string>& missing_keys,
                                        std::vector<std::string>& unexpected_keys,
                                        std::vector<std::string>& error_msgs) {
  auto packed = [&](const char* name) {
    const std::string key = prefix + name;
    Value v = pop_entry(state_dict, key);
    EMBER_CHECK_TYPE(v.is_object(), "state_dict entry '", key,
                     "' must be a LinearPackedParamsBase object, got ", v.type_name());
    return v.to_object<q::LinearPackedParams>();
  };
  auto ih = packed("_packed_weight_ih");
  auto hh = packed("_packed_weight_hh");
  Module::schedule_load_write([this, ih, hh] {
    packed_weight_ih = ih;
    packed_weight_hh = hh;
  });
  Module::_load_from_state_dict(state_dict, prefix, local_metadata, false, missing_keys,
                                unexpected_keys, error_msgs);
}

void RNNCellBase::check_forward_input(const Tensor& input) const {
  EMBER_CHECK(input.size(1) == input_size, "input has inconsistent input_size: got ",
              input.size(1), ", expected ", input_size);
}

void RNNCellBase::check_forward_hidden(const Tensor& input, const Tensor& hx,
                                       const char* label) const {
  EMBER_CHECK(input.size(0) == hx.size(0), "Input batch size ", input.size(0),
              " doesn't match hidden", label, " batch size ", hx.size(0));
  EMBER_CHECK(hx.size(1) == hidden_size, "hidden", label, " has inconsistent hidden_size: got ",
              hx.size(1), ", expected ", hidden_size);
}

Tensor RNNCellBase::zeros_hidden(const Tensor& input) const {
  return zeros({input.size(0), hidden_size}, TensorOptions(input.dtype()).device(input.device()));
}

// ---- the cells ----

RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, bool bias,
                 const std::string& nonlinearity_, ScalarType dtype)
    : RNNCellBase("DynamicQuantizedRNNCell", input_size, hidden_size, bias, 1, dtype) {
  nonlinearity = nonlinearity_;
}

Tensor RNNCell::forward(const Tensor& input, const std::optional<Tensor>& hx) {
  check_forward_input(input);
  const Tensor h = hx ? *hx : zeros_hidden(input);
  check_forward_hidden(input, h, "");
  const std::string& nl = nonlinearity.value_or("tanh");
  if (nl == "tanh") {
    return q::quantized_rnn_tanh_cell_dynamic(input, h, packed_weight_ih, packed_weight_hh,
                                              bias_or_undefined(bias_ih),
                                              bias_or_undefined(bias_hh));
  }
  EMBER_CHECK(nl == "relu", "Unknown nonlinearity: ", nl);
  return q::quantized_rnn_relu_cell_dynamic(input, h, packed_weight_ih, packed_weight_hh,
                                            bias_or_undefined(bias_ih), bias_or_undefined(bias_hh));
}

Value RNNCell::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  return Value(forward(in[0].to_tensor(), nn::detail::value_opt_tensor(in, 1)));
}

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, bool bias, ScalarType dtype)
    : RNNCellBase("DynamicQuantizedLSTMCell", input_size, hidden_size, bias, 4, dtype) {}

std::tuple<Tensor, Tensor> LSTMCell::forward(const Tensor& input,
                                             const std::optional<std::tuple<Tensor, Tensor>>& hx) {
  check_forward_input(input);
  Tensor h, c;
  if (hx) {
    h = std::get<0>(*hx), c = std::get<1>(*hx);
  } else {
    h = c = zeros_hidden(input);
  }
  check_forward_hidden(input, h, "[0]");
  check_forward_hidden(input, c, "[1]");
  return q::quantized_lstm_cell_dynamic(input, {h, c}, packed_weight_ih, packed_weight_hh,
                                        bias_or_undefined(bias_ih), bias_or_undefined(bias_hh));
}

Value LSTMCell::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  std::optional<std::tuple<Tensor, Tensor>> hx;
  if (in.size() > 1 && !in[1].is_none()) {
    const auto& l = in[1].to_tensor_list();
    EMBER_CHECK(l.size() == 2, type_name(), ": hx must be a pair (h_0, c_0)");
    hx = std::make_tuple(l[0], l[1]);
  }
  auto [h, c] = forward(in[0].to_tensor(), hx);
  return Value(std::vector<Tensor>{h, c});
}

GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, bool bias, ScalarType dtype)
    : RNNCellBase("DynamicQuantizedGRUCell", input_size, hidden_size, bias, 3, dtype) {}

Tensor GRUCell::forward(const Tensor& input, const std::optional<Tensor>& hx) {
  check_forward_input(input);
  const Tensor h = hx ? *hx : zeros_hidden(input);
  check_forward_hidden(input, h, "");
  return q::quantized_gru_cell_dynamic(input, h, packed_weight_ih, packed_weight_hh,
                                       bias_or_undefined(bias_ih), bias_or_undefined(bias_hh));
}

Value GRUCell::forward(const std::vector<Value>& in) {
  nn::detail::check_seq_forward_inputs(type_name(), in, {"input"}, 1);
  return Value(forward(in[0].to_tensor(), nn::detail::value_opt_tensor(in, 1)));
}

// ---- from_float ----

std::shared_ptr<RNNCellBase> RNNCellBase::from_float(Module& mod) {
  const bool lstm = typeid(mod) == typeid(nn::LSTMCell), gru = typeid(mod) == typeid(nn::GRUCell),
             rnn = typeid(mod) == typeid(nn::RNNCell);
  // torch's message keeps the spaces of its line continuation.
  if (!(lstm || gru || rnn)) {
    throw quant::AssertionError(
        "nn.quantized.dynamic.RNNCellBase.from_float                                  only "
        "works for nn.LSTMCell, nn.GRUCell and nn.RNNCell");
  }
  if (!mod.has_qconfig()) throw quant::AssertionError("Input float module must have qconfig defined");
  const auto factory = mod.qconfig() && mod.qconfig()->weight
                           ? mod.qconfig()->weight
                           : quant::default_dynamic_qconfig()->weight;
  const ScalarType dtype = from_float_util::weight_observer_dtype(*factory());
  EMBER_CHECK(dtype == kQInt8 || dtype == kFloat16,
              "Unsupported dtype for dynamic RNN quantization: ", dtype_repr(dtype));
  auto& f = dynamic_cast<nn::RNNCellBase&>(mod);
  std::shared_ptr<RNNCellBase> qc;
  if (lstm) {
    qc = std::make_shared<LSTMCell>(f.input_size, f.hidden_size, f.bias, dtype);
  } else if (gru) {
    qc = std::make_shared<GRUCell>(f.input_size, f.hidden_size, f.bias, dtype);
  } else {
    qc = std::make_shared<RNNCell>(f.input_size, f.hidden_size, f.bias,
                                   dynamic_cast<nn::RNNCell&>(mod).nonlinearity, dtype);
  }
  if (!f.bias) throw quant::AssertionError("");
  auto quantized = [&](const char* name) {
    const Tensor w = f.parameter(name);
    auto obs = factory();
    obs->call({w});
    return from_float_util::quantize_with_observer(w.to(kFloat32), *obs);
  };
  qc->set_weight_bias(quantized("weight_ih"), nn::detail::optional_tensor(f.parameter("bias_ih")),
                      quantized("weight_hh"), nn::detail::optional_tensor(f.parameter("bias_hh")));
  return qc;
}

}  // namespace ember::nn::quantized::dynamic

// ---- copies (Note [Cloning modules]): copies of the packed weights, packed again ----
#include "ember/nn/module_clone.h"

namespace ember::nn::quantized::dynamic {
namespace {
void repack_param(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<PackedParameter&>(copy);
  if (m.param) m.param = m.param->deep_copy();
}
void repack_cell(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<RNNCellBase&>(copy);
  m.packed_weight_ih = m.packed_weight_ih->deep_copy();
  m.packed_weight_hh = m.packed_weight_hh->deep_copy();
  if (m.bias_ih) m.bias_ih = m.bias_ih->clone();
  if (m.bias_hh) m.bias_hh = m.bias_hh->clone();
}

const bool registered = [] {
  register_cloneable<PackedParameter>();
  detail::register_fixup(typeid(PackedParameter), repack_param);
  register_cloneable<RNNBase>();
  register_cloneable<LSTM>();
  register_cloneable<GRU>();
  register_cloneable<RNNCellBase>();
  register_cloneable<RNNCell>();
  register_cloneable<LSTMCell>();
  register_cloneable<GRUCell>();
  for (std::type_index t : {std::type_index(typeid(RNNCellBase)), std::type_index(typeid(RNNCell)),
                            std::type_index(typeid(LSTMCell)), std::type_index(typeid(GRUCell))})
    detail::register_fixup(t, repack_cell);
  return true;
}();
}  // namespace
}  // namespace ember::nn::quantized::dynamic
