// torch.nn.TransformerEncoderLayer / TransformerEncoder / TransformerDecoderLayer /
// TransformerDecoder / Transformer: PyTorch 1.13's children (names and order), initialisation,
// forward (post-norm or norm_first) and errors; masks as in nn::MultiheadAttention.
//
//   auto layer = std::make_shared<nn::TransformerEncoderLayer>(64, 4, 256, 0.1, "gelu");
//   nn::TransformerEncoder enc(layer, 2);                      // two independent copies
//   Tensor y = enc.forward(x, nn::Transformer::generate_square_subsequent_mask(10));
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// The feed-forward activation: "relu" / "gelu" (torch's F.relu / F.gelu), any function, or a
/// module (registered as the child "activation", as PyTorch's attribute assignment does).
struct TransformerActivation {
  TransformerActivation(const char* n) : name(n) {}  // NOLINT
  TransformerActivation(std::string n) : name(std::move(n)) {}  // NOLINT
  TransformerActivation(std::function<Tensor(const Tensor&)> f) : fn(std::move(f)) {}  // NOLINT
  TransformerActivation(std::shared_ptr<Module> m) : module(std::move(m)) {}  // NOLINT
  std::string name;
  std::function<Tensor(const Tensor&)> fn;
  std::shared_ptr<Module> module;
};

/// TransformerEncoderLayer / TransformerDecoderLayer's arguments (libtorch's
/// TransformerEncoderLayerOptions, with PyTorch's batch_first and norm_first).
struct TransformerLayerOptions {
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(TransformerActivation, activation) = "relu";
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
  EMBER_ARG(TensorOptions, options) = {};
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

/// Shared by the two layers: the activation and the feed-forward block.
class TransformerLayerBase : public Module {
 public:
  /// "relu", "gelu", or "" for a function or a module.
  std::string activation_name;
  std::function<Tensor(const Tensor&)> activation_fn;
  bool norm_first;
  bool batch_first;

 protected:
  TransformerLayerBase(const char* type, bool norm_first, bool batch_first)
      : Module(type), norm_first(norm_first), batch_first(batch_first) {}
  /// Registers a module activation (after the other children) or keeps the function / name.
  void set_activation(const TransformerActivation& act);
  Tensor activation(const Tensor& x);
  Tensor run(const std::string& child_name, const Tensor& x);
  /// child(name)(x, mem, mem, attn_mask=..., key_padding_mask=..., need_weights=False)[0]
  Tensor attend(const std::string& child_name, const Tensor& x, const Tensor& mem,
                const std::optional<Tensor>& mask, const std::optional<Tensor>& kpm, bool is_causal);
  /// linear2(dropout(activation(linear1(x)))), then `dropout_name`.
  Tensor ff_block(const Tensor& x, const std::string& dropout_name);
};

class TransformerEncoderLayer : public TransformerLayerBase {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048,
                          double dropout = 0.1, const TransformerActivation& activation = "relu",
                          double layer_norm_eps = 1e-5, bool batch_first = false,
                          bool norm_first = false, TensorOptions options = {});
  explicit TransformerEncoderLayer(const TransformerEncoderLayerOptions& o)
      : TransformerEncoderLayer(o.d_model(), o.nhead(), o.dim_feedforward(), o.dropout(),
                                o.activation(), o.layer_norm_eps(), o.batch_first(),
                                o.norm_first(), o.options()) {}
  Tensor forward(const Tensor& src, const std::optional<Tensor>& src_mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt,
                 bool is_causal = false);
  /// (src, src_mask=None, src_key_padding_mask=None, is_causal=False)
  Value forward(const std::vector<Value>& inputs) override;
};

class TransformerDecoderLayer : public TransformerLayerBase {
 public:
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048,
                          double dropout = 0.1, const TransformerActivation& activation = "relu",
                          double layer_norm_eps = 1e-5, bool batch_first = false,
                          bool norm_first = false, TensorOptions options = {});
  explicit TransformerDecoderLayer(const TransformerDecoderLayerOptions& o)
      : TransformerDecoderLayer(o.d_model(), o.nhead(), o.dim_feedforward(), o.dropout(),
                                o.activation(), o.layer_norm_eps(), o.batch_first(),
                                o.norm_first(), o.options()) {}
  Tensor forward(const Tensor& tgt, const Tensor& memory,
                 const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt,
                 bool tgt_is_causal = false, bool memory_is_causal = false);
  /// (tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
  /// tgt_is_causal=False, memory_is_causal=False)
  Value forward(const std::vector<Value>& inputs) override;
};

/// `num_layers` deep copies of `encoder_layer` in the ModuleList "layers", then `norm` (None
/// when null).
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const std::shared_ptr<Module>& encoder_layer, int64_t num_layers,
                     std::shared_ptr<Module> norm = nullptr, bool enable_nested_tensor = true,
                     bool mask_check = true);
  Tensor forward(const Tensor& src, const std::optional<Tensor>& mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt,
                 bool is_causal = false);
  /// (src, mask=None, src_key_padding_mask=None, is_causal=None)
  Value forward(const std::vector<Value>& inputs) override;
  int64_t num_layers;
  bool enable_nested_tensor;
  bool mask_check;
};

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const std::shared_ptr<Module>& decoder_layer, int64_t num_layers,
                     std::shared_ptr<Module> norm = nullptr);
  Tensor forward(const Tensor& tgt, const Tensor& memory,
                 const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt,
                 bool tgt_is_causal = false, bool memory_is_causal = false);
  Value forward(const std::vector<Value>& inputs) override;
  int64_t num_layers;
};

/// encoder (a TransformerEncoder with a final LayerNorm, or custom_encoder) and decoder; every
/// parameter with more than one dimension re-drawn with xavier_uniform_.
class Transformer : public Module {
 public:
  Transformer(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
              int64_t num_decoder_layers = 6, int64_t dim_feedforward = 2048,
              double dropout = 0.1, const TransformerActivation& activation = "relu",
              std::shared_ptr<Module> custom_encoder = nullptr,
              std::shared_ptr<Module> custom_decoder = nullptr, double layer_norm_eps = 1e-5,
              bool batch_first = false, bool norm_first = false, TensorOptions options = {});
  Tensor forward(const Tensor& src, const Tensor& tgt,
                 const std::optional<Tensor>& src_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;
  /// [sz, sz] float: -inf above the diagonal, 0 elsewhere.
  static Tensor generate_square_subsequent_mask(int64_t sz, TensorOptions options = {});

  int64_t d_model;
  int64_t nhead;
  bool batch_first;
};

}  // namespace ember::nn
