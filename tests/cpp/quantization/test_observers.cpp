// Observers, fake quantization and the predefined qconfigs in C++ alone (no Python): the spec's
// checklist values (quantization-spec.md § 11), torch's errors, state_dict round trips, deep
// copies, observed_qparams.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/qconfig.h"
#include "ember/warning.h"

namespace ember {
namespace {

namespace q = quantization;

Tensor f32(std::vector<double> v) { return testing::from_values(v, {static_cast<int64_t>(v.size())}, kFloat32); }

q::ObserverOptions opts(ScalarType dtype, QScheme scheme, std::optional<int64_t> qmin = std::nullopt,
                        std::optional<int64_t> qmax = std::nullopt) {
  q::ObserverOptions o;
  o.dtype = dtype;
  o.qscheme = scheme;
  o.quant_min = qmin;
  o.quant_max = qmax;
  return o;
}

TEST(Observers, MinMaxChecklist) {
  q::MinMaxObserver obs;
  auto x = f32({-2, 0.5, 3});
  Tensor y = obs(x);
  EXPECT_EQ(y.impl(), x.impl());  // returned unchanged
  auto [s, z] = obs.calculate_qparams();
  EXPECT_EQ(s.dtype(), kFloat32);
  EXPECT_EQ(z.dtype(), kInt32);
  EXPECT_EQ(s.item<float>(), 5.0f / 255.0f);
  EXPECT_EQ(z.item<int64_t>(), 102);
  EXPECT_EQ(obs.extra_repr(), "min_val=-2.0, max_val=3.0");

  q::MinMaxObserver neg;
  neg(f32({-2, -1}));
  auto [s2, z2] = neg.calculate_qparams();
  EXPECT_EQ(s2.item<float>(), 2.0f / 255.0f);
  EXPECT_EQ(z2.item<int64_t>(), 255);

  q::MinMaxObserver sym(opts(kQInt8, QScheme::PerTensorSymmetric));
  sym(f32({-2, 0.5, 3}));
  auto [s3, z3] = sym.calculate_qparams();
  EXPECT_EQ(s3.item<float>(), 3.0f / 127.5f);
  EXPECT_EQ(z3.dtype(), kInt64);

  q::MinMaxObserver empty_in;
  empty_in(ember::empty({0}, kFloat32));
  EXPECT_TRUE(std::isinf(empty_in.min_val().item<float>()));
  WarningCapture w;
  auto [s4, z4] = empty_in.calculate_qparams();  // uncalibrated: (1.0, 0) with a warning
  EXPECT_EQ(s4.item<float>(), 1.0f);
  EXPECT_EQ(z4.dtype(), kInt64);
}

TEST(Observers, TorchErrors) {
  EXPECT_THROW(q::MinMaxObserver(opts(kQUInt8, QScheme::PerChannelAffine)), Error);
  EXPECT_THROW(q::MinMaxObserver(opts(kQUInt8, QScheme::PerTensorAffine, 1, 5)), q::AssertionError);
  EXPECT_THROW(q::MinMaxObserver(opts(kFloat32, QScheme::PerTensorAffine)), q::AssertionError);
  q::MinMaxObserver nan_obs;
  nan_obs(f32({std::numeric_limits<double>::quiet_NaN(), 1}));
  try {
    nan_obs.calculate_qparams();
    FAIL() << "expected AssertionError";
  } catch (const q::AssertionError& e) {
    EXPECT_STREQ(e.what(), "min nan should be less than max nan");
  }
}

TEST(Observers, MovingAverageAndPerChannel) {
  q::MovingAverageMinMaxObserver ma;
  ma(f32({0, 1}));
  ma(f32({-1, 3}));
  EXPECT_EQ(ma.min_val().item<float>(), -0.01f);
  EXPECT_EQ(ma.max_val().item<float>(), 1.02f);

  q::PerChannelMinMaxObserver pc(0, opts(kQInt8, QScheme::PerChannelSymmetric));
  pc(testing::iota({3, 4}, kFloat32, -5));
  testing::expect_values(pc.min_val(), {3}, {-5, -1, 3});
  auto [s, z] = pc.calculate_qparams();
  EXPECT_EQ(z.dtype(), kInt64);
  testing::expect_values(s, {3}, {5 / 127.5, 2 / 127.5, 6 / 127.5}, 1e-7);
  // A state_dict round trip into a fresh observer (empty buffers take the saved shapes).
  q::PerChannelMinMaxObserver fresh(0, opts(kQInt8, QScheme::PerChannelSymmetric));
  fresh.load_state_dict(pc.state_dict());
  testing::expect_values(fresh.max_val(), {3}, {-2, 2, 6});
  auto copy = std::dynamic_pointer_cast<q::PerChannelMinMaxObserver>(pc.clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->min_val().data_ptr(), pc.min_val().data_ptr());
}

TEST(Observers, HistogramFlag) {
  q::HistogramObserver intended;
  intended(f32({-0.3, 0.1, 0.5, 1.9, 2.7}));
  EXPECT_EQ(intended.histogram().sum().item<float>(), 5.0f);
  q::set_histogram_observer_truncates_histc_range(true);
  q::HistogramObserver truncating;
  q::set_histogram_observer_truncates_histc_range(false);
  EXPECT_TRUE(truncating.truncate_histc_range);
  truncating(f32({-0.3, 0.1, 0.5, 1.9, 2.7}));
  EXPECT_EQ(truncating.histogram().sum().item<float>(), 3.0f);  // torch 1.13 drops two values
  EXPECT_EQ(truncating.dst_nbins, 256);
}

TEST(FakeQuantize, ForwardGradientAndFlags) {
  auto obs = std::make_shared<q::MovingAverageMinMaxObserver>(0.01, opts(kQUInt8, QScheme::PerTensorAffine, 0, 255));
  auto fq = std::make_shared<q::FakeQuantize>(obs);
  Tensor x = f32({-1, 0.5, 2}).requires_grad_(true);
  Tensor y = (*fq)(x);
  EXPECT_EQ(fq->scale().item<float>(), 3.0f / 255.0f);
  EXPECT_EQ(fq->zero_point().item<int64_t>(), 85);
  // The values are codes times the scale; the gradient passes (all inside the range).
  autograd::backward({y.sum()});
  testing::expect_values(x.grad(), {3}, {1, 1, 1});
  std::vector<std::string> keys = fq->state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"fake_quant_enabled", "observer_enabled", "scale", "zero_point",
                                            "activation_post_process.eps", "activation_post_process.min_val",
                                            "activation_post_process.max_val"}));
  fq->apply(q::disable_fake_quant);
  EXPECT_FALSE(fq->fake_quant_enabled());
  EXPECT_EQ((*fq)(x).impl(), x.impl());
  auto p = q::observed_qparams(*fq);
  EXPECT_EQ(p.dtype, kQUInt8);
  EXPECT_EQ(p.ch_axis, -1);
  nn::Linear lin(1, 1);
  EXPECT_THROW(q::observed_qparams(lin), Error);
}

