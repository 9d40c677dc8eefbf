// The nn ops and layers of issue 16 in C++: values against torch 1.13 (constants computed with
// it), meta inputs, PyTorch's error texts, and gradcheck / gradgradcheck on every primitive's
// backward rule (elu, leaky_relu, 3-d pools, 3-d pads, im2col / col2im, cdist, pdist).
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/autograd/gradcheck.h"
#include "ember/nn.h"
#include "ember/ops/nn_ops.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::iota;

const std::vector<double> kA{-4, -2.5, -1, -0.25, 0, 0.5, 1, 3, 7};

TEST(NNLayersOps, ActivationsMatchTorch) {
  const Tensor a = from_values(kA, {9});
  expect_values(elu(a), {9}, {-0.9816843867301941, -0.9179149866104126, -0.6321205496788025,
                              -0.22119921445846558, 0.0, 0.5, 1.0, 3.0, 7.0});
  expect_values(elu(a, 0.5, 2.0, 1.5), {9}, {-0.9975212216377258, -0.9764822721481323,
                                             -0.7768698334693909, -0.312710702419281, 0.0, 1.0,
                                             2.0, 6.0, 14.0});
  expect_values(leaky_relu(a, 0.2), {9}, {-0.8, -0.5, -0.2, -0.05, 0.0, 0.5, 1.0, 3.0, 7.0});
  expect_values(selu(a), {9}, {-1.7258986234664917, -1.613785743713379, -1.1113307476043701,
                               -0.38889017701148987, 0.0, 0.5253505110740662, 1.0507010221481323,
                               3.1521029472351074, 7.354907035827637});
  expect_values(softplus(a, 2, 1), {9}, {0.00016770318325143307, 0.003357674228027463,
                                         0.06346400082111359, 0.2370384931564331,
                                         0.3465735912322998, 0.65663081407547, 1.0, 3.0, 7.0});
  expect_values(mish(a), {9}, {-0.07259175181388855, -0.19681619107723236, -0.3034014403820038,
                               -0.12992696464061737, 0.0, 0.37524524331092834, 0.8650983572006226,
                               2.98653507232666, 6.999988555908203});
  expect_values(log_sigmoid(a), {9}, {-4.0181498527526855, -2.578889846801758, -1.3132617473602295,
                                      -0.825939416885376, -0.6931471824645996, -0.4740769863128662,
                                      -0.3132616877555847, -0.04858735203742981,
                                      -0.000911466486286372});
  expect_error([&] { elu(iota({3}, kInt64)); }, "\"elu_cpu\" not implemented for 'Long'");
  expect_error([&] { glu(iota({3})); }, "Halving dimension must be even, but dimension 0 is size 3");
  expect_error([&] { prelu(iota({2, 4}), iota({3})); },
               "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 "
               "and channel size = 4.");
}

Tensor sin_volume() { return sin(iota({2, 1, 3, 4, 4}, kFloat64)); }

