// quantized::embedding_bag_{byte,4bit,2bit}_{prepack,unpack,rowwise_offsets} (ember/quantized/
// embedding.h) and the row-wise lookup the packed-params ops share (qembedding_packed.cpp): PyTorch 1.13's non-FBGEMM paths (qembeddingbag_prepack.cpp,
// qembeddingbag_unpack.cpp and qembeddingbag.cpp's embedding_lookup_fallback_impl), which are
// what Debian's torch runs. Float ops: the CPU backend (the tables are float, the packed form
// uint8). Each loop is scalar and is its own reference.
#include "ember/quantized/embedding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include "../dispatch/boxing.h"
#include "ember/dispatch.h"
#include "ember/half.h"
#include "ember/ops/factory.h"

namespace ember::quantized {

using dispatch::OpId;

namespace {

constexpr float kEpsilon = 1e-8f;

std::vector<int64_t> sizes_vec(const Tensor& t) {
  const auto s = t.sizes();
  return {s.begin(), s.end()};
}

Tensor float_table(const Tensor& weight, const char* name) {
  EMBER_CHECK(weight.dtype() == kFloat32 || weight.dtype() == kFloat16, "'", name,
              "' only support float32 or float16.");
  return weight.to(kFloat32).contiguous();
}

void check_packed(const Tensor& packed) {
  EMBER_CHECK(packed.dtype() == kUInt8, "expected scalar type Byte but found ",
              scalar_type_name(packed.dtype()));
}

// ---- 8-bit ----

Tensor byte_prepack_impl(const Tensor& weight) {
  const Tensor w = float_table(weight, "embedding_bag_byte_prepack");
  std::vector<int64_t> shape = sizes_vec(w);
  EMBER_CHECK(!shape.empty(), "embedding_bag_byte_prepack: expected a weight with at least one "
                              "dimension, got a 0-d tensor");
  const int64_t D = shape.back();
  const int64_t rows = D == 0 ? 0 : w.numel() / D;
  shape.back() = D + 8;
  Tensor out = empty(shape, TensorOptions(kUInt8));
  const float* in = w.data_ptr<float>();
  uint8_t* o = out.data_ptr<uint8_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * D;
    uint8_t* orow = o + r * (D + 8);
    const float mn = *std::min_element(row, row + D);
    const float mx = *std::max_element(row, row + D);
    const float range = mx - mn;
    const float scale_bias[2] = {range / 255.0f, mn};
    std::memcpy(orow + D, scale_bias, sizeof scale_bias);
    const float inverse_scale = 255.0f / (range + kEpsilon);
    for (int64_t c = 0; c < D; ++c) {
      orow[c] = static_cast<uint8_t>(std::lrintf((row[c] - mn) * inverse_scale));
    }
  }
  return out;
}

Tensor byte_unpack_impl(const Tensor& packed_in) {
  check_packed(packed_in);
  const Tensor packed = packed_in.contiguous();
  std::vector<int64_t> shape = sizes_vec(packed);
  EMBER_CHECK(!shape.empty() && shape.back() >= 8,
              "embedding_bag_byte_unpack: expected rows of at least 8 bytes (codes, then a "
              "float32 scale and bias)");
  const int64_t cols = shape.back(), D = cols - 8;
  const int64_t rows = packed.numel() / cols;
  shape.back() = D;
  Tensor out = empty(shape, TensorOptions(kFloat32));
  const uint8_t* in = packed.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = in + r * cols;
    float sb[2];
    std::memcpy(sb, row + D, sizeof sb);
    for (int64_t c = 0; c < D; ++c) o[r * D + c] = static_cast<float>(row[c]) * sb[0] + sb[1];
  }
  return out;
}

// ---- 4-bit ----

// Note [choose_qparams_optimized by name]
// optimized_qparams takes each row's range from aten::choose_qparams_optimized (torch's greedy
// histogram search), a row of another part of the op table. It is called by name through the
// dispatcher, so this file does not depend on where that op is built; a build without it says
// so instead of packing with another range.
std::pair<float, float> optimized_range(const Tensor& row, int64_t nbins, double ratio, int bits) {
  const char* name = "aten::choose_qparams_optimized";
  EMBER_CHECK(!op_overloads(name).empty(), "embedding_bag_4bit_prepack: optimized_qparams=True "
              "needs aten::choose_qparams_optimized, which this build of ember does not have");
  Stack out = find_op(name).call({Value(row), Value(row.numel()), Value(nbins), Value(ratio),
                                  Value(static_cast<int64_t>(bits))});
  EMBER_CHECK(out.size() == 2 && out[0].to_tensor().numel() == 1 &&
                  out[1].to_tensor().numel() == 1,
              "Expected choose_qparams_optimized to return min/max tensors of size 1");
  // (xmax, xmin), in that order
  return {out[1].to_tensor().item().to<float>(), out[0].to_tensor().item().to<float>()};
}

