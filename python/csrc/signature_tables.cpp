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
  };
  return table;
}

// PyTorch's SKIP_PYTHON_BINDINGS_SIGNATURES: `x * 2` is mul.Tensor with a wrapped number; the
// Scalar forms are what C++ (backward formulas) calls.
const std::unordered_set<std::string>& unbound_overloads() {
  static const std::unordered_set<std::string> set = {"mul.Scalar", "div.Scalar"};
  return set;
}

// Overloads ("name.overload") whose PyTorch Python function signature has `out=`.
const std::unordered_set<std::string>& out_overloads() {
  static const std::unordered_set<std::string> set = {
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
      // torch.norm calls _VF.norm(..., out=): ember.functional.norm does the same
      "norm.ScalarOpt_dim", "norm.ScalarOpt_dim_dtype",
      // ember.linalg (src/ops/linalg_*.cpp)
      "linalg_inv_ex.default", "linalg_inv.default", "inverse.default", "_linalg_det.default", "linalg_det.default", "_linalg_slogdet.default", "linalg_slogdet.default", "slogdet.default", "linalg_cholesky_ex.default", "linalg_cholesky.default", "cholesky.default", "cholesky_solve.default", "cholesky_inverse.default", "linalg_qr.default", "qr.default", "_linalg_svd.default", "linalg_svd.default", "linalg_svdvals.default", "svd.default", "_linalg_eigh.default", "linalg_eigh.default", "linalg_eigvalsh.default", "_linalg_solve_ex.default", "linalg_solve_ex.default", "linalg_solve.default", "linalg_lstsq.default", "linalg_vector_norm.default", "linalg_matrix_norm.default", "linalg_matrix_norm.str_ord", "linalg_norm.default", "linalg_norm.ord_str", "frobenius_norm.default", "frobenius_norm.dim", "nuclear_norm.default", "nuclear_norm.dim", "linalg_pinv.atol_rtol_tensor", "linalg_pinv.atol_rtol_float", "linalg_pinv.default", "linalg_pinv.rcond_tensor", "linalg_matrix_rank.atol_rtol_tensor", "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank.default", "linalg_matrix_rank.tol_tensor", "linalg_matrix_power.default", "matrix_power.default", "linalg_matrix_exp.default", "linalg_cross.default", "cross.default", "linalg_vecdot.default", "linalg_multi_dot.default", "chain_matmul.default", "linalg_tensorinv.default", "linalg_tensorsolve.default", "linalg_cond.default", "linalg_cond.p_str", "linalg_lu_factor_ex.default", "linalg_lu_factor.default", "lu_unpack.default", "linalg_lu.default", "linalg_lu_solve.default", "lu_solve.default", "linalg_solve_triangular.default", "triangular_solve.default"};
  return set;
}

}  // namespace ember::python
