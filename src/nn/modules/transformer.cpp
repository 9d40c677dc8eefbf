// The transformer layers: PyTorch 1.13's torch/nn/modules/transformer.py in C++. Children are
// called through Module::call (their hooks run, a replaced child is used), as Python does.
#include "ember/nn/modules/transformer.h"

#include <limits>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/attention.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "seq_util.h"

namespace ember::nn {

namespace F = functional;
using detail::value_bool;
using detail::value_opt_tensor;

namespace {

Value opt_value(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }

void check_kpm_dtype(const std::optional<Tensor>& kpm) {
  if (!kpm) return;
  EMBER_CHECK_ASSERTION(kpm->dtype() == kBool || is_floating(kpm->dtype()),
                        "only bool and floating types of key_padding_mask are supported");
}

// The child `name`, or null (PyTorch's `self.norm = None`).
std::shared_ptr<Module> maybe_child(const Module& m, const std::string& name) {
  for (auto& [n, c] : m.named_children())
    if (n == name) return c;
  return nullptr;
}

}  // namespace

// ---- shared layer parts ----

void TransformerLayerBase::set_activation(const TransformerActivation& act) {
  if (act.module) {
    register_module("activation", act.module);
  } else if (act.fn) {
    activation_fn = act.fn;
  } else {
    // _get_activation_fn
    EMBER_CHECK(act.name == "relu" || act.name == "gelu",
                "activation should be relu/gelu, not ", act.name);
    activation_name = act.name;
  }
}

Tensor TransformerLayerBase::activation(const Tensor& x) {
  if (activation_name == "relu") return F::relu(x);
  if (activation_name == "gelu") return F::gelu(x);
  if (activation_fn) return activation_fn(x);
  return (*child("activation"))(x);
}

Tensor TransformerLayerBase::run(const std::string& name, const Tensor& x) {
  return (*child(name))(x);
}

Tensor TransformerLayerBase::attend(const std::string& name, const Tensor& x, const Tensor& mem,
                                    const std::optional<Tensor>& mask,
                                    const std::optional<Tensor>& kpm, bool is_causal) {
  Value out = child(name)->call({x, mem, mem, opt_value(kpm), false, opt_value(mask), true, is_causal});
  return out.to_tensor_list().at(0);
}

Tensor TransformerLayerBase::ff_block(const Tensor& x, const std::string& dropout_name) {
  Tensor h = run("linear2", run("dropout", activation(run("linear1", x))));
  return run(dropout_name, h);
}

// ---- TransformerEncoderLayer ----

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead,
                                                 int64_t dim_feedforward, double dropout,
                                                 const TransformerActivation& act, double eps,
                                                 bool batch_first, bool norm_first,
                                                 TensorOptions options)
    : TransformerLayerBase("TransformerEncoderLayer", norm_first, batch_first) {
  register_module("self_attn", std::make_shared<MultiheadAttention>(
                                   d_model, nhead, dropout, true, false, false, std::nullopt,
                                   std::nullopt, batch_first, options));
  register_module("linear1", std::make_shared<Linear>(d_model, dim_feedforward, true, options));
  register_module("dropout", std::make_shared<Dropout>(dropout));
  register_module("linear2", std::make_shared<Linear>(dim_feedforward, d_model, true, options));
  register_module("norm1", std::make_shared<LayerNorm>(d_model, eps, true, options));
  register_module("norm2", std::make_shared<LayerNorm>(d_model, eps, true, options));
  register_module("dropout1", std::make_shared<Dropout>(dropout));
  register_module("dropout2", std::make_shared<Dropout>(dropout));
  set_activation(act);
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const std::optional<Tensor>& src_mask,
                                        const std::optional<Tensor>& kpm, bool is_causal) {
  check_kpm_dtype(kpm);
  Tensor x = src;
  if (norm_first) {
    // One norm1 output as query, key and value, as PyTorch's _sa_block(self.norm1(x)): the
    // attention then takes its packed in-projection (one linear) and one transpose.
    const Tensor n1 = run("norm1", x);
    x = x + run("dropout1", attend("self_attn", n1, n1, src_mask, kpm, is_causal));
    x = x + ff_block(run("norm2", x), "dropout2");
  } else {
    x = run("norm1", x + run("dropout1", attend("self_attn", x, x, src_mask, kpm, is_causal)));
    x = run("norm2", x + ff_block(x, "dropout2"));
  }
  return x;
}

