// TensorAccessor<T, N>: a tensor's elements as an N-d array of T, read and written without
// dispatch (libtorch's at::TensorAccessor). Made by Tensor::accessor<T, N>():
//
//   auto a = t.accessor<float, 2>();          // dtype and dim count checked here
//   for (int64_t i = 0; i < a.size(0); ++i)
//     for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
//
// Indices follow the tensor's strides (any layout); negative indices do not wrap. With
// EMBER_ACCESSOR_CHECKS on (the default when NDEBUG is not defined) each index is checked
// against its size (IndexError); off, an index out of range is undefined behaviour, as in
// libtorch. The accessor points at the tensor's sizes and strides: it must not outlive it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/array_ref.h"
#include "ember/error.h"

#ifndef EMBER_ACCESSOR_CHECKS
#ifdef NDEBUG
#define EMBER_ACCESSOR_CHECKS 0
#else
#define EMBER_ACCESSOR_CHECKS 1
#endif
#endif

namespace ember {

template <class T, size_t N>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  T* data() const { return data_; }

 protected:
  T* at(int64_t i) const {
#if EMBER_ACCESSOR_CHECKS
    EMBER_CHECK_INDEX(i >= 0 && i < sizes_[0], "index ", i,
                      " is out of bounds for dimension 0 with size ", sizes_[0]);
#endif
    return data_ + strides_[0] * i;
  }
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <class T, size_t N>
class TensorAccessor : public TensorAccessorBase<T, N> {
 public:
  using TensorAccessorBase<T, N>::TensorAccessorBase;
  /// The sub-array at index i of the first dimension.
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->at(i), this->sizes_ + 1, this->strides_ + 1);
  }
};

template <class T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T, 1> {
 public:
  using TensorAccessorBase<T, 1>::TensorAccessorBase;
  T& operator[](int64_t i) const { return *this->at(i); }
};

}  // namespace ember
