// libtorch's spellings (issue 17): Tensor::options(), TensorOptions().dtype().device()
// .requires_grad() and torch::dtype / device / requires_grad, accessor<T, N>() (bounds-checked
// here: this file turns EMBER_ACCESSOR_CHECKS on), data_ptr<T>() with libtorch's text,
// item<T>(), Tensor::square, indexing with Slice / None / Ellipsis, and the layers' options
// structs (each builds the module its positional constructor builds).
#define EMBER_ACCESSOR_CHECKS 1

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;
using namespace ember::indexing;

template <class F>
std::string error_text(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(LibtorchNames, TensorOptionsChain) {
  TensorOptions o = TensorOptions().dtype(kFloat64).device(kCPU).requires_grad(true);
  EXPECT_EQ(o.dtype(), kFloat64);
  EXPECT_TRUE(o.device().is_cpu());
  EXPECT_TRUE(o.requires_grad());
  EXPECT_TRUE(o.has_dtype());
  EXPECT_FALSE(TensorOptions().has_device());
  EXPECT_EQ(TensorOptions().dtype(), default_dtype());

  Tensor w = randn({2, 3}, o);
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  (w * 2).sum().backward();
  EXPECT_TRUE(w.grad().defined());

  // torch::dtype / torch::device / torch::requires_grad spell the same options.
  Tensor z = zeros({2}, dtype(kFloat32).requires_grad(true));
  EXPECT_TRUE(z.requires_grad());
  EXPECT_EQ(z.dtype(), kFloat32);
  EXPECT_TRUE(ones({3}, device(kMeta)).is_meta());
  EXPECT_FALSE(ones({3}).requires_grad());
  for (const Tensor& t : {empty({2}, requires_grad()), full({2}, 1.5, requires_grad()),
                          arange(0.0, 3.0, 0.5, requires_grad()), linspace(0, 1, 3, requires_grad()),
                          eye(2, requires_grad()), rand({2}, requires_grad()),
                          tensor({1.0, 2.0}, requires_grad()), zeros_like(z, requires_grad())}) {
    EXPECT_TRUE(t.requires_grad());
    EXPECT_TRUE(t.is_leaf());
  }
  // Integer tensors cannot require grad, as torch::ones({2}, torch::dtype(torch::kLong)
  // .requires_grad(true)) refuses.
  EXPECT_EQ(error_text([] { ones({2}, dtype(kInt64).requires_grad(true)); }),
            "only Tensors of floating point dtype can require gradients");
}

TEST(LibtorchNames, TensorOptionsOfATensor) {
  Tensor x = ones({2}, kFloat64);
  TensorOptions o = x.options();
  EXPECT_EQ(o.dtype(), kFloat64);
  EXPECT_TRUE(o.device().is_cpu());
  EXPECT_FALSE(o.requires_grad());
  Tensor y = zeros({4}, x.options());
  EXPECT_EQ(y.dtype(), kFloat64);
  Tensor m = empty({1}, kInt32).to(kMeta);
  EXPECT_TRUE(zeros({2}, m.options()).is_meta());
  EXPECT_EQ(zeros({2}, m.options()).dtype(), kInt32);
}

TEST(LibtorchNames, Accessor) {
  Tensor t = arange(6, kFloat32).view({2, 3});
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 2);
  EXPECT_EQ(a.size(1), 3);
  EXPECT_EQ(a.stride(0), 3);
  EXPECT_EQ(a[1][2], 5.0f);
  a[0][1] = 10.0f;
  EXPECT_EQ(t[0][1].item<float>(), 10.0f);
  // Strides are followed: a transposed view reads the same elements.
  Tensor tt = t.t();
  auto b = tt.accessor<float, 2>();
  EXPECT_EQ(b[2][1], 5.0f);
  EXPECT_EQ(b[1][0], 10.0f);
}

// An accessor of a temporary would point at freed sizes: libtorch deletes it, so does ember.
template <class T>
concept AccessorOfTemporary = requires(T t) { std::move(t).template accessor<float, 1>(); };
template <class T>
concept AccessorOfLvalue = requires(const T& t) { t.template accessor<float, 1>(); };
static_assert(!AccessorOfTemporary<Tensor>);
static_assert(AccessorOfLvalue<Tensor>);

