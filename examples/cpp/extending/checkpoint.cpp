// Extension point 6: save and load a training checkpoint.
//
// ember::save writes torch.save's format (a zip with a pickle), so Python's torch.load reads
// ember's files and ember reads PyTorch's. A checkpoint is any tree of dicts, lists, numbers and
// tensors: here the model's and the optimizer's state_dicts and the epoch, as PyTorch's
// tutorials save them.
#include <ember/ember.h>

#include <cstdio>
#include <memory>
#include <string>

using ember::Tensor;
namespace nn = ember::nn;
namespace ser = ember::serialization;

std::shared_ptr<nn::Sequential> make_model() {
  return std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(8, 16),
                                          std::make_shared<nn::Tanh>(),
                                          std::make_shared<nn::Linear>(16, 1));
}

// One step of Adam on a fixed batch; returns the loss.
double train_step(nn::Module& model, ember::optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
  opt.zero_grad();
  Tensor loss = nn::functional::mse_loss(model.forward(std::vector<ember::Value>{x}).to_tensor(), y);
  loss.backward();
  opt.step();
  return loss.item<double>();
}

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "checkpoint.pt";
  ember::manual_seed(0);
  Tensor x = ember::randn({32, 8}), y = ember::randn({32, 1});

  auto model = make_model();
  ember::optim::Adam opt(model->parameters(), {.lr = 1e-2});
  for (int epoch = 0; epoch < 5; ++epoch) train_step(*model, opt, x, y);

  // Save {"model": ..., "optimizer": ..., "epoch": 5}.
  ser::NodePtr ckpt = ser::Node::dict();
  ckpt->set("model", ser::to_node(model->state_dict()));
  ckpt->set("optimizer", ser::to_node(opt.state_dict()));
  ckpt->set("epoch", ser::Node::of(5));
  ember::save(ckpt, path);
  std::printf("saved %s\n", path.c_str());

  // Resume in a fresh model and optimizer.
  ser::NodePtr loaded = ember::load(path);
  auto resumed = make_model();
  ember::optim::Adam resumed_opt(resumed->parameters(), {.lr = 1e-2});
  resumed->load_state_dict(ser::to_state_dict(*loaded->at("model")));
  resumed_opt.load_state_dict(ser::to_optimizer_state_dict(*loaded->at("optimizer")));
  const int64_t epoch = loaded->at("epoch")->integer;
  std::printf("resumed at epoch %lld\n", static_cast<long long>(epoch));

  // Both continue identically: same weights and the same Adam moments.
  const double a = train_step(*model, opt, x, y);
  const double b = train_step(*resumed, resumed_opt, x, y);
  bool same = a == b;
  for (const auto& [name, p] : model->named_parameters()) same = same && p.equal(resumed->named_parameters()[name]);
  std::printf("next step: loss %.6f vs %.6f, parameters %s\n", a, b, same ? "identical" : "DIFFER");
  std::remove(path.c_str());

  const bool ok = same && epoch == 5;
  std::printf("checkpoint: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
