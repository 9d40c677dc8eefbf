// Scalar references for the reduction kernels (tests only): one output at a time, the block
// walked in logical row-major order over the input converted to float64, long double sums.
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "reduce_kernels.h"

namespace ember::cpu {

namespace {

// For every output (kept dims, row-major), the logical elements of its block, in order.
struct RefBlocks {
  DimVector kept_shape;
  std::vector<std::vector<double>> blocks;
};

RefBlocks gather_blocks(const Tensor& in, IntArrayRef dims) {
  Tensor c = in.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  const int64_t nd = in.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  RefBlocks r;
  int64_t n_out = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      r.kept_shape.push_back(in.size(d));
      n_out *= in.size(d);
    }
  }
  r.blocks.resize(static_cast<size_t>(n_out));
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t lin = 0; lin < in.numel(); ++lin) {
    int64_t rem = lin, o = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = rem % in.size(d);
      rem /= in.size(d);
    }
    for (int64_t d = 0; d < nd; ++d) {
      if (!reduced[static_cast<size_t>(d)]) o = o * in.size(d) + idx[static_cast<size_t>(d)];
    }
    r.blocks[static_cast<size_t>(o)].push_back(p[lin]);
  }
  return r;
}

Tensor result(const RefBlocks& b, const std::vector<double>& values) {
  Tensor out = empty(b.kept_shape, kFloat64);
  double* q = out.data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) q[i] = values[i];
  return out;
}

double extremum(const std::vector<double>& v, bool is_max, bool want_index) {
  size_t best = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[best])) break;
    if (std::isnan(v[i]) || (is_max ? v[i] > v[best] : v[i] < v[best])) best = i;
  }
  return want_index ? static_cast<double>(best) : v[best];
}

}  // namespace

Tensor reduce_ref(const Tensor& in, IntArrayRef dims, RefReduction kind) {
  RefBlocks b = gather_blocks(in, dims);
  std::vector<double> out;
  for (const auto& v : b.blocks) {
    long double acc = 0;
    switch (kind) {
      case RefReduction::Sum:
        for (double x : v) acc += x;
        out.push_back(static_cast<double>(acc));
        break;
      case RefReduction::Prod:
        acc = 1;
        for (double x : v) acc *= x;
        out.push_back(static_cast<double>(acc));
        break;
      case RefReduction::Max:
      case RefReduction::Min:
      case RefReduction::ArgMax:
      case RefReduction::ArgMin:
        EMBER_CHECK(!v.empty(), "reduce_ref: empty block");
        out.push_back(extremum(v, kind == RefReduction::Max || kind == RefReduction::ArgMax,
                               kind == RefReduction::ArgMax || kind == RefReduction::ArgMin));
        break;
      case RefReduction::All:
      case RefReduction::Any: {
        bool all = true, any = false;
        for (double x : v) {
          all = all && x != 0;
          any = any || x != 0;
        }
        out.push_back(kind == RefReduction::All ? all : any);
        break;
      }
    }
  }
  return result(b, out);
}

Tensor norm_ref(const Tensor& in, IntArrayRef dims, double p) {
  RefBlocks b = gather_blocks(in, dims);
  std::vector<double> out;
  for (const auto& v : b.blocks) {
    if (in.numel() == 0) {
      out.push_back(0);
      continue;
    }
    long double acc = std::isinf(p) && p < 0 ? std::numeric_limits<long double>::infinity() : 0;
    bool nan = false;
    for (double x : v) {
      long double ax = std::fabs(static_cast<long double>(x));
      nan = nan || std::isnan(x);
      if (std::isinf(p)) acc = p > 0 ? std::max(acc, ax) : std::min(acc, ax);
      else if (p == 0) acc += ax != 0;
      else acc += std::pow(ax, static_cast<long double>(p));
    }
    if (std::isinf(p) && nan) acc = std::numeric_limits<long double>::quiet_NaN();
    if (!std::isinf(p) && p != 0) acc = std::pow(acc, 1 / static_cast<long double>(p));
    out.push_back(static_cast<double>(acc));
  }
  return result(b, out);
}

Tensor var_ref(const Tensor& in, IntArrayRef dims, double correction) {
  RefBlocks b = gather_blocks(in, dims);
  std::vector<double> out;
  for (const auto& v : b.blocks) {
    long double mean = 0, m2 = 0;
    for (double x : v) mean += x;
    mean /= static_cast<long double>(v.size());
    for (double x : v) m2 += (x - mean) * (x - mean);
    long double divisor = std::max(0.0L, static_cast<long double>(v.size()) - correction);
    out.push_back(static_cast<double>(m2 / divisor));
  }
  return result(b, out);
}

Tensor cumsum_ref(const Tensor& in, int64_t dim) {
  Tensor c = in.to(kFloat64).contiguous();
  Tensor out = empty(in.sizes(), kFloat64);
  const double* p = c.data_ptr<double>();
  double* q = out.data_ptr<double>();
  const int64_t len = in.dim() == 0 ? 1 : in.size(dim);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  const int64_t outer = len == 0 ? 0 : in.numel() / (len * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      long double acc = 0;
      for (int64_t k = 0; k < len; ++k) {
        const int64_t at = (o * len + k) * inner + i;
        acc += p[at];
        q[at] = static_cast<double>(acc);
      }
    }
  }
  return out;
}

}  // namespace ember::cpu
