// The C++ API of ASGD and Rprop (include/ember/optim/asgd_rprop.h): four-step float64
// trajectories against torch 1.13's (values printed by torch.optim with the parameters and
// gradients of optim_test_util.h), torch's state layouts, a state_dict round trip mid-run, and
// the error texts. (tests/python/optim/test_pyauto_optim.py compares longer runs, both dtypes,
// complex parameters and the Python layer.)
#include "optim_test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

TEST(OptimASGD, TrajectoryEqualsTorch) {
  auto [w, b] = ref_params(kFloat64);
  ASGD opt({w, b}, {.lr = 0.1, .lambd = 0.01, .t0 = 1, .weight_decay = 0.05});
  expect_run(opt, w, b,
             {{0.46699999950826165, -1.1499999985098839, 1.8529999978095293, 0.10140000002086164,
               -0.20880000013113023, 0.3082000001221895, 1.549000000730157, -0.777500000409782,
               0.04969999999552965},
              {0.44152710234531933, -1.0526729867248878, 1.7222700358340683, 0.10084801397051758,
               -0.21989088278917931, 0.3146739451436488, 1.5976295321824365, -0.8079121935152903,
               0.04739153117723477},
              {0.42299882846270664, -0.9578120977108945, 1.6065510508972218, 0.0982806965189335,
               -0.23334699336978196, 0.3193658231114105, 1.6458765826662725, -0.8413310914990937,
               0.04300941487081426},
              {0.4108781786262252, -0.8652266166682765, 1.5046822888786553, 0.09363269424228308,
               -0.24924503410917284, 0.322217846476587, 1.693728759882411, -0.8778542027535087,
               0.036486406183707104}});
  const ValueDict& st = opt.state(w);
  EXPECT_EQ(st.keys(), (std::vector<std::string>{"step", "eta", "mu", "ax"}));
  EXPECT_EQ(st.at("step").to_tensor().dtype(), kFloat32);
  EXPECT_EQ(st.at("step").to_tensor().item<double>(), 4.0);
  // mu = 1 / max(1, step - t0) after step 4
  EXPECT_NEAR(st.at("mu").to_tensor().item<double>(), 1.0 / 3.0, 1e-7);
  EXPECT_EQ(opt.param_groups()[0].options().keys(),
            (std::vector<std::string>{"lr", "lambd", "alpha", "t0", "weight_decay", "foreach",
                                      "maximize"}));
}

TEST(OptimASGD, MaximizeAndRoundTripMidRun) {
  auto [w, b] = ref_params(kFloat64);
  auto opt = std::make_unique<ASGD>(std::vector<Tensor>{w, b},
                                    ASGDOptions{.lr = 0.05, .maximize = true});
  const std::vector<std::vector<double>> want = {
      {0.5149975002234801, -1.2962437506890854, 2.0674900010056794, 0.09899949998509139,
       -0.1949989999254793, 0.29499849992547184, 1.4709924995677546, -0.7339962497615254,
       0.049999749999996276},
      {0.5280197884556214, -1.3466056101293815, 2.1348415586713383, 0.09901901491402741,
       -0.1890980672664648, 0.29109706970102217, 1.443565398422991, -0.7173127179307004,
       0.050999501217278705}};
  expect_run(*opt, w, b, want);
  // a fresh optimizer continues from the saved state
  ASGD again({w, b}, {.lr = 0.05, .maximize = true});
  again.load_state_dict(opt->state_dict());
  set_ref_grads(w, b, 2);
  again.step();
  EXPECT_NEAR(testing::values(w.detach())[0], 0.538997758505418, 1e-13);
  EXPECT_NEAR(testing::values(b.detach())[5], 0.05297924132710042, 1e-13);
}

