// Reduction ops as small Op structs for run_reduce (Note [Reduction loop] in reduce_loop.h).
#include "reduce_kernels.h"

#include "complex2_kernels.h"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "reduce_loop.h"
#include "torch_sum.h"

namespace ember::cpu {

namespace {

// Sums and products of integers accumulate in int64 and wrap like PyTorch's (two's complement);
// going through uint64 keeps the wrap defined behaviour.
template <class T>
using sum_acc_t =
    std::conditional_t<std::is_same_v<T, bool>, bool,
                       std::conditional_t<std::is_integral_v<T>, int64_t, opmath_t<T>>>;

template <class A>
A acc_add(A a, A b) {
  if constexpr (std::is_same_v<A, bool>) return a || b;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class A>
A acc_mul(A a, A b) {
  if constexpr (std::is_same_v<A, bool>) return a && b;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}

template <class M>
bool is_nan(M v) {
  if constexpr (std::is_floating_point_v<M>) return v != v;
  else return false;
}

template <class T>
const T* first_element(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}

template <class T>
struct SumOp {
  using in_t = T;
  using acc_t = sum_acc_t<T>;
  T* out;
  acc_t identity() const { return acc_t(0); }
  acc_t step(acc_t a, T x, int64_t) const { return acc_add(a, static_cast<acc_t>(x)); }
  acc_t merge(acc_t a, acc_t b) const { return acc_add(a, b); }
  void write(int64_t o, acc_t a) const { out[o] = static_cast<T>(a); }
};

template <class T>
struct MeanOp : SumOp<T> {
  using acc_t = typename SumOp<T>::acc_t;
  opmath_t<T> count;
  void write(int64_t o, acc_t a) const {
    // Rounded to T first: PyTorch computes mean as sum (in T) divided by the count.
    this->out[o] = static_cast<T>(static_cast<opmath_t<T>>(static_cast<T>(a)) / count);
  }
};

template <class T>
struct ProdOp {
  using in_t = T;
  using acc_t = sum_acc_t<T>;
  T* out;
  acc_t identity() const { return acc_t(1); }
  acc_t step(acc_t a, T x, int64_t) const { return acc_mul(a, static_cast<acc_t>(x)); }
  acc_t merge(acc_t a, acc_t b) const { return acc_mul(a, b); }
  void write(int64_t o, acc_t a) const { out[o] = static_cast<T>(a); }
};

// NaN-propagating max / min of an accumulator `a` and a new value `b`: a NaN `a` survives the
// comparison (false) by itself; a NaN `b` is taken by the outer select. Written as nested
// selects because GCC vectorizes this form (|| or isunordered make it branch per element).
template <bool IsMax, class M>
M extremum(M a, M b) {
  const M m = (IsMax ? b > a : b < a) ? b : a;
  if constexpr (std::is_floating_point_v<M>) return b != b ? b : m;
  else return m;
}

// amax / amin: NaN wins.
template <class T, bool IsMax>
struct ExtremumOp {
  using in_t = T;
  using acc_t = opmath_t<T>;
  T* out;
  acc_t identity() const {
    if constexpr (std::is_same_v<T, bool>) return !IsMax;
    else if constexpr (std::is_floating_point_v<acc_t>)
      return IsMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else return IsMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  acc_t merge(acc_t a, acc_t b) const {
    if constexpr (std::is_same_v<T, bool>) return IsMax ? (a || b) : (a && b);
    else return extremum<IsMax>(a, b);
  }
  acc_t step(acc_t a, T x, int64_t) const { return merge(a, static_cast<acc_t>(x)); }
  void write(int64_t o, acc_t a) const { out[o] = static_cast<T>(a); }
};

// max.dim / argmax: the best value with its index. merge picks by value, NaN first, then the
// lower index, so the result does not depend on the order partial results meet.
template <class M>
struct ValueIndex {
  M v;
  int64_t i;  // -1: nothing seen yet
};
template <class T, bool IsMax>
struct ArgExtremumOp {
  using in_t = T;
  using acc_t = ValueIndex<opmath_t<T>>;
  T* values;  // may be null (argmax)
  int64_t* indices;
  acc_t identity() const { return {opmath_t<T>(0), -1}; }
  acc_t merge(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    if (IsMax ? a.v > b.v : a.v < b.v) return a;
    if (IsMax ? b.v > a.v : b.v < a.v) return b;
    return a.i < b.i ? a : b;
  }
  // Positions reach a lane in increasing order, so ties keep `a`; written without branches.
  acc_t step(acc_t a, T x, int64_t idx) const {
    const opmath_t<T> v = static_cast<opmath_t<T>>(x);
    const bool take = (a.i < 0) | (IsMax ? v > a.v : v < a.v) | (is_nan(v) & !is_nan(a.v));
    return {take ? v : a.v, take ? idx : a.i};
  }
  void write(int64_t o, acc_t a) const {
    if (values) values[o] = static_cast<T>(a.v);
    indices[o] = a.i;
  }
};

template <class T, class Out, bool IsAll>
struct LogicalOp {
  using in_t = T;
  using acc_t = bool;
  Out* out;
  bool identity() const { return IsAll; }
  bool step(bool a, T x, int64_t) const {
    const bool nz = static_cast<opmath_t<T>>(x) != opmath_t<T>(0);
    return IsAll ? (a & nz) : (a | nz);  // & and | rather than && and ||: no branches
  }
  bool merge(bool a, bool b) const { return IsAll ? (a & b) : (a | b); }
  void write(int64_t o, bool a) const { out[o] = static_cast<Out>(a); }
};

enum class NormKind { Two, One, Inf, NegInf, Zero, General };

// Norms accumulate in opmath (float for float32, as PyTorch's CPU norm): |x|^2 of 1e30 overflows
// there too.
template <class T, NormKind K>
struct NormOp {
  using in_t = T;
  using acc_t = opmath_t<T>;
  T* out;
  acc_t p;
  acc_t identity() const {
    return K == NormKind::NegInf ? std::numeric_limits<acc_t>::infinity() : acc_t(0);
  }
  acc_t merge(acc_t a, acc_t b) const {
    if constexpr (K == NormKind::Inf) return extremum<true>(a, b);
    else if constexpr (K == NormKind::NegInf) return extremum<false>(a, b);
    else return a + b;
  }
  acc_t step(acc_t a, T x, int64_t) const {
    const acc_t ax = std::abs(static_cast<acc_t>(x));
    if constexpr (K == NormKind::Two) return a + ax * ax;
    else if constexpr (K == NormKind::One) return a + ax;
    else if constexpr (K == NormKind::Zero) return a + (ax != acc_t(0) ? acc_t(1) : acc_t(0));
    else if constexpr (K == NormKind::General) return a + std::pow(ax, p);
    else return merge(a, ax);
  }
  void write(int64_t o, acc_t a) const {
    if constexpr (K == NormKind::Two) out[o] = static_cast<T>(std::sqrt(a));
    else if constexpr (K == NormKind::General) out[o] = static_cast<T>(std::pow(a, acc_t(1) / p));
    else out[o] = static_cast<T>(a);
  }
};

constexpr int64_t kReciprocals = 128;
constexpr std::array<double, kReciprocals> kReciprocalTable = [] {
  std::array<double, kReciprocals> t{};
  for (int64_t i = 1; i < kReciprocals; ++i) t[static_cast<size_t>(i)] = 1.0 / static_cast<double>(i);
  return t;
}();

// Welford's running mean and sum of squared deviations, in double (as PyTorch's WelfordOps);
// partial results combine with Chan et al.'s formula.
struct WelfordAcc {
  double mean, m2;
  int64_t n;
};
template <class T>
struct VarOp {
  using in_t = T;
  using acc_t = WelfordAcc;
  T* out;
  double correction;
  bool take_sqrt;
  WelfordAcc identity() const { return {0.0, 0.0, 0}; }
  WelfordAcc step(WelfordAcc a, T x, int64_t) const {
    const double v = static_cast<double>(static_cast<opmath_t<T>>(x));
    const int64_t n = a.n + 1;
    const double d = v - a.mean;
    // The reduction loop restarts accumulators at every leaf, so n stays small here and a
    // table of 1/n replaces the division that would bound the loop's speed.
    const double inv = n < kReciprocals ? kReciprocalTable[static_cast<size_t>(n)] : 1.0 / static_cast<double>(n);
    const double mean = a.mean + d * inv;
    return {mean, a.m2 + d * (v - mean), n};
  }
  WelfordAcc merge(WelfordAcc a, WelfordAcc b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const double delta = b.mean - a.mean, nb_over_n = static_cast<double>(b.n) / static_cast<double>(n);
    return {a.mean + delta * nb_over_n,
            a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb_over_n, n};
  }
  void write(int64_t o, WelfordAcc a) const {
    // A divisor of 0 (correction >= n) gives inf, or nan when m2 is 0 too, as in PyTorch.
    const double divisor = std::max(0.0, static_cast<double>(a.n) - correction);
    const double v = a.m2 / divisor;
    out[o] = static_cast<T>(take_sqrt ? std::sqrt(v) : v);
  }
};

template <template <class> class OpT>
void run_simple(const Tensor& out, const Tensor& in, IntArrayRef dims, const char* name) {
  EMBER_ASSERT(out.dtype() == in.dtype() && out.is_contiguous());
  ReduceGeometry g(in, dims);
  visit_dtype(in.dtype(), [&]<class T>() {
    run_reduce(g, first_element<T>(in), OpT<T>{out.data_ptr<T>()});
  }, name);
}

// sum and prod: the same over complex types too (the others have no order on them).
template <template <class> class OpT>
void run_simple_and_complex(const Tensor& out, const Tensor& in, IntArrayRef dims, const char* name) {
  EMBER_ASSERT(out.dtype() == in.dtype() && out.is_contiguous());
  ReduceGeometry g(in, dims);
  visit_dtype_and_complex(in.dtype(), [&]<class T>() {
    run_reduce(g, first_element<T>(in), OpT<T>{out.data_ptr<T>()});
  }, name);
}

template <class T>
using AmaxOp = ExtremumOp<T, true>;
template <class T>
using AminOp = ExtremumOp<T, false>;

template <bool IsMax>
void arg_extremum(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                  const char* name) {
  ReduceGeometry g(in, in.dim() == 0 ? IntArrayRef() : IntArrayRef(dim));
  visit_dtype(in.dtype(), [&]<class T>() {
    T* v = values.defined() ? values.data_ptr<T>() : nullptr;
    run_reduce(g, first_element<T>(in), ArgExtremumOp<T, IsMax>{v, indices.data_ptr<int64_t>()});
  }, name);
}

template <bool IsAll>
void logical_reduce(const Tensor& out, const Tensor& in, IntArrayRef dims, const char* name) {
  ReduceGeometry g(in, dims);
  visit_dtype(in.dtype(), [&]<class T>() {
    if (out.dtype() == kUInt8) {
      run_reduce(g, first_element<T>(in), LogicalOp<T, uint8_t, IsAll>{out.data_ptr<uint8_t>()});
    } else {
      run_reduce(g, first_element<T>(in), LogicalOp<T, bool, IsAll>{out.data_ptr<bool>()});
    }
  }, name);
}

}  // namespace

namespace {

// float32 sum / mean whose every output reduces one contiguous run: PyTorch's order (Note
// [torch's float sum]), output by output as torch's serial loop takes them. A single long run
// that ember splits into chunks (run_reduce) keeps ember's thread-independent order; torch
// splits such a run by its own thread count.
bool torch_order_float_sum(const Tensor& out, const Tensor& in, const ReduceGeometry& g,
                           bool mean) {
  if (in.dtype() != kFloat32 || out.dtype() != kFloat32 || g.vertical || g.red.ndim() != 1 ||
      g.inner_stride != 1 || g.n_out == 0 || g.n_red == 0 ||
      (g.n_out < detail::kFewGroups && g.n_red >= 2 * detail::kChunk)) {
    return false;
  }
  const float* src = first_element<float>(in);
  float* dst = out.data_ptr<float>();
  const int64_t n = g.n_red;
  const auto count = static_cast<float>(n);
  const int64_t grain = std::max<int64_t>(1, detail::kGrainElems / n);
  parallel_for(0, g.n_out, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const float s = torch_order::float_sum(src + g.kept_in.offset(o), n);
      dst[o] = mean ? s / count : s;
    }
  });
  return true;
}

}  // namespace

void sum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  if (torch_order_float_sum(out, in, ReduceGeometry(in, dims), false)) return;
  run_simple_and_complex<SumOp>(out, in, dims, "sum");
}

