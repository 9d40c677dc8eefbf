// nn::functional pointwise losses (src/nn/functional/loss.cpp): mse_loss, l1_loss,
// smooth_l1_loss and binary_cross_entropy_with_logits. Values printed by PyTorch 1.13 for the
// same inputs, each reduction, broadcasting, dtypes, 0-d / empty / non-contiguous / meta inputs,
// error texts, F's warnings, the aten rows (boxed calls, what a torch_function mode sees), and
// gradcheck + gradgradcheck in float64 (the losses are composites: their primitives' rules).
#include "../autograd/grad_reduce_helpers.h"
#include "ember/dispatch.h"
#include "ember/nn/functional.h"
#include "ember/warning.h"

namespace ember {
namespace {

using namespace grad_testing;
namespace F = nn::functional;
using F::Reduction;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

Tensor a64() { return from_values({0.5, -1.2, 2.0, 1.1, 0.0, -0.4}, {2, 3}, kFloat64); }
Tensor b64() { return from_values({0.1, 0.3, 2.5, -1.0, 0.05, 0.6}, {2, 3}, kFloat64); }
Tensor meta(IntArrayRef sizes, ScalarType dtype = kFloat32) {
  return empty(sizes, TensorOptions(dtype).device(kMeta));
}

constexpr double kTight = 1e-12;

// ---- mse_loss / l1_loss / smooth_l1_loss ----

TEST(FunctionalLoss, MseValuesMatchTorch) {
  expect_values(F::mse_loss(a64(), b64(), Reduction::None), {2, 3},
                {0.16000000000000003, 2.25, 0.25, 4.41, 0.0025000000000000005, 1.0}, kTight, kTight);
  expect_values(F::mse_loss(a64(), b64()), {}, {1.3454166666666667}, kTight, kTight);
  expect_values(F::mse_loss(a64(), b64(), Reduction::Sum), {}, {8.0725}, kTight, kTight);
  // The aten op takes the schema's int.
  expect_values(mse_loss(a64(), b64(), 2), {}, {8.0725}, kTight, kTight);
  // float32
  Tensor l = F::mse_loss(a64().to(kFloat32), b64().to(kFloat32));
  EXPECT_EQ(l.dtype(), kFloat32);
  expect_values(l, {}, {1.3454166666666667}, 1e-6, 1e-7);
}

TEST(FunctionalLoss, L1AndSmoothL1ValuesMatchTorch) {
  expect_values(F::l1_loss(a64(), b64(), Reduction::None), {2, 3}, {0.4, 1.5, 0.5, 2.1, 0.05, 1.0},
                kTight, kTight);
  expect_values(F::l1_loss(a64(), b64()), {}, {0.9250000000000002}, kTight, kTight);
  expect_values(F::l1_loss(a64(), b64(), Reduction::Sum), {}, {5.550000000000001}, kTight, kTight);
  expect_values(F::smooth_l1_loss(a64(), b64(), Reduction::None), {2, 3},
                {0.08000000000000002, 1.0, 0.125, 1.6, 0.0012500000000000002, 0.5}, kTight, kTight);
  expect_values(F::smooth_l1_loss(a64(), b64()), {}, {0.5510416666666668}, kTight, kTight);
  expect_values(F::smooth_l1_loss(a64(), b64(), Reduction::Sum), {}, {3.3062500000000004}, kTight, kTight);
  expect_values(F::smooth_l1_loss(a64(), b64(), Reduction::None, 0.5), {2, 3},
                {0.16000000000000003, 1.25, 0.25, 1.85, 0.0025000000000000005, 0.75}, kTight, kTight);
  expect_values(F::smooth_l1_loss(a64(), b64(), Reduction::Mean, 0.5), {}, {0.7104166666666667},
                kTight, kTight);
  // beta 0 is the l1 loss.
  expect_values(F::smooth_l1_loss(a64(), b64(), Reduction::None, 0.0), {2, 3},
                {0.4, 1.5, 0.5, 2.1, 0.05, 1.0}, kTight, kTight);
}

TEST(FunctionalLoss, BroadcastingWarnsInFunctionalNotInOp) {
  Tensor r = from_values({0.2, -0.1, 1.0}, {3}, kFloat64);
  {
    WarningCapture w;
    expect_values(F::mse_loss(a64(), r, Reduction::None), {2, 3},
                  {0.09, 1.2099999999999997, 1.0, 0.8100000000000003, 0.010000000000000002,
                   1.9599999999999997},
                  kTight, kTight);
    ASSERT_EQ(w.messages.size(), 1u);
    EXPECT_EQ(w.messages[0],
              "Using a target size (ember.Size([3])) that is different to the input size "
              "(ember.Size([2, 3])). This will likely lead to incorrect results due to "
              "broadcasting. Please ensure they have the same size.");
  }
  {
    WarningCapture w;
    expect_values(mse_loss(a64(), r, 2), {}, {5.08}, kTight, kTight);
    F::l1_loss(a64(), b64());
    EXPECT_TRUE(w.messages.empty());
  }
  WarningCapture w;
  F::l1_loss(r, a64());
  F::smooth_l1_loss(r, a64());
  EXPECT_EQ(w.messages.size(), 2u);
  // The op broadcasts both ways.
  EXPECT_EQ(mse_loss(ones({2, 1, 3}), ones({4, 1}), 0).sizes(), IntArrayRef({2, 4, 3}));
}

TEST(FunctionalLoss, PointwiseLossDtypes) {
  Tensor i = from_values({1, 2, 3}, {3}, kInt64);
  Tensor f = from_values({0.5, 2.5, 3.0}, {3}, kFloat32);
  // Integers promote with floats; alone they are refused with PyTorch's kernel names.
  EXPECT_EQ(mse_loss(i, f).dtype(), kFloat32);
  expect_values(mse_loss(i, f), {}, {(0.25 + 0.25) / 3}, 1e-6, 1e-7);
  EXPECT_EQ(mse_loss(f, f.to(kFloat64)).dtype(), kFloat64);
  expect_error([&] { mse_loss(i, i); }, "\"mse_cpu\" not implemented for 'Long'");
  expect_error([&] { mse_loss(i > 1, i > 1, 0); }, "\"mse_cpu\" not implemented for 'Bool'");
  expect_error([&] { smooth_l1_loss(i, i, 1, 1.0); }, "\"smooth_l1_cpu\" not implemented for 'Long'");
  // l1_loss is a composite in PyTorch too: integers work unreduced and summed, not averaged.
  expect_values(l1_loss(i, i * 2, 0), {3}, {1, 2, 3}, 0, 0);
  EXPECT_EQ(l1_loss(i, i * 2, 2).dtype(), kInt64);
  expect_error([&] { l1_loss(i, i, 1); }, "mean(): could not infer output dtype");
  // 16-bit floats (PyTorch 1.13 has no bfloat16 mse kernel on CPU; ember does).
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor l = mse_loss(a64().to(dt), b64().to(dt), 1);
    EXPECT_EQ(l.dtype(), dt);
    expect_values(l, {}, {1.3454166666666667}, 1e-2, 1e-2);
  }
}

TEST(FunctionalLoss, PointwiseLossErrors) {
  expect_error([&] { mse_loss(ones({3, 5}), ones({4}), 1); },
               "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 1");
  expect_error([&] { F::mse_loss(ones({3, 5}), ones({4})); },
               "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 1");
  expect_error([&] { smooth_l1_loss(ones({2}), ones({2}), 1, -1.0); },
               "smooth_l1_loss does not support negative values for beta.");
  expect_error([&] { mse_loss(ones({2}), ones({2}), 3); },
               "mse_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), but got 3");
  expect_error([&] { smooth_l1_loss(ones({2}), ones({2}), -1, 1.0); },
               "smooth_l1_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), but got -1");
  // l1_loss reduces as apply_loss_reduction does: other values leave the loss unreduced.
  EXPECT_EQ(l1_loss(ones({2, 3}), zeros({2, 3}), 3).sizes(), IntArrayRef({2, 3}));
}

TEST(FunctionalLoss, PointwiseLossShapes) {
  // 0-d, empty (mean of nothing is NaN, sum 0), non-contiguous, meta.
  expect_values(mse_loss(scalar_tensor(2.0), scalar_tensor(0.5), 0), {}, {2.25}, 0, 0);
  expect_values(l1_loss(scalar_tensor(2.0), scalar_tensor(0.5), 1), {}, {1.5}, 0, 0);
  expect_values(smooth_l1_loss(scalar_tensor(2.0), scalar_tensor(0.5), 0, 1.0), {}, {1.0}, 0, 0);
  for (auto loss : {&mse_loss, &l1_loss}) {
    EXPECT_TRUE(std::isnan(loss(empty({0}), empty({0}), 1).item<double>()));
    EXPECT_EQ(loss(empty({0}), empty({0}), 2).item<double>(), 0.0);
    EXPECT_EQ(loss(empty({0, 3}), empty({0, 3}), 0).sizes(), IntArrayRef({0, 3}));
  }
  Tensor at = a64().t(), bt = b64().t();  // transposed views
  expect_values(mse_loss(at, bt, 0), {3, 2},
                {0.16000000000000003, 4.41, 2.25, 0.0025000000000000005, 0.25, 1.0}, kTight, kTight);
  Tensor wide = from_values({0.5, 9, -1.2, 9, 2.0, 9}, {6}, kFloat64).slice(0, 0, 6, 2);
  expect_values(l1_loss(wide, from_values({0.1, 0.3, 2.5}, {3}, kFloat64), 2), {}, {2.4}, kTight, kTight);
  for (int64_t red : {0, 1, 2}) {
    Tensor m = mse_loss(meta({2, 3}), meta({3}), red);
    EXPECT_TRUE(m.is_meta());
    EXPECT_EQ(m.sizes(), red == 0 ? IntArrayRef({2, 3}) : IntArrayRef({}));
    EXPECT_TRUE(smooth_l1_loss(meta({2, 3}), meta({2, 3}), red, 0.5).is_meta());
    EXPECT_TRUE(l1_loss(meta({4}), meta({4}), red).is_meta());
  }
}

// ---- binary_cross_entropy_with_logits ----

Tensor t64() { return from_values({1.0, 0.0, 0.5, 0.0, 1.0, 0.25}, {2, 3}, kFloat64); }
Tensor w64() { return from_values({0.5, 2.0, 1.0}, {3}, kFloat64); }
Tensor pw64() { return from_values({3.0, 0.5, 1.5}, {3}, kFloat64); }

TEST(FunctionalLoss, BceWithLogitsValuesMatchTorch) {
  expect_values(F::binary_cross_entropy_with_logits(a64(), t64(), std::nullopt, Reduction::None),
                {2, 3},
                {0.4740769841801067, 0.2632824673380313, 1.1269280110429727, 1.3873353251154308,
                 0.6931471805599453, 0.6130152523999525},
                kTight, kTight);
  expect_values(F::binary_cross_entropy_with_logits(a64(), t64()), {}, {0.7596308701060733}, kTight, kTight);
  expect_values(F::binary_cross_entropy_with_logits(a64(), t64(), std::nullopt, Reduction::Sum), {},
                {4.55778522063644}, kTight, kTight);
  expect_values(F::binary_cross_entropy_with_logits(a64(), t64(), w64(), Reduction::None, pw64()),
                {2, 3},
                {0.71111547627016, 0.5265649346760628, 1.1586600138037157, 0.6936676625577154,
                 0.6931471805599453, 0.7271421589499465},
                kTight, kTight);
  expect_values(F::binary_cross_entropy_with_logits(a64(), t64(), w64(), Reduction::Mean, pw64()), {},
                {0.7517162378029244}, kTight, kTight);
  expect_values(binary_cross_entropy_with_logits(a64(), t64(), w64(), pw64(), 2), {},
                {4.510297426817546}, kTight, kTight);
}

// The stable form: no overflow for large logits, a tiny loss stays tiny.
TEST(FunctionalLoss, BceWithLogitsIsStable) {
  Tensor x = from_values({100., -100., 0., -30.}, {4}, kFloat64);
  Tensor t = from_values({0., 1., 0.5, 0.}, {4}, kFloat64);
  expect_values(binary_cross_entropy_with_logits(x, t, std::nullopt, scalar_tensor(2.0, kFloat64), 0),
                {4}, {100.0, 200.0, 1.0397207708399179, 9.237055564881302e-14}, 1e-12, 0);
  Tensor xf = from_values({100., -100., 88., -88.}, {4}, kFloat32);
  Tensor tf = from_values({0., 1., 0., 1.}, {4}, kFloat32);
  expect_values(binary_cross_entropy_with_logits(xf, tf, std::nullopt, std::nullopt, 0), {4},
                {100., 100., 88., 88.}, 1e-6, 0);
}

TEST(FunctionalLoss, BceWithLogitsDtypesAndShapes) {
  // The loss accumulates into (1 - target), as PyTorch's in-place chain: target's dtype wins,
  // and input / weight / pos_weight must broadcast into target's shape.
  EXPECT_EQ(binary_cross_entropy_with_logits(a64(), t64().to(kFloat32), std::nullopt, std::nullopt, 1).dtype(),
            kFloat32);
  EXPECT_EQ(binary_cross_entropy_with_logits(a64().to(kFloat32), t64(), std::nullopt, std::nullopt, 1).dtype(),
            kFloat64);
  EXPECT_EQ(binary_cross_entropy_with_logits(a64().to(kFloat32), t64().to(kFloat32), w64(), pw64(), 0).dtype(),
            kFloat32);
  EXPECT_EQ(binary_cross_entropy_with_logits(ones({5}), ones({3, 5}), std::nullopt, std::nullopt, 0).sizes(),
            IntArrayRef({3, 5}));
  expect_error([&] { binary_cross_entropy_with_logits(ones({3, 5}), ones({5}), std::nullopt, std::nullopt, 1); },
               "output with shape [5] doesn't match the broadcast shape [3, 5]");
  expect_error([&] { binary_cross_entropy_with_logits(ones({5}), ones({5}), ones({3, 1}), std::nullopt, 0); },
               "output with shape [5] doesn't match the broadcast shape [3, 5]");
  expect_error([&] { binary_cross_entropy_with_logits(ones({5}), ones({5}), std::nullopt, ones({2, 1, 1}), 0); },
               "output with shape [5] doesn't match the broadcast shape [2, 1, 5]");
  expect_error([&] { binary_cross_entropy_with_logits(ones({2}) > 0, ones({2}) > 0, std::nullopt, std::nullopt, 1); },
               "Negation, the `-` operator, on a bool tensor is not supported.");
  expect_error([&] { binary_cross_entropy_with_logits(ones({2}), ones({2}, kInt64), std::nullopt, std::nullopt, 1); },
               "result type Float can't be cast to the desired output type Long");
  // Invalid reductions leave the loss unreduced (apply_loss_reduction).
  EXPECT_EQ(binary_cross_entropy_with_logits(ones({2, 3}), ones({2, 3}), std::nullopt, std::nullopt, 3).sizes(),
            IntArrayRef({2, 3}));
  EXPECT_TRUE(std::isnan(binary_cross_entropy_with_logits(empty({0}), empty({0}), std::nullopt, std::nullopt, 1)
                             .item<double>()));
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor l = binary_cross_entropy_with_logits(a64().to(dt), t64().to(dt), std::nullopt, std::nullopt, 1);
    EXPECT_EQ(l.dtype(), dt);
    expect_values(l, {}, {0.7596308701060733}, 2e-2, 1e-2);
  }
  Tensor m = binary_cross_entropy_with_logits(meta({2, 3}), meta({2, 3}), meta({3}), meta({3}), 0);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  // Non-contiguous operands.
  expect_values(binary_cross_entropy_with_logits(a64().t(), t64().t(), std::nullopt, std::nullopt, 0), {3, 2},
                {0.4740769841801067, 1.3873353251154308, 0.2632824673380313, 0.6931471805599453,
                 1.1269280110429727, 0.6130152523999525},
                kTight, kTight);
}

