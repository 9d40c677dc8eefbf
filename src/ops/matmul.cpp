// Matrix products: mm, bmm, addmm (primitives with CPU kernels in
// src/backends/cpu/matmul_kernels.cpp) and matmul, linear (composites over them and the views).
// Checks, their order and their texts follow PyTorch 1.13's meta functions and kernels.
#include "ember/ops/linalg.h"

#include "ember/ops/complex.h"

#include "../autograd/record.h"
#include "../backends/cpu/matmul_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's kernels find a dtype mismatch when they read mat2 as self's scalar type, hence
// this text. ember checks up front, also on meta and empty operands (where PyTorch's kernel
// happens not to run and a mixed-dtype product slips through).
void check_same_dtype(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dtype() == other.dtype(), "expected scalar type ",
              scalar_type_name(self.dtype()), " but found ", scalar_type_name(other.dtype()));
}

// Bool and quantized element types have no product kernel; `kernel` is the name PyTorch's
// dtype switch reports.
void check_product_dtype(const char* kernel, ScalarType dtype) {
  EMBER_CHECK(dtype != kBool && !is_quantized(dtype), "\"", kernel, "\" not implemented for '",
              scalar_type_name(dtype), "'");
}

void check_mm_shapes(const Tensor& mat1, const Tensor& mat2) {
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (",
              mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
}

Tensor new_product(IntArrayRef shape, ScalarType dtype, Device device) {
  return empty(shape, TensorOptions(dtype).device(device));
}

// ---- primitives ----

Tensor mm_impl(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 2, "self must be a matrix");
  EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  check_mm_shapes(self, mat2);
  check_same_dtype(self, mat2);
  check_product_dtype("addmm_impl_cpu_", self.dtype());
  const Device device = ops::common_device("mm", {self, mat2});
  Tensor out = new_product({self.size(0), mat2.size(1)}, self.dtype(), device);
  if (!out.is_meta()) cpu::addmm_kernel(out, Tensor(), self, mat2, 0, 1);
  return out;
}

Tensor bmm_impl(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t batch = self.size(0), contraction = self.size(2);
  EMBER_CHECK(mat2.size(0) == batch && mat2.size(1) == contraction,
              "Expected size for first two dimensions of batch2 tensor to be: [", batch, ", ",
              contraction, "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  check_same_dtype(self, mat2);
  check_product_dtype("bmm", self.dtype());
  const Device device = ops::common_device("bmm", {self, mat2});
  Tensor out = new_product({batch, self.size(1), mat2.size(2)}, self.dtype(), device);
  if (!out.is_meta()) cpu::addmm_kernel(out, Tensor(), self, mat2, 0, 1);
  return out;
}

Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                  const Scalar& alpha) {
  EMBER_CHECK(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
  EMBER_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
  EMBER_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes(mat1, mat2);
  const Device device = ops::common_device("addmm", {self, mat1, mat2});
  const DimVector shape{mat1.size(0), mat2.size(1)};
  // PyTorch broadcasts self with expand, and so reports a mismatch in expand's words.
  Tensor bias = expand(self, shape);
  check_product_dtype("addmm_impl_cpu_", mat1.dtype());
  Tensor out = new_product(shape, mat1.dtype(), device);
  if (!out.is_meta()) cpu::addmm_kernel(out, bias, mat1, mat2, beta, alpha);
  return out;
}

// ---- matmul's building blocks PyTorch dispatches as dot and mv ----
// ember's op table has no dot / mv rows; their checks and texts are PyTorch's, and the product
// is an mm on views (so overrides see aten::mm).

Tensor dot_via_mm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
              scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  EMBER_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(),
              "] and src [", b.numel(), "] to have the same number of elements, but got ",
              a.numel(), " and ", b.numel(), " elements respectively");
  check_product_dtype("dot", a.dtype());
  return view(mm(unsqueeze(a, 0), unsqueeze(b, 1)), {});
}

Tensor mv_via_mm(const Tensor& mat, const Tensor& vec) {
  EMBER_CHECK(mat.size(1) == vec.size(0), "size mismatch, got ", mat.size(0), ", ", mat.size(0),
              "x", mat.size(1), ",", vec.size(0));
  check_same_dtype(mat, vec);
  check_product_dtype("addmv_impl_cpu", mat.dtype());
  return squeeze(mm(mat, unsqueeze(vec, 1)), 1);
}

