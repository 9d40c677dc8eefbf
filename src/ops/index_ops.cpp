// Gather / scatter family: index_select, gather, scatter (src / value, in-place and not),
// scatter_add and embedding. Every impl validates shapes, dtypes and every index value before it
// writes anything, so a failing in-place op leaves self unchanged. Error texts are PyTorch 1.13's.
#include "ember/ops/index_ops.h"

#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../backends/cpu/index_kernels.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"
#include "ember/ops/indexing.h"

namespace ember {

using dispatch::OpId;
using cpu::ScatterMode;

namespace {

// Note [Devices of index ops]
// ember has CPU and meta tensors. An out-of-place op with any meta operand runs on meta (shape
// and dtype inference only), as in PyTorch, where the Meta dispatch key outranks CPU: this is
// what lets a model skeleton on meta look up embeddings for real CPU token ids. An in-place op
// on a CPU self cannot read a meta operand, so that is an error.
Device out_device(std::initializer_list<Tensor> operands) {
  for (const Tensor& t : operands)
    if (t.is_meta()) return kMeta;
  return kCPU;
}

void check_inplace_devices(const char* op, const Tensor& self, std::initializer_list<Tensor> others) {
  if (self.is_meta()) return;
  for (const Tensor& t : others) {
    EMBER_CHECK(!t.is_meta(), "Expected all tensors to be on the same device, but found at least "
                "two devices, ", self.device().str(), " and ", t.device().str(),
                "! (when checking arguments for ", op, ")");
  }
}

// A fresh contiguous tensor, allocated without going back through the dispatcher.
Tensor new_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  return Tensor(make_intrusive<TensorImpl>(sizes, dtype, device));
}

// PyTorch's scatter / gather treat a 0-d tensor as 1-d of size 1 (ensure_nonempty_dim/_size).
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) {
  // wrap_dim reproduces PyTorch's IndexError when src has fewer dims than index.
  return t.dim() == 0 ? 1 : t.size(wrap_dim(d, t.dim()));
}
// The kernels take operands of at least one dim.
Tensor as_1d(const Tensor& t) {
  return t.dim() == 0 ? ops::make_view(t, {1}, {1}, t.storage_offset()) : t;
}

bool is_dense(const Tensor& t) { return t.dim() == 0 || !ops::dense_strides_or_empty(t).empty(); }

// An operand of an in-place write that shares memory with self. PyTorch refuses it where it can
// tell (both dense: assert_no_overlap); where it cannot, ember reads from a copy so the result is
// still the sequential one.
Tensor unaliased(const Tensor& self, const Tensor& operand) {
  if (self.is_meta() || (!operand.is_same(self) && !ops::may_overlap(self, operand))) return operand;
  EMBER_CHECK(!(is_dense(self) && is_dense(operand)),
              "unsupported operation: some elements of the input tensor and the written-to tensor "
              "refer to a single memory location. Please clone() the tensor before performing "
              "the operation.");
  Tensor copy = new_tensor(operand.sizes(), operand.dtype(), operand.device());
  cpu::copy_kernel(copy, operand);
  return copy;
}

// ---- index_select ----

Tensor index_select_impl(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_select(): Expected dtype int32 or int64 for index");
  // PyTorch 1.13 writes past a 0-d result here; later versions refuse, as ember does.
  EMBER_CHECK(self.dim() > 0 || index.numel() == 1,
              "index_select(): Index to scalar can have only 1 value, got ", index.numel(),
              " value(s)");
  DimVector sizes = self.sizes().vec();
  if (self.dim() > 0) sizes[d] = index.numel();
  Tensor out = new_tensor(sizes, self.dtype(), out_device({self, index}));
  if (out.is_meta()) return out;
  const int64_t rows = nonempty_size(self, d);
  EMBER_CHECK(!(self.dim() > 1 && self.numel() == 0 && index.numel() > 0 && rows == 0),
              "index_select(): self indexing axis dim should be positive");
  EMBER_CHECK_INDEX(!cpu::find_out_of_range(index, rows), "index out of range in self");
  cpu::index_select_kernel(as_1d(out), as_1d(self), d, as_1d(index));
  return out;
}

// ---- gather ----