TEST(FunctionalLoss, BceFunctionalChecksSizes) {
  expect_error([&] { F::binary_cross_entropy_with_logits(ones({3, 5}), ones({5})); },
               "Target size (ember.Size([5])) must be the same as input size (ember.Size([3, 5]))",
               ErrorKind::Value);
}

// ---- reductions ----

TEST(FunctionalLoss, ReductionStrings) {
  EXPECT_EQ(F::reduction_from_string("none"), Reduction::None);
  EXPECT_EQ(F::reduction_from_string("mean"), Reduction::Mean);
  EXPECT_EQ(F::reduction_from_string("sum"), Reduction::Sum);
  EXPECT_EQ(static_cast<int64_t>(Reduction::Sum), 2);
  EXPECT_STREQ(F::reduction_name(Reduction::None), "none");
  {
    WarningCapture w;
    EXPECT_EQ(F::reduction_from_string("elementwise_mean"), Reduction::Mean);
    ASSERT_EQ(w.messages.size(), 1u);
    EXPECT_EQ(w.messages[0],
              "reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.");
  }
  expect_error([] { F::reduction_from_string("avg"); }, "avg is not a valid value for reduction",
               ErrorKind::Value);
}

// ---- the aten rows ----

struct RecordingMode : FunctionMode {
  std::vector<std::string> seen;
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    seen.push_back(op.full_name());
    return op.call(args);  // the op itself, below this mode
  }
};

