// Extension point 3: a TensorSubclass whose torch_dispatch logs what a training step does.
//
// A C++ TensorSubclass attached to a tensor (ember::set_subclass) sees every primitive op that
// involves the tensor, below autograd and boxed: PyTorch's `__torch_dispatch__`. This one runs
// each op unchanged (redispatch), logs it, and attaches itself to the op's new outputs, as
// PyTorch's LoggingTensor does, so the log follows the data through forward, backward and the
// optimizer's update:
//   $3 = aten::addmm($1, x, $2)
#include <ember/ember.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using ember::Stack;
using ember::Tensor;
namespace nn = ember::nn;

// What all the loggers of a run share: the log and a counter naming new tensors $0, $1, ...
struct Log {
  std::vector<std::string> lines;
  int next = 0;
  std::string new_tag() { return std::string("$").append(std::to_string(next++)); }
};

class LoggingTensor : public ember::TensorSubclass {
 public:
  LoggingTensor(std::string tag, std::shared_ptr<Log> log) : tag_(std::move(tag)), log_(std::move(log)) {}
  std::string name() const override { return "LoggingTensor"; }
  bool has_torch_dispatch() const override { return true; }

  std::optional<Stack> torch_dispatch(const ember::OpHandle& op, const Stack& args) override {
    // redispatch runs the op below this layer (the CPU kernel). Returning std::nullopt instead
    // would mean NotImplemented.
    Stack out = op.redispatch(args);
    std::string line;
    for (ember::Value& v : out) {
      if (!v.is_tensor() || !v.to_tensor().defined()) continue;
      if (v.to_tensor().impl()->subclass() == nullptr)  // a new tensor: it logs too, as $n
        ember::set_subclass(v.to_tensor(), ember::make_intrusive<LoggingTensor>(log_->new_tag(), log_));
      if (!line.empty()) line.append(", ");
      line.append(describe(v.to_tensor()));
    }
    if (!line.empty()) line.append(" = ");
    line.append(op.full_name()).append("(");
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) line.append(", ");
      line.append(args[i].is_tensor() ? describe(args[i].to_tensor()) : "_");
    }
    log_->lines.push_back(line.append(")"));
    return out;
  }

  const std::string& tag() const { return tag_; }

 private:
  // "$n" for logged tensors, "x" for others (inputs of the step), "None" for undefined ones.
  static std::string describe(const Tensor& t) {
    if (!t.defined()) return "None";
    auto* s = dynamic_cast<LoggingTensor*>(t.impl()->subclass());
    return s ? s->tag() : "x";
  }
  std::string tag_;
  std::shared_ptr<Log> log_;
};

int main() {
  ember::manual_seed(0);
  auto model = std::make_shared<nn::Linear>(3, 2);
  ember::optim::SGD opt(model->parameters(), {.lr = 0.1});
  Tensor x = ember::randn({4, 3}), target = ember::randn({4, 2});
  const Tensor before = model->weight().detach().clone();

  // Attach a logger to each parameter: $0 is the weight, $1 the bias.
  auto log = std::make_shared<Log>();
  for (const Tensor& p : model->parameters())
    ember::set_subclass(p, ember::make_intrusive<LoggingTensor>(log->new_tag(), log));

  // One training step.
  opt.zero_grad();
  Tensor loss = nn::functional::mse_loss((*model)(x), target);
  const size_t forward_ops = log->lines.size();
  loss.backward();
  const size_t backward_ops = log->lines.size() - forward_ops;
  opt.step();
  const size_t step_ops = log->lines.size() - forward_ops - backward_ops;

  std::printf("one training step: %zu ops in forward, %zu in backward, %zu in the update\n",
              forward_ops, backward_ops, step_ops);
  for (size_t i = 0; i < log->lines.size(); ++i) {
    if (i == forward_ops) std::printf("  -- backward\n");
    if (i == forward_ops + backward_ops) std::printf("  -- optimizer step\n");
    std::printf("  %s\n", log->lines[i].c_str());
  }

  // Detach the hooks: the parameters are plain tensors again, and were trained in place.
  for (const Tensor& p : model->parameters()) ember::set_subclass(p, nullptr);
  const size_t logged = log->lines.size();
  (void)(*model)(x);
  const bool ok = forward_ops > 0 && backward_ops > 0 && step_ops > 0 &&
                  log->lines.size() == logged && !model->weight().detach().equal(before);
  std::printf("subclass_logging: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
