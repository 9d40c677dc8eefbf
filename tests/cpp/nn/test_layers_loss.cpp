// nn loss modules: repr, buffers registered as torch 1.13 registers them (state_dict keys,
// unexpected keys), values and gradients against torch's, reduction strings.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"

namespace ember {
namespace {

using nn::StateDict;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

TEST(LayersLoss, ReprAndBuffersMatchTorch) {
  EXPECT_EQ(nn::MSELoss().repr(), "MSELoss()");
  EXPECT_EQ(nn::L1Loss("sum").repr(), "L1Loss()");
  EXPECT_EQ(nn::NLLLoss().repr(), "NLLLoss()");
  EXPECT_EQ(nn::CrossEntropyLoss(ones({3})).repr(), "CrossEntropyLoss()");
  EXPECT_EQ(nn::BCEWithLogitsLoss(std::nullopt, "mean", ones({3})).repr(), "BCEWithLogitsLoss()");

  // torch: NLLLoss()._buffers == {'weight': None}; state_dict empty.
  nn::NLLLoss nll;
  EXPECT_TRUE(nll.has_buffer("weight"));
  EXPECT_FALSE(nll.weight().defined());
  EXPECT_TRUE(nll.state_dict().empty());
  // torch: CrossEntropyLoss(weight=ones(3)).state_dict() == {'weight': [3]}, a buffer.
  nn::CrossEntropyLoss ce(ones({3}));
  EXPECT_EQ(ce.state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(ce.named_buffers().size(), 1u);
  EXPECT_TRUE(ce.parameters().empty());
  // A checkpoint's "weight" is unexpected for a loss built without one.
  EXPECT_EQ(nn::CrossEntropyLoss().load_state_dict(ce.state_dict(), false).to_string(),
            "_IncompatibleKeys(missing_keys=[], unexpected_keys=['weight'])");
  // torch: BCEWithLogitsLoss(pos_weight=ones(3)): buffers weight=None, pos_weight.
  nn::BCEWithLogitsLoss bce(std::nullopt, "mean", ones({3}));
  EXPECT_EQ(bce.state_dict().keys(), (std::vector<std::string>{"pos_weight"}));
  EXPECT_FALSE(bce.weight().defined());
  nn::BCEWithLogitsLoss both(ones({2}), "sum", ones({2}));
  EXPECT_EQ(both.state_dict().keys(), (std::vector<std::string>{"weight", "pos_weight"}));
  // Buffers follow conversions.
  both.double_();
  EXPECT_EQ(both.weight().dtype(), kFloat64);
}

TEST(LayersLoss, RegressionLossesMatchTorch) {
  Tensor a = from_values({0.5, -1, 2, 0}, {2, 2});
  Tensor b = from_values({1, 1, -1, 0.5}, {2, 2});
  expect_values(nn::MSELoss()(a, b), {}, {3.375});
  expect_values(nn::MSELoss("sum")(a, b), {}, {13.5});
  expect_values(nn::L1Loss()(a, b), {}, {1.5});
  expect_values(nn::L1Loss("none")(a, b), {2, 2}, {0.5, 2.0, 3.0, 0.5});
  nn::MSELoss bad("avg");
  expect_error([&] { bad(a, b); }, "avg is not a valid value for reduction", ErrorKind::Value);
  bad.reduction = "sum";  // an attribute, as in torch
  expect_values(bad(a, b), {}, {13.5});
  Tensor x = a.clone().requires_grad_();
  nn::MSELoss()(x, b).backward();
  expect_values(x.grad(), {2, 2}, {-0.25, -1.0, 1.5, -0.25});  // 2 (x - b) / 4
}

// torch: logits [[1, 2, 0.5], [0.1, -1, 2], [3, 0, -1], [0, 0, 0]], targets [1, 2, -100, 0],
// class weights [1, 2, 0.5].
TEST(LayersLoss, ClassificationLossesMatchTorch) {
  Tensor logits = from_values({1, 2, 0.5, 0.1, -1, 2, 3, 0, -1, 0, 0, 0}, {4, 3});
  Tensor t = from_values({1, 2, -100, 0}, {4}, kInt64);
  Tensor w = from_values({1, 2, 0.5}, {3});
  expect_values(nn::CrossEntropyLoss()(logits, t), {}, {0.5815885663032532});
  expect_values(nn::CrossEntropyLoss(w)(logits, t), {}, {0.6052120923995972});
  expect_values(nn::CrossEntropyLoss(std::nullopt, -100, "mean", 0.1)(logits, t), {},
                {0.6638107299804688});
  expect_values(nn::CrossEntropyLoss(std::nullopt, 2, "none")(logits, from_values({1, 2, 0, 0}, {4}, kInt64)),
                {4}, {0.4643687903881073, 0.0, 0.06588391214609146, 1.0986123085021973});
  // Class probabilities: softmax of [[0, 1, 2], [1, 1, 1], [2, 0, -1], [0.5, 0.5, 0]].
  Tensor probs = softmax(from_values({0, 1, 2, 1, 1, 1, 2, 0, -1, 0.5, 0.5, 0}, {4, 3}), 1);
  expect_values(nn::CrossEntropyLoss()(logits, probs), {}, {1.2606252431869507});
  Tensor lp = log_softmax(logits, 1);
  expect_values(nn::NLLLoss()(lp, t), {}, {0.5815885663032532});
  expect_values(nn::NLLLoss(w, -100, "sum")(lp, t), {}, {2.1182422637939453});
  // Gradient of CrossEntropyLoss(weight=w, label_smoothing=0.2).
  Tensor x = logits.clone().requires_grad_();
  nn::CrossEntropyLoss(w, -100, "mean", 0.2)(x, t).backward();
  expect_values(x.grad(), {4, 3},
                {0.1020696610212326, -0.16600719094276428, 0.06393753737211227,
                 0.0035184952430427074, -0.030583633109927177, 0.027065137401223183, 0.0, 0.0, 0.0,
                 -0.14920635521411896, 0.06031745672225952, 0.08888888359069824},
                1e-5, 1e-7);
  // The weight buffer, moved with the module, is what forward uses.
  nn::CrossEntropyLoss ce64(w);
  ce64.double_();
  expect_values(ce64(logits.to(kFloat64), t), {}, {0.6052120923995972}, 1e-6);
}

TEST(LayersLoss, BCEWithLogitsMatchesTorch) {
  Tensor a = from_values({0.5, -1, 2, 0}, {2, 2});
  Tensor t = from_values({1, 0, 0, 1}, {2, 2});
  expect_values(nn::BCEWithLogitsLoss()(a, t), {}, {0.9018534421920776});
  expect_values(nn::BCEWithLogitsLoss(from_values({0.5, 2}, {2}), "mean", from_values({3, 1}, {2}))(a, t),
                {}, {0.9468492865562439});
  expect_values(nn::BCEWithLogitsLoss(std::nullopt, "none", from_values({3, 1}, {2}))(a, t), {2, 2},
                {1.4222309589385986, 0.31326162815093994, 2.1269280910491943, 0.6931471824645996});
  nn::BCEWithLogitsLoss m;
  expect_error([&] { m(a, ones({4})); }, "must be the same as input size", ErrorKind::Value);
}

}  // namespace
}  // namespace ember
