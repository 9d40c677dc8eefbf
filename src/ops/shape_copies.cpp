// Shape ops that copy: flip, roll, repeat, tril / triu (primitives with backward rules, their
// data moved by index_select / where / expand below autograd), the composites PyTorch writes as
// composites (fliplr, flipud, rot90, tile, repeat_interleave, diag, diag_embed, diagflat,
// trace, block_diag, copy, any.dims), tril_indices / triu_indices, and resize_.
// Error texts are PyTorch 1.13's.
#include <algorithm>
#include <cstring>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "factory_args.h"

namespace ember {

using dispatch::OpId;
using ops::OptBool;
using ops::OptDevice;
using ops::OptDtype;
using ops::OptLayout;

namespace {

TensorOptions index_options(const Tensor& like) { return TensorOptions(kInt64).device(like.device()); }

// Wrapped dims, refusing repeats with `what`'s message.
DimVector wrap_dims_unique(IntArrayRef dims, int64_t nd, const char* op) {
  DimVector out;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    EMBER_CHECK(std::find(out.begin(), out.end(), w) == out.end(), "dim ", w,
                " appears multiple times in the list of dims");
    out.push_back(w);
  }
  (void)op;
  return out;
}

// ---- flip ----

Tensor flip_impl(const Tensor& self, IntArrayRef dims) {
  DimVector ds = wrap_dims_unique(dims, self.dim(), "flip");
  Tensor out = self.clone(MemoryFormat::Contiguous);
  if (self.dim() == 0) return out;
  for (int64_t d : ds) {
    const int64_t n = self.size(d);
    if (n <= 1) continue;
    out = ember::index_select(out, d, arange(n - 1, -1, -1, index_options(self)));
  }
  return out;
}

// ---- roll ----

Tensor roll_impl(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    Tensor flat = self.clone(MemoryFormat::Contiguous).view({-1});
    return roll_impl(flat, shifts, {0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  Tensor out = self.clone(MemoryFormat::Contiguous);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim());
    const int64_t n = self.dim() == 0 ? 1 : self.size(d);
    if (n == 0 || self.dim() == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    // out[j] = in[(j - s) mod n]
    Tensor idx = (arange(n, index_options(self)) + (n - s)) % wrapped_scalar_tensor(n);
    out = ember::index_select(out, d, idx);
  }
  return out;
}

// ---- repeat ----

Tensor repeat_impl(const Tensor& self, IntArrayRef repeats) {
  EMBER_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(),
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const int64_t n = static_cast<int64_t>(repeats.size());
  const int64_t lead = n - self.dim();
  DimVector padded, interleaved_in, interleaved_out, target;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = i < lead ? 1 : self.size(i - lead);
    padded.push_back(s);
    target.push_back(s * repeats[i]);
  }
  for (int64_t r : repeats)
    EMBER_CHECK(r >= 0, "Trying to create tensor with negative dimension ", r, ": ", IntArrayRef(target));
  for (int64_t i = 0; i < n; ++i) {
    interleaved_in.push_back(1);
    interleaved_in.push_back(padded[i]);
    interleaved_out.push_back(repeats[i]);
    interleaved_out.push_back(padded[i]);
  }
  Tensor expanded = self.reshape(interleaved_in).expand(interleaved_out);
  return expanded.clone(MemoryFormat::Contiguous).view(target);
}

// ---- tril / triu ----

// Whether each (row, col) of the last two dims is zeroed: tril zeroes col - row > k, triu
// zeroes col - row < k.
Tensor triangle_zero_mask(const Tensor& self, int64_t k, bool lower) {
  const int64_t rows = self.size(-2), cols = self.size(-1);
  Tensor r = arange(rows, index_options(self)).unsqueeze(-1);
  Tensor c = arange(cols, index_options(self));
  Tensor diff = c - r;
  return lower ? diff > wrapped_scalar_tensor(k) : diff < wrapped_scalar_tensor(k);
}

// As PyTorch 1.13, a 1-d or 0-d input fails on its dim -2.
template <bool lower>
Tensor triangle_impl(const Tensor& self, int64_t k) {
  (void)wrap_dim(-2, self.dim());
  return ember::masked_fill(self.clone(MemoryFormat::Contiguous), triangle_zero_mask(self, k, lower), 0);
}

template <bool lower>
Tensor triangle__impl(const Tensor& self, int64_t k) {
  (void)wrap_dim(-2, self.dim());
  Tensor s = self;
  ember::masked_fill_(s, triangle_zero_mask(self, k, lower), 0);
  return self;
}

// ---- tril_indices / triu_indices ----

template <bool lower>
Tensor triangle_indices_impl(int64_t row, int64_t col, int64_t offset, OptDtype dtype, OptLayout, OptDevice device,
                             OptBool) {
  EMBER_CHECK(row >= 0, "row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, "col must be non-negative, got", col);
  std::vector<int64_t> rs, cs;
  for (int64_t i = 0; i < row; ++i) {
    for (int64_t j = 0; j < col; ++j) {
      if (lower ? j - i <= offset : j - i >= offset) {
        rs.push_back(i);
        cs.push_back(j);
      }
    }
  }
  const int64_t n = static_cast<int64_t>(rs.size());
  const ScalarType dt = dtype.value_or(kInt64);
  EMBER_CHECK(dt == kInt64 || dt == kInt32, "\"", lower ? "tril" : "triu", "_indices\" not implemented for '",
              scalar_type_name(dt), "'");
  Tensor out = empty({2, n}, TensorOptions(kInt64).device(kCPU));
  if (n > 0) {
    std::memcpy(out.data_ptr<int64_t>(), rs.data(), static_cast<size_t>(n) * sizeof(int64_t));
    std::memcpy(out.data_ptr<int64_t>() + n, cs.data(), static_cast<size_t>(n) * sizeof(int64_t));
  }
  return out.to(device.value_or(default_device()), dt);
}

// ---- composites ----

Tensor fliplr_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return ember::flip(self, {1});
}
Tensor flipud_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return ember::flip(self, {0});
}

