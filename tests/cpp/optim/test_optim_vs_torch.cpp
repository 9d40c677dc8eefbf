// SGD, Adam and AdamW against torch 1.13: the same parameters and gradients, the parameters
// after every step pasted from torch (tests/python/optim/make_cpp_references.py prints them).
#include "optim_test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

// clang-format off
const std::vector<std::vector<double>> kSGDNesterov = {
    {0.4420500099658966, -1.071874976158142, 1.7396999597549438, 0.09958000481128693, -0.1979600042104721, 0.2979400157928467, 1.4881000518798828, -0.7434499859809875, 0.04999000206589699},
    {0.37671247124671936, -0.8323415517807007, 1.4130444526672363, 0.09918958693742752, -0.19430655241012573, 0.29485368728637695, 1.4688382148742676, -0.7323827743530273, 0.05027356371283531},
    {0.31483715772628784, -0.5534713864326477, 1.0591015815734863, 0.09912819415330887, -0.18892346322536469, 0.2911626398563385, 1.4433692693710327, -0.7170181274414062, 0.05111958831548691},
    {0.2652497887611389, -0.2565115988254547, 0.7124738097190857, 0.09966330230236053, -0.18171679973602295, 0.2872500419616699, 1.4127705097198486, -0.6975802779197693, 0.052766624838113785},
    {0.23445704579353333, 0.039488792419433594, 0.40157267451286316, 0.10103197395801544, -0.1726132482290268, 0.2834621071815491, 1.3780430555343628, -0.6742960810661316, 0.055424440652132034},
};
const std::vector<std::vector<double>> kSGDFloat64 = {
    {0.48375, -1.200625, 1.9275, 0.10075, -0.20450000000000002, 0.30424999999999996, 1.52525, -0.764125, 0.049875},
    {0.4572984375, -1.11116640625, 1.801696875, 0.10121181250000001, -0.21357087500000002, 0.3110669375, 1.5701976875, -0.7906724687500001, 0.048748031250000004},
    {0.424808208984375, -0.9864018056640624, 1.63441679296875, 0.10052152979687501, -0.22779840378125002, 0.31940148551562497, 1.632681219828125, -0.8297182820078126, 0.045801540867187504},
    {0.39022972626708985, -0.8318226041955565, 1.4377031523779298, 0.0978834894583633, -0.24779100454392972, 0.32833315212655856, 1.7110311281357307, -0.8815275768814669, 0.040271073791314456},
};
const std::vector<std::vector<double>> kAdam = {
    {0.44999998807907104, -1.2000000476837158, 1.9500000476837158, 0.09000000357627869, -0.1899999976158142, 0.2900000214576721, 1.4900000095367432, -0.7400000095367432, 0.04000002145767212},
    {0.4010920226573944, -1.1499806642532349, 1.9001110792160034, 0.08387376368045807, -0.17985276877880096, 0.28035521507263184, 1.4800504446029663, -0.7299494743347168, 0.04782367870211601},
    {0.3547852337360382, -1.0999295711517334, 1.8504189252853394, 0.08618415147066116, -0.16950000822544098, 0.27139025926589966, 1.470181941986084, -0.7198232412338257, 0.058106280863285065},
    {0.31357502937316895, -1.0498346090316772, 1.8010191917419434, 0.09456860274076462, -0.15891382098197937, 0.2635120153427124, 1.46042001247406, -0.7096045613288879, 0.06942486017942429},
    {0.2809525728225708, -0.9996840953826904, 1.7520183324813843, 0.10551314800977707, -0.14809074997901917, 0.2574416399002075, 1.450784683227539, -0.6992847919464111, 0.08136118203401566},
};
const std::vector<std::vector<double>> kAdamW = {
    {0.44749999046325684, -1.193750023841858, 1.940000057220459, 0.14711904525756836, -0.24850493669509888, 0.34800493717193604, 1.5424139499664307, -0.7960942387580872, 0.04975009337067604},
    {0.39639630913734436, -1.1377673149108887, 1.8804230690002441, 0.19384190440177917, -0.29661524295806885, 0.39575716853141785, 1.5846086740493774, -0.8420342206954956, 0.014739692211151123},
    {0.3482630252838135, -1.0820409059524536, 1.8213626146316528, 0.24006620049476624, -0.3444657027721405, 0.44324856996536255, 1.6265802383422852, -0.8878653049468994, -0.02412509173154831},
    {0.30570489168167114, -1.0265601873397827, 1.7629235982894897, 0.2856481671333313, -0.39218828082084656, 0.49046942591667175, 1.66832435131073, -0.9336307644844055, -0.06537361443042755},
    {0.2723211944103241, -0.9713143706321716, 1.7052233219146729, 0.33037930727005005, -0.43989062309265137, 0.5374082326889038, 1.7098368406295776, -0.9793705940246582, -0.10828402638435364},
};
// clang-format on

