// unique (_unique2, unique_dim) and unique_consecutive. Elements (or slices along dim) are
// compared with the ops' own `ne`, so every dtype compares exactly; a stable sort groups equal
// ones. The results depend on the data, so meta tensors cannot run these (as in PyTorch).
// Not differentiable.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember {

using dispatch::OpId;
using Triple = std::tuple<Tensor, Tensor, Tensor>;

namespace {

// Elements per slice along dim 0.
int64_t row_length(const Tensor& t) {
  int64_t c = 1;
  for (int64_t i = 1; i < t.dim(); ++i) c *= t.size(i);
  return c;
}

Tensor empty_long() { return empty({0}, TensorOptions(kInt64)); }

void check_not_meta(const Tensor& self, const char* op) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_meta(), "Could not run 'aten::", op,
                              "' with arguments from the 'Meta' backend: its output shape depends on the data");
}

// Given rows sorted so equal rows are adjacent (`x`, [N, C]) and `perm` mapping sorted position
// to original row: the first row of each run, each original row's run, and the run lengths.
Triple runs_of(const Tensor& x, const Tensor& perm, bool consecutive, bool return_inverse, bool return_counts) {
  const int64_t n = x.size(0);
  Tensor starts;  // bool [N]: row i starts a new run
  if (n == 0) {
    starts = empty({0}, TensorOptions(kBool));
  } else if (x.size(1) == 0) {
    starts = ember::cat({full({1}, true, TensorOptions(kBool)), zeros({n - 1}, TensorOptions(kBool))}, 0);
  } else {
    Tensor differs = (x.narrow(0, 1, n - 1) != x.narrow(0, 0, n - 1)).any(1, false);
    starts = ember::cat({full({1}, true, TensorOptions(kBool)), differs}, 0);
  }
  Tensor first = ember::nonzero(starts).reshape({-1});
  Tensor group = starts.to(kInt64).cumsum(0) - Scalar(1);  // run of each sorted row
  Tensor inverse = empty_long(), counts = empty_long();
  if (return_inverse) {
    inverse = consecutive ? group : zeros({n}, TensorOptions(kInt64)).scatter(0, perm, group);
  }
  if (return_counts) {
    const int64_t groups = first.numel();
    counts = zeros({groups}, TensorOptions(kInt64)).scatter_add(0, group, ones({n}, TensorOptions(kInt64)));
  }
  return {first, inverse, counts};
}

// Rows of x ([N, C]) in lexicographic order: stable sorts by each column, last first.
Tensor lexsort_rows(const Tensor& x) {
  const int64_t n = x.size(0);
  Tensor perm = arange(n, TensorOptions(kInt64));
  for (int64_t c = x.size(1) - 1; c >= 0; --c) {
    Tensor keys = x.select(1, c).index_select(0, perm);
    perm = perm.index_select(0, std::get<1>(keys.sort(0, false, true)));
  }
  return perm;
}

// Note [unique with sorted=False]: PyTorch 1.13's CPU kernel collects the elements in a
// std::unordered_set and writes them out in the set's iteration order; the same libstdc++ set
// built from the same sequence gives the same order here. The inverse indices (filled when
// either the inverse or the counts are asked for) and the counts come from maps keyed by value,
// as PyTorch's. bool, float16 and bfloat16 keep the sorted order.
template <class T>
Triple unique_unsorted(const Tensor& self, bool return_inverse, bool return_counts) {
  const Tensor input = self.contiguous();
  const T* in = input.data_ptr<T>();
  const int64_t n = input.numel();
  const std::unordered_set<T> set(in, in + n);
  Tensor out = empty({static_cast<int64_t>(set.size())}, TensorOptions(self.dtype()));
  T* o = out.data_ptr<T>();
  std::copy(set.begin(), set.end(), o);
  Tensor inverse = empty_long(), counts = empty_long();
  if (return_inverse || return_counts) {
    inverse = empty(self.sizes(), TensorOptions(kInt64));
    int64_t* inv = inverse.data_ptr<int64_t>();
    std::unordered_map<T, int64_t> inverse_map;
    inverse_map.reserve(static_cast<size_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) inverse_map[o[i]] = i;
    for (int64_t i = 0; i < n; ++i) inv[i] = inverse_map[in[i]];
    if (return_counts) {
      std::unordered_map<T, int64_t> counts_map;
      counts_map.reserve(static_cast<size_t>(out.numel()));
      for (int64_t i = 0; i < out.numel(); ++i) counts_map[o[i]] = 0;
      for (int64_t i = 0; i < n; ++i) counts_map[in[i]] += 1;
      counts = zeros(out.sizes(), TensorOptions(kInt64));
      int64_t* c = counts.data_ptr<int64_t>();
      for (int64_t i = 0; i < out.numel(); ++i) c[i] = counts_map[o[i]];
    }
  }
  return {out, inverse, counts};
}

