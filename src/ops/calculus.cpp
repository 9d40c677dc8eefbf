// Numerical calculus and small composites, written over slices, arithmetic and reductions exactly
// as PyTorch 1.13 writes them (so values round the same way and autograd records the pieces):
// gradient (finite differences, edge_order 1 or 2, uniform steps or coordinates), trapezoid /
// trapz, cumulative_trapezoid, combinations and sum_to_size. Texts say ember. where PyTorch's
// say torch.
#include "ember/ops/math_more.h"

#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor sl(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end = std::nullopt) {
  return slice(t, dim, start, end, 1);
}

// ---- gradient ----

void pre_check_gradient(const Tensor& self, std::optional<int64_t> spacing_size, std::optional<IntArrayRef> dim,
                        int64_t edge_order) {
  const int64_t num_dim = dim ? static_cast<int64_t>(dim->size()) : self.dim();
  if (spacing_size) {
    EMBER_CHECK(*spacing_size == 1 || *spacing_size == num_dim,
                "ember.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
                "have the same length, but got a spacing argument of length ",
                *spacing_size, " and a dim argument of length ", num_dim, ".");
  }
  EMBER_CHECK(edge_order == 1 || edge_order == 2, "ember.gradient only supports edge_order=1 and edge_order=2.");
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  const DimVector dims = dim ? DimVector(dim->begin(), dim->end()) : [&] {
    DimVector all;
    for (int64_t d = 0; d < self.dim(); ++d) all.push_back(d);
    return all;
  }();
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim());
    EMBER_CHECK(!seen[static_cast<size_t>(w)], "dim ", w, " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    EMBER_CHECK(self.size(w) >= edge_order + 1,
                "ember.gradient expected each dimension size to be at least edge_order+1");
  }
}

DimVector all_dims(const Tensor& self) {
  DimVector d;
  for (int64_t i = 0; i < self.dim(); ++i) d.push_back(i);
  return d;
}

std::vector<Tensor> gradient_uniform(const Tensor& self, const std::vector<Scalar>& spacing, IntArrayRef dim,
                                     int64_t edge_order) {
  std::vector<Tensor> result;
  for (size_t i = 0; i < dim.size(); ++i) {
    const int64_t d = wrap_dim(dim[i], self.dim());
    const Scalar& h = spacing.size() == 1 ? spacing[0] : spacing[i];
    const Tensor center = (sl(self, d, 2) - sl(self, d, 0, -2)) / h;
    Tensor prepend, append;
    if (edge_order == 1) {
      prepend = (sl(self, d, 1, 2) - sl(self, d, 0, 1)) / h;
      append = (sl(self, d, -1) - sl(self, d, -2, -1)) / h;
    } else {
      prepend = (-1.5 * sl(self, d, 0, 1) + 2 * sl(self, d, 1, 2) - 0.5 * sl(self, d, 2, 3)) / h;
      append = (0.5 * sl(self, d, -3, -2) - 2 * sl(self, d, -2, -1) + 1.5 * sl(self, d, -1)) / h;
    }
    result.push_back(cat({prepend, center / 2, append}, d));
  }
  return result;
}

std::vector<Tensor> gradient_coordinates(const Tensor& self, const std::vector<Tensor>& coordinates, IntArrayRef dim,
                                         int64_t edge_order) {
  for (const Tensor& c : coordinates) {
    EMBER_CHECK(c.device() == self.device(), "ember.gradient expected each tensor to be on the same device, but got devices ",
                self.device().str(), " and ", c.device().str(), "!");
  }
  std::vector<Tensor> result;
  for (size_t i = 0; i < dim.size(); ++i) {
    const int64_t d = wrap_dim(dim[i], self.dim());
    const Tensor& coord = coordinates.size() == 1 ? coordinates[0] : coordinates[i];
    if (coord.dim() == 0) {  // a 0-d tensor is a uniform step
      std::vector<Tensor> r = gradient_uniform(self, {coord.item()}, {d}, edge_order);
      result.push_back(r[0]);
      continue;
    }
    DimVector shape(static_cast<size_t>(self.dim()), 1);
    shape[static_cast<size_t>(d)] = -1;
    const Tensor dx = diff(coord, 1, 0);
    const Tensor dx1 = sl(dx, 0, 0, -1), dx2 = sl(dx, 0, 1);
    const Tensor a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape);
    const Tensor b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape);
    const Tensor c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape);
    const Tensor center = a * sl(self, d, 0, -2) + b * sl(self, d, 1, -1) + c * sl(self, d, 2);
    Tensor prepend, append;
    const Tensor d0 = select(dx, 0, 0), dl = select(dx, 0, -1);
    if (edge_order == 1) {
      prepend = (sl(self, d, 1, 2) - sl(self, d, 0, 1)) / d0;
      append = (sl(self, d, -1) - sl(self, d, -2, -1)) / dl;
    } else {
      const Tensor d1 = select(dx, 0, 1), dl1 = select(dx, 0, -2);
      Tensor pa = -(2.0 * d0 + d1) / (d0 * (d0 + d1));
      Tensor pb = (d0 + d1) / (d0 * d1);
      Tensor pc = -d0 / (d1 * (d0 + d1));
      prepend = pa * sl(self, d, 0, 1) + pb * sl(self, d, 1, 2) + pc * sl(self, d, 2, 3);
      pa = dl / (dl1 * (dl + dl1));
      pb = -(dl + dl1) / (dl * dl1);
      pc = (2 * dl + dl1) / (dl * (dl + dl1));
      append = pa * sl(self, d, -3, -2) + pb * sl(self, d, -2, -1) + pc * sl(self, d, -1);
    }
    result.push_back(cat({prepend, center, append}, d));
  }
  return result;
}