Tensor rot90_impl(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t total = self.dim();
  EMBER_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(total >= 2, "expected total dims >= 2, but got total dims = ", total);
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != total,
              "expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ", dims[1]);
  EMBER_CHECK(dims[0] < total && dims[0] >= -total, "Rotation dim0 out of range, dim0 = ", dims[0]);
  EMBER_CHECK(dims[1] < total && dims[1] >= -total, "Rotation dim1 out of range, dim1 = ", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1: return ember::flip(self, {dims[1]}).transpose(dims[0], dims[1]);
    case 2: return ember::flip(self, dims);
    case 3: return ember::flip(self, {dims[0]}).transpose(dims[0], dims[1]);
    default: return self.clone(MemoryFormat::Contiguous);
  }
}

Tensor tile_impl(const Tensor& self, IntArrayRef dims) {
  DimVector reps = dims.vec();
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(reps.begin(), 1);
  return ember::repeat(self, reps);
}

// repeat_interleave(repeats): [0] * repeats[0] + [1] * repeats[1] + ...
Tensor repeat_interleave_Tensor_impl(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, "repeats has to be Long or Int tensor");
  Tensor reps = repeats.to(kInt64).contiguous();
  const int64_t* r = reps.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < reps.numel(); ++i) {
    EMBER_CHECK(r[i] >= 0, "repeats can not be negative");
    total += r[i];
  }
  if (output_size) {
    EMBER_CHECK(*output_size == total, "allocated size does not match required size");
  }
  Tensor out = empty({total}, TensorOptions(kInt64));
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0, k = 0; i < reps.numel(); ++i)
    for (int64_t j = 0; j < r[i]; ++j) o[k++] = i;
  return out.to(repeats.dtype());
}

Tensor repeat_interleave_self_Tensor_impl(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                          std::optional<int64_t> output_size) {
  Tensor input = self;
  int64_t d = 0;
  if (!dim) {
    input = self.flatten();
  } else {
    d = wrap_dim(*dim, self.dim());
  }
  Tensor reps = repeats;
  const int64_t len = input.dim() == 0 ? 1 : input.size(d);
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    reps = repeats.reshape({1}).expand({len});
  } else {
    EMBER_CHECK(repeats.dim() == 1, "repeats must be 0-dim or 1-dim tensor");
    EMBER_CHECK(repeats.size(0) == len, "repeats must have the same size as input along dim");
  }
  Tensor idx = ember::repeat_interleave(reps, output_size);
  if (input.dim() == 0) input = input.reshape({1});
  return ember::index_select(input, d, idx.to(kInt64));
}