TEST(QConfigs, PredefinedAsTorch) {
  auto qnn = q::get_default_qconfig("qnnpack");
  auto act = std::dynamic_pointer_cast<q::HistogramObserver>(qnn->activation());
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->quant_max, 255);
  auto w = std::dynamic_pointer_cast<q::MinMaxObserver>(qnn->weight());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->qscheme(), QScheme::PerTensorSymmetric);
  WarningCapture warnings;  // reduce_range's deprecation warning
  auto x86 = q::get_default_qconfig("x86");
  EXPECT_EQ(std::dynamic_pointer_cast<q::HistogramObserver>(x86->activation())->quant_max, 127);
  EXPECT_NE(std::dynamic_pointer_cast<q::PerChannelMinMaxObserver>(x86->weight()), nullptr);
  EXPECT_EQ(std::dynamic_pointer_cast<q::MinMaxObserver>(q::get_default_qconfig("bogus")->activation())->quant_max, 127);
  EXPECT_THROW(q::get_default_qconfig("qnnpack", 1), q::AssertionError);
  auto qat = q::get_default_qat_qconfig("qnnpack");
  auto fq = std::dynamic_pointer_cast<q::FusedMovingAvgObsFakeQuantize>(qat->activation());
  ASSERT_NE(fq, nullptr);
  EXPECT_EQ(fq->quant_max(), 255);
  EXPECT_EQ(std::dynamic_pointer_cast<q::FakeQuantize>(q::get_default_qat_qconfig("fbgemm")->activation())->quant_max(), 127);
  EXPECT_EQ(std::dynamic_pointer_cast<q::FakeQuantize>(q::default_qat_qconfig()->activation())->quant_max(), 127);
  auto a = q::default_qconfig()->activation(), b = q::default_qconfig()->activation();
  EXPECT_NE(a.get(), b.get());  // fresh observers
}

}  // namespace
}  // namespace ember
