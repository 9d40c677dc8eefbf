// <ember/ember.h> alone brings in every public area (issue 17): this file includes nothing else
// of ember's and uses each one.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Square : ember::autograd::Function<Square> {
  static ember::Tensor forward(ember::autograd::AutogradContext* ctx, ember::Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static ember::autograd::tensor_list backward(ember::autograd::AutogradContext* ctx, ember::autograd::tensor_list grads) {
    return {2 * ctx->get_saved_variables()[0] * grads[0]};
  }
};

}  // namespace

TEST(UmbrellaHeader, EveryAreaIsReachable) {
  // tensors and ops
  ember::Tensor x = ember::arange(6, ember::TensorOptions().dtype(ember::kFloat64)).reshape({2, 3});
  EXPECT_EQ(x.sum().item<double>(), 15.0);

  // autograd: a custom Function and gradcheck
  ember::Tensor leaf = ember::rand({3}, ember::TensorOptions().dtype(ember::kFloat64)).requires_grad_();
  EXPECT_TRUE(ember::autograd::gradcheck([](const ember::autograd::tensor_list& in) { return ember::autograd::tensor_list{Square::apply(in[0])}; },
                                         {leaf}));

  // nn and optim
  auto net = std::make_shared<ember::nn::Sequential>(std::make_shared<ember::nn::Linear>(3, 2),
                                                     std::make_shared<ember::nn::ReLU>());
  ember::optim::SGD opt(net->parameters(), {.lr = 0.1});
  ember::Tensor loss = (*net)(x.to(ember::kFloat32)).sum();
  loss.backward();
  opt.step();

  // models, quantization, the int8 runtime
  auto mobilenet = ember::models::mobilenet_v2(10, 0.25);
  EXPECT_GT(mobilenet->parameters().size(), 100u);
  auto qconfig = ember::quantization::get_default_qconfig("qnnpack");
  EXPECT_NE(qconfig, nullptr);
  ember::Tensor q = ember::quantize_per_tensor(x.to(ember::kFloat32), 0.1, 10, ember::kQUInt8);
  EXPECT_TRUE(q.is_quantized());

  // checkpoints
  const std::string path = (std::filesystem::temp_directory_path() / "ember_umbrella_test.pt").string();
  ember::save(net->state_dict(), path);
  ember::nn::StateDict loaded = ember::load_state_dict(path);
  EXPECT_EQ(loaded.size(), net->state_dict().size());
  std::filesystem::remove(path);

  // data
  auto loader = ember::data::make_data_loader(
      ember::data::TensorDataset(x, ember::arange(2)).map(ember::data::transforms::Stack<>()),
      ember::data::SequentialSampler(2), ember::data::DataLoaderOptions(2));
  int batches = 0;
  for (auto& batch : *loader) batches += static_cast<int>(batch.data.size(0));
  EXPECT_EQ(batches, 2);
}
