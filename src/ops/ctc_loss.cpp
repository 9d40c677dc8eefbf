// Connectionist temporal classification loss: the primitives _ctc_loss (forward: negative log
// likelihood and the log-space alphas) and _ctc_loss_backward (log-space betas and the gradient
// of eq. 16 of Graves et al. 2006), and the composites ctc_loss.IntList / ctc_loss.Tensor.
//
// Note [CTC as PyTorch's CPU kernel]: the recursions, their order of summation and their
// -inf handling are PyTorch 1.13's LossCTC.cpp, computed in the input's own precision, so the
// losses and gradients agree with torch's to the last bits. One difference by design: entries
// of log_alpha that torch leaves uninitialized (s > 2 * target_length, t >= input_length) are
// -inf here, so the second output is deterministic.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../autograd/record.h"
#include "ember/autograd/saved_variable.h"
#include "../backends/cpu/layout.h"
#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/nnutils.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using dispatch::OpId;

namespace {

constexpr const char* kFrom = " (while checking arguments for ctc_loss_cpu)";

// The legacy type name torch's argument checks print ("ember.FloatTensor").
std::string type_text(const Tensor& t) {
  std::string type = autograd::legacy_type_name(t);
  if (type.rfind("torch.", 0) == 0) type = "ember." + type.substr(6);
  return type;
}

// Batch offsets into the targets and the largest target length, with torch's checks.
struct TargetLayout {
  std::vector<int64_t> offsets;
  int64_t stride = 1;
  int64_t max_target_length = 0;
};

TargetLayout check_and_layout(const Tensor& log_probs, const Tensor& targets,
                              IntArrayRef input_lengths, IntArrayRef target_lengths,
                              int64_t blank) {
  EMBER_CHECK(targets.dtype() == kInt64 || targets.dtype() == kInt32,
              "Expected tensor for argument #2 'targets' to have scalar type Int; but got ",
              type_text(targets), " instead", kFrom);
  EMBER_CHECK(log_probs.dim() == 3, "Expected 3-dimensional tensor, but got ", log_probs.dim(),
              "-dimensional tensor for argument #1 'log_probs'", kFrom);
  EMBER_CHECK(targets.dim() >= 1 && targets.dim() <= 2, "Expected 1 to 2 dimensions, but got ",
              targets.dim(), "-dimensional tensor for argument #2 'targets'", kFrom);
  const int64_t batch = log_probs.size(1), labels = log_probs.size(2);
  EMBER_CHECK(0 <= blank && blank < labels, "blank must be in label range");
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == batch,
              "input_lengths must be of size batch_size");
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == batch,
              "target_lengths must be of size batch_size");
  TargetLayout l;
  l.offsets.resize(static_cast<size_t>(batch));
  if (targets.dim() == 1) {  // concatenated
    int64_t pos = 0;
    for (int64_t i = 0; i < batch; ++i) {
      l.offsets[static_cast<size_t>(i)] = pos;
      pos += target_lengths[i];
      l.max_target_length = std::max(l.max_target_length, target_lengths[i]);
    }
    l.stride = targets.stride(0);
    EMBER_CHECK(targets.size(0) == pos, "Expected tensor to have size ", pos,
                " at dimension 0, but got size ", targets.size(0), " for argument #2 'targets'",
                kFrom);
  } else {  // padded (batch, max_target_length)
    for (int64_t i = 0; i < batch; ++i) {
      l.offsets[static_cast<size_t>(i)] = i * targets.stride(0);
      l.max_target_length = std::max(l.max_target_length, target_lengths[i]);
    }
    l.stride = targets.stride(1);
    EMBER_CHECK(targets.size(0) == batch, "Expected tensor to have size ", batch,
                " at dimension 0, but got size ", targets.size(0), " for argument #2 'targets'",
                kFrom);
    EMBER_CHECK(targets.size(1) >= l.max_target_length, "Expected tensor to have size at least ",
                l.max_target_length, " at dimension 1, but got size ", targets.size(1),
                " for argument #2 'targets'", kFrom);
  }
  for (int64_t b = 0; b < batch; ++b) {
    EMBER_CHECK(input_lengths[b] <= log_probs.size(0),
                "Expected input_lengths to have value at most ", log_probs.size(0),
                ", but got value ", input_lengths[b], kFrom);
  }
  return l;
}