TEST(OptimSGD, NesterovWeightDecayAndAMaximizingDampenedGroupMatchTorch) {
  auto [w, b] = ref_params();
  SGD opt({ParamGroup({w}),
           ParamGroup(
               {b}, {{"lr", 0.02}, {"nesterov", false}, {"dampening", 0.25}, {"maximize", true}})},
          {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true});
  expect_run(opt, w, b, kSGDNesterov);
}

TEST(OptimSGD, Float64MatchesTorch) {
  auto [w, b] = ref_params(kFloat64);
  SGD opt({w, b}, {.lr = 0.05, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.05});
  expect_run(opt, w, b, kSGDFloat64);
}

TEST(OptimAdam, AdamAndAnAmsgradMaximizingDecayedGroupMatchTorch) {
  auto [w, b] = ref_params();
  Adam opt({ParamGroup({w}), ParamGroup({b}, {{"lr", 0.01},
                                              {"betas", std::vector<double>{0.5, 0.9}},
                                              {"amsgrad", true},
                                              {"weight_decay", 0.1},
                                              {"maximize", true}})},
           {.lr = 0.05});
  expect_run(opt, w, b, kAdam);
}

TEST(OptimAdam, AdamWWithAmsgradGroupMatchesTorch) {
  auto [w, b] = ref_params();
  AdamW opt({ParamGroup({w}), ParamGroup({b}, {{"amsgrad", true}, {"eps", 1e-3}})},
            {.lr = 0.05, .weight_decay = 0.1});
  expect_run(opt, w, b, kAdamW);
}

TEST(OptimAdam, ReducedPrecisionParamsMatchTorch) {
  // Three steps on w in bfloat16 (and float16 for SGD; torch 1.13 has no Half addcmul on CPU, so
  // its Adam refuses float16 where ember's runs). Each ember op computes in float and rounds to
  // the 16-bit type once; torch's scalar loop (tensors shorter than a vector) rounds after every
  // arithmetic operator inside an op (alpha * b, then + a), so results may differ by a few units
  // in the last place: 2^-6 relative for bfloat16 (a unit is 2^-8 to 2^-7).
  auto run = [](Optimizer& opt, const Tensor& w) {
    for (int s = 0; s < 3; ++s) {
      NoGradGuard g;
      w.set_grad(w.detach() * 0.7 + (-0.05) * (s + 1));
      opt.step();
    }
  };
  auto param = [](ScalarType dt) {
    return testing::from_values({0.5, -1.25, 2.0}, {3}, dt).requires_grad_();
  };
  const double bf16_tol = 1.0 / 64;
  {
    Tensor w = param(kBFloat16);
    SGD opt({w}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true});
    run(opt, w);
    testing::expect_values(w, {3}, {0.2890625, -0.48828125, 0.9453125}, bf16_tol, 0);
  }
  {
    Tensor w = param(kFloat16);
    SGD opt({w}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true});
    run(opt, w);
    testing::expect_values(w, {3}, {0.286865234375, -0.486328125, 0.9482421875}, 1.0 / 1024, 0);
  }
  {
    Tensor w = param(kBFloat16);
    Adam opt({w}, {.lr = 0.1, .weight_decay = 0.1, .amsgrad = true});
    run(opt, w);
    testing::expect_values(w, {3}, {0.21875, -0.94921875, 1.6953125}, bf16_tol, 0);
    EXPECT_EQ(opt.state(w).at("exp_avg").to_tensor().dtype(), kBFloat16);
  }
  {
    Tensor w = param(kBFloat16);
    AdamW opt({w}, {.lr = 0.1});
    run(opt, w);
    testing::expect_values(w, {3}, {0.220703125, -0.94921875, 1.6953125}, bf16_tol, 0);
  }
}

