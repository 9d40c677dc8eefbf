// compile_300_lines: one ~300-line C++ program, compiled by benchmarks/bench_cpp_api.cpp against
// ember (<ember/ember.h>, or the finer headers with -DFINE_HEADERS) and against libtorch
// (-DUSE_TORCH, <torch/torch.h>). The few lines that differ are in the adapter at the top; the
// rest is one text for both, written as a libtorch user writes: tensors and options, indexing,
// autograd, modules built from options structs, optimizers, a training loop.
#ifdef USE_TORCH
#include <torch/torch.h>
namespace T = torch;
using LinearP = torch::nn::Linear;
using Conv2dP = torch::nn::Conv2d;
using BatchNorm2dP = torch::nn::BatchNorm2d;
using DropoutP = torch::nn::Dropout;
using LayerNormP = torch::nn::LayerNorm;
template <class P, class O>
P make(const O& options) { return P(options); }
inline torch::optim::SGD make_sgd(std::vector<torch::Tensor> p, double lr, double momentum) {
  return torch::optim::SGD(p, torch::optim::SGDOptions(lr).momentum(momentum));
}
inline torch::optim::Adam make_adam(std::vector<torch::Tensor> p, double lr) {
  return torch::optim::Adam(p, torch::optim::AdamOptions(lr));
}
namespace F = torch::nn::functional;
#else
#ifdef FINE_HEADERS
#include <ember/grad_mode.h>
#include <ember/nn.h>
#include <ember/ops/factory.h>
#include <ember/ops/index_ops.h>
#include <ember/ops/indexing.h>
#include <ember/ops/pointwise.h>
#include <ember/ops/random.h>
#include <ember/ops/reduce.h>
#include <ember/ops/view.h>
#include <ember/optim.h>
#include <ember/print.h>
#else
#include <ember/ember.h>
#endif
namespace T = ember;
using LinearP = std::shared_ptr<ember::nn::Linear>;
using Conv2dP = std::shared_ptr<ember::nn::Conv2d>;
using BatchNorm2dP = std::shared_ptr<ember::nn::BatchNorm2d>;
using DropoutP = std::shared_ptr<ember::nn::Dropout>;
using LayerNormP = std::shared_ptr<ember::nn::LayerNorm>;
template <class P, class O>
P make(const O& options) { return std::make_shared<typename P::element_type>(options); }
inline ember::optim::SGD make_sgd(std::vector<ember::Tensor> p, double lr, double momentum) {
  return ember::optim::SGD(p, {.lr = lr, .momentum = momentum});
}
inline ember::optim::Adam make_adam(std::vector<ember::Tensor> p, double lr) {
  return ember::optim::Adam(p, {.lr = lr});
}
namespace F = ember::nn::functional;
#endif

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using T::Tensor;
using namespace T::indexing;

