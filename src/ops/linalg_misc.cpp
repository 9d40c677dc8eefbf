// The remaining linalg functions: matrix_power, matrix_exp (primitive), cross (primitive),
// vecdot, multi_dot / chain_matmul, tensorinv, tensorsolve, and their torch.* spellings.
#include <cmath>
#include <limits>
#include <sstream>

#include "../dispatch/boxing.h"
#include "ember/ops/complex.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/view.h"
#include "linalg_common.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;
using namespace ops::linalg;  // NOLINT: the helpers of this op family

namespace {

std::string shape_text(IntArrayRef s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

// ---- matrix_power ----

Tensor matrix_power_impl(const Tensor& A, int64_t n) {
  check_square("linalg.matrix_power", A);
  if (n == 0) return eye_like(A.size(-1), A).expand(A.sizes()).clone();
  Tensor a = A;
  if (n < 0) {
    a = linalg::inv(A);
    n = -n;
  }
  if (n == 1) return a.clone();
  if (n == 2) return matmul(a, a);
  if (n == 3) return matmul(matmul(a, a), a);
  // Square-and-multiply over n's bits.
  Tensor z, result;
  while (n > 0) {
    const int64_t bit = n % 2;
    n /= 2;
    z = z.defined() ? matmul(z, z) : a;
    if (bit == 1) result = result.defined() ? matmul(result, z) : z;
  }
  return result;
}

// ---- matrix_exp (primitive: LinalgMatrixExpBackward0) ----

// Note [matrix_exp by scaling and squaring]: exp(A) = exp(A / 2^s)^(2^s), with s chosen so
// that the largest 1-norm in the batch is at most 1/2 and exp(A / 2^s) by its Taylor series to
// degree 18 (the remainder is below 2^-60 there, under float64's rounding). One s serves the
// whole batch: the products then run batched through matmul. PyTorch picks among degree-optimal
// polynomials per matrix (Bader, Blanes, Casas); the values agree to rounding.
Tensor matrix_exp_impl(const Tensor& A) {
  check_square("linalg.matrix_exp", A);
  check_float_or_complex("linalg.matrix_exp", A);
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return A.clone();
  int s = 0;
  if (!A.is_meta()) {
    const double norm1 = amax(sum(A.abs(), std::vector<int64_t>{-2})).item<double>();
    if (std::isfinite(norm1) && norm1 > 0.5) s = static_cast<int>(std::ceil(std::log2(norm1 / 0.5)));
  }
  const Tensor X = s > 0 ? A / std::ldexp(1.0, s) : A;
  const Tensor I = eye_like(n, A);
  Tensor P = I;
  for (int k = 18; k >= 1; --k) P = I + matmul(X, P) / static_cast<double>(k);
  for (int i = 0; i < s; ++i) P = matmul(P, P);
  return P.contiguous();
}

// ---- cross (primitive: LinalgCrossBackward0) ----

Tensor cross_impl(const Tensor& self, const Tensor& other, int64_t dim) {
  EMBER_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  const ScalarType dtype = result_type(self, other);
  const Tensor a = ops::cast(self, dtype), b = ops::cast(other, dtype);
  auto at = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return cat({at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
              at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
             d);
}

// torch.cross: dim=None is the first dim of size 3.
Tensor torch_cross_impl(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return linalg::cross(self, other, *dim);
  for (int64_t i = 0; i < self.dim(); ++i)
    if (self.size(i) == 3) return linalg::cross(self, other, i);
  EMBER_FAIL("no dimension of size 3 in input");
}

// ---- vecdot, multi_dot ----

Tensor vecdot_impl(const Tensor& x, const Tensor& y, int64_t dim) {
  check_same_dtype("linalg.vecdot", x, y, "x", "y");
  // The Hermitian inner product: x is conjugated (a no-op on real x).
  return sum(conj_if_complex(x) * y, std::vector<int64_t>{dim});
}

// The cheapest order of a chain of matrices (dynamic programming over p[i] x p[i+1] shapes).
Tensor chain_product(const std::vector<Tensor>& ts, const std::vector<std::vector<int64_t>>& split, size_t i,
                     size_t j) {
  if (i == j) return ts[i];
  const size_t k = static_cast<size_t>(split[i][j]);
  return mm(chain_product(ts, split, i, k), chain_product(ts, split, k + 1, j));
}

Tensor multi_dot_impl(ArrayRef<Tensor> tensors) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  const int64_t first_dim = tensors[0].dim(), last_dim = tensors[n - 1].dim();
  EMBER_CHECK(first_dim == 1 || first_dim == 2, "multi_dot(): the first tensor must be 1D or 2D but got ",
              first_dim, "D");
  EMBER_CHECK(last_dim == 1 || last_dim == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", last_dim,
              "D");
  for (size_t i = 1; i + 1 < n; ++i)
    EMBER_CHECK(tensors[i].dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", tensors[i].dim(), "D");
  for (size_t i = 1; i < n; ++i)
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(),
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
                ops::typemeta_name(tensors[0].dtype()), " and tensor ", i, " ",
                ops::typemeta_name(tensors[i].dtype()));  // c10's C++ type names, as PyTorch
  std::vector<Tensor> ts(tensors.begin(), tensors.end());
  if (first_dim == 1) ts[0] = ts[0].unsqueeze(0);
  if (last_dim == 1) ts[n - 1] = ts[n - 1].unsqueeze(-1);
  for (size_t i = 0; i + 1 < n; ++i)
    EMBER_CHECK(ts[i].size(-1) == ts[i + 1].size(0), "multi_dot(): tensors ", i, " and ", i + 1, " with shapes ",
                shape_text(tensors[i].sizes()), " and ", shape_text(tensors[i + 1].sizes()), " cannot be multiplied");
  DimVector out_shape;
  if (first_dim == 2) out_shape.push_back(ts[0].size(0));
  if (last_dim == 2) out_shape.push_back(ts[n - 1].size(1));
  std::vector<int64_t> p{ts[0].size(0)};
  for (const Tensor& t : ts) p.push_back(t.size(1));
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<int64_t>> split(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; ++k) {
        const double c = cost[i][k] + cost[k + 1][j] + static_cast<double>(p[i]) * static_cast<double>(p[k + 1]) *
                                                           static_cast<double>(p[j + 1]);
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  }
  return chain_product(ts, split, 0, n - 1).view(out_shape);
}

Tensor chain_matmul_impl(ArrayRef<Tensor> matrices) {
  static bool warned = false;
  if (!warned) {
    warned = true;
    EMBER_WARN("ember.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
               "ember.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
               "parameters.");
  }
  EMBER_CHECK(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  for (size_t i = 0; i < matrices.size(); ++i)
    EMBER_CHECK(matrices[i].dim() == 2, "Tensor dimension is ", matrices[i].dim(), ", expected 2 instead.");
  if (matrices.size() == 1) return matrices[0].clone();
  return linalg::multi_dot(matrices);
}

// ---- tensorinv, tensorsolve ----

Tensor tensorinv_impl(const Tensor& self, int64_t ind) {
  EMBER_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got ", ind);
  const IntArrayRef s = self.sizes();
  EMBER_CHECK(ind <= self.dim(), "Expected a strictly positive integer for 'ind' of at most self.dim(), but got ", ind);
  DimVector result_shape(s.begin() + ind, s.end());
  result_shape.insert(result_shape.end(), s.begin(), s.begin() + ind);
  const int64_t prod_end = compute_numel(IntArrayRef(s.data() + ind, s.size() - static_cast<size_t>(ind)));
  const int64_t prod_start = compute_numel(IntArrayRef(s.data(), static_cast<size_t>(ind)));
  EMBER_CHECK(prod_end == prod_start,
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got ",
              prod_end, " != ", prod_start);
  auto [result, info] = linalg::inv_ex(self.reshape({prod_start, prod_end}), false);
  EMBER_CHECK(info.is_meta() || info.item<int32_t>() == 0,
              "Failed to invert the input tensor, because it is singular.");
  return result.reshape(result_shape);
}

Tensor tensorsolve_impl(const Tensor& self, const Tensor& other, std::optional<std::vector<int64_t>> dims) {
  Tensor a = self;
  if (dims) {
    std::vector<int64_t> moved;
    std::vector<bool> is_moved(static_cast<size_t>(self.dim()), false);
    for (int64_t d : *dims) is_moved[static_cast<size_t>(wrap_dim(d, self.dim()))] = true;
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < self.dim(); ++d)
      if (!is_moved[static_cast<size_t>(d)]) perm.push_back(d);
    for (int64_t d : *dims) perm.push_back(wrap_dim(d, self.dim()));
    a = self.permute(perm);
  }
  const IntArrayRef s = a.sizes();
  const size_t nd = static_cast<size_t>(other.dim());
  EMBER_CHECK(nd <= s.size(), "Expected self to have at least other.dim() dimensions");
  DimVector result_shape(s.begin() + nd, s.end());
  const int64_t result_product = compute_numel(result_shape);
  const int64_t other_product = compute_numel(IntArrayRef(s.data(), nd));
  EMBER_CHECK(result_product == other_product,
              "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got ",
              result_product, " != ", other_product);
  return linalg::solve(a.reshape({other_product, result_product}), other.flatten(), true).reshape(result_shape);
}

Tensor torch_matrix_power_impl(const Tensor& self, int64_t n) { return linalg::matrix_power(self, n); }
Tensor torch_matrix_exp_impl(const Tensor& self) { return linalg::matrix_exp(self); }

}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// The adjoint of d exp at A: the top-right block of exp([[A^H, G], [0, A^H]]) (PyTorch's
// linalg_matrix_exp_differential with adjoint=true).
Tensor matrix_exp_autograd(const Tensor& A) {
  autograd::Recorder r("LinalgMatrixExpBackward0", A);
  Tensor out = r.forward([&] { return dispatch::call<matrix_exp_impl>(OpId::linalg_matrix_exp, A); });
  if (!r) return out;
  const size_t A_ = r.save(A, "self");
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor a = mH(n.saved(A_));
    const int64_t k = a.size(-1);
    const Tensor top = cat({a, g[0]}, -1);
    const Tensor bottom = cat({zeros_like(a), a}, -1);
    return tensor_list{linalg::matrix_exp(cat({top, bottom}, -2)).narrow(-2, 0, k).narrow(-1, k, k)};
  });
  return out;
}