// Note [matmul folding]
// A batch of matrices times one matrix (or vector) is one big mm when the batch dims fold into
// the rows without a copy: [b, n, k] @ [k, p] -> ([b*n, k] @ [k, p]).view(b, n, p). PyTorch
// 1.13 folds whenever one side is >= 3-D and the other 1-D or 2-D, except for a 3-D left operand
// whose last two dims are transposed under a slowest batch dim (permute(0, 2, 1)): folding it
// would copy, while bmm takes each transposed matrix as it is. When the right side is the
// batched one, the product is computed transposed (b^T @ a^T)^T.
bool should_fold(const Tensor& t1, int64_t dim_t2) {
  if (t1.dim() < 3 || (dim_t2 != 1 && dim_t2 != 2)) return false;
  const bool transposed_batch = t1.dim() == 3 && dim_t2 == 2 && t1.stride(2) != 1 &&
                                t1.stride(0) == t1.size(1) * t1.size(2);
  return !transposed_batch;
}

Tensor matmul_folded(const Tensor& tensor1, const Tensor& tensor2) {
  const int64_t dim1 = tensor1.dim(), dim2 = tensor2.dim();
  const bool transpose = dim2 > dim1;
  const Tensor t1 = transpose ? ember::transpose(tensor2, -2, -1) : tensor1;
  const Tensor t2 = !transpose ? tensor2 : dim1 == 2 ? ember::t(tensor1) : tensor1;
  const IntArrayRef sizes1 = t1.sizes();
  DimVector out_shape(sizes1.begin(), sizes1.end() - 1);
  // Not view(-1, k): with k == 0 the -1 would be ambiguous.
  const Tensor t1_folded = reshape(t1, {compute_numel(out_shape), sizes1.back()});
  if (t2.dim() == 1) return _unsafe_view(mv_via_mm(t1_folded, t2), out_shape);
  out_shape.push_back(t2.size(1));
  Tensor out = _unsafe_view(mm(t1_folded, t2), out_shape);
  return transpose ? contiguous(ember::transpose(out, -2, -1)) : out;
}

// Both sides batched (or one side 1-D/2-D and not foldable): broadcast the batch dims, flatten
// them, and run one bmm.
Tensor matmul_batched(const Tensor& tensor1, const Tensor& tensor2) {
  const int64_t dim1 = tensor1.dim(), dim2 = tensor2.dim();
  const int64_t n = dim1 > 1 ? tensor1.size(-2) : 1;
  const int64_t m1 = tensor1.size(-1);
  const IntArrayRef batch1 = tensor1.sizes().slice(0, std::max<int64_t>(dim1 - 2, 0));
  const int64_t m2 = dim2 > 1 ? tensor2.size(-2) : tensor2.size(0);
  const int64_t p = dim2 > 1 ? tensor2.size(-1) : 1;
  const IntArrayRef batch2 = tensor2.sizes().slice(0, std::max<int64_t>(dim2 - 2, 0));

  DimVector out_shape = broadcast_shapes(batch1, batch2);
  const int64_t batch = compute_numel(out_shape);

  DimVector size1 = out_shape;
  size1.insert(size1.end(), {n, m1});
  const Tensor t1 = reshape(expand(tensor1, size1), {batch, n, m1});
  const bool vector_rhs = dim2 == 1;
  DimVector size2 = out_shape;
  if (vector_rhs) {
    size2.push_back(m2);
  } else {
    size2.insert(size2.end(), {m2, p});
  }
  // A vector does not broadcast to a batch of (m2, 1) matrices by itself: add the column dim.
  const Tensor t2 = vector_rhs ? unsqueeze(reshape(expand(tensor2, size2), {batch, m2}), 2)
                               : reshape(expand(tensor2, size2), {batch, m2, p});
  if (dim1 > 1) out_shape.push_back(n);
  if (dim2 > 1) out_shape.push_back(p);
  Tensor out = bmm(t1, t2);
  return _unsafe_view(vector_rhs ? squeeze(out, -1) : out, out_shape);
}

// ---- composites ----