TEST(LibtorchNames, AccessorChecks) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(error_text([&] { t.accessor<float, 3>(); }), "TensorAccessor expected 3 dims but tensor has 2");
  EXPECT_EQ(error_text([&] { t.accessor<double, 2>(); }), "expected scalar type Double but found Float");
  auto a = t.accessor<float, 2>();
  // Bounds are checked when EMBER_ACCESSOR_CHECKS is on (debug builds, and this file).
  try {
    a[2][0] = 1;
    ADD_FAILURE() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index 2 is out of bounds for dimension 0 with size 2");
  }
  try {
    (void)a[1][3];
    ADD_FAILURE() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index 3 is out of bounds for dimension 0 with size 3");
  }
  EXPECT_THROW((void)a[-1], IndexError);
}

TEST(LibtorchNames, DataPtrAndItem) {
  Tensor t = tensor({1.5, 2.5});
  EXPECT_EQ(t.data_ptr<float>()[1], 2.5f);
  EXPECT_EQ(error_text([&] { t.data_ptr<int64_t>(); }), "expected scalar type Long but found Float");
  EXPECT_EQ(error_text([&] { t.data_ptr<double>(); }), "expected scalar type Double but found Float");
  EXPECT_EQ(t[1].item<float>(), 2.5f);
  EXPECT_EQ(t[1].item<int64_t>(), 2);
  EXPECT_EQ(t.sum().item<double>(), 4.0);
}

TEST(LibtorchNames, UnaryMethods) {
  Tensor t = tensor({-1.5, 2.0, 3.0});
  EXPECT_TRUE(t.square().equal(tensor({2.25, 4.0, 9.0})));
  EXPECT_TRUE(equal(t.floor(), tensor({-2.0, 2.0, 3.0})));
  EXPECT_TRUE(equal(t.ceil(), tensor({-1.0, 2.0, 3.0})));
  EXPECT_TRUE(equal(t.trunc(), tensor({-1.0, 2.0, 3.0})));
  EXPECT_TRUE(allclose(t.reciprocal(), tensor({-1 / 1.5, 0.5, 1 / 3.0})));
  Tensor u = t.clone();
  u.square_();
  EXPECT_TRUE(equal(u, t.square()));
  Tensor x = tensor({0.25, 0.5});
  EXPECT_TRUE(equal(x.log2(), tensor({-2.0, -1.0})));
  EXPECT_TRUE(x.exp2().allclose(ember::exp2(x)));
  EXPECT_TRUE(allclose(x.tan(), ember::tan(x)));
  EXPECT_TRUE(allclose(x.atan(), ember::atan(x)));
  EXPECT_TRUE(allclose(x.erf(), ember::erf(x)));
  // square keeps autograd: d(x^2)/dx = 2x.
  Tensor w = tensor({3.0}, requires_grad());
  w.square().sum().backward();
  EXPECT_EQ(w.grad().item<float>(), 6.0f);
}

