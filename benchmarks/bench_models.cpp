// Whole networks, ember beside libtorch 1.13 in the same run (bench_common.h's method: a block
// of ember rounds, then a block of libtorch rounds, median per call, wall clock):
//
//   mobilenet_v2_b1_<n>t        MobileNetV2 fp32, batch 1, 224x224, eval, no grad: ember with a
//                               channels_last input (its fastest layout here; the NCHW figure is
//                               beside it) against PyTorch's eager NCHW model as users run it
//     ..._frozen                 against torch.jit.freeze(torch.jit.script(m))
//     ..._torch_cl               against PyTorch eager with model and input in channels_last
//     ..._frozen_cl              against the frozen channels_last model
//     ..._ember_nchw             ember with an NCHW input, against PyTorch eager NCHW
//   resnet18_b1_<n>t, resnet18_b8_<n>t (and the same suffixes)
//   digits_cnn_train_b64_<n>t   one training step of examples/cpp/digits_cnn's network
//                               (digits_cnn_model.h), batch 64 of [1, 8, 8]: zero_grad, forward,
//                               cross entropy, backward, SGD(lr 0.05, momentum 0.9, wd 1e-4) step;
//                               libtorch runs the same network built from torch::nn modules
//
// The libtorch networks. Debian packages torchvision for Python only (no C++ torchvision), so at
// start this program runs `/usr/bin/python3 benchmarks/export_torchvision_models.py DIR` (once:
// DIR defaults to models/ beside this executable, EMBER_BENCH_MODELS_DIR overrides), which saves
// torchvision 0.14's mobilenet_v2 / resnet18 (seed 0, eval) as TorchScript: scripted, and frozen
// with torch.jit.freeze, each in NCHW and channels_last. "PyTorch eager" is the scripted module run
// with the graph executor's optimizations off (torch::jit::setGraphExecutorOptimize(false)): the
// eager op sequence, every ATen call as eager makes it, without Python's per-module overhead
// (so slightly faster than eager from Python). The frozen modules run with optimizations on, as
// in Python. ember's models (ember::models) get the scripted module's parameters and buffers
// copied in by name, so both sides compute with the same weights.
//
// Threads, set deliberately for both sides before each figure (bench::set_threads): libtorch's
// intra-op OpenMP pool (which its oneDNN follows) by at::set_num_threads(n), ember's pool,
// its oneDNN and the process's one OpenBLAS (which both libraries' BLAS calls share) by
// ember::set_num_threads(n). 1 and 2 threads (this machine has 2 cores).
//
// Usage: bench_models [substring]   -- only the figure groups whose name contains it, e.g.
//        bench_models mobilenet_v2_b1_1t
#include <torch/script.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include "../examples/cpp/digits_cnn_model.h"
#include "bench_common.h"
#include "ember/grad_mode.h"
#include "ember/models.h"
#include "ember/optim.h"

#ifndef EMBER_SOURCE_DIR
#error "EMBER_SOURCE_DIR must name the source tree (benchmarks/CMakeLists.txt defines it)"
#endif

namespace {

namespace fs = std::filesystem;
using namespace bench;

fs::path executable_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : self.parent_path();
}

// The TorchScript files (export_torchvision_models.py), exported on first use.
fs::path models_dir() {
  static const fs::path dir = [] {
    const char* env = std::getenv("EMBER_BENCH_MODELS_DIR");
    fs::path d = env && *env ? fs::path(env) : executable_dir() / "models";
    if (!fs::exists(d / "done")) {
      const std::string cmd = "/usr/bin/python3 " EMBER_SOURCE_DIR
                              "/benchmarks/export_torchvision_models.py '" + d.string() + "'";
      std::fprintf(stderr, "bench_models: exporting torchvision's models: %s\n", cmd.c_str());
      if (std::system(cmd.c_str()) != 0 || !fs::exists(d / "done")) {
        std::fprintf(stderr, "bench_models: the export failed (needs python3-torchvision)\n");
        std::exit(1);
      }
    }
    return d;
  }();
  return dir;
}

torch::jit::Module load_torch(const std::string& file) {
  torch::jit::Module m = torch::jit::load((models_dir() / file).string());
  m.eval();
  return m;
}

ember::Tensor to_ember(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  return ember::from_blob(c.data_ptr(), c.sizes().vec(),
                          c.scalar_type() == at::kLong ? ember::kInt64 : ember::kFloat32)
      .clone();
}