Tensor matmul_impl(const Tensor& tensor1, const Tensor& tensor2) {
  const int64_t dim1 = tensor1.dim(), dim2 = tensor2.dim();
  EMBER_CHECK(dim1 != 0 && dim2 != 0, "both arguments to matmul need to be at least 1D, but they are ",
              dim1, "D and ", dim2, "D");
  if (dim1 == 1 && dim2 == 1) return dot_via_mm(tensor1, tensor2);
  if (dim1 == 2 && dim2 == 1) return mv_via_mm(tensor1, tensor2);
  if (dim1 == 1 && dim2 == 2) return squeeze(mm(unsqueeze(tensor1, 0), tensor2), 0);
  if (dim1 == 2 && dim2 == 2) return mm(tensor1, tensor2);
  if (should_fold(tensor1, dim2) || should_fold(tensor2, dim1)) {
    return matmul_folded(tensor1, tensor2);
  }
  return matmul_batched(tensor1, tensor2);
}

// As PyTorch 1.13's linear: the fused addmm where the input is (or views as) a matrix, else
// matmul then add. Every step is a dispatched op, so a dispatch-level override sees aten::t,
// aten::addmm / aten::mm / aten::bmm and aten::add.
Tensor linear_impl(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias && input.dim() == 2) return addmm(*bias, input, t(weight));
  if (has_bias && input.dim() == 3 && input.is_contiguous()) {
    const IntArrayRef s = input.sizes();
    Tensor out = addmm(*bias, view(input, {s[0] * s[1], s[2]}), t(weight));
    return view(out, {s[0], s[1], out.size(1)});
  }
  Tensor out = matmul(input, t(weight));
  return has_bias ? add(out, *bias) : out;
}

}  // namespace

// ---- autograd ----
// PyTorch's mm_mat1_backward / mm_mat2_backward: grad @ mat2^T and mat1^T @ grad, computed
// transposed when the input was column-major so its gradient comes out column-major too.
// matmul and linear are composites: their views and products record themselves.
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// t * s, skipping the multiplication when s is 1 (PyTorch's maybe_multiply).
Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool is_one = s.is_complex() ? s.to_complex() == 1.0
                      : s.is_floating() ? s.to_double() == 1.0 : s.to<int64_t>() == 1;
  return is_one ? t : t * s;
}

bool is_column_major(IntArrayRef sizes, IntArrayRef strides) {
  return strides[0] == 1 && strides[1] == sizes[0];
}

// Complex operands: the adjoints (mat2^H, mat1^H) and conj(alpha) (Note [Complex autograd]);
// conj_if_complex is free on real tensors.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2_in, IntArrayRef mat1_sizes,
                        IntArrayRef mat1_strides, const Scalar& alpha_in) {
  const Tensor mat2 = conj_if_complex(mat2_in);
  const Scalar alpha = alpha_in.is_complex() ? Scalar(std::conj(alpha_in.to_complex())) : alpha_in;
  if (is_column_major(mat1_sizes, mat1_strides)) return maybe_multiply(mat2.mm(grad.t()).t(), alpha);
  return maybe_multiply(grad.mm(mat2.t()), alpha);
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1_in, IntArrayRef mat2_sizes,
                        IntArrayRef mat2_strides, const Scalar& alpha_in) {
  const Tensor mat1 = conj_if_complex(mat1_in);
  const Scalar alpha = alpha_in.is_complex() ? Scalar(std::conj(alpha_in.to_complex())) : alpha_in;
  if (is_column_major(mat2_sizes, mat2_strides)) return maybe_multiply(grad.t().mm(mat1).t(), alpha);
  return maybe_multiply(mat1.t().mm(grad), alpha);
}

// An operand's strides when its gradient is wanted, else none (what PyTorch's node keeps).
std::vector<int64_t> strides_if(bool wanted, const Tensor& t) {
  return wanted ? t.strides().vec() : std::vector<int64_t>{};
}