TEST(LibtorchNames, IndexingWithSliceNoneEllipsis) {
  Tensor t = arange(24).view({2, 3, 4});
  EXPECT_EQ(t.index({Slice(), 1}).sizes().vec(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(t.index({Ellipsis, Slice(None, 2)}).sizes().vec(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(t.index({None, 0}).sizes().vec(), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(t.index({1, Slice(1, None, 2), -1}).item<int64_t>(), 19);
  EXPECT_EQ(t.index({"...", 0}).sizes().vec(), (std::vector<int64_t>{2, 3}));
  Tensor u = zeros({2, 3});
  u.index_put_({Slice(), 0}, 7);
  u.index_put_({1, Slice(1, None)}, tensor({1.0, 2.0}));
  EXPECT_TRUE(equal(u, tensor({{7.0, 0.0, 0.0}, {7.0, 1.0, 2.0}})));
}

// Each options struct builds the layer its positional constructor builds (same repr, same
// parameter shapes).
template <class M>
std::string repr_of(const M& m) {
  return m.repr();
}

TEST(LibtorchNames, LayerOptions) {
  using namespace ember::nn;
  EXPECT_EQ(repr_of(Linear(LinearOptions(3, 4).bias(false))), repr_of(Linear(3, 4, false)));
  Linear meta(LinearOptions(3, 4).options(kMeta));
  EXPECT_TRUE(meta.weight().is_meta());
  EXPECT_EQ(repr_of(Bilinear(BilinearOptions(2, 3, 4).bias(false))), repr_of(Bilinear(2, 3, 4, false)));

  Conv2d conv(Conv2dOptions(3, 16, 3).stride(2).padding(1).bias(false));
  EXPECT_EQ(conv.repr(), "Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(repr_of(Conv1d(Conv1dOptions(2, 4, 3).padding("same").dilation(2).padding_mode("reflect"))),
            repr_of(Conv1d(2, 4, 3, 1, "same", 2, 1, true, "reflect")));
  EXPECT_EQ(repr_of(Conv3d(Conv3dOptions(2, 4, {1, 2, 3}).groups(2))), repr_of(Conv3d(2, 4, {1, 2, 3}, 1, 0, 1, 2)));
  EXPECT_EQ(repr_of(ConvTranspose2d(ConvTranspose2dOptions(4, 2, 3).stride(2).output_padding(1))),
            repr_of(ConvTranspose2d(4, 2, 3, 2, 0, 1)));
  EXPECT_EQ(repr_of(ConvTranspose1d(ConvTranspose1dOptions(4, 2, 3).bias(false))),
            repr_of(ConvTranspose1d(4, 2, 3, 1, 0, 0, 1, false)));
  EXPECT_EQ(repr_of(ConvTranspose3d(ConvTranspose3dOptions(4, 2, 3).dilation(2))),
            repr_of(ConvTranspose3d(4, 2, 3, 1, 0, 0, 1, true, 2)));

  EXPECT_EQ(repr_of(BatchNorm2d(BatchNorm2dOptions(8).eps(1e-3).momentum(std::nullopt).affine(false))),
            repr_of(BatchNorm2d(8, 1e-3, std::nullopt, false)));
  EXPECT_EQ(repr_of(BatchNorm1d(BatchNormOptions(8).track_running_stats(false))),
            repr_of(BatchNorm1d(8, 1e-5, 0.1, true, false)));
  EXPECT_EQ(repr_of(BatchNorm3d(BatchNorm3dOptions(8))), repr_of(BatchNorm3d(8)));
  EXPECT_EQ(repr_of(InstanceNorm2d(InstanceNorm2dOptions(8).affine(true))),
            repr_of(InstanceNorm2d(8, 1e-5, 0.1, true)));
  EXPECT_EQ(repr_of(LayerNorm(LayerNormOptions({4, 5}).eps(1e-6).elementwise_affine(false))),
            repr_of(LayerNorm(std::vector<int64_t>{4, 5}, 1e-6, false)));
  EXPECT_EQ(repr_of(GroupNorm(GroupNormOptions(2, 8).affine(false))), repr_of(GroupNorm(2, 8, 1e-5, false)));
  EXPECT_EQ(repr_of(Dropout(DropoutOptions(0.2).inplace(true))), repr_of(Dropout(0.2, true)));
  EXPECT_EQ(repr_of(Dropout(DropoutOptions())), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(repr_of(Dropout2d(Dropout2dOptions(0.3))), repr_of(Dropout2d(0.3)));
  EXPECT_EQ(repr_of(Embedding(EmbeddingOptions(10, 3).padding_idx(0).max_norm(1.0))),
            repr_of(Embedding(10, 3, 0, 1.0)));

  EXPECT_EQ(repr_of(MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1))), repr_of(MaxPool2d(3, 2, 1)));
  EXPECT_EQ(repr_of(MaxPool2d(MaxPool2dOptions({3, 2}).stride({2, 1}).ceil_mode(true))),
            repr_of(MaxPool2d({3, 2}, IntOrTuple{2, 1}, 0, 1, false, true)));
  EXPECT_EQ(repr_of(MaxPool2d(MaxPool2dOptions(2))), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr_of(MaxPool1d(MaxPool1dOptions(3).dilation(2))), repr_of(MaxPool1d(3, std::nullopt, 0, 2)));
  EXPECT_EQ(repr_of(MaxPool3d(MaxPool3dOptions(2))), repr_of(MaxPool3d(2)));
  EXPECT_EQ(repr_of(AvgPool2d(AvgPool2dOptions(2).count_include_pad(false))),
            repr_of(AvgPool2d(2, std::nullopt, 0, false, false)));
  EXPECT_EQ(repr_of(AvgPool1d(AvgPool1dOptions(3).stride(1))), repr_of(AvgPool1d(3, 1)));
  EXPECT_EQ(repr_of(AvgPool3d(AvgPool3dOptions(2).divisor_override(3))),
            repr_of(AvgPool3d(2, std::nullopt, 0, false, true, 3)));
  EXPECT_EQ(repr_of(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1}))), "AdaptiveAvgPool2d(output_size=(1, 1))");
  EXPECT_EQ(repr_of(AdaptiveAvgPool1d(AdaptiveAvgPool1dOptions(4))), repr_of(AdaptiveAvgPool1d(4)));
  EXPECT_EQ(repr_of(AdaptiveAvgPool3d(AdaptiveAvgPool3dOptions(2))), repr_of(AdaptiveAvgPool3d(2)));
  EXPECT_EQ(repr_of(AdaptiveMaxPool2d(AdaptiveMaxPool2dOptions(2).return_indices(true))),
            repr_of(AdaptiveMaxPool2d(2, true)));

  EXPECT_EQ(repr_of(LSTM(LSTMOptions(4, 8).num_layers(2).batch_first(true).bidirectional(true))),
            "LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True)");
  EXPECT_EQ(LSTMOptions(4, 8).num_layers(3).num_layers(), 3);
  EXPECT_EQ(repr_of(GRU(GRUOptions(4, 8).dropout(0.5).num_layers(2))), repr_of(GRU(RNNOptions(4, 8).dropout(0.5).num_layers(2))));
  EXPECT_EQ(repr_of(RNNCell(RNNCellOptions(3, 5).nonlinearity("relu"))), repr_of(RNNCell(3, 5, true, "relu")));
  EXPECT_EQ(repr_of(LSTMCell(LSTMCellOptions(3, 5).bias(false))), repr_of(LSTMCell(3, 5, false)));
  EXPECT_EQ(repr_of(GRUCell(GRUCellOptions(3, 5))), repr_of(GRUCell(3, 5)));

  EXPECT_EQ(repr_of(MultiheadAttention(MultiheadAttentionOptions(8, 2).kdim(4).vdim(6).batch_first(true))),
            repr_of(MultiheadAttention(8, 2, 0.0, true, false, false, 4, 6, true)));
  MultiheadAttention mha(MultiheadAttentionOptions(8, 2).kdim(4));
  EXPECT_EQ(mha.parameter("k_proj_weight").sizes().vec(), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(repr_of(TransformerEncoderLayer(TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).activation("gelu"))),
            repr_of(TransformerEncoderLayer(8, 2, 16, 0.0, "gelu")));
  EXPECT_EQ(repr_of(TransformerDecoderLayer(TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).norm_first(true))),
            repr_of(TransformerDecoderLayer(8, 2, 16, 0.1, "relu", 1e-5, false, true)));
}

TEST(LibtorchNames, OptionsReadBack) {
  auto o = nn::Conv2dOptions(3, 16, 3).stride(2).padding(1);
  EXPECT_EQ(o.in_channels(), 3);
  EXPECT_EQ(o.stride().values(), std::vector<int64_t>{2});
  EXPECT_EQ(o.groups(), 1);
  EXPECT_EQ(o.padding_mode(), "zeros");
  o.groups() = 3;  // the non-const getter returns a reference, as libtorch's
  EXPECT_EQ(o.groups(), 3);
  EXPECT_FALSE(nn::MaxPool2dOptions(2).stride().has_value());
  EXPECT_TRUE(nn::LinearOptions(1, 2).bias());
}

}  // namespace
