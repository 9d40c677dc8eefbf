// native_group_norm_backward, the _native_batch_norm_legit family and instance_norm
// (Composites over native_batch_norm / group-norm statistics), the distances (_cdist_forward and
// _pdist_forward are Primitives with their backward ops, as PyTorch's; cdist, pdist,
// cosine_similarity and pairwise_distance are PyTorch's composites).
#include <cmath>
#include <limits>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/grad_mode.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/normalization.h"
#include "ember/ops/overloads.h"
#include "ember/ops/reduce.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

// ---- normalisation ----
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    IntArrayRef output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "native_group_norm_backward: output_mask must have 3 entries");
  EMBER_CHECK(input.numel() == N * C * HxW, "Expect input to have ", N * C * HxW, " elements");
  EMBER_CHECK(mean.numel() == N * group, "Expect mean to have ", N * group, " elements");
  EMBER_CHECK(rstd.numel() == N * group, "Expect rstd to have ", N * group, " elements");
  const std::vector<int64_t> d2{2}, d02{0, 2};
  const Tensor xg = input.reshape({N, group, -1});
  const Tensor mu = mean.reshape({N, group, 1}), rs = rstd.reshape({N, group, 1});
  const Tensor xhat = ((xg - mu) * rs).reshape({N, C, -1});
  const Tensor gy = grad_out.reshape({N, C, -1});
  const bool has_w = weight && weight->defined();
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor gxhat = has_w ? gy * weight->view({1, C, 1}) : gy;
    const Tensor gxg = gxhat.reshape({N, group, -1}), xhg = xhat.reshape({N, group, -1});
    gi = (rs * (gxg - gxg.mean(d2, true) - xhg * (gxg * xhg).mean(d2, true))).reshape(input.sizes());
  }
  if (output_mask[1]) gw = (gy * xhat).sum(d02);
  if (output_mask[2]) gb = gy.sum(d02);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_impl(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps) {
  return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_no_stats_impl(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    bool training, double momentum, double eps) {
  return native_batch_norm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_legit_no_training_impl(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  return native_batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

// PyTorch's instance_norm: batch norm over [1, N * C, *], the running statistics averaged back
// over the batch.
Tensor instance_norm_impl(const Tensor& input, const std::optional<Tensor>& weight,
                          const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                          const std::optional<Tensor>& running_var, bool use_input_stats,
                          double momentum, double eps, bool /*cudnn_enabled*/) {
  const bool has_rm = running_mean && running_mean->defined();
  const bool has_rv = running_var && running_var->defined();
  EMBER_CHECK(use_input_stats || (has_rm && has_rv), "Expected running_mean and running_var to be ",
              "defined when use_input_stats is false");
  EMBER_CHECK(input.dim() >= 2, "instance_norm: expected an input of at least 2 dimensions, got ",
              input.dim());
  const int64_t b = input.size(0), c = input.size(1);
  std::vector<int64_t> shape{1, b * c};
  shape.insert(shape.end(), input.sizes().begin() + 2, input.sizes().end());
  auto repeat = [b](const std::optional<Tensor>& t) -> std::optional<Tensor> {
    if (!t || !t->defined()) return std::nullopt;
    return t->unsqueeze(0).expand({b, t->size(0)}).reshape({-1});
  };
  const std::optional<Tensor> rm = repeat(running_mean), rv = repeat(running_var);
  const Tensor out = batch_norm(input.contiguous().view(shape), repeat(weight), repeat(bias), rm, rv,
                                use_input_stats, momentum, eps);
  if (has_rm || has_rv) {
    NoGradGuard guard;
    if (has_rm) {
      Tensor target = *running_mean;
      target.copy_(rm->view({b, c}).mean(std::vector<int64_t>{0}, false));
    }
    if (has_rv) {
      Tensor target = *running_var;
      target.copy_(rv->view({b, c}).mean(std::vector<int64_t>{0}, false));
    }
  }
  return out.view(input.sizes());
}

// ---- distances ----
void check_cdist(const Tensor& x1, const Tensor& x2, double p) {
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ",
              x1.size(-1), " X2: ", x2.size(-1));
  EMBER_CHECK(is_floating(x1.dtype()), "cdist only supports floating-point dtypes, X1 got: ",
              scalar_type_name(x1.dtype()));
  EMBER_CHECK(is_floating(x2.dtype()), "cdist only supports floating-point dtypes, X2 got: ",
              scalar_type_name(x2.dtype()));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
}

// The p-norm of the last dim of `diff` (PyTorch's cdist / pdist kernels: p = 0 counts
// non-zeros, p = inf is the max).
Tensor pnorm_last(const Tensor& diff, double p) {
  const std::vector<int64_t> last{-1};
  if (p == 0) return ne(diff, zeros_like(diff)).to(diff.dtype()).sum(last);
  if (p == 1) return abs(diff).sum(last);
  if (p == 2) return diff.pow(2).sum(last).sqrt();
  if (std::isinf(p)) return amax(abs(diff), last);
  return abs(diff).pow(p).sum(last).pow(1.0 / p);
}

Tensor _cdist_forward_impl(const Tensor& x1, const Tensor& x2, double p,
                           std::optional<int64_t> /*compute_mode*/) {
  check_cdist(x1, x2, p);
  return pnorm_last(x1.unsqueeze(-2) - x2.unsqueeze(-3), p);
}

// d dist_ij / d x1_i for the pairs of a distance matrix, summed over j (PyTorch's
// cdist_backward formulas; 0 where the distance is 0).
Tensor cdist_grad(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& dist) {
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  const Tensor g = grad.unsqueeze(-1), d = dist.unsqueeze(-1);
  const Tensor zero = zeros_like(diff);
  Tensor term;
  if (p == 0) return zeros_like(x1);
  if (p == 1) {
    term = sign(diff) * g;
  } else if (std::isinf(p)) {
    term = where(eq(abs(diff), d), sign(diff) * g, zero);
  } else {
    const Tensor safe = where(eq(d, zeros_like(d)), ones_like(d), d);
    Tensor t = p == 2 ? diff * g / safe
                      : sign(diff) * abs(diff).pow(p - 1) * g / safe.pow(p - 1);
    if (p < 1) t = where(eq(diff, zero), zero, t);
    term = where(eq(d.expand(diff.sizes()), zero), zero, t);
  }
  return term.sum(std::vector<int64_t>{-2});
}

Tensor _cdist_backward_impl(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                            const Tensor& cdist) {
  return cdist_grad(grad, x1, x2, p, cdist);
}

// PyTorch's _euclidean_dist: the matrix-product form cdist takes for p = 2 on more than 25 rows.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  const std::vector<int64_t> last{-1};
  const Tensor x1_norm = x1.pow(2).sum(last, true), x2_norm = x2.pow(2).sum(last, true);
  const Tensor x1_ = cat({x1 * -2.0, x1_norm, ones_like(x1_norm)}, -1);
  const Tensor x2_ = cat({x2, ones_like(x2_norm), x2_norm}, -1);
  return clamp(matmul(x1_, x2_.transpose(-1, -2)), Scalar(1e-30), std::nullopt).sqrt();
}

Tensor cdist_impl(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  check_cdist(x1, x2, p);
  const int64_t mode = compute_mode.value_or(0);
  EMBER_CHECK(mode >= 0 && mode <= 2, mode, " is not a valid value for compute_mode");
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  // Broadcast the batch dims as PyTorch does before either path.
  std::vector<int64_t> b1(x1.sizes().begin(), x1.sizes().end() - 2), b2(x2.sizes().begin(), x2.sizes().end() - 2);
  const auto batch = broadcast_shapes(b1, b2);
  std::vector<int64_t> s1(batch.begin(), batch.end()), s2 = s1;
  s1.insert(s1.end(), {r1, x1.size(-1)});
  s2.insert(s2.end(), {r2, x2.size(-1)});
  // (the inputs themselves when already of that shape: _cdist_forward's node saves them)
  const Tensor a = x1.sizes() == IntArrayRef(s1) ? x1 : x1.expand(s1);
  const Tensor b = x2.sizes() == IntArrayRef(s2) ? x2 : x2.expand(s2);
  if (p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) return euclidean_dist(a, b);
  return _cdist_forward(a.contiguous(), b.contiguous(), p, compute_mode);
}

Tensor _pdist_forward_impl(const Tensor& self, double p) {
  EMBER_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  EMBER_CHECK(is_floating(self.dtype()), "pdist only supports floating-point dtypes");
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = self.size(0);
  std::vector<int64_t> i1, i2;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      i1.push_back(i);
      i2.push_back(j);
    }
  const TensorOptions io = TensorOptions(kInt64).device(self.device());
  const Tensor a = self.index_select(0, tensor(i1, io).view({-1}));
  const Tensor b = self.index_select(0, tensor(i2, io).view({-1}));
  return pnorm_last(a - b, p);
}