std::vector<Tensor> gradient_scalarint_impl(const Tensor& self, const std::optional<Scalar>& spacing,
                                            std::optional<int64_t> dim, int64_t edge_order) {
  const DimVector dims = dim ? DimVector{*dim} : all_dims(self);
  pre_check_gradient(self, spacing ? std::optional<int64_t>(1) : std::nullopt,
                     dim ? std::optional<IntArrayRef>(IntArrayRef(dims)) : std::nullopt, edge_order);
  return gradient_uniform(self, {spacing.value_or(Scalar(1.0))}, dims, edge_order);
}
std::vector<Tensor> gradient_scalararray_impl(const Tensor& self, const Scalar& spacing, IntArrayRef dim,
                                              int64_t edge_order) {
  pre_check_gradient(self, 1, dim, edge_order);
  return gradient_uniform(self, {spacing}, dim, edge_order);
}
std::vector<Tensor> gradient_array_impl(const Tensor& self, IntArrayRef dim, int64_t edge_order) {
  pre_check_gradient(self, std::nullopt, dim, edge_order);
  return gradient_uniform(self, {Scalar(1.0)}, dim, edge_order);
}
std::vector<Tensor> gradient_tensorarrayint_impl(const Tensor& self, const std::vector<Tensor>& spacing,
                                                 std::optional<int64_t> dim, int64_t edge_order) {
  const DimVector dims = dim ? DimVector{*dim} : all_dims(self);
  pre_check_gradient(self, static_cast<int64_t>(spacing.size()),
                     dim ? std::optional<IntArrayRef>(IntArrayRef(dims)) : std::nullopt, edge_order);
  return gradient_coordinates(self, spacing, dims, edge_order);
}
std::vector<Tensor> gradient_tensorarray_impl(const Tensor& self, const std::vector<Tensor>& spacing, IntArrayRef dim,
                                              int64_t edge_order) {
  pre_check_gradient(self, static_cast<int64_t>(spacing.size()), dim, edge_order);
  return gradient_coordinates(self, spacing, dim, edge_order);
}

// ---- trapezoid rules ----

Tensor zeros_like_except(const Tensor& y, int64_t dim) {
  DimVector sizes(y.sizes().begin(), y.sizes().end());
  sizes.erase(sizes.begin() + wrap_dim(dim, y.dim()));
  return zeros(sizes, TensorOptions(y.dtype()).device(y.device()));
}

// x viewed so that its differences broadcast against y's along dim (NumPy's rule).
Tensor x_differences(const Tensor& y, const Tensor& x, int64_t dim, const char* op) {
  Tensor xv;
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(dim), op, ": There must be one `x` value for each sample point");
    DimVector sizes(static_cast<size_t>(y.dim()), 1);
    sizes[static_cast<size_t>(dim)] = x.size(0);
    xv = x.view(sizes);
  } else if (x.dim() < y.dim()) {
    DimVector sizes(static_cast<size_t>(y.dim() - x.dim()), 1);
    sizes.insert(sizes.end(), x.sizes().begin(), x.sizes().end());
    xv = x.view(sizes);
  } else {
    xv = x;
  }
  return sl(xv, dim, 1) - sl(xv, dim, 0, -1);
}

