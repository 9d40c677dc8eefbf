// Advanced indexing: aten::index.Tensor, aten::index_put_ and aten::nonzero.
// (Python-style Tensor::index / Tensor::index_put_ over TensorIndex: indexing_basic.cpp.)
//
// Both ops first bring their indices into one geometry (make_advanced_index, mirroring
// PyTorch's make_info in TensorAdvancedIndexing.cpp): masks become their nonzero() columns, the
// index tensors broadcast together, and when the indexed dims are not adjacent they move to the
// front (the numpy rule that places the broadcast index dims first). The kernels then see
// Note [Advanced indexing geometry] (src/backends/cpu/indexing_kernels.h).
#include "ember/ops/indexing.h"

#include <algorithm>

#include "../autograd/record.h"
#include "../backends/cpu/indexing_kernels.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;
using OptionalTensorList = std::vector<std::optional<Tensor>>;

namespace {

// ---- nonzero ----

Tensor nonzero_impl(const Tensor& self) {
  ops::check_not_quantized("aten::nonzero", {self});
  // Its output shape depends on the data, which a meta tensor does not hold (PyTorch 1.13 has
  // no meta kernel for it either).
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_meta(),
                              "Could not run 'aten::nonzero' with arguments from the 'Meta' "
                              "backend: its output shape is data-dependent (the number of "
                              "non-zero elements), and meta tensors hold no data");
  return cpu::nonzero_kernel(self);
}

Tensor nonzero_op(const Tensor& self) { return dispatch::call<nonzero_impl>(OpId::nonzero, self); }

// ---- shared index geometry ----

bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }

std::optional<DimVector> try_broadcast(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa != sb && sa != 1 && sb != 1) return std::nullopt;
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

// Whether `from` broadcasts to `to` (to's shape unchanged). A dim of `to` named by `any_dim`
// has an unknown size and takes whatever `from` has there.
bool expandable_to(IntArrayRef from, IntArrayRef to, std::optional<size_t> any_dim = std::nullopt) {
  if (from.size() > to.size()) return false;
  const size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[off + i] && from[i] != 1 && any_dim != off + i) return false;
  return true;
}

// The geometry of one advanced-indexing call: src has its indexed dims as the block
// [begin, begin + indices.size()), each index an int64 tensor of shape index_shape.
struct AdvancedIndex {
  Tensor src;
  int64_t begin = 0;
  std::vector<Tensor> indices;
  DimVector index_shape;
  DimVector result_shape;
  // A meta mask in a meta index_put_: its number of true elements is unknown. Its columns stand
  // in with size 1, so the last dim of index_shape (where 1-D columns broadcast) is the unknown
  // one; index_put_ on meta still checks everything else.
  bool unknown_count = false;
  std::optional<size_t> unknown_result_dim() const {
    if (!unknown_count) return std::nullopt;
    return static_cast<size_t>(begin) + index_shape.size() - 1;
  }
};

void check_index_types(const OptionalTensorList& indices) {
  for (const auto& t : indices) {
    if (!t || !t->defined()) continue;
    const ScalarType st = t->dtype();
    EMBER_CHECK_INDEX(st == kInt64 || st == kUInt8 || st == kBool,
                      "tensors used as indices must be long, byte or bool tensors");
  }
}

