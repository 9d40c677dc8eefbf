// One example of a data set: a data part and a target part, as libtorch's torch::data::Example.
//
//   ember::data::Example<> e{image, label};          // Tensor data, Tensor target
//   ember::data::TensorExample t{row};                // data only (target is NoTarget)
#pragma once

#include "ember/tensor.h"

namespace ember::data {

/// The target type of examples that have none.
struct NoTarget {};

template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

/// An example with data only.
template <class Data>
struct Example<Data, NoTarget> {
  using DataType = Data;
  using TargetType = NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: a TensorExample is its tensor
  operator Data&() { return data; }              // NOLINT
  operator const Data&() const { return data; }  // NOLINT

  Data data;
};

using TensorExample = Example<Tensor, NoTarget>;

}  // namespace ember::data
