// Shared steps of the linalg ops (linalg_common.h).
#include "linalg_common.h"

#include "ember/ops/complex.h"

namespace ember::ops::linalg {

void check_float_or_complex(const char* api, const Tensor& t) {
  const ScalarType d = t.dtype();
  if (is_complex(d)) return;  // complex64 / complex128: ember has no complex32
  EMBER_CHECK(is_floating(d), api, ": Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(d));
  EMBER_CHECK(d == kFloat32 || d == kFloat64, api, ": Low precision dtypes not supported. Got ",
              scalar_type_name(d));
}

void check_matrix(const char* api, const Tensor& t, const char* name) {
  EMBER_CHECK(t.dim() >= 2, api, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* api, const Tensor& t, const char* name) {
  check_matrix(api, t, name);
  EMBER_CHECK(t.size(-1) == t.size(-2), api, ": ", name,
              " must be batches of square matrices, but they are ", t.size(-2), " by ", t.size(-1),
              " matrices");
}

void check_float_or_complex_square(const char* api, const Tensor& t, const char* name) {
  check_square(api, t, name);
  check_float_or_complex(api, t);
}

Tensor mH(const Tensor& x) { return x.is_complex() ? conj_physical(mT(x)) : mT(x); }

void check_same_dtype(const char* api, const Tensor& a, const Tensor& b, const char* na,
                      const char* nb) {
  EMBER_CHECK(a.dtype() == b.dtype(), api, ": Expected ", na, " and ", nb,
              " to have the same dtype, but found ", na, " of type ", scalar_type_name(a.dtype()),
              " and ", nb, " of type ", scalar_type_name(b.dtype()), " instead");
}

DimVector batch_shape(const Tensor& t) {
  return DimVector(t.sizes().begin(), t.sizes().end() - 2);
}

Tensor empty_column_major(IntArrayRef shape, ScalarType dtype, Device device) {
  DimVector swapped(shape.begin(), shape.end());
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  return empty(swapped, TensorOptions(dtype).device(device)).transpose(-2, -1);
}

Tensor column_major_copy(const Tensor& t) {
  Tensor out = empty_column_major(t.sizes(), t.dtype(), t.device());
  if (!out.is_meta()) out.copy_(t);
  return out;
}

Tensor empty_int(IntArrayRef shape, Device device) {
  return empty(shape, TensorOptions(kInt32).device(device));
}

void raise_if_errors(const std::string& api, const Tensor& info, bool is_matrix) {
  if (info.is_meta() || info.numel() == 0) return;
  const Tensor c = info.contiguous();
  const int32_t* p = c.data_ptr<int32_t>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    const int32_t v = p[i];
    if (v == 0) continue;
    EMBER_ASSERT(v > 0, api, ": LAPACK reported an invalid argument ", -v);
    const std::string batch =
        is_matrix ? std::string() : detail::str_cat("(Batch element ", i, "): ");
    std::string what;
    if (api.find("solve") != std::string::npos) {
      what = "The solver failed because the input matrix is singular.";
    } else if (api.find("inv") != std::string::npos) {
      what = detail::str_cat("The diagonal element ", v,
                             " is zero, the inversion could not be completed because the input "
                             "matrix is singular.");
    } else if (api.find("cholesky") != std::string::npos) {
      what = detail::str_cat("The factorization could not be completed because the input is not "
                             "positive-definite (the leading minor of order ",
                             v, " is not positive-definite).");
    } else if (api.find("svd") != std::string::npos) {
      what = detail::str_cat("The algorithm failed to converge because the input matrix is "
                             "ill-conditioned or has too many repeated singular values (error "
                             "code: ",
                             v, ").");
    } else if (api.find("eig") != std::string::npos) {
      what = detail::str_cat("The algorithm failed to converge because the input matrix is "
                             "ill-conditioned or has too many repeated eigenvalues (error code: ",
                             v, ").");
    } else if (api.find("lstsq") != std::string::npos) {
      what = detail::str_cat("The least squares solution could not be computed because the "
                             "input matrix does not have full rank (error code: ",
                             v, ").");
    } else if (api.find("lu_factor") != std::string::npos) {
      what = detail::str_cat("U[", v, ",", v,
                             "] is zero and using it on lu_solve would result in a division by "
                             "zero. If you still want to perform the factorization, consider "
                             "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
    } else {
      what = detail::str_cat("LAPACK returned error code ", v, ".");
    }
    EMBER_FAIL_KIND(ErrorKind::LinAlg, api, ": ", batch, what);
  }
}

Tensor eye_like(int64_t n, const Tensor& like) {
  return eye(n, TensorOptions(like.dtype()).device(like.device()));
}

Tensor triangle_mask(int64_t rows, int64_t cols, bool upper, double diag, const Tensor& like) {
  if (like.is_meta()) return empty({rows, cols}, TensorOptions(like.dtype()).device(like.device()));
  // Built as float64 values, then cast: masks are small and built once per backward.
  Tensor d = empty({rows, cols}, TensorOptions(kFloat64));
  double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      p[i * cols + j] = i == j ? diag : (upper ? j > i : j < i) ? 1.0 : 0.0;
  return cast(d, like.dtype());
}

Tensor diagonal_of(const Tensor& x) {
  return (x * eye_like(x.size(-1), x)).sum(std::vector<int64_t>{-1});
}

Tensor diag_embed_of(const Tensor& v) {
  return v.unsqueeze(-1) * eye_like(v.size(-1), v);
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (A.dim() - 1 != B.dim()) return false;
  const IntArrayRef a = A.sizes();
  return B.sizes() == IntArrayRef(a.data(), a.size() - 1);
}

}  // namespace ember::ops::linalg
