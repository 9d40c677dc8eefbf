// batch_norm (Composite: PyTorch's checks, then native_batch_norm), native_batch_norm
// (Primitive: statistics, running-stat update, the affine pass), group_norm / native_group_norm,
// and their backward rules. Kernels: src/backends/cpu/normalization_kernels.cpp.
//
// Note [Batch norm backward]: native_batch_norm's rule calls the op native_batch_norm_backward,
// so subclasses and modes see it as in PyTorch. Its kernel is one fused pass. Its autograd
// kernel (a backward that builds a graph: create_graph, or a direct call on tensors that need
// grad) writes the same gradients with Tensor ops over statistics recomputed from the input,
// so double backward is exact (PyTorch's batchnorm_double_backward, derived by autograd).
#include <cmath>

#include "../autograd/record.h"
#include "../backends/cpu/normalization_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/grad_mode.h"
#include "ember/ops/normalization.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

const Tensor& opt(const std::optional<Tensor>& t) {
  static const Tensor none;
  return t ? *t : none;
}

bool is_reduced(ScalarType t) { return t == kFloat16 || t == kBFloat16; }

// A 1-d per-channel tensor as float64 values (through its stride).
std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  if (v.empty()) return v;
  const int64_t st = t.dim() == 0 ? 0 : t.stride(0);
  visit_dtype(t.dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(t.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[static_cast<int64_t>(i) * st]);
  });
  return v;
}

void write_doubles(const Tensor& t, const std::vector<double>& v) {
  const int64_t st = t.dim() == 0 ? 0 : t.stride(0);
  visit_dtype(t.dtype(), [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[static_cast<int64_t>(i) * st] = static_cast<T>(v[i]);
  });
}

// The input as an NCS-viewable tensor (itself, or a contiguous copy).
Tensor ncs_able(const Tensor& t) { return cpu::ncs_view(t) ? t : t.contiguous(); }

// [1, C, 1, ...] for broadcasting a per-channel vector against an input of `dim` dims.
std::vector<int64_t> channel_shape(int64_t dim, int64_t C) {
  std::vector<int64_t> s(static_cast<size_t>(dim), 1);
  s[1] = C;
  return s;
}

std::vector<int64_t> all_but_channel(int64_t dim) {
  std::vector<int64_t> d;
  for (int64_t i = 0; i < dim; ++i)
    if (i != 1) d.push_back(i);
  return d;
}

void check_features(const char* name, int64_t C, const Tensor& t) {
  EMBER_CHECK(!t.defined() || t.numel() == C, name, " should contain ", C, " elements not ",
              t.numel());
}