// The pair gradient scattered into a full [n, n] matrix (both triangles), then cdist's rule.
Tensor _pdist_backward_impl(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  const int64_t n = self.size(0);
  std::vector<int64_t> flat;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) flat.push_back(i * n + j);
  const Tensor idx = tensor(flat, TensorOptions(kInt64).device(self.device())).view({-1});
  auto full = [&](const Tensor& v) {
    Tensor m = zeros({n * n}, TensorOptions(v.dtype()).device(v.device())).scatter(0, idx, v).view({n, n});
    return m + m.transpose(0, 1);
  };
  return cdist_grad(full(grad), self, self, p, full(pdist));
}

Tensor pdist_impl(const Tensor& self, double p) {
  EMBER_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  EMBER_CHECK(is_floating(self.dtype()), "pdist only supports floating-point dtypes");
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  return _pdist_forward(self.contiguous(), p);
}

// PyTorch 1.13's cosine_similarity: each input over its norm (the squared norm clamped to eps^2
// without a gradient of its own), then the dot product.
Tensor cosine_similarity_impl(const Tensor& x1_, const Tensor& x2_, int64_t dim, double eps) {
  const ScalarType dt = result_type(x1_, x2_);
  EMBER_CHECK(is_floating(dt), "expected common dtype to be floating point, yet common dtype is ",
              scalar_type_name(dt));
  const auto shape = broadcast_shapes(x1_.sizes(), x2_.sizes());
  const Tensor x1 = x1_.to(dt).expand(shape), x2 = x2_.to(dt).expand(shape);
  const std::vector<int64_t> d{dim};
  auto norm_of = [&](const Tensor& x) {
    const Tensor sq = x.pow(2).sum(d, true);
    const Tensor clamped = clamp(sq.detach(), Scalar(eps * eps), std::nullopt);
    return (sq + (clamped - sq.detach())).sqrt();
  };
  return ((x1 / norm_of(x1)) * (x2 / norm_of(x2))).sum(d);
}