// 4 or 2 bits per code (kBits), float16 scale and bias after each row's codes.
template <int kBits>
Tensor nbit_prepack_impl(const Tensor& weight, const bool& optimized_qparams,
                         const int64_t& nbins, const double& ratio) {
  constexpr int kPerByte = 8 / kBits;
  EMBER_CHECK(weight.dtype() == kFloat32 || weight.dtype() == kFloat16,
              "'qembeddingbag_nbit_prepack' only support float32 or float16.");
  EMBER_CHECK(weight.dim() == 2, "embedding_bag_", kBits, "bit_prepack: expected a 2-d weight "
                                 "[rows, columns], got ", weight.dim(), " dimensions");
  EMBER_CHECK(weight.size(1) % kPerByte == 0, "qembeddingbag_", kBits,
              "bit_prepack only works for the number of columns a multiple of ", kPerByte);
  const Tensor w = weight.to(kFloat32).contiguous();
  const int64_t rows = w.size(0), D = w.size(1), packed_cols = D / kPerByte;
  const int64_t cols = packed_cols + 4;
  Tensor out = empty({rows, cols}, TensorOptions(kUInt8));
  const float* in = w.data_ptr<float>();
  uint8_t* o = out.data_ptr<uint8_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * D;
    uint8_t* orow = o + r * cols;
    float xmin = 0.0f, xmax = 0.0f;
    if (optimized_qparams) {
      std::tie(xmin, xmax) = optimized_range(w.select(0, r), nbins, ratio, kBits);
    } else if (D) {
      xmin = *std::min_element(row, row + D);
      xmax = *std::max_element(row, row + D);
    }
    xmin = static_cast<float>(Half(xmin));
    const float range = xmax - xmin;
    Half scale = range == 0 ? Half(1.0f) : Half(range / ((1 << kBits) - 1));
    float inverse_scale = static_cast<float>(scale) == 0 ? 1.0f : 1.0f / static_cast<float>(scale);
    if (static_cast<float>(scale) == 0 || std::isinf(inverse_scale)) {
      scale = Half(1.0f);
      inverse_scale = 1.0f;
    }
    const Half sb[2] = {scale, Half(xmin)};
    std::memcpy(orow + packed_cols, sb, sizeof sb);
    for (int64_t c = 0; c < D; ++c) {
      const long q = std::lrintf((row[c] - xmin) * inverse_scale);
      const auto code = static_cast<uint8_t>(std::max<long>(0, std::min<long>(q, (1 << kBits) - 1)));
      if (c % kPerByte == 0) {
        orow[c / kPerByte] = code;
      } else {
        orow[c / kPerByte] =
            static_cast<uint8_t>(orow[c / kPerByte] | (code << ((c % kPerByte) * kBits)));
      }
    }
  }
  return out;
}

template <int kBits>
Tensor nbit_unpack_impl(const Tensor& packed_in) {
  constexpr int kPerByte = 8 / kBits;
  check_packed(packed_in);
  EMBER_CHECK(packed_in.dim() == 2 && packed_in.size(1) >= 4, "embedding_bag_", kBits,
              "bit_unpack: expected a 2-d packed weight [rows, columns / ", kPerByte, " + 4]");
  const Tensor packed = packed_in.contiguous();
  const int64_t rows = packed.size(0), cols = packed.size(1), D = (cols - 4) * kPerByte;
  Tensor out = empty({rows, D}, TensorOptions(kFloat32));
  const uint8_t* in = packed.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = in + r * cols;
    Half sb[2];
    std::memcpy(sb, row + D / kPerByte, sizeof sb);
    const float scale = sb[0], zero_point = sb[1];
    for (int64_t c = 0; c < D; ++c) {
      const uint8_t q = static_cast<uint8_t>((row[c / kPerByte] >> ((c % kPerByte) * kBits)) &
                                             ((1 << kBits) - 1));
      o[r * D + c] = scale * static_cast<float>(q) + zero_point;
    }
  }
  return out;
}

