// nn activation layers: reprs as torch 1.13 prints them, outputs against torch's, in-place
// forms, the implicit softmax dim with its warning, and boxed calls.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"
#include "ember/warning.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;

TEST(LayersActivation, ReprMatchesTorch) {
  EXPECT_EQ(nn::ReLU().repr(), "ReLU()");
  EXPECT_EQ(nn::ReLU(true).repr(), "ReLU(inplace=True)");
  EXPECT_EQ(nn::ReLU6().repr(), "ReLU6()");
  EXPECT_EQ(nn::ReLU6(true).repr(), "ReLU6(inplace=True)");
  EXPECT_EQ(nn::Hardtanh().repr(), "Hardtanh(min_val=-1.0, max_val=1.0)");
  EXPECT_EQ(nn::Hardtanh(-2.5, 0.1, true).repr(), "Hardtanh(min_val=-2.5, max_val=0.1, inplace=True)");
  EXPECT_EQ(nn::Hardswish().repr(), "Hardswish()");
  EXPECT_EQ(nn::Hardswish(true).repr(), "Hardswish()");  // torch does not print it either
  EXPECT_EQ(nn::Sigmoid().repr(), "Sigmoid()");
  EXPECT_EQ(nn::Tanh().repr(), "Tanh()");
  EXPECT_EQ(nn::GELU().repr(), "GELU(approximate='none')");
  EXPECT_EQ(nn::GELU("tanh").repr(), "GELU(approximate='tanh')");
  EXPECT_EQ(nn::SiLU().repr(), "SiLU()");
  EXPECT_EQ(nn::SiLU(true).repr(), "SiLU(inplace=True)");
  EXPECT_EQ(nn::Softmax().repr(), "Softmax(dim=None)");
  EXPECT_EQ(nn::Softmax(1).repr(), "Softmax(dim=1)");
  EXPECT_EQ(nn::LogSoftmax(-1).repr(), "LogSoftmax(dim=-1)");
  EXPECT_EQ(nn::LogSoftmax().repr(), "LogSoftmax(dim=None)");
  EXPECT_TRUE(nn::ReLU().state_dict().empty());
  EXPECT_TRUE(nn::ReLU().parameters().empty());
}

// torch 1.13 on a = [-4, -2.5, -1, -0.25, 0, 0.5, 1, 3, 7] (float32).
TEST(LayersActivation, ValuesMatchTorch) {
  const Tensor a = from_values({-4, -2.5, -1, -0.25, 0, 0.5, 1, 3, 7}, {9});
  auto check = [&](nn::Module& m, const std::vector<double>& want) {
    SCOPED_TRACE(m.repr());
    expect_values(m(a), {9}, want, 1e-6, 1e-7);
  };
  nn::ReLU relu;
  check(relu, {0, 0, 0, 0, 0, 0.5, 1, 3, 7});
  nn::ReLU6 relu6;
  check(relu6, {0, 0, 0, 0, 0, 0.5, 1, 3, 6});
  nn::Hardtanh ht(-2.5, 0.1);
  check(ht, {-2.5, -2.5, -1.0, -0.25, 0.0, 0.10000000149011612, 0.10000000149011612,
             0.10000000149011612, 0.10000000149011612});
  nn::Hardswish hs;
  check(hs, {-0.0, -0.2083333283662796, -0.3333333432674408, -0.1145833358168602, 0.0,
             0.2916666567325592, 0.6666666865348816, 3.0, 7.0});
  nn::Sigmoid sig;
  check(sig, {0.01798621006309986, 0.07585817575454712, 0.2689414322376251, 0.43782350420951843,
              0.5, 0.622459352016449, 0.7310585975646973, 0.9525741338729858, 0.9990890026092529});
  nn::Tanh tanh_m;
  check(tanh_m, {-0.9993293285369873, -0.9866142868995667, -0.7615941762924194,
                 -0.24491865932941437, 0.0, 0.46211716532707214, 0.7615941762924194,
                 0.9950547814369202, 0.9999983310699463});
  nn::GELU gelu;
  check(gelu, {-0.00012671947479248047, -0.015524178743362427, -0.1586552858352661,
               -0.10032343119382858, 0.0, 0.3457311987876892, 0.8413447141647339,
               2.995950222015381, 7.0});
  nn::GELU gelu_tanh("tanh");
  check(gelu_tanh, {-7.021427154541016e-05, -0.015084296464920044, -0.15880799293518066,
                    -0.10032464563846588, 0.0, 0.3457140028476715, 0.8411920070648193,
                    2.9963626861572266, 7.0});
  nn::SiLU silu;
  check(silu, {-0.07194484025239944, -0.189645454287529, -0.2689414322376251,
               -0.10945587605237961, 0.0, 0.3112296760082245, 0.7310585975646973,
               2.857722520828247, 6.993622779846191});
  nn::GELU bad("exact");
  expect_error([&] { bad(a); }, "approximate argument must be either none or tanh.");  // when run
}