Value TransformerEncoderLayer::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"src"}, 3);
  return forward(in[0].to_tensor(), value_opt_tensor(in, 1), value_opt_tensor(in, 2),
                 value_bool(in, 3, false));
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t nhead,
                                                 int64_t dim_feedforward, double dropout,
                                                 const TransformerActivation& act, double eps,
                                                 bool batch_first, bool norm_first,
                                                 TensorOptions options)
    : TransformerLayerBase("TransformerDecoderLayer", norm_first, batch_first) {
  for (const char* name : {"self_attn", "multihead_attn"}) {
    register_module(name, std::make_shared<MultiheadAttention>(d_model, nhead, dropout, true, false,
                                                               false, std::nullopt, std::nullopt,
                                                               batch_first, options));
  }
  register_module("linear1", std::make_shared<Linear>(d_model, dim_feedforward, true, options));
  register_module("dropout", std::make_shared<Dropout>(dropout));
  register_module("linear2", std::make_shared<Linear>(dim_feedforward, d_model, true, options));
  for (const char* name : {"norm1", "norm2", "norm3"})
    register_module(name, std::make_shared<LayerNorm>(d_model, eps, true, options));
  for (const char* name : {"dropout1", "dropout2", "dropout3"})
    register_module(name, std::make_shared<Dropout>(dropout));
  set_activation(act);
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory,
                                        const std::optional<Tensor>& tgt_mask,
                                        const std::optional<Tensor>& memory_mask,
                                        const std::optional<Tensor>& tgt_kpm,
                                        const std::optional<Tensor>& memory_kpm,
                                        bool tgt_is_causal, bool memory_is_causal) {
  Tensor x = tgt;
  if (norm_first) {
    Tensor n1 = run("norm1", x);
    x = x + run("dropout1", attend("self_attn", n1, n1, tgt_mask, tgt_kpm, tgt_is_causal));
    x = x + run("dropout2", attend("multihead_attn", run("norm2", x), memory, memory_mask,
                                   memory_kpm, memory_is_causal));
    x = x + ff_block(run("norm3", x), "dropout3");
  } else {
    x = run("norm1", x + run("dropout1", attend("self_attn", x, x, tgt_mask, tgt_kpm, tgt_is_causal)));
    x = run("norm2", x + run("dropout2", attend("multihead_attn", x, memory, memory_mask,
                                                memory_kpm, memory_is_causal)));
    x = run("norm3", x + ff_block(x, "dropout3"));
  }
  return x;
}

Value TransformerDecoderLayer::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"tgt", "memory"}, 6);
  return forward(in[0].to_tensor(), in[1].to_tensor(), value_opt_tensor(in, 2),
                 value_opt_tensor(in, 3), value_opt_tensor(in, 4), value_opt_tensor(in, 5),
                 value_bool(in, 6, false), value_bool(in, 7, false));
}

// ---- stacks ----

namespace {
std::shared_ptr<ModuleList> clones(const std::shared_ptr<Module>& layer, int64_t n) {
  auto list = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < n; ++i) list->append(layer->clone());
  return list;
}
}  // namespace

TransformerEncoder::TransformerEncoder(const std::shared_ptr<Module>& encoder_layer,
                                       int64_t num_layers_, std::shared_ptr<Module> norm,
                                       bool enable_nested_tensor_, bool mask_check_)
    : Module("TransformerEncoder"),
      num_layers(num_layers_),
      enable_nested_tensor(enable_nested_tensor_),
      mask_check(mask_check_) {
  EMBER_CHECK(encoder_layer != nullptr, "TransformerEncoder: encoder_layer is None");
  register_module("layers", clones(encoder_layer, num_layers));
  if (norm) register_module("norm", norm);
}

Tensor TransformerEncoder::forward(const Tensor& src, const std::optional<Tensor>& mask,
                                   const std::optional<Tensor>& kpm, bool is_causal) {
  check_kpm_dtype(kpm);
  Tensor out = src;
  for (const auto& layer : *std::static_pointer_cast<ModuleList>(child("layers"))) {
    out = layer->call({out, opt_value(mask), opt_value(kpm), is_causal}).to_tensor();
  }
  if (auto norm = maybe_child(*this, "norm")) out = (*norm)(out);
  return out;
}

Value TransformerEncoder::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"src"}, 3);
  return forward(in[0].to_tensor(), value_opt_tensor(in, 1), value_opt_tensor(in, 2),
                 value_bool(in, 3, false));
}

TransformerDecoder::TransformerDecoder(const std::shared_ptr<Module>& decoder_layer,
                                       int64_t num_layers_, std::shared_ptr<Module> norm)
    : Module("TransformerDecoder"), num_layers(num_layers_) {
  EMBER_CHECK(decoder_layer != nullptr, "TransformerDecoder: decoder_layer is None");
  register_module("layers", clones(decoder_layer, num_layers));
  if (norm) register_module("norm", norm);
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory,
                                   const std::optional<Tensor>& tgt_mask,
                                   const std::optional<Tensor>& memory_mask,
                                   const std::optional<Tensor>& tgt_kpm,
                                   const std::optional<Tensor>& memory_kpm, bool tgt_is_causal,
                                   bool memory_is_causal) {
  Tensor out = tgt;
  for (const auto& layer : *std::static_pointer_cast<ModuleList>(child("layers"))) {
    out = layer->call({out, memory, opt_value(tgt_mask), opt_value(memory_mask),
                       opt_value(tgt_kpm), opt_value(memory_kpm), tgt_is_causal,
                       memory_is_causal}).to_tensor();
  }
  if (auto norm = maybe_child(*this, "norm")) out = (*norm)(out);
  return out;
}

