// CPU kernels of advanced indexing; see Note [Advanced indexing geometry] in the header.
#include "indexing_kernels.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include "convert.h"
#include "ember/ops/factory.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

int64_t product(IntArrayRef sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

int64_t checked_index(int64_t v, int64_t size, int64_t j) {
  EMBER_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", j,
                    " with size ", size);
  return v < 0 ? v + size : v;
}

// The element offsets of the positions of a block of dims (row-major): p * stride when they
// are linear in p (a contiguous or fully broadcast block, the common cases, needs no table),
// otherwise a table.
class BlockOffsets {
 public:
  BlockOffsets(IntArrayRef sizes, IntArrayRef strides) {
    if (auto c = linear_stride(sizes, strides)) {
      stride_ = *c;
      return;
    }
    owned_.resize(static_cast<size_t>(product(sizes)));
    const int64_t nd = static_cast<int64_t>(sizes.size());
    DimVector idx(sizes.size(), 0);
    int64_t off = 0;
    for (auto& o : owned_) {
      o = off;
      for (int64_t d = nd - 1; d >= 0; --d) {
        off += strides[d];
        if (++idx[d] < sizes[d]) break;
        off -= strides[d] * sizes[d];
        idx[d] = 0;
      }
    }
    table_ = owned_.data();
  }
  explicit BlockOffsets(const std::vector<int64_t>& table) : table_(table.data()) {}
  int64_t at(int64_t p) const { return table_ ? table_[p] : p * stride_; }
  const int64_t* table() const { return table_; }
  int64_t stride() const { return stride_; }

 private:
  // offset(p) == p * c for every p, if some c does it.
  static std::optional<int64_t> linear_stride(IntArrayRef sizes, IntArrayRef strides) {
    std::optional<int64_t> c;
    int64_t running = 1;  // product of the sizes right of d
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (sizes[d] == 1) continue;
      if (!c) c = strides[d];  // the sizes right of d are all 1 here
      else if (strides[d] != *c * running) return std::nullopt;
      running *= sizes[d];
    }
    return c.value_or(0);
  }
  const int64_t* table_ = nullptr;
  int64_t stride_ = 0;
  std::vector<int64_t> owned_;
};

// The dims after the indexed block, for both operands: size-1 dims dropped, and neighbours
// that are contiguous with each other in both operands merged, so that the innermost loop is
// as long as possible.
struct PostGeometry {
  DimVector sizes, dst, src;  // innermost last
};

PostGeometry coalesce_post(IntArrayRef sizes, IntArrayRef dst, IntArrayRef src) {
  PostGeometry g;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!g.sizes.empty() && g.dst.back() == dst[d] * sizes[d] && g.src.back() == src[d] * sizes[d]) {
      g.sizes.back() *= sizes[d];
      g.dst.back() = dst[d];
      g.src.back() = src[d];
      continue;
    }
    g.sizes.push_back(sizes[d]);
    g.dst.push_back(dst[d]);
    g.src.push_back(src[d]);
  }
  return g;
}

// One operand of a "pre x B x post" copy, in elements of its dtype.
struct Side {
  char* base;           // address of the element at offset 0
  IntArrayRef pre;      // strides of the dims before the block
  const BlockOffsets* block;
};

// Calls f(a_offset, b_offset) for p in [p0, p1), branching once on how each block is stored
// so that the loop itself is tight (the 1-D gather t[idx] is exactly this loop).
template <class F>
void for_block(const BlockOffsets& a, const BlockOffsets& b, int64_t p0, int64_t p1, const F& f) {
  const int64_t *ta = a.table(), *tb = b.table();
  const int64_t sa = a.stride(), sb = b.stride();
  if (ta && tb) {
    for (int64_t p = p0; p < p1; ++p) f(ta[p], tb[p]);
  } else if (ta) {
    for (int64_t p = p0; p < p1; ++p) f(ta[p], p * sb);
  } else if (tb) {
    for (int64_t p = p0; p < p1; ++p) f(p * sa, tb[p]);
  } else {
    for (int64_t p = p0; p < p1; ++p) f(p * sa, p * sb);
  }
}