Tensor repeat_interleave_self_int_impl(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                       std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "repeats can not be negative");
  return ember::repeat_interleave(self, scalar_tensor(repeats, kInt64), dim, output_size);
}

Tensor diag_embed_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd), d2 = wrap_dim(dim2, nd);
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = (self.dim() == 0 ? 1 : self.size(-1)) + std::abs(offset);
  DimVector shape;
  DimVector rest = self.sizes().vec();
  if (!rest.empty()) rest.pop_back();
  for (int64_t d = 0, r = 0; d < nd; ++d) shape.push_back(d == d1 || d == d2 ? n : rest[static_cast<size_t>(r++)]);
  Tensor out = zeros(shape, TensorOptions(self.dtype()).device(self.device()));
  out.diagonal(offset, d1, d2).copy_(self);
  return out;
}

Tensor diag_impl(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "matrix or a vector expected");
  if (self.dim() == 1) return ember::diag_embed(self, diagonal, 0, 1);
  return self.diagonal(diagonal).clone(MemoryFormat::Contiguous);
}

Tensor diagflat_impl(const Tensor& self, int64_t offset) {
  return ember::diag_embed(self.contiguous().view({-1}), offset, 0, 1);
}

Tensor trace_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return self.diagonal().sum();
}

Tensor block_diag_impl(ArrayRef<Tensor> tensors) {
  if (tensors.empty()) return empty({1, 0});
  ScalarType dtype = tensors[0].dtype();
  int64_t rows = 0, cols = 0;
  std::vector<Tensor> mats;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, "ember.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i,
                " has ", t.dim(), " dimensions");
    Tensor m = t.dim() == 0 ? t.reshape({1, 1}) : t.dim() == 1 ? t.unsqueeze(0) : t;
    dtype = promote_types(dtype, t.dtype());
    rows += m.size(0);
    cols += m.size(1);
    mats.push_back(m);
  }
  Tensor out = zeros({rows, cols}, TensorOptions(dtype).device(tensors[0].device()));
  int64_t r = 0, c = 0;
  for (const Tensor& m : mats) {
    out.slice(0, r, r + m.size(0)).slice(1, c, c + m.size(1)).copy_(m);
    r += m.size(0);
    c += m.size(1);
  }
  return out;
}

Tensor copy_impl(const Tensor& self, const Tensor& src, bool non_blocking) {
  Tensor out = self.clone();
  (void)non_blocking;
  out.copy_(src);
  return out;
}

Tensor any_dims_impl(const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim) {
  if (!dims || dims->empty()) {
    Tensor r = ember::any(self);
    return keepdim ? r.reshape(DimVector(static_cast<size_t>(self.dim()), 1)) : r;
  }
  DimVector ds = wrap_dims_unique(*dims, self.dim(), "any");
  std::sort(ds.begin(), ds.end(), std::greater<>());
  Tensor r = self;
  for (int64_t d : ds) r = ember::any(r, d, keepdim);
  if (self.dim() == 0) return r.reshape({});
  return r;
}

// ---- resize_ ----