// Copies the scripted module's parameters and buffers into ember's model by key; every key of
// ember's state_dict must be found, with its shape.
void copy_weights(ember::nn::Module& dst, const torch::jit::Module& src) {
  std::unordered_map<std::string, at::Tensor> from;
  for (const auto& p : src.named_parameters()) from[p.name] = p.value;
  for (const auto& b : src.named_buffers()) from[b.name] = b.value;
  ember::NoGradGuard no_grad;
  for (const auto& [key, value] : dst.state_dict().items()) {
    auto it = from.find(key);
    if (it == from.end()) {
      std::fprintf(stderr, "bench_models: torchvision's model has no %s\n", key.c_str());
      std::exit(1);
    }
    ember::Tensor t = value.to_tensor();
    t.copy_(to_ember(it->second).reshape(t.sizes()));
  }
}

void print_threads(int threads) {
  std::fprintf(stderr,
               "bench_models: %d thread(s): at::get_num_threads() = %d, "
               "ember::get_num_threads() = %d\n",
               threads, at::get_num_threads(), ember::get_num_threads());
}

// One network at one batch size and thread count: ember (channels_last and NCHW input) against
// libtorch eager / frozen, NCHW / channels_last.
void bench_network(const std::string& name, const std::string& figure, int64_t batch,
                   int threads, int iters, int rounds,
                   const std::function<std::shared_ptr<ember::nn::Module>()>& make_ember) {
  set_threads(threads);
  print_threads(threads);
  torch::jit::Module eager = load_torch(name + "_script.pt");
  torch::jit::Module eager_cl = load_torch(name + "_script_cl.pt");
  torch::jit::Module frozen = load_torch(name + "_frozen.pt");
  torch::jit::Module frozen_cl = load_torch(name + "_frozen_cl.pt");
  std::shared_ptr<ember::nn::Module> net = make_ember();
  copy_weights(*net, eager);
  net->eval();

  auto data = filler(batch * 3 * 224 * 224, 7);
  ember::Tensor ex = ember_tensor(data, {batch, 3, 224, 224});
  ember::Tensor ex_cl = ex.contiguous(ember::MemoryFormat::ChannelsLast);
  at::Tensor tx = torch_tensor(data, {batch, 3, 224, 224});
  at::Tensor tx_cl = tx.contiguous(at::MemoryFormat::ChannelsLast);

  ember::NoGradGuard ember_no_grad;
  torch::NoGradGuard torch_no_grad;
  auto run_ember = [&](const ember::Tensor& x) { return [&net, &x] { (*net)(x); }; };
  auto run_torch = [](torch::jit::Module& m, const at::Tensor& x, bool optimize) {
    return [&m, x, optimize] {
      torch::jit::setGraphExecutorOptimize(optimize);
      m.forward({x});
    };
  };
  // The outputs agree (same weights): a check that the comparison is of the same network.
  {
    torch::jit::setGraphExecutorOptimize(false);
    ember::Tensor e = (*net)(ex_cl);
    at::Tensor t = eager.forward({tx}).toTensor();
    const double diff = (to_ember(t) - e).abs().max().item<double>();
    const double scale = e.abs().max().item<double>();
    if (!(diff <= 1e-3 * std::max(scale, 1.0))) {
      std::fprintf(stderr, "bench_models: %s: ember and PyTorch disagree (max |diff| %g)\n",
                   figure.c_str(), diff);
      std::exit(1);
    }
  }
  const std::string suffix = "_" + std::to_string(threads) + "t";
  const std::string base = figure + suffix;
  auto line = [&](const std::string& bench, const std::function<void()>& e,
                  const std::function<void()>& t) {
    Timing r = compare(Timer::Wall, iters, rounds, e, t);
    report(bench, "ms", r.ember * 1e3, r.pytorch * 1e3, true);
  };
  line(base, run_ember(ex_cl), run_torch(eager, tx, false));
  line(base + "_frozen", run_ember(ex_cl), run_torch(frozen, tx, true));
  line(base + "_torch_cl", run_ember(ex_cl), run_torch(eager_cl, tx_cl, false));
  line(base + "_frozen_cl", run_ember(ex_cl), run_torch(frozen_cl, tx_cl, true));
  line(base + "_ember_nchw", run_ember(ex), run_torch(eager, tx, false));
  torch::jit::setGraphExecutorOptimize(true);
}

