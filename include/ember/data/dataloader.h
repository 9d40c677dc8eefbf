// The data loader: batches of a data set in a sampler's order, optionally computed ahead by worker
// threads, as libtorch's torch::data::make_data_loader.
//
//   auto dataset = ember::data::TensorDataset(images, labels).map(ember::data::transforms::Stack<>());
//   auto loader = ember::data::make_data_loader(std::move(dataset),
//                     ember::data::DataLoaderOptions().batch_size(64).workers(2).drop_last(true));
//   for (ember::data::Example<>& batch : *loader) { ... batch.data, batch.target ... }
//
// Note [Data loader workers]
// With workers(n > 0), n threads call the data set's get_batch for the index batches the sampler
// gives, up to max_jobs ahead of the consumer (default 2 per worker); batches come out in the
// sampler's order (enforce_ordering, the default) or as they finish. The data set is shared by
// the workers, so its get_batch must allow concurrent calls (reading tensors does). Each
// `begin()` starts a new epoch: the sampler is reset and batches still in flight from the last
// epoch are dropped. An exception thrown by get_batch reaches the consumer, at the batch it
// belongs to. With workers(0) the consumer's thread computes each batch when it is asked for.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/data/samplers.h"
#include "ember/error.h"

namespace ember::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: as libtorch's

#define EMBER_DATA_OPTION(type, name)                        \
  DataLoaderOptions& name(type value) & {                    \
    name##_ = value;                                         \
    return *this;                                            \
  }                                                          \
  DataLoaderOptions&& name(type value) && {                  \
    name##_ = value;                                         \
    return std::move(*this);                                 \
  }                                                          \
  type name() const noexcept { return name##_; }
  /// Examples per batch.
  EMBER_DATA_OPTION(size_t, batch_size)
  /// Worker threads computing batches ahead (0: the consumer computes them).
  EMBER_DATA_OPTION(size_t, workers)
  /// Batches requested ahead of the consumer; 0 means 2 per worker.
  EMBER_DATA_OPTION(size_t, max_jobs)
  /// Drop the last batch of an epoch when it is shorter than batch_size.
  EMBER_DATA_OPTION(bool, drop_last)
  /// Give batches in the sampler's order (else as workers finish them).
  EMBER_DATA_OPTION(bool, enforce_ordering)
#undef EMBER_DATA_OPTION

 private:
  size_t batch_size_ = 1;
  size_t workers_ = 0;
  size_t max_jobs_ = 0;
  bool drop_last_ = false;
  bool enforce_ordering_ = true;
};

