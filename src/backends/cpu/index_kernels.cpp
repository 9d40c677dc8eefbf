#include "index_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "loop.h"

namespace ember::cpu {

// Note [Scatter / gather loop]
// gather, scatter, scatter_add and the general index_select run one loop over index's positions
// with `dim` taken out: each remaining position is a *line* along dim. ElementwiseLoop spreads
// lines over threads; within a line, k walks index.size(dim) steps and index[k] picks the element
// along dim of the indexed operand (self, read by gather, written by scatter) while the other
// operand is walked at k. Two lines differ in a coordinate other than dim, so they touch different
// elements of the written tensor (which has no internal overlap): threads never race. Within a
// line k ascends, so duplicates resolve exactly as in the sequential row-major *_ref: the last
// write wins and sums are added in order. The result is deterministic for any thread count.

namespace {

// A view with the given geometry, made without the dispatcher (kernels only move data).
Tensor restrided(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides, offset));
}
Tensor restrided(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  return restrided(t, sizes, strides, t.storage_offset());
}

DimVector without_dim(IntArrayRef v, int64_t dim) {
  DimVector out = v.vec();
  out.erase(out.begin() + dim);
  return out;
}

template <class F>
decltype(auto) visit_index_dtype(ScalarType t, F&& f) {
  if (t == kInt32) return f.template operator()<int32_t>();
  EMBER_ASSERT(t == kInt64, "index kernels take int32 or int64 indices, got ", dtype_name(t));
  return f.template operator()<int64_t>();
}

// Calls fn(m) for every multi-index m of `sizes` in row-major order.
template <class F>
void for_each_index(IntArrayRef sizes, F&& fn) {
  const int64_t n = compute_numel(sizes);
  std::vector<int64_t> m(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(m.data());
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++m[d] < sizes[d]) break;
      m[d] = 0;
    }
  }
}

int64_t dot(const int64_t* m, IntArrayRef strides) {
  int64_t off = 0;
  for (size_t d = 0; d < strides.size(); ++d) off += m[d] * strides[d];
  return off;
}

template <class T>
inline T add_elem(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    // 16-bit floats round after every addition, as PyTorch's `*self += *src` does.
    return static_cast<T>(static_cast<opmath_t<T>>(a) + static_cast<opmath_t<T>>(b));
  }
}