Tensor resize__impl(const Tensor& self, IntArrayRef size, std::optional<int64_t> /*memory_format*/) {
  for (int64_t s : size) EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  EMBER_CHECK(!self.is_quantized(), "resize_ is not supported for quantized tensors");
  int64_t numel = 1;
  for (int64_t s : size) numel *= s;
  TensorImpl* impl = self.impl();
  const size_t need = static_cast<size_t>(numel + impl->storage_offset()) * impl->itemsize();
  if (numel > 0 && impl->storage()->nbytes() < need) {
    // Grows the storage, keeping the bytes it held (as PyTorch's resize_).
    auto grown = Storage::allocate(need, self.device());
    if (!self.is_meta() && impl->storage()->nbytes() > 0)
      std::memcpy(grown->data(), impl->storage()->data(), impl->storage()->nbytes());
    impl->set_storage(std::move(grown));
  }
  impl->set_geometry(size, contiguous_strides(size), impl->storage_offset());
  return self;
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d flip(self, dims) = grad.flip(dims)
Tensor flip_autograd(const Tensor& self, const IntArrayRef& dims) {
  autograd::Recorder r("FlipBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<flip_impl>(OpId::flip, self, dims); });
  if (!r) return out;
  r.values("dims", dims);
  return r.finish(out, [](OpNode& n, const tensor_list& g) { return tensor_list{g[0].flip(n.value(0).to_int_list())}; });
}

// d roll(self, shifts, dims) = grad.roll(-shifts, dims)
Tensor roll_autograd(const Tensor& self, const IntArrayRef& shifts, const IntArrayRef& dims) {
  autograd::Recorder r("RollBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<roll_impl>(OpId::roll, self, shifts, dims); });
  if (!r) return out;
  r.values("dims", dims, "shifts", shifts);
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    DimVector neg;
    for (int64_t s : n.value(1).to_int_list()) neg.push_back(-s);
    return tensor_list{g[0].roll(neg, n.value(0).to_int_list())};
  });
}

// d repeat(self, repeats) = grad viewed as [r0, s0, r1, s1, ...], summed over the r's
Tensor repeat_autograd(const Tensor& self, const IntArrayRef& repeats) {
  autograd::Recorder r("RepeatBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<repeat_impl>(OpId::repeat, self, repeats); });
  if (!r) return out;
  r.values("repeats", repeats, "self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& node, const tensor_list& g) {
    const auto& reps = node.value(0).to_int_list();
    const auto& sizes = node.value(1).to_int_list();
    const int64_t n = static_cast<int64_t>(reps.size());
    const int64_t lead = n - static_cast<int64_t>(sizes.size());
    DimVector split, sum_dims;
    for (int64_t i = 0; i < n; ++i) {
      split.push_back(reps[i]);
      split.push_back(i < lead ? 1 : sizes[static_cast<size_t>(i - lead)]);
      sum_dims.push_back(2 * i);
    }
    return tensor_list{g[0].reshape(split).sum(sum_dims).reshape(sizes)};
  });
}

// d tril(self, k) = grad.tril(k) (and triu alike)
template <bool lower>
Tensor triangle_autograd(const Tensor& self, const int64_t& k) {
  autograd::Recorder r(lower ? "TrilBackward0" : "TriuBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<triangle_impl<lower>>(lower ? OpId::tril : OpId::triu, self, k);
  });
  if (!r) return out;
  r.values("diagonal", k);
  return r.finish(out, [k](OpNode&, const tensor_list& g) { return tensor_list{lower ? g[0].tril(k) : g[0].triu(k)}; });
}
template <bool lower>
Tensor triangle__autograd(const Tensor& self, const int64_t& k) {
  autograd::Recorder r(lower ? "TrilBackward0" : "TriuBackward0", self);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<triangle__impl<lower>>(lower ? OpId::tril_ : OpId::triu_, self, k); });
  if (!r) return self;
  r.values("diagonal", k);
  r.finish_inplace(self, [k](OpNode&, const tensor_list& g) {
    return tensor_list{lower ? g[0].tril(k) : g[0].triu(k)};
  });
  return self;
}

// resize_ has no gradient: PyTorch refuses it on tensors that require grad.
Tensor resize__autograd(const Tensor& self, const IntArrayRef& size, const std::optional<int64_t>& memory_format) {
  EMBER_CHECK(!(GradMode::is_enabled() && self.requires_grad()), "cannot resize variables that require grad");
  dispatch::AutoDispatchBelowAutograd below;
  return dispatch::call<resize__impl>(OpId::resize_, self, size, memory_format);
}

EMBER_REGISTER_AUTOGRAD(flip, &flip_autograd);
EMBER_REGISTER_AUTOGRAD(roll, &roll_autograd);
EMBER_REGISTER_AUTOGRAD(repeat, &repeat_autograd);
EMBER_REGISTER_AUTOGRAD(tril, &triangle_autograd<true>);
EMBER_REGISTER_AUTOGRAD(triu, &triangle_autograd<false>);
EMBER_REGISTER_AUTOGRAD(tril_, &triangle__autograd<true>);
EMBER_REGISTER_AUTOGRAD(triu_, &triangle__autograd<false>);
EMBER_REGISTER_AUTOGRAD(resize_, &resize__autograd);

