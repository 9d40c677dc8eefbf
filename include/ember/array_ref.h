// Non-owning views of contiguous arrays, constructible from braces, vectors and spans.
//
//   ember::zeros({2, 3});               // IntArrayRef from an initializer list
//   std::vector<int64_t> s{4, 5};  t.view(s);
//
// std::span cannot bind to a braced list, which is the most common way shapes are written.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <vector>

namespace ember {

template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: a single value
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  // The list outlives the full expression it appears in, which is what a call argument needs
  // (the same contract as c10::ArrayRef); storing the ref beyond that is the caller's bug.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> l)  // NOLINT
      : data_(l.begin() == l.end() ? nullptr : l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  template <class A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}  // NOLINT
  constexpr ArrayRef(std::span<const T> s) : data_(s.data()), size_(s.size()) {}  // NOLINT

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  constexpr ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  constexpr ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, size_ - start); }
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == o.data_[i])) return false;
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}

using IntArrayRef = ArrayRef<int64_t>;
using DimVector = std::vector<int64_t>;

/// "[2, 3]" — as a Python list prints.
template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

}  // namespace ember
