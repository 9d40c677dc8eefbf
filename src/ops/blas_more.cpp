// The rest of the BLAS family: addmv, addr, baddbmm, addbmm (primitives with backward rules)
// and the in-place forms addmv_, addr_, baddbmm_, addbmm_, addmm_. The products run in
// cpu::addmm_kernel (src/backends/cpu/matmul_kernels.cpp, GEMM libraries for float / double);
// addr is an elementwise kernel with type promotion, as in PyTorch. Checks, their order and their
// texts are PyTorch 1.13's (its meta functions and CPU kernels).
#include "ember/ops/blas.h"

#include "ember/ops/complex.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../backends/cpu/matmul_kernels.h"
#include "../backends/cpu/math_more_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

void check_product_dtype(const char* kernel, ScalarType dtype) {
  EMBER_CHECK(dtype != kBool && !is_quantized(dtype), "\"", kernel, "\" not implemented for '",
              scalar_type_name(dtype), "'");
}

// PyTorch's kernels read the second operand as the first one's scalar type.
void check_same_dtype(const Tensor& first, const Tensor& second) {
  EMBER_CHECK(first.dtype() == second.dtype(), "expected scalar type ", scalar_type_name(first.dtype()),
              " but found ", scalar_type_name(second.dtype()));
}

Tensor new_result(IntArrayRef shape, ScalarType dtype, Device device) {
  return empty(shape, TensorOptions(dtype).device(device));
}

bool is_zero(const Scalar& s) { return s.to_complex() == std::complex<double>(0.0, 0.0); }

// An empty contraction (k == 0, or no batches for addbmm) leaves beta * self, or zeros.
Tensor scaled_bias(const Tensor& out, const Tensor& bias, const Scalar& beta) {
  if (is_zero(beta)) {
    Tensor o = out;
    o.zero_();
  } else {
    cpu::copy_kernel(out, bias);
    cpu::scale_kernel(out, beta);
  }
  return out;
}

// ---- functional primitives ----

Tensor addmv_impl(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                  const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1,
              "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == self.numel() || self.numel() == 1),
              "size mismatch, got ", self.dim() == 1 ? self.size(0) : self.numel(), ", ", mat.size(0),
              "x", mat.size(1), ",", vec.size(0));
  const Device device = ops::common_device("addmv", {self, mat, vec});
  // The result takes vec's dtype and self is copied into it, whatever its dtype (PyTorch).
  check_same_dtype(mat, vec);
  check_product_dtype("addmv_impl_cpu", mat.dtype());
  const int64_t m = mat.size(0);
  Tensor out = new_result({m}, vec.dtype(), device);
  if (out.is_meta()) return out;
  const Tensor bias = expand(ops::cast(self, vec.dtype()), {m});
  if (mat.size(1) == 0) return scaled_bias(out, bias, beta);
  cpu::addmm_kernel(out.unsqueeze(1), bias.unsqueeze(1), mat, vec.unsqueeze(1), beta, alpha);
  return out;
}

void check_addr_scalar(ScalarType dtype, const Scalar& s, const char* name) {
  EMBER_CHECK(!s.is_bool() || dtype == kBool, "Boolean ", name, " only supported for Boolean results.");
  EMBER_CHECK(is_floating(dtype) || is_complex(dtype) || s.is_integral() || s.is_bool(),
              "For integral input tensors, argument ", name, " must not be a floating point number.");
}

void check_1d(const Tensor& t, const char* arg) {
  EMBER_CHECK(t.dim() == 1, "addr: Expected 1-D argument ", arg, ", but got ", t.dim(), "-D");
}

Tensor addr_impl(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                 const Scalar& alpha) {
  check_1d(vec1, "vec1");
  check_1d(vec2, "vec2");
  ops::check_not_quantized("addr", {self, vec1, vec2});
  const Device device = ops::common_device("addr", {self, vec1, vec2});
  const DimVector shape{vec1.size(0), vec2.size(0)};
  const Tensor self_ = expand(self, shape);  // PyTorch's expand_size: expand's error text
  const ScalarType dtype = result_type({self, vec1, vec2});
  check_addr_scalar(dtype, beta, "beta");
  check_addr_scalar(dtype, alpha, "alpha");
  Tensor out = new_result(shape, dtype, device);
  if (!out.is_meta()) {
    cpu::addr_kernel(out, ops::cast(self_, dtype), ops::cast(vec1, dtype).unsqueeze(1),
                     ops::cast(vec2, dtype), beta, alpha);
  }
  return out;
}