TEST(FunctionalLoss, AtenRowsBoxAndReachTorchFunction) {
  for (const char* name : {"aten::l1_loss", "aten::smooth_l1_loss",
                           "aten::binary_cross_entropy_with_logits"}) {
    EXPECT_TRUE(find_op(name).is_composite()) << name;
  }
  // mse_loss is PyTorch's primitive, with mse_loss_backward (Note [Losses are composites]).
  EXPECT_FALSE(find_op("aten::mse_loss").is_composite());
  EXPECT_FALSE(find_op("aten::mse_loss_backward").is_composite());
  // Boxed, with the schema's defaults filled in (reduction=1, beta=1.0).
  Stack out = find_op("aten::smooth_l1_loss").call({a64(), b64()});
  expect_values(out[0].to_tensor(), {}, {0.5510416666666668}, kTight, kTight);
  out = find_op("aten::binary_cross_entropy_with_logits").call({a64(), t64(), Value(), pw64(), int64_t{0}});
  EXPECT_EQ(out[0].to_tensor().sizes(), IntArrayRef({2, 3}));
  // A torch_function mode sees the loss by its aten name, and not the ops of its body.
  const Tensor a = a64(), b = b64();
  auto mode = make_intrusive<RecordingMode>();
  Tensor l;
  {
    FunctionModeGuard g(mode);
    l = F::mse_loss(a, b);
  }
  EXPECT_EQ(mode->seen, std::vector<std::string>{"aten::mse_loss"});
  expect_values(l, {}, {1.3454166666666667}, kTight, kTight);
}