void check_gather_shape(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t nd = nonempty_dim(self);
  EMBER_CHECK(nd == nonempty_dim(index),
              "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t i = 0; i < nd; ++i) {
    if (i == dim) continue;
    EMBER_CHECK(nonempty_size(index, i) <= nonempty_size(self, i), "Size does not match at dimension ",
                i, " expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                " apart from dimension ", dim);
  }
}

// "index 5 is out of bounds for dimension 1 with size 4" for the first bad value (row-major).
void check_index_values(const Tensor& index, int64_t dim, int64_t size) {
  if (auto bad = cpu::find_out_of_range(index, size)) {
    EMBER_FAIL("index ", *bad, " is out of bounds for dimension ", dim, " with size ", size);
  }
}

// sparse_grad only changes the layout of the gradient.
Tensor gather_impl(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor out = new_tensor(index.sizes(), self.dtype(), out_device({self, index}));
  if (index.numel() == 0) return out;  // PyTorch checks nothing more for an empty index
  EMBER_CHECK(index.dtype() == kInt64, "gather(): Expected dtype int64 for index");
  check_gather_shape(self, d, index);
  if (out.is_meta()) return out;
  check_index_values(index, d, nonempty_size(self, d));
  cpu::gather_kernel(as_1d(out), as_1d(self), d, as_1d(index));
  return out;
}

// ---- scatter / scatter_add ----

// PyTorch's scatter_gather_dtype_check and scatter_shape_check; every scatter flavour says
// "scatter()" in its messages, as PyTorch's do.
void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() != 0) {
    EMBER_CHECK(index.dtype() == kInt64, "scatter(): Expected dtype int64 for index");
  }
  if (src) {
    EMBER_CHECK(self.dtype() == src->dtype(), "scatter(): Expected self.dtype to be equal to src.dtype");
  }
  if (index.numel() == 0) return;
  const int64_t nd = nonempty_dim(self);
  EMBER_CHECK(nd == nonempty_dim(index),
              "Index tensor must have the same number of dimensions as self tensor");
  bool wrong_shape = false;
  for (int64_t d = 0; d < nd && !wrong_shape; ++d) {
    wrong_shape = d != dim && nonempty_size(index, d) > nonempty_size(self, d);
  }
  if (src) {
    for (int64_t d = 0; d < nd && !wrong_shape; ++d) {
      wrong_shape = nonempty_size(index, d) > nonempty_size(*src, d);
    }
    EMBER_CHECK(nonempty_dim(*src) == nonempty_dim(index),
                "Index tensor must have the same number of dimensions as src tensor");
    EMBER_CHECK(!wrong_shape, "Expected index ", index.sizes(), " to be smaller than self ",
                self.sizes(), " apart from dimension ", dim, " and to be smaller size than src ",
                src->sizes());
  } else {
    EMBER_CHECK(!wrong_shape, "Expected index ", index.sizes(), " to be smaller than self ",
                self.sizes(), " apart from dimension ", dim);
  }
}

// A 0-d tensor of self's dtype holding `value`, seen with index's sizes: scatter.value runs as
// scatter.src with this stride-0 source.
Tensor value_source(const Tensor& self, const Tensor& index, const Scalar& value) {
  Tensor v = new_tensor({}, self.dtype(), kCPU);
  cpu::fill_kernel(v, value);  // converts as PyTorch's value.to<scalar_t>()
  return ops::make_view(v, index.sizes(), DimVector(static_cast<size_t>(index.dim()), 0), 0);
}

// The data step shared by every scatter: `target` (CPU, already holding self's values) gets
// src written or added at index. Index values are checked before the first write.
void scatter_data(const Tensor& target, int64_t dim, const Tensor& index, const Tensor& src,
                  ScatterMode mode) {
  if (index.numel() == 0) return;
  check_index_values(index, dim, nonempty_size(target, dim));
  cpu::scatter_kernel(as_1d(target), dim, as_1d(index), as_1d(src), mode);
}

// Out-of-place: a copy of self, then the in-place data step. `src` undefined = value form.
Tensor scatter_out_of_place(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            const Scalar& value, ScatterMode mode) {
  const int64_t d = wrap_dim(dim, self.dim());
  check_scatter(self, d, index, src.defined() ? &src : nullptr);
  Tensor out = new_tensor(self.sizes(), self.dtype(),
                          out_device({self, index, src.defined() ? src : self}));
  if (out.is_meta()) return out;
  cpu::copy_kernel(out, self);
  scatter_data(out, d, index, src.defined() ? src : value_source(self, index, value), mode);
  return out;
}

