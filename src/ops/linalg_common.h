// Shared steps of the linalg ops (src/ops/linalg_*.cpp): PyTorch's input checks and their texts,
// the batched column-major buffers LAPACK works on (Note [LAPACK layout] in
// src/backends/cpu/lapack.h), the info checks of the _ex ops, and small matrix helpers the
// backward rules use.
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../autograd/record.h"
#include "elementwise.h"
#include "ember/ops/index_ops.h"
#include "ember/warning.h"
#include "reduce_common.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"

namespace ember::ops::linalg {

/// "<api>: The input tensor <name> must have at least 2 dimensions."
void check_matrix(const char* api, const Tensor& t, const char* name = "A");
/// The above and "<api>: A must be batches of square matrices, but they are 2 by 3 matrices".
void check_square(const char* api, const Tensor& t, const char* name = "A");
/// float32 / float64 / complex64 / complex128, the dtypes of the LAPACK kernels: "<api>: Expected
/// a floating point or complex tensor as input. Got Long", "<api>: Low precision dtypes not
/// supported. Got Half".
void check_float_or_complex(const char* api, const Tensor& t);
/// check_square + check_float_or_complex, the common prologue.
void check_float_or_complex_square(const char* api, const Tensor& t, const char* name = "A");
/// The conjugate transpose x^H (x^T for real x, without a copy).
Tensor mH(const Tensor& x);
/// "<api>: Expected A and B to have the same dtype, but found A of type Float and B of type
/// Double instead"
void check_same_dtype(const char* api, const Tensor& a, const Tensor& b, const char* na = "A",
                      const char* nb = "B");

/// The leading (batch) dims of a batch of matrices.
DimVector batch_shape(const Tensor& t);
/// A fresh batched column-major tensor of `shape` (uninitialised).
Tensor empty_column_major(IntArrayRef shape, ScalarType dtype, Device device);
/// A batched column-major copy of `t` (always a copy: LAPACK overwrites it).
Tensor column_major_copy(const Tensor& t);
/// An int32 tensor (pivots, info) of `shape`.
Tensor empty_int(IntArrayRef shape, Device device);

/// PyTorch's _linalg_check_errors: raises LinAlgError naming the first failing matrix
/// ("<api>: (Batch element 1): The diagonal element 2 is zero, ..."); the text depends on which
/// API the name says it is (inv, solve, cholesky, svd, eig, lstsq, lu_factor).
void raise_if_errors(const std::string& api, const Tensor& info, bool is_matrix);

/// x.transpose(-2, -1).
inline Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }
/// The n x n identity shaped like `like`'s dtype and device.
Tensor eye_like(int64_t n, const Tensor& like);
/// A rows x cols mask: 1 on the upper (or lower) triangle including the diagonal, which holds
/// `diag`. tril / triu / diagonal scaling in backward rules are products with it.
Tensor triangle_mask(int64_t rows, int64_t cols, bool upper, double diag, const Tensor& like);
/// The diagonal of the last two dims as a vector (square).
Tensor diagonal_of(const Tensor& x);
/// A batch of diagonal matrices from a batch of vectors.
Tensor diag_embed_of(const Tensor& v);
/// Whether B is a (batch of) vector right-hand side for A (PyTorch's linalg_solve_is_vector_rhs).
bool is_vector_rhs(const Tensor& A, const Tensor& B);

/// PyTorch's pinv_backward (linalg_decomp.cpp): the gradient of pinv(A) given grad and pinv(A).
Tensor pinv_backward(const Tensor& grad, const Tensor& pinvA, const Tensor& A);

/// Recorder::finish for an op with several outputs, some not differentiable (LU, pivots, info).
template <class... Ts>
std::tuple<Ts...> finish_outputs(autograd::Recorder& r, const std::tuple<Ts...>& outs,
                                 autograd::OpNode::Formula f, const std::vector<bool>& differentiable) {
  std::vector<Tensor> v = std::apply([](const auto&... t) { return std::vector<Tensor>{t...}; }, outs);
  v = r.finish(std::move(v), std::move(f), differentiable);
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return std::tuple<Ts...>{v[I]...};
  }(std::index_sequence_for<Ts...>{});
}

}  // namespace ember::ops::linalg