// ---- autograd ----

TEST(FunctionalLoss, PointwiseLossGradcheck) {
  for (int64_t red : {0, 1, 2}) {
    auto mse = [red](const tensor_list& in) { return tensor_list{mse_loss(in[0], in[1], red)}; };
    auto l1 = [red](const tensor_list& in) { return tensor_list{l1_loss(in[0], in[1], red)}; };
    auto sl1 = [red](const tensor_list& in) { return tensor_list{smooth_l1_loss(in[0], in[1], red, 0.7)}; };
    for (const auto& fn : {autograd::DifferentiableFn(mse), autograd::DifferentiableFn(l1),
                           autograd::DifferentiableFn(sl1)}) {
      EXPECT_TRUE(grad_ok(fn, {leaf({3, 4}, 1), leaf({3, 4}, 2)}));
      EXPECT_TRUE(grad_ok(fn, {leaf_transposed({3, 4}), leaf({4}, 5)}));  // broadcast target
      EXPECT_TRUE(grad_ok(fn, {leaf_strided({2, 3}), random64({2, 3}, 9)}));
      EXPECT_TRUE(grad_ok(fn, {leaf({}, 3), leaf({}, 4)}));
      EXPECT_TRUE(gradgrad_ok(fn, {leaf({3, 4}, 1), leaf_transposed({3, 4})}));
      EXPECT_TRUE(gradgrad_ok(fn, {leaf_strided({2, 3}), leaf({3}, 6)}));
    }
  }
  // Values: d mse / d input = 2 (input - target) / n.
  Tensor x = leaf_of({0.5, -1.2, 2.0, 1.1, 0.0, -0.4}, {2, 3});
  expect_values(grad_of(F::mse_loss(x, b64()), x), {2, 3},
                {0.13333333333333333, -0.5, -0.16666666666666666, 0.7, -0.016666666666666666,
                 -0.3333333333333333},
                kTight, kTight);
}

