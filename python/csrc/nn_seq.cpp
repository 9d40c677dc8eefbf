// The attention and transformer layers of ember::nn as ember.nn classes (torch 1.13's
// constructor signatures and attributes; forwards take PyTorch's keyword arguments), and
// F.multi_head_attention_forward. Classes get the trampoline of Note [Trampolines for C++
// layers].
#include "nn_cnn.h"

#include "ember/nn/functional_attention.h"
#include "ember/nn/modules/attention.h"
#include "ember/nn/functional_embedding_bag.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/modules/transformer.h"
#include "ember/nn/utils/clip_grad.h"
#include "nn_seq.h"

namespace ember::python {

namespace {

using namespace ember::nn;
using VH = py::detail::value_and_holder;

template <class T, class Base = Module>
using Class = py::class_<T, PyLayer<T>, Base, std::shared_ptr<T>>;

const auto none = py::none();

// A Python callable as the feed-forward activation; kept recognisable (std::function::target)
// so that the `activation` attribute gives the same object back.
struct PyActivation {
  std::shared_ptr<py::object> fn;
  Tensor operator()(const Tensor& x) const {
    py::gil_scoped_acquire gil;
    py::object r = (*fn)(py::reinterpret_steal<py::object>(wrap(x)));
    EMBER_CHECK_TYPE(is_tensor(r.ptr()), "the activation must return a Tensor");
    return unpack(r.ptr());
  }
};

py::object functional_attr(const char* name) {
  return py::module_::import("ember.nn.functional").attr(name);
}

// torch's `activation` argument: "relu" / "gelu", F.relu / F.gelu (the C++ path), a module, or
// any callable.
TransformerActivation activation_arg(py::handle a) {
  if (PyUnicode_Check(a.ptr())) return TransformerActivation(a.cast<std::string>());
  if (a.is(functional_attr("relu"))) return TransformerActivation("relu");
  if (a.is(functional_attr("gelu"))) return TransformerActivation("gelu");
  if (py::isinstance(a, py::module_::import("ember.nn").attr("Module")))
    return TransformerActivation(module_from_py(a));
  EMBER_CHECK_TYPE(PyCallable_Check(a.ptr()), "activation must be a string or a callable, got ",
                   Py_TYPE(a.ptr())->tp_name);
  return TransformerActivation(std::function<Tensor(const Tensor&)>(
      PyActivation{hold_py(py::reinterpret_borrow<py::object>(a))}));
}

py::object activation_attr(TransformerLayerBase& self) {
  if (!self.activation_name.empty()) return functional_attr(self.activation_name.c_str());
  if (self.activation_fn) {
    if (auto* p = self.activation_fn.target<PyActivation>()) return *p->fn;
    return py::cpp_function(self.activation_fn);
  }
  return module_to_py(self.child("activation"));
}

template <class T, class Cls>
void bind_layer_common(Cls& cls) {
  cls.def_readwrite("norm_first", &T::norm_first)
      .def_property_readonly("activation", [](T& self) { return activation_attr(self); })
      .def_property_readonly("activation_relu_or_gelu", [](T& self) {
        return self.activation_name == "relu" ? 1 : self.activation_name == "gelu" ? 2 : 0;
      });
}

std::shared_ptr<Module> opt_module(py::handle o) {
  return o.is_none() ? nullptr : module_from_py(o);
}

void bind_attention(py::module_& m) {
  Class<MultiheadAttention> mha(m, "MultiheadAttention");
  mha.def("__init__",
          [](VH& v_h, int64_t embed_dim, int64_t num_heads, double dropout, bool bias,
             bool add_bias_kv, bool add_zero_attn, std::optional<int64_t> kdim,
             std::optional<int64_t> vdim, bool batch_first, py::object device, py::object dtype) {
            construct_layer<MultiheadAttention>(v_h, embed_dim, num_heads, dropout, bias,
                                                add_bias_kv, add_zero_attn, kdim, vdim,
                                                batch_first, tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("embed_dim"), py::arg("num_heads"),
          py::arg("dropout") = 0.0, py::arg("bias") = true, py::arg("add_bias_kv") = false,
          py::arg("add_zero_attn") = false, py::arg("kdim") = none, py::arg("vdim") = none,
          py::arg("batch_first") = false, py::arg("device") = none, py::arg("dtype") = none)
      .def("_reset_parameters", &MultiheadAttention::reset_parameters)
      .def_readwrite("embed_dim", &MultiheadAttention::embed_dim)
      .def_readwrite("kdim", &MultiheadAttention::kdim)
      .def_readwrite("vdim", &MultiheadAttention::vdim)
      .def_readwrite("_qkv_same_embed_dim", &MultiheadAttention::_qkv_same_embed_dim)
      .def_readwrite("num_heads", &MultiheadAttention::num_heads)
      .def_readwrite("dropout", &MultiheadAttention::dropout)
      .def_readwrite("batch_first", &MultiheadAttention::batch_first)
      .def_readwrite("head_dim", &MultiheadAttention::head_dim)
      .def_readwrite("add_zero_attn", &MultiheadAttention::add_zero_attn);
  bind_kw_forward<MultiheadAttention>(
      mha, {"query", "key", "value", "key_padding_mask", "need_weights", "attn_mask",
            "average_attn_weights", "is_causal"},
      3, {none, py::bool_(true), none, py::bool_(true), py::bool_(false)});

  m.def("multi_head_attention_forward",
        [](const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check,
           int64_t num_heads, std::optional<Tensor> in_proj_weight,
           std::optional<Tensor> in_proj_bias, std::optional<Tensor> bias_k,
           std::optional<Tensor> bias_v, bool add_zero_attn, double dropout_p,
           const Tensor& out_proj_weight, std::optional<Tensor> out_proj_bias, bool training,
           std::optional<Tensor> key_padding_mask, bool need_weights,
           std::optional<Tensor> attn_mask, bool use_separate_proj_weight,
           std::optional<Tensor> q_proj_weight, std::optional<Tensor> k_proj_weight,
           std::optional<Tensor> v_proj_weight, std::optional<Tensor> static_k,
           std::optional<Tensor> static_v, bool average_attn_weights, bool is_causal) {
          functional::MultiHeadAttentionArgs a;
          a.in_proj_weight = in_proj_weight;
          a.in_proj_bias = in_proj_bias;
          a.bias_k = bias_k;
          a.bias_v = bias_v;
          a.add_zero_attn = add_zero_attn;
          a.dropout_p = dropout_p;
          a.out_proj_weight = out_proj_weight;
          a.out_proj_bias = out_proj_bias;
          a.training = training;
          a.key_padding_mask = key_padding_mask;
          a.need_weights = need_weights;
          a.attn_mask = attn_mask;
          a.use_separate_proj_weight = use_separate_proj_weight;
          a.q_proj_weight = q_proj_weight;
          a.k_proj_weight = k_proj_weight;
          a.v_proj_weight = v_proj_weight;
          a.static_k = static_k;
          a.static_v = static_v;
          a.average_attn_weights = average_attn_weights;
          a.is_causal = is_causal;
          auto [out, w] = functional::multi_head_attention_forward(query, key, value,
                                                                   embed_dim_to_check, num_heads, a);
          return py::make_tuple(py::reinterpret_steal<py::object>(wrap(out)),
                                py::reinterpret_steal<py::object>(wrap(w)));
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("embed_dim_to_check"),
        py::arg("num_heads"), py::arg("in_proj_weight"), py::arg("in_proj_bias"),
        py::arg("bias_k"), py::arg("bias_v"), py::arg("add_zero_attn"), py::arg("dropout_p"),
        py::arg("out_proj_weight"), py::arg("out_proj_bias"), py::arg("training") = true,
        py::arg("key_padding_mask") = none, py::arg("need_weights") = true,
        py::arg("attn_mask") = none, py::arg("use_separate_proj_weight") = false,
        py::arg("q_proj_weight") = none, py::arg("k_proj_weight") = none,
        py::arg("v_proj_weight") = none, py::arg("static_k") = none, py::arg("static_v") = none,
        py::arg("average_attn_weights") = true, py::arg("is_causal") = false);
}

void bind_transformer(py::module_& m) {
  py::class_<TransformerLayerBase, Module, std::shared_ptr<TransformerLayerBase>>(
      m, "_TransformerLayerBase");
  Class<TransformerEncoderLayer, TransformerLayerBase> enc_layer(m, "TransformerEncoderLayer");
  enc_layer.def(
      "__init__",
      [](VH& v_h, int64_t d_model, int64_t nhead, int64_t dim_ff, double dropout,
         py::object activation, double eps, bool batch_first, bool norm_first, py::object device,
         py::object dtype) {
        construct_layer<TransformerEncoderLayer>(v_h, d_model, nhead, dim_ff, dropout,
                                                 activation_arg(activation), eps, batch_first,
                                                 norm_first, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("d_model"), py::arg("nhead"),
      py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1, py::arg("activation") = "relu",
      py::arg("layer_norm_eps") = 1e-5, py::arg("batch_first") = false,
      py::arg("norm_first") = false, py::arg("device") = none, py::arg("dtype") = none);
  bind_layer_common<TransformerEncoderLayer>(enc_layer);
  bind_kw_forward<TransformerEncoderLayer>(
      enc_layer, {"src", "src_mask", "src_key_padding_mask", "is_causal"}, 1,
      {none, none, py::bool_(false)});

  Class<TransformerDecoderLayer, TransformerLayerBase> dec_layer(m, "TransformerDecoderLayer");
  dec_layer.def(
      "__init__",
      [](VH& v_h, int64_t d_model, int64_t nhead, int64_t dim_ff, double dropout,
         py::object activation, double eps, bool batch_first, bool norm_first, py::object device,
         py::object dtype) {
        construct_layer<TransformerDecoderLayer>(v_h, d_model, nhead, dim_ff, dropout,
                                                 activation_arg(activation), eps, batch_first,
                                                 norm_first, tensor_options(device, dtype));
      },
      py::detail::is_new_style_constructor(), py::arg("d_model"), py::arg("nhead"),
      py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1, py::arg("activation") = "relu",
      py::arg("layer_norm_eps") = 1e-5, py::arg("batch_first") = false,
      py::arg("norm_first") = false, py::arg("device") = none, py::arg("dtype") = none);
  bind_layer_common<TransformerDecoderLayer>(dec_layer);
  bind_kw_forward<TransformerDecoderLayer>(
      dec_layer,
      {"tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask",
       "memory_key_padding_mask", "tgt_is_causal", "memory_is_causal"},
      2, {none, none, none, none, py::bool_(false), py::bool_(false)});

  Class<TransformerEncoder> enc(m, "TransformerEncoder");
  enc.def("__init__",
          [](VH& v_h, py::object layer, int64_t num_layers, py::object norm,
             bool enable_nested_tensor, bool mask_check) {
            construct_layer<TransformerEncoder>(v_h, module_from_py(layer), num_layers,
                                                opt_module(norm), enable_nested_tensor, mask_check);
          },
          py::detail::is_new_style_constructor(), py::arg("encoder_layer"), py::arg("num_layers"),
          py::arg("norm") = none, py::arg("enable_nested_tensor") = true,
          py::arg("mask_check") = true)
      .def_readwrite("num_layers", &TransformerEncoder::num_layers)
      .def_readwrite("enable_nested_tensor", &TransformerEncoder::enable_nested_tensor)
      .def_readwrite("mask_check", &TransformerEncoder::mask_check);
  bind_kw_forward<TransformerEncoder>(enc, {"src", "mask", "src_key_padding_mask", "is_causal"}, 1,
                                      {none, none, none});

  Class<TransformerDecoder> dec(m, "TransformerDecoder");
  dec.def("__init__",
          [](VH& v_h, py::object layer, int64_t num_layers, py::object norm) {
            construct_layer<TransformerDecoder>(v_h, module_from_py(layer), num_layers,
                                                opt_module(norm));
          },
          py::detail::is_new_style_constructor(), py::arg("decoder_layer"), py::arg("num_layers"),
          py::arg("norm") = none)
      .def_readwrite("num_layers", &TransformerDecoder::num_layers);
  bind_kw_forward<TransformerDecoder>(
      dec,
      {"tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask",
       "memory_key_padding_mask", "tgt_is_causal", "memory_is_causal"},
      2, {none, none, none, none, py::bool_(false), py::bool_(false)});

  Class<Transformer> tr(m, "Transformer");
  tr.def("__init__",
         [](VH& v_h, int64_t d_model, int64_t nhead, int64_t n_enc, int64_t n_dec, int64_t dim_ff,
            double dropout, py::object activation, py::object custom_encoder,
            py::object custom_decoder, double eps, bool batch_first, bool norm_first,
            py::object device, py::object dtype) {
           construct_layer<Transformer>(v_h, d_model, nhead, n_enc, n_dec, dim_ff, dropout,
                                        activation_arg(activation), opt_module(custom_encoder),
                                        opt_module(custom_decoder), eps, batch_first, norm_first,
                                        tensor_options(device, dtype));
         },
         py::detail::is_new_style_constructor(), py::arg("d_model") = 512, py::arg("nhead") = 8,
         py::arg("num_encoder_layers") = 6, py::arg("num_decoder_layers") = 6,
         py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1,
         py::arg("activation") = "relu", py::arg("custom_encoder") = none,
         py::arg("custom_decoder") = none, py::arg("layer_norm_eps") = 1e-5,
         py::arg("batch_first") = false, py::arg("norm_first") = false, py::arg("device") = none,
         py::arg("dtype") = none)
      .def_readwrite("d_model", &Transformer::d_model)
      .def_readwrite("nhead", &Transformer::nhead)
      .def_readwrite("batch_first", &Transformer::batch_first)
      .def_static("generate_square_subsequent_mask",
                  [](int64_t sz, py::object device, py::object dtype) {
                    return Transformer::generate_square_subsequent_mask(
                        sz, tensor_options(device, dtype));
                  },
                  py::arg("sz"), py::arg("device") = none, py::arg("dtype") = none);
  bind_kw_forward<Transformer>(
      tr,
      {"src", "tgt", "src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask",
       "tgt_key_padding_mask", "memory_key_padding_mask"},
      2, {none, none, none, none, none, none});
}

void bind_embedding_bag(py::module_& m) {
  Class<EmbeddingBag> bag(m, "EmbeddingBag");
  bag.def("__init__",
          [](VH& v_h, int64_t num, int64_t dim, std::optional<double> max_norm, double norm_type,
             bool scale_grad_by_freq, const std::string& mode, bool sparse, py::object weight,
             bool include_last_offset, std::optional<int64_t> padding_idx, py::object device,
             py::object dtype) {
            construct_layer<EmbeddingBag>(v_h, num, dim, max_norm, norm_type, scale_grad_by_freq,
                                          mode, sparse,
                                          weight.is_none() ? Tensor() : unpack(weight.ptr()),
                                          include_last_offset, padding_idx,
                                          tensor_options(device, dtype));
          },
          py::detail::is_new_style_constructor(), py::arg("num_embeddings"),
          py::arg("embedding_dim"), py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
          py::arg("scale_grad_by_freq") = false, py::arg("mode") = "mean",
          py::arg("sparse") = false, py::arg("_weight") = none,
          py::arg("include_last_offset") = false, py::arg("padding_idx") = none,
          py::arg("device") = none, py::arg("dtype") = none)
      .def_static("from_pretrained", &EmbeddingBag::from_pretrained, py::arg("embeddings"),
                  py::arg("freeze") = true, py::arg("max_norm") = none,
                  py::arg("norm_type") = 2.0, py::arg("scale_grad_by_freq") = false,
                  py::arg("mode") = "mean", py::arg("sparse") = false,
                  py::arg("include_last_offset") = false, py::arg("padding_idx") = none)
      .def("reset_parameters", &EmbeddingBag::reset_parameters)
      .def_readwrite("num_embeddings", &EmbeddingBag::num_embeddings)
      .def_readwrite("embedding_dim", &EmbeddingBag::embedding_dim)
      .def_readwrite("max_norm", &EmbeddingBag::max_norm)
      .def_readwrite("norm_type", &EmbeddingBag::norm_type)
      .def_readwrite("scale_grad_by_freq", &EmbeddingBag::scale_grad_by_freq)
      .def_readwrite("mode", &EmbeddingBag::mode)
      .def_readwrite("sparse", &EmbeddingBag::sparse)
      .def_readwrite("include_last_offset", &EmbeddingBag::include_last_offset)
      .def_readwrite("padding_idx", &EmbeddingBag::padding_idx);
  bind_kw_forward<EmbeddingBag>(bag, {"input", "offsets", "per_sample_weights"}, 1, {none, none});

  m.def("embedding_bag", &functional::embedding_bag, py::arg("input"), py::arg("weight"),
        py::arg("offsets") = none, py::arg("max_norm") = none, py::arg("norm_type") = 2.0,
        py::arg("scale_grad_by_freq") = false, py::arg("mode") = "mean",
        py::arg("sparse") = false, py::arg("per_sample_weights") = none,
        py::arg("include_last_offset") = false, py::arg("padding_idx") = none);
  m.def("clip_grad_norm_", &utils::clip_grad_norm_, py::arg("parameters"), py::arg("max_norm"),
        py::arg("norm_type") = 2.0, py::arg("error_if_nonfinite") = false);
  m.def("clip_grad_value_", &utils::clip_grad_value_, py::arg("parameters"),
        py::arg("clip_value"));
}

}  // namespace

void init_nn_seq(py::module_& parent) {
  py::module_ m = parent.attr("_nn");
  bind_attention(m);
  bind_transformer(m);
  bind_embedding_bag(m);
}

}  // namespace ember::python