// dst[pre, p, post] op= src[pre, p, post] for rows r = o * nb + p in [r0, r1), o the row-major
// position over the pre dims, p over B. Rows are visited in order.
template <class T, class Op>
void run_rows(int64_t r0, int64_t r1, int64_t nb, IntArrayRef pre_sizes, const PostGeometry& post,
              const Side& dst, const Side& src, const Op& op) {
  if (r0 >= r1) return;
  T* dbase = reinterpret_cast<T*>(dst.base);
  const T* sbase = reinterpret_cast<const T*>(src.base);
  const int64_t pnd = static_cast<int64_t>(post.sizes.size());
  const int64_t n = pnd ? post.sizes[pnd - 1] : 1;
  const int64_t ds = pnd ? post.dst[pnd - 1] : 0, ss = pnd ? post.src[pnd - 1] : 0;
  const int64_t outer_post = pnd > 1 ? product(IntArrayRef(post.sizes).slice(0, pnd - 1)) : 1;
  DimVector idx(static_cast<size_t>(std::max<int64_t>(pnd - 1, 0)), 0);
  // One row's post elements, from dp / sp.
  auto copy_post = [&](T* dp, const T* sp) {
    int64_t doff = 0, soff = 0;
    for (int64_t q = 0; q < outer_post; ++q) {
      if (ds == 1 && ss == 1) {
        for (int64_t i = 0; i < n; ++i) op(dp[doff + i], sp[soff + i]);
      } else {
        for (int64_t i = 0; i < n; ++i) op(dp[doff + i * ds], sp[soff + i * ss]);
      }
      for (int64_t d = pnd - 2; d >= 0; --d) {  // odometer over the outer post dims
        doff += post.dst[d];
        soff += post.src[d];
        if (++idx[d] < post.sizes[d]) break;
        doff -= post.dst[d] * post.sizes[d];
        soff -= post.src[d] * post.sizes[d];
        idx[d] = 0;
      }
    }
  };
  int64_t o = r0 / nb, p = r0 % nb, r = r0;
  while (r < r1) {
    int64_t dpre = 0, spre = 0;
    for (int64_t d = static_cast<int64_t>(pre_sizes.size()) - 1, rest = o; d >= 0; --d) {
      const int64_t i = rest % pre_sizes[d];
      rest /= pre_sizes[d];
      dpre += i * dst.pre[d];
      spre += i * src.pre[d];
    }
    const int64_t p_end = std::min(nb, p + (r1 - r));
    T* db = dbase + dpre;
    const T* sb = sbase + spre;
    if (pnd == 0) {  // one element per row
      for_block(*dst.block, *src.block, p, p_end, [&](int64_t a, int64_t b) { op(db[a], sb[b]); });
    } else {
      for_block(*dst.block, *src.block, p, p_end, [&](int64_t a, int64_t b) { copy_post(db + a, sb + b); });
    }
    r += p_end - p;
    p = 0;
    ++o;
  }
}

// A 16-byte element (complex128) for plain copies.
struct Bytes16 {
  uint64_t lo, hi;
};

// Calls f.template operator()<U>() with U an unsigned integer (or Bytes16) as wide as one
// element: a plain copy of elements needs no dtype switch, and covers every dtype (quantized
// and complex ones too).
template <class F>
void visit_itemsize(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    case 8: return f.template operator()<uint64_t>();
    case 16: return f.template operator()<Bytes16>();
    default: break;
  }
  EMBER_ASSERT(false, "unexpected element size ", itemsize);
}

// Whether no two elements of t share an address (a sufficient test: sorted by stride, each
// dim's stride exceeds the extent of all the smaller ones).
bool non_overlapping(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;
  for (auto [stride, size] : dims) {
    if (stride <= extent) return false;
    extent += (size - 1) * stride;
  }
  return true;
}

// The element operations, as functor types so that they inline into the loops.
struct Assign {
  template <class T>
  void operator()(T& d, const T& s) const {
    d = s;
  }
};

struct AccumulateAdd {
  template <class T>
  void operator()(T& d, const T& s) const {
    using Acc = opmath_t<T>;
    d = convert<T>(static_cast<Acc>(static_cast<Acc>(d) + static_cast<Acc>(s)));
  }
};

}  // namespace