Tensor baddbmm_impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                    const Scalar& alpha) {
  // PyTorch expands self before it looks at the batches' ranks.
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  const DimVector shape{batch1.size(0), batch1.size(1), batch2.size(2)};
  const Tensor self_ = expand(self, shape);
  EMBER_CHECK(batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2),
              "Expected size for first two dimensions of batch2 tensor to be: [", batch1.size(0), ", ",
              batch1.size(2), "] but got: [", batch2.size(0), ", ", batch2.size(1), "].");
  const Device device = ops::common_device("baddbmm", {self, batch1, batch2});
  check_same_dtype(batch1, batch2);
  check_product_dtype("baddbmm", batch1.dtype());
  Tensor out = new_result(shape, batch2.dtype(), device);
  if (out.is_meta()) return out;
  const Tensor bias = ops::cast(self_, batch2.dtype());
  if (batch1.size(2) == 0) return scaled_bias(out, bias, beta);
  cpu::addmm_kernel(out, bias, batch1, batch2, beta, alpha);
  return out;
}

Tensor addbmm_impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  const DimVector shape{batch1.size(1), batch2.size(2)};
  const Tensor self_ = expand(self, shape);
  EMBER_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  const Device device = ops::common_device("addbmm", {self, batch1, batch2});
  EMBER_CHECK(self.dtype() == batch2.dtype(), "self and mat2 must have the same dtype");
  EMBER_CHECK(batch1.dtype() == batch2.dtype(), "mat1 and mat2 must have the same dtype");
  check_product_dtype("addmm_impl_cpu_", batch1.dtype());
  Tensor out = new_result(shape, self.dtype(), device);
  if (out.is_meta()) return out;
  const int64_t b = batch1.size(0), n = batch1.size(1), k = batch1.size(2), p = batch2.size(2);
  if (b == 0 || k == 0) return scaled_bias(out, self_, beta);
  // sum_i A[i] @ B[i] is one product: [A[0] A[1] ...] (n x bk) @ [B[0]; B[1]; ...] (bk x p).
  const Tensor a = batch1.transpose(0, 1).reshape({n, b * k});
  const Tensor bb = batch2.reshape({b * k, p});
  cpu::addmm_kernel(out, self_, a, bb, beta, alpha);
  return out;
}

// ---- in-place forms: the functional result written into self ----

void check_inplace_shape(const Tensor& self, const Tensor& result) {
  EMBER_CHECK(self.sizes().equals(result.sizes()), "Bad in-place call: input tensor size ", self.sizes(),
              " and output tensor size ", result.sizes(), " should match");
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), "result type ", scalar_type_name(result.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  ops::check_no_internal_overlap("in-place product", self);
}

Tensor write_into(const Tensor& self, const Tensor& result) {
  if (!self.is_meta()) cpu::copy_kernel(self, result);
  return ops::mark_written(self);
}

Tensor addmv__impl(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                   const Scalar& alpha) {
  Tensor r = addmv_impl(self, mat, vec, beta, alpha);
  check_inplace_shape(self, r);
  return write_into(self, r);
}

Tensor addr__impl(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                  const Scalar& alpha) {
  check_1d(vec1, "vec1");
  check_1d(vec2, "vec2");
  EMBER_CHECK(self.dim() == 2 && self.size(0) == vec1.size(0) && self.size(1) == vec2.size(0),
              "size mismatch, input: ", self.sizes(), ", v1: ", vec1.sizes(), ", v2: ", vec2.sizes());
  Tensor r = addr_impl(self, vec1, vec2, beta, alpha);
  check_inplace_shape(self, r);
  return write_into(self, r);
}

Tensor baddbmm__impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                     const Scalar& alpha) {
  Tensor r = baddbmm_impl(self, batch1, batch2, beta, alpha);
  check_inplace_shape(self, r);
  return write_into(self, r);
}

Tensor addbmm__impl(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                    const Scalar& alpha) {
  Tensor r = addbmm_impl(self, batch1, batch2, beta, alpha);
  check_inplace_shape(self, r);
  return write_into(self, r);
}

Tensor addmm__impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                   const Scalar& alpha) {
  Tensor r = ember::addmm(self, mat1, mat2, beta, alpha);
  check_inplace_shape(self, r);
  return write_into(self, r);
}

// ---- autograd ----
// PyTorch's formulas (derivatives.yaml): self gets beta * grad (the engine sums it to self's
// shape), the operands the product's gradients times alpha; complex operands and scalars enter
// conjugated (Note [Complex autograd]).
using autograd::OpNode;
using autograd::tensor_list;

Scalar conj_scalar(const Scalar& s) { return s.is_complex() ? Scalar(std::conj(s.to_complex())) : s; }

// t * s, skipping the multiplication when s is 1 (PyTorch's maybe_multiply).
Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = s.is_complex() ? s.to_complex() == 1.0 : s.is_floating() ? s.to_double() == 1.0
                                                                          : s.to<int64_t>() == 1;
  return one ? t : t * s;
}

