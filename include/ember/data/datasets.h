// Data sets: random access to examples by index, as libtorch's torch::data::datasets.
//
//   struct Squares : ember::data::Dataset<Squares> {
//     ember::data::Example<> get(size_t i) override { ... }
//     std::optional<size_t> size() const override { return 100; }
//   };
//   auto batches = ember::data::TensorDataset(images, labels)
//                      .map(ember::data::transforms::Stack<>());   // batch -> one Example<>
//
// `get_batch` is what the loader calls, from several worker threads at once when it has
// workers: a data set used with workers must allow concurrent reads (TensorDataset does).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/data/example.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::data {

template <class Source, class Transform>
class MapDataset;

/// The base of batch data sets: `get_batch(indices)` gives one batch.
template <class Self, class Batch, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, if known.
  virtual std::optional<size_t> size() const = 0;

  /// This data set with `transform` applied to every batch it gives (consumes *this).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// The base of data sets made of single examples: implement `get(index)` and `size()`; a batch
/// is the vector of its examples.
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// A data set whose batches pass through a transform (`Source::map(transform)` makes one).
template <class Source, class Transform>
class MapDataset : public BatchDataset<MapDataset<Source, Transform>,
                                       typename Transform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = Transform;
  using BatchType = typename Transform::OutputBatchType;
  using BatchRequestType = typename Source::BatchRequestType;

  MapDataset(Source dataset, Transform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  BatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(dataset_.get_batch(request));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }

  const Source& dataset() const noexcept { return dataset_; }
  const Transform& transform() const noexcept { return transform_; }

 private:
  Source dataset_;
  Transform transform_;
};

/// Rows of tensors that share their first dimension: example i is (data[i], target[i]).
class TensorDataset : public Dataset<TensorDataset> {
 public:
  TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
    EMBER_CHECK_VALUE(data_.dim() > 0 && target_.dim() > 0,
                      "TensorDataset: data and target need a first (example) dimension, got shapes ",
                      data_.sizes(), " and ", target_.sizes());
    EMBER_CHECK_VALUE(data_.size(0) == target_.size(0),
                      "TensorDataset: Size mismatch between tensors: data has ", data_.size(0),
                      " examples and target ", target_.size(0));
  }

  Example<> get(size_t index) override {
    EMBER_CHECK_INDEX(index < static_cast<size_t>(data_.size(0)), "TensorDataset: index ", index,
                      " is out of range for a data set of size ", data_.size(0));
    const auto i = static_cast<int64_t>(index);
    return {data_[i], target_[i]};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(data_.size(0)); }

  const Tensor& data() const noexcept { return data_; }
  const Tensor& target() const noexcept { return target_; }

 private:
  Tensor data_;
  Tensor target_;
};

}  // namespace ember::data