std::vector<int64_t> index_offsets(const Tensor& src, int64_t begin, ArrayRef<Tensor> indices) {
  EMBER_ASSERT(!indices.empty());
  IntArrayRef shape = indices[0].sizes();
  const int64_t nb = product(shape), nd = static_cast<int64_t>(shape.size());
  const size_t k = indices.size();
  std::vector<int64_t> out(static_cast<size_t>(nb));
  if (nb == 0) return out;
  std::vector<const int64_t*> data(k);
  std::vector<int64_t> pos(k, 0);
  for (size_t j = 0; j < k; ++j) {
    EMBER_ASSERT(indices[j].dtype() == kInt64 && indices[j].sizes().equals(shape));
    data[j] = indices[j].data_ptr<int64_t>();
  }
  if (k == 1 && indices[0].is_contiguous()) {  // t[idx]: one straight pass
    const int64_t size = src.size(begin), stride = src.stride(begin);
    const int64_t* v = data[0];
    for (int64_t p = 0; p < nb; ++p) out[static_cast<size_t>(p)] = checked_index(v[p], size, 0) * stride;
    return out;
  }
  DimVector idx(static_cast<size_t>(nd), 0);
  for (int64_t p = 0; p < nb; ++p) {
    int64_t off = 0;
    for (size_t j = 0; j < k; ++j) {
      const int64_t dim = begin + static_cast<int64_t>(j);
      off += checked_index(data[j][pos[j]], src.size(dim), static_cast<int64_t>(j)) * src.stride(dim);
    }
    out[static_cast<size_t>(p)] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      for (size_t j = 0; j < k; ++j) pos[j] += indices[j].stride(d);
      if (++idx[d] < shape[d]) break;
      for (size_t j = 0; j < k; ++j) pos[j] -= indices[j].stride(d) * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

void index_kernel(const Tensor& out, const Tensor& src, int64_t begin, int64_t k,
                  int64_t index_dims, const std::vector<int64_t>& offsets) {
  if (out.numel() == 0) return;
  const int64_t nb = static_cast<int64_t>(offsets.size());
  const int64_t post_begin = begin + index_dims;
  IntArrayRef pre_sizes = out.sizes().slice(0, static_cast<size_t>(begin));
  BlockOffsets out_block(out.sizes().slice(static_cast<size_t>(begin), static_cast<size_t>(index_dims)),
                         out.strides().slice(static_cast<size_t>(begin), static_cast<size_t>(index_dims)));
  BlockOffsets src_block(offsets);
  Side dst_side{static_cast<char*>(out.data_ptr()), out.strides().slice(0, static_cast<size_t>(begin)), &out_block};
  Side src_side{static_cast<char*>(src.data_ptr()), src.strides().slice(0, static_cast<size_t>(begin)), &src_block};
  PostGeometry post = coalesce_post(out.sizes().slice(static_cast<size_t>(post_begin)),
                                    out.strides().slice(static_cast<size_t>(post_begin)),
                                    src.strides().slice(static_cast<size_t>(begin + k)));
  const int64_t rows = product(pre_sizes) * nb;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(product(post.sizes), 1));
  visit_itemsize(out.element_size(), [&]<class U>() {
    // Each row writes its own elements of out: rows split freely across threads.
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      run_rows<U>(r0, r1, nb, pre_sizes, post, dst_side, src_side, Assign{});
    });
  });
}

void index_put_kernel(const Tensor& self, const Tensor& values, int64_t begin, int64_t k,
                      int64_t index_dims, const std::vector<int64_t>& offsets, bool accumulate) {
  if (values.numel() == 0) return;
  EMBER_ASSERT(values.dtype() == self.dtype());
  const int64_t nb = static_cast<int64_t>(offsets.size());
  const int64_t post_begin = begin + index_dims;
  IntArrayRef pre_sizes = values.sizes().slice(0, static_cast<size_t>(begin));
  BlockOffsets self_block(offsets);
  BlockOffsets values_block(values.sizes().slice(static_cast<size_t>(begin), static_cast<size_t>(index_dims)),
                            values.strides().slice(static_cast<size_t>(begin), static_cast<size_t>(index_dims)));
  Side dst_side{static_cast<char*>(self.data_ptr()), self.strides().slice(0, static_cast<size_t>(begin)), &self_block};
  Side src_side{static_cast<char*>(values.data_ptr()), values.strides().slice(0, static_cast<size_t>(begin)), &values_block};
  PostGeometry post = coalesce_post(values.sizes().slice(static_cast<size_t>(post_begin)),
                                    self.strides().slice(static_cast<size_t>(begin + k)),
                                    values.strides().slice(static_cast<size_t>(post_begin)));
  const int64_t outer = product(pre_sizes);
  // Duplicate indices only repeat positions along B, so rows of different pre positions write
  // disjoint elements when self does not overlap itself: those may run in parallel, while each
  // pre position walks B in order (last write wins; sums are deterministic).
  const bool parallel = outer > 1 && non_overlapping(self);
  auto run = [&]<class T>(const auto& op) {
    if (!parallel) {
      run_rows<T>(0, outer * nb, nb, pre_sizes, post, dst_side, src_side, op);
      return;
    }
    const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(nb * product(post.sizes), 1));
    parallel_for(0, outer, grain, [&](int64_t o0, int64_t o1) {
      run_rows<T>(o0 * nb, o1 * nb, nb, pre_sizes, post, dst_side, src_side, op);
    });
  };
  if (accumulate) {
    visit_dtype(self.dtype(), [&]<class T>() { run.template operator()<T>(AccumulateAdd{}); },
                "index_put_");
  } else {
    visit_itemsize(self.element_size(), [&]<class U>() { run.template operator()<U>(Assign{}); });
  }
}

