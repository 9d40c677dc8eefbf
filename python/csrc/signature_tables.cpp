// The data of the argument parser (arg_parser.cpp): which overloads take out= and which
// deprecated spellings PyTorch 1.13 still binds.
#include <string>
#include <unordered_set>
#include <vector>

#include "arg_parser.h"

namespace ember::python {

const std::vector<DeprecatedSpelling>& deprecated_spellings() {
  static const std::vector<DeprecatedSpelling> table = {
      {"add", "aten::add", "Tensor", {"self", "alpha", "other"}},
      {"add_", "aten::add_", "Tensor", {"self", "alpha", "other"}},
      {"sub", "aten::sub", "Tensor", {"self", "alpha", "other"}},
      {"sub_", "aten::sub_", "Tensor", {"self", "alpha", "other"}},
      {"addcmul", "aten::addcmul", "default", {"self", "value", "tensor1", "tensor2"}},
      {"addcmul_", "aten::addcmul_", "default", {"self", "value", "tensor1", "tensor2"}},
      {"addcdiv", "aten::addcdiv", "default", {"self", "value", "tensor1", "tensor2"}},
      {"addcdiv_", "aten::addcdiv_", "default", {"self", "value", "tensor1", "tensor2"}},
      {"addmm", "aten::addmm", "default", {"beta", "self", "alpha", "mat1", "mat2"}},
      {"addmm", "aten::addmm", "default", {"beta", "self", "mat1", "mat2"}},
      // the rest of the BLAS family (src/ops/blas_more.cpp)
      {"addmm_", "aten::addmm_", "default", {"beta", "self", "alpha", "mat1", "mat2"}},
      {"addmm_", "aten::addmm_", "default", {"beta", "self", "mat1", "mat2"}},
      {"addmv", "aten::addmv", "default", {"beta", "self", "alpha", "mat", "vec"}},
      {"addmv", "aten::addmv", "default", {"beta", "self", "mat", "vec"}},
      {"addmv_", "aten::addmv_", "default", {"beta", "self", "alpha", "mat", "vec"}},
      {"addmv_", "aten::addmv_", "default", {"beta", "self", "mat", "vec"}},
      {"addr", "aten::addr", "default", {"beta", "self", "alpha", "vec1", "vec2"}},
      {"addr", "aten::addr", "default", {"beta", "self", "vec1", "vec2"}},
      {"addr_", "aten::addr_", "default", {"beta", "self", "alpha", "vec1", "vec2"}},
      {"addr_", "aten::addr_", "default", {"beta", "self", "vec1", "vec2"}},
      {"baddbmm", "aten::baddbmm", "default", {"beta", "self", "alpha", "batch1", "batch2"}},
      {"baddbmm", "aten::baddbmm", "default", {"beta", "self", "batch1", "batch2"}},
      {"baddbmm_", "aten::baddbmm_", "default", {"beta", "self", "alpha", "batch1", "batch2"}},
      {"baddbmm_", "aten::baddbmm_", "default", {"beta", "self", "batch1", "batch2"}},
      {"addbmm", "aten::addbmm", "default", {"beta", "self", "alpha", "batch1", "batch2"}},
      {"addbmm", "aten::addbmm", "default", {"beta", "self", "batch1", "batch2"}},
      {"addbmm_", "aten::addbmm_", "default", {"beta", "self", "alpha", "batch1", "batch2"}},
      {"addbmm_", "aten::addbmm_", "default", {"beta", "self", "batch1", "batch2"}},
  };
  return table;
}

// PyTorch's SKIP_PYTHON_BINDINGS_SIGNATURES: `x * 2` is mul.Tensor with a wrapped number; the
// Scalar forms are what C++ (backward formulas) calls.
const std::unordered_set<std::string>& unbound_overloads() {
  static const std::unordered_set<std::string> set = {"mul.Scalar", "div.Scalar", "add.Scalar",
                                                      "sub.Scalar", "div.Scalar_mode"};
  return set;
}

// Overloads ("name.overload") whose PyTorch Python function signature has `out=`.
const std::unordered_set<std::string>& out_overloads() {
  static const std::unordered_set<std::string> set = {
      // complex dtypes and ember.fft (src/ops/complex.cpp, src/ops/fft.cpp)
      "angle.default", "complex.default", "polar.default", "conj_physical.default",
      "_conj_copy.default", "view_as_real_copy.default", "view_as_complex_copy.default",
      "_fft_r2c.default", "_fft_c2r.default", "_fft_c2c.default", "fft_fft.default",
      "fft_ifft.default", "fft_rfft.default", "fft_irfft.default", "fft_hfft.default",
      "fft_ihfft.default", "fft_fft2.default", "fft_ifft2.default", "fft_rfft2.default",
      "fft_irfft2.default", "fft_hfft2.default", "fft_ihfft2.default", "fft_fftn.default",
      "fft_ifftn.default", "fft_rfftn.default", "fft_irfftn.default", "fft_hfftn.default",
      "fft_ihfftn.default", "fft_fftfreq.default", "fft_rfftfreq.default",
      "zeros.default", "ones.default", "full.default", "arange.start_step", "linspace.default",
      "eye.m", "empty.memory_format", "bernoulli.default", "rand.default", "randn.default",
      "randint.low", "nonzero.default", "neg.default", "abs.default", "sign.default",
      "exp.default", "log.default", "log1p.default", "expm1.default", "sqrt.default",
      "rsqrt.default", "sin.default", "cos.default", "tanh.default", "sigmoid.default",
      "logical_not.default", "bitwise_not.default", "add.Tensor", "sub.Tensor", "mul.Tensor",
      "div.Tensor", "div.Tensor_mode", "floor_divide.default", "remainder.Tensor",
      "pow.Tensor_Tensor", "pow.Tensor_Scalar", "maximum.default", "minimum.default",
      "bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_xor.Tensor", "eq.Tensor", "ne.Tensor",
      "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor", "logical_and.default",
      "logical_or.default", "logical_xor.default", "addcmul.default", "addcdiv.default",
      "clamp.Tensor", "clamp.default", "where.self", "sum.dim_IntList", "mean.dim",
      "prod.dim_int", "max.other", "max.dim", "min.other", "min.dim", "amax.default",
      "amin.default", "argmax.default", "argmin.default", "var.correction", "std.correction",
      "var.dim", "std.dim", "all.default", "all.dim", "any.default", "any.dim", "cumsum.default",
      "softmax.int", "log_softmax.int", "_softmax.default", "_log_softmax.default",
      "_log_softmax_backward_data.default",
      "sort.default", "sort.stable", "topk.default", "mm.default", "bmm.default",
      "addmm.default", "matmul.default", "cat.default", "stack.default", "index_select.default",
      "gather.default", "scatter.src", "scatter.value", "scatter_add.default",
      "native_batch_norm.default", "aminmax.default", "kthvalue.default", "median.dim",
      "nanmedian.dim", "rand.generator", "randn.generator", "randint.low_generator",
      "randperm.default", "randperm.generator", "normal.Tensor_float", "normal.float_Tensor",
      "normal.Tensor_Tensor", "normal.float_float", "multinomial.default",
      // shape, indexing, scatter and sorting ops (atenshape)
      "flip.default", "roll.default", "rot90.default", "tril.default", "triu.default",
      "masked_select.default", "outer.default", "ger.default", "kron.default", "diag.default",
      "take.default", "take_along_dim.default", "index_add.default", "index_copy.default",
      "msort.default", "mode.default", "quantile.default", "quantile.scalar", "nanquantile.default",
      "nanquantile.scalar", "searchsorted.Tensor", "bucketize.Tensor", "histc.default",
      "hstack.default", "vstack.default", "row_stack.default", "dstack.default",
      "column_stack.default", "diff.default", "tril_indices.default", "triu_indices.default",
      // torch.norm calls _VF.norm(..., out=): ember.functional.norm does the same
      "norm.ScalarOpt_dim", "norm.ScalarOpt_dim_dtype",
      // pointwise math and math reductions (atenpw)
      "acos.default", "asin.default", "atan.default", "acosh.default", "asinh.default",
      "atanh.default", "cosh.default", "sinh.default", "tan.default", "erf.default", "erfc.default",
      "erfinv.default", "log10.default", "log2.default", "exp2.default", "reciprocal.default",
      "lgamma.default", "digamma.default", "i0.default", "sinc.default", "special_entr.default",
      "special_erfcx.default", "special_i0e.default", "special_i1.default", "special_i1e.default",
      "special_ndtr.default", "special_ndtri.default", "special_log_ndtr.default", "ceil.default",
      "floor.default", "round.default", "trunc.default", "frac.default", "round.decimals",
      "isposinf.default", "isneginf.default", "signbit.default", "atan2.default", "hypot.default",
      "copysign.Tensor", "copysign.Scalar", "nextafter.default", "logaddexp.default",
      "logaddexp2.default", "xlogy.Tensor", "xlogy.Scalar_Self", "xlogy.Scalar_Other",
      "fmod.Tensor", "fmod.Scalar", "heaviside.default", "gcd.default", "lcm.default",
      "bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor_Scalar", "bitwise_right_shift.Tensor",
      "bitwise_right_shift.Tensor_Scalar", "special_xlog1py.default", "special_xlog1py.self_scalar",
      "special_xlog1py.other_scalar", "special_zeta.default", "special_zeta.self_scalar",
      "special_zeta.other_scalar", "eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar",
      "ge.Scalar", "bitwise_and.Scalar", "bitwise_or.Scalar", "bitwise_xor.Scalar",
      "remainder.Scalar", "pow.Scalar", "true_divide.Tensor", "true_divide.Scalar",
      "floor_divide.Scalar", "float_power.Tensor_Tensor", "float_power.Tensor_Scalar",
      "float_power.Scalar", "sgn.default", "square.default", "deg2rad.default", "rad2deg.default",
      "logit.default", "nan_to_num.default", "lerp.Scalar", "lerp.Tensor", "polygamma.default",
      "mvlgamma.default", "clamp_min.default", "clamp_min.Tensor", "clamp_max.default",
      "clamp_max.Tensor", "logsumexp.default", "nansum.default", "nanmean.default",
      "renorm.default", "cumprod.default", "cummax.default", "cummin.default",
      "logcumsumexp.default",
      // ember.linalg (src/ops/linalg_*.cpp)
      "linalg_inv_ex.default", "linalg_inv.default", "inverse.default", "_linalg_det.default", "linalg_det.default", "_linalg_slogdet.default", "linalg_slogdet.default", "slogdet.default", "linalg_cholesky_ex.default", "linalg_cholesky.default", "cholesky.default", "cholesky_solve.default", "cholesky_inverse.default", "linalg_qr.default", "qr.default", "_linalg_svd.default", "linalg_svd.default", "linalg_svdvals.default", "svd.default", "_linalg_eigh.default", "linalg_eigh.default", "linalg_eigvalsh.default", "_linalg_solve_ex.default", "linalg_solve_ex.default", "linalg_solve.default", "linalg_lstsq.default", "linalg_vector_norm.default", "linalg_matrix_norm.default", "linalg_matrix_norm.str_ord", "linalg_norm.default", "linalg_norm.ord_str", "frobenius_norm.default", "frobenius_norm.dim", "nuclear_norm.default", "nuclear_norm.dim", "linalg_pinv.atol_rtol_tensor", "linalg_pinv.atol_rtol_float", "linalg_pinv.default", "linalg_pinv.rcond_tensor", "linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank.default", "linalg_matrix_rank.tol_tensor", "linalg_matrix_power.default", "matrix_power.default", "linalg_matrix_exp.default", "linalg_cross.default", "cross.default", "linalg_vecdot.default", "linalg_multi_dot.default", "chain_matmul.default", "linalg_tensorinv.default", "linalg_tensorsolve.default", "linalg_cond.default", "linalg_cond.p_str", "linalg_lu_factor_ex.default", "linalg_lu_factor.default", "lu_unpack.default", "linalg_lu.default", "linalg_lu_solve.default", "lu_solve.default", "linalg_solve_triangular.default", "triangular_solve.default",
      // nnutils (src/ops/nnutils_ops.cpp)
      "linalg_householder_product.default", "orgqr.default",
      // namesa: BLAS family, math, search, copies, samplers (src/ops/blas_more.cpp, ...)
      "addmv.default", "addr.default", "baddbmm.default", "addbmm.default", "fmax.default", "fmin.default",
      "frexp.Tensor", "ldexp.Tensor", "igamma.default", "igammac.default", "isin.Tensor_Tensor",
      "isin.Tensor_Scalar", "isin.Scalar_Tensor", "histogram.bins_tensor", "histogram.bin_ct",
      "index_reduce.default", "as_strided_scatter.default", "view_copy.default", "permute_copy.default",
      "select_copy.int", "slice_copy.Tensor", "squeeze_copy.default", "squeeze_copy.dim",
      "unsqueeze_copy.default", "t_copy.default", "transpose_copy.int", "unfold_copy.default",
      "expand_copy.default", "diagonal_copy.default", "detach_copy.default", "alias_copy.default",
      "as_strided_copy.default", "_reshape_alias_copy.default", "_neg_view_copy.default",
      "binomial.default", "poisson.default"};
  return set;
}

}  // namespace ember::python