// The loop of Note [Scatter / gather loop]. dst and src are viewed with index's sizes (their own
// strides); `index_dst` says which of them index[k] addresses along dim (scatter: dst; gather:
// src). op(dst_element, src_element) does the work.
template <class T, class I, class Op>
void line_loop(const Tensor& dst, const Tensor& src, const Tensor& index, int64_t dim,
               bool index_dst, Op op) {
  if (index.numel() == 0) return;
  const DimVector line_sizes = without_dim(index.sizes(), dim);
  Tensor dst_lines = restrided(dst, line_sizes, without_dim(dst.strides(), dim));
  Tensor src_lines = restrided(src, line_sizes, without_dim(src.strides(), dim));
  Tensor idx_lines = restrided(index, line_sizes, without_dim(index.strides(), dim));
  const int64_t len = index.size(dim);
  const int64_t dst_step = dst.stride(dim) * static_cast<int64_t>(sizeof(T));
  const int64_t src_step = src.stride(dim) * static_cast<int64_t>(sizeof(T));
  const int64_t idx_step = index.stride(dim) * static_cast<int64_t>(sizeof(I));
  // The operand walked at k (not addressed by index): its strides pick the loop order.
  const int64_t walk_step = std::abs(index_dst ? src_step : dst_step);

  auto run = [&](char** p, const int64_t* s, int64_t n) {
    auto element = [&](int64_t i, int64_t k) {
      char* d = p[0] + i * s[0];
      const char* sp = p[1] + i * s[1];
      const int64_t ix = *reinterpret_cast<const I*>(p[2] + i * s[2] + k * idx_step);
      if (index_dst) {
        op(*reinterpret_cast<T*>(d + ix * dst_step), *reinterpret_cast<const T*>(sp + k * src_step));
      } else {
        op(*reinterpret_cast<T*>(d + k * dst_step), *reinterpret_cast<const T*>(sp + ix * src_step));
      }
    };
    // The walked operand's smaller stride goes innermost (memory order); either order visits a
    // line's k in ascending order.
    const int64_t walk_line = std::abs(index_dst ? s[1] : s[0]);
    const bool k_inner = walk_step != walk_line ? walk_step < walk_line : n < len;
    if (k_inner) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < len; ++k) element(i, k);
    } else {
      for (int64_t k = 0; k < len; ++k)
        for (int64_t i = 0; i < n; ++i) element(i, k);
    }
  };

  if (line_sizes.empty()) {  // one line
    ElementwiseLoop({dst_lines, src_lines, idx_lines}).for_each_run(run);
    return;
  }
  // Each line does `len` steps, so ElementwiseLoop's per-element grain would under-split: split
  // the lines along their longest dim here, with about kGrain steps per task at least.
  const auto split = static_cast<int64_t>(
      std::max_element(line_sizes.begin(), line_sizes.end()) - line_sizes.begin());
  const int64_t steps_per_slice = compute_numel(line_sizes) / line_sizes[split] * len;
  const int64_t grain = std::max<int64_t>(1, ElementwiseLoop::kGrain / steps_per_slice);
  parallel_for(0, line_sizes[split], grain, [&](int64_t b, int64_t e) {
    auto part = [&](const Tensor& t) {
      DimVector sizes = t.sizes().vec();
      sizes[split] = e - b;
      return restrided(t, sizes, t.strides(), t.storage_offset() + b * t.stride(split));
    };
    ElementwiseLoop({part(dst_lines), part(src_lines), part(idx_lines)}).for_each_run(run);
  });
}

void gather_lines(const Tensor& out, const Tensor& self_as_index, int64_t dim, const Tensor& index) {
  // A pure copy of elements: complex too (index_select, gather, flip, roll).
  visit_dtype_and_complex(out.dtype(), [&]<class T>() {
    visit_index_dtype(index.dtype(), [&]<class I>() {
      line_loop<T, I>(out, self_as_index, index, dim, /*index_dst=*/false,
                      [](T& d, const T& s) { d = s; });
    });
  }, "gather");
}

}  // namespace

std::optional<int64_t> find_out_of_range(const Tensor& index, int64_t size) {
  return visit_index_dtype(index.dtype(), [&]<class I>() -> std::optional<int64_t> {
    const I* p = static_cast<const I*>(index.data_ptr());
    const auto bad = [size](I v) { return v < 0 || static_cast<int64_t>(v) >= size; };
    if (index.is_contiguous()) {
      // A branch-free scan first (it vectorizes); the ordered search only runs on failure.
      const int64_t n = index.numel();
      bool any = false;
      for (int64_t i = 0; i < n; ++i) any |= bad(p[i]);
      if (!any) return std::nullopt;
      return static_cast<int64_t>(*std::find_if(p, p + n, bad));
    }
    std::optional<int64_t> first;
    for_each_index(index.sizes(), [&](const int64_t* m) {
      I v = p[dot(m, index.strides())];
      if (!first && bad(v)) first = static_cast<int64_t>(v);
    });
    return first;
  });
}