namespace {

// ---- tensors ----
Tensor make_grid(int64_t n) {
  Tensor xs = T::linspace(-1.0, 1.0, n);
  Tensor ys = T::linspace(-1.0, 1.0, n);
  Tensor grid = T::stack({xs.unsqueeze(1).expand({n, n}), ys.unsqueeze(0).expand({n, n})}, 2);
  return grid.reshape({n * n, 2});
}

double checksum(const Tensor& t) { return t.to(T::kDouble).sum().item<double>(); }

void tensor_basics() {
  Tensor a = T::arange(12, T::TensorOptions().dtype(T::kFloat32)).view({3, 4});
  Tensor b = T::ones({3, 4}, a.options());
  Tensor c = (a + b * 2 - 1) / 3;
  Tensor d = c.t().matmul(c);
  Tensor e = T::eye(4, T::kFloat32) * 0.5 + d;
  std::cout << "d sum " << checksum(d) << " e mean " << e.mean().item<float>() << "\n";
  Tensor f = T::full({2, 3}, 7, T::TensorOptions().dtype(T::kInt64));
  std::cout << "f " << f.sum().item<int64_t>() << "\n";
  Tensor g = a.permute({1, 0}).contiguous().flatten();
  std::cout << "g " << g.size(0) << " " << g.dim() << "\n";
  Tensor mask = a > 5;
  Tensor h = a.masked_fill(mask, 0);
  Tensor w = T::where(mask, a, -a);
  std::cout << "h " << checksum(h) << " w " << checksum(w) << "\n";
  auto max_pair = a.max(1, false);
  std::cout << "max " << checksum(std::get<0>(max_pair)) << " at " << checksum(std::get<1>(max_pair)) << "\n";
  auto sorted = a.sort(1, true);
  std::cout << "sorted " << checksum(std::get<0>(sorted)) << "\n";
  auto top = a.flatten().topk(3);
  std::cout << "top " << checksum(std::get<0>(top)) << "\n";
  Tensor clamped = a.clamp(2, 8);
  std::cout << "clamp " << checksum(clamped) << " square " << checksum(a.square()) << "\n";
  Tensor catted = T::cat({a, b}, 0);
  std::cout << "cat " << catted.size(0) << " std " << a.std().item<double>() << "\n";
  Tensor sq = a.unsqueeze(0).squeeze(0).transpose(0, 1).reshape({-1});
  std::cout << "sq " << sq.numel() << "\n";
}

void indexing() {
  Tensor t = T::arange(24).view({2, 3, 4}).to(T::kFloat32);
  Tensor row = t.index({0});
  Tensor col = t.index({Slice(), 1});
  Tensor last = t.index({Ellipsis, -1});
  Tensor step = t.index({1, Slice(None, None, 2)});
  Tensor expanded = t.index({None, 0});
  std::cout << "index " << checksum(row) << " " << checksum(col) << " " << checksum(last) << " "
            << checksum(step) << " " << expanded.dim() << "\n";
  Tensor idx = T::arange(2).to(T::kInt64);
  Tensor picked = t.index({idx, idx});
  std::cout << "picked " << checksum(picked) << "\n";
  t.index_put_({Slice(), 0, Slice(1, 3)}, 100);
  t.index_put_({t > 200}, -1);
  std::cout << "put " << checksum(t) << "\n";
}

void raw_access() {
  Tensor t = T::zeros({4, 5}, T::kFloat32);
  auto acc = t.accessor<float, 2>();
  for (int64_t i = 0; i < acc.size(0); ++i)
    for (int64_t j = 0; j < acc.size(1); ++j) acc[i][j] = static_cast<float>(i * 10 + j);
  float* p = t.data_ptr<float>();
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += p[i];
  std::cout << "raw " << s << " " << checksum(t) << "\n";
}

// ---- autograd ----
void autograd() {
  Tensor x = T::randn({5, 3}, T::TensorOptions().requires_grad(true));
  Tensor w = T::randn({3, 2}, T::requires_grad());
  Tensor y = x.matmul(w).tanh().pow(2).sum();
  y.backward();
  std::cout << "grad " << x.grad().sizes() << " " << w.grad().sizes() << "\n";
  {
    T::NoGradGuard no_grad;
    Tensor z = x * 2;
    std::cout << "no grad requires_grad=" << z.requires_grad() << "\n";
  }
  Tensor v = T::ones({3}, T::requires_grad());
  Tensor u = (v * v * 3).sum();
  u.backward();
  std::cout << "dv " << checksum(v.grad()) << "\n";
  x.grad().zero_();
  Tensor q = (x.exp() + x.sin() * x.cos()).mean();
  q.backward();
  std::cout << "dq " << checksum(x.grad()) << " leaf=" << x.is_leaf() << "\n";
}

// ---- modules ----
struct Mlp : T::nn::Module {
  Mlp(int64_t in, int64_t hidden, int64_t out) {
    fc1 = register_module("fc1", make<LinearP>(T::nn::LinearOptions(in, hidden)));
    norm = register_module("norm", make<LayerNormP>(T::nn::LayerNormOptions({hidden})));
    drop = register_module("drop", make<DropoutP>(T::nn::DropoutOptions(0.1)));
    fc2 = register_module("fc2", make<LinearP>(T::nn::LinearOptions(hidden, out).bias(false)));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = fc1->forward(x).relu();
    h = drop->forward(norm->forward(h));
    return fc2->forward(h);
  }
  LinearP fc1{nullptr}, fc2{nullptr};
  LayerNormP norm{nullptr};
  DropoutP drop{nullptr};
};

struct SmallCnn : T::nn::Module {
  SmallCnn() {
    conv1 = register_module("conv1", make<Conv2dP>(T::nn::Conv2dOptions(1, 8, 3).padding(1)));
    bn1 = register_module("bn1", make<BatchNorm2dP>(T::nn::BatchNorm2dOptions(8)));
    conv2 = register_module("conv2",
                            make<Conv2dP>(T::nn::Conv2dOptions(8, 16, 3).stride(2).padding(1).bias(false)));
    bn2 = register_module("bn2", make<BatchNorm2dP>(T::nn::BatchNorm2dOptions(16).momentum(0.2)));
    head = register_module("head", make<LinearP>(T::nn::LinearOptions(16 * 4 * 4, 10)));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = bn1->forward(conv1->forward(x)).relu();
    h = bn2->forward(conv2->forward(h)).relu();
    h = T::max_pool2d(h, {2, 2});
    return head->forward(h.flatten(1));
  }
  Conv2dP conv1{nullptr}, conv2{nullptr};
  BatchNorm2dP bn1{nullptr}, bn2{nullptr};
  LinearP head{nullptr};
};

int64_t count_parameters(T::nn::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

// A two-class problem on a grid: inside or outside a circle.
std::pair<Tensor, Tensor> circle_data(int64_t n) {
  Tensor x = make_grid(n);
  Tensor r2 = x.pow(2).sum(1);
  Tensor y = (r2 < 0.5).to(T::kInt64);
  return {x, y};
}

double accuracy(const Tensor& logits, const Tensor& y) {
  return logits.argmax(1).eq(y).to(T::kFloat32).mean().item<double>();
}

void train_mlp() {
  T::manual_seed(0);
  auto data = circle_data(16);
  auto model = std::make_shared<Mlp>(2, 32, 2);
  auto opt = make_sgd(model->parameters(), 0.1, 0.9);
  std::cout << "mlp parameters " << count_parameters(*model) << "\n";
  for (int epoch = 0; epoch < 20; ++epoch) {
    model->train();
    opt.zero_grad();
    Tensor logits = model->forward(data.first);
    Tensor loss = F::cross_entropy(logits, data.second);
    loss.backward();
    opt.step();
    if (epoch % 5 == 0) std::cout << "epoch " << epoch << " loss " << loss.item<double>() << "\n";
  }
  model->eval();
  T::NoGradGuard no_grad;
  std::cout << "mlp accuracy " << accuracy(model->forward(data.first), data.second) << "\n";
}

void train_cnn() {
  T::manual_seed(1);
  Tensor images = T::rand({16, 1, 8, 8});
  Tensor labels = T::randint(0, 10, {16}, T::kInt64);
  auto model = std::make_shared<SmallCnn>();
  auto opt = make_adam(model->parameters(), 1e-3);
  std::cout << "cnn parameters " << count_parameters(*model) << "\n";
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    Tensor out = model->forward(images);
    Tensor loss = F::cross_entropy(out, labels);
    loss.backward();
    opt.step();
    std::cout << "cnn step " << step << " loss " << loss.item<double>() << "\n";
  }
  model->eval();
  T::NoGradGuard no_grad;
  Tensor probs = model->forward(images).softmax(1);
  std::cout << "cnn probs " << checksum(probs) << "\n";
}

void state_and_buffers() {
  auto model = std::make_shared<SmallCnn>();
  int64_t buffers = 0;
  for (const Tensor& b : model->buffers()) buffers += b.numel();
  std::cout << "buffers " << buffers << "\n";
  for (Tensor p : model->parameters()) {
    T::NoGradGuard no_grad;
    p.mul_(0.5);
  }
  std::cout << "scaled " << checksum(model->parameters()[0]) << "\n";
}

void dtypes_and_devices() {
  Tensor a = T::ones({2, 2}, T::TensorOptions().dtype(T::kFloat64).device(T::kCPU));
  Tensor b = a.to(T::kFloat32);
  Tensor c = b.to(T::kInt32);
  std::cout << "dtypes " << (a.scalar_type() == T::kDouble) << (b.scalar_type() == T::kFloat)
            << (c.scalar_type() == T::kInt) << " " << a.is_floating_point() << "\n";
  Tensor d = T::empty({3}, a.options()).fill_(2.5);
  std::cout << "d " << checksum(d) << " " << d.element_size() << "\n";
}

void reductions() {
  Tensor t = T::randn({4, 6});
  std::cout << "sum " << checksum(t.sum(0)) << " mean " << checksum(t.mean({1}, true)) << " var "
            << t.var().item<double>() << " norm " << t.norm().item<double>() << "\n";
  std::cout << "amax " << checksum(t.amax({0})) << " argmin " << t.argmin().item<int64_t>()
            << " prod " << t.abs().add(1).prod().item<double>() << "\n";
  Tensor cs = t.cumsum(1);
  Tensor lsm = t.log_softmax(1);
  std::cout << "cumsum " << checksum(cs) << " logsumexp " << checksum(lsm.exp().sum(1)) << "\n";
}

}  // namespace

int main() {
  tensor_basics();
  indexing();
  raw_access();
  autograd();
  dtypes_and_devices();
  reductions();
  train_mlp();
  train_cnn();
  state_and_buffers();
  return 0;
}
