// ember::data's loader beside libtorch's torch::data, in the same run: batches per second over
// one epoch of a data set of 8192 3x32x32 float images with int64 labels, batch 64, shuffled,
// collated by Stack<> (each example is a row view; each batch stacks 64 of them), with 0 and 2
// worker threads. One kernel thread for both libraries, so the workers are the parallelism.
//
//   cpp_dataloader_t0 / cpp_dataloader_t2: batches/s, higher is better.
#include <torch/data.h>

#include "bench_common.h"
#include "ember/data.h"

namespace {

constexpr int64_t kExamples = 8192, kBatch = 64;

struct TorchRows : torch::data::datasets::Dataset<TorchRows> {
  TorchRows(at::Tensor x, at::Tensor y) : x(std::move(x)), y(std::move(y)) {}
  torch::data::Example<> get(size_t i) override {
    return {x[static_cast<int64_t>(i)], y[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(x.size(0)); }
  at::Tensor x, y;
};

void bench_loader(size_t workers) {
  std::vector<float> pixels = bench::filler(kExamples * 3 * 32 * 32, 7);
  std::vector<float> label_values(kExamples);
  for (int64_t i = 0; i < kExamples; ++i) label_values[static_cast<size_t>(i)] = static_cast<float>(i % 10);
  ember::Tensor ex = bench::ember_tensor(pixels, {kExamples, 3, 32, 32});
  ember::Tensor ey = bench::ember_tensor(label_values, {kExamples}).to(ember::kInt64);
  at::Tensor tx = bench::torch_tensor(pixels, {kExamples, 3, 32, 32});
  at::Tensor ty = bench::torch_tensor(label_values, {kExamples}).to(at::kLong);

  auto ember_loader = ember::data::make_data_loader(
      ember::data::TensorDataset(ex, ey).map(ember::data::transforms::Stack<>()),
      ember::data::DataLoaderOptions(kBatch).workers(workers));
  auto torch_loader = torch::data::make_data_loader(
      TorchRows(tx, ty).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(kBatch).workers(workers));

  double checksum = 0;
  auto ember_epoch = [&] {
    for (auto& batch : *ember_loader) checksum += static_cast<double>(batch.target.size(0));
  };
  auto torch_epoch = [&] {
    for (auto& batch : *torch_loader) checksum += static_cast<double>(batch.target.size(0));
  };
  bench::set_threads(1);
  const bench::Timing t = bench::compare(bench::Timer::Wall, 1, 7, ember_epoch, torch_epoch);
  const double batches = static_cast<double>(kExamples / kBatch);
  bench::report("cpp_dataloader_t" + std::to_string(workers), "batches/s", batches / t.ember,
                batches / t.pytorch, false);
  if (checksum <= 0) std::printf("unexpected checksum\n");
}

}  // namespace

// Usage: bench_cpp_data [substring]  -- runs the figures whose name contains it (default: all).
int main(int argc, char** argv) {
  at::init_num_threads();
  const std::string only = argc > 1 ? argv[1] : "";
  for (size_t workers : {0u, 2u}) {
    if (("cpp_dataloader_t" + std::to_string(workers)).find(only) != std::string::npos) bench_loader(workers);
  }
  return 0;
}
