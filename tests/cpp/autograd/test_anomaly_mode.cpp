// Anomaly mode from C++ (Note [Anomaly mode]): the guard's warning and restore, the NaN check and
// its text, and the warning naming the failing node.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/ember.h"
#include "ember/warning.h"

namespace ember {
namespace {

using autograd::AnomalyMode;

TEST(AnomalyMode, GuardWarnsEnablesAndRestores) {
  WarningCapture warnings;
  EXPECT_FALSE(AnomalyMode::is_enabled());
  {
    autograd::DetectAnomalyGuard guard(/*check_nan=*/false);
    EXPECT_TRUE(AnomalyMode::is_enabled());
    EXPECT_FALSE(AnomalyMode::should_check_nan());
  }
  EXPECT_FALSE(AnomalyMode::is_enabled());
  EXPECT_TRUE(AnomalyMode::should_check_nan());
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0],
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.");
}

TEST(AnomalyMode, NanGradientRaisesAndNamesTheNode) {
  WarningCapture warnings;
  autograd::DetectAnomalyGuard guard;
  Tensor a = testing::from_values({0.0, 1.0}, {2}, kFloat32).requires_grad_();
  Tensor y = (a.sqrt() * 0.0).sum();
  testing::expect_error([&] { y.backward(); }, "Function 'SqrtBackward0' returned nan values in its 0th output.");
  ASSERT_EQ(warnings.messages.size(), 2u);
  EXPECT_EQ(warnings.messages[1].rfind("Error detected in SqrtBackward0.", 0), 0u) << warnings.messages[1];
}

TEST(AnomalyMode, OffMeansNoCheck) {
  Tensor a = testing::from_values({0.0}, {1}, kFloat32).requires_grad_();
  (a.sqrt() * 0.0).sum().backward();
  EXPECT_TRUE(isnan(a.grad()).all().item<bool>());
}

}  // namespace
}  // namespace ember
