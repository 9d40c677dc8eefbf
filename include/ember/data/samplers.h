// Samplers: the order in which a loader visits a data set's indices, as libtorch's
// torch::data::samplers. A sampler hands out batches of indices with `next(batch_size)` (the last
// one may be short; nullopt when the epoch is over) and starts a new epoch with `reset()`.
//
//   ember::data::RandomSampler s(100);            // a new permutation every reset()
//   s.reset();  while (auto idx = s.next(32)) { ... }
//
// The distributed samplers split the indices among `num_replicas` processes: each rank visits
// its own share, every rank the same number of indices (padded with repeats from the start when
// allow_duplicates, else the tail is dropped), as torch.utils.data.DistributedSampler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/generator.h"

namespace ember::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  /// Starts a new epoch; `new_size` changes the number of indices.
  virtual void reset(std::optional<size_t> new_size = std::nullopt) = 0;
  /// The next batch of at most `batch_size` indices, or nullopt at the end of the epoch.
  virtual std::optional<std::vector<size_t>> next(size_t batch_size) = 0;
};

/// 0, 1, ..., size - 1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

/// A random permutation of 0..size-1, drawn anew at each reset() (and at construction) from
/// `generator` (nullptr: ember's default generator, seeded by ember::manual_seed).
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(size_t size, Generator* generator = nullptr);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  Generator* generator_;
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

/// Common part of the distributed samplers.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  /// The epoch seeds the shuffle of DistributedRandomSampler: set it before each epoch so that the
  /// replicas agree on one permutation and each epoch gets a new one.
  void set_epoch(size_t epoch) noexcept { epoch_ = epoch; }
  size_t epoch() const noexcept { return epoch_; }
  /// The number of indices this rank visits per epoch.
  size_t local_sample_count() const noexcept { return local_count_; }

 protected:
  void set_size(size_t size);
  std::optional<std::vector<size_t>> next_from(const std::vector<size_t>& order, size_t batch_size);
  /// This rank's share of `order` (the whole epoch's order of 0..size-1).
  std::vector<size_t> local_share(const std::vector<size_t>& order) const;

  size_t size_, num_replicas_, rank_;
  bool allow_duplicates_;
  size_t local_count_ = 0;
  size_t epoch_ = 0;
  size_t index_ = 0;
};

/// Rank r visits indices r, r + num_replicas, r + 2 num_replicas, ... in order.
class DistributedSequentialSampler : public DistributedSampler {
 public:
  using DistributedSampler::DistributedSampler;
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  std::vector<size_t> local_;
  bool started_ = false;
};

/// One permutation per epoch, seeded by the epoch (the same on every replica); each rank visits
/// its strided share of it.
class DistributedRandomSampler : public DistributedSampler {
 public:
  using DistributedSampler::DistributedSampler;
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  std::vector<size_t> local_;
  bool started_ = false;
};

}  // namespace ember::data
