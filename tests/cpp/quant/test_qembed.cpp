// per_channel_affine_float_qparams tensors (quint8, quint4x2, quint2x4), the packed-params
// embedding ops and nnq::Embedding / EmbeddingBag from C++, no Python: the codes equal the
// scalar formula of quantize_float_qparams.h, dequantize equals (q - z) * s, the packed table
// holds the row's scale and -z * s, lookups equal the unpacked rows, and from_float / state_dict
// / clone keep the outputs. (Agreement with torch 1.13: tests/python/quantized/test_qembed_*.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ember/half.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/quantized/embedding.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantization/quantize.h"
#include "ember/quantized/embedding.h"
#include "ember/quantized/tensor.h"
#include "quant/quantize_float_qparams.h"
#include "testing.h"

namespace ember {
namespace {

namespace q = ember::quantized;
namespace nnq = ember::nn::quantized;

std::vector<float> floats(const Tensor& t) {
  Tensor c = t.to(kFloat32).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// A table with ties (x * inv + z exactly .5), values far outside the range and zero scales.
struct Table {
  Tensor w, scales, zero_points;
};
Table table(int64_t rows, int64_t cols) {
  manual_seed(7);
  Table t{randn({rows, cols}) * 3.0, rand({rows}) + 0.05, randn({rows}) * 2.0};
  t.w.data_ptr<float>()[0] = 0.5f * t.scales.data_ptr<float>()[0];  // x / s + z near a tie
  t.w.data_ptr<float>()[1] = 1e30f;
  t.scales.data_ptr<float>()[rows - 1] = 0.0f;  // inv_scale 1, as PyTorch
  return t;
}

// The code of element (r, c) by the scalar formula.
int64_t expected_code(const Table& t, int64_t r, int64_t c, ScalarType dtype) {
  const int64_t cols = t.w.size(1);
  return qkernels::quantize_val_float_qparams(t.scales.data_ptr<float>()[r],
                                             t.zero_points.data_ptr<float>()[r],
                                             t.w.data_ptr<float>()[r * cols + c], 0,
                                             (int64_t{1} << quantized_bit_width(dtype)) - 1);
}

TEST(QEmbedTensor, QuantizeDequantizeFollowTheFormula) {
  for (ScalarType dtype : {kQUInt8, kQUInt4x2, kQUInt2x4}) {
    const Table t = table(5, 8);
    Tensor q = quantize_per_channel(t.w, t.scales, t.zero_points, 0, dtype);
    EXPECT_EQ(qscheme(q), QScheme::PerChannelAffineFloatQParams);
    EXPECT_EQ(q_per_channel_scales(q).dtype(), kFloat32);
    EXPECT_EQ(q_per_channel_zero_points(q).dtype(), kFloat32);
    const int bits = quantized_bit_width(dtype);
    Tensor packed = int_repr(q);
    ASSERT_EQ(packed.dim(), dtype == kQUInt8 ? 2 : 1);
    ASSERT_EQ(packed.numel(), 5 * 8 * bits / 8);
    const uint8_t* bytes = packed.data_ptr<uint8_t>();
    const std::vector<float> x = floats(q.dequantize());
    for (int64_t r = 0; r < 5; ++r) {
      for (int64_t c = 0; c < 8; ++c) {
        const int64_t i = r * 8 + c;
        const int64_t code = bits == 8 ? bytes[i] : qkernels::sub_byte_code(bytes, i, bits);
        ASSERT_EQ(code, expected_code(t, r, c, dtype)) << dtype_name(dtype) << " " << r << "," << c;
        const float want = (static_cast<float>(code) - t.zero_points.data_ptr<float>()[r]) *
                           t.scales.data_ptr<float>()[r];
        ASSERT_EQ(x[i], want);
      }
    }
  }
}

TEST(QEmbedTensor, ChecksAndViews) {
  const Table t = table(4, 6);
  testing::expect_error([&] { quantize_per_channel(t.w, t.scales, t.zero_points, 2, kQUInt8); },
                        "Channel axis out of range in per channel float qparams quantization");
  testing::expect_error(
      [&] { quantize_per_channel(t.w.to(kFloat64), t.scales, t.zero_points, 0, kQUInt8); },
                        "Quantize only works on Float Tensor, got Double");
  Tensor q = quantize_per_channel(t.w, t.scales, t.zero_points, 0, kQUInt8);
  // select along the axis: per tensor, the zero point truncated (PyTorch 1.13).
  Tensor row = q.select(0, 1);
  EXPECT_EQ(qscheme(row), QScheme::PerTensorAffine);
  EXPECT_EQ(q_zero_point(row), static_cast<int64_t>(t.zero_points.data_ptr<float>()[1]));
  testing::expect_error([&] { q.slice(0, 1, 3); }, "Setting strides is possible only on "
                                                    "uniformly or per channel quantized tensors");
  testing::expect_error([&] { q.t(); },
                        "Setting strides is possible only on uniformly quantized tensor");
  testing::expect_error([&] { q.clone(); }, "clone for quantized Tensor only works for");
  Tensor q4 = quantize_per_channel(t.w, t.scales, t.zero_points, 0, kQUInt4x2);
  testing::expect_error([&] { q4.clone(); }, "clone for quantized Tensor only works for");
  Tensor p4 = quantize_per_tensor(t.w, 0.1, 3, kQUInt4x2);
  testing::expect_error([&] { p4.clone(); }, "\"copy_kernel\" not implemented for 'QUInt4x2'");
}

TEST(QEmbedOps, PrepackUnpackAndLookups) {
  for (ScalarType dtype : {kQUInt8, kQUInt4x2}) {
    const Table t = table(6, 8);
    Tensor q = quantize_per_channel(t.w, t.scales, t.zero_points, 0, dtype);
    auto p = q::embedding_bag_prepack(q);
    const int bits = dtype == kQUInt8 ? 8 : 4;
    EXPECT_EQ(p->bit_rate(), bits);
    Tensor u = q::embedding_bag_unpack(p);
    EXPECT_TRUE(equal(int_repr(u), int_repr(q)));
    EXPECT_TRUE(equal(q_per_channel_scales(u), q_per_channel_scales(q)));
    EXPECT_TRUE(equal(q_per_channel_zero_points(u), q_per_channel_zero_points(q)));
    // The row's scale and bias = zero_point * scale * -1 after its codes.
    const Tensor& packed = p->packed();
    const int64_t code_bytes = 8 * bits / 8;
    for (int64_t r = 0; r < 6; ++r) {
      const uint8_t* row = packed.data_ptr<uint8_t>() + r * packed.size(1);
      const float s = t.scales.data_ptr<float>()[r], z = t.zero_points.data_ptr<float>()[r];
      float sb[2];
      if (bits == 8) {
        std::memcpy(sb, row + code_bytes, sizeof sb);
      } else {
        Half h[2];
        std::memcpy(h, row + code_bytes, sizeof h);
        sb[0] = h[0];
        sb[1] = h[1];
      }
      const float bias = z * s * -1;
      EXPECT_EQ(sb[0], bits == 8 ? s : static_cast<float>(Half(s)));
      EXPECT_EQ(sb[1], bits == 8 ? bias : static_cast<float>(Half(bias)));
    }
    // embedding rows = the bag of one index; 2-d indices keep their shape.
    Tensor idx = tensor({3, 0, 5, 3}).to(kInt64);
    Tensor rows = bits == 8 ? q::embedding_byte(p, idx) : q::embedding_4bit(p, idx);
    Tensor bags = bits == 8 ? q::embedding_bag_byte(p, idx, arange(4))
                            : q::embedding_bag_4bit(p, idx, arange(4));
    EXPECT_TRUE(equal(rows, bags));
    Tensor rows2 = bits == 8 ? q::embedding_byte(p, idx.view({2, 2}))
                             : q::embedding_4bit(p, idx.view({2, 2}));
    EXPECT_EQ(rows2.sizes().vec(), (std::vector<int64_t>{2, 2, 8}));
    EXPECT_TRUE(equal(rows2.view({4, 8}), rows));
    testing::expect_error([&] { q::embedding_byte(p, tensor({6}).to(kInt64)); },
                          "Invalid indices data");
  }
  testing::expect_error([&] { q::embedding_bag_prepack(randn({3, 4})); },
                        "Could not run 'quantized::embedding_bag_prepack' with arguments from the "
                        "'CPU' backend",
                        ErrorKind::NotImplemented);
  testing::expect_error(
      [&] { q::embedding_bag_prepack(quantize_per_tensor(randn({3, 4}), 0.1, 3, kQUInt8)); },
      "Expect embedding_bag weights to be quantized using kPerChannelAffineFloatQParams");
}

TEST(QEmbedModules, FromFloatStateDictAndClone) {
  manual_seed(3);
  auto f = std::make_shared<nn::EmbeddingBag>(10, 6, std::nullopt, 2.0, false, "sum");
  f->set_qconfig(quantization::float_qparams_weight_only_qconfig_4bit());
  auto qb = nnq::EmbeddingBag::from_float(*f);
  EXPECT_EQ(qb->dtype, kQUInt4x2);
  EXPECT_EQ(qb->repr(), "QuantizedEmbeddingBag(num_embeddings=10, embedding_dim=6, "
                        "dtype=ember.quint4x2, qscheme=ember.per_channel_affine_float_qparams)");
  Tensor idx = tensor({1, 2, 9, 4, 4}).to(kInt64), off = tensor({0, 2}).to(kInt64);
  Tensor y = qb->forward(idx, off);
  auto sd = qb->state_dict();
  ASSERT_TRUE(sd.contains("_packed_params._packed_weight"));
  ASSERT_TRUE(sd.contains("_packed_params.dtype"));
  nnq::EmbeddingBag fresh(10, 6);
  fresh.dtype = kQUInt4x2;
  fresh.load_state_dict(sd);
  EXPECT_EQ(fresh.packed_module().dtype, kQUInt4x2);
  EXPECT_TRUE(equal(fresh.forward(idx, off), y));
  auto copy = std::dynamic_pointer_cast<nnq::EmbeddingBag>(qb->clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->packed_module().packed_weight().get(), qb->packed_module().packed_weight().get());
  EXPECT_TRUE(equal(copy->forward(idx, off), y));

  auto e = std::make_shared<nn::Embedding>(10, 6);
  e->set_qconfig(quantization::default_qconfig());
  testing::expect_error([&] { nnq::Embedding::from_float(*e); },
                        "Embedding quantization is only supported with "
                        "float_qparams_weight_only_qconfig.",
                        ErrorKind::Value);
  e->set_qconfig(quantization::float_qparams_weight_only_qconfig());
  auto qe = nnq::Embedding::from_float(*e);
  Tensor rows = qe->forward(tensor({0, 7}).to(kInt64));
  const std::vector<float> got = floats(rows), table_rows = floats(qe->weight().dequantize());
  for (int64_t c = 0; c < 6; ++c) {
    // a row = code * scale + bias, the bias -z * s: within float rounding of the dequantized row
    EXPECT_NEAR(got[c], table_rows[c], 1e-5);
    EXPECT_NEAR(got[6 + c], table_rows[7 * 6 + c], 1e-5);
  }
}

TEST(QEmbedModules, QuantizeDynamicTakesEmbeddings) {
  // torch's defaults: quint8 both embedding layers, quint4x2 EmbeddingBag only.
  for (ScalarType dtype : {kQUInt8, kQUInt4x2}) {
    auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Embedding>(10, 4),
        std::make_shared<nn::EmbeddingBag>(10, 4, std::nullopt, 2.0, false, "sum")});
    auto q = quantization::quantize_dynamic(model, {}, dtype);
    auto emb = q->child("0"), bag = q->child("1");
    EXPECT_EQ(dynamic_cast<nnq::Embedding*>(emb.get()) != nullptr, dtype == kQUInt8);
    auto* qbag = dynamic_cast<nnq::EmbeddingBag*>(bag.get());
    ASSERT_TRUE(qbag);
    EXPECT_EQ(qbag->dtype, dtype);
    EXPECT_EQ(qbag->weight().dtype(), dtype);
  }
}

}  // namespace
}  // namespace ember