// The targets as int64 values addressed as torch's kernel addresses them: offsets[b] +
// s * stride, in elements of the original (possibly strided) view from its first element.
std::vector<int64_t> target_values(const Tensor& targets) {
  const Tensor base = targets.contiguous().to(kInt64);
  std::vector<int64_t> out;
  if (targets.numel() == 0) return out;
  int64_t span = 1;
  for (int64_t d = 0; d < targets.dim(); ++d) span += (targets.size(d) - 1) * targets.stride(d);
  out.assign(static_cast<size_t>(span), 0);
  const int64_t* vals = base.data_ptr<int64_t>();
  if (targets.dim() == 1) {
    for (int64_t i = 0; i < targets.size(0); ++i)
      out[static_cast<size_t>(i * targets.stride(0))] = vals[i];
  } else {
    for (int64_t i = 0; i < targets.size(0); ++i)
      for (int64_t j = 0; j < targets.size(1); ++j)
        out[static_cast<size_t>(i * targets.stride(0) + j * targets.stride(1))] =
            vals[i * targets.size(1) + j];
  }
  return out;
}

// l' of the paper: blanks at even s, the targets at odd s.
inline int64_t target_prime(const std::vector<int64_t>& tg, int64_t offset, int64_t stride,
                            int64_t s, int64_t blank) {
  return s % 2 == 0 ? blank : tg[static_cast<size_t>(offset + stride * (s / 2))];
}

template <class T>
void ctc_forward_kernel(const Tensor& log_probs, const std::vector<int64_t>& tg,
                        const TargetLayout& l, IntArrayRef input_lengths,
                        IntArrayRef target_lengths, int64_t blank, Tensor& nll, Tensor& log_alpha) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t T_ = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  const int64_t S = log_alpha.size(2);
  const T* lp = log_probs.data_ptr<T>();  // contiguous (T, N, C)
  T* la_all = log_alpha.data_ptr<T>();     // contiguous (N, T, S)
  T* nll_p = nll.data_ptr<T>();
  for (int64_t b = 0; b < N; ++b) {
    const int64_t in_len = input_lengths[b], tg_len = target_lengths[b], off = l.offsets[b];
    auto lpa = [&](int64_t t, int64_t c) { return lp[(t * N + b) * C + c]; };
    T* la = la_all + b * T_ * S;
    auto alpha = [&](int64_t t, int64_t s) -> T& { return la[t * S + s]; };
    if (in_len == 0) {
      nll_p[b] = tg_len == 0 ? T(0) : -neginf;
      continue;
    }
    alpha(0, 0) = lpa(0, blank);
    if (tg_len > 0) alpha(0, 1) = lpa(0, target_prime(tg, off, l.stride, 1, blank));
    for (int64_t t = 1; t < in_len; ++t) {
      for (int64_t s = 0; s < 2 * tg_len + 1; ++s) {
        const int64_t cur = target_prime(tg, off, l.stride, s, blank);
        const T la1 = alpha(t - 1, s);
        T lamax = la1, la2, la3;
        if (s > 0) {
          la2 = alpha(t - 1, s - 1);
          if (la2 > lamax) lamax = la2;
        } else {
          la2 = neginf;
        }
        if (s > 1 && target_prime(tg, off, l.stride, s - 2, blank) != cur) {
          la3 = alpha(t - 1, s - 2);
          if (la3 > lamax) lamax = la3;
        } else {
          la3 = neginf;
        }
        if (lamax == neginf) lamax = 0;
        alpha(t, s) = std::log(std::exp(la1 - lamax) + std::exp(la2 - lamax) + std::exp(la3 - lamax)) +
                      lamax + lpa(t, cur);
      }
    }
    if (tg_len == 0) {
      nll_p[b] = -alpha(in_len - 1, 0);
    } else {
      const T l1 = alpha(in_len - 1, tg_len * 2), l2 = alpha(in_len - 1, tg_len * 2 - 1);
      T m = std::max(l1, l2);
      m = m == neginf ? T(0) : m;
      nll_p[b] = -(std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m);
    }
  }
}

