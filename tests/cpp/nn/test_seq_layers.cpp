// Issue 16's sequence layers in C++: scaled_dot_product_attention (values against the written-out
// math, gradcheck), MultiheadAttention and the transformer layers (reprs, state_dict keys,
// masks), the fused LSTM / GRU gate kernels (equal to the unfused math, gradcheck), RNN / LSTM /
// GRU against numbers from torch 1.13, packing round trips, EmbeddingBag, gradient clipping.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../testing.h"
#include "backends/cpu/rnn_kernels.h"
#include "ember/autograd/gradcheck.h"
#include "ember/nn.h"
#include "ember/ops/rnn.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::values;

Tensor rnd(IntArrayRef sizes, uint64_t seed) {
  manual_seed(seed);
  return randn(sizes, kFloat64);
}

TEST(SeqAttention, SdpaMatchesTheMathAndMasks) {
  Tensor q = rnd({2, 3, 4}, 1), k = rnd({2, 5, 4}, 2), v = rnd({2, 5, 6}, 3);
  Tensor ref = softmax(matmul(q, k.transpose(1, 2)) / 2.0, -1).matmul(v);
  expect_values(scaled_dot_product_attention(q, k, v), {2, 3, 6}, values(ref), 1e-12, 1e-12);
  // A bool mask that keeps everything changes nothing; a float mask adds.
  Tensor keep = ones({3, 5}, kBool);
  expect_values(scaled_dot_product_attention(q, k, v, keep), {2, 3, 6}, values(ref), 1e-12, 1e-12);
  Tensor bias = rnd({3, 5}, 4);
  Tensor ref2 = softmax(matmul(q, k.transpose(1, 2)) / 2.0 + bias, -1).matmul(v);
  expect_values(scaled_dot_product_attention(q, k, v, bias), {2, 3, 6}, values(ref2), 1e-12, 1e-12);
  // is_causal: the first query sees only the first key.
  Tensor qs = rnd({1, 3, 4}, 5), vs = rnd({1, 3, 2}, 6);
  Tensor out = scaled_dot_product_attention(qs, qs, vs, std::nullopt, 0.0, true);
  expect_values(out.select(1, 0), {1, 2}, values(vs.select(1, 0)), 1e-12, 1e-12);
  expect_error([&] { scaled_dot_product_attention(qs, qs, vs, ones({3, 3}, kBool), 0.0, true); },
               "Explicit attn_mask should not be set when is_causal=True");
}

TEST(SeqAttention, SdpaGradcheck) {
  Tensor q = rnd({2, 3, 4}, 1).requires_grad_(), k = rnd({2, 5, 4}, 2).requires_grad_();
  Tensor v = rnd({2, 5, 3}, 3).requires_grad_();
  auto f = [](const autograd::tensor_list& in) {
    return autograd::tensor_list{scaled_dot_product_attention(in[0], in[1], in[2], std::nullopt,
                                                              0.0, false, 0.7)};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {q, k, v}));
}

TEST(SeqAttention, MultiheadAttentionReprKeysAndShapes) {
  nn::MultiheadAttention mha(4, 2);
  EXPECT_EQ(mha.repr(),
            "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=4, "
            "out_features=4, bias=True)\n)");
  std::vector<std::string> keys = mha.state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                            "out_proj.bias"}));
  nn::MultiheadAttention sep(4, 2, 0.0, true, true, false, 3, 5);
  keys = sep.state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                            "in_proj_bias", "bias_k", "bias_v",
                                            "out_proj.weight", "out_proj.bias"}));
  Tensor x = randn({5, 2, 4}), kx = randn({6, 2, 3}), vx = randn({6, 2, 5});
  auto [out, w] = sep.forward(x, kx, vx);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{5, 2, 4}));
  EXPECT_EQ(w.sizes().vec(), (std::vector<int64_t>{2, 5, 7}));  // bias_k adds a key
  auto [out2, none] = mha.forward(x, x, x, std::nullopt, false);
  EXPECT_FALSE(none.defined());
  // Rows of the weights sum to one; padded keys get none.
  Tensor kpm = zeros({2, 5}, kBool);
  kpm.select(0, 0).narrow(0, 3, 2).fill_(1);
  auto [o3, w3] = mha.forward(x, x, x, kpm);
  expect_values(w3.sum(std::vector<int64_t>{-1}), {2, 5}, std::vector<double>(10, 1.0), 1e-5, 1e-6);
  EXPECT_EQ(w3.select(0, 0).narrow(1, 3, 2).abs().sum().item<double>(), 0.0);
  expect_error([] { nn::MultiheadAttention(5, 2); }, "embed_dim must be divisible by num_heads",
               ErrorKind::Assertion);
}