Tensor trapezoid_x_impl(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = wrap_dim(dim, y.dim());
  if (y.size(dim) == 0) return zeros_like_except(y, dim);
  EMBER_CHECK(y.dtype() != kBool && x.dtype() != kBool,
              "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor dx = x_differences(y, x, dim, "trapezoid");
  return div((dx * (sl(y, dim, 1) + sl(y, dim, 0, -1))).sum(std::vector<int64_t>{dim}), Scalar(2.));
}

Tensor trapezoid_double(const Tensor& y, double dx, int64_t dim) {
  dim = wrap_dim(dim, y.dim());
  if (y.size(dim) == 0) return zeros_like_except(y, dim);
  EMBER_CHECK(y.dtype() != kBool, "trapezoid: received a bool input for `y`, but bool is not supported");
  return mul(y.sum(std::vector<int64_t>{dim}) - mul(select(y, dim, 0) + select(y, dim, -1), Scalar(0.5)), Scalar(dx));
}

Tensor trapezoid_dx_impl(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(!(dx.is_complex() || dx.is_bool()), "trapezoid: Currently, we only support dx as a real number.");
  return trapezoid_double(y, dx.to_double(), dim);
}
Tensor trapz_dx_impl(const Tensor& y, double dx, int64_t dim) { return trapezoid_double(y, dx, dim); }

Tensor cumulative_trapezoid_x_impl(const Tensor& y, const Tensor& x, int64_t dim) {
  dim = wrap_dim(dim, y.dim());
  EMBER_CHECK(y.dtype() != kBool && x.dtype() != kBool,
              "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  const Tensor dx = x_differences(y, x, dim, "cumulative_trapezoid");
  return div(cumsum((sl(y, dim, 0, -1) + sl(y, dim, 1)) * dx, dim), Scalar(2.));
}

Tensor cumulative_trapezoid_dx_impl(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(y.dtype() != kBool, "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  EMBER_CHECK(!(dx.is_complex() || dx.is_bool()),
              "cumulative_trapezoid: Currently, we only support dx as a real number.");
  dim = wrap_dim(dim, y.dim());
  return cumsum(mul(sl(y, dim, 0, -1) + sl(y, dim, 1), Scalar(dx.to_double() / 2.)), dim);
}

// ---- combinations ----

Tensor combinations_impl(const Tensor& self, int64_t r, bool with_replacement) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", self.sizes());
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty({0}, TensorOptions(self.dtype()).device(self.device()));
  const int64_t n = self.numel();
  std::vector<Tensor> grids = meshgrid(std::vector<Tensor>(static_cast<size_t>(r), self), "ij");
  // i < j < k < ... (or <= with replacement) over the index grids
  const Tensor range = arange(n, TensorOptions(kInt64).device(self.device()));
  const std::vector<Tensor> index = meshgrid(std::vector<Tensor>(static_cast<size_t>(r), range), "ij");
  Tensor mask = full(index[0].sizes(), true, TensorOptions(kBool).device(self.device()));
  for (int64_t i = 0; i + 1 < r; ++i) {
    mask = logical_and(mask, with_replacement ? le(index[i], index[i + 1]) : lt(index[i], index[i + 1]));
  }
  for (Tensor& g : grids) g = masked_select(g, mask);
  return stack(grids, 1);
}

// ---- sum_to_size ----

Tensor sum_to_size_impl(const Tensor& self, IntArrayRef size) {
  const IntArrayRef shape = self.sizes();
  bool expandable = static_cast<int64_t>(size.size()) <= self.dim();
  for (size_t i = 0; expandable && i < size.size(); ++i) {
    const int64_t s = size[size.size() - 1 - i], t = shape[shape.size() - 1 - i];
    expandable = s == t || s == 1;
  }
  EMBER_CHECK(expandable, "size {", size, "} is not expandable to size {", shape, "}.");
  const int64_t lead = self.dim() - static_cast<int64_t>(size.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (int64_t d = lead; d < self.dim(); ++d)
    if (size[static_cast<size_t>(d - lead)] == 1 && shape[static_cast<size_t>(d)] != 1) dims.push_back(d);
  if (dims.empty()) return self;
  Tensor r = self.sum(dims, /*keepdim=*/true);
  return lead > 0 ? r.view(size) : r;
}

}  // namespace

// ---- frontends ----
std::vector<Tensor> gradient(const Tensor& self, const std::optional<Scalar>& spacing, std::optional<int64_t> dim,
                             int64_t edge_order) {
  return dispatch::call<gradient_scalarint_impl>(OpId::gradient_scalarint, self, spacing, dim, edge_order);
}
std::vector<Tensor> gradient(const Tensor& self, const Scalar& spacing, IntArrayRef dim, int64_t edge_order) {
  return dispatch::call<gradient_scalararray_impl>(OpId::gradient_scalararray, self, spacing, dim, edge_order);
}
std::vector<Tensor> gradient(const Tensor& self, IntArrayRef dim, int64_t edge_order) {
  return dispatch::call<gradient_array_impl>(OpId::gradient_array, self, dim, edge_order);
}
std::vector<Tensor> gradient(const Tensor& self, const std::vector<Tensor>& spacing, std::optional<int64_t> dim,
                             int64_t edge_order) {
  return dispatch::call<gradient_tensorarrayint_impl>(OpId::gradient_tensorarrayint, self, spacing, dim, edge_order);
}
std::vector<Tensor> gradient(const Tensor& self, const std::vector<Tensor>& spacing, IntArrayRef dim,
                             int64_t edge_order) {
  return dispatch::call<gradient_tensorarray_impl>(OpId::gradient_tensorarray, self, spacing, dim, edge_order);
}
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  return dispatch::call<trapezoid_x_impl>(OpId::trapezoid_x, y, x, dim);
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  return dispatch::call<trapezoid_dx_impl>(OpId::trapezoid_dx, y, dx, dim);
}
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) {
  return dispatch::call<trapezoid_x_impl>(OpId::trapz_x, y, x, dim);
}
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return dispatch::call<trapz_dx_impl>(OpId::trapz_dx, y, dx, dim); }
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  return dispatch::call<cumulative_trapezoid_x_impl>(OpId::cumulative_trapezoid_x, y, x, dim);
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  return dispatch::call<cumulative_trapezoid_dx_impl>(OpId::cumulative_trapezoid_dx, y, dx, dim);
}
Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  return dispatch::call<combinations_impl>(OpId::combinations, self, r, with_replacement);
}
Tensor sum_to_size(const Tensor& self, IntArrayRef size) {
  return dispatch::call<sum_to_size_impl>(OpId::sum_to_size, self, size);
}

