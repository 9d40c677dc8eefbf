// A small CNN on scikit-learn's handwritten digits (make demo runs this): convolutions, batch
// norm, ReLU, max pooling and a linear classifier, trained with SGD on one thread.
//
//   digits_cnn [path/to/digits.csv.gz]   (or EMBER_DIGITS_CSV; default: Debian's python3-sklearn)
//
// The data and split are examples/cpp/digits's (digits_split.h: pixels in [0, 1], a seeded 80/20
// permutation, 1438 train / 359 test), the images reshaped to [N, 1, 8, 8]; the network is
// digits_cnn_model.h's (three 3x3 conv - BatchNorm2d - ReLU stages, two 2x2 max pools,
// Linear(256, 10); benchmarks/bench_models times one of its training steps beside libtorch).
// CrossEntropyLoss, SGD(lr=0.05, momentum=0.9, weight_decay=1e-4), minibatches of 64 (ember::data) reshuffled
// each epoch, fixed seeds. Evaluation runs in eval mode (batch norm on its running statistics).
// Prints the training loss, test accuracy and elapsed time per epoch; exits non-zero if the
// final test accuracy is below 97% (the ctest example.digits_cnn).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "digits_cnn_model.h"
#include "digits_data.h"
#include "digits_split.h"
#include "ember/ember.h"
#include "ember/grad_mode.h"
#include "ember/nn.h"
#include "ember/optim.h"

using namespace ember;

namespace {

constexpr int64_t kBatch = 64;
constexpr int kEpochs = 6;
constexpr double kMinAccuracy = 0.97;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Correct predictions on (x, y) in eval mode; the model goes back to training mode after.
int64_t count_correct(nn::Module& model, const Tensor& x, const Tensor& y) {
  NoGradGuard no_grad;
  model.eval();
  const int64_t correct = model(x).argmax(1).eq(y).sum().item<int64_t>();
  model.train();
  return correct;
}

int run(int argc, char** argv) {
  set_num_threads(1);  // the figure is for one core
  manual_seed(0);      // the layers' initialisation
  std::mt19937_64 rng(0);

  const std::string path = examples::digits_path(argc, argv);
  const examples::DigitsData data = examples::load_digits(path);
  const examples::DigitsSplit split = examples::split_digits(data, rng);
  const Tensor x_train = split.x_train.reshape({-1, 1, 8, 8});
  const Tensor x_test = split.x_test.reshape({-1, 1, 8, 8});
  const Tensor &y_train = split.y_train, &y_test = split.y_test;
  const int64_t n_train = x_train.size(0), n_test = x_test.size(0);
  std::printf("digits: %lld 8x8 images from %s; %lld train / %lld test\n",
              static_cast<long long>(data.rows), path.c_str(), static_cast<long long>(n_train),
              static_cast<long long>(n_test));

  auto model = examples::make_digits_cnn();
  int64_t n_params = 0;
  for (const Tensor& p : model->parameters()) n_params += p.numel();
  std::printf("model (%lld parameters):\n%s\n", static_cast<long long>(n_params),
              model->repr().c_str());
  std::printf("CrossEntropyLoss, SGD(lr=0.05, momentum=0.9, weight_decay=1e-4), batch %lld, "
              "%d epochs, 1 thread\n",
              static_cast<long long>(kBatch), kEpochs);
  nn::CrossEntropyLoss criterion;
  optim::SGD opt(model->parameters(), {.lr = 0.05, .momentum = 0.9, .weight_decay = 1e-4});

  // Minibatches reshuffled each epoch by ember::data (docs/data.md): a random sampler over the
  // training rows, with its own seeded generator, and Stack<> to collate each batch.
  ember::Generator shuffle_generator(0);
  auto loader = ember::data::make_data_loader(
      ember::data::TensorDataset(x_train, y_train).map(ember::data::transforms::Stack<>()),
      ember::data::RandomSampler(static_cast<size_t>(n_train), &shuffle_generator),
      ember::data::DataLoaderOptions(kBatch));
  const auto t0 = std::chrono::steady_clock::now();
  double accuracy = 0;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    double loss_sum = 0;
    for (ember::data::Example<>& batch : *loader) {
      opt.zero_grad();
      Tensor loss = criterion((*model)(batch.data), batch.target);
      loss.backward();
      opt.step();
      loss_sum += loss.item<double>() * static_cast<double>(batch.target.size(0));
    }
    const int64_t correct = count_correct(*model, x_test, y_test);
    accuracy = static_cast<double>(correct) / static_cast<double>(n_test);
    std::printf("  epoch %2d  train loss %.4f  test accuracy %6.2f%% (%3lld / %lld)  %.2f s\n",
                epoch, loss_sum / static_cast<double>(n_train), 100.0 * accuracy,
                static_cast<long long>(correct), static_cast<long long>(n_test),
                seconds_since(t0));
  }
  const double train_s = seconds_since(t0);
  std::printf("trained in %.2f s (%.1f ms per epoch): test accuracy %.2f%%\n", train_s,
              1e3 * train_s / kEpochs, 100.0 * accuracy);
  if (accuracy < kMinAccuracy) {
    std::fprintf(stderr, "digits_cnn: FAILED: test accuracy %.2f%% is below %.0f%%\n",
                 100.0 * accuracy, 100.0 * kMinAccuracy);
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
    std::fprintf(stderr, "digits_cnn: %s\n", e.what());
    return 2;
  }
}