// ---- schema-shaped frontends ----
Tensor flip_op(const Tensor& self, IntArrayRef dims) { return dispatch::call<flip_impl>(OpId::flip, self, dims); }
Tensor fliplr_op(const Tensor& self) { return dispatch::call<fliplr_impl>(OpId::fliplr, self); }
Tensor flipud_op(const Tensor& self) { return dispatch::call<flipud_impl>(OpId::flipud, self); }
Tensor roll_op(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  return dispatch::call<roll_impl>(OpId::roll, self, shifts, dims);
}
Tensor rot90_op(const Tensor& self, int64_t k, IntArrayRef dims) {
  return dispatch::call<rot90_impl>(OpId::rot90, self, k, dims);
}
Tensor repeat_op(const Tensor& self, IntArrayRef repeats) {
  return dispatch::call<repeat_impl>(OpId::repeat, self, repeats);
}
Tensor tile_op(const Tensor& self, IntArrayRef dims) { return dispatch::call<tile_impl>(OpId::tile, self, dims); }
Tensor ri_Tensor_op(const Tensor& repeats, std::optional<int64_t> output_size) {
  return dispatch::call<repeat_interleave_Tensor_impl>(OpId::repeat_interleave_Tensor, repeats, output_size);
}
Tensor ri_self_Tensor_op(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return dispatch::call<repeat_interleave_self_Tensor_impl>(OpId::repeat_interleave_self_Tensor, self, repeats, dim,
                                                            output_size);
}
Tensor ri_self_int_op(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                      std::optional<int64_t> output_size) {
  return dispatch::call<repeat_interleave_self_int_impl>(OpId::repeat_interleave_self_int, self, repeats, dim,
                                                         output_size);
}
Tensor tril_op(const Tensor& self, int64_t k) { return dispatch::call<triangle_impl<true>>(OpId::tril, self, k); }
Tensor triu_op(const Tensor& self, int64_t k) { return dispatch::call<triangle_impl<false>>(OpId::triu, self, k); }
Tensor& tril__op(Tensor& self, int64_t k) {
  dispatch::call<triangle__impl<true>>(OpId::tril_, self, k);
  return self;
}
Tensor& triu__op(Tensor& self, int64_t k) {
  dispatch::call<triangle__impl<false>>(OpId::triu_, self, k);
  return self;
}
Tensor tril_indices_op(int64_t row, int64_t col, int64_t offset, OptDtype dtype, OptLayout layout,
                       OptDevice device, OptBool pin) {
  return dispatch::call<triangle_indices_impl<true>>(OpId::tril_indices, row, col, offset, dtype, layout, device, pin);
}
Tensor triu_indices_op(int64_t row, int64_t col, int64_t offset, OptDtype dtype, OptLayout layout,
                       OptDevice device, OptBool pin) {
  return dispatch::call<triangle_indices_impl<false>>(OpId::triu_indices, row, col, offset, dtype, layout, device,
                                                      pin);
}
Tensor diag_op(const Tensor& self, int64_t k) { return dispatch::call<diag_impl>(OpId::diag, self, k); }
Tensor diag_embed_op(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch::call<diag_embed_impl>(OpId::diag_embed, self, offset, dim1, dim2);
}
Tensor diagflat_op(const Tensor& self, int64_t offset) {
  return dispatch::call<diagflat_impl>(OpId::diagflat, self, offset);
}
Tensor trace_op(const Tensor& self) { return dispatch::call<trace_impl>(OpId::trace, self); }
Tensor block_diag_op(ArrayRef<Tensor> tensors) { return dispatch::call<block_diag_impl>(OpId::block_diag, tensors); }
Tensor& resize__op(Tensor& self, IntArrayRef size, std::optional<int64_t> memory_format) {
  dispatch::call<resize__impl>(OpId::resize_, self, size, memory_format);
  return self;
}
Tensor copy_op(const Tensor& self, const Tensor& src, bool non_blocking) {
  return dispatch::call<copy_impl>(OpId::copy, self, src, non_blocking);
}
Tensor any_dims_op(const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim) {
  return dispatch::call<any_dims_impl>(OpId::any_dims, self, dims, keepdim);
}

}  // namespace