Tensor pairwise_distance_impl(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  const int64_t innermost = out_dim - 1;
  const Tensor diff = x1 - x2 + eps;
  if (out_dim == 0) return norm(diff, Scalar(p), std::vector<int64_t>{}, keepdim);
  return norm(diff, Scalar(p), std::vector<int64_t>{innermost}, keepdim);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor cdist_forward_autograd(const Tensor& x1, const Tensor& x2, const double& p,
                              const std::optional<int64_t>& mode) {
  autograd::Recorder r("CdistBackward0", x1, x2);
  Tensor out = r.forward([&] {
    return dispatch::call<_cdist_forward_impl>(OpId::_cdist_forward, x1, x2, p, mode);
  });
  if (!r) return out;
  const size_t x1_ = r.save(x1, "x1"), x2_ = r.save(x2, "x2");
  r.values("p", p);
  const double pp = p;
  out = r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor a = n.saved(x1_), b = n.saved(x2_), res = n.saved(x2_ + 1);
    Tensor ga, gb;
    if (n.needs(0)) ga = _cdist_backward(g[0].contiguous(), a, b, pp, res);
    if (n.needs(1)) gb = _cdist_backward(g[0].transpose(-1, -2).contiguous(), b, a, pp, res.transpose(-1, -2));
    return tensor_list{ga, gb};
  });
  ops::save_output_at(r, out, x2_ + 1, "result");
  return out;
}

Tensor pdist_forward_autograd(const Tensor& self, const double& p) {
  autograd::Recorder r("PdistBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<_pdist_forward_impl>(OpId::_pdist_forward, self, p); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("p", p);
  const double pp = p;
  out = r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{_pdist_backward(g[0], n.saved(self_), pp, n.saved(self_ + 1))};
  });
  ops::save_output_at(r, out, self_ + 1, "result");
  return out;
}

