#include "compare_kernels.h"

#include <atomic>
#include <cmath>

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

namespace {

template <class T, class F>
void run_compare(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  ElementwiseLoop({out, a, b}).run<bool, T, T>(f);
}

}  // namespace

void compare_kernel(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_ASSERT(out.dtype() == kBool && a.dtype() == b.dtype());
  if (a.is_complex()) {
    // Complex numbers have equality and truth, no order (PyTorch: "lt_cpu" not implemented).
    static constexpr const char* kOrderNames[] = {"", "", "lt_cpu", "le_cpu", "gt_cpu", "ge_cpu"};
    EMBER_CHECK(op != CompareOp::Lt && op != CompareOp::Le && op != CompareOp::Gt && op != CompareOp::Ge,
                "\"", kOrderNames[static_cast<int>(op) < 6 ? static_cast<int>(op) : 0], "\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
    dispatch_types(kComplexTypes, a.dtype(), "compare_cpu", [&]<class T>() {
      const T zero{};
      switch (op) {
        case CompareOp::Eq: return run_compare<T>(out, a, b, [](T x, T y) { return x == y; });
        case CompareOp::Ne: return run_compare<T>(out, a, b, [](T x, T y) { return x != y; });
        case CompareOp::LogicalAnd:
          return run_compare<T>(out, a, b, [zero](T x, T y) { return x != zero && y != zero; });
        case CompareOp::LogicalOr:
          return run_compare<T>(out, a, b, [zero](T x, T y) { return x != zero || y != zero; });
        case CompareOp::LogicalXor:
          return run_compare<T>(out, a, b, [zero](T x, T y) { return (x != zero) != (y != zero); });
        default: return;
      }
    });
    return;
  }
  dispatch_types(kAllTypes, a.dtype(), "compare_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    switch (op) {
      case CompareOp::Eq: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) == M(y); });
      case CompareOp::Ne: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) != M(y); });
      case CompareOp::Lt: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) < M(y); });
      case CompareOp::Le: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) <= M(y); });
      case CompareOp::Gt: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) > M(y); });
      case CompareOp::Ge: return run_compare<T>(out, a, b, [](T x, T y) { return M(x) >= M(y); });
      case CompareOp::LogicalAnd:
        return run_compare<T>(out, a, b, [](T x, T y) { return M(x) != M(0) && M(y) != M(0); });
      case CompareOp::LogicalOr:
        return run_compare<T>(out, a, b, [](T x, T y) { return M(x) != M(0) || M(y) != M(0); });
      case CompareOp::LogicalXor:
        return run_compare<T>(out, a, b, [](T x, T y) { return (M(x) != M(0)) != (M(y) != M(0)); });
    }
  });
}

void isclose_kernel(const Tensor& out, const Tensor& a, const Tensor& b, double rtol, double atol,
                    bool equal_nan) {
  dispatch_types(kFloatTypes, a.dtype(), "isclose", [&]<class T>() {
    using M = opmath_t<T>;
    // The tolerances enter PyTorch's formula as Python numbers: rounded to T first.
    const M rt = M(T(static_cast<M>(rtol))), at = M(T(static_cast<M>(atol)));
    run_compare<T>(out, a, b, [=](T x, T y) {
      const M xv = M(x), yv = M(y);
      if (xv == yv) return true;
      if (equal_nan && xv != xv && yv != yv) return true;
      const M allowed = M(T(at + M(T(std::abs(M(T(rt * yv)))))));
      const M actual = M(T(std::abs(xv - yv)));
      return std::isfinite(actual) && actual <= allowed;
    });
  });
}

bool all_true(const Tensor& t) {
  EMBER_ASSERT(t.dtype() == kBool);
  std::atomic<bool> all{true};
  ElementwiseLoop loop({t});
  loop.for_each_run([&](char** ptrs, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      if (!*reinterpret_cast<const bool*>(ptrs[0] + i * strides[0])) {
        all.store(false, std::memory_order_relaxed);
        return;
      }
    }
  });
  return all.load();
}

}  // namespace ember::cpu