// ---- public API ----
Tensor flip(const Tensor& self, IntArrayRef dims) { return flip_op(self, dims); }
Tensor fliplr(const Tensor& self) { return fliplr_op(self); }
Tensor flipud(const Tensor& self) { return flipud_op(self); }
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) { return roll_op(self, shifts, dims); }
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) { return rot90_op(self, k, dims); }
Tensor repeat(const Tensor& self, IntArrayRef repeats) { return repeat_op(self, repeats); }
Tensor tile(const Tensor& self, IntArrayRef dims) { return tile_op(self, dims); }
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  return ri_Tensor_op(repeats, output_size);
}
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return ri_self_Tensor_op(self, repeats, dim, output_size);
}
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  return ri_self_int_op(self, repeats, dim, output_size);
}
Tensor tril(const Tensor& self, int64_t diagonal) { return tril_op(self, diagonal); }
Tensor triu(const Tensor& self, int64_t diagonal) { return triu_op(self, diagonal); }
Tensor& tril_(Tensor& self, int64_t diagonal) { return tril__op(self, diagonal); }
Tensor& triu_(Tensor& self, int64_t diagonal) { return triu__op(self, diagonal); }
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return detail::apply_requires_grad(tril_indices_op(row, col, offset, options.dtype_, std::nullopt, options.device_, std::nullopt), options);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return detail::apply_requires_grad(triu_indices_op(row, col, offset, options.dtype_, std::nullopt, options.device_, std::nullopt), options);
}
Tensor diag(const Tensor& self, int64_t diagonal) { return diag_op(self, diagonal); }
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return diag_embed_op(self, offset, dim1, dim2);
}
Tensor diagflat(const Tensor& self, int64_t offset) { return diagflat_op(self, offset); }
Tensor trace(const Tensor& self) { return trace_op(self); }
Tensor block_diag(ArrayRef<Tensor> tensors) { return block_diag_op(tensors); }
Tensor& resize_(Tensor& self, IntArrayRef size) { return resize__op(self, size, std::nullopt); }
Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking) { return copy_op(self, src, non_blocking); }
Tensor any(const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim) {
  return any_dims_op(self, dims, keepdim);
}

using RiTensorFn = Tensor (*)(const Tensor&, std::optional<int64_t>);
EMBER_REGISTER_OP(flip, &flip_op);
EMBER_REGISTER_OP(fliplr, &fliplr_op);
EMBER_REGISTER_OP(flipud, &flipud_op);
EMBER_REGISTER_OP(roll, &roll_op);
EMBER_REGISTER_OP(rot90, &rot90_op);
EMBER_REGISTER_OP(repeat, &repeat_op);
EMBER_REGISTER_OP(tile, &tile_op);
EMBER_REGISTER_OP(repeat_interleave_Tensor, &ri_Tensor_op);
EMBER_REGISTER_OP(repeat_interleave_self_Tensor, &ri_self_Tensor_op);
EMBER_REGISTER_OP(repeat_interleave_self_int, &ri_self_int_op);
EMBER_REGISTER_OP(tril, &tril_op);
EMBER_REGISTER_OP(triu, &triu_op);
EMBER_REGISTER_OP(tril_, &tril__op);
EMBER_REGISTER_OP(triu_, &triu__op);
EMBER_REGISTER_OP(tril_indices, &tril_indices_op);
EMBER_REGISTER_OP(triu_indices, &triu_indices_op);
EMBER_REGISTER_OP(diag, &diag_op);
EMBER_REGISTER_OP(diag_embed, &diag_embed_op);
EMBER_REGISTER_OP(diagflat, &diagflat_op);
EMBER_REGISTER_OP(trace, &trace_op);
EMBER_REGISTER_OP(block_diag, &block_diag_op);
EMBER_REGISTER_OP(resize_, &resize__op);
EMBER_REGISTER_OP(copy, &copy_op);
EMBER_REGISTER_OP(any_dims, &any_dims_op);

// ---- Tensor methods ----
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }
Tensor Tensor::repeat(IntArrayRef repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim) const {
  return ember::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor& Tensor::tril_(int64_t diagonal) { return ember::tril_(*this, diagonal); }
Tensor& Tensor::triu_(int64_t diagonal) { return ember::triu_(*this, diagonal); }
Tensor Tensor::diag(int64_t diagonal) const { return ember::diag(*this, diagonal); }
Tensor Tensor::trace() const { return ember::trace(*this); }
Tensor& Tensor::resize_(IntArrayRef size) { return ember::resize_(*this, size); }

}  // namespace ember