// ---- lookups (embedding_bag_byte_helper / _embedding_bag_nbit_helper and the fallback) ----

std::vector<int64_t> as_int64(const Tensor& t) {
  const Tensor c = t.to(kInt64).contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

}  // namespace

namespace detail {

Tensor rowwise_lookup(int bits, const Tensor& weight, const Tensor& indices,
                      const std::optional<Tensor>& offsets_in, bool pruned,
                      const std::optional<Tensor>& per_sample_weights,
                      const std::optional<Tensor>& mapping, bool include_last_offset,
                      bool embedding_op) {
  const char* name = bits == 8 ? "embedding_bag_byte" : "embedding_bag_4bit/embedding_bag_2bit";
  EMBER_CHECK(indices.dim() == 1 || indices.dim() == 2,
              "qembedding/qembedding_bag operator supports 1 or 2d indices, got ", indices.dim());
  std::vector<int64_t> offsets;
  if (embedding_op) {
    // PyTorch's QEmbedding: one bag per index (offsets arange(numel)), whatever the indices' rank.
    for (int64_t o = 0; o < indices.numel(); ++o) offsets.push_back(o);
  } else if (indices.dim() == 2) {
    EMBER_CHECK(!offsets_in, name, " operator: input is 2D, then offsets has to be None, as "
                                   "input is treated is a mini-batch of fixed length sequences.");
    for (int64_t o = 0; o < indices.numel(); o += indices.size(1)) offsets.push_back(o);
  } else {
    EMBER_CHECK(offsets_in.has_value(), name,
                bits == 8 ? " expects offsets to be set for 1D indices."
                          : " operator expects offsets to be set for 1D indices.");
  }
  EMBER_CHECK(indices.dtype() == kInt32 || indices.dtype() == kInt64,
              "Expect 32 or 64 bit indices, but found ", scalar_type_name(indices.dtype()),
              " instead.");
  if (offsets_in && !embedding_op) {
    EMBER_CHECK(offsets_in->dtype() == kInt32 || offsets_in->dtype() == kInt64,
                "Expect 32 or 64 bit offsets, but found ", scalar_type_name(offsets_in->dtype()),
                " instead.");
    EMBER_CHECK(offsets_in->dim() == 1, name, ": expected 1-d offsets, got ", offsets_in->dim(),
                " dimensions");
    offsets = as_int64(*offsets_in);
  }
  check_packed(weight);
  EMBER_CHECK(weight.dim() == 2, name, ": expected a 2-d packed weight, got ", weight.dim(),
              " dimensions");
  const int64_t N = weight.size(0), row_bytes = weight.size(1);
  const int64_t per_byte = 8 / bits;
  const int64_t D = bits == 8 ? row_bytes - 8 : (row_bytes - 4) * per_byte;
  EMBER_CHECK(D >= 0, name, ": the packed rows are too short for their scale and bias");
  std::vector<float> psw;
  if (per_sample_weights) {
    if (bits == 8) {
      EMBER_CHECK(per_sample_weights->dtype() == kFloat32, "expected scalar type Float but found ",
                  scalar_type_name(per_sample_weights->dtype()));
    } else {
      EMBER_CHECK(per_sample_weights->dtype() == kFloat32 ||
                      per_sample_weights->dtype() == kFloat16,
                  "Expect fp32 or fp16 weights, but found", scalar_type_name(per_sample_weights->dtype()),
                  " instead");
    }
    const Tensor p = per_sample_weights->to(kFloat32).contiguous();
    psw.assign(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
    EMBER_CHECK(static_cast<int64_t>(psw.size()) >= indices.numel(), name,
                ": per_sample_weights must have one weight per index");
  }
  std::vector<int64_t> map;
  bool sparse = false;
  if (pruned) {
    EMBER_CHECK(mapping.has_value(), name,
                ": pruned_weights=True needs compressed_indices_mapping");
    map = as_int64(*mapping);
    sparse = !(map.size() == 1 && map[0] == 0);  // [0]: PyTorch's "not actually pruned" flag
  }
  const std::vector<int64_t> idx = as_int64(indices);
  const int64_t M = static_cast<int64_t>(offsets.size());
  const int64_t output_size = include_last_offset ? std::max<int64_t>(M - 1, 0) : M;
  // The fallback's lengths: differences of the offsets, the last bag up to the end of the
  // indices; the bags are read one after another from index 0.
  std::vector<int64_t> lengths;
  int64_t lower = M ? offsets[0] : 0;
  for (int64_t i = 1; i < M; ++i) {
    lengths.push_back(offsets[i] - lower);
    lower = offsets[i];
  }
  if (!include_last_offset) lengths.push_back(static_cast<int64_t>(idx.size()) - lower);
  Tensor out = zeros({output_size, D}, TensorOptions(kFloat32));
  float* o = out.data_ptr<float>();
  const Tensor wc = weight.contiguous();
  const uint8_t* wd = wc.data_ptr<uint8_t>();
  const int64_t index_size = static_cast<int64_t>(idx.size());
  int64_t current = 0;
  for (int64_t m = 0; m < output_size; ++m, o += D) {
    EMBER_CHECK(current + lengths[m] <= index_size,
                "Expect the lengths data to be less than indices size");
    for (int64_t i = 0; i < lengths[m]; ++i, ++current) {
      int64_t r = idx[current];
      if (!sparse) {
        EMBER_CHECK(r >= 0 && r < N, "Invalid indices data");
      } else {
        EMBER_CHECK(r >= 0 && r < static_cast<int64_t>(map.size()),
                    "Invalid indices data for Sparse Op.");
        r = map[r];
        if (r == -1) continue;
      }
      const float wv = psw.empty() ? 1.0f : psw[current];
      const uint8_t* row = wd + r * row_bytes;
      float scale, bias;
      if (bits == 8) {
        float sb[2];
        std::memcpy(sb, row + D, sizeof sb);
        scale = wv * sb[0];
        bias = wv * sb[1];
      } else {
        Half sb[2];
        std::memcpy(sb, row + D / per_byte, sizeof sb);
        scale = wv * static_cast<float>(sb[0]);
        bias = wv * static_cast<float>(sb[1]);
      }
      for (int64_t j = 0; j < D; ++j) {
        uint8_t q = row[j / per_byte];
        q = static_cast<uint8_t>(q >> ((j % per_byte) * bits));
        q = static_cast<uint8_t>(q & ((1 << bits) - 1));
        // PyTorch's fma(scale, q, out + bias), in double (the arguments' common type).
        o[j] = static_cast<float>(std::fma(static_cast<double>(scale), static_cast<double>(q),
                                           static_cast<double>(o[j] + bias)));
      }
    }
  }
  if (embedding_op && indices.dim() == 2) return out.view({indices.size(0), indices.size(1), D});
  return out;
}

}  // namespace detail

namespace {

Tensor byte_rowwise_impl(const Tensor& weight, const Tensor& indices,
                         const std::optional<Tensor>& offsets, const bool& /*scale_grad_by_freq*/,
                         const int64_t& /*mode*/, const bool& pruned_weights,
                         const std::optional<Tensor>& per_sample_weights,
                         const std::optional<Tensor>& compressed_indices_mapping,
                         const bool& include_last_offset) {
  return detail::rowwise_lookup(8, weight, indices, offsets, pruned_weights, per_sample_weights,
                                compressed_indices_mapping, include_last_offset, false);
}
template <int kBits>
Tensor nbit_rowwise_impl(const Tensor& weight, const Tensor& indices,
                         const std::optional<Tensor>& offsets, const bool& /*scale_grad_by_freq*/,
                         const int64_t& /*mode*/, const bool& pruned_weights,
                         const std::optional<Tensor>& per_sample_weights,
                         const std::optional<Tensor>& compressed_indices_mapping,
                         const bool& include_last_offset) {
  return detail::rowwise_lookup(kBits, weight, indices, offsets, pruned_weights,
                                per_sample_weights, compressed_indices_mapping,
                                include_last_offset, false);
}

}  // namespace

Tensor embedding_bag_byte_prepack(const Tensor& weight) {
  return dispatch::call<&byte_prepack_impl>(OpId::quantized_embedding_bag_byte_prepack, weight);
}
EMBER_REGISTER_OP(quantized_embedding_bag_byte_prepack, &embedding_bag_byte_prepack);

Tensor embedding_bag_byte_unpack(const Tensor& weight) {
  return dispatch::call<&byte_unpack_impl>(OpId::quantized_embedding_bag_byte_unpack, weight);
}
EMBER_REGISTER_OP(quantized_embedding_bag_byte_unpack, &embedding_bag_byte_unpack);

Tensor embedding_bag_4bit_prepack(const Tensor& weight, bool optimized_qparams, int64_t nbins,
                                  double ratio) {
  return dispatch::call<&nbit_prepack_impl<4>>(OpId::quantized_embedding_bag_4bit_prepack,
                                               weight, optimized_qparams, nbins, ratio);
}
EMBER_REGISTER_OP(quantized_embedding_bag_4bit_prepack, &embedding_bag_4bit_prepack);

Tensor embedding_bag_4bit_unpack(const Tensor& weight) {
  return dispatch::call<&nbit_unpack_impl<4>>(OpId::quantized_embedding_bag_4bit_unpack, weight);
}
EMBER_REGISTER_OP(quantized_embedding_bag_4bit_unpack, &embedding_bag_4bit_unpack);

Tensor embedding_bag_byte_rowwise_offsets(const Tensor& weight, const Tensor& indices,
                                          const std::optional<Tensor>& offsets,
                                          bool scale_grad_by_freq, int64_t mode,
                                          bool pruned_weights,
                                          const std::optional<Tensor>& per_sample_weights,
                                          const std::optional<Tensor>& compressed_indices_mapping,
                                          bool include_last_offset) {
  return dispatch::call<&byte_rowwise_impl>(
      OpId::quantized_embedding_bag_byte_rowwise_offsets, weight, indices, offsets,
      scale_grad_by_freq, mode, pruned_weights, per_sample_weights, compressed_indices_mapping,
      include_last_offset);
}
EMBER_REGISTER_OP(quantized_embedding_bag_byte_rowwise_offsets,
                  &embedding_bag_byte_rowwise_offsets);

Tensor embedding_bag_4bit_rowwise_offsets(const Tensor& weight, const Tensor& indices,
                                          const std::optional<Tensor>& offsets,
                                          bool scale_grad_by_freq, int64_t mode,
                                          bool pruned_weights,
                                          const std::optional<Tensor>& per_sample_weights,
                                          const std::optional<Tensor>& compressed_indices_mapping,
                                          bool include_last_offset) {
  return dispatch::call<&nbit_rowwise_impl<4>>(
      OpId::quantized_embedding_bag_4bit_rowwise_offsets, weight, indices, offsets,
      scale_grad_by_freq, mode, pruned_weights, per_sample_weights, compressed_indices_mapping,
      include_last_offset);
}
EMBER_REGISTER_OP(quantized_embedding_bag_4bit_rowwise_offsets,
                  &embedding_bag_4bit_rowwise_offsets);

Tensor embedding_bag_2bit_prepack(const Tensor& weight, bool optimized_qparams, int64_t nbins,
                                  double ratio) {
  return dispatch::call<&nbit_prepack_impl<2>>(OpId::quantized_embedding_bag_2bit_prepack,
                                               weight, optimized_qparams, nbins, ratio);
}
EMBER_REGISTER_OP(quantized_embedding_bag_2bit_prepack, &embedding_bag_2bit_prepack);

Tensor embedding_bag_2bit_unpack(const Tensor& weight) {
  return dispatch::call<&nbit_unpack_impl<2>>(OpId::quantized_embedding_bag_2bit_unpack, weight);
}
EMBER_REGISTER_OP(quantized_embedding_bag_2bit_unpack, &embedding_bag_2bit_unpack);

Tensor embedding_bag_2bit_rowwise_offsets(const Tensor& weight, const Tensor& indices,
                                          const std::optional<Tensor>& offsets,
                                          bool scale_grad_by_freq, int64_t mode,
                                          bool pruned_weights,
                                          const std::optional<Tensor>& per_sample_weights,
                                          const std::optional<Tensor>& compressed_indices_mapping,
                                          bool include_last_offset) {
  return dispatch::call<&nbit_rowwise_impl<2>>(
      OpId::quantized_embedding_bag_2bit_rowwise_offsets, weight, indices, offsets,
      scale_grad_by_freq, mode, pruned_weights, per_sample_weights, compressed_indices_mapping,
      include_last_offset);
}
EMBER_REGISTER_OP(quantized_embedding_bag_2bit_rowwise_offsets,
                  &embedding_bag_2bit_rowwise_offsets);

}  // namespace ember::quantized