// PyTorch's CPU rule: parameters share the input's dtype, or are float32 for a 16-bit input.
void check_param_dtypes(const Tensor& input, std::initializer_list<const Tensor*> params) {
  for (const Tensor* p : params) {
    if (!p->defined() || p->dtype() == input.dtype()) continue;
    EMBER_CHECK(is_reduced(input.dtype()) && p->dtype() == kFloat32,
                "mixed dtype (CPU): expect parameter to have scalar type of ",
                scalar_type_name(is_reduced(input.dtype()) ? kFloat32 : input.dtype()));
  }
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_impl(
    const Tensor& input, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& bias_opt, const std::optional<Tensor>& running_mean_opt,
    const std::optional<Tensor>& running_var_opt, bool training, double momentum, double eps) {
  ops::check_not_quantized("aten::native_batch_norm", {input});
  const Tensor &weight = opt(weight_opt), &bias = opt(bias_opt);
  const Tensor &running_mean = opt(running_mean_opt), &running_var = opt(running_var_opt);
  wrap_dim(1, input.dim());  // [N, C, *]: PyTorch's IndexError for fewer dims
  EMBER_CHECK(is_floating(input.dtype()), "\"batch_norm\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  const int64_t C = input.size(1);
  check_features("weight", C, weight);
  check_features("bias", C, bias);
  check_features("running_mean", C, running_mean);
  check_features("running_var", C, running_var);
  check_param_dtypes(input, {&weight, &bias, &running_mean, &running_var});
  // Without running statistics even eval normalises with the batch's, as PyTorch's kernel.
  const bool batch_stats = training || !running_mean.defined() || !running_var.defined();
  bool mixed = false;
  for (const Tensor* p : {&weight, &bias, &running_mean, &running_var})
    mixed = mixed || (p->defined() && p->dtype() != input.dtype());
  const TensorOptions stat_opts = TensorOptions(mixed ? kFloat32 : input.dtype()).device(input.device());
  const Tensor x = input.is_meta() ? input : ncs_able(input);
  Tensor out = cpu::empty_like_layout(input.sizes(), x, input.dtype());
  Tensor save_mean = empty({batch_stats ? C : 0}, stat_opts);
  Tensor save_invstd = empty({batch_stats ? C : 0}, stat_opts);
  if (out.is_meta()) return {out, save_mean, save_invstd};

  const size_t Cs = static_cast<size_t>(C);
  std::vector<double> mean, var, invstd(Cs);
  if (batch_stats) {
    cpu::batch_norm_stats(x, mean, var);
    for (size_t c = 0; c < Cs; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);
    write_doubles(save_mean, mean);
    write_doubles(save_invstd, invstd);
    const int64_t m = input.numel() / std::max<int64_t>(C, 1);
    if (training && running_mean.defined()) {
      std::vector<double> rm = to_doubles(running_mean);
      for (size_t c = 0; c < Cs; ++c) rm[c] = (1 - momentum) * rm[c] + momentum * mean[c];
      write_doubles(ops::mark_written(running_mean), rm);
    }
    if (training && running_var.defined()) {
      std::vector<double> rv = to_doubles(running_var);
      const double unbias = static_cast<double>(m) / static_cast<double>(m - 1);
      for (size_t c = 0; c < Cs; ++c) rv[c] = (1 - momentum) * rv[c] + momentum * var[c] * unbias;
      write_doubles(ops::mark_written(running_var), rv);
    }
  } else {
    mean = to_doubles(running_mean);
    const std::vector<double> rv = to_doubles(running_var);
    for (size_t c = 0; c < Cs; ++c) invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
  }
  // out = x * a + b per channel, with a = invstd * w and b = bias - mean * a.
  const std::vector<double> w = weight.defined() ? to_doubles(weight) : std::vector<double>(Cs, 1.0);
  const std::vector<double> bb = bias.defined() ? to_doubles(bias) : std::vector<double>(Cs, 0.0);
  std::vector<double> a(Cs), b(Cs);
  for (size_t c = 0; c < Cs; ++c) {
    a[c] = invstd[c] * w[c];
    b[c] = bb[c] - mean[c] * a[c];
  }
  cpu::channel_affine(out, x, a, b);
  return {out, save_mean, save_invstd};
}

// PyTorch's aten::batch_norm (through _batch_norm_impl_index): its checks, the empty case, then
// the primitive.
Tensor batch_norm_impl(const Tensor& input, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                       const std::optional<Tensor>& running_var, bool training, double momentum,
                       double eps, bool /*cudnn_enabled*/) {
  wrap_dim(1, input.dim());
  const int64_t C = input.size(1);
  if (input.numel() == 0) {
    // As PyTorch: not a view of input and not an empty graph, so gradients still flow.
    Tensor out = input.clone();
    if (weight) out = out * weight->select(0, 0);
    if (bias) out = out + bias->select(0, 0);
    return out;
  }
  check_features("running_mean", C, opt(running_mean));
  EMBER_CHECK(running_mean || training, "running_mean must be defined in evaluation mode");
  check_features("running_var", C, opt(running_var));
  EMBER_CHECK(running_var || training, "running_var must be defined in evaluation mode");
  check_features("weight", C, opt(weight));
  check_features("bias", C, opt(bias));
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                       momentum, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_impl(
    const Tensor& input, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& bias_opt, int64_t N, int64_t C, int64_t HxW, int64_t group,
    double eps) {
  ops::check_not_quantized("aten::native_group_norm", {input});
  const Tensor &weight = opt(weight_opt), &bias = opt(bias_opt);
  EMBER_CHECK(is_floating(input.dtype()), "\"GroupNormKernelImpl\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  EMBER_CHECK(input.numel() == N * C * HxW, "Expected input to have ", N * C * HxW,
              " elements (N * C * HxW), but got input of size ", input.sizes());
  EMBER_CHECK(group > 0 && C % group == 0, "Expected number of channels in input to be divisible by ",
              "num_groups, but got input of shape ", input.sizes(), " and num_groups=", group);
  EMBER_CHECK(!weight.defined() || weight.numel() == C, "Expected weight to be a vector of size ",
              "equal to the number of channels in input, but got weight of shape ",
              weight.sizes(), " and input of shape ", input.sizes());
  EMBER_CHECK(!bias.defined() || bias.numel() == C, "Expected bias to be a vector of size equal ",
              "to the number of channels in input, but got bias of shape ", bias.sizes(),
              " and input of shape ", input.sizes());
  check_param_dtypes(input, {&weight, &bias});
  bool mixed = false;
  for (const Tensor* p : {&weight, &bias}) mixed = mixed || (p->defined() && p->dtype() != input.dtype());
  const TensorOptions stat_opts = TensorOptions(mixed ? kFloat32 : input.dtype()).device(input.device());
  Tensor out = empty(input.sizes(), TensorOptions(input.dtype()).device(input.device()));
  Tensor mean = empty({N, group}, stat_opts), rstd = empty({N, group}, stat_opts);
  if (out.is_meta()) return {out, mean, rstd};
  std::vector<double> mv, rv;
  cpu::group_norm_kernel(out, input.contiguous(), group, eps,
                         weight.defined() ? to_doubles(weight) : std::vector<double>(),
                         bias.defined() ? to_doubles(bias) : std::vector<double>(), mv, rv);
  write_doubles(mean.view({-1}), mv);
  write_doubles(rstd.view({-1}), rv);
  return {out, mean, rstd};
}

Tensor group_norm_impl(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  wrap_dim(1, input.dim());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0,
              "Expected number of channels in input to be divisible by num_groups, but got input "
              "of shape ", input.sizes(), " and num_groups=", num_groups);
  for (const auto* p : {&weight, &bias}) {
    EMBER_CHECK(!*p || ((*p)->dim() == 1 && (*p)->numel() == C), "Expected ",
                p == &weight ? "weight" : "bias", " to be a vector of size equal to the number of ",
                "channels in input, but got ", p == &weight ? "weight" : "bias", " of shape ",
                (*p)->sizes(), " and input of shape ", input.sizes());
  }
  int64_t HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  return std::get<0>(native_group_norm(input.contiguous(), weight, bias, N, C, HxW, num_groups, eps));
}

}  // namespace

// ---- the fused batch-norm backward (Note [Batch norm backward]) ----
namespace {
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight_opt,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    const bool& train, const double& eps, const IntArrayRef& output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "native_batch_norm_backward: output_mask must have 3 "
              "entries, got ", output_mask);
  EMBER_CHECK(input.dim() >= 2, "native_batch_norm_backward: expected an input with at least 2 "
              "dims, got ", input.dim());
  EMBER_CHECK(grad_out.sizes().equals(input.sizes()), "native_batch_norm_backward: grad_out of "
              "size ", grad_out.sizes(), " does not match the input's size ", input.sizes());
  EMBER_CHECK(train ? save_mean && save_invstd : running_mean && running_var,
              "native_batch_norm_backward: ", train ? "train=True needs save_mean and save_invstd"
                                                   : "train=False needs running_mean and running_var");
  const Tensor& weight = opt(weight_opt);
  const int64_t C = input.size(1);
  const size_t Cs = static_cast<size_t>(C);
  const TensorOptions popts =
      TensorOptions(weight.defined() ? weight.dtype() : input.dtype()).device(input.device());
  Tensor gi, gw, gb;
  const Tensor x = input.is_meta() ? input : ncs_able(input);
  const Tensor dy = grad_out.is_meta() ? grad_out : ncs_able(grad_out);
  if (output_mask[0]) gi = cpu::empty_like_layout(input.sizes(), x, input.dtype());
  if (output_mask[1]) gw = empty({C}, popts);
  if (output_mask[2]) gb = empty({C}, popts);
  if (input.is_meta() || grad_out.is_meta()) return {gi, gw, gb};
  std::vector<double> mean, invstd;
  if (train) {
    mean = to_doubles(opt(save_mean));
    invstd = to_doubles(opt(save_invstd));
  } else {
    mean = to_doubles(opt(running_mean));
    invstd = to_doubles(opt(running_var));
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  }
  std::vector<double> sum_dy, sum_dy_xmu;
  cpu::batch_norm_grad_sums(dy, x, mean, sum_dy, sum_dy_xmu);
  const std::vector<double> w = weight.defined() ? to_doubles(weight) : std::vector<double>(Cs, 1.0);
  if (output_mask[0]) {
    const double m = static_cast<double>(input.numel() / std::max<int64_t>(C, 1));
    std::vector<double> a(Cs), b(Cs, 0.0), k(Cs, 0.0);
    for (size_t c = 0; c < Cs; ++c) {
      a[c] = invstd[c] * w[c];
      if (train) {
        // dx = a * (dy - sum_dy / m - (x - mean) * invstd^2 * sum_dy_xmu / m)
        b[c] = -a[c] * invstd[c] * invstd[c] * sum_dy_xmu[c] / m;
        k[c] = -a[c] * sum_dy[c] / m - mean[c] * b[c];
      }
    }
    cpu::channel_affine2(gi, dy, x, a, b, k);
  }
  if (output_mask[1]) {
    std::vector<double> v(Cs);
    for (size_t c = 0; c < Cs; ++c) v[c] = sum_dy_xmu[c] * invstd[c];
    write_doubles(gw, v);
  }
  if (output_mask[2]) write_doubles(gb, sum_dy);
  return {gi, gw, gb};
}
}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// native_batch_norm_backward under autograd: Tensor ops over statistics recomputed from the
// input (differentiable in it), so the graph is exact; the values are the fused kernel's.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_autograd(
    const Tensor& grad_out, const Tensor& x, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    const bool& train, const double& eps, const IntArrayRef& output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "native_batch_norm_backward: output_mask must have 3 "
              "entries, got ", output_mask);
  EMBER_CHECK(train || (running_mean && running_var), "native_batch_norm_backward: train=False "
              "needs running_mean and running_var");
  (void)save_mean;
  (void)save_invstd;
  const Tensor& w = opt(weight);
  const int64_t C = x.size(1);
  const auto shape = channel_shape(x.dim(), C);
  const auto dims = all_but_channel(x.dim());
  Tensor mu, invstd;
  if (train) {
    mu = x.mean(dims, true);
    invstd = (x.var(dims, 0, true) + eps).rsqrt();
  } else {
    mu = running_mean->view(shape);
    invstd = (*running_var + eps).rsqrt().view(shape);
  }
  const Tensor& g = grad_out;
  const Tensor xhat = (x - mu) * invstd;
  const Tensor scale = w.defined() ? invstd * w.view(shape) : invstd;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    gi = train ? scale * (g - g.mean(dims, true) - xhat * (g * xhat).mean(dims, true)) : g * scale;
  }
  if (output_mask[1]) gw = (g * xhat).sum(dims);
  if (output_mask[2]) gb = g.sum(dims);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_autograd(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const bool& training, const double& momentum, const double& eps) {
  autograd::Recorder r("NativeBatchNormBackward0", input, weight, bias);
  auto outs = r.forward([&] {
    return dispatch::call<native_batch_norm_impl>(OpId::native_batch_norm, input, weight, bias,
                                                  running_mean, running_var, training, momentum,
                                                  eps);
  });
  if (!r) return outs;
  const bool batch_stats = training || !running_mean || !running_var;
  const bool has_w = weight.has_value();
  const size_t x_ = r.save(input, "input");
  const size_t w_ = r.save_if(has_w, weight, "weight");
  // The running statistics matter only to an eval-mode backward; in training the forward just
  // updated them and later steps update them again, so they are not saved (their attributes
  // read None, where PyTorch keeps the tensors).
  const size_t rm_ = r.save_if(!batch_stats, running_mean, "running_mean");
  const size_t rv_ = r.save_if(!batch_stats, running_var, "running_var");
  r.values("eps", eps, "training", training);
  const size_t mean_ = rv_ + 1, invstd_ = rv_ + 2;
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
    const Tensor x = n.saved(x_);
    const Tensor w = has_w ? n.saved(w_) : Tensor();
    const std::array<bool, 3> mask{n.needs(0), has_w && n.needs(1), n.needs(2)};
    const Tensor rm = batch_stats ? Tensor() : n.saved(rm_);
    const Tensor rv = batch_stats ? Tensor() : n.saved(rv_);
    auto some = [](const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; };
    auto [gi, gw, gb] = native_batch_norm_backward(g[0], x, some(w), some(rm), some(rv),
                                                   n.saved(mean_), n.saved(invstd_), batch_stats,
                                                   eps, mask);
    return {gi, gw, gb};
  }, {true, false, false});  // the saved statistics are not differentiable outputs
  ops::save_output_at(r, list[1], mean_, "result1");
  ops::save_output_at(r, list[2], invstd_, "result2");
  return {list[0], list[1], list[2]};
}

