// Concatenation: cat (primitive) and stack (composite: unsqueeze every input, then cat).
#include "ember/ops/index_ops.h"

#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// Before tensors could be empty in any other shape, 1-d tensors of shape [0] were the only empty
// ones, so cat accepted them next to tensors of any rank. PyTorch keeps skipping them (only this
// exact shape) for backward compatibility, and so does ember.
bool skipped_in_cat(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

void check_cat_shape(const Tensor& first, const Tensor& t, int64_t dim, size_t index) {
  EMBER_CHECK(first.dim() == t.dim(), "Tensors must have same number of dimensions: got ",
              first.dim(), " and ", t.dim());
  for (int64_t d = 0; d < first.dim(); ++d) {
    if (d == dim) continue;
    EMBER_CHECK(first.size(d) == t.size(d), "Sizes of tensors must match except in dimension ", dim,
                ". Expected size ", first.size(d), " but got size ", t.size(d), " for tensor number ",
                index, " in the list.");
  }
}

// The result holds every input converted to their promoted dtype (torch.result_type). Its
// device is meta if any input is meta (PyTorch's Meta key outranks CPU; see Note [Devices of
// index ops] in index_ops.cpp): a meta result has a shape and nothing to copy.
Tensor cat_impl(ArrayRef<Tensor> tensors, int64_t dim) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
  }
  EMBER_CHECK(!tensors.empty(), "ember.cat(): expected a non-empty list of Tensors");
  const ScalarType dtype = result_type(tensors);
  Device device = kCPU;
  const Tensor* first = nullptr;  // the first tensor that is not skipped
  for (const Tensor& t : tensors) {
    if (t.is_meta()) device = kMeta;
    if (!first && !skipped_in_cat(t)) first = &t;
  }
  if (!first) {  // only [0]-shaped inputs: dim is not even checked, as in PyTorch
    return Tensor(make_intrusive<TensorImpl>(IntArrayRef{0}, dtype, device));
  }
  const int64_t d = wrap_dim(dim, first->dim());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (skipped_in_cat(tensors[i])) continue;
    check_cat_shape(*first, tensors[i], d, i);
    total += tensors[i].size(d);
  }
  DimVector sizes = first->sizes().vec();
  sizes[d] = total;
  Tensor out(make_intrusive<TensorImpl>(sizes, dtype, device));
  if (out.is_meta() || out.numel() == 0) return out;
  // Each input is copied (and converted) into its slab of the output; copy_kernel splits large
  // copies over threads (one memcpy per slab when cat runs along dim 0 of contiguous inputs).
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped_in_cat(t)) continue;
    Tensor slab = ops::make_view(out, t.sizes(), out.strides(),
                                 out.storage_offset() + offset * out.stride(d));
    cpu::copy_kernel(slab, t);
    offset += t.size(d);
  }
  return out;
}

Tensor stack_impl(ArrayRef<Tensor> tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes().equals(tensors[0].sizes()),
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, d));
  return cat(parts, d);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d cat(tensors, dim) = each input's slab of grad (narrowed along dim); a skipped legacy [0]
// input gets an empty [0] gradient.
Tensor cat_autograd(const ArrayRef<Tensor>& tensors, const int64_t& dim) {
  autograd::Recorder r("CatBackward0", tensors);
  Tensor out = r.forward([&] { return dispatch::call<cat_impl>(OpId::cat, tensors, dim); });
  if (!r) return out;
  // Per input: its length along dim, or -1 when cat skipped it.
  std::vector<int64_t> lengths;
  int64_t d = 0;
  for (const Tensor& t : tensors) {
    if (skipped_in_cat(t)) {
      lengths.push_back(-1);
      continue;
    }
    d = wrap_dim(dim, t.dim());
    lengths.push_back(t.size(d));
  }
  r.values("dim", dim);
  return r.finish(out, [lengths, d](OpNode& n, const tensor_list& g) {
    tensor_list grads(lengths.size());
    int64_t offset = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] < 0) {
        if (n.needs(i)) grads[i] = zeros({0}, TensorOptions(g[0].dtype()).device(g[0].device()));
        continue;
      }
      if (n.needs(i)) grads[i] = g[0].narrow(d, offset, lengths[i]);
      offset += lengths[i];
    }
    return grads;
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(cat, &cat_autograd);

Tensor cat(ArrayRef<Tensor> tensors, int64_t dim) {
  return dispatch::call<cat_impl>(OpId::cat, tensors, dim);
}
Tensor stack(ArrayRef<Tensor> tensors, int64_t dim) {
  return dispatch::call<stack_impl>(OpId::stack, tensors, dim);
}

EMBER_REGISTER_OP(cat, &cat);
EMBER_REGISTER_OP(stack, &stack);

}  // namespace ember