enum class Blas { Addmv, Addr, Baddbmm, Addbmm, Addmm };

constexpr const char* node_name(Blas k) {
  switch (k) {
    case Blas::Addmv: return "AddmvBackward0";
    case Blas::Addr: return "AddrBackward0";
    case Blas::Baddbmm: return "BaddbmmBackward0";
    case Blas::Addbmm: return "AddbmmBackward0";
    case Blas::Addmm: return "AddmmBackward0";
  }
  return "";
}

// d(a), d(b) of the product part alpha * prod(a, b), given the product's gradient g.
tensor_list product_grads(Blas k, const Tensor& g, const Tensor& a, const Tensor& b, bool need_a,
                          bool need_b, const Scalar& alpha) {
  const Scalar al = conj_scalar(alpha);
  Tensor ga, gb;
  switch (k) {
    case Blas::Addmv:  // a: mat, b: vec
      if (need_a) ga = maybe_multiply(outer(g, conj_if_complex(b)), al);
      if (need_b) gb = maybe_multiply(matmul(conj_if_complex(a).t(), g), al);
      break;
    case Blas::Addr:  // a: vec1, b: vec2
      if (need_a) ga = maybe_multiply(matmul(g, conj_if_complex(b)), al);
      if (need_b) gb = maybe_multiply(matmul(g.t(), conj_if_complex(a)), al);
      break;
    case Blas::Baddbmm:
      if (need_a) ga = maybe_multiply(g.bmm(conj_if_complex(b).transpose(1, 2)), al);
      if (need_b) gb = maybe_multiply(conj_if_complex(a).transpose(1, 2).bmm(g), al);
      break;
    case Blas::Addbmm: {
      const Tensor gg = g.unsqueeze(0).expand({a.size(0), g.size(0), g.size(1)});
      if (need_a) ga = maybe_multiply(gg.bmm(conj_if_complex(b).transpose(1, 2)), al);
      if (need_b) gb = maybe_multiply(conj_if_complex(a).transpose(1, 2).bmm(gg), al);
      break;
    }
    case Blas::Addmm:
      if (need_a) ga = maybe_multiply(g.mm(conj_if_complex(b).t()), al);
      if (need_b) gb = maybe_multiply(conj_if_complex(a).t().mm(g), al);
      break;
  }
  return {ga, gb};
}

OpNode::Formula blas_formula(Blas k, size_t a_, size_t b_, Scalar beta, Scalar alpha) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor a = n.needs(2) ? n.saved(a_) : Tensor();
    const Tensor b = n.needs(1) ? n.saved(b_) : Tensor();
    tensor_list pg = product_grads(k, g[0], a, b, n.needs(1), n.needs(2), alpha);
    return tensor_list{n.needs(0) ? maybe_multiply(g[0], conj_scalar(beta)) : Tensor(), pg[0], pg[1]};
  };
}

using BlasImpl = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);

// PyTorch's names of the two operands (_saved_mat / _saved_vec, ...).
constexpr std::pair<const char*, const char*> operand_names(Blas k) {
  switch (k) {
    case Blas::Addmv: return {"mat", "vec"};
    case Blas::Addr: return {"vec1", "vec2"};
    case Blas::Baddbmm:
    case Blas::Addbmm: return {"batch1", "batch2"};
    case Blas::Addmm: return {"mat1", "mat2"};
  }
  return {nullptr, nullptr};
}

// Saves the operands each gradient reads (a's reads b, b's reads a) and the node's values;
// returns the slots of a and b.
template <Blas K>
std::pair<size_t, size_t> save_blas(autograd::Recorder& r, const Tensor& a, const Tensor& b,
                                    const Scalar& beta, const Scalar& alpha) {
  constexpr auto names = operand_names(K);
  const size_t b_ = r.save_if(r.needs(1), b, names.second), a_ = r.save_if(r.needs(2), a, names.first);
  if constexpr (K == Blas::Addbmm) {
    r.values("alpha", alpha, "batch1_argsize_0", a.size(0), "batch1_argsize_1", a.size(1),
             "batch2_argsize_2", b.size(2), "beta", beta);
  } else if constexpr (K == Blas::Addmm) {
    const auto strides_if = [](bool wanted, const Tensor& t) {
      return wanted ? t.strides().vec() : std::vector<int64_t>{};
    };
    r.values("alpha", alpha, "beta", beta, "mat1_sym_sizes", a.sizes(),
             "mat1_sym_strides", strides_if(r.needs(1), a), "mat2_sym_sizes", b.sizes(),
             "mat2_sym_strides", strides_if(r.needs(2), b));
  } else {
    r.values("alpha", alpha, "beta", beta);
  }
  return {a_, b_};
}