// Group norm: Tensor ops over x seen as [N, group, -1], statistics recomputed from x, so the
// rule is its own double backward.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_autograd(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const int64_t& N, const int64_t& C, const int64_t& HxW, const int64_t& group,
    const double& eps) {
  autograd::Recorder r("NativeGroupNormBackward0", input, weight, bias);
  auto outs = r.forward([&] {
    return dispatch::call<native_group_norm_impl>(OpId::native_group_norm, input, weight, bias, N,
                                                  C, HxW, group, eps);
  });
  if (!r) return outs;
  const bool has_w = weight.has_value();
  const size_t x_ = r.save(input, "input");
  const size_t w_ = r.save_if(has_w, weight, "weight");
  r.values("C", C, "HxW", HxW, "N", N, "eps", eps, "group", group);
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
    const Tensor x = n.saved(x_);
    const Tensor xg = x.reshape({N, group, -1});
    const std::vector<int64_t> d2{2}, d02{0, 2};
    const Tensor mu = xg.mean(d2, true);
    const Tensor rstd = (xg.var(d2, 0, true) + eps).rsqrt();
    const Tensor xhat = ((xg - mu) * rstd).reshape({N, C, -1});
    const Tensor gy = g[0].reshape({N, C, -1});
    Tensor gi, gw, gb;
    if (n.needs(0)) {
      const Tensor gxhat = has_w ? gy * n.saved(w_).view({1, C, 1}) : gy;
      const Tensor gxg = gxhat.reshape({N, group, -1}), xhg = xhat.reshape({N, group, -1});
      gi = (rstd * (gxg - gxg.mean(d2, true) - xhg * (gxg * xhg).mean(d2, true))).reshape(x.sizes());
    }
    if (has_w && n.needs(1)) gw = (gy * xhat).sum(d02);
    if (n.needs(2)) gb = gy.sum(d02);
    return {gi, gw, gb};
  }, {true, false, false});  // the saved statistics are not differentiable outputs
  // PyTorch's node keeps the statistics (result1, result2); this rule recomputes them from x.
  r.save_output(list[1], "result1");
  r.save_output(list[2], "result2");
  return {list[0], list[1], list[2]};
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(native_batch_norm, &native_batch_norm_autograd);
EMBER_REGISTER_AUTOGRAD(native_batch_norm_backward, &native_batch_norm_backward_autograd);
EMBER_REGISTER_AUTOGRAD(native_group_norm, &native_group_norm_autograd);

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var, bool training, double momentum,
                  double eps, bool cudnn_enabled) {
  return dispatch::call<batch_norm_impl>(OpId::batch_norm, input, weight, bias, running_mean,
                                         running_var, training, momentum, eps, cudnn_enabled);
}
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps) {
  return dispatch::call<native_batch_norm_impl>(OpId::native_batch_norm, input, weight, bias,
                                                running_mean, running_var, training, momentum, eps);
}
namespace {
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_op(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train,
    double eps, IntArrayRef output_mask) {
  return dispatch::call<native_batch_norm_backward_impl>(
      OpId::native_batch_norm_backward, grad_out, input, weight, running_mean, running_var,
      save_mean, save_invstd, train, eps, output_mask);
}
}  // namespace
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train,
    double eps, std::array<bool, 3> output_mask) {
  const std::vector<int64_t> mask{output_mask[0], output_mask[1], output_mask[2]};
  return native_batch_norm_backward_op(grad_out, input, weight, running_mean, running_var,
                                       save_mean, save_invstd, train, eps, mask);
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  return dispatch::call<group_norm_impl>(OpId::group_norm, input, num_groups, weight, bias, eps,
                                         cudnn_enabled);
}
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N,
                                                     int64_t C, int64_t HxW, int64_t group,
                                                     double eps) {
  return dispatch::call<native_group_norm_impl>(OpId::native_group_norm, input, weight, bias, N, C,
                                                HxW, group, eps);
}

EMBER_REGISTER_OP(batch_norm, &batch_norm);
EMBER_REGISTER_OP(native_batch_norm, &native_batch_norm);
EMBER_REGISTER_OP(native_batch_norm_backward, &native_batch_norm_backward_op);
EMBER_REGISTER_OP(group_norm, &group_norm);
EMBER_REGISTER_OP(native_group_norm, &native_group_norm);

}  // namespace ember