using GradScalarInt = std::vector<Tensor> (*)(const Tensor&, const std::optional<Scalar>&, std::optional<int64_t>, int64_t);
using GradScalarArray = std::vector<Tensor> (*)(const Tensor&, const Scalar&, IntArrayRef, int64_t);
using GradArray = std::vector<Tensor> (*)(const Tensor&, IntArrayRef, int64_t);
using GradTensorInt = std::vector<Tensor> (*)(const Tensor&, const std::vector<Tensor>&, std::optional<int64_t>, int64_t);
using GradTensorArray = std::vector<Tensor> (*)(const Tensor&, const std::vector<Tensor>&, IntArrayRef, int64_t);
using TrapX = Tensor (*)(const Tensor&, const Tensor&, int64_t);
using TrapScalar = Tensor (*)(const Tensor&, const Scalar&, int64_t);
using TrapDouble = Tensor (*)(const Tensor&, double, int64_t);
EMBER_REGISTER_OP(gradient_scalarint, static_cast<GradScalarInt>(&gradient));
EMBER_REGISTER_OP(gradient_scalararray, static_cast<GradScalarArray>(&gradient));
EMBER_REGISTER_OP(gradient_array, static_cast<GradArray>(&gradient));
EMBER_REGISTER_OP(gradient_tensorarrayint, static_cast<GradTensorInt>(&gradient));
EMBER_REGISTER_OP(gradient_tensorarray, static_cast<GradTensorArray>(&gradient));
EMBER_REGISTER_OP(trapezoid_x, static_cast<TrapX>(&trapezoid));
EMBER_REGISTER_OP(trapezoid_dx, static_cast<TrapScalar>(&trapezoid));
EMBER_REGISTER_OP(trapz_x, static_cast<TrapX>(&trapz));
EMBER_REGISTER_OP(trapz_dx, static_cast<TrapDouble>(&trapz));
EMBER_REGISTER_OP(cumulative_trapezoid_x, static_cast<TrapX>(&cumulative_trapezoid));
EMBER_REGISTER_OP(cumulative_trapezoid_dx, static_cast<TrapScalar>(&cumulative_trapezoid));
EMBER_REGISTER_OP(combinations, &combinations);
EMBER_REGISTER_OP(sum_to_size, &sum_to_size);

}  // namespace ember
