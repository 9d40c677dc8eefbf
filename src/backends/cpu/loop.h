// One strided loop for every elementwise kernel (Note [Elementwise loop]).
//
//   ElementwiseLoop loop({out, a, b});          // operand 0 is written; shapes already broadcast
//   loop.run<float, float, float>([](float x, float y) { return x + y; });
//
// Inputs must have the output's shape or broadcast to it (size-1 / missing leading dims); their
// dtypes must equal the C++ types given to run(). Callers convert dtypes before (see
// src/ops/elementwise.h), so each kernel is one scalar functor instantiated per dtype.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "ember/parallel.h"
#include "ember/tensor.h"

namespace ember::cpu {

// Note [Elementwise loop]
// The loop runs over the output's shape with per-operand byte strides (0 where an input is
// broadcast). Before running, dims are ordered so the output's smallest stride is innermost, and
// adjacent dims that are contiguous in every operand are merged, so a contiguous or
// row-broadcast op becomes one long inner loop the compiler vectorizes. parallel_for splits the
// flattened index range; each chunk recomputes its start position from the linear index.
class ElementwiseLoop {
 public:
  static constexpr int kMaxOperands = 5;
  static constexpr int64_t kGrain = 32768;

  /// An operand, by reference: the loop copies out pointers and strides while it is built, so
  /// it takes no reference counts (each an atomic add and subtract, a visible part of a small
  /// op's cost). Temporaries are fine: they live until the end of the full expression.
  struct Operand {
    Operand(const Tensor& t) : tensor(&t) {}  // NOLINT: implicit, so `{out, a, b}` works
    const Tensor* tensor;
  };

  ElementwiseLoop(std::initializer_list<Operand> operands);

  int64_t numel() const { return numel_; }
  int ndim() const { return ndim_; }

  /// Calls fn(ptrs, inner_strides, n) for runs of n elements along the innermost dim.
  template <class F>
  void for_each_run(F&& fn) const {
    if (numel_ == 0) return;
    parallel_for(0, numel_, kGrain, [&](int64_t begin, int64_t end) { run_range(begin, end, fn); });
  }

  /// out = f(in...) with Out and In the operands' C++ element types.
  template <class Out, class... In, class F>
  void run(F f) const {
    static_assert(sizeof...(In) + 1 <= kMaxOperands);
    for_each_run([&](char** ptrs, const int64_t* strides, int64_t n) {
      apply<Out, In...>(f, ptrs, strides, n, std::index_sequence_for<In...>());
    });
  }

 private:
  template <class Out, class... In, class F, size_t... I>
  static void apply(F& f, char** ptrs, const int64_t* s, int64_t n, std::index_sequence<I...>) {
    Out* out = reinterpret_cast<Out*>(ptrs[0]);
    bool contiguous = s[0] == sizeof(Out) && ((s[I + 1] == sizeof(In)) && ...);
    if (contiguous) {
      // Separate typed pointers let the compiler vectorize this loop.
      std::tuple<const In*...> in{reinterpret_cast<const In*>(ptrs[I + 1])...};
      for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[i]...);
      return;
    }
    bool out_contiguous_in_broadcast =
        s[0] == sizeof(Out) && ((s[I + 1] == sizeof(In) || s[I + 1] == 0) && ...);
    if (out_contiguous_in_broadcast) {
      // Scalar-like inputs (stride 0) are loaded once; the rest stay contiguous.
      std::tuple<const In*...> in{reinterpret_cast<const In*>(ptrs[I + 1])...};
      [[maybe_unused]] std::array<bool, sizeof...(In)> bcast{(s[I + 1] == 0)...};
      for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[bcast[I] ? 0 : i]...);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<Out*>(ptrs[0] + i * s[0]) =
          f(*reinterpret_cast<const In*>(ptrs[I + 1] + i * s[I + 1])...);
    }
  }

  template <class F>
  void run_range(int64_t begin, int64_t end, F& fn) const {
    std::array<char*, kMaxOperands> ptrs;
    std::array<int64_t, kMaxOperands> inner_strides;
    if (ndim_ == 1) {  // one run (contiguous ops, after merging): no multi-index to track
      for (int t = 0; t < ntensors_; ++t) {
        inner_strides[t] = strides_[0][t];
        ptrs[t] = base_[t] + begin * inner_strides[t];
      }
      fn(ptrs.data(), inner_strides.data(), end - begin);
      return;
    }
    // Position of `begin` as a multi-index over dims [0, ndim-1) (outer) and inner offset.
    const int64_t inner = shape_[ndim_ - 1];
    std::array<int64_t, kMaxDims> idx;
    int64_t outer_linear = begin / inner;
    int64_t inner_start = begin % inner;
    for (int d = ndim_ - 2; d >= 0; --d) {
      idx[d] = outer_linear % shape_[d];
      outer_linear /= shape_[d];
    }
    for (int t = 0; t < ntensors_; ++t) inner_strides[t] = strides_[ndim_ - 1][t];
    int64_t pos = begin;
    while (pos < end) {
      for (int t = 0; t < ntensors_; ++t) {
        char* p = base_[t] + inner_start * strides_[ndim_ - 1][t];
        for (int d = 0; d < ndim_ - 1; ++d) p += idx[d] * strides_[d][t];
        ptrs[t] = p;
      }
      int64_t n = std::min(inner - inner_start, end - pos);
      fn(ptrs.data(), inner_strides.data(), n);
      pos += n;
      inner_start = 0;
      for (int d = ndim_ - 2; d >= 0; --d) {  // odometer increment of the outer index
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
    }
  }

  static constexpr int kMaxDims = 25;
  int ntensors_ = 0;
  int ndim_ = 0;
  int64_t numel_ = 0;
  // Only [0, ntensors_) and [0, ndim_) are set and read. Not zero-filled: clearing these 1.2 KB
  // on every construction was a measurable part of a small op's cost.
  std::array<char*, kMaxOperands> base_;
  std::array<int64_t, kMaxDims> shape_;
  std::array<std::array<int64_t, kMaxOperands>, kMaxDims> strides_;  // [dim][operand], bytes
};

}  // namespace ember::cpu
