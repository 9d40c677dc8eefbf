// quantized::embedding_bag_prepack / embedding_bag_unpack and the lookups on the packed object
// (embedding_byte / embedding_4bit, embedding_bag_byte / embedding_bag_4bit): PyTorch 1.13's
// PackedEmbeddingBagWeight (qembeddingbag_prepack.cpp, qembeddingbag_unpack.cpp) and its
// non-FBGEMM lookups, which are the row-wise ops' (qembedding.cpp, detail::rowwise_lookup).
//
// Note [Packed float-qparams embedding tables]
// prepack copies the codes row by row and stores after them the row's scale and bias, where
// bias = zero_point * scale * -1 (float32, in that order of operations); the 4-bit form stores
// both as float16 (rounded to nearest). The codes of a quint4x2 weight are copied as bytes,
// ceil(cols / 2) per row, read at row * ceil(cols / 2) of its storage: for an odd number of
// columns this is not where quantize_per_channel put them (it packs in flat order), and
// PyTorch 1.13 reads them that way all the same; ember does too, so the packed bytes (and
// lookups) are PyTorch's. unpack returns the scales and zero points the weight had (float32),
// not the float16 ones. The lookup ops read the packed bytes with the layout their name says,
// whatever the bit rate of the object, as PyTorch does.
#include <cstring>

#include "../dispatch/boxing.h"
#include "dispatch/dispatcher.h"
#include "ember/half.h"
#include "ember/ops/factory.h"
#include "ember/quantized/embedding.h"
#include "ember/quantized/tensor.h"
#include "quantizer.h"

namespace ember::quantized {

using dispatch::OpId;
using Packed = EmbeddingPackedParamsPtr;

intrusive_ptr<EmbeddingPackedParams> EmbeddingPackedParams::make(const Tensor& qweight) {
  EMBER_CHECK(qweight.dim() == 2, "quantized::embedding_bag_prepack weight tensor rank should be 2");
  EMBER_CHECK(qweight.dtype() == kQUInt8 || qweight.dtype() == kQUInt4x2,
              "qembedding_bag_prepack currently only supports quint8 and quint4x2 weights");
  const int bits = qweight.dtype() == kQUInt8 ? 8 : 4;
  const int64_t scale_bias_bytes = bits == 8 ? 8 : 4;
  const int64_t per_byte = 8 / bits;
  const int64_t rows = qweight.size(0), cols = qweight.size(1);
  const auto* pf = as_per_channel_float_qparams(get_quantizer(qweight));
  EMBER_CHECK(pf, "Expect embedding_bag weights to be quantized using "
                  "kPerChannelAffineFloatQParams");
  EMBER_CHECK(pf->channels() >= rows, "quantized::embedding_bag_prepack: expected one scale and "
              "zero point per row (", rows, "), got ", pf->channels());
  auto p = make_intrusive<EmbeddingPackedParams>();
  p->bit_rate_ = bits;
  const float* s = pf->scales().data_ptr<float>();
  const float* z = pf->zero_points().data_ptr<float>();
  p->scales_.assign(s, s + rows);
  p->zero_points_.assign(z, z + rows);
  const int64_t code_bytes = (cols + per_byte - 1) / per_byte;
  const int64_t out_cols = code_bytes + scale_bias_bytes;
  p->packed_ = empty({rows, out_cols}, TensorOptions(kUInt8).device(qweight.device()));
  if (p->packed_.is_meta() || rows == 0) return p;
  // 8 bits: the codes in row-major order; sub-byte: the weight's own bytes (see the Note).
  const Tensor dense = bits == 8 ? codes_view(qweight).contiguous() : Tensor();
  const auto* in = static_cast<const uint8_t*>(bits == 8 ? dense.data_ptr() : qweight.data_ptr());
  auto* out = p->packed_.data_ptr<uint8_t>();
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* orow = out + r * out_cols;
    std::memcpy(orow, in + r * code_bytes, static_cast<size_t>(code_bytes));
    const float bias = z[r] * s[r] * -1;
    if (bits == 8) {
      std::memcpy(orow + code_bytes, &s[r], sizeof(float));
      std::memcpy(orow + code_bytes + sizeof(float), &bias, sizeof(float));
    } else {
      const Half sb[2] = {Half(s[r]), Half(bias)};
      std::memcpy(orow + code_bytes, sb, sizeof sb);
    }
  }
  return p;
}

Tensor EmbeddingPackedParams::unpack() const {
  const int64_t per_byte = 8 / bit_rate_;
  const int64_t scale_bias_bytes = bit_rate_ == 8 ? 8 : 4;
  const int64_t rows = packed_.size(0), in_cols = packed_.size(1);
  const int64_t code_bytes = in_cols - scale_bias_bytes;
  const int64_t out_cols = code_bytes * per_byte;
  Tensor scales = empty({rows}, TensorOptions(kFloat32));
  Tensor zero_points = empty({rows}, TensorOptions(kFloat32));
  if (rows) {
    std::memcpy(scales.data_ptr(), scales_.data(), rows * sizeof(float));
    std::memcpy(zero_points.data_ptr(), zero_points_.data(), rows * sizeof(float));
  }
  Tensor out = new_qtensor({rows, out_cols},
                           make_per_channel_affine_quantizer(scales, zero_points, 0,
                                                             bit_rate_ == 8 ? kQUInt8 : kQUInt4x2),
                           packed_.device());
  if (out.is_meta() || rows == 0) return out;
  const auto* in = packed_.data_ptr<uint8_t>();
  auto* o = static_cast<uint8_t*>(out.data_ptr());
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(o + r * code_bytes, in + r * in_cols, static_cast<size_t>(code_bytes));
  return out;
}