template <class T>
void ctc_backward_kernel(const Tensor& grad_out, const Tensor& log_probs,
                         const std::vector<int64_t>& tg, const TargetLayout& l,
                         IntArrayRef input_lengths, IntArrayRef target_lengths,
                         const Tensor& nll_t, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity, Tensor& grad) {
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  const int64_t T_ = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  const int64_t S = log_alpha.size(2);
  const T* lp = log_probs.data_ptr<T>();
  const T* la_all = log_alpha.data_ptr<T>();
  const T* nll_p = nll_t.data_ptr<T>();
  const T* gout = grad_out.data_ptr<T>();
  T* g = grad.data_ptr<T>();  // contiguous (T, N, C), filled with -inf
  std::vector<T> lb_all(static_cast<size_t>(T_ * S), neginf);
  for (int64_t b = 0; b < N; ++b) {
    auto ga = [&](int64_t t, int64_t c) -> T& { return g[(t * N + b) * C + c]; };
    const T nll = nll_p[b];
    if (zero_infinity && nll == std::numeric_limits<T>::infinity()) {
      for (int64_t t = 0; t < T_; ++t)
        for (int64_t c = 0; c < C; ++c) ga(t, c) = 0;
      continue;
    }
    const int64_t in_len = input_lengths[b], tg_len = target_lengths[b], off = l.offsets[b];
    auto lpa = [&](int64_t t, int64_t c) { return lp[(t * N + b) * C + c]; };
    const T* la = la_all + b * T_ * S;
    auto alpha = [&](int64_t t, int64_t s) { return la[t * S + s]; };
    std::fill(lb_all.begin(), lb_all.end(), neginf);
    auto beta = [&](int64_t t, int64_t s) -> T& { return lb_all[static_cast<size_t>(t * S + s)]; };
    if (in_len > 0) {
      beta(in_len - 1, 2 * tg_len) = lpa(in_len - 1, blank);
      ga(in_len - 1, blank) = alpha(in_len - 1, 2 * tg_len) + beta(in_len - 1, 2 * tg_len);
      if (tg_len > 0) {
        const int64_t cur = target_prime(tg, off, l.stride, 2 * tg_len - 1, blank);
        beta(in_len - 1, 2 * tg_len - 1) = lpa(in_len - 1, cur);
        ga(in_len - 1, cur) = alpha(in_len - 1, 2 * tg_len - 1) + beta(in_len - 1, 2 * tg_len - 1);
      }
    }
    for (int64_t t = in_len - 2; t >= 0; --t) {
      for (int64_t s = 2 * tg_len; s >= 0; --s) {
        const T lb1 = beta(t + 1, s);
        T lbmax = lb1, lb2, lb3;
        const int64_t cur = target_prime(tg, off, l.stride, s, blank);
        if (s < 2 * tg_len) {
          lb2 = beta(t + 1, s + 1);
          if (lb2 > lbmax) lbmax = lb2;
        } else {
          lb2 = neginf;
        }
        if (s < 2 * tg_len - 1 && target_prime(tg, off, l.stride, s + 2, blank) != cur) {
          lb3 = beta(t + 1, s + 2);
          if (lb3 > lbmax) lbmax = lb3;
        } else {
          lb3 = neginf;
        }
        if (lbmax == neginf) lbmax = 0;
        beta(t, s) = std::log(std::exp(lb1 - lbmax) + std::exp(lb2 - lbmax) + std::exp(lb3 - lbmax)) +
                     lbmax + lpa(t, cur);
        const T log_alpha_beta = alpha(t, s) + beta(t, s);
        T& lcab = ga(t, cur);
        if (lcab == neginf) {
          lcab = log_alpha_beta;
        } else {
          const T mx = std::max(lcab, log_alpha_beta);
          lcab = std::log(std::exp(lcab - mx) + std::exp(log_alpha_beta - mx)) + mx;
        }
      }
    }
    const T gr = gout[b];
    for (int64_t t = 0; t < in_len; ++t) {
      for (int64_t c = 0; c < C; ++c) {
        T& res = ga(t, c);
        const T lpv = lpa(t, c);
        res = (std::exp(lpv) - std::exp(res + nll - lpv)) * gr;
      }
    }
    for (int64_t t = in_len; t < T_; ++t)
      for (int64_t c = 0; c < C; ++c) ga(t, c) = 0;
  }
}

