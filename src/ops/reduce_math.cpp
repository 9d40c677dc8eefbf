// Math reductions as PyTorch 1.13 composes them: logsumexp, nansum, nanmean, count_nonzero,
// dist, renorm. Their gradients come from the ops their bodies call.
#include <cmath>

#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/overloads.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor w(const Scalar& s) { return wrapped_scalar_tensor(s); }

std::vector<int64_t> dims_vec(IntArrayRef dims) { return std::vector<int64_t>(dims.begin(), dims.end()); }

// log(sum(exp(x))) with the (detached) maximum taken out first; infinite maxima are left out so
// that all -inf rows give -inf and a +inf gives +inf, as PyTorch.
Tensor logsumexp_impl(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const Tensor x = is_floating(self.dtype()) ? self : self.to(default_dtype());
  if (x.numel() == 0) return log(x.exp().sum(dims_vec(dims), keepdim));
  Tensor maxes = amax(x.detach(), dims, /*keepdim=*/true);
  maxes = where(isinf(maxes), w(Scalar(0.0)), maxes);
  Tensor out = log(exp(x - maxes).sum(dims_vec(dims), keepdim));
  if (!keepdim) {
    // the reduced dims of maxes, squeezed from the last to the first
    std::vector<int64_t> ds;
    for (int64_t d : dims) ds.push_back(wrap_dim(d, std::max<int64_t>(x.dim(), 1)));
    if (dims.empty()) {
      maxes = maxes.reshape({});
    } else {
      std::sort(ds.rbegin(), ds.rend());
      for (int64_t d : ds) maxes = x.dim() == 0 ? maxes : maxes.squeeze(d);
    }
  }
  return out + maxes;
}

Tensor nansum_impl(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const Tensor x = is_floating(self.dtype()) ? where(isnan(self), w(Scalar(0.0)), self) : self;
  return sum(x, std::move(dims), keepdim, dtype);
}

Tensor nanmean_impl(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
                    std::optional<ScalarType> dtype) {
  EMBER_CHECK(is_floating(self.dtype()),
              "nanmean(): expected input to have floating point dtype but got ",
              scalar_type_name(self.dtype()));
  const Tensor count = sum(logical_not(isnan(self)), dims, keepdim);
  return div(nansum(self, dims, keepdim, dtype), count);
}

Tensor count_nonzero_dims_impl(const Tensor& self, IntArrayRef dims) {
  const Tensor nz = ne(self, w(Scalar(int64_t{0})));
  if (dims.empty()) return sum(nz, std::optional<ScalarType>(kInt64));
  return sum(nz, dims_vec(dims), false, kInt64);
}
Tensor count_nonzero_impl(const Tensor& self, std::optional<int64_t> dim) {
  if (dim) return count_nonzero(self, IntArrayRef(&*dim, 1));
  return count_nonzero(self, IntArrayRef());
}

Tensor dist_impl(const Tensor& self, const Tensor& other, const Scalar& p) {
  return norm(self - other, p);
}

// Each slice along dim scaled by maxnorm / (norm + 1e-7) where its p-norm exceeds maxnorm.
Tensor renorm_impl(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  EMBER_CHECK(p.to_double() > 0.0, "renorm: non-positive-norm not supported");
  EMBER_CHECK(maxnorm.to_double() >= 0.0, "renorm: expected maxnorm to be >= 0 but got ",
              maxnorm.to_double());
  EMBER_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(),
              " dimensions");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<int64_t> reduce;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) reduce.push_back(i);
  const Tensor n = norm(self, std::optional<Scalar>(p), reduce, /*keepdim=*/true);
  const double mx = maxnorm.to_double();
  const Tensor factor =
      where(gt(n, w(Scalar(mx))), div(w(Scalar(mx)), add(n, w(Scalar(1e-7)))), w(Scalar(1.0)));
  return self * factor;
}
Tensor renorm__impl(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  Tensor r = renorm_impl(self.clone(), p, dim, maxnorm);  // (its saved self is not the one written)
  Tensor s = self;
  s.copy_(r);
  return self;
}

}  // namespace

Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return dispatch::call<logsumexp_impl>(OpId::logsumexp, self, dims, keepdim);
}
Tensor nansum(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
              std::optional<ScalarType> dtype) {
  return dispatch::call<nansum_impl>(OpId::nansum, self, dims, keepdim, dtype);
}
Tensor nanmean(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
               std::optional<ScalarType> dtype) {
  return dispatch::call<nanmean_impl>(OpId::nanmean, self, dims, keepdim, dtype);
}
Tensor count_nonzero(const Tensor& self, IntArrayRef dims) {
  return dispatch::call<count_nonzero_dims_impl>(OpId::count_nonzero_dim_IntList, self, dims);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  return dispatch::call<count_nonzero_impl>(OpId::count_nonzero, self, dim);
}
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  return dispatch::call<dist_impl>(OpId::dist, self, other, p);
}
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  return dispatch::call<renorm_impl>(OpId::renorm, self, p, dim, maxnorm);
}
Tensor& renorm_(Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  dispatch::call<renorm__impl>(OpId::renorm_, self, p, dim, maxnorm);
  return self;
}

EMBER_REGISTER_OP(logsumexp, &logsumexp);
EMBER_REGISTER_OP(nansum, &nansum);
EMBER_REGISTER_OP(nanmean, &nanmean);
EMBER_REGISTER_OP(count_nonzero_dim_IntList,
                  static_cast<Tensor (*)(const Tensor&, IntArrayRef)>(&count_nonzero));
EMBER_REGISTER_OP(count_nonzero,
                  static_cast<Tensor (*)(const Tensor&, std::optional<int64_t>)>(&count_nonzero));
EMBER_REGISTER_OP(dist, &dist);
EMBER_REGISTER_OP(renorm, &renorm);
EMBER_REGISTER_OP(renorm_, &renorm_);

}  // namespace ember