// libtorch's twin of examples::make_digits_cnn, layer for layer (same state_dict keys).
torch::nn::Sequential make_torch_digits_cnn() {
  using namespace torch::nn;
  auto conv = [](int64_t in, int64_t out) {
    return Conv2d(Conv2dOptions(in, out, 3).padding(1).bias(false));
  };
  const int64_t w1 = examples::kCnnWidth1, w2 = examples::kCnnWidth2;
  return Sequential(conv(1, w1), BatchNorm2d(w1), ReLU(ReLUOptions(true)), conv(w1, w2),
                    BatchNorm2d(w2), ReLU(ReLUOptions(true)), MaxPool2d(MaxPool2dOptions(2)),
                    conv(w2, w2), BatchNorm2d(w2), ReLU(ReLUOptions(true)),
                    MaxPool2d(MaxPool2dOptions(2)), Flatten(), Linear(w2 * 2 * 2, 10));
}

void bench_digits_train(int threads) {
  set_threads(threads);
  print_threads(threads);
  ember::manual_seed(0);
  auto enet = examples::make_digits_cnn();
  torch::nn::Sequential tnet = make_torch_digits_cnn();
  {  // the same initial weights: ember's, copied by key
    torch::NoGradGuard no_grad;
    auto sd = enet->state_dict();
    auto copy_into = [&](const std::string& key, at::Tensor& dst) {
      ember::Tensor src = sd.at(key).to_tensor().contiguous();
      dst.copy_(at::from_blob(src.data_ptr(), dst.sizes(),
                              dst.scalar_type() == at::kLong ? at::kLong : at::kFloat));
    };
    for (auto& p : tnet->named_parameters()) copy_into(p.key(), p.value());
    for (auto& b : tnet->named_buffers()) copy_into(b.key(), b.value());
  }
  constexpr int64_t kBatch = 64;
  auto xd = filler(kBatch * 64, 11);
  for (float& v : xd) v = (v + 1.f) * 0.5f;  // pixels in [0, 1]
  std::vector<int64_t> labels(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) labels[static_cast<size_t>(i)] = (i * 7) % 10;
  ember::Tensor ex = ember_tensor(xd, {kBatch, 1, 8, 8});
  ember::Tensor ey = ember::from_blob(labels.data(), {kBatch}, ember::kInt64).clone();
  at::Tensor tx = torch_tensor(xd, {kBatch, 1, 8, 8});
  at::Tensor ty = at::from_blob(labels.data(), {kBatch}, at::kLong).clone();

  ember::nn::CrossEntropyLoss criterion;
  ember::optim::SGD eopt(enet->parameters(), {.lr = 0.05, .momentum = 0.9, .weight_decay = 1e-4});
  torch::optim::SGD topt(tnet->parameters(),
                         torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
  auto ember_step = [&] {
    eopt.zero_grad();
    ember::Tensor loss = criterion((*enet)(ex), ey);
    loss.backward();
    eopt.step();
  };
  auto torch_step = [&] {
    topt.zero_grad();
    at::Tensor loss = torch::nn::functional::cross_entropy(tnet->forward(tx), ty);
    loss.backward();
    topt.step();
  };
  Timing r = compare(Timer::Wall, 20, 9, ember_step, torch_step);
  report("digits_cnn_train_b64_" + std::to_string(threads) + "t", "ms", r.ember * 1e3,
         r.pytorch * 1e3, true);
}

}  // namespace

int main(int argc, char** argv) {
  at::init_num_threads();
  const std::string only = argc > 1 ? argv[1] : "";
  std::vector<std::pair<std::string, std::function<void()>>> groups;
  for (int threads : {1, 2}) {
    const std::string t = "_" + std::to_string(threads) + "t";
    groups.emplace_back("mobilenet_v2_b1" + t, [threads] {
      bench_network("mobilenet_v2", "mobilenet_v2_b1", 1, threads, 10, 9,
                    [] { return ember::models::mobilenet_v2(); });
    });
    groups.emplace_back("resnet18_b1" + t, [threads] {
      bench_network("resnet18", "resnet18_b1", 1, threads, 5, 9,
                    [] { return ember::models::resnet18(); });
    });
    groups.emplace_back("resnet18_b8" + t, [threads] {
      bench_network("resnet18", "resnet18_b8", 8, threads, 2, 5,
                    [] { return ember::models::resnet18(); });
    });
    groups.emplace_back("digits_cnn_train_b64" + t, [threads] { bench_digits_train(threads); });
  }
  for (const auto& [name, run] : groups) {
    if (name.find(only) != std::string::npos) run();
  }
  return 0;
}