Tensor scatter_in_place(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                        const Tensor& src, const Scalar& value, ScatterMode mode) {
  const int64_t d = wrap_dim(dim, self.dim());
  check_scatter(self, d, index, src.defined() ? &src : nullptr);
  check_inplace_devices(op, self, {index, src.defined() ? src : self});
  ops::check_no_internal_overlap(op, self);
  Tensor safe_index = unaliased(self, index);
  Tensor safe_src = src.defined() ? unaliased(self, src) : src;
  if (!self.is_meta()) {
    scatter_data(self, d, safe_index, src.defined() ? safe_src : value_source(self, index, value),
                 mode);
  }
  return ops::mark_written(self);
}

Tensor scatter_src_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_out_of_place(self, dim, index, src, 0, ScatterMode::Assign);
}
Tensor scatter_value_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_out_of_place(self, dim, index, Tensor(), value, ScatterMode::Assign);
}
Tensor scatter__src_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_in_place("scatter_", self, dim, index, src, 0, ScatterMode::Assign);
}
Tensor scatter__value_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_in_place("scatter_", self, dim, index, Tensor(), value, ScatterMode::Assign);
}
Tensor scatter_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_out_of_place(self, dim, index, src, 0, ScatterMode::Add);
}
Tensor scatter_add__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_in_place("scatter_add_", self, dim, index, src, 0, ScatterMode::Add);
}

// ---- embedding ----

// Rows of `weight` picked by `indices`: index_select on the flattened ids. padding_idx,
// scale_grad_by_freq and sparse shape only the gradient; padding_idx is range-checked as
// torch.nn.functional.embedding does (-1, the default, means none, as in aten::embedding).
Tensor embedding_impl(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                      bool /*scale_grad_by_freq*/, bool /*sparse*/) {
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
              "Expected tensor for argument #1 'indices' to have one of the following scalar "
              "types: Long, Int; but got ember.", scalar_type_name(indices.dtype()),
              "Tensor instead (while checking arguments for embedding)");
  const int64_t rows = weight.size(0);
  EMBER_CHECK(padding_idx == -1 || (padding_idx >= -rows && padding_idx < rows),
              "Padding_idx must be within num_embeddings");
  if (indices.dim() == 1) return index_select_impl(weight, 0, indices);
  Tensor flat;
  if (indices.is_contiguous()) {
    flat = ops::make_view(indices, {indices.numel()}, {1}, indices.storage_offset());
  } else {
    flat = new_tensor({indices.numel()}, indices.dtype(), indices.device());
    if (!flat.is_meta()) {
      cpu::copy_kernel(ops::make_view(flat, indices.sizes(), contiguous_strides(indices.sizes()), 0),
                       indices);
    }
  }
  Tensor rows_out = index_select_impl(weight, 0, flat);
  DimVector sizes = indices.sizes().vec();
  sizes.push_back(weight.size(1));
  return ops::make_view(rows_out, sizes, contiguous_strides(sizes), 0);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor zeros_for(const Tensor& grad, IntArrayRef sizes) {
  return zeros(sizes, TensorOptions(grad.dtype()).device(grad.device()));
}

// A gathered gradient placed in a src of `sizes`: scatter reads only the leading index.sizes()
// block of src (0-d counting as one element), so the rest of src gets zeros. (PyTorch 1.13
// returns the index-shaped gradient as is, which its engine rejects when src is larger.)
Tensor fit_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  if (sizes.empty()) return grad.reshape({});
  Tensor g = grad.dim() == 0 ? grad.reshape(DimVector(sizes.size(), 1)) : grad;
  if (g.sizes() == sizes) return g;
  Tensor out = zeros_for(g, sizes);
  Tensor block = out;
  for (int64_t d = 0; d < g.dim(); ++d) block = block.narrow(d, 0, g.size(d));
  block.copy_(g);
  return out;
}