// d (a x b) = (b x g, g x a).
Tensor cross_autograd(const Tensor& self, const Tensor& other, const int64_t& dim) {
  autograd::Recorder r("LinalgCrossBackward0", self, other);
  Tensor out = r.forward([&] { return dispatch::call<cross_impl>(OpId::linalg_cross, self, other, dim); });
  if (!r) return out;
  const size_t other_ = r.save_if(r.needs(0), other, "other"), self_ = r.save_if(r.needs(1), self, "self");
  r.values("dim", dim);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? linalg::cross(n.saved(other_), g[0], dim) : Tensor(),
                       n.needs(1) ? linalg::cross(g[0], n.saved(self_), dim) : Tensor()};
  });
  return out;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(linalg_matrix_exp, &matrix_exp_autograd);
EMBER_REGISTER_AUTOGRAD(linalg_cross, &cross_autograd);

// ---- frontends (schema order) and boxed registration ----

namespace linalg {
Tensor matrix_power(const Tensor& A, int64_t n) {
  return dispatch::call<matrix_power_impl>(OpId::linalg_matrix_power, A, n);
}
Tensor matrix_exp(const Tensor& A) { return dispatch::call<matrix_exp_impl>(OpId::linalg_matrix_exp, A); }
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) {
  return dispatch::call<cross_impl>(OpId::linalg_cross, a, b, dim);
}
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  return dispatch::call<vecdot_impl>(OpId::linalg_vecdot, x, y, dim);
}
Tensor multi_dot(ArrayRef<Tensor> tensors) { return dispatch::call<multi_dot_impl>(OpId::linalg_multi_dot, tensors); }
Tensor tensorinv(const Tensor& A, int64_t ind) { return dispatch::call<tensorinv_impl>(OpId::linalg_tensorinv, A, ind); }
Tensor tensorsolve(const Tensor& A, const Tensor& B, std::optional<std::vector<int64_t>> dims) {
  return dispatch::call<tensorsolve_impl>(OpId::linalg_tensorsolve, A, B, dims);
}
}  // namespace linalg