void mean_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  EMBER_ASSERT(out.dtype() == in.dtype() && (is_floating(in.dtype()) || is_complex(in.dtype())));
  ReduceGeometry g(in, dims);
  if (torch_order_float_sum(out, in, g, true)) return;
  visit_dtype_and_complex(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>> || is_complex_v<T>) {
      MeanOp<T> op;
      op.out = out.data_ptr<T>();
      op.count = static_cast<opmath_t<T>>(g.n_red);
      run_reduce(g, first_element<T>(in), op);
    }
  }, "mean");
}

void prod_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  run_simple_and_complex<ProdOp>(out, in, dims, "prod");
}
void amax_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  run_simple<AmaxOp>(out, in, dims, "amax");
}
void amin_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  run_simple<AminOp>(out, in, dims, "amin");
}

void max_dim_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  arg_extremum<true>(values, indices, in, dim, "max");
}
void min_dim_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  arg_extremum<false>(values, indices, in, dim, "min");
}

void all_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  logical_reduce<true>(out, in, dims, "all");
}
void any_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims) {
  logical_reduce<false>(out, in, dims, "any");
}

void norm_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, double p) {
  EMBER_ASSERT(out.dtype() == in.dtype() && is_floating(in.dtype()));
  ReduceGeometry g(in, dims);
  visit_dtype(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      using M = opmath_t<T>;
      const T* src = first_element<T>(in);
      T* dst = out.data_ptr<T>();
      const M pm = static_cast<M>(p);
      if (p == 2) run_reduce(g, src, NormOp<T, NormKind::Two>{dst, pm});
      else if (p == 1) run_reduce(g, src, NormOp<T, NormKind::One>{dst, pm});
      else if (p == 0) run_reduce(g, src, NormOp<T, NormKind::Zero>{dst, pm});
      else if (std::isinf(p) && p > 0) run_reduce(g, src, NormOp<T, NormKind::Inf>{dst, pm});
      else if (std::isinf(p)) run_reduce(g, src, NormOp<T, NormKind::NegInf>{dst, pm});
      else run_reduce(g, src, NormOp<T, NormKind::General>{dst, pm});
    }
  }, "norm");
}