Value TransformerDecoder::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"tgt", "memory"}, 6);
  return forward(in[0].to_tensor(), in[1].to_tensor(), value_opt_tensor(in, 2),
                 value_opt_tensor(in, 3), value_opt_tensor(in, 4), value_opt_tensor(in, 5),
                 value_bool(in, 6, false), value_bool(in, 7, false));
}

// ---- Transformer ----

Transformer::Transformer(int64_t d_model_, int64_t nhead_, int64_t num_encoder_layers,
                         int64_t num_decoder_layers, int64_t dim_feedforward, double dropout,
                         const TransformerActivation& act, std::shared_ptr<Module> custom_encoder,
                         std::shared_ptr<Module> custom_decoder, double eps, bool batch_first_,
                         bool norm_first, TensorOptions options)
    : Module("Transformer"), d_model(d_model_), nhead(nhead_), batch_first(batch_first_) {
  if (custom_encoder) {
    register_module("encoder", custom_encoder);
  } else {
    auto layer = std::make_shared<TransformerEncoderLayer>(d_model, nhead, dim_feedforward, dropout,
                                                           act, eps, batch_first, norm_first, options);
    auto norm = std::make_shared<LayerNorm>(d_model, eps, true, options);
    register_module("encoder", std::make_shared<TransformerEncoder>(layer, num_encoder_layers, norm));
  }
  if (custom_decoder) {
    register_module("decoder", custom_decoder);
  } else {
    auto layer = std::make_shared<TransformerDecoderLayer>(d_model, nhead, dim_feedforward, dropout,
                                                           act, eps, batch_first, norm_first, options);
    auto norm = std::make_shared<LayerNorm>(d_model, eps, true, options);
    register_module("decoder", std::make_shared<TransformerDecoder>(layer, num_decoder_layers, norm));
  }
  // _reset_parameters
  for (auto& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt,
                            const std::optional<Tensor>& src_mask,
                            const std::optional<Tensor>& tgt_mask,
                            const std::optional<Tensor>& memory_mask,
                            const std::optional<Tensor>& src_kpm,
                            const std::optional<Tensor>& tgt_kpm,
                            const std::optional<Tensor>& memory_kpm) {
  const bool is_batched = src.dim() == 3;
  if (!batch_first && is_batched) {
    EMBER_CHECK(src.size(1) == tgt.size(1), "the batch number of src and tgt must be equal");
  } else if (batch_first && is_batched) {
    EMBER_CHECK(src.size(0) == tgt.size(0), "the batch number of src and tgt must be equal");
  }
  EMBER_CHECK(src.size(-1) == d_model && tgt.size(-1) == d_model,
              "the feature number of src and tgt must be equal to d_model");
  Tensor memory = child("encoder")->call({src, opt_value(src_mask), opt_value(src_kpm)}).to_tensor();
  return child("decoder")
      ->call({tgt, memory, opt_value(tgt_mask), opt_value(memory_mask), opt_value(tgt_kpm),
              opt_value(memory_kpm)})
      .to_tensor();
}

Value Transformer::forward(const std::vector<Value>& in) {
  detail::check_seq_forward_inputs(type_name(), in, {"src", "tgt"}, 6);
  return forward(in[0].to_tensor(), in[1].to_tensor(), value_opt_tensor(in, 2),
                 value_opt_tensor(in, 3), value_opt_tensor(in, 4), value_opt_tensor(in, 5),
                 value_opt_tensor(in, 6), value_opt_tensor(in, 7));
}

Tensor Transformer::generate_square_subsequent_mask(int64_t sz, TensorOptions options) {
  // torch.triu(torch.full((sz, sz), -inf), diagonal=1), from a comparison of indices.
  const TensorOptions idx = TensorOptions(kInt64).device(options.device_or_default());
  const Tensor above = gt(arange(sz, idx).unsqueeze(0), arange(sz, idx).unsqueeze(1));
  Tensor mask = zeros({sz, sz}, options);
  masked_fill_(mask, above, -std::numeric_limits<double>::infinity());
  return mask;
}

namespace {
const bool registered = [] {
  register_cloneable<TransformerEncoderLayer>();
  register_cloneable<TransformerDecoderLayer>();
  register_cloneable<TransformerEncoder>();
  register_cloneable<TransformerDecoder>();
  register_cloneable<Transformer>();
  return true;
}();
}  // namespace

}  // namespace ember::nn