Tensor mm_autograd(const Tensor& self, const Tensor& mat2) {
  autograd::Recorder r("MmBackward0", self, mat2);
  Tensor out = r.forward([&] { return dispatch::call<mm_impl>(OpId::mm, self, mat2); });
  if (!r) return out;
  const size_t mat2_ = r.save_if(r.needs(0), mat2, "mat2"), self_ = r.save_if(r.needs(1), self, "self");
  // As PyTorch, the strides of an operand are kept only for its own gradient (else empty).
  r.values("mat2_sym_sizes", mat2.sizes(), "mat2_sym_strides", strides_if(r.needs(1), mat2),
           "self_sym_sizes", self.sizes(), "self_sym_strides", strides_if(r.needs(0), self));
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{
        n.needs(0) ? mm_mat1_backward(g[0], n.saved(mat2_), n.value(2).to_int_list(), n.value(3).to_int_list(), 1)
                   : Tensor(),
        n.needs(1) ? mm_mat2_backward(g[0], n.saved(self_), n.value(0).to_int_list(), n.value(1).to_int_list(), 1)
                   : Tensor()};
  });
  return out;
}

// d bmm: grad @ mat2^T and self^T @ grad, matrix by matrix.
Tensor bmm_autograd(const Tensor& self, const Tensor& mat2) {
  autograd::Recorder r("BmmBackward0", self, mat2);
  Tensor out = r.forward([&] { return dispatch::call<bmm_impl>(OpId::bmm, self, mat2); });
  if (!r) return out;
  const size_t mat2_ = r.save_if(r.needs(0), mat2, "mat2"), self_ = r.save_if(r.needs(1), self, "self");
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? g[0].bmm(conj_if_complex(n.saved(mat2_)).transpose(1, 2)) : Tensor(),
                       n.needs(1) ? conj_if_complex(n.saved(self_)).transpose(1, 2).bmm(g[0]) : Tensor()};
  });
  return out;
}

// d addmm = beta * grad (summed to self's shape by the engine), and mm's gradients times alpha.
Tensor addmm_autograd(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                      const Scalar& alpha) {
  autograd::Recorder r("AddmmBackward0", self, mat1, mat2);
  Tensor out = r.forward([&] { return dispatch::call<addmm_impl>(OpId::addmm, self, mat1, mat2, beta, alpha); });
  if (!r) return out;
  const size_t mat2_ = r.save_if(r.needs(1), mat2, "mat2"), mat1_ = r.save_if(r.needs(2), mat1, "mat1");
  r.values("alpha", alpha, "beta", beta, "mat1_sym_sizes", mat1.sizes(),
           "mat1_sym_strides", strides_if(r.needs(1), mat1), "mat2_sym_sizes", mat2.sizes(),
           "mat2_sym_strides", strides_if(r.needs(2), mat2));
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Scalar alpha = n.value(0).to_scalar(), beta = n.value(1).to_scalar();
    return tensor_list{
        n.needs(0) ? maybe_multiply(g[0], beta.is_complex() ? Scalar(std::conj(beta.to_complex())) : beta) : Tensor(),
        n.needs(1) ? mm_mat1_backward(g[0], n.saved(mat2_), n.value(2).to_int_list(), n.value(3).to_int_list(), alpha)
                   : Tensor(),
        n.needs(2) ? mm_mat2_backward(g[0], n.saved(mat1_), n.value(4).to_int_list(), n.value(5).to_int_list(), alpha)
                   : Tensor()};
  });
  return out;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(mm, &mm_autograd);
EMBER_REGISTER_AUTOGRAD(bmm, &bmm_autograd);
EMBER_REGISTER_AUTOGRAD(addmm, &addmm_autograd);

Tensor mm(const Tensor& self, const Tensor& mat2) {
  return dispatch::call<mm_impl>(OpId::mm, self, mat2);
}
Tensor bmm(const Tensor& self, const Tensor& mat2) {
  return dispatch::call<bmm_impl>(OpId::bmm, self, mat2);
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  return dispatch::call<addmm_impl>(OpId::addmm, self, mat1, mat2, beta, alpha);
}
Tensor matmul(const Tensor& self, const Tensor& other) {
  return dispatch::call<matmul_impl>(OpId::matmul, self, other);
}
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return dispatch::call<linear_impl>(OpId::linear, input, weight, bias);
}

EMBER_REGISTER_OP(mm, &mm);
EMBER_REGISTER_OP(bmm, &bmm);
EMBER_REGISTER_OP(addmm, &addmm);
EMBER_REGISTER_OP(matmul, &matmul);
EMBER_REGISTER_OP(linear, &linear);

Tensor Tensor::mm(const Tensor& mat2) const { return ember::mm(*this, mat2); }
Tensor Tensor::bmm(const Tensor& mat2) const { return ember::bmm(*this, mat2); }
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}

}  // namespace ember
