// End to end (make demo runs this): train an MLP on scikit-learn's handwritten digits, then move
// its weights through state_dict into a skeleton built on the meta device.
//
//   digits [path/to/digits.csv.gz]      (or EMBER_DIGITS_CSV; default: Debian's python3-sklearn)
//
// 1. The 1797 8x8 images, pixels scaled to [0, 1], split 80/20 by a seeded permutation
//    (Fisher-Yates over std::mt19937_64 seeded with 0: the rows come grouped by writer, so the
//    file's last 20% would test on unseen writers only). 1438 rows train, 359 test.
// 2. Sequential(Linear(64, 128), ReLU, Linear(128, 10)), CrossEntropyLoss, SGD with momentum,
//    minibatches of 32 reshuffled each epoch, one thread, fixed seeds.
// 3. A copy of the state_dict is loaded with assign=true into the same architecture built on
//    kMeta (no memory), the trained model is dropped, and the loaded one is evaluated again.
// Exits non-zero if test accuracy is below 95%, the copy was not built on meta and materialised
// by the load, or the two evaluations differ (logits compared bit for bit).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "digits_data.h"
#include "digits_split.h"
#include "ember/ember.h"
#include "ember/grad_mode.h"
#include "ember/nn.h"
#include "ember/optim.h"

using namespace ember;

namespace {

constexpr int64_t kHidden = 128;
constexpr int64_t kBatch = 32;
constexpr int kEpochs = 20;
constexpr double kMinAccuracy = 0.95;

// The same architecture for training (CPU) and for the skeleton (kMeta).
std::shared_ptr<nn::Sequential> make_mlp(TensorOptions options) {
  return std::make_shared<nn::Sequential>(
      std::make_shared<nn::Linear>(examples::kDigitsPixels, kHidden, true, options),
      std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(kHidden, examples::kDigitsClasses, true, options));
}

struct Eval {
  int64_t correct;
  Tensor logits;
};

Eval evaluate(nn::Module& model, const Tensor& x, const Tensor& y) {
  NoGradGuard no_grad;
  model.eval();
  Tensor logits = model(x);
  model.train();
  return {logits.argmax(1).eq(y).sum().item<int64_t>(), logits};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// SGD with momentum over minibatches reshuffled each epoch; prints the loss and test accuracy.
std::shared_ptr<nn::Sequential> train(const Tensor& x_train, const Tensor& y_train,
                                      const Tensor& x_test, const Tensor& y_test,
                                      std::mt19937_64& rng) {
  auto model = make_mlp({});
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model->parameters(), {.lr = 0.05, .momentum = 0.9});
  int64_t n_params = 0;
  for (const Tensor& p : model->parameters()) n_params += p.numel();
  std::printf("model: Sequential(Linear(64, %lld), ReLU, Linear(%lld, 10)), %lld parameters; "
              "CrossEntropyLoss, SGD(lr=0.05, momentum=0.9), batch %lld, 1 thread\n",
              static_cast<long long>(kHidden), static_cast<long long>(kHidden),
              static_cast<long long>(n_params), static_cast<long long>(kBatch));

  const auto t0 = std::chrono::steady_clock::now();
  const int64_t n_train = x_train.size(0), n_test = x_test.size(0);
  std::vector<int64_t> perm(static_cast<size_t>(n_train));
  for (int64_t i = 0; i < n_train; ++i) perm[static_cast<size_t>(i)] = i;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    examples::shuffle(perm, rng);
    double loss_sum = 0;
    for (int64_t start = 0; start < n_train; start += kBatch) {
      const int64_t b = std::min(kBatch, n_train - start);
      Tensor idx = examples::index_tensor(perm.data() + start, b);
      opt.zero_grad();
      Tensor loss = criterion((*model)(x_train.index_select(0, idx)), y_train.index_select(0, idx));
      loss.backward();
      opt.step();
      loss_sum += loss.item<double>() * static_cast<double>(b);
    }
    if (epoch == 1 || epoch % 5 == 0) {
      const Eval e = evaluate(*model, x_test, y_test);
      std::printf("  epoch %2d  train loss %.4f  test accuracy %.2f%%  (%.2f s)\n", epoch,
                  loss_sum / static_cast<double>(n_train),
                  100.0 * static_cast<double>(e.correct) / static_cast<double>(n_test),
                  seconds_since(t0));
    }
  }
  return model;
}