TEST(OptimRprop, TrajectoriesEqualTorch) {
  {
    auto [w, b] = ref_params(kFloat64);
    Rprop opt({w, b}, {.lr = 0.05});
    expect_run(opt, w, b,
               {{0.45, -1.2, 1.95, 0.15000000000000002, -0.25, 0.35, 1.55, -0.8, 0.1},
                {0.39, -1.14, 1.89, 0.21000000000000002, -0.31, 0.41, 1.61, -0.8600000000000001,
                 0.16},
                {0.318, -1.0679999999999998, 1.8179999999999998, 0.28200000000000003, -0.382,
                 0.482, 1.6820000000000002, -0.932, 0.23199999999999998},
                {0.23160000000000003, -0.9815999999999998, 1.7315999999999998, 0.3684, -0.4684,
                 0.5684, 1.7684000000000002, -1.0184, 0.31839999999999996}});
    const ValueDict& st = opt.state(b);
    EXPECT_EQ(st.keys(), (std::vector<std::string>{"step", "prev", "step_size"}));
    EXPECT_TRUE(st.at("step").is_int());
    EXPECT_EQ(st.at("step").to_int(), 4);
  }
  {
    auto [w, b] = ref_params(kFloat64);
    Rprop opt({w, b}, {.lr = 0.02, .etas = {0.3, 1.5}, .step_sizes = {1e-3, 0.05},
                       .maximize = true});
    expect_run(opt, w, b,
               {{0.52, -1.27, 2.02, 0.08, -0.18000000000000002, 0.27999999999999997, 1.48, -0.73,
                 0.030000000000000002},
                {0.55, -1.3, 2.05, 0.08, -0.15000000000000002, 0.24999999999999997, 1.45, -0.7,
                 0.030000000000000002},
                {0.5950000000000001, -1.345, 2.0949999999999998, 0.08600000000000001,
                 -0.10500000000000002, 0.20499999999999996, 1.405, -0.6549999999999999,
                 0.036000000000000004},
                {0.6450000000000001, -1.395, 2.1449999999999996, 0.095, -0.05500000000000002,
                 0.15499999999999997, 1.355, -0.6049999999999999, 0.045000000000000005}});
  }
}

TEST(OptimRprop, SignChangeSkipsTheStepAndShrinks) {
  Tensor p = testing::from_values({1.0}, {1}, kFloat64).requires_grad_();
  Rprop opt({p}, {.lr = 0.1});
  p.set_grad(testing::from_values({2.0}, {1}, kFloat64));
  opt.step();  // 1 - 0.1
  p.set_grad(testing::from_values({-3.0}, {1}, kFloat64));
  opt.step();  // sign changed: no move, step size 0.05, prev forgotten
  EXPECT_DOUBLE_EQ(testing::values(p.detach())[0], 0.9);
  EXPECT_DOUBLE_EQ(opt.state(p).at("step_size").to_tensor().item<double>(), 0.05);
  EXPECT_DOUBLE_EQ(opt.state(p).at("prev").to_tensor().item<double>(), 0.0);
  p.set_grad(testing::from_values({-3.0}, {1}, kFloat64));
  opt.step();  // prev 0: the step size is kept
  EXPECT_DOUBLE_EQ(testing::values(p.detach())[0], 0.95);
}

TEST(OptimASGDRprop, ErrorsAsTorch) {
  Tensor p = testing::from_values({1.0}, {1}, kFloat64).requires_grad_();
  expect_error([&] { ASGD({p}, {.lr = -1}); }, "Invalid learning rate: -1.0", ErrorKind::Value);
  expect_error([&] { ASGD({p}, {.weight_decay = -0.5}); }, "Invalid weight_decay value: -0.5",
               ErrorKind::Value);
  expect_error([&] { Rprop({p}, {.lr = -1}); }, "Invalid learning rate: -1.0", ErrorKind::Value);
  expect_error([&] { Rprop({p}, {.etas = {1.5, 1.2}}); }, "Invalid eta values: 1.5, 1.2",
               ErrorKind::Value);
  expect_error([&] { Rprop({p}, {.etas = {0.5, 1.0}}); }, "Invalid eta values: 0.5, 1.0",
               ErrorKind::Value);
}

}  // namespace
}  // namespace ember::optim