void check_float(const Tensor& log_probs) {
  EMBER_CHECK(log_probs.dtype() == kFloat32 || log_probs.dtype() == kFloat64,
              "\"ctc_loss_cpu\" not implemented for '", scalar_type_name(log_probs.dtype()), "'");
}

std::tuple<Tensor, Tensor> ctc_impl(const Tensor& log_probs, const Tensor& targets,
                                    IntArrayRef input_lengths, IntArrayRef target_lengths,
                                    int64_t blank, bool /*zero_infinity*/) {
  const TargetLayout l = check_and_layout(log_probs, targets, input_lengths, target_lengths, blank);
  check_float(log_probs);
  const TensorOptions opts = TensorOptions().dtype(log_probs.dtype()).device(log_probs.device());
  const int64_t N = log_probs.size(1);
  Tensor log_alpha = full({N, log_probs.size(0), 2 * l.max_target_length + 1},
                          -std::numeric_limits<double>::infinity(), opts);
  Tensor nll = empty({N}, opts);
  if (log_probs.is_meta()) return {nll, log_alpha};
  const Tensor lp = log_probs.contiguous();
  const std::vector<int64_t> tg = target_values(targets);
  if (lp.dtype() == kFloat32) {
    ctc_forward_kernel<float>(lp, tg, l, input_lengths, target_lengths, blank, nll, log_alpha);
  } else {
    ctc_forward_kernel<double>(lp, tg, l, input_lengths, target_lengths, blank, nll, log_alpha);
  }
  return {nll, log_alpha};
}

Tensor ctc_backward_impl(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                         IntArrayRef input_lengths, IntArrayRef target_lengths,
                         const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity) {
  const TargetLayout l = check_and_layout(log_probs, targets, input_lengths, target_lengths, blank);
  check_float(log_probs);
  Tensor out = full_like(log_probs.contiguous(), -std::numeric_limits<double>::infinity());
  if (log_probs.is_meta()) return out;
  const Tensor lp = log_probs.contiguous();
  const Tensor g = grad.to(log_probs.dtype()).expand({log_probs.size(1)}).contiguous();
  const Tensor nll = neg_log_likelihood.to(log_probs.dtype()).contiguous();
  const Tensor la = log_alpha.to(log_probs.dtype()).contiguous();
  const std::vector<int64_t> tg = target_values(targets);
  if (lp.dtype() == kFloat32) {
    ctc_backward_kernel<float>(g, lp, tg, l, input_lengths, target_lengths, nll, la, blank,
                               zero_infinity, out);
  } else {
    ctc_backward_kernel<double>(g, lp, tg, l, input_lengths, target_lengths, nll, la, blank,
                                zero_infinity, out);
  }
  return out;
}

Tensor ctc_loss_intlist_impl(const Tensor& log_probs_in, const Tensor& targets,
                             IntArrayRef input_lengths, IntArrayRef target_lengths, int64_t blank,
                             int64_t reduction, bool zero_infinity) {
  const bool batched = log_probs_in.dim() == 3;
  const Tensor log_probs = batched ? log_probs_in : log_probs_in.unsqueeze(1);
  Tensor res = std::get<0>(_ctc_loss(log_probs, targets.to(kInt64), input_lengths, target_lengths,
                                     blank, zero_infinity));
  if (zero_infinity) {
    res = where(res == std::numeric_limits<double>::infinity(), zeros({}, TensorOptions().dtype(res.dtype()).device(res.device())), res);
  }
  if (reduction == 1) {
    const std::vector<int64_t> tl(target_lengths.begin(), target_lengths.end());
    const Tensor tlt = clamp_min(tensor(tl, TensorOptions().dtype(res.dtype()).device(res.device())), 1);
    return (res / tlt).mean();
  }
  if (reduction == 2) return res.sum();
  return batched ? res : res.squeeze(0);
}