TEST(LayersActivation, InplaceWritesTheInput) {
  for (bool inplace : {false, true}) {
    Tensor x = from_values({-1, 2, 8}, {3});
    nn::ReLU6 m(inplace);
    Tensor y = m(x);
    expect_values(y, {3}, {0, 2, 6});
    EXPECT_EQ(y.is_same(x), inplace);
    expect_values(x, {3}, inplace ? std::vector<double>{0, 2, 6} : std::vector<double>{-1, 2, 8});
  }
  Tensor x = from_values({-1, 2}, {2});
  nn::ReLU(true)(x);
  expect_values(x, {2}, {0, 2});
  Tensor s = from_values({-1, 0}, {2});
  nn::SiLU(true)(s);
  expect_values(s, {2}, {-0.2689414322376251, 0}, 1e-6, 1e-7);
  Tensor h = from_values({-3, 1}, {2});
  nn::Hardswish(true)(h);
  expect_values(h, {2}, {0, 0.6666666865348816}, 1e-6, 1e-7);
  // An in-place activation on a leaf that requires grad is refused, as torch.
  Tensor leaf = ones({2}).requires_grad_();
  expect_error([&] { nn::ReLU(true)(leaf); },
               "a leaf Variable that requires grad is being used in an in-place operation.");
}

TEST(LayersActivation, SoftmaxDimAndImplicitDim) {
  const Tensor s = from_values({1, 2, 3, -1, 0, 4}, {2, 3});
  expect_values(nn::Softmax(1)(s), {2, 3},
                {0.09003057330846786, 0.2447284758090973, 0.6652409434318542, 0.006573262624442577,
                 0.017867980524897575, 0.9755586981773376});
  expect_values(nn::Softmax(0)(s), {2, 3},
                {0.8807970285415649, 0.8807970285415649, 0.2689414322376251, 0.11920291930437088,
                 0.11920291930437088, 0.7310585975646973});
  expect_values(nn::LogSoftmax(1)(s), {2, 3},
                {-2.4076058864593506, -1.4076058864593506, -0.40760594606399536, -5.024744987487793,
                 -4.024744987487793, -0.024744924157857895},
                1e-6, 1e-6);
  WarningCapture w;
  nn::Softmax implicit;
  expect_values(implicit(s), {2, 3}, testing::values(nn::Softmax(1)(s)));  // 2-d: dim 1
  Tensor three = testing::iota({2, 3, 2});
  EXPECT_TRUE(allclose(nn::LogSoftmax()(three), nn::LogSoftmax(0)(three)));  // 3-d: dim 0
  Tensor one = testing::iota({4});
  EXPECT_TRUE(allclose(implicit(one), nn::Softmax(0)(one)));
  ASSERT_EQ(w.messages.size(), 3u);
  EXPECT_EQ(w.messages[0],
            "Implicit dimension choice for softmax has been deprecated. Change the call to include "
            "dim=X as an argument.");
  EXPECT_EQ(w.messages[1],
            "Implicit dimension choice for log_softmax has been deprecated. Change the call to "
            "include dim=X as an argument.");
  expect_error([&] { nn::Softmax(2)(s); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
}

TEST(LayersActivation, GradientsFlowAndMetaWorks) {
  Tensor x = from_values({-1, 0.5, 2}, {3}).requires_grad_();
  Tensor y = nn::Tanh()(nn::GELU()(x)).sum();
  y.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_GT(testing::values(x.grad())[2], 0.0);
  Tensor m = empty({2, 5}, kMeta);
  for (auto mod : std::vector<std::shared_ptr<nn::Module>>{
           std::make_shared<nn::ReLU>(), std::make_shared<nn::Hardswish>(),
           std::make_shared<nn::GELU>(), std::make_shared<nn::Softmax>(1),
           std::make_shared<nn::LogSoftmax>(0)}) {
    Tensor out = (*mod)(m);
    EXPECT_TRUE(out.is_meta()) << mod->repr();
    EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 5}));
  }
}

TEST(LayersActivation, HardtanhChecksItsRange) {
  expect_error([&] { nn::Hardtanh(1.0, 1.0); },
               "Hardtanh: max_val (1.0) must be greater than min_val (1.0)");
  Value out = nn::Sigmoid().call({Value(zeros({2}))});
  expect_values(out.to_tensor(), {2}, {0.5, 0.5});
}

TEST(LayersActivation, ZeroDimEmptyAndNonContiguousInputs) {
  std::vector<std::shared_ptr<nn::Module>> layers{
      std::make_shared<nn::ReLU>(), std::make_shared<nn::ReLU6>(), std::make_shared<nn::Hardtanh>(),
      std::make_shared<nn::Hardswish>(), std::make_shared<nn::Sigmoid>(), std::make_shared<nn::Tanh>(),
      std::make_shared<nn::GELU>(), std::make_shared<nn::SiLU>(), std::make_shared<nn::Softmax>(0),
      std::make_shared<nn::LogSoftmax>(0)};
  // Reference: the same layer on a contiguous copy (elementwise layers), and the 0-d case
  // against the 1-element case.
  Tensor base = from_values({-3, -0.5, 0.25, 2, 5, 7}, {2, 3});
  Tensor t = base.t();  // non-contiguous [3, 2]
  for (const auto& m : layers) {
    SCOPED_TRACE(m->repr());
    Tensor out = (*m)(t);
    EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 2}));
    EXPECT_TRUE(allclose(out, (*m)(t.contiguous())));
    Tensor scalar = (*m)(scalar_tensor(0.5));
    EXPECT_EQ(scalar.dim(), 0);
    EXPECT_TRUE(allclose(scalar.reshape({1}), (*m)(from_values({0.5}, {1}))));
    EXPECT_EQ((*m)(empty({0, 4})).sizes().vec(), (std::vector<int64_t>{0, 4}));
  }
  // Softmax over dim 0 of the transposed view (over base's rows), against torch.
  expect_values(nn::Softmax(0)(t), {3, 2},
                {0.025658898055553436, 0.0058997501619160175, 0.3125893473625183,
                 0.11849965155124664, 0.6617516875267029, 0.8756005764007568},
                1e-6, 1e-7);
}

}  // namespace
}  // namespace ember