TEST(FunctionalLoss, BceWithLogitsGradcheck) {
  for (int64_t red : {0, 1, 2}) {
    auto plain = [red](const tensor_list& in) {
      return tensor_list{binary_cross_entropy_with_logits(in[0], in[1], std::nullopt, std::nullopt, red)};
    };
    auto weighted = [red](const tensor_list& in) {
      return tensor_list{binary_cross_entropy_with_logits(in[0], in[1], in[2], in[3], red)};
    };
    EXPECT_TRUE(grad_ok(plain, {leaf({3, 4}, 1), leaf({3, 4}, 2)}));
    EXPECT_TRUE(grad_ok(plain, {leaf_transposed({3, 4}), leaf_strided({3, 4})}));
    // Only the logits require grad (the usual case): the in-place accumulation starts from a
    // tensor without history.
    EXPECT_TRUE(grad_ok(plain, {leaf({3, 4}, 1), random64({3, 4}, 2)}));
    EXPECT_TRUE(gradgrad_ok(plain, {leaf_strided({3, 4}), random64({3, 4}, 2)}));
    EXPECT_TRUE(grad_ok(weighted, {leaf({3, 4}, 1), leaf({3, 4}, 2), leaf({4}, 3), leaf({4}, 4)}));
    EXPECT_TRUE(gradgrad_ok(plain, {leaf({3, 4}, 1), leaf_transposed({3, 4})}));
    EXPECT_TRUE(gradgrad_ok(weighted, {leaf({2, 3}, 1), leaf({2, 3}, 2), leaf({3}, 3), leaf({3}, 4)}));
  }
  // (sigmoid(x) - t) / n for the mean, torch 1.13's numbers; and at large logits.
  Tensor x = leaf_of({0.5, -1.2, 2.0, 1.1, 0.0, -0.4}, {2, 3});
  expect_values(grad_of(F::binary_cross_entropy_with_logits(x, t64(), w64(), Reduction::Mean, pw64()), x),
                {2, 3},
                {-0.09438516719953634, 0.07715840550032746, 0.05849939124539216,
                 0.06252167546625981, -0.08333333333333333, 0.012746063728915255},
                1e-10, 1e-12);
  Tensor big = leaf_of({100., -100.}, {2});
  expect_values(grad_of(binary_cross_entropy_with_logits(big, from_values({0., 1.}, {2}, kFloat64),
                                                         std::nullopt, std::nullopt, 2),
                        big),
                {2}, {1., -1.}, 1e-12, 0);
}

}  // namespace
}  // namespace ember
