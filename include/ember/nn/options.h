// EMBER_ARG: one field of a layer's options struct with libtorch's chainable accessors
// (TORCH_ARG), so that options read as libtorch's:
//
//   auto conv = ember::nn::Conv2d(ember::nn::Conv2dOptions(3, 16, 3).stride(2).padding(1));
//   auto fc = ember::nn::Linear(ember::nn::LinearOptions(784, 10).bias(false));
//
// `o.stride(2)` sets and returns the struct; `o.stride()` reads. Each layer's options struct
// sits in its module's header, beside the constructor that takes it; the struct's fields and
// defaults are PyTorch's constructor arguments, and `options(TensorOptions)` gives the
// parameters' dtype and device (kMeta builds a skeleton) where the layer has parameters.
#pragma once

#define EMBER_ARG(T, name)                                  \
 public:                                                    \
  auto name(const T& new_##name)->decltype(*this) {         \
    this->name##_ = new_##name;                             \
    return *this;                                           \
  }                                                         \
  const T& name() const noexcept { return this->name##_; }  \
  T& name() noexcept { return this->name##_; }              \
                                                            \
 private:                                                   \
  T name##_