TEST(NNLayersOps, Pool3dMatchesTorch) {
  const Tensor x = sin_volume();
  expect_values(avg_pool3d(x, {2}, {1, 2, 2}, {1, 0, 0}, false, false), {2, 1, 4, 2, 2},
                {-0.21856394629079254, 0.356997133851353, 0.3212677126728361, 0.02422096960297851,
                 -0.046744463055513594, -0.003524151896110772, -0.018198419664768872,
                 0.052968623485011614, 0.052040204408488014, -0.011889721119619057,
                 0.0030547166630845585, -0.04950871383525246, -0.020994611362789378,
                 0.3402659954043365, 0.363773985328543, -0.1807337050375497, -0.0848636429652048,
                 -0.28767247501769755, -0.3390786594874241, 0.26444641471931474,
                 0.04933595641919953, -0.03847696228222697, -0.026704429574507013,
                 -0.030659556215049004, -0.041564965607338564, 0.04739889521392039,
                 0.03879983737675026, 0.01686647450281628, -0.26666548701828097,
                 -0.11592076002540297, -0.20807012558490948, 0.3594984761550453},
                1e-12, 1e-12);
  auto [v, i] = max_pool3d_with_indices(x, {2});
  expect_values(v, {2, 1, 1, 2, 2}, {0.9129452507276277, 0.9092974268256817, 0.9893582466233818,
                                     0.9906073556948704, 0.9866275920404853, 0.9510546532543747,
                                     0.9995201585807313, 0.9928726480845371}, 1e-12, 1e-12);
  expect_values(i, {2, 1, 1, 2, 2}, {20, 2, 8, 14, 4, 23, 29, 10});
  expect_values(_adaptive_avg_pool3d(x, {2, 3, 2}), {2, 1, 2, 3, 2},
                {-0.046744463055513594, -0.003524151896110772, 0.04967759238166983,
                 -0.03782219393770986, -0.018198419664768872, 0.052968623485011614,
                 0.052040204408488014, -0.011889721119619057, -0.04214446474577359,
                 0.04696629248347152, 0.0030547166630845585, -0.04950871383525246,
                 0.04933595641919953, -0.03847696228222697, -0.017311824151814648,
                 0.052885483993503096, -0.026704429574507013, -0.030659556215049004,
                 -0.041564965607338564, 0.04739889521392039, 0.0021151650091336544,
                 -0.049159333668572724, 0.03879983737675026, 0.01686647450281628},
                1e-12, 1e-12);
  // Unbatched input and meta tensors.
  EXPECT_EQ(max_pool3d(x[0], {2}).sizes().vec(), (std::vector<int64_t>{1, 1, 2, 2}));
  const Tensor m = empty({2, 3, 4, 5, 6}, TensorOptions(kFloat32).device(kMeta));
  EXPECT_EQ(avg_pool3d(m, {2}).sizes().vec(), (std::vector<int64_t>{2, 3, 2, 2, 3}));
  EXPECT_TRUE(std::get<1>(max_pool3d_with_indices(m, {3}, {1})).is_meta());
  expect_error([&] { max_pool3d(iota({3, 4, 4}), {2}); },
               "non-empty 4D or 5D (batch mode) tensor expected for input");
  expect_error([&] { max_pool3d(x, {2}, {2}, {2}); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  expect_error([&] { avg_pool3d(x, {5}); },
               "input image (T: 3 H: 4 W: 4) smaller than kernel size (kT: 5 kH: 5 kW: 5)");
}

TEST(NNLayersOps, Pad3dIm2colMatchTorch) {
  const Tensor y = iota({1, 1, 2, 2, 3}, kFloat64);
  expect_values(reflection_pad3d(y, {1, 1, 0, 1, 1, 0}), {1, 1, 3, 3, 5},
                {7, 6, 7, 8, 7, 10, 9, 10, 11, 10, 7, 6, 7, 8, 7, 1, 0, 1, 2, 1, 4, 3, 4,
                 5, 4, 1, 0, 1, 2, 1, 7, 6, 7, 8, 7, 10, 9, 10, 11, 10, 7, 6, 7, 8, 7});
  expect_values(pad(y, {2, 0, 1, 0, 0, 1}, "replicate"), {1, 1, 3, 3, 5},
                {0, 0, 0, 1, 2, 0, 0, 0, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6, 7, 8, 6, 6, 6,
                 7, 8, 9, 9, 9, 10, 11, 6, 6, 6, 7, 8, 6, 6, 6, 7, 8, 9, 9, 9, 10, 11});
  expect_error([&] { reflection_pad3d(y, {3, 0, 0, 0, 0, 0}); },
               "Argument #4: Padding size should be less than the corresponding input dimension, "
               "but got: padding (3, 0) at dimension 4 of input [1, 1, 2, 2, 3]");
  const Tensor z = iota({1, 2, 3, 3}, kFloat64);
  const Tensor cols = im2col(z, {2, 2}, {1, 1}, {0, 0}, {1, 1});
  expect_values(cols, {1, 8, 4}, {0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8,
                                  9, 10, 12, 13, 10, 11, 13, 14, 12, 13, 15, 16, 13, 14, 16, 17});
  expect_values(col2im(cols, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}), {1, 2, 3, 3},
                {0, 2, 2, 6, 16, 10, 6, 14, 8, 9, 20, 11, 24, 52, 28, 15, 32, 17});
  expect_error([&] { col2im(iota({1, 8, 5}), {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}); },
               "expected size of input's dimension 2 to match the calculated number of sliding "
               "blocks 2 * 2 = 4, but got input.size(2)=5.");
}

TEST(NNLayersOps, DistancesMatchTorch) {
  const Tensor p = from_values({0, 0, 3, 4, 1, 1}, {3, 2}), q = from_values({1, 0, 0, 2}, {2, 2});
  expect_values(cdist(p, q), {3, 2}, {1.0, 2.0, 4.4721360206604, 3.605551242828369, 1.0, 1.4142135381698608});
  expect_values(cdist(p, q, 1.0), {3, 2}, {1, 2, 6, 5, 1, 2});
  expect_values(pdist(p), {3}, {5.0, 1.4142135381698608, 3.605551242828369});
  expect_error([&] { cdist(iota({3}), iota({3})); }, "cdist only supports at least 2D tensors, X1 got: 1D");
}

// Every primitive's backward rule, and its double backward, against finite differences.
TEST(NNLayersOps, GradcheckPrimitives) {
  using autograd::tensor_list;
  auto x = [](IntArrayRef s, double start = -2.3) {
    return sin(iota(s, kFloat64, start) * 0.37).requires_grad_();
  };
  auto check = [](const autograd::DifferentiableFn& f, const tensor_list& in) {
    EXPECT_TRUE(autograd::gradcheck(f, in));
    EXPECT_TRUE(autograd::gradgradcheck(f, in));
  };
  check([](const tensor_list& i) { return tensor_list{elu(i[0], 0.7, 1.2, 0.8)}; }, {x({3, 4})});
  check([](const tensor_list& i) { return tensor_list{leaky_relu(i[0], 0.2)}; }, {x({3, 4})});
  check([](const tensor_list& i) { return tensor_list{avg_pool3d(i[0], {2}, {1}, {1}, true, false)}; },
        {x({1, 2, 3, 3, 4})});
  check([](const tensor_list& i) { return tensor_list{std::get<0>(max_pool3d_with_indices(i[0], {2}, {1}))}; },
        {x({1, 1, 3, 3, 3})});
  check([](const tensor_list& i) { return tensor_list{_adaptive_avg_pool3d(i[0], {2, 2, 3})}; },
        {x({1, 2, 3, 3, 4})});
  check([](const tensor_list& i) { return tensor_list{std::get<0>(adaptive_max_pool3d(i[0], {2, 2, 2}))}; },
        {x({1, 1, 3, 4, 3})});
  check([](const tensor_list& i) { return tensor_list{reflection_pad3d(i[0], {1, 0, 2, 1, 1, 1})}; },
        {x({1, 1, 2, 3, 3})});
  check([](const tensor_list& i) { return tensor_list{replication_pad3d(i[0], {1, 2, 0, 1, 1, 0})}; },
        {x({1, 1, 2, 3, 3})});
  check([](const tensor_list& i) { return tensor_list{im2col(i[0], {2, 2}, {1, 1}, {1, 0}, {1, 2})}; },
        {x({1, 2, 3, 4})});
  check([](const tensor_list& i) { return tensor_list{col2im(i[0], {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1})}; },
        {x({1, 8, 4})});
  EXPECT_TRUE(autograd::gradcheck([](const tensor_list& i) { return tensor_list{cdist(i[0], i[1], 1.5)}; },
                                  {x({3, 2}), x({4, 2}, 0.4)}));
  EXPECT_TRUE(autograd::gradcheck([](const tensor_list& i) { return tensor_list{pdist(i[0], 2.0)}; },
                                  {x({4, 3})}));
}

TEST(NNLayersLayers, ReprsAndKeysMatchTorch) {
  EXPECT_EQ(nn::LeakyReLU().repr(), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(nn::Softplus().repr(), "Softplus(beta=1, threshold=20)");
  EXPECT_EQ(nn::ELU(2, true).repr(), "ELU(alpha=2, inplace=True)");
  EXPECT_EQ(nn::Threshold(0.1, 20).repr(), "Threshold(threshold=0.1, value=20)");
  EXPECT_EQ(nn::RReLU().repr(), "RReLU(lower=0.125, upper=0.3333333333333333)");
  EXPECT_EQ(nn::MaxPool3d(2).repr(), "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::AvgPool1d(2).repr(), "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))");
  EXPECT_EQ(nn::LPPool1d(2, 3).repr(), "LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)");
  EXPECT_EQ(nn::ReflectionPad3d(1).repr(), "ReflectionPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_EQ(nn::ConstantPad1d(2, 3.5).repr(), "ConstantPad1d(padding=(2, 2), value=3.5)");
  EXPECT_EQ(nn::ZeroPad2d(1).repr(), "ZeroPad2d((1, 1, 1, 1))");
  EXPECT_EQ(nn::Conv3d(2, 4, 3).repr(), "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1))");
  EXPECT_EQ(nn::ConvTranspose1d(2, 4, 3, 2, 0, 1).repr(),
            "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,), output_padding=(1,))");
  EXPECT_EQ(nn::InstanceNorm1d(3).repr(),
            "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(nn::LocalResponseNorm(2).repr(), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_EQ(nn::Fold(4, 2).repr(), "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)");
  EXPECT_EQ(nn::UpsamplingNearest2d(std::nullopt, std::vector<double>{2.0}).repr(),
            "UpsamplingNearest2d(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(nn::BCELoss().repr(), "BCELoss()");
  nn::PReLU prelu(3, 0.1);
  EXPECT_EQ(prelu.state_dict().size(), 1u);
  expect_values(prelu.weight(), {3}, {0.1, 0.1, 0.1});
  nn::InstanceNorm3d in(3, 1e-5, 0.1, false, true);
  EXPECT_EQ(in.state_dict().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
}

TEST(NNLayersLayers, ForwardsAndClone) {
  auto net = std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv3d>(1, 2, 3, 1, 1), std::make_shared<nn::InstanceNorm3d>(2),
      std::make_shared<nn::LeakyReLU>(0.1), std::make_shared<nn::MaxPool3d>(2),
      std::make_shared<nn::AdaptiveAvgPool3d>(1));
  const Tensor y = (*net)(iota({2, 1, 4, 4, 4}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 2, 1, 1, 1}));
  auto copy = net->clone();
  EXPECT_EQ(copy->repr(), net->repr());
  nn::TripletMarginLoss triplet;
  const Tensor a = iota({3, 4}), b = a + 1, c = a * 2;
  EXPECT_EQ(triplet(a, b, c).dim(), 0);
  expect_error([&] { triplet.forward(std::vector<Value>{a, b}); },
               "TripletMarginLoss.forward() missing 1 required positional argument: 'negative'",
               ErrorKind::Type);
}

}  // namespace
}  // namespace ember
