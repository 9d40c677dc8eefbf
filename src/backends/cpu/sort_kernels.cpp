#include "sort_kernels.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "reduce_loop.h"

namespace ember::cpu {

namespace {

template <class M>
struct Keyed {
  M v;
  int64_t i;
};

// A strict total order: by value (NaN largest), then by index, so std::sort gives exactly the
// stable result and the same one on every run.
template <class M, bool Descending>
struct Before {
  bool operator()(const Keyed<M>& a, const Keyed<M>& b) const {
    if constexpr (std::is_floating_point_v<M>) {
      const bool an = a.v != a.v, bn = b.v != b.v;
      if (an || bn) {
        if (an && bn) return a.i < b.i;
        return Descending ? an : bn;
      }
    }
    if (Descending ? a.v > b.v : a.v < b.v) return true;
    if (Descending ? b.v > a.v : b.v < a.v) return false;
    return a.i < b.i;
  }
};

// The first k of every line along `dim` in `Before` order, written to values / indices.
template <class T, bool Descending>
void select_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                  int64_t dim) {
  using M = opmath_t<T>;
  DimVector sizes = in.dim() == 0 ? DimVector{1} : in.sizes().vec();
  DimVector strides = in.dim() == 0 ? DimVector{1} : in.strides().vec();
  const size_t d = static_cast<size_t>(dim);
  const int64_t len = sizes[d], step = strides[d];
  int64_t inner = 1;
  for (size_t i = d + 1; i < sizes.size(); ++i) inner *= sizes[i];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  StridedIndexer lines(sizes, strides);
  if (lines.numel() == 0 || k == 0) return;

  const T* src = static_cast<const T*>(in.data_ptr());
  T* vout = values.data_ptr<T>();
  int64_t* iout = indices.data_ptr<int64_t>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(len, 1));
  parallel_for(0, lines.numel(), grain, [&](int64_t begin, int64_t end) {
    std::vector<Keyed<M>> buf(static_cast<size_t>(len));
    for (int64_t l = begin; l < end; ++l) {
      const T* p = src + lines.offset(l);
      for (int64_t j = 0; j < len; ++j) buf[static_cast<size_t>(j)] = {static_cast<M>(p[j * step]), j};
      if (k == len) {
        std::sort(buf.begin(), buf.end(), Before<M, Descending>{});
      } else {
        std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), Before<M, Descending>{});
      }
      const int64_t base = (l / inner) * k * inner + l % inner;
      for (int64_t j = 0; j < k; ++j) {
        vout[base + j * inner] = static_cast<T>(buf[static_cast<size_t>(j)].v);
        iout[base + j * inner] = buf[static_cast<size_t>(j)].i;
      }
    }
  });
}

void select(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, int64_t dim,
            bool descending, const char* name) {
  EMBER_ASSERT(values.dtype() == in.dtype() && values.is_contiguous() && indices.is_contiguous());
  visit_dtype(in.dtype(), [&]<class T>() {
    if (descending) select_lines<T, true>(values, indices, in, k, dim);
    else select_lines<T, false>(values, indices, in, k, dim);
  }, name);
}

}  // namespace

void sort_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                 bool descending) {
  select(values, indices, in, in.dim() == 0 ? 1 : in.size(dim), dim, descending, "sort");
}

void topk_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                 int64_t dim, bool largest) {
  select(values, indices, in, k, dim, largest, "topk");
}

void sort_ref(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
              bool descending) {
  Tensor c = in.to(kFloat64).contiguous();
  const double* x = c.data_ptr<double>();
  double* v = values.data_ptr<double>();
  int64_t* ix = indices.data_ptr<int64_t>();
  const int64_t len = in.dim() == 0 ? 1 : in.size(dim);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.size(d);
  const int64_t outer = len == 0 ? 0 : in.numel() / (len * inner);
  // "a goes after b": NaN is the largest value.
  auto after = [&](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return descending ? (std::isnan(b) && !std::isnan(a)) : (std::isnan(a) && !std::isnan(b));
    return descending ? a < b : a > b;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order;
      for (int64_t k = 0; k < len; ++k) {
        size_t pos = order.size();
        while (pos > 0 && after(x[(o * len + order[pos - 1]) * inner + i], x[(o * len + k) * inner + i])) --pos;
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(pos), k);
      }
      for (int64_t k = 0; k < len; ++k) {
        v[(o * len + k) * inner + i] = x[(o * len + order[static_cast<size_t>(k)]) * inner + i];
        ix[(o * len + k) * inner + i] = order[static_cast<size_t>(k)];
      }
    }
  }
}

}  // namespace ember::cpu