Tensor matrix_power(const Tensor& self, int64_t n) {
  return dispatch::call<torch_matrix_power_impl>(OpId::matrix_power, self, n);
}
Tensor matrix_exp(const Tensor& self) { return dispatch::call<torch_matrix_exp_impl>(OpId::matrix_exp, self); }
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  return dispatch::call<torch_cross_impl>(OpId::cross, self, other, dim);
}
Tensor chain_matmul(ArrayRef<Tensor> matrices) {
  return dispatch::call<chain_matmul_impl>(OpId::chain_matmul, matrices);
}

EMBER_REGISTER_OP(linalg_matrix_power, &linalg::matrix_power);
EMBER_REGISTER_OP(matrix_power, &matrix_power);
EMBER_REGISTER_OP(linalg_matrix_exp, &linalg::matrix_exp);
EMBER_REGISTER_OP(matrix_exp, &matrix_exp);
EMBER_REGISTER_OP(linalg_cross, &linalg::cross);
EMBER_REGISTER_OP(cross, &cross);
EMBER_REGISTER_OP(linalg_vecdot, &linalg::vecdot);
EMBER_REGISTER_OP(linalg_multi_dot, &linalg::multi_dot);
EMBER_REGISTER_OP(chain_matmul, &chain_matmul);
EMBER_REGISTER_OP(linalg_tensorinv, &linalg::tensorinv);
EMBER_REGISTER_OP(linalg_tensorsolve, &linalg::tensorsolve);

}  // namespace ember