int run(int argc, char** argv) {
  set_num_threads(1);  // the figure is for one core
  manual_seed(0);      // Linear's initialisation
  std::mt19937_64 rng(0);

  // ---- data ----
  const std::string path = examples::digits_path(argc, argv);
  const examples::DigitsData data = examples::load_digits(path);
  const int64_t n = data.rows;
  const examples::DigitsSplit split = examples::split_digits(data, rng);
  const Tensor &x_train = split.x_train, &y_train = split.y_train;
  const Tensor &x_test = split.x_test, &y_test = split.y_test;
  const int64_t n_train = x_train.size(0), n_test = x_test.size(0);
  std::printf("digits: %lld 8x8 images from %s\n", static_cast<long long>(n), path.c_str());
  std::printf("split: seeded permutation, %lld train / %lld test; pixels scaled to [0, 1]\n",
              static_cast<long long>(n_train), static_cast<long long>(n_test));

  // ---- training (the optimizer lives in train(): once it returns, the model is all there is) ----
  const auto t0 = std::chrono::steady_clock::now();
  auto model = train(x_train, y_train, x_test, y_test, rng);
  const double train_s = seconds_since(t0);
  const Eval trained = evaluate(*model, x_test, y_test);
  const double acc = static_cast<double>(trained.correct) / static_cast<double>(n_test);
  std::printf("trained in %.2f s: test accuracy %.2f%% (%lld / %lld)\n", train_s, 100.0 * acc,
              static_cast<long long>(trained.correct), static_cast<long long>(n_test));

  // ---- state_dict -> a skeleton built on meta, materialised by load_state_dict(assign) ----
  // A deep copy (as Python's copy.deepcopy(model.state_dict())): state_dict's tensors alias
  // the parameters; metadata (per-module versions) comes along.
  const nn::StateDict live = model->state_dict();
  nn::StateDict sd;
  for (const auto& [key, value] : live.items()) sd.insert(key, value.to_tensor().clone());
  sd.metadata = live.metadata;
  model.reset();  // the trained weights now exist only in the copy

  auto skeleton = make_mlp(TensorOptions().device(kMeta));
  size_t on_meta = 0;
  for (const Tensor& p : skeleton->parameters()) on_meta += p.is_meta() ? 1 : 0;
  const nn::IncompatibleKeys keys = skeleton->load_state_dict(sd, /*strict=*/true, /*assign=*/true);
  size_t on_cpu = 0;
  for (const Tensor& p : skeleton->parameters()) on_cpu += p.is_cpu() && p.requires_grad() ? 1 : 0;
  const Eval loaded = evaluate(*skeleton, x_test, y_test);
  const double loaded_acc = static_cast<double>(loaded.correct) / static_cast<double>(n_test);
  const bool same_logits = equal(loaded.logits, trained.logits);
  std::printf("meta-built copy (%zu/%zu parameters on meta) <- load_state_dict(state_dict copy, "
              "strict=true, assign=true): %s\n",
              on_meta, skeleton->parameters().size(), keys.to_string().c_str());
  std::printf("test accuracy: trained %.2f%%, loaded %.2f%% (logits %s; %zu/%zu parameters now on "
              "cpu, requiring grad)\n",
              100.0 * acc, 100.0 * loaded_acc, same_logits ? "identical" : "DIFFER", on_cpu,
              skeleton->parameters().size());

  if (acc < kMinAccuracy) {
    std::fprintf(stderr, "digits: FAILED: test accuracy %.2f%% is below %.0f%%\n", 100.0 * acc,
                 100.0 * kMinAccuracy);
    return 1;
  }
  const size_t n_loaded = skeleton->parameters().size();
  if (on_meta != n_loaded || on_cpu != n_loaded) {
    std::fprintf(stderr, "digits: FAILED: the skeleton was not built on meta or not materialised on cpu\n");
    return 1;
  }
  if (loaded.correct != trained.correct || !same_logits) {
    std::fprintf(stderr, "digits: FAILED: the loaded model does not reproduce the trained one\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "digits: %s\n", e.what());
    return 2;
  }
}