namespace {

const EmbeddingPackedParams& packed_or_throw(const Packed& p, const char* op) {
  EMBER_CHECK_TYPE(p, op, ": expected an EmbeddingPackedParamsBase object, got None");
  return *p;
}

Packed prepack_q(const Tensor& weight) { return EmbeddingPackedParams::make(weight); }
// A float weight: PyTorch registers embedding_bag_prepack for QuantizedCPU only.
Packed prepack_cpu(const Tensor&) {
  dispatch::no_kernel_error(OpId::quantized_embedding_bag_prepack, "CPU");
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_embedding_bag_prepack, &prepack_q);
  return true;
}();

Tensor unpack_impl(const Packed& p) {
  return packed_or_throw(p, "quantized::embedding_bag_unpack").unpack();
}

template <int kBits>
Tensor embedding_impl(const Packed& p, const Tensor& indices, const bool& pruned_weights) {
  const auto& w = packed_or_throw(p, kBits == 8 ? "quantized::embedding_byte"
                                                : "quantized::embedding_4bit");
  return detail::rowwise_lookup(kBits, w.packed(), indices, std::nullopt, pruned_weights,
                                std::nullopt, std::nullopt, false, true);
}

template <int kBits>
Tensor embedding_bag_impl(const Packed& p, const Tensor& indices,
                          const std::optional<Tensor>& offsets, const bool& /*scale_grad_by_freq*/,
                          const int64_t& /*mode*/, const bool& pruned_weights,
                          const std::optional<Tensor>& per_sample_weights,
                          const std::optional<Tensor>& compressed_indices_mapping,
                          const bool& include_last_offset) {
  const auto& w = packed_or_throw(p, kBits == 8 ? "quantized::embedding_bag_byte"
                                                : "quantized::embedding_bag_4bit");
  return detail::rowwise_lookup(kBits, w.packed(), indices, offsets, pruned_weights,
                                per_sample_weights, compressed_indices_mapping,
                                include_last_offset, false);
}

}  // namespace

Packed embedding_bag_prepack(const Tensor& weight) {
  return dispatch::call<&prepack_cpu>(OpId::quantized_embedding_bag_prepack, weight);
}
EMBER_REGISTER_OP(quantized_embedding_bag_prepack, &embedding_bag_prepack);

Tensor embedding_bag_unpack(const Packed& packed) {
  return dispatch::call<&unpack_impl>(OpId::quantized_embedding_bag_unpack, packed);
}
EMBER_REGISTER_OP(quantized_embedding_bag_unpack, &embedding_bag_unpack);

Tensor embedding_byte(const Packed& weight, const Tensor& indices, bool pruned_weights) {
  return dispatch::call<&embedding_impl<8>>(OpId::quantized_embedding_byte, weight, indices,
                                            pruned_weights);
}
EMBER_REGISTER_OP(quantized_embedding_byte, &embedding_byte);

Tensor embedding_4bit(const Packed& weight, const Tensor& indices, bool pruned_weights) {
  return dispatch::call<&embedding_impl<4>>(OpId::quantized_embedding_4bit, weight, indices,
                                            pruned_weights);
}
EMBER_REGISTER_OP(quantized_embedding_4bit, &embedding_4bit);

Tensor embedding_bag_byte(const Packed& weight, const Tensor& indices,
                          const std::optional<Tensor>& offsets, bool scale_grad_by_freq,
                          int64_t mode, bool pruned_weights,
                          const std::optional<Tensor>& per_sample_weights,
                          const std::optional<Tensor>& compressed_indices_mapping,
                          bool include_last_offset) {
  return dispatch::call<&embedding_bag_impl<8>>(
      OpId::quantized_embedding_bag_byte, weight, indices, offsets, scale_grad_by_freq, mode,
      pruned_weights, per_sample_weights, compressed_indices_mapping, include_last_offset);
}
EMBER_REGISTER_OP(quantized_embedding_bag_byte, &embedding_bag_byte);

Tensor embedding_bag_4bit(const Packed& weight, const Tensor& indices,
                          const std::optional<Tensor>& offsets, bool scale_grad_by_freq,
                          int64_t mode, bool pruned_weights,
                          const std::optional<Tensor>& per_sample_weights,
                          const std::optional<Tensor>& compressed_indices_mapping,
                          bool include_last_offset) {
  return dispatch::call<&embedding_bag_impl<4>>(
      OpId::quantized_embedding_bag_4bit, weight, indices, offsets, scale_grad_by_freq, mode,
      pruned_weights, per_sample_weights, compressed_indices_mapping, include_last_offset);
}
EMBER_REGISTER_OP(quantized_embedding_bag_4bit, &embedding_bag_4bit);

}  // namespace ember::quantized