// d index_select(self, dim, index) = zeros of self's shape with grad's rows added at index
// (scatter_add along dim, the index broadcast over the other dims).
Tensor index_select_autograd(const Tensor& self, const int64_t& dim, const Tensor& index) {
  autograd::Recorder r("IndexSelectBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<index_select_impl>(OpId::index_select, self, dim, index); });
  if (!r) return out;
  const size_t index_ = r.save(index, "index");
  r.values("dim", dim, "self_sizes", self.sizes());
  return r.finish(out, [index_](OpNode& n, const tensor_list& g) {
    Tensor index = n.saved(index_);
    const auto& sizes = n.value(1).to_int_list();
    const int64_t d = sizes.empty() ? 0 : wrap_dim(n.value(0).to_int(), static_cast<int64_t>(sizes.size()));
    if (sizes.empty()) return tensor_list{g[0]};  // a 0-d self: its one element was selected
    DimVector shape(sizes.size(), 1);
    shape[static_cast<size_t>(d)] = index.numel();
    Tensor idx = index.to(kInt64).reshape(shape).expand(g[0].sizes());
    return tensor_list{zeros_for(g[0], sizes).scatter_add(d, idx, g[0])};
  });
}

// d gather(self, dim, index) = zeros of self's shape with grad added at index. PyTorch saves
// self (for its shape), so writing self in place before the backward is an error here too;
// sparse_grad has no sparse layout to return in ember: the gradient is dense.
Tensor gather_autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const bool& sparse_grad) {
  autograd::Recorder r("GatherBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<gather_impl>(OpId::gather, self, dim, index, sparse_grad); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), index_ = r.save(index, "index");
  r.values("dim", dim, "sparse_grad", sparse_grad);
  return r.finish(out, [self_, index_, d = wrap_dim(dim, self.dim())](OpNode& n, const tensor_list& g) {
    Tensor s = n.saved(self_);
    return tensor_list{zeros_for(g[0], s.sizes()).scatter_add(d, n.saved(index_), g[0])};
  });
}


// scatter(self, dim, index, src): self's gradient is grad with the overwritten positions zeroed;
// src's is grad gathered at index (every src element that was written, as PyTorch: with repeated
// indices the write order is unspecified). `src_sizes` empty optional: the value overload.
OpNode::Formula scatter_formula(bool inplace, int64_t d, size_t index_, std::optional<DimVector> src_sizes) {
  return [inplace, d, index_, src_sizes](OpNode& n, const tensor_list& g) {
    Tensor index = n.saved(index_);
    tensor_list grads{n.needs(0) ? g[0].scatter(d, index, 0.0) : Tensor()};
    if (src_sizes) grads.push_back(n.needs(1) ? fit_to(g[0].gather(d, index), *src_sizes) : Tensor());
    return grads;
  };
}

// scatter_add(self, dim, index, src): self's gradient is grad; src's is grad gathered at index.
OpNode::Formula scatter_add_formula(bool inplace, int64_t d, size_t index_, DimVector src_sizes) {
  return [inplace, d, index_, src_sizes](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? g[0] : Tensor(),
                       n.needs(1) ? fit_to(g[0].gather(d, n.saved(index_)), src_sizes) : Tensor()};
  };
}

template <OpId id, Tensor (*impl)(const Tensor&, int64_t, const Tensor&, const Tensor&)>
Tensor scatter_src_autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Tensor& src) {
  constexpr bool add = id == OpId::scatter_add || id == OpId::scatter_add_;
  constexpr bool inplace = id == OpId::scatter__src || id == OpId::scatter_add_;
  autograd::Recorder r(add ? "ScatterAddBackward0" : "ScatterBackward0", self, src);
  if constexpr (inplace) autograd::check_inplace_if(r, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, dim, index, src); });
  if (!r) return out;
  const size_t index_ = r.save(index, "index");
  r.values("dim", dim);
  const int64_t d = wrap_dim(dim, self.dim());
  OpNode::Formula f = add ? scatter_add_formula(inplace, d, index_, src.sizes().vec())
                          : scatter_formula(inplace, d, index_, src.sizes().vec());
  if constexpr (inplace) {
    r.finish_inplace(self, std::move(f));
    return self;
  } else {
    return r.finish(out, std::move(f));
  }
}

template <OpId id, Tensor (*impl)(const Tensor&, int64_t, const Tensor&, const Scalar&)>
Tensor scatter_value_autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Scalar& value) {
  constexpr bool inplace = id == OpId::scatter__value;
  autograd::Recorder r("ScatterBackward1", self);
  if constexpr (inplace) autograd::check_inplace_if(r, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, dim, index, value); });
  if (!r) return out;
  r.values("dim", dim);
  OpNode::Formula f = scatter_formula(inplace, wrap_dim(dim, self.dim()), r.save(index, "index"), std::nullopt);
  if constexpr (inplace) {
    r.finish_inplace(self, std::move(f));
    return self;
  } else {
    return r.finish(out, std::move(f));
  }
}

