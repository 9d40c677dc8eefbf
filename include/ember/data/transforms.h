// Transforms applied by MapDataset, as libtorch's torch::data::transforms: a BatchTransform maps
// a whole batch, a Transform one example at a time. Stack<> collates a vector of examples into one
// example of stacked tensors (what a training loop wants).
//
//   dataset.map(transforms::Lambda<Example<>>([](Example<> e) { e.data = e.data / 255; return e; }))
//          .map(transforms::Stack<>());
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "ember/data/example.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/tensor.h"

namespace ember::data::transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

/// Maps each example of a batch (a vector) on its own.
template <class Input, class Output = Input>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual Output apply(Input input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> out;
    out.reserve(input_batch.size());
    for (auto& example : input_batch) out.push_back(apply(std::move(example)));
    return out;
  }
};

/// A Transform from a callable.
template <class Input, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A BatchTransform from a callable.
template <class Input, class Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

/// Collates a batch of examples into one example whose data (and target) are the examples'
/// tensors stacked along a new first dimension.
template <class E = Example<>>
class Stack;

template <>
class Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
 public:
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {ember::stack(data), ember::stack(targets)};
  }
};

template <>
class Stack<TensorExample> : public BatchTransform<std::vector<TensorExample>, TensorExample> {
 public:
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return {ember::stack(data)};
  }
};

/// Normalizes the data of each example: (data - mean) / stddev, per channel when given lists
/// (broadcast over the trailing dimensions of a [C, ...] example), as libtorch's Normalize.
template <class Target = Tensor>
class Normalize : public Transform<Example<Tensor, Target>> {
 public:
  Normalize(std::vector<double> mean, std::vector<double> stddev)
      : mean_(std::move(mean)), stddev_(std::move(stddev)) {}
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}

  Example<Tensor, Target> apply(Example<Tensor, Target> example) override {
    example.data = normalize(example.data);
    return example;
  }

 private:
  Tensor normalize(const Tensor& x) const {
    if (mean_.size() == 1 && stddev_.size() == 1) return (x - mean_[0]) / stddev_[0];
    std::vector<int64_t> shape(static_cast<size_t>(std::max<int64_t>(x.dim(), 1)), 1);
    shape[0] = -1;
    Tensor mean = ember::tensor(mean_, TensorOptions().dtype(x.dtype()).device(x.device())).view(shape);
    Tensor stddev = ember::tensor(stddev_, TensorOptions().dtype(x.dtype()).device(x.device())).view(shape);
    return (x - mean) / stddev;
  }

  std::vector<double> mean_, stddev_;
};

}  // namespace ember::data::transforms