void index_select_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  if (self.is_contiguous() && out.is_contiguous() && inner >= 8) {
    // Rows of `inner` contiguous elements (embedding lookups, row selection): one memcpy each,
    // split over (outer, k) pairs. Each pair writes its own output row.
    const int64_t n = index.numel(), rows = self.size(dim);
    const size_t row_bytes = static_cast<size_t>(inner) * out.element_size();
    const char* src = static_cast<const char*>(self.data_ptr());
    char* dst = static_cast<char*>(out.data_ptr());
    visit_index_dtype(index.dtype(), [&]<class I>() {
      const I* idx = static_cast<const I*>(index.data_ptr());
      const int64_t istride = index.stride(0);
      parallel_for(0, outer * n, std::max<int64_t>(1, 32768 / inner), [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) {
          const int64_t o = j / n, k = j % n;
          const int64_t row = o * rows + static_cast<int64_t>(idx[k * istride]);
          std::memcpy(dst + j * row_bytes, src + row * row_bytes, row_bytes);
        }
      });
    });
    return;
  }
  // General layouts: gather with the 1-D index broadcast over out's other dims.
  DimVector index_strides(static_cast<size_t>(out.dim()), 0);
  index_strides[dim] = index.stride(0);
  gather_lines(out, restrided(self, out.sizes(), self.strides()), dim,
               restrided(index, out.sizes(), index_strides));
}

void index_select_kernel_ref(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  visit_dtype_and_complex(out.dtype(), [&]<class T>() {
    visit_index_dtype(index.dtype(), [&]<class I>() {
      const I* idx = static_cast<const I*>(index.data_ptr());
      const T* s = static_cast<const T*>(self.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      for_each_index(out.sizes(), [&](const int64_t* m) {
        int64_t soff = dot(m, self.strides()) - m[dim] * self.stride(dim) +
                       static_cast<int64_t>(idx[m[dim] * index.stride(0)]) * self.stride(dim);
        o[dot(m, out.strides())] = s[soff];
      });
    });
  }, "index_select");
}

void gather_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  gather_lines(out, restrided(self, index.sizes(), self.strides()), dim, index);
}

void gather_kernel_ref(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  visit_dtype_and_complex(out.dtype(), [&]<class T>() {
    visit_index_dtype(index.dtype(), [&]<class I>() {
      const I* idx = static_cast<const I*>(index.data_ptr());
      const T* s = static_cast<const T*>(self.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      for_each_index(index.sizes(), [&](const int64_t* m) {
        int64_t ix = idx[dot(m, index.strides())];
        int64_t soff = dot(m, self.strides()) + (ix - m[dim]) * self.stride(dim);
        o[dot(m, out.strides())] = s[soff];
      });
    });
  }, "gather");
}

void scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    ScatterMode mode) {
  Tensor self_as_index = restrided(self, index.sizes(), self.strides());
  Tensor src_as_index = restrided(src, index.sizes(), src.strides());
  visit_dtype(self.dtype(), [&]<class T>() {
    visit_index_dtype(index.dtype(), [&]<class I>() {
      if (mode == ScatterMode::Assign) {
        line_loop<T, I>(self_as_index, src_as_index, index, dim, /*index_dst=*/true,
                        [](T& d, const T& s) { d = s; });
      } else {
        line_loop<T, I>(self_as_index, src_as_index, index, dim, /*index_dst=*/true,
                        [](T& d, const T& s) { d = add_elem(d, s); });
      }
    });
  }, mode == ScatterMode::Assign ? "scatter" : "scatter_add");
}

void scatter_kernel_ref(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        ScatterMode mode) {
  visit_dtype(self.dtype(), [&]<class T>() {
    visit_index_dtype(index.dtype(), [&]<class I>() {
      const I* idx = static_cast<const I*>(index.data_ptr());
      const T* s = static_cast<const T*>(src.data_ptr());
      T* d = static_cast<T*>(self.data_ptr());
      for_each_index(index.sizes(), [&](const int64_t* m) {
        int64_t ix = idx[dot(m, index.strides())];
        T& target = d[dot(m, self.strides()) + (ix - m[dim]) * self.stride(dim)];
        const T& value = s[dot(m, src.strides())];
        target = mode == ScatterMode::Assign ? value : add_elem(target, value);
      });
    });
  }, "scatter");
}

}  // namespace ember::cpu