template <class Dataset, class SamplerType>
class DataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = std::vector<size_t>;

  DataLoader(Dataset dataset, DataLoaderOptions options, SamplerType sampler)
      : dataset_(std::move(dataset)), options_(options), sampler_(std::move(sampler)) {
    EMBER_CHECK_VALUE(options_.batch_size() > 0,
                      "DataLoader: batch_size should be a positive integer, got 0");
    if (options_.max_jobs() == 0) options_.max_jobs(2 * std::max<size_t>(options_.workers(), 1));
    for (size_t i = 0; i < options_.workers(); ++i) threads_.emplace_back([this] { worker_loop(); });
  }

  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  ~DataLoader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;

    Iterator() = default;  // the end
    explicit Iterator(DataLoader* loader) : loader_(loader) { advance(); }

    reference operator*() { return *batch_; }
    pointer operator->() { return &*batch_; }
    Iterator& operator++() {
      advance();
      return *this;
    }
    bool operator==(const Iterator& other) const { return done() == other.done(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool done() const { return !batch_.has_value(); }
    void advance() {
      batch_.reset();
      if (loader_ != nullptr) batch_ = loader_->next();
    }
    DataLoader* loader_ = nullptr;
    std::optional<BatchType> batch_;
  };

  /// Starts a new epoch (resets the sampler) and gives its first batch.
  Iterator begin() {
    start_epoch();
    return Iterator(this);
  }
  Iterator end() { return Iterator(); }

  /// The next batch of the current epoch, or nullopt at its end.
  std::optional<BatchType> next() {
    if (options_.workers() == 0) {
      auto request = next_request();
      if (!request) return std::nullopt;
      return dataset_.get_batch(*request);
    }
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      auto ready = options_.enforce_ordering() ? results_.find(next_sequence_) : results_.begin();
      if (ready != results_.end()) {
        Result result = std::move(ready->second);
        results_.erase(ready);
        ++next_sequence_;
        request_more(lock);
        if (result.error) std::rethrow_exception(result.error);
        return std::move(result.batch);
      }
      if (in_flight_ == 0 && queue_.empty() && sampler_exhausted_) return std::nullopt;
      done_cv_.wait(lock);
    }
  }

  const DataLoaderOptions& options() const noexcept { return options_; }
  const Dataset& dataset() const noexcept { return dataset_; }

 private:
  struct Job {
    size_t epoch, sequence;
    BatchRequestType indices;
  };
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  std::optional<BatchRequestType> next_request() {
    auto indices = sampler_.next(options_.batch_size());
    if (!indices || indices->empty()) return std::nullopt;
    if (options_.drop_last() && indices->size() < options_.batch_size()) return std::nullopt;
    return indices;
  }

  void start_epoch() {
    std::unique_lock<std::mutex> lock(mu_);
    ++epoch_;  // results of the last epoch still in flight are dropped when they arrive
    queue_.clear();
    results_.clear();
    next_sequence_ = issued_ = 0;
    sampler_.reset();
    sampler_exhausted_ = false;
    if (options_.workers() > 0) request_more(lock);
  }

  /// Queues index batches until max_jobs are outstanding (called with mu_ held).
  void request_more(std::unique_lock<std::mutex>& /*held*/) {
    while (!sampler_exhausted_ && issued_ - next_sequence_ < options_.max_jobs()) {
      auto request = next_request();
      if (!request) {
        sampler_exhausted_ = true;
        break;
      }
      queue_.push_back(Job{epoch_, issued_++, std::move(*request)});
      work_cv_.notify_one();
    }
  }

  void worker_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      ++in_flight_;
      lock.unlock();
      Result result;
      try {
        result.batch = dataset_.get_batch(job.indices);
      } catch (...) {
        result.error = std::current_exception();
      }
      lock.lock();
      --in_flight_;
      if (job.epoch == epoch_) results_.emplace(job.sequence, std::move(result));
      done_cv_.notify_all();
    }
  }

  Dataset dataset_;
  DataLoaderOptions options_;
  SamplerType sampler_;  // used only by the consumer's thread, under mu_ when workers run

  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Job> queue_;
  std::map<size_t, Result> results_;
  size_t epoch_ = 0, issued_ = 0, next_sequence_ = 0, in_flight_ = 0;
  bool sampler_exhausted_ = true, stopping_ = false;
  std::vector<std::thread> threads_;
};

/// A loader over `dataset` in `sampler`'s order.
template <class Dataset, class SamplerType>
std::unique_ptr<DataLoader<Dataset, SamplerType>> make_data_loader(Dataset dataset, SamplerType sampler,
                                                                   DataLoaderOptions options = {}) {
  return std::make_unique<DataLoader<Dataset, SamplerType>>(std::move(dataset), options, std::move(sampler));
}

/// A loader over `dataset` with a sampler of its size (RandomSampler by default, as libtorch).
template <class SamplerType = RandomSampler, class Dataset>
std::unique_ptr<DataLoader<Dataset, SamplerType>> make_data_loader(Dataset dataset, DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK_VALUE(size.has_value(), "make_data_loader: the data set has no size; pass a sampler");
  SamplerType sampler(*size);
  return make_data_loader(std::move(dataset), std::move(sampler), options);
}

}  // namespace ember::data