// Mirrors PyTorch's make_info (expandTensors, expand_outplace, transposeToFront).
AdvancedIndex make_advanced_index(const char* op, const Tensor& self, const OptionalTensorList& orig,
                                  bool for_put) {
  const int64_t nd = self.dim();
  EMBER_CHECK_INDEX(static_cast<int64_t>(orig.size()) <= nd, "too many indices for tensor of dimension ",
                    nd, " (got ", orig.size(), ")");
  check_index_types(orig);
  AdvancedIndex ai;
  // 1. Masks become one int64 index per masked dim (the columns of nonzero(mask)).
  std::vector<Tensor> expanded;  // undefined = the dim is not indexed
  int64_t addressed = 0;         // dims the list addresses, for the "too many" message
  for (const auto& t : orig) addressed += t && t->defined() && is_mask(*t) ? t->dim() : 1;
  for (const auto& opt : orig) {
    if (!opt || !opt->defined()) {
      expanded.emplace_back();
      continue;
    }
    const Tensor& idx = *opt;
    EMBER_CHECK(idx.is_cpu() || idx.device() == self.device(),
                "indices should be either on cpu or on the same device as the indexed tensor (",
                self.device().str(), ")");
    if (!is_mask(idx)) {
      expanded.push_back(idx);
      continue;
    }
    EMBER_CHECK_INDEX(idx.dim() > 0, op, "(): a 0-dim bool or uint8 index masks no dimension; ",
                      "index with the bool itself (t.index({true})), which adds a dimension of "
                      "size 1 to mask");
    for (int64_t j = 0; j < idx.dim(); ++j) {
      const int64_t src_dim = static_cast<int64_t>(expanded.size()) + j;
      EMBER_CHECK_INDEX(src_dim < nd, "too many indices for tensor of dimension ", nd, " (got ",
                        addressed, ")");
      EMBER_CHECK_INDEX(idx.size(j) == self.size(src_dim), "The shape of the mask ", idx.sizes(),
                        " at index ", j, " does not match the shape of the indexed tensor ",
                        self.sizes(), " at index ", src_dim);
    }
    if (for_put && self.is_meta() && idx.is_meta()) {
      // The count of true elements is data: 1-element columns stand in (see
      // AdvancedIndex::unknown_count).
      ai.unknown_count = true;
      for (int64_t j = 0; j < idx.dim(); ++j) expanded.push_back(empty({1}, TensorOptions(kInt64).device(kMeta)));
      continue;
    }
    Tensor nz = nonzero(idx);
    for (int64_t j = 0; j < idx.dim(); ++j) expanded.push_back(nz.select(1, j));
  }
  // 2. Broadcast the index tensors together.
  std::vector<int64_t> positions;  // dims of self that are indexed
  for (size_t i = 0; i < expanded.size(); ++i)
    if (expanded[i].defined()) positions.push_back(static_cast<int64_t>(i));
  EMBER_CHECK(!positions.empty(), op, "(): expected at least one index tensor, but every index is None");
  std::optional<DimVector> shape = expanded[positions[0]].sizes().vec();
  for (int64_t p : positions) shape = shape ? try_broadcast(*shape, expanded[p].sizes()) : shape;
  if (!shape) {
    std::ostringstream shapes;
    for (size_t i = 0; i < positions.size(); ++i)
      shapes << (i ? ", " : "") << expanded[positions[i]].sizes();
    EMBER_FAIL_KIND(ErrorKind::Index, "shape mismatch: indexing tensors could not be broadcast "
                    "together with shapes ", shapes.str());
  }
  ai.index_shape = *shape;
  // 3. Non-adjacent indexed dims move to the front, in order (numpy's placement rule).
  const bool adjacent = positions.back() - positions.front() + 1 == static_cast<int64_t>(positions.size());
  ai.src = self;
  ai.begin = positions.front();
  if (!adjacent) {
    DimVector perm(positions.begin(), positions.end());
    for (int64_t d = 0; d < nd; ++d)
      if (d >= static_cast<int64_t>(expanded.size()) || !expanded[d].defined()) perm.push_back(d);
    ai.src = permute(self, perm);
    ai.begin = 0;
  }
  for (int64_t p : positions) ai.indices.push_back(expand(expanded[p], ai.index_shape));
  const int64_t k = static_cast<int64_t>(positions.size());
  IntArrayRef src_sizes = ai.src.sizes();
  ai.result_shape.assign(src_sizes.begin(), src_sizes.begin() + ai.begin);
  ai.result_shape.insert(ai.result_shape.end(), ai.index_shape.begin(), ai.index_shape.end());
  ai.result_shape.insert(ai.result_shape.end(), src_sizes.begin() + ai.begin + k, src_sizes.end());
  // 4. An indexed dim of size 0 admits no index at all (PyTorch checks this before the kernel).
  bool empty_dim = false, empty_index = false;
  for (int64_t j = 0; j < k; ++j) empty_dim |= src_sizes[ai.begin + j] == 0;
  for (int64_t s : ai.index_shape) empty_index |= s == 0;
  EMBER_CHECK_INDEX(ai.unknown_count || !empty_dim || empty_index,
                    "index is out of bounds for dimension with size 0");
  return ai;
}

// ---- index ----

