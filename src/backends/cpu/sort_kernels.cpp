#include "sort_kernels.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <type_traits>
#include <vector>

#include "reduce_loop.h"

namespace ember::cpu {

namespace {

// Note [Sort keys]
// Every element becomes an unsigned integer key whose order is the element order PyTorch sorts
// by: NaN above +inf, -0.0 equal to 0.0, signed integers offset by their sign bit; descending
// sorts flip the key. Lines are then sorted as (key, index) pairs, which makes the result stable
// (equal keys keep index order) and lets long lines use an LSD radix sort (stable by nature)
// instead of comparisons. Values are read back from the input by index, so -0.0 stays -0.0.

template <class T>
constexpr int key_bits() {
  if constexpr (std::is_same_v<T, bool>) return 1;
  else if constexpr (std::is_same_v<T, double>) return 64;
  else if constexpr (is_reduced_float_v<T>) return 32;
  else return 8 * static_cast<int>(sizeof(T));
}

template <class T>
uint64_t sort_key(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const U sign = std::is_signed_v<T> ? static_cast<U>(U(1) << (8 * sizeof(T) - 1)) : U(0);
    return static_cast<uint64_t>(static_cast<U>(static_cast<U>(v) ^ sign));
  } else {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    using U = std::conditional_t<std::is_same_v<T, double>, uint64_t, uint32_t>;
    F f = static_cast<F>(v);
    if (f != f) return static_cast<U>(~U(0));  // every NaN: the largest key
    if (f == F(0)) f = F(0);                    // -0.0 sorts as 0.0
    const U b = std::bit_cast<U>(f);
    const U sign = U(1) << (8 * sizeof(U) - 1);
    return (b & sign) ? static_cast<U>(~b) : static_cast<U>(b | sign);
  }
}

struct Item {
  uint64_t key;
  int64_t idx;
};
inline bool item_less(const Item& a, const Item& b) {
  return a.key < b.key || (a.key == b.key && a.idx < b.idx);
}

constexpr int64_t kRadixMin = 256;  // shorter lines sort by comparison

// Stable LSD radix sort of items[0, n) by the low `bits` bits of their keys; `tmp` has room for
// n items, `hist` is scratch. Bytes on which every key agrees are skipped.
void radix_sort(Item* items, Item* tmp, int64_t n, int bits, std::vector<int64_t>& hist) {
  const int passes = (bits + 7) / 8;
  hist.assign(static_cast<size_t>(passes) * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int p = 0; p < passes; ++p) ++hist[static_cast<size_t>(p * 256 + ((items[i].key >> (8 * p)) & 0xff))];
  }
  Item* src = items;
  Item* dst = tmp;
  for (int p = 0; p < passes; ++p) {
    int64_t* h = hist.data() + p * 256;
    if (h[(src[0].key >> (8 * p)) & 0xff] == n) continue;  // one bucket: nothing moves
    int64_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      const int64_t c = h[b];
      h[b] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) dst[h[(src[i].key >> (8 * p)) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != items) std::copy(src, src + n, items);
}

// The first k of every line along `dim` in (key, index) order, written to values / indices.
template <class T>
void select_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                  int64_t dim, bool descending) {
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

  constexpr int bits = key_bits<T>();
  const uint64_t flip = descending ? (bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1) : 0;
  const T* src = static_cast<const T*>(in.data_ptr());
  T* vout = values.data_ptr<T>();
  int64_t* iout = indices.data_ptr<int64_t>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(len, 1));
  parallel_for(0, lines.numel(), grain, [&](int64_t begin, int64_t end) {
    std::vector<Item> items(static_cast<size_t>(len)), tmp;
    std::vector<int64_t> hist;
    for (int64_t l = begin; l < end; ++l) {
      const T* p = src + lines.offset(l);
      if (k < len && k <= len / 8) {
        // A few of many: a max-heap of the best k so far; most elements lose to its top in one
        // comparison (a later equal element loses too, keeping the lower index).
        for (int64_t j = 0; j < k; ++j) items[static_cast<size_t>(j)] = {sort_key(p[j * step]) ^ flip, j};
        std::make_heap(items.begin(), items.begin() + k, item_less);
        for (int64_t j = k; j < len; ++j) {
          const Item it{sort_key(p[j * step]) ^ flip, j};
          if (!item_less(it, items[0])) continue;
          std::pop_heap(items.begin(), items.begin() + k, item_less);
          items[static_cast<size_t>(k - 1)] = it;
          std::push_heap(items.begin(), items.begin() + k, item_less);
        }
        std::sort_heap(items.begin(), items.begin() + k, item_less);
      } else {
        for (int64_t j = 0; j < len; ++j) items[static_cast<size_t>(j)] = {sort_key(p[j * step]) ^ flip, j};
        if (len < kRadixMin) {
          std::sort(items.begin(), items.end(), item_less);
        } else {
          tmp.resize(static_cast<size_t>(len));
          radix_sort(items.data(), tmp.data(), len, bits, hist);
        }
      }
      const int64_t base = (l / inner) * k * inner + l % inner;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = items[static_cast<size_t>(j)].idx;
        vout[base + j * inner] = p[at * step];
        iout[base + j * inner] = at;
      }
    }
  });
}

void select(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, int64_t dim,
            bool descending, const char* name) {
  EMBER_ASSERT(values.dtype() == in.dtype() && values.is_contiguous() && indices.is_contiguous());
  visit_dtype(in.dtype(), [&]<class T>() { select_lines<T>(values, indices, in, k, dim, descending); },
              name);
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