TEST(SeqTransformer, ReprsMasksAndClones) {
  nn::TransformerEncoderLayer layer(4, 2, 8);
  EXPECT_NE(layer.repr().find("(dropout2): Dropout(p=0.1, inplace=False)"), std::string::npos);
  nn::TransformerEncoder enc(std::make_shared<nn::TransformerEncoderLayer>(4, 2, 8, 0.0), 2);
  auto sd = enc.state_dict();
  EXPECT_TRUE(sd.contains("layers.1.self_attn.in_proj_weight"));
  EXPECT_TRUE(sd.contains("layers.0.norm2.bias"));
  Tensor x = randn({3, 2, 4});
  Tensor y = enc.forward(x, nn::Transformer::generate_square_subsequent_mask(3));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{3, 2, 4}));
  Tensor m = nn::Transformer::generate_square_subsequent_mask(3);
  const double inf = std::numeric_limits<double>::infinity();
  expect_values(m, {3, 3}, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0});
  // Causality: changing the last position leaves the first output unchanged.
  Tensor x2 = x.clone();
  x2.select(0, 2).fill_(5.0);
  enc.eval();
  Tensor a = enc.forward(x, m), b = enc.forward(x2, m);
  expect_values(b.select(0, 0), {2, 4}, values(a.select(0, 0)), 1e-5, 1e-6);
  expect_error([] { nn::TransformerEncoderLayer(4, 2, 8, 0.1, "tanh"); },
               "activation should be relu/gelu, not tanh");
  nn::Transformer t(8, 2, 1, 1, 16, 0.0);
  Tensor out = t.forward(randn({5, 2, 8}), randn({4, 2, 8}));
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{4, 2, 8}));
  expect_error([&] { t.forward(randn({5, 2, 8}), randn({4, 3, 8})); },
               "the batch number of src and tgt must be equal");
}

TEST(SeqRnn, FusedCellsEqualUnfusedMathAndGradcheck) {
  Tensor x = rnd({3, 4}, 1), h = rnd({3, 5}, 2), c = rnd({3, 5}, 3);
  Tensor wi = rnd({20, 4}, 4), wh = rnd({20, 5}, 5), bi = rnd({20}, 6), bh = rnd({20}, 7);
  auto [hy, cy] = lstm_cell(x, std::vector<Tensor>{h, c}, wi, wh, bi, bh);
  auto g = (x.matmul(wi.t()) + bi + h.matmul(wh.t()) + bh).chunk(4, 1);
  Tensor c_ref = g[1].sigmoid() * c + g[0].sigmoid() * g[2].tanh();
  expect_values(cy, {3, 5}, values(c_ref), 1e-12, 1e-12);
  expect_values(hy, {3, 5}, values(g[3].sigmoid() * c_ref.tanh()), 1e-12, 1e-12);

  Tensor ig = rnd({2, 12}, 8).requires_grad_(), hg = rnd({2, 12}, 9).requires_grad_();
  Tensor cx = rnd({2, 3}, 10).requires_grad_(), b = rnd({12}, 11).requires_grad_();
  auto lstm = [](const autograd::tensor_list& in) {
    auto [h1, c1, ws] = _thnn_fused_lstm_cell(in[0], in[1], in[2], in[3], in[3]);
    return autograd::tensor_list{h1, c1};
  };
  EXPECT_TRUE(autograd::gradcheck(lstm, {ig, hg, cx, b}));
  Tensor ig3 = rnd({2, 9}, 12).requires_grad_(), hg3 = rnd({2, 9}, 13).requires_grad_();
  Tensor hx = rnd({2, 3}, 14).requires_grad_(), b3 = rnd({9}, 15).requires_grad_();
  auto gru = [](const autograd::tensor_list& in) {
    return autograd::tensor_list{std::get<0>(_thnn_fused_gru_cell(in[0], in[1], in[2], in[3], in[3]))};
  };
  EXPECT_TRUE(autograd::gradcheck(gru, {ig3, hg3, hx, b3}));
}