template <Blas K, BlasImpl Impl, OpId Id>
Tensor blas_autograd(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                     const Scalar& alpha) {
  autograd::Recorder r(node_name(K), self, a, b);
  Tensor out = r.forward([&] { return dispatch::call<Impl>(Id, self, a, b, beta, alpha); });
  if (!r) return out;
  const auto [a_, b_] = save_blas<K>(r, a, b, beta, alpha);
  return r.finish(out, blas_formula(K, a_, b_, beta, alpha));
}

template <Blas K, BlasImpl Impl, OpId Id>
Tensor blas__autograd(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                      const Scalar& alpha) {
  autograd::Recorder r(node_name(K), self, a, b);
  autograd::check_inplace_if(r, self);
  // Saved before the write: an operand that is self itself then fails the version check in
  // backward, as in PyTorch.
  const auto [a_, b_] = r ? save_blas<K>(r, a, b, beta, alpha) : std::pair<size_t, size_t>{0, 0};
  r.forward([&] { return dispatch::call<Impl>(Id, self, a, b, beta, alpha); });
  if (!r) return self;
  r.finish_inplace(self, blas_formula(K, a_, b_, beta, alpha));
  return self;
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(addmv, (&blas_autograd<Blas::Addmv, &addmv_impl, OpId::addmv>));
EMBER_REGISTER_AUTOGRAD(addr, (&blas_autograd<Blas::Addr, &addr_impl, OpId::addr>));
EMBER_REGISTER_AUTOGRAD(baddbmm, (&blas_autograd<Blas::Baddbmm, &baddbmm_impl, OpId::baddbmm>));
EMBER_REGISTER_AUTOGRAD(addbmm, (&blas_autograd<Blas::Addbmm, &addbmm_impl, OpId::addbmm>));
EMBER_REGISTER_AUTOGRAD(addmv_, (&blas__autograd<Blas::Addmv, &addmv__impl, OpId::addmv_>));
EMBER_REGISTER_AUTOGRAD(addr_, (&blas__autograd<Blas::Addr, &addr__impl, OpId::addr_>));
EMBER_REGISTER_AUTOGRAD(baddbmm_, (&blas__autograd<Blas::Baddbmm, &baddbmm__impl, OpId::baddbmm_>));
EMBER_REGISTER_AUTOGRAD(addbmm_, (&blas__autograd<Blas::Addbmm, &addbmm__impl, OpId::addbmm_>));
EMBER_REGISTER_AUTOGRAD(addmm_, (&blas__autograd<Blas::Addmm, &addmm__impl, OpId::addmm_>));

// ---- frontends ----
#define EMBER_BLAS_FRONTEND(name, impl)                                                                  \
  Tensor name(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,                 \
              const Scalar& alpha) {                                                                     \
    return dispatch::call<impl>(OpId::name, self, a, b, beta, alpha);                                   \
  }
#define EMBER_BLAS_FRONTEND_(name, impl)                                                                 \
  Tensor& name(Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,                      \
               const Scalar& alpha) {                                                                    \
    dispatch::call<impl>(OpId::name, self, a, b, beta, alpha);                                          \
    return self;                                                                                         \
  }
EMBER_BLAS_FRONTEND(addmv, addmv_impl)
EMBER_BLAS_FRONTEND(addr, addr_impl)
EMBER_BLAS_FRONTEND(baddbmm, baddbmm_impl)
EMBER_BLAS_FRONTEND(addbmm, addbmm_impl)
EMBER_BLAS_FRONTEND_(addmv_, addmv__impl)
EMBER_BLAS_FRONTEND_(addr_, addr__impl)
EMBER_BLAS_FRONTEND_(baddbmm_, baddbmm__impl)
EMBER_BLAS_FRONTEND_(addbmm_, addbmm__impl)
EMBER_BLAS_FRONTEND_(addmm_, addmm__impl)
#undef EMBER_BLAS_FRONTEND
#undef EMBER_BLAS_FRONTEND_

EMBER_REGISTER_OP(addmv, &addmv);
EMBER_REGISTER_OP(addr, &addr);
EMBER_REGISTER_OP(baddbmm, &baddbmm);
EMBER_REGISTER_OP(addbmm, &addbmm);
EMBER_REGISTER_OP(addmv_, &addmv_);
EMBER_REGISTER_OP(addr_, &addr_);
EMBER_REGISTER_OP(baddbmm_, &baddbmm_);
EMBER_REGISTER_OP(addbmm_, &addbmm_);
EMBER_REGISTER_OP(addmm_, &addmm_);


}  // namespace ember