Triple unique2_impl(const Tensor& self, bool sorted_out, bool return_inverse, bool return_counts) {
  check_not_meta(self, "_unique2");
  if (!sorted_out) {
    const bool ri = return_inverse, rc = return_counts;
    switch (self.dtype()) {
      case kFloat32: return unique_unsorted<float>(self, ri, rc);
      case kFloat64: return unique_unsorted<double>(self, ri, rc);
      case kInt8: return unique_unsorted<int8_t>(self, ri, rc);
      case kUInt8: return unique_unsorted<uint8_t>(self, ri, rc);
      case kInt16: return unique_unsorted<int16_t>(self, ri, rc);
      case kInt32: return unique_unsorted<int32_t>(self, ri, rc);
      case kInt64: return unique_unsorted<int64_t>(self, ri, rc);
      default: break;  // bool, float16, bfloat16: sorted
    }
  }
  Tensor flat = self.reshape({-1});
  auto [sorted, perm] = flat.sort(0, false, true);
  auto [first, inverse, counts] = runs_of(sorted.unsqueeze(1), perm, false, return_inverse, return_counts);
  if (return_inverse) inverse = inverse.reshape(self.sizes());
  return {sorted.index_select(0, first), inverse, counts};
}

Triple unique_dim_impl(const Tensor& self, int64_t dim, bool /*sorted*/, bool return_inverse, bool return_counts) {
  check_not_meta(self, "unique_dim");
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(self.dim() > 0, "unique_dim(): Expected a tensor with at least one dimension");
  Tensor moved = self.movedim(d, 0);
  const int64_t n = moved.size(0);
  Tensor rows = moved.reshape({n, row_length(moved)});
  Tensor perm = lexsort_rows(rows);
  Tensor sorted_rows = rows.index_select(0, perm);
  auto [first, inverse, counts] = runs_of(sorted_rows, perm, false, return_inverse, return_counts);
  Tensor values = moved.index_select(0, perm.index_select(0, first)).movedim(0, d);
  return {values.contiguous(), inverse, counts};
}

Triple unique_consecutive_impl(const Tensor& self, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  check_not_meta(self, "unique_consecutive");
  if (!dim) {
    Tensor flat = self.reshape({-1});
    auto [first, inverse, counts] =
        runs_of(flat.unsqueeze(1), Tensor(), true, return_inverse, return_counts);
    if (return_inverse) inverse = inverse.reshape(self.sizes());
    return {flat.index_select(0, first), inverse, counts};
  }
  const int64_t d = wrap_dim(*dim, self.dim());
  Tensor moved = self.movedim(d, 0);
  const int64_t n = moved.size(0);
  Tensor rows = moved.reshape({n, row_length(moved)});
  auto [first, inverse, counts] = runs_of(rows, Tensor(), true, return_inverse, return_counts);
  return {moved.index_select(0, first).movedim(0, d).contiguous(), inverse, counts};
}

Triple unique2_op(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  return dispatch::call<unique2_impl>(OpId::_unique2, self, sorted, return_inverse, return_counts);
}
Triple unique_dim_op(const Tensor& self, int64_t dim, bool sorted, bool return_inverse, bool return_counts) {
  return dispatch::call<unique_dim_impl>(OpId::unique_dim, self, dim, sorted, return_inverse, return_counts);
}
Triple unique_consecutive_op(const Tensor& self, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  return dispatch::call<unique_consecutive_impl>(OpId::unique_consecutive, self, return_inverse, return_counts, dim);
}

}  // namespace

Triple unique(const Tensor& self, bool sorted, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  return dim ? unique_dim_op(self, *dim, sorted, return_inverse, return_counts)
             : unique2_op(self, sorted, return_inverse, return_counts);
}
Triple unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
  return unique_consecutive_op(self, return_inverse, return_counts, dim);
}

EMBER_REGISTER_OP(_unique2, &unique2_op);
EMBER_REGISTER_OP(unique_dim, &unique_dim_op);
EMBER_REGISTER_OP(unique_consecutive, &unique_consecutive_op);

}  // namespace ember