TEST(SeqRnn, FastGateKernelsEqualRef) {
  // float32 takes the vectorized kernels; they agree with the scalar std:: references.
  manual_seed(3);
  const int64_t B = 5, H = 37;
  Tensor ig = randn({B, 4 * H}) * 3.0, hg = randn({B, 4 * H}), cx = randn({B, H});
  Tensor ib = randn({4 * H}), hb = randn({4 * H});
  auto run_lstm = [&](bool ref) {
    Tensor hy = empty({B, H}), cy = empty({B, H}), ws = empty({B, 4 * H});
    if (ref) cpu::lstm_cell_kernel_ref(hy, cy, ws, ig, hg, cx, ib, hb);
    else cpu::lstm_cell_kernel(hy, cy, ws, ig, hg, cx, ib, hb);
    Tensor gg = empty({B, 4 * H}), gcx = empty({B, H});
    Tensor ghy = ones({B, H}), gcy = full({B, H}, 0.5);
    if (ref) cpu::lstm_cell_backward_kernel_ref(gg, gcx, ghy, gcy, cx, cy, ws);
    else cpu::lstm_cell_backward_kernel(gg, gcx, ghy, gcy, cx, cy, ws);
    return std::vector<Tensor>{hy, cy, ws, gg, gcx};
  };
  auto fast = run_lstm(false), ref = run_lstm(true);
  for (size_t i = 0; i < fast.size(); ++i)
    expect_values(fast[i], ref[i].sizes(), values(ref[i]), 2e-6, 2e-6);
  Tensor ig3 = randn({B, 3 * H}) * 3.0, hg3 = randn({B, 3 * H}), hx = randn({B, H});
  Tensor hy_f = empty({B, H}), ws_f = empty({B, 5 * H}), hy_r = empty({B, H}), ws_r = empty({B, 5 * H});
  Tensor none;
  cpu::gru_cell_kernel(hy_f, ws_f, ig3, hg3, hx, none, none);
  cpu::gru_cell_kernel_ref(hy_r, ws_r, ig3, hg3, hx, none, none);
  expect_values(hy_f, {B, H}, values(hy_r), 2e-6, 2e-6);
  expect_values(ws_f, {B, 5 * H}, values(ws_r), 2e-6, 2e-6);
}

// Parameters p_i = linspace(-0.5, 0.5) * (i + 1) / 2 in named_parameters order; the numbers are
// torch 1.13's for the same weights and input.
void set_linspace(nn::Module& m) {
  NoGradGuard no_grad;
  int i = 0;
  for (auto& [name, p] : m.named_parameters()) {
    Tensor v = linspace(-0.5, 0.5, p.numel(), kFloat64).view(p.sizes()) * ((i + 1) / 2.0);
    Tensor t = p;
    t.copy_(v);
    ++i;
  }
}

TEST(SeqRnn, LstmAndGruMatchTorch) {
  Tensor x = linspace(-1, 1, 8, kFloat64).view({2, 2, 2});
  nn::LSTM lstm(2, 3);
  lstm.double_();
  set_linspace(lstm);
  auto [out, hc] = lstm.forward(x);
  expect_values(out, {2, 2, 3},
                {0.018139066643462244, 0.06624544582729489, 0.12846517753571177,
                 0.01824174452116599, 0.06928416881142649, 0.13702112351689888,
                 0.023331433355976063, 0.09592248916690554, 0.20236823108448979,
                 0.02132301729639529, 0.09173851801126597, 0.19966572907649846},
                1e-12, 1e-14);
  expect_values(std::get<1>(hc), {1, 2, 3},
                {0.02988791261944026, 0.11518616985374558, 0.23412755531646126,
                 0.026339015628133945, 0.1064148244456142, 0.22391499595963849},
                1e-12, 1e-14);
  nn::GRU gru(2, 3);
  gru.double_();
  set_linspace(gru);
  auto [gout, gh] = gru.forward(x);
  expect_values(gout, {2, 2, 3},
                {0.15950794177421732, 0.2166338058418297, 0.2483972322133023,
                 0.22496653670610117, 0.28133776023298224, 0.29159325767771044,
                 0.35683659300212284, 0.44699362177043045, 0.46421963007403694,
                 0.44283386666271246, 0.5216741178889654, 0.5013475768830644},
                1e-12, 1e-14);
  EXPECT_EQ(lstm.repr(), "LSTM(2, 3)");
  EXPECT_EQ(nn::GRU(nn::RNNOptions(2, 3).num_layers(2).bidirectional(true)).repr(),
            "GRU(2, 3, num_layers=2, bidirectional=True)");
  std::vector<std::string> names;
  for (const auto& [n, p] : nn::LSTM(nn::RNNOptions(2, 3).bidirectional(true).proj_size(2)).named_parameters())
    names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0",
                       "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
                       "bias_hh_l0_reverse", "weight_hr_l0_reverse"}));
  expect_error([] { nn::LSTM(nn::RNNOptions(2, 3).proj_size(3)); },
               "proj_size has to be smaller than hidden_size", ErrorKind::Value);
  expect_error([&] { lstm.forward(randn({2, 2, 5}, kFloat64)); },
               "input.size(-1) must be equal to input_size. Expected 2, got 5");
}

