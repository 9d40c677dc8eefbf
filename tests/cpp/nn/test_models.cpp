// ember::models: MobileNetV2 and ResNet trees as torchvision 0.14's (parameter counts, key
// names, reprs of the building blocks), _make_divisible, constructor errors, forward shapes,
// meta construction and zero_init_residual. Outputs against torchvision with the same weights
// are checked by tests/python/models/test_models_vs_torchvision.py.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/models.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::expect_error;

int64_t count(nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

TEST(Models, MakeDivisibleAsTorchvision) {
  using models::_make_divisible;
  EXPECT_EQ(_make_divisible(16.0, 8), 16);
  EXPECT_EQ(_make_divisible(11.2, 8), 16);  // 8 would lose more than 10%
  EXPECT_EQ(_make_divisible(5.6, 8), 8);
  EXPECT_EQ(_make_divisible(1792.0, 8), 1792);
  EXPECT_EQ(_make_divisible(18.0, 8), 24);
  EXPECT_EQ(_make_divisible(124.80000000000001, 8), 128);
  EXPECT_EQ(_make_divisible(10, 8, 16), 16);
}

TEST(Models, MobileNetV2TreeIsTorchvisions) {
  auto net = models::mobilenet_v2();
  EXPECT_EQ(count(*net), 3504872);
  const auto sd = net->state_dict();
  EXPECT_EQ(sd.size(), 314u);
  const auto keys = sd.keys();
  EXPECT_EQ(keys[0], "features.0.0.weight");
  EXPECT_EQ(keys[1], "features.0.1.weight");
  EXPECT_EQ(keys[6], "features.1.conv.0.0.weight");
  EXPECT_EQ(keys[12], "features.1.conv.1.weight");
  EXPECT_EQ(keys.back(), "classifier.1.bias");
  EXPECT_EQ(net->named_modules().size(), 213u);
  EXPECT_EQ(net->features->size(), 19u);
  EXPECT_EQ(net->features->at<models::Conv2dNormActivation>(0)->repr(),
            "Conv2dNormActivation(\n"
            "  (0): Conv2d(3, 32, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
            "  (1): BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=True, "
            "track_running_stats=True)\n"
            "  (2): ReLU6(inplace=True)\n"
            ")");
  auto block = net->features->at<models::InvertedResidual>(3);
  EXPECT_TRUE(block->use_res_connect);
  EXPECT_FALSE(net->features->at<models::InvertedResidual>(2)->use_res_connect);
  EXPECT_EQ(block->conv->size(), 4u);
  EXPECT_EQ(net->classifier->repr(),
            "Sequential(\n  (0): Dropout(p=0.2, inplace=False)\n"
            "  (1): Linear(in_features=1280, out_features=1000, bias=True)\n)");
  // Residual blocks as the quantization spec lists them: 3, 5, 6, 8, 9, 10, 12, 13, 15, 16.
  std::vector<int64_t> residual;
  for (int64_t i = 1; i <= 17; ++i)
    if (net->features->at<models::InvertedResidual>(i)->use_res_connect) residual.push_back(i);
  EXPECT_EQ(residual, (std::vector<int64_t>{3, 5, 6, 8, 9, 10, 12, 13, 15, 16}));

  auto slim = models::mobilenet_v2(10, 0.5);
  EXPECT_EQ(count(*slim), 700490);
  EXPECT_EQ(slim->last_channel, 1280);
}

TEST(Models, MobileNetV2Errors) {
  expect_error([] { models::InvertedResidual(8, 8, 3, 6); }, "stride should be 1 or 2 instead of 3",
               ErrorKind::Value);
  expect_error(
      [] {
        models::MobileNetV2(10, 1.0, {{1, 16, 1}});
      },
      "inverted_residual_setting should be non-empty or a 4-element list, got [[1, 16, 1]]",
      ErrorKind::Value);
}

TEST(Models, ResNetTreesAreTorchvisions) {
  auto r18 = models::resnet18();
  EXPECT_EQ(count(*r18), 11689512);
  EXPECT_EQ(r18->state_dict().size(), 122u);
  EXPECT_EQ(r18->named_modules().size(), 68u);
  const auto keys = r18->state_dict().keys();
  EXPECT_EQ(keys[0], "conv1.weight");
  EXPECT_EQ(keys[6], "layer1.0.conv1.weight");
  EXPECT_EQ(keys.back(), "fc.bias");
  EXPECT_TRUE(r18->state_dict().contains("layer2.0.downsample.0.weight"));
  EXPECT_TRUE(r18->state_dict().contains("layer2.0.downsample.1.running_var"));
  EXPECT_FALSE(r18->state_dict().contains("layer1.0.downsample.0.weight"));
  EXPECT_EQ(r18->maxpool->repr(),
            "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)");
  EXPECT_EQ(r18->avgpool->repr(), "AdaptiveAvgPool2d(output_size=(1, 1))");
  auto r34 = models::resnet34();
  EXPECT_EQ(count(*r34), 21797672);
  EXPECT_EQ(r34->state_dict().size(), 218u);
  auto r50 = models::resnet50();
  EXPECT_EQ(count(*r50), 25557032);
  EXPECT_EQ(r50->state_dict().size(), 320u);
  EXPECT_EQ(r50->named_modules().size(), 151u);
  EXPECT_EQ(r50->layer1->at<models::Bottleneck>(0)->repr(),
            "Bottleneck(\n"
            "  (conv1): Conv2d(64, 64, kernel_size=(1, 1), stride=(1, 1), bias=False)\n"
            "  (bn1): BatchNorm2d(64, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (conv2): Conv2d(64, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)\n"
            "  (bn2): BatchNorm2d(64, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (conv3): Conv2d(64, 256, kernel_size=(1, 1), stride=(1, 1), bias=False)\n"
            "  (bn3): BatchNorm2d(256, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (relu): ReLU(inplace=True)\n"
            "  (downsample): Sequential(\n"
            "    (0): Conv2d(64, 256, kernel_size=(1, 1), stride=(1, 1), bias=False)\n"
            "    (1): BatchNorm2d(256, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  )\n"
            ")");
}

TEST(Models, ResNetErrorsAndZeroInit) {
  expect_error([] { models::BasicBlock(64, 64, 1, nullptr, 2); },
               "BasicBlock only supports groups=1 and base_width=64", ErrorKind::Value);
  expect_error([] { models::BasicBlock(64, 64, 1, nullptr, 1, 64, 2); },
               "Dilation > 1 not supported in BasicBlock", ErrorKind::NotImplemented);
  expect_error(
      [] {
        models::ResNet(models::ResNetBlock::basic(), {2, 2, 2, 2}, 10, false, 1, 64,
                       {true, false});
      },
      "replace_stride_with_dilation should be None or a 3-element tuple, got [True, False]",
      ErrorKind::Value);
  models::ResNet z(models::ResNetBlock::basic(), {1, 1, 1, 1}, 10, /*zero_init_residual=*/true);
  auto blk = z.layer1->at<models::BasicBlock>(0);
  EXPECT_EQ(testing::values(blk->bn2->parameter("weight")), std::vector<double>(64, 0.0));
  EXPECT_EQ(testing::values(blk->bn1->parameter("weight")), std::vector<double>(64, 1.0));
  // Dilation instead of stride in layer4 (ResNet-50 for segmentation).
  models::ResNet dil(models::ResNetBlock::bottleneck(), {1, 1, 1, 1}, 10, false, 1, 64,
                     {false, false, true});
  EXPECT_EQ(dil.layer4->at<models::Bottleneck>(0)->conv2->dilation,
            (std::vector<int64_t>{1, 1}));  // the first block keeps the previous dilation
  EXPECT_EQ(dil.layer4->at<models::Bottleneck>(0)->downsample->child("0")->repr(),
            "Conv2d(1024, 2048, kernel_size=(1, 1), stride=(1, 1), bias=False)");
}

TEST(Models, ForwardShapesAndMeta) {
  manual_seed(0);
  auto mb = models::mobilenet_v2(10, 0.35);
  mb->eval();
  const Tensor y = (*mb)(randn({2, 3, 64, 64}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 10}));
  auto r = models::resnet18(7);
  r->eval();
  EXPECT_EQ((*r)(randn({1, 3, 64, 64})).sizes().vec(), (std::vector<int64_t>{1, 7}));
  // Training mode runs too (batch statistics), and the counters move.
  r->train();
  (*r)(randn({2, 3, 32, 32}));
  EXPECT_EQ(r->bn1->buffer("num_batches_tracked").item<int64_t>(), 1);
  // A meta skeleton: no memory, shapes only.
  auto meta = models::resnet50(1000, kMeta);
  EXPECT_TRUE(meta->fc->weight().is_meta());
  meta->eval();
  EXPECT_EQ((*meta)(empty({1, 3, 224, 224}, kMeta)).sizes().vec(),
            (std::vector<int64_t>{1, 1000}));
}

