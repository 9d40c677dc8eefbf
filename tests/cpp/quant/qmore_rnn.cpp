// qmore's ops and modules from C++ (no Python). The dynamic quantized recurrent ones: a one-step sequence
// through the layer equals the cell op (the same input qparams, the same gates), the cell ops
// equal their definition over linear_dynamic and the float gate ops, layers stack and reverse as
// PyTorch's, and the modules' state_dict round trip and clone keep the outputs bit for bit.
// Also the row-wise embedding bags (bags are sums of the unpacked rows) and quantized::prelu.
// (Agreement with torch 1.13: tests/python/quantized/test_qmore_*.py.)
#include <gtest/gtest.h>

#include "ember/nn/functional.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/quantized/rnn.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/random.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/embedding.h"
#include "ember/quantized/prelu.h"
#include "ember/quantized/rnn.h"
#include "ember/quantized/tensor.h"
#include "quant/packed_params.h"
#include "testing.h"

namespace ember {
namespace {

namespace q = ember::quantized;
namespace nnqd = ember::nn::quantized::dynamic;

struct EngineGuard {
  QEngine saved = quantized_engine();
  explicit EngineGuard(QEngine e) { set_quantized_engine(e); }
  ~EngineGuard() { set_quantized_engine(saved); }
};

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes().vec() == b.sizes().vec() && a.dtype() == b.dtype() &&
         equal(a.contiguous(), b.contiguous());
}

intrusive_ptr<q::LinearPackedParams> packed(int64_t rows, int64_t cols, const Tensor& bias) {
  return q::linear_prepack(quantize_per_tensor(randn({rows, cols}) * 0.3, 0.01, 0, kQInt8), bias);
}

TEST(QmoreRnn, LstmCellOpIsItsDefinition) {
  EngineGuard g(QEngine::QNNPACK);
  manual_seed(0);
  const Tensor bi = randn({16}), bh = randn({16});
  auto wi = packed(16, 3, bi), wh = packed(16, 4, bh);
  const Tensor x = randn({2, 3}), h = randn({2, 4}), c = randn({2, 4});
  auto [hy, cy] = q::quantized_lstm_cell_dynamic(x, {h, c}, wi, wh, bi, bh);
  // PyTorch's LSTMCell over linear_dynamic: the packed weights carry the biases.
  const Tensor gates = q::linear_dynamic(h, wh) + q::linear_dynamic(x, wi);
  auto ch = gates.chunk(4, 1);
  const Tensor cref = ch[1].sigmoid() * c + ch[0].sigmoid() * ch[2].tanh();
  const Tensor href = ch[3].sigmoid() * cref.tanh();
  EXPECT_TRUE(bit_equal(hy, href));
  EXPECT_TRUE(bit_equal(cy, cref));
}

TEST(QmoreRnn, OneStepLayerEqualsTheCell) {
  EngineGuard g(QEngine::QNNPACK);
  manual_seed(1);
  const Tensor bi = randn({12}), bh = randn({12});
  auto wi = packed(12, 3, bi), wh = packed(12, 4, bh);
  auto cell = q::make_quantized_cell_params_dynamic(wi, wh, bi, bh, false);
  const Tensor x = randn({1, 2, 3}), h0 = randn({1, 2, 4});
  auto [out, hn] = q::quantized_gru(x, h0, {cell}, true, 1, 0.0, false, false, false);
  const Tensor ref = q::quantized_gru_cell_dynamic(x.select(0, 0), h0.select(0, 0), wi, wh, bi, bh);
  EXPECT_TRUE(bit_equal(out.select(0, 0), ref));
  EXPECT_TRUE(bit_equal(hn.select(0, 0), ref));
}

TEST(QmoreRnn, ReverseDirectionWalksBackwards) {
  EngineGuard g(QEngine::QNNPACK);
  manual_seed(2);
  auto mk = [] {
    const Tensor bi = randn({12}), bh = randn({12});
    return q::make_quantized_cell_params_dynamic(packed(12, 3, bi), packed(12, 4, bh), bi, bh);
  };
  auto fw = mk(), bw = mk();
  const Tensor x = randn({4, 2, 3}), h0 = zeros({2, 2, 4});
  auto [out, hn] = q::quantized_gru(x, h0, {fw, bw}, true, 1, 0.0, false, true, false);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{4, 2, 8}));
  // The backward half equals a forward run over the flipped sequence, flipped back.
  std::vector<Tensor> steps = x.unbind(0);
  std::reverse(steps.begin(), steps.end());
  auto [rout, rhn] = q::quantized_gru(stack(steps, 0), h0.narrow(0, 1, 1), {bw}, true, 1, 0.0,
                                      false, false, false);
  for (int64_t t = 0; t < 4; ++t) {
    EXPECT_TRUE(bit_equal(out.select(0, t).narrow(1, 4, 4), rout.select(0, 3 - t)));
  }
  EXPECT_TRUE(bit_equal(hn.select(0, 1), rhn.select(0, 0)));
  EXPECT_THROW(q::quantized_gru(x, h0, {fw}, true, 1, 0.0, false, true, false), Error);
}