TEST(SeqRnn, PackedEqualsPaddedPerSequence) {
  nn::LSTM lstm(nn::RNNOptions(3, 4).bidirectional(true));
  lstm.double_();
  Tensor padded = rnd({5, 3, 3}, 1);
  Tensor lengths = testing::from_values({5, 2, 4}, {3}, kInt64);
  auto packed = nn::utils::rnn::pack_padded_sequence(padded, lengths, false, false);
  expect_values(packed.batch_sizes, {5}, {3, 3, 2, 2, 1});
  auto [pout, hc] = lstm.forward_packed(packed);
  auto [unpadded, lens] = nn::utils::rnn::pad_packed_sequence(pout);
  expect_values(lens, {3}, {5, 2, 4});
  // Each sequence alone, unpadded, gives the same outputs and final states.
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t n = static_cast<int64_t>(values(lengths)[b]);
    auto [o, s] = lstm.forward(padded.narrow(0, 0, n).narrow(1, b, 1));
    expect_values(unpadded.narrow(0, 0, n).narrow(1, b, 1), o.sizes(), values(o), 1e-12, 1e-12);
    Tensor h = std::get<0>(hc).narrow(1, b, 1);
    expect_values(h, h.sizes(), values(std::get<0>(s)), 1e-12, 1e-12);
  }
  Tensor seq = nn::utils::rnn::pad_sequence({ones({2, 1}), ones({3, 1})}, true, -1.0);
  expect_values(seq, {2, 3, 1}, {1, 1, -1, 1, 1, 1});
}

TEST(SeqEmbeddingBag, ModesAndBackward) {
  Tensor w = arange(6, kFloat64).view({3, 2}).requires_grad_();
  Tensor idx = testing::from_values({0, 2, 1, 2}, {4}, kInt64);
  Tensor off = testing::from_values({0, 1}, {2}, kInt64);
  Tensor mean = nn::functional::embedding_bag(idx, w, off, std::nullopt, 2.0, false, "mean");
  expect_values(mean, {2, 2}, {0.0, 1.0, 3.3333333333333335, 4.333333333333333}, 1e-12, 1e-12);
  mean.sum().backward();
  expect_values(w.grad(), {3, 2}, {1, 1, 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3}, 1e-12, 1e-12);
  nn::EmbeddingBag bag(10, 3, std::nullopt, 2.0, false, "max");
  EXPECT_EQ(bag.repr(), "EmbeddingBag(10, 3, mode=max)");
  expect_error([&] { nn::functional::embedding_bag(idx, w, std::nullopt); },
               "offsets has to be a 1D Tensor but got None", ErrorKind::Value);
}

TEST(SeqClipGrad, NormAndValue) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  (a * 3.0 + b * 4.0).sum().backward();  // grads 3, 3, 4, 4: norm sqrt(50)
  Tensor total = nn::utils::clip_grad_norm_({a, b}, 1.0);
  EXPECT_NEAR(total.item<double>(), std::sqrt(50.0), 1e-5);
  EXPECT_NEAR(values(a.grad())[0], 3.0 / (std::sqrt(50.0) + 1e-6), 1e-6);
  nn::utils::clip_grad_value_({b}, 0.1);
  expect_values(b.grad(), {2}, {0.1, 0.1});
}

}  // namespace
}  // namespace ember