void var_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, double correction,
                bool take_sqrt) {
  EMBER_ASSERT(out.dtype() == in.dtype() && is_floating(in.dtype()));
  ReduceGeometry g(in, dims);
  visit_dtype(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      run_reduce(g, first_element<T>(in), VarOp<T>{out.data_ptr<T>(), correction, take_sqrt});
    }
  }, take_sqrt ? "std" : "var");
}

void cumsum_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  EMBER_ASSERT(out.dtype() == in.dtype() && out.is_contiguous() && out.numel() == in.numel());
  if (in.numel() == 0) return;
  if (is_complex(in.dtype())) return cumsum_complex_kernel(out, in, dim);
  // Lines along `dim`: outer dims before it, inner dims after it. A tile of neighbouring inner
  // positions walks down the dim together, so a row-major cumsum over dim 0 reads rows.
  DimVector sizes = in.dim() == 0 ? DimVector{1} : in.sizes().vec();
  DimVector strides = in.dim() == 0 ? DimVector{1} : in.strides().vec();
  const size_t d = static_cast<size_t>(dim);
  const int64_t len = sizes[d], step = strides[d];
  StridedIndexer outer(IntArrayRef(sizes.data(), d), IntArrayRef(strides.data(), d));
  StridedIndexer inner(IntArrayRef(sizes.data() + d + 1, sizes.size() - d - 1),
                       IntArrayRef(strides.data() + d + 1, strides.size() - d - 1));
  const int64_t n_inner = inner.numel();
  constexpr int64_t kTile = 256;
  const int64_t tiles = (n_inner + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, 32768 / (len * std::min(n_inner, kTile)));
  visit_dtype(in.dtype(), [&]<class T>() {
    // PyTorch's CPU cumsum accumulates floats in double (acc_type), 16-bit floats in float.
    using Acc = std::conditional_t<std::is_same_v<T, float>, double, sum_acc_t<T>>;
    const T* src = first_element<T>(in);
    T* dst = out.data_ptr<T>();
    parallel_for(0, outer.numel() * tiles, grain, [&](int64_t begin, int64_t end) {
      Acc acc[kTile];
      int64_t offs[kTile];
      for (int64_t item = begin; item < end; ++item) {
        const int64_t o = item / tiles, t0 = (item % tiles) * kTile;
        const int64_t lanes = std::min(kTile, n_inner - t0);
        StridedIndexer::Cursor c(inner, t0);
        for (int64_t j = 0; j < lanes; ++j, c.next()) {
          offs[j] = c.offset();
          acc[j] = Acc(0);
        }
        const T* p = src + outer.offset(o);
        T* q = dst + o * len * n_inner + t0;
        if (n_inner == 1) {  // one line: a plain running sum
          Acc a = Acc(0);
          for (int64_t k = 0; k < len; ++k) {
            a = acc_add(a, static_cast<Acc>(p[k * step]));
            q[k] = static_cast<T>(a);
          }
          continue;
        }
        for (int64_t k = 0; k < len; ++k, p += step, q += n_inner) {
          for (int64_t j = 0; j < lanes; ++j) {
            acc[j] = acc_add(acc[j], static_cast<Acc>(p[offs[j]]));
            q[j] = static_cast<T>(acc[j]);
          }
        }
      }
    });
  }, "cumsum");
}

}  // namespace ember::cpu
