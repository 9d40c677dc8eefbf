// Module and optimizer figures on a 512 MiB model (32 float32 parameters of 2048 x 2048),
// ember beside libtorch 1.13 (Debian) in the same run, 1 thread each:
//   load_state_dict_copy_512MiB    load a state_dict by copying into the existing parameters
//                                  (ember: Module::load_state_dict; libtorch: its C++ API has no
//                                  load_state_dict, so the same work written out: copy_ under
//                                  NoGradGuard for each named parameter), ms
//   load_state_dict_assign_512MiB  the assign=true path (ember) against libtorch taking each
//                                  checkpoint tensor's storage with set_data, ms
//   to_bfloat16_512MiB             Module::to(bfloat16) of a fresh float32 model (each round
//                                  builds a new one), ms
//   adam_step_512MiB               one Adam step (grads set to ones), ms
// Both sides use the same values. Wall-clock timing; each figure is the median of a few rounds.
#include <torch/torch.h>

#include <utility>

#include "bench_common.h"
#include "ember/nn/module.h"
#include "ember/optim.h"

namespace {

using namespace bench;

constexpr int kLayers = 32;
constexpr int64_t kSide = 2048;  // 32 * 2048 * 2048 * 4 bytes = 512 MiB

struct EmberModel : ember::nn::Module {
  EmberModel() : Module("Model") {
    for (int i = 0; i < kLayers; ++i) {
      register_parameter("w" + std::to_string(i), ember::zeros({kSide, kSide}));
    }
  }
};

struct TorchModel : torch::nn::Module {
  TorchModel() {
    for (int i = 0; i < kLayers; ++i) {
      register_parameter("w" + std::to_string(i), torch::zeros({kSide, kSide}));
    }
  }
};

// Median wall time of `timed` over `rounds`, each after an untimed `setup` (which may build
// fresh inputs the timed part consumes).
template <class Setup, class F>
double median_ms(int rounds, Setup&& setup, F&& timed) {
  std::vector<double> times;
  for (int r = 0; r < rounds; ++r) {
    setup();
    const double t0 = now(Timer::Wall);
    timed();
    times.push_back((now(Timer::Wall) - t0) * 1e3);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}
template <class F>
double median_ms(int rounds, F&& timed) {
  return median_ms(rounds, [] {}, std::forward<F>(timed));
}

void bench_load() {
  set_threads(1);
  auto em = std::make_shared<EmberModel>();
  auto tm = std::make_shared<TorchModel>();
  ember::nn::StateDict esd;
  std::vector<std::pair<std::string, at::Tensor>> tsd;
  for (int i = 0; i < kLayers; ++i) {
    const std::string name = "w" + std::to_string(i);
    esd.insert(name, ember::full({kSide, kSide}, 0.5));
    tsd.emplace_back(name, torch::full({kSide, kSide}, 0.5));
  }
  const double e_copy = median_ms(5, [&] { em->load_state_dict(esd); });
  const double t_copy = median_ms(5, [&] {
    torch::NoGradGuard no_grad;
    auto params = tm->named_parameters();
    for (auto& [name, value] : tsd) params[name].copy_(value);
  });
  report("load_state_dict_copy_512MiB", "ms", e_copy, t_copy, true);
  const double e_assign = median_ms(5, [&] { em->load_state_dict(esd, true, true); });
  const double t_assign = median_ms(5, [&] {
    auto params = tm->named_parameters();
    for (auto& [name, value] : tsd) params[name].set_data(value);
  });
  report("load_state_dict_assign_512MiB", "ms", e_assign, t_assign, true);
}

void bench_to_bfloat16() {
  set_threads(1);
  std::shared_ptr<EmberModel> em;
  std::shared_ptr<TorchModel> tm;
  const double e = median_ms(3, [&] { em = std::make_shared<EmberModel>(); },
                             [&] { em->bfloat16(); });
  em.reset();
  const double t = median_ms(3, [&] { tm = std::make_shared<TorchModel>(); },
                             [&] { tm->to(torch::kBFloat16); });
  report("to_bfloat16_512MiB", "ms", e, t, true);
}

void bench_adam() {
  set_threads(1);
  auto em = std::make_shared<EmberModel>();
  auto tm = std::make_shared<TorchModel>();
  for (auto& p : em->parameters()) p.set_grad(ember::ones({kSide, kSide}));
  for (auto& p : tm->parameters()) p.mutable_grad() = torch::ones({kSide, kSide});
  ember::optim::Adam eopt(em->parameters());
  torch::optim::Adam topt(tm->parameters());
  eopt.step();  // the first step allocates the moments; time the steady state
  topt.step();
  const double e = median_ms(3, [&] { eopt.step(); });
  const double t = median_ms(3, [&] { topt.step(); });
  report("adam_step_512MiB", "ms", e, t, true);
}

}  // namespace

// Usage: bench_nn [substring]  -- runs the figures whose name contains it (default: all).
int main(int argc, char** argv) {
  at::init_num_threads();
  const std::string only = argc > 1 ? argv[1] : "";
  const std::vector<std::pair<std::string, std::function<void()>>> figures = {
      {"load_state_dict", bench_load},
      {"to_bfloat16_512MiB", bench_to_bfloat16},
      {"adam_step_512MiB", bench_adam},
  };
  for (const auto& [name, run] : figures) {
    if (name.find(only) != std::string::npos) run();
  }
  return 0;
}