TEST(OptimAdam, EmptyAndZeroDimParams) {
  Tensor e = empty({0, 3}).requires_grad_();
  Tensor z = testing::from_values({2.0}, {}).requires_grad_();
  Adam adam({e, z}, {.lr = 0.5});
  SGD sgd({e}, {.lr = 0.5, .momentum = 0.9});
  for (int s = 0; s < 2; ++s) {
    e.set_grad(empty({0, 3}));
    z.set_grad(testing::from_values({1.0}, {}));
    adam.step();
    sgd.step();
  }
  EXPECT_EQ(adam.state(e).at("exp_avg").to_tensor().sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(sgd.state(e).at("momentum_buffer").to_tensor().numel(), 0);
  // A constant gradient moves Adam by lr per step (m_hat / sqrt(v_hat) = 1): torch gives 1.0.
  testing::expect_values(z, {}, {1.0}, 1e-6, 1e-6);
}

TEST(OptimSGD, PlainStepIsExact) {
  // Without momentum or decay the step is one multiply-add per element: p - lr * g in float32.
  Tensor w = testing::from_values({1.0, -2.0, 0.5}, {3}).requires_grad_();
  SGD opt({w}, {.lr = 0.5});
  w.set_grad(testing::from_values({0.25, 1.0, -3.0}, {3}));
  opt.step();
  testing::expect_values(w, {3}, {0.875, -2.5, 2.0}, 0, 0);
  // No momentum: PyTorch records a None buffer for every parameter that had a gradient.
  ASSERT_TRUE(opt.state(w).contains("momentum_buffer"));
  EXPECT_TRUE(opt.state(w).at("momentum_buffer").is_none());
}

TEST(OptimSGD, NonContiguousParamStepsInPlace) {
  // A transposed leaf: the update goes through its strides, and the handle stays the same.
  Tensor base = testing::from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = base.t().requires_grad_();
  ASSERT_FALSE(w.is_contiguous());
  SGD opt({w}, {.lr = 0.1, .momentum = 0.5});
  for (int s = 0; s < 2; ++s) {
    w.set_grad(testing::from_values({1, 1, 1, 1, 1, 1}, {3, 2}));
    opt.step();
  }
  // step 1: buf = 1, p -= 0.1; step 2: buf = 1.5, p -= 0.15.
  testing::expect_values(w, {3, 2}, {0.75, 3.75, 1.75, 4.75, 2.75, 5.75}, 1e-6, 1e-6);
  EXPECT_TRUE(opt.param_groups()[0].params()[0].is_same(w));
  testing::expect_values(base, {2, 3}, {0.75, 1.75, 2.75, 3.75, 4.75, 5.75}, 1e-6, 1e-6);
}

TEST(OptimSGD, InvalidOptionsRaiseTorchsErrors) {
  Tensor w = zeros({2}).requires_grad_();
  auto value = ErrorKind::Value;
  expect_error([&] { SGD({w}, {.lr = -0.1}); }, "Invalid learning rate: -0.1", value);
  expect_error([&] { SGD({w}, {.lr = 0.1, .momentum = -0.5}); }, "Invalid momentum value: -0.5",
               value);
  expect_error([&] { SGD({w}, {.lr = 0.1, .weight_decay = -1e-5}); },
               "Invalid weight_decay value: -1e-05", value);
  expect_error([&] { SGD({w}, {.lr = 0.1, .nesterov = true}); },
               "Nesterov momentum requires a momentum and zero dampening", value);
  expect_error([&] { SGD({w}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true}); },
               "Nesterov momentum requires a momentum and zero dampening", value);
  expect_error([&] { SGD({w}, {}); },
               "parameter group didn't specify a value of required optimization parameter lr",
               value);
  // lr may instead come from every group.
  SGD ok({ParamGroup({w}, {{"lr", 0.3}})}, {});
  EXPECT_EQ(ok.param_groups()[0].lr(), 0.3);
}