// The factor each looked-up row's gradient is scaled by in embedding's backward: 1 / (the row's
// count in indices) with scale_grad_by_freq, 0 for rows equal to padding_idx (when >= 0, as
// aten's); undefined when every factor is 1. No history: it depends on indices only.
Tensor embedding_row_factor(const Tensor& idx, int64_t num_weights, int64_t padding_idx,
                            bool scale_grad_by_freq, const TensorOptions& opts) {
  if (!scale_grad_by_freq && padding_idx < 0) return Tensor();
  Tensor factor = ones({idx.numel()}, opts);
  if (scale_grad_by_freq) {
    Tensor counts = zeros({num_weights}, opts).scatter_add(0, idx, factor);
    factor = 1.0 / counts.gather(0, idx);
  }
  if (padding_idx >= 0) factor = factor * (idx != padding_idx).to(opts.dtype_.value_or(kFloat32));
  return factor;
}

// embedding_dense_backward (PyTorch's op for embedding's gradient): each looked-up row's
// gradient added into its row of a (num_weights, D) result (repeats accumulate), scaled by
// embedding_row_factor. A body of Tensor ops on plain tensors (below every layer).
Tensor embedding_dense_backward_impl(const Tensor& grad_output, const Tensor& indices,
                                     int64_t num_weights, int64_t padding_idx,
                                     bool scale_grad_by_freq) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
              "Expected tensor for argument #1 'indices' to have one of the following scalar "
              "types: Long, Int; but got ember.", scalar_type_name(indices.dtype()),
              "Tensor instead (while checking arguments for embedding_backward)");
  EMBER_CHECK(grad_output.dim() >= 1, "embedding_dense_backward: expected grad_output with at least ",
              "1 dimension, but got a 0-d tensor");
  const int64_t cols = grad_output.size(-1);
  const TensorOptions opts = TensorOptions(grad_output.dtype()).device(grad_output.device());
  if (grad_output.is_meta()) return empty({num_weights, cols}, opts);
  Tensor idx = indices.reshape({-1}).to(kInt64);
  Tensor grad_rows = grad_output.reshape({idx.numel(), cols});
  Tensor factor = embedding_row_factor(idx, num_weights, padding_idx, scale_grad_by_freq, opts);
  if (factor.defined()) grad_rows = grad_rows * factor.unsqueeze(1);
  Tensor grad = zeros({num_weights, cols}, opts);
  index_put_(grad, {idx}, grad_rows, /*accumulate=*/true);
  return grad;
}

// d embedding(weight, indices) = embedding_dense_backward(grad, indices, rows, ...). PyTorch
// saves weight and indices. `sparse` asks for a sparse gradient, a layout ember has not: dense.
Tensor embedding_autograd(const Tensor& weight, const Tensor& indices, const int64_t& padding_idx,
                          const bool& scale_grad_by_freq, const bool& sparse) {
  autograd::Recorder r("EmbeddingBackward0", weight);
  Tensor out = r.forward([&] {
    return dispatch::call<embedding_impl>(OpId::embedding, weight, indices, padding_idx, scale_grad_by_freq, sparse);
  });
  if (!r) return out;
  const size_t weight_ = r.save(weight, "weight"), indices_ = r.save(indices, "indices");
  r.values("padding_idx", padding_idx, "scale_grad_by_freq", scale_grad_by_freq, "sparse", sparse);
  return r.finish(out, [weight_, indices_](OpNode& n, const tensor_list& g) {
    const int64_t rows = n.saved(weight_).size(0);
    return tensor_list{embedding_dense_backward(g[0], n.saved(indices_), rows, n.value(0).to_int(),
                                                n.value(1).to_bool())};
  });
}