namespace {

// Walks every multi-index of the indexing result (row-major) and calls
// f(result_index, src_offset) with the element offset in src the definition selects.
template <class F>
void for_each_indexed(IntArrayRef result_sizes, const Tensor& src, int64_t begin,
                      ArrayRef<Tensor> indices, F&& f) {
  const int64_t k = static_cast<int64_t>(indices.size());
  const int64_t bd = indices[0].dim();
  const int64_t nd = static_cast<int64_t>(result_sizes.size());
  const int64_t n = product(result_sizes);
  DimVector m(static_cast<size_t>(nd), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t s = 0;
    for (int64_t d = 0; d < begin; ++d) s += m[d] * src.stride(d);
    for (int64_t j = 0; j < k; ++j) {
      int64_t ioff = 0;
      for (int64_t d = 0; d < bd; ++d) ioff += m[begin + d] * indices[j].stride(d);
      int64_t v = indices[j].data_ptr<int64_t>()[ioff];
      s += checked_index(v, src.size(begin + j), j) * src.stride(begin + j);
    }
    for (int64_t d = begin + bd; d < nd; ++d) s += m[d] * src.stride(d - bd + k);
    f(m, s);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++m[d] < result_sizes[d]) break;
      m[d] = 0;
    }
  }
}

int64_t offset_of(const DimVector& m, const Tensor& t) {
  int64_t off = 0;
  for (size_t d = 0; d < m.size(); ++d) off += m[d] * t.stride(static_cast<int64_t>(d));
  return off;
}

}  // namespace

void index_kernel_ref(const Tensor& out, const Tensor& src, int64_t begin, ArrayRef<Tensor> indices) {
  const size_t item = out.element_size();
  auto* o = static_cast<char*>(out.data_ptr());
  const auto* s = static_cast<const char*>(src.data_ptr());
  for_each_indexed(out.sizes(), src, begin, indices, [&](const DimVector& m, int64_t soff) {
    std::memcpy(o + offset_of(m, out) * static_cast<int64_t>(item), s + soff * static_cast<int64_t>(item), item);
  });
}

void index_put_kernel_ref(const Tensor& self, const Tensor& values, int64_t begin,
                          ArrayRef<Tensor> indices, bool accumulate) {
  visit_dtype(self.dtype(), [&]<class T>() {
    T* dst = static_cast<T*>(self.data_ptr());
    const T* v = static_cast<const T*>(values.data_ptr());
    for_each_indexed(values.sizes(), self, begin, indices, [&](const DimVector& m, int64_t doff) {
      if (accumulate) {
        AccumulateAdd{}(dst[doff], v[offset_of(m, values)]);
      } else {
        dst[doff] = v[offset_of(m, values)];
      }
    });
  }, "index_put_");
}

Tensor nonzero_kernel(const Tensor& self) {
  const int64_t nd = self.dim();
  return visit_dtype(self.dtype(), [&]<class T>() {
    const T* base = static_cast<const T*>(self.data_ptr());
    auto nonzero = [](T v) { return static_cast<opmath_t<T>>(v) != static_cast<opmath_t<T>>(0); };
    if (nd == 0) {
      return empty({nonzero(base[0]) ? 1 : 0, 0}, TensorOptions(kInt64).device(kCPU));
    }
    // Walks self in row-major order, one run along the last dim at a time:
    // f(index of the run's first element, pointer, stride, length).
    const int64_t last = self.size(nd - 1), last_stride = self.stride(nd - 1);
    auto walk = [&](auto&& f) {
      if (self.numel() == 0) return;
      DimVector idx(static_cast<size_t>(nd), 0);
      int64_t off = 0;
      const int64_t runs = self.numel() / last;
      for (int64_t q = 0; q < runs; ++q) {
        f(idx, base + off);
        for (int64_t d = nd - 2; d >= 0; --d) {
          off += self.stride(d);
          if (++idx[d] < self.size(d)) break;
          off -= self.stride(d) * self.size(d);
          idx[d] = 0;
        }
      }
    };
    int64_t count = 0;
    walk([&](const DimVector&, const T* run) {
      int64_t c = 0;
      for (int64_t j = 0; j < last; ++j) c += nonzero(run[j * last_stride]);
      count += c;
    });
    Tensor out = empty({count, nd}, TensorOptions(kInt64).device(kCPU));
    int64_t* o = out.data_ptr<int64_t>();
    walk([&](const DimVector& idx, const T* run) {
      for (int64_t j = 0; j < last; ++j) {
        if (!nonzero(run[j * last_stride])) continue;
        o = std::copy(idx.begin(), idx.end() - 1, o);
        *o++ = j;
      }
    });
    return out;
  }, "nonzero");
}

}  // namespace ember::cpu