TEST(QmoreRnn, ModulesFromFloatStateDictAndClone) {
  EngineGuard g(QEngine::QNNPACK);
  manual_seed(3);
  auto f = std::make_shared<nn::LSTM>(nn::RNNOptions(3, 5).num_layers(2));
  f->set_qconfig(quantization::default_dynamic_qconfig());
  auto qm = nnqd::RNNBase::from_float(*f);
  auto* lstm = dynamic_cast<nnqd::LSTM*>(qm.get());
  ASSERT_NE(lstm, nullptr);
  EXPECT_EQ(lstm->repr(), "DynamicQuantizedLSTM(3, 5, num_layers=2)");
  const Tensor x = randn({4, 2, 3});
  auto [out, hc] = lstm->forward(x);
  // The float LSTM is close: the quantization error of 8-bit weights and inputs.
  auto [fout, fhc] = f->forward(x);
  EXPECT_LT((out - fout).abs().max().item().to<double>(), 0.1);

  nnqd::LSTM other(3, 5, 2);
  auto sd = lstm->state_dict();
  EXPECT_TRUE(sd.contains("_all_weight_values.1.param"));
  EXPECT_FALSE(sd.contains("_all_weight_values.2.param"));
  other.load_state_dict(sd);
  EXPECT_TRUE(bit_equal(std::get<0>(other.forward(x)), out));

  auto copy = qm->clone();
  auto* c = dynamic_cast<nnqd::LSTM*>(copy.get());
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(bit_equal(std::get<0>(c->forward(x)), out));
  EXPECT_NE(c->cell_params()[0].get(), lstm->cell_params()[0].get());

  auto cf = std::make_shared<nn::GRUCell>(3, 4);
  cf->set_qconfig(quantization::default_dynamic_qconfig());
  auto qc = nnqd::RNNCellBase::from_float(*cf);
  auto* gc = dynamic_cast<nnqd::GRUCell*>(qc.get());
  ASSERT_NE(gc, nullptr);
  EXPECT_EQ(gc->repr(), "DynamicQuantizedGRUCell(3, 4)");
  const Tensor y = gc->forward(x.select(0, 0));
  nnqd::GRUCell gc2(3, 4);
  gc2.load_state_dict(gc->state_dict());
  EXPECT_TRUE(bit_equal(gc2.forward(x.select(0, 0)), y));
  EXPECT_THROW(gc->forward(randn({2, 5})), Error);
}

TEST(QmoreEmbedding, BagsAreSumsOfTheUnpackedRows) {
  manual_seed(4);
  const Tensor table = randn({6, 10}) * 2.0;
  for (bool four_bit : {false, true}) {
    const Tensor packed = four_bit ? q::embedding_bag_4bit_prepack(table)
                                   : q::embedding_bag_byte_prepack(table);
    const Tensor rows = four_bit ? q::embedding_bag_4bit_unpack(packed)
                                 : q::embedding_bag_byte_unpack(packed);
    // Within half a step of the table (8-bit: range / 255; 4-bit: range / 15).
    const double step = four_bit ? 4.0 * 2.0 * 4 / 15 : 4.0 * 2.0 * 4 / 255;
    EXPECT_LT((rows - table).abs().max().item().to<double>(), step);
    const Tensor idx = tensor(std::vector<int64_t>{1, 4, 4, 0, 5});
    const Tensor off = tensor(std::vector<int64_t>{0, 3});
    const Tensor bags = four_bit ? q::embedding_bag_4bit_rowwise_offsets(packed, idx, off)
                                 : q::embedding_bag_byte_rowwise_offsets(packed, idx, off);
    const Tensor ref0 = rows.select(0, 1) + rows.select(0, 4) + rows.select(0, 4);
    const Tensor ref1 = rows.select(0, 0) + rows.select(0, 5);
    EXPECT_LT((bags.select(0, 0) - ref0).abs().max().item().to<double>(), 1e-5);
    EXPECT_LT((bags.select(0, 1) - ref1).abs().max().item().to<double>(), 1e-5);
  }
  EXPECT_THROW(q::embedding_bag_4bit_prepack(randn({3, 5})), Error);
}

TEST(QmorePrelu, SlopeOnNegativesIdentityOnPositives) {
  const Tensor x = tensor(std::vector<float>{-2.0f, -1.0f, 0.0f, 1.0f, 2.0f}).reshape({1, 5});
  const Tensor qx = quantize_per_tensor(x, 0.5, 10, kQUInt8);
  const Tensor qw = quantize_per_tensor(full({1}, 0.25), 0.25, 0, kQUInt8);
  const Tensor y = q::prelu(qx, qw, 0.125, 20).dequantize();
  const Tensor expected = tensor(std::vector<float>{-0.5f, -0.25f, 0.0f, 1.0f, 2.0f}).reshape({1, 5});
  EXPECT_TRUE(bit_equal(y, expected));
}

}  // namespace
}  // namespace ember