Tensor index_impl(const Tensor& self, const OptionalTensorList& indices) {
  AdvancedIndex ai = make_advanced_index("index", self, indices, /*for_put=*/false);
  Tensor out = empty(ai.result_shape, TensorOptions(self.dtype()).device(self.device()));
  // An empty result reads no index, so none is checked (as PyTorch's kernel, which visits none).
  if (out.is_meta() || out.numel() == 0) return out;
  std::vector<int64_t> offsets = cpu::index_offsets(ai.src, ai.begin, ai.indices);
  cpu::index_kernel(out, ai.src, ai.begin, static_cast<int64_t>(ai.indices.size()),
                    static_cast<int64_t>(ai.index_shape.size()), offsets);
  return out;
}

Tensor index_op(const Tensor& self, const OptionalTensorList& indices) {
  return dispatch::call<index_impl>(OpId::index_Tensor, self, indices);
}

// ---- index_put_ ----

bool dense(const Tensor& t) { return t.dim() == 0 || !ops::dense_strides_or_empty(t).empty(); }

// PyTorch's assert_no_overlap: refuses an argument that shares memory with self when it can tell
// (both dense); where it cannot, ember reads a private copy, so the result never depends on the
// order of the writes.
Tensor no_overlap_with(const Tensor& self, const Tensor& arg) {
  if (self.is_meta() || !arg.defined()) return arg;
  const bool overlap = ops::may_overlap(self, arg);
  EMBER_CHECK(!self.is_same(arg) && !(overlap && dense(self) && dense(arg)),
              "unsupported operation: some elements of the input tensor and the written-to tensor "
              "refer to a single memory location. Please clone() the tensor before performing the "
              "operation.");
  return overlap ? clone(arg) : arg;
}

// Note [index_put_ with a mask and one value]
// PyTorch routes `self[mask] = v` (one bool/uint8 mask among Nones, a one-element CPU value, no
// accumulate) to masked_fill_(mask, v.item()): the value is then converted to self's dtype and
// its shape is not checked. ember keeps that behaviour (so t.index_put_({mask}, scalar_tensor(1))
// works on a float t) by turning v into a 0-d tensor of self's dtype up front.
bool takes_masked_fill_path(const Tensor& self, const OptionalTensorList& indices, const Tensor& values) {
  if (values.numel() != 1 || !values.is_cpu()) return false;
  int64_t masks = 0;
  for (const auto& t : indices) {
    if (!t || !t->defined()) continue;
    if (!is_mask(*t) || t->device() != self.device()) return false;
    ++masks;
  }
  return masks == 1;
}

Tensor index_put__impl(const Tensor& self, const OptionalTensorList& indices, const Tensor& values,
                       bool accumulate) {
  if (!self.is_meta()) {
    bool meta_arg = values.is_meta();
    for (const auto& t : indices) meta_arg |= t && t->defined() && t->is_meta();
    EMBER_CHECK_NOT_IMPLEMENTED(!meta_arg, "Cannot inplace into non-meta tensor with meta tensor argument");
  }
  EMBER_CHECK_INDEX(static_cast<int64_t>(indices.size()) <= self.dim(),
                    "too many indices for tensor of dimension ", self.dim(), " (got ", indices.size(), ")");
  check_index_types(indices);
  Tensor v = values;
  if (!accumulate && takes_masked_fill_path(self, indices, values)) {
    v = scalar_tensor(values.item(), TensorOptions(self.dtype()).device(self.device()));
  } else if (v.device() != self.device() && v.dim() == 0) {
    v = v.to(self.device());
  }
  v = no_overlap_with(self, v);
  OptionalTensorList idx = indices;
  for (auto& t : idx)
    if (t) t = no_overlap_with(self, *t);
  AdvancedIndex ai = make_advanced_index("index_put_", self, idx, /*for_put=*/true);
  if (!expandable_to(v.sizes(), ai.result_shape, ai.unknown_result_dim())) {
    std::ostringstream shape;
    shape << "[";
    for (size_t d = 0; d < ai.result_shape.size(); ++d) {
      shape << (d ? ", " : "");
      if (ai.unknown_result_dim() == d) shape << "?";
      else shape << ai.result_shape[d];
    }
    shape << "]" << (ai.unknown_count ? " (? = the number of true elements of a meta mask)" : "");
    EMBER_FAIL("shape mismatch: value tensor of shape ", v.sizes(),
               " cannot be broadcast to indexing result of shape ", shape.str());
  }
  EMBER_CHECK(v.dtype() == self.dtype(), "Index put requires the source and destination dtypes match, got ",
              scalar_type_name(self.dtype()), " for the destination and ", scalar_type_name(v.dtype()),
              " for the source.");
  const bool writes = std::all_of(ai.result_shape.begin(), ai.result_shape.end(), [](int64_t n) { return n > 0; });
  if (!self.is_meta() && writes) {
    // Every index is checked (index_offsets) before the first write: on error self is unchanged.
    std::vector<int64_t> offsets = cpu::index_offsets(ai.src, ai.begin, ai.indices);
    cpu::index_put_kernel(ai.src, expand(v, ai.result_shape), ai.begin,
                          static_cast<int64_t>(ai.indices.size()),
                          static_cast<int64_t>(ai.index_shape.size()), offsets, accumulate);
  }
  return ops::mark_written(self);
}