// Double backward: PyTorch has none (not_implemented in derivatives.yaml); ember's backward ops
// are tensor-op formulas, so under autograd they run as those ops and record themselves.
Tensor cdist_backward_autograd(const Tensor& grad, const Tensor& x1, const Tensor& x2, const double& p,
                               const Tensor& cdist) {
  return cdist_grad(grad, x1, x2, p, cdist);
}
Tensor pdist_backward_autograd(const Tensor& grad, const Tensor& self, const double& p,
                               const Tensor& pdist) {
  return _pdist_backward_impl(grad, self, p, pdist);
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(_cdist_forward, &cdist_forward_autograd);
EMBER_REGISTER_AUTOGRAD(_pdist_forward, &pdist_forward_autograd);
EMBER_REGISTER_AUTOGRAD(_cdist_backward, &cdist_backward_autograd);
EMBER_REGISTER_AUTOGRAD(_pdist_backward, &pdist_backward_autograd);

namespace {
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward_op(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    IntArrayRef output_mask) {
  return dispatch::call<native_group_norm_backward_impl>(OpId::native_group_norm_backward, grad_out,
                                                         input, mean, rstd, weight, N, C, HxW,
                                                         group, output_mask);
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> mask{output_mask[0], output_mask[1], output_mask[2]};
  return native_group_norm_backward_op(grad_out, input, mean, rstd, weight, N, C, HxW, group, mask);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps) {
  return dispatch::call<batch_norm_legit_impl>(OpId::_native_batch_norm_legit, input, weight, bias,
                                               running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    bool training, double momentum, double eps) {
  return dispatch::call<batch_norm_legit_no_stats_impl>(OpId::_native_batch_norm_legit_no_stats,
                                                        input, weight, bias, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> _native_batch_norm_legit_no_training(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps) {
  return dispatch::call<batch_norm_legit_no_training_impl>(
      OpId::_native_batch_norm_legit_no_training, input, weight, bias, running_mean, running_var,
      momentum, eps);
}
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled) {
  return dispatch::call<instance_norm_impl>(OpId::instance_norm, input, weight, bias, running_mean,
                                            running_var, use_input_stats, momentum, eps,
                                            cudnn_enabled);
}
Tensor _cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return dispatch::call<_cdist_forward_impl>(OpId::_cdist_forward, x1, x2, p, compute_mode);
}
Tensor _cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                       const Tensor& cdist) {
  return dispatch::call<_cdist_backward_impl>(OpId::_cdist_backward, grad, x1, x2, p, cdist);
}
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  return dispatch::call<cdist_impl>(OpId::cdist, x1, x2, p, compute_mode);
}
Tensor _pdist_forward(const Tensor& self, double p) {
  return dispatch::call<_pdist_forward_impl>(OpId::_pdist_forward, self, p);
}
Tensor _pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  return dispatch::call<_pdist_backward_impl>(OpId::_pdist_backward, grad, self, p, pdist);
}
Tensor pdist(const Tensor& self, double p) { return dispatch::call<pdist_impl>(OpId::pdist, self, p); }
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return dispatch::call<cosine_similarity_impl>(OpId::cosine_similarity, x1, x2, dim, eps);
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return dispatch::call<pairwise_distance_impl>(OpId::pairwise_distance, x1, x2, p, eps, keepdim);
}

namespace {
std::tuple<Tensor, Tensor, Tensor> legit_op(const Tensor& input, const std::optional<Tensor>& weight,
                                            const std::optional<Tensor>& bias, const Tensor& running_mean,
                                            const Tensor& running_var, bool training, double momentum,
                                            double eps) {
  return _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> legit_no_stats_op(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, bool training,
                                                     double momentum, double eps) {
  return _native_batch_norm_legit(input, weight, bias, training, momentum, eps);
}
}  // namespace

EMBER_REGISTER_OP(native_group_norm_backward, &native_group_norm_backward_op);
EMBER_REGISTER_OP(_native_batch_norm_legit, &legit_op);
EMBER_REGISTER_OP(_native_batch_norm_legit_no_stats, &legit_no_stats_op);
EMBER_REGISTER_OP(_native_batch_norm_legit_no_training, &_native_batch_norm_legit_no_training);
EMBER_REGISTER_OP(instance_norm, &instance_norm);
EMBER_REGISTER_OP(_cdist_forward, &_cdist_forward);
EMBER_REGISTER_OP(_cdist_backward, &_cdist_backward);
EMBER_REGISTER_OP(cdist, &cdist);
EMBER_REGISTER_OP(_pdist_forward, &_pdist_forward);
EMBER_REGISTER_OP(_pdist_backward, &_pdist_backward);
EMBER_REGISTER_OP(pdist, &pdist);
EMBER_REGISTER_OP(cosine_similarity, &cosine_similarity);
EMBER_REGISTER_OP(pairwise_distance, &pairwise_distance);

}  // namespace ember
