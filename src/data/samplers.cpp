#include "ember/data/samplers.h"

#include <algorithm>

#include "ember/error.h"
#include "ember/ops/random.h"

namespace ember::data {

namespace {

/// The indices [index, index + batch_size) of `order`, clipped; nullopt when none is left.
std::optional<std::vector<size_t>> take(const std::vector<size_t>& order, size_t& index, size_t batch_size) {
  EMBER_CHECK_VALUE(batch_size > 0, "Sampler::next: batch_size should be a positive integer, got 0");
  if (index >= order.size()) return std::nullopt;
  const size_t n = std::min(batch_size, order.size() - index);
  std::vector<size_t> batch(order.begin() + static_cast<std::ptrdiff_t>(index),
                            order.begin() + static_cast<std::ptrdiff_t>(index + n));
  index += n;
  return batch;
}

/// A permutation of 0..n-1 drawn as ember::randperm draws it (so a seeded generator gives the
/// same order as Python's RandomSampler over torch.randperm would in ember).
std::vector<size_t> permutation(size_t n, Generator* generator) {
  Tensor perm = ember::randperm(static_cast<int64_t>(n), TensorOptions().dtype(kInt64), generator);
  const int64_t* p = perm.data_ptr<int64_t>();
  return std::vector<size_t>(p, p + n);
}

}  // namespace

// ---- sequential ----

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  EMBER_CHECK_VALUE(batch_size > 0, "Sampler::next: batch_size should be a positive integer, got 0");
  if (index_ >= size_) return std::nullopt;
  const size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> batch(n);
  for (size_t i = 0; i < n; ++i) batch[i] = index_ + i;
  index_ += n;
  return batch;
}

// ---- random ----

RandomSampler::RandomSampler(size_t size, Generator* generator)
    : generator_(generator), indices_(permutation(size, generator)) {}

void RandomSampler::reset(std::optional<size_t> new_size) {
  indices_ = permutation(new_size.value_or(indices_.size()), generator_);
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  return take(indices_, index_, batch_size);
}

// ---- distributed ----

DistributedSampler::DistributedSampler(size_t size, size_t num_replicas, size_t rank, bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  EMBER_CHECK_VALUE(num_replicas > 0, "DistributedSampler: num_replicas should be positive, got 0");
  EMBER_CHECK_VALUE(rank < num_replicas, "Invalid rank ", rank, ", rank should be in the interval [0, ",
                    num_replicas - 1, "]");
  set_size(size);
}

void DistributedSampler::set_size(size_t size) {
  size_ = size;
  // As torch.utils.data.DistributedSampler: with duplicates every rank gets ceil(size / replicas)
  // indices (the order is padded with its own start); without, floor(size / replicas).
  local_count_ = allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
}

std::vector<size_t> DistributedSampler::local_share(const std::vector<size_t>& order) const {
  const size_t total = local_count_ * num_replicas_;
  std::vector<size_t> padded(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(total, order.size())));
  for (size_t i = 0; padded.size() < total; ++i) padded.push_back(order[i % order.size()]);
  std::vector<size_t> mine;
  mine.reserve(local_count_);
  for (size_t i = rank_; i < total; i += num_replicas_) mine.push_back(padded[i]);
  return mine;
}

std::optional<std::vector<size_t>> DistributedSampler::next_from(const std::vector<size_t>& order, size_t batch_size) {
  return take(order, index_, batch_size);
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) set_size(*new_size);
  std::vector<size_t> order(size_);
  for (size_t i = 0; i < size_; ++i) order[i] = i;
  local_ = local_share(order);
  index_ = 0;
  started_ = true;
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (!started_) reset();
  return next_from(local_, batch_size);
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) set_size(*new_size);
  Generator generator(static_cast<uint64_t>(epoch_));
  local_ = local_share(permutation(size_, &generator));
  index_ = 0;
  started_ = true;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (!started_) reset();
  return next_from(local_, batch_size);
}

}  // namespace ember::data
