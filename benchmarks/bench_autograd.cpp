// Autograd figures, ember beside libtorch (Debian's 1.13) in the same run, 1 thread:
//   mlp16_fwd_bwd_b1        forward + backward of a 2-layer MLP (16 -> 16 -> relu -> 16), batch 1,
//                           loss = sum: what autograd's per-op overhead costs, us/step
//   mlp784_train_step_b64   one training step of a 784-256-10 MLP, batch 64: forward, cross
//                           entropy (log_softmax + gather + mean), backward, plain SGD update with
//                           tensor ops under no_grad, grads reset to None, ms/step
// Both sides use the same deterministic inputs and weights and the same ops, with the thread
// count set on both (bench::set_threads). Method and timing as bench_core.cpp's header says.
#include <utility>

#include "bench_common.h"
#include "ember/autograd/autograd.h"

namespace {

using namespace bench;

struct EmberMlp {
  std::vector<ember::Tensor> params;  // w1, b1, w2, b2
  ember::Tensor forward(const ember::Tensor& x) const {
    return ember::linear(ember::linear(x, params[0], params[1]).relu(), params[2], params[3]);
  }
};
struct TorchMlp {
  std::vector<at::Tensor> params;
  at::Tensor forward(const at::Tensor& x) const {
    return at::linear(at::linear(x, params[0], params[1]).relu(), params[2], params[3]);
  }
};

std::pair<EmberMlp, TorchMlp> make_mlp(int64_t in, int64_t hidden, int64_t out, uint32_t seed,
                                       std::vector<std::vector<float>>& storage) {
  EmberMlp e;
  TorchMlp t;
  const std::vector<std::vector<int64_t>> shapes = {{hidden, in}, {hidden}, {out, hidden}, {out}};
  for (const auto& shape : shapes) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    storage.push_back(filler(n, seed++));
    for (auto& v : storage.back()) v *= 0.1f;
    e.params.push_back(ember_tensor(storage.back(), shape).requires_grad_());
    t.params.push_back(torch_tensor(storage.back(), shape).requires_grad_());
  }
  return {e, t};
}

void bench_mlp16() {
  set_threads(1);
  std::vector<std::vector<float>> storage;
  auto [em, tm] = make_mlp(16, 16, 16, 11, storage);
  std::vector<float> xs = filler(16, 99);
  ember::Tensor ex = ember_tensor(xs, {1, 16});
  at::Tensor tx = torch_tensor(xs, {1, 16});
  Timing t = compare(
      Timer::ThreadCpu, 2000, 31,
      [&] {
        for (auto& p : em.params) p.set_grad(ember::Tensor());
        em.forward(ex).sum().backward();
      },
      [&] {
        for (auto& p : tm.params) p.mutable_grad().reset();
        tm.forward(tx).sum().backward();
      });
  report("mlp16_fwd_bwd_b1", "us/step", t.ember * 1e6, t.pytorch * 1e6, true);
}

void bench_mlp784_train() {
  set_threads(1);
  std::vector<std::vector<float>> storage;
  auto [em, tm] = make_mlp(784, 256, 10, 21, storage);
  const int64_t batch = 64;
  std::vector<float> xs = filler(batch * 784, 98);
  std::vector<int64_t> labels(batch);
  for (int64_t i = 0; i < batch; ++i) labels[static_cast<size_t>(i)] = (i * 7) % 10;
  ember::Tensor ex = ember_tensor(xs, {batch, 784});
  at::Tensor tx = torch_tensor(xs, {batch, 784});
  ember::Tensor ey = ember::from_blob(labels.data(), {batch, 1}, ember::kInt64).clone();
  at::Tensor ty = at::from_blob(labels.data(), {batch, 1}, at::kLong).clone();
  const double lr = 0.01;
  Timing t = compare(
      Timer::ThreadCpu, 20, 21,
      [&] {
        ember::Tensor logits = em.forward(ex);
        ember::Tensor loss = -logits.log_softmax(1).gather(1, ey).mean();
        loss.backward();
        ember::NoGradGuard no_grad;
        for (auto& p : em.params) {
          p.sub_(p.grad() * lr);
          p.set_grad(ember::Tensor());
        }
      },
      [&] {
        at::Tensor logits = tm.forward(tx);
        at::Tensor loss = -logits.log_softmax(1).gather(1, ty).mean();
        loss.backward();
        at::NoGradGuard no_grad;
        for (auto& p : tm.params) {
          p.sub_(p.grad() * lr);
          p.mutable_grad().reset();
        }
      });
  report("mlp784_train_step_b64", "ms/step", t.ember * 1e3, t.pytorch * 1e3, true);
}

}  // namespace

// Usage: bench_autograd [substring]  -- runs the figures whose name contains it (default: all).
int main(int argc, char** argv) {
  at::init_num_threads();
  const std::string only = argc > 1 ? argv[1] : "";
  const std::vector<std::pair<std::string, std::function<void()>>> figures = {
      {"mlp16_fwd_bwd_b1", bench_mlp16},
      {"mlp784_train_step_b64", bench_mlp784_train},
  };
  for (const auto& [name, run] : figures) {
    if (name.find(only) != std::string::npos) run();
  }
  return 0;
}
