// PyTorch 1.13's row-wise quantized embedding-bag ops on packed uint8 tensors (no quantized
// tensor involved): each row of a float table is quantized with its own scale and bias
// (min), stored after the row's codes (8-bit: float32 scale and bias, 8 bytes; 4-bit: two codes
// per byte, then float16 scale and bias, 4 bytes).
//
//   Tensor packed = ember::quantized::embedding_bag_byte_prepack(table);    // [N, D + 8] uint8
//   Tensor bags = ember::quantized::embedding_bag_byte_rowwise_offsets(packed, indices, offsets);
//
// The packed-params form (PyTorch's EmbeddingPackedParamsBase), made from a quantized weight of
// scheme per_channel_affine_float_qparams (quint8 or quint4x2, one row per channel):
//
//   Tensor qw = ember::quantize_per_channel(table, scales, zero_points, 0, ember::kQUInt4x2);
//   auto packed = ember::quantized::embedding_bag_prepack(qw);       // bit_rate() == 4
//   Tensor rows = ember::quantized::embedding_4bit(packed, indices);  // [indices..., D]
#pragma once

#include <optional>

#include "ember/custom_class.h"
#include "ember/intrusive_ptr.h"
#include "ember/tensor.h"

namespace ember::quantized {

/// PyTorch's PackedEmbeddingBagWeight: the row-wise packed table (codes, then the row's scale
/// and bias = -zero_point * scale: float32 for 8 bits, float16 for 4), and the float scales and
/// zero points of the quantized weight it came from (what unpack gives back).
class EmbeddingPackedParams : public CustomClassHolder {
 public:
  static constexpr const char* kClassName =
      "__torch__.torch.classes.quantized.EmbeddingPackedParamsBase";
  const char* class_name() const override { return kClassName; }

  /// PyTorch's PackedEmbeddingBagWeight::prepack, with its checks and texts.
  static intrusive_ptr<EmbeddingPackedParams> make(const Tensor& qweight);
  /// The quantized weight back: quint8 [rows, cols], or quint4x2 [rows, 2 * packed bytes].
  Tensor unpack() const;
  /// The packed uint8 table [rows, bytes + 8] (8 bits) or [rows, bytes + 4] (4 bits).
  const Tensor& packed() const { return packed_; }
  int64_t bit_rate() const { return bit_rate_; }
  int64_t version() const { return 1; }

 private:
  Tensor packed_;
  std::vector<float> scales_, zero_points_;
  int64_t bit_rate_ = 8;
};
using EmbeddingPackedParamsPtr = intrusive_ptr<EmbeddingPackedParams>;

/// quantized::embedding_bag_prepack / embedding_bag_unpack.
EmbeddingPackedParamsPtr embedding_bag_prepack(const Tensor& weight);
Tensor embedding_bag_unpack(const EmbeddingPackedParamsPtr& packed);
/// The rows of `indices` (1-d: [n, D]; 2-d: [n, m, D]), read with the 8-bit (byte) or 4-bit
/// layout whatever the bit rate of `weight` (as PyTorch: the op names the layout).
Tensor embedding_byte(const EmbeddingPackedParamsPtr& weight, const Tensor& indices,
                      bool pruned_weights = false);
Tensor embedding_4bit(const EmbeddingPackedParamsPtr& weight, const Tensor& indices,
                      bool pruned_weights = false);
/// embedding_bag_{byte,4bit}_rowwise_offsets on the packed table (sums; mode ignored).
Tensor embedding_bag_byte(const EmbeddingPackedParamsPtr& weight, const Tensor& indices,
                          const std::optional<Tensor>& offsets = std::nullopt,
                          bool scale_grad_by_freq = false, int64_t mode = 0,
                          bool pruned_weights = false,
                          const std::optional<Tensor>& per_sample_weights = std::nullopt,
                          const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
                          bool include_last_offset = false);
Tensor embedding_bag_4bit(const EmbeddingPackedParamsPtr& weight, const Tensor& indices,
                          const std::optional<Tensor>& offsets = std::nullopt,
                          bool scale_grad_by_freq = false, int64_t mode = 0,
                          bool pruned_weights = false,
                          const std::optional<Tensor>& per_sample_weights = std::nullopt,
                          const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
                          bool include_last_offset = false);

/// The 2-bit twins of the 4-bit row-wise ops (four codes per byte, float16 scale and bias).
Tensor embedding_bag_2bit_prepack(const Tensor& weight, bool optimized_qparams = false,
                                  int64_t nbins = 200, double ratio = 0.16);
Tensor embedding_bag_2bit_unpack(const Tensor& weight);
Tensor embedding_bag_2bit_rowwise_offsets(
    const Tensor& weight, const Tensor& indices,
    const std::optional<Tensor>& offsets = std::nullopt,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool pruned_weights = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
    bool include_last_offset = false);

namespace detail {
/// The row-wise lookup every embedding op shares (qembedding.cpp): `bits` 8, 4 or 2;
/// `embedding_op` gives the rows of 1-d / 2-d indices instead of bag sums.
Tensor rowwise_lookup(int bits, const Tensor& packed, const Tensor& indices,
                      const std::optional<Tensor>& offsets, bool pruned,
                      const std::optional<Tensor>& per_sample_weights,
                      const std::optional<Tensor>& mapping, bool include_last_offset,
                      bool embedding_op);
}  // namespace detail

/// weight: float32 / float16 [..., D] -> uint8 [..., D + 8]: codes rint((x - min) * 255 /
/// (max - min + 1e-8)), then scale (max - min) / 255 and bias min as float32.
Tensor embedding_bag_byte_prepack(const Tensor& weight);
/// uint8 [..., D + 8] -> float32 [..., D]: code * scale + bias.
Tensor embedding_bag_byte_unpack(const Tensor& weight);
/// weight: float32 / float16 [N, D] (D even) -> uint8 [N, D / 2 + 4]; with optimized_qparams
/// the row's range comes from aten::choose_qparams_optimized(row, D, nbins, ratio, 4), called
/// through the op table (RuntimeError when the build has no such op).
Tensor embedding_bag_4bit_prepack(const Tensor& weight, bool optimized_qparams = false,
                                  int64_t nbins = 200, double ratio = 0.16);
/// uint8 [N, D / 2 + 4] -> float32 [N, D].
Tensor embedding_bag_4bit_unpack(const Tensor& weight);
/// Sums of the dequantized rows of each bag (mode and scale_grad_by_freq are ignored, as in
/// PyTorch: always sums), optionally weighted per sample; 2-d indices without offsets are bags
/// of fixed length. Output float32 [bags, D].
Tensor embedding_bag_byte_rowwise_offsets(
    const Tensor& weight, const Tensor& indices, const std::optional<Tensor>& offsets = std::nullopt,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool pruned_weights = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
    bool include_last_offset = false);
Tensor embedding_bag_4bit_rowwise_offsets(
    const Tensor& weight, const Tensor& indices, const std::optional<Tensor>& offsets = std::nullopt,
    bool scale_grad_by_freq = false, int64_t mode = 0, bool pruned_weights = false,
    const std::optional<Tensor>& per_sample_weights = std::nullopt,
    const std::optional<Tensor>& compressed_indices_mapping = std::nullopt,
    bool include_last_offset = false);

}  // namespace ember::quantized