TEST(OptimAdam, InvalidOptionsRaiseTorchsErrors) {
  Tensor w = zeros({2}).requires_grad_();
  auto value = ErrorKind::Value;
  expect_error([&] { Adam({w}, {.lr = -1e-3}); }, "Invalid learning rate: -0.001", value);
  expect_error([&] { Adam({w}, {.eps = -1e-8}); }, "Invalid epsilon value: -1e-08", value);
  expect_error(
      [&] {
        Adam({w}, {.betas = {1.0, 0.999}});
      },
      "Invalid beta parameter at index 0: 1.0", value);
  expect_error(
      [&] {
        Adam({w}, {.betas = {0.9, -0.5}});
      },
      "Invalid beta parameter at index 1: -0.5", value);
  expect_error([&] { Adam({w}, {.weight_decay = -0.01}); }, "Invalid weight_decay value: -0.01",
               value);
  expect_error(
      [&] {
        AdamW({w}, {.betas = {0.9, 1.0}});
      },
      "Invalid beta parameter at index 1: 1.0", value);
  expect_error([&] { AdamW({w}, {.weight_decay = -1.0}); }, "Invalid weight_decay value: -1.0",
               value);
}

TEST(OptimAdam, StateHasTorchsLayout) {
  auto [w, b] = ref_params();
  Adam opt({w, b}, {.amsgrad = true});
  set_ref_grads(w, b, 0);
  b.set_grad(Tensor());  // no gradient: no state, as in torch
  opt.step();
  const ValueDict& st = opt.state(w);
  EXPECT_EQ(st.keys(),
            (std::vector<std::string>{"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}));
  const Tensor& step = st.at("step").to_tensor();
  EXPECT_EQ(step.dim(), 0);
  EXPECT_EQ(step.dtype(), kFloat32);
  EXPECT_EQ(step.item<double>(), 1.0);
  EXPECT_EQ(opt.state().count(b.impl()), 0u);
  // After one step exp_avg = (1 - beta1) g, with g = w0 * 0.7 - 0.05.
  testing::expect_values(
      st.at("exp_avg").to_tensor(), {3},
      {0.1 * (0.5 * 0.7 - 0.05), 0.1 * (-1.25 * 0.7 - 0.05), 0.1 * (2.0 * 0.7 - 0.05)}, 1e-6, 1e-7);
}

TEST(OptimAdam, AmsgradSwitchedOnLaterNeedsItsStateAndChangesNothing) {
  Tensor w = testing::from_values({1, 2}, {2}).requires_grad_();
  Adam opt({w}, {.lr = 0.1});
  w.set_grad(ones({2}));
  opt.step();
  Tensor before = w.detach().clone();
  opt.param_groups()[0].options().set("amsgrad", true);
  expect_error([&] { opt.step(); }, "'max_exp_avg_sq'", ErrorKind::Key);
  EXPECT_TRUE(equal(w.detach(), before));
  EXPECT_EQ(opt.state(w).at("step").to_tensor().item<double>(), 1.0);
}

TEST(OptimAdam, Float64AndMetaParams) {
  // float64 moments stay float64; the step counter is a CPU float32 scalar even for meta params.
  Tensor w = testing::from_values({1, 2}, {2}, kFloat64).requires_grad_();
  AdamW opt({w});
  w.set_grad(ones({2}, kFloat64));
  opt.step();
  EXPECT_EQ(opt.state(w).at("exp_avg").to_tensor().dtype(), kFloat64);

  Tensor m = empty({4, 3}, TensorOptions(kFloat32).device(kMeta)).requires_grad_();
  Adam meta_opt({m}, {.amsgrad = true});
  m.set_grad(empty({4, 3}, TensorOptions(kFloat32).device(kMeta)));
  meta_opt.step();
  meta_opt.step();
  const ValueDict& st = meta_opt.state(m);
  EXPECT_TRUE(st.at("exp_avg").to_tensor().is_meta());
  EXPECT_TRUE(st.at("max_exp_avg_sq").to_tensor().is_meta());
  EXPECT_EQ(st.at("step").to_tensor().item<double>(), 2.0);
  EXPECT_TRUE(m.is_meta());

  SGD meta_sgd({m}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1});
  meta_sgd.step();
  meta_sgd.step();
  EXPECT_TRUE(meta_sgd.state(m).at("momentum_buffer").to_tensor().is_meta());
}

}  // namespace
}  // namespace ember::optim