// d embedding_dense_backward(go, ...) for go: the rows of grad that were looked up, scaled by
// the same factor (linear in go; no gradient for indices).
Tensor embedding_dense_backward_autograd(const Tensor& grad_output, const Tensor& indices,
                                         const int64_t& num_weights, const int64_t& padding_idx,
                                         const bool& scale_grad_by_freq) {
  autograd::Recorder r("EmbeddingDenseBackwardBackward0", grad_output);
  Tensor out = r.forward([&] {
    return dispatch::call<embedding_dense_backward_impl>(OpId::embedding_dense_backward, grad_output,
                                                         indices, num_weights, padding_idx,
                                                         scale_grad_by_freq);
  });
  if (!r) return out;
  const size_t indices_ = r.save(indices, "indices");
  r.values("padding_idx", padding_idx);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor indices = n.saved(indices_);
    Tensor idx = indices.reshape({-1}).to(kInt64);
    Tensor rows = g[0].index_select(0, idx);
    const TensorOptions opts = TensorOptions(g[0].dtype()).device(g[0].device());
    Tensor factor = embedding_row_factor(idx, num_weights, padding_idx, scale_grad_by_freq, opts);
    if (factor.defined()) rows = rows * factor.unsqueeze(1);
    DimVector sizes = indices.sizes().vec();
    sizes.push_back(g[0].size(1));
    return tensor_list{rows.reshape(sizes)};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(index_select, &index_select_autograd);
EMBER_REGISTER_AUTOGRAD(gather, &gather_autograd);
EMBER_REGISTER_AUTOGRAD(scatter_src, (&scatter_src_autograd<OpId::scatter_src, scatter_src_impl>));
EMBER_REGISTER_AUTOGRAD(scatter__src, (&scatter_src_autograd<OpId::scatter__src, scatter__src_impl>));
EMBER_REGISTER_AUTOGRAD(scatter_add, (&scatter_src_autograd<OpId::scatter_add, scatter_add_impl>));
EMBER_REGISTER_AUTOGRAD(scatter_add_, (&scatter_src_autograd<OpId::scatter_add_, scatter_add__impl>));
EMBER_REGISTER_AUTOGRAD(scatter_value, (&scatter_value_autograd<OpId::scatter_value, scatter_value_impl>));
EMBER_REGISTER_AUTOGRAD(scatter__value, (&scatter_value_autograd<OpId::scatter__value, scatter__value_impl>));
EMBER_REGISTER_AUTOGRAD(embedding, &embedding_autograd);
EMBER_REGISTER_AUTOGRAD(embedding_dense_backward, &embedding_dense_backward_autograd);

namespace {

// ---- schema-shaped frontends (argument order as in ops.def) ----
Tensor gather_op(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return dispatch::call<gather_impl>(OpId::gather, self, dim, index, sparse_grad);
}
Tensor scatter_src_op(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return dispatch::call<scatter_src_impl>(OpId::scatter_src, self, dim, index, src);
}
Tensor scatter_value_op(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return dispatch::call<scatter_value_impl>(OpId::scatter_value, self, dim, index, value);
}
Tensor& scatter__src_op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dispatch::call<scatter__src_impl>(OpId::scatter__src, self, dim, index, src);
  return self;
}
Tensor& scatter__value_op(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dispatch::call<scatter__value_impl>(OpId::scatter__value, self, dim, index, value);
  return self;
}
Tensor& scatter_add__op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dispatch::call<scatter_add__impl>(OpId::scatter_add_, self, dim, index, src);
  return self;
}
Tensor embedding_op(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                    bool scale_grad_by_freq, bool sparse) {
  return dispatch::call<embedding_impl>(OpId::embedding, weight, indices, padding_idx,
                                        scale_grad_by_freq, sparse);
}

}  // namespace

// ---- public API ----
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return dispatch::call<index_select_impl>(OpId::index_select, self, dim, index);
}
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  return gather_op(self, dim, index, false);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_src_op(self, dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_value_op(self, dim, index, value);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter__src_op(self, dim, index, src);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter__value_op(self, dim, index, value);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return dispatch::call<scatter_add_impl>(OpId::scatter_add, self, dim, index, src);
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_add__op(self, dim, index, src);
}
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq, bool sparse) {
  return embedding_op(weight, indices, padding_idx, scale_grad_by_freq, sparse);
}

using ScatterAddFn = Tensor (*)(const Tensor&, int64_t, const Tensor&, const Tensor&);
EMBER_REGISTER_OP(index_select, &index_select);
EMBER_REGISTER_OP(gather, &gather_op);
EMBER_REGISTER_OP(scatter_src, &scatter_src_op);
EMBER_REGISTER_OP(scatter_value, &scatter_value_op);
EMBER_REGISTER_OP(scatter__src, &scatter__src_op);
EMBER_REGISTER_OP(scatter__value, &scatter__value_op);
EMBER_REGISTER_OP(scatter_add, static_cast<ScatterAddFn>(&scatter_add));
EMBER_REGISTER_OP(scatter_add_, &scatter_add__op);
EMBER_REGISTER_OP(embedding, &embedding_op);
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  return dispatch::call<embedding_dense_backward_impl>(OpId::embedding_dense_backward, grad_output,
                                                       indices, num_weights, padding_idx,
                                                       scale_grad_by_freq);
}
EMBER_REGISTER_OP(embedding_dense_backward, &embedding_dense_backward);

// ---- Tensor methods ----
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return ember::gather(*this, dim, index); }
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  return ember::scatter_(*this, dim, index, src);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  return ember::scatter_(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  return ember::scatter_add_(*this, dim, index, src);
}

}  // namespace ember