TEST(Models, InitIsTorchvisions) {
  manual_seed(0);
  auto net = models::mobilenet_v2();
  // Linear N(0, 0.01), zero bias; BN ones / zeros.
  auto fc = net->classifier->at<nn::Linear>(1);
  const auto w = testing::values(fc->weight());
  double sum = 0, sq = 0;
  for (double v : w) {
    sum += v;
    sq += v * v;
  }
  const double mean = sum / static_cast<double>(w.size());
  EXPECT_NEAR(mean, 0.0, 1e-4);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(w.size()) - mean * mean), 0.01, 2e-4);
  EXPECT_EQ(testing::values(fc->bias()), std::vector<double>(1000, 0.0));
  // Conv kaiming_normal fan_out: std sqrt(2 / (out * k * k)) = sqrt(2 / 288) for features.0.0.
  auto conv = std::dynamic_pointer_cast<nn::Conv2d>(
      net->features->at<models::Conv2dNormActivation>(0)->operator[](0));
  const auto cw = testing::values(conv->weight());
  double csq = 0;
  for (double v : cw) csq += v * v;
  EXPECT_NEAR(std::sqrt(csq / static_cast<double>(cw.size())), std::sqrt(2.0 / 288.0), 0.006);
}

}  // namespace
}  // namespace ember