Tensor& index_put__op(Tensor& self, const OptionalTensorList& indices, const Tensor& values, bool accumulate) {
  dispatch::call<index_put__impl>(OpId::index_put_, self, indices, values, accumulate);
  return self;
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// The index tensors of a call, saved (PyTorch saves them: writing one in place before the
// backward is an error), and read back in the formula.
// They are one tuple attribute, `_saved_indices` (None for an absent index): slots
// first .. first + count - 1.
struct SavedIndices {
  size_t first, count;
};
SavedIndices save_indices(autograd::Recorder& r, const OptionalTensorList& indices) {
  return {r.save_list(true, indices, "indices"), indices.size()};
}
OptionalTensorList saved_indices(OpNode& n, SavedIndices slots) {
  OptionalTensorList out;
  for (size_t i = 0; i < slots.count; ++i) {
    Tensor t = n.saved(slots.first + i);
    if (t.defined()) out.emplace_back(std::move(t));
    else out.emplace_back(std::nullopt);
  }
  return out;
}

// d self[indices] = zeros of self's shape with grad added at the indexed positions (repeated
// indices accumulate).
Tensor index_autograd(const Tensor& self, const OptionalTensorList& indices) {
  autograd::Recorder r("IndexBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<index_impl>(OpId::index_Tensor, self, indices); });
  if (!r) return out;
  auto slots = save_indices(r, indices);
  r.values("self_sizes", self.sizes());
  return r.finish(out, [slots](OpNode& n, const tensor_list& g) {
    Tensor grad = zeros(n.value(0).to_int_list(), TensorOptions(g[0].dtype()).device(g[0].device()));
    index_put__op(grad, saved_indices(n, slots), g[0], /*accumulate=*/true);
    return tensor_list{grad};
  });
}

// self[indices] = values (or += with accumulate). self: grad, where the write replaced the old
// values zeroed (accumulate keeps them: grad as is); values: grad at the indexed positions,
// summed down to values' shape where it was broadcast.
Tensor index_put__autograd(const Tensor& self, const OptionalTensorList& indices, const Tensor& values,
                           const bool& accumulate) {
  autograd::Recorder r("IndexPutBackward0", self, values);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<index_put__impl>(OpId::index_put_, self, indices, values, accumulate); });
  if (!r) return self;
  auto slots = save_indices(r, indices);
  r.values("accumulate", accumulate);
  r.finish_inplace(self, [slots, accumulate, shape = values.sizes().vec()](OpNode& n, const tensor_list& g) {
    OptionalTensorList idx = saved_indices(n, slots);
    Tensor self_grad, values_grad;
    if (n.needs(0)) {
      self_grad = g[0];
      if (!accumulate) {
        self_grad = g[0].clone();
        index_put__op(self_grad, idx, zeros({}, TensorOptions(g[0].dtype()).device(g[0].device())), false);
      }
    }
    if (n.needs(1)) values_grad = autograd::sum_to(index_op(g[0], idx), shape);
    return tensor_list{self_grad, values_grad};
  });
  return self;
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(index_Tensor, &index_autograd);
EMBER_REGISTER_AUTOGRAD(index_put_, &index_put__autograd);

Tensor index(const Tensor& self, const OptionalTensorList& indices) { return index_op(self, indices); }
Tensor& index_put_(Tensor& self, const OptionalTensorList& indices, const Tensor& values, bool accumulate) {
  return index_put__op(self, indices, values, accumulate);
}
Tensor nonzero(const Tensor& self) { return nonzero_op(self); }

EMBER_REGISTER_OP(index_Tensor, &index_op);
EMBER_REGISTER_OP(index_put_, &index_put__op);
EMBER_REGISTER_OP(nonzero, &nonzero_op);

}  // namespace ember