Tensor ctc_loss_tensor_impl(const Tensor& log_probs, const Tensor& targets,
                            const Tensor& input_lengths, const Tensor& target_lengths,
                            int64_t blank, int64_t reduction, bool zero_infinity) {
  EMBER_CHECK(is_integral(input_lengths.dtype(), false), "input_lengths must be integral");
  EMBER_CHECK(is_integral(target_lengths.dtype(), false), "target_lengths must be integral");
  const Tensor il = input_lengths.to(kInt64).contiguous();
  const Tensor tl = target_lengths.to(kInt64).contiguous();
  const std::vector<int64_t> ilv(il.data_ptr<int64_t>(), il.data_ptr<int64_t>() + il.numel());
  const std::vector<int64_t> tlv(tl.data_ptr<int64_t>(), tl.data_ptr<int64_t>() + tl.numel());
  return ctc_loss(log_probs, targets, ilv, tlv, blank, reduction, zero_infinity);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// CtcLossBackward0: d log_probs = _ctc_loss_backward(grad, ..., result0, result1, ...);
// targets get none (integers). Not twice differentiable, as PyTorch's.
std::tuple<Tensor, Tensor> ctc_autograd(const Tensor& log_probs, const Tensor& targets,
                                        const IntArrayRef& input_lengths,
                                        const IntArrayRef& target_lengths, const int64_t& blank,
                                        const bool& zero_infinity) {
  autograd::Recorder r("CtcLossBackward0", log_probs);
  auto outs = r.forward([&] {
    return dispatch::call<ctc_impl>(OpId::_ctc_loss, log_probs, targets, input_lengths,
                                    target_lengths, blank, zero_infinity);
  });
  if (!r) return outs;
  const size_t lp_ = r.save(log_probs, "log_probs"), tg_ = r.save(targets, "targets");
  r.values("blank", blank, "input_lengths", input_lengths, "target_lengths", target_lengths,
           "zero_infinity", zero_infinity);
  const size_t nll_ = tg_ + 1, la_ = tg_ + 2;
  auto list = r.finish(
      std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs)},
      [=, il = input_lengths.vec(), tl = target_lengths.vec()](OpNode& n,
                                                              const tensor_list& g) -> tensor_list {
        if (!g[0].defined()) return {Tensor()};
        return {_ctc_loss_backward(g[0], n.saved(lp_), n.saved(tg_), il, tl, n.saved(nll_),
                                   n.saved(la_), blank, zero_infinity)};
      },
      {true, false});
  r.save_output(list[0], "result0");
  r.save_output(list[1], "result1");
  return {list[0], list[1]};
}

}  // namespace

std::tuple<Tensor, Tensor> _ctc_loss(const Tensor& log_probs, const Tensor& targets,
                                     IntArrayRef input_lengths, IntArrayRef target_lengths,
                                     int64_t blank, bool zero_infinity) {
  return dispatch::call<ctc_impl>(OpId::_ctc_loss, log_probs, targets, input_lengths,
                                  target_lengths, blank, zero_infinity);
}
Tensor _ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                          IntArrayRef input_lengths, IntArrayRef target_lengths,
                          const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                          bool zero_infinity) {
  return dispatch::call<ctc_backward_impl>(OpId::_ctc_loss_backward, grad, log_probs, targets,
                                           input_lengths, target_lengths, neg_log_likelihood,
                                           log_alpha, blank, zero_infinity);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  return dispatch::call<ctc_loss_intlist_impl>(OpId::ctc_loss_IntList, log_probs, targets,
                                               input_lengths, target_lengths, blank, reduction,
                                               zero_infinity);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction,
                bool zero_infinity) {
  return dispatch::call<ctc_loss_tensor_impl>(OpId::ctc_loss_Tensor, log_probs, targets,
                                              input_lengths, target_lengths, blank, reduction,
                                              zero_infinity);
}

namespace {
Tensor ctc_loss_tensor_entry(const Tensor& log_probs, const Tensor& targets,
                             const Tensor& input_lengths, const Tensor& target_lengths,
                             int64_t blank, int64_t reduction, bool zero_infinity) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}
Tensor ctc_loss_intlist_entry(const Tensor& log_probs, const Tensor& targets,
                              IntArrayRef input_lengths, IntArrayRef target_lengths, int64_t blank,
                              int64_t reduction, bool zero_infinity) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}
}  // namespace

EMBER_REGISTER_OP(_ctc_loss, &_ctc_loss);
EMBER_REGISTER_OP(_ctc_loss_backward, &_ctc_loss_backward);
EMBER_REGISTER_OP(ctc_loss_IntList, &ctc_loss_intlist_entry);
EMBER_REGISTER_OP(ctc_loss_Tensor, &ctc_loss_tensor_entry);
EMBER_REGISTER_AUTOGRAD(_ctc_loss, &ctc_autograd);

}  // namespace ember
