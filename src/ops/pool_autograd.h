// Note [Pool autograd kernels]: the 2-d pools (pooling.cpp) and the 3-d ones (nn_pool3d.cpp)
// record the same graphs over different ops: max pooling with indices and its backward, average
// pooling and its backward, adaptive average pooling and its backward. The kernels are written
// once here; each op's registered kernel is a one-line call naming its node, op id, impl and the
// ops its formula uses.
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "reduce_common.h"

namespace ember::ops::pool {

/// The gradient of a max-pool backward w.r.t. grad_output: grad picked at the flat indices of
/// the last `N` dims.
template <int N>
Tensor gather_by_indices(const Tensor& grad, const Tensor& indices) {
  const int64_t d = grad.dim();
  return grad.flatten(d - N, d - 1).gather(d - N, indices.flatten(d - N, d - 1)).view(indices.sizes());
}

/// max_pool{2,3}d_with_indices: d self = the backward op at the saved indices.
template <auto impl, class Backward>
std::tuple<Tensor, Tensor> max_with_indices(const char* node, dispatch::OpId id, Backward backward, const Tensor& self,
                                            IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                            IntArrayRef d, bool ceil) {
  autograd::Recorder r(node, self);
  auto outs = r.forward([&] { return dispatch::call<impl>(id, self, k, s, p, d, ceil); });
  if (!r) return outs;
  const size_t self_ = r.save(self, "self"), idx_ = self_ + 1;
  r.values("ceil_mode", ceil, "dilation", d, "kernel_size", k, "padding", p, "stride", s);
  outs = r.finish(outs, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const auto list = [&](size_t i) -> const std::vector<int64_t>& { return n.value(i).to_int_list(); };
    return autograd::tensor_list{backward(g[0], n.saved(self_), list(2), list(4), list(3), list(1),
                                          n.value(0).to_bool(), n.saved(idx_))};
  });
  save_output_at(r, std::get<1>(outs), idx_, "result1");
  return outs;
}

/// Their backward ops: linear in grad_output, whose gradient is the incoming grad gathered at
/// the indices (none for self).
template <auto impl, int N>
Tensor max_with_indices_backward(const char* node, dispatch::OpId id, const Tensor& grad_output,
                                 const Tensor& self, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                 IntArrayRef d, bool ceil, const Tensor& indices) {
  autograd::Recorder r(node, grad_output, self);
  Tensor out = r.forward(
      [&] { return dispatch::call<impl>(id, grad_output, self, k, s, p, d, ceil, indices); });
  if (!r) return out;
  const size_t idx_ = r.save(indices, "indices");
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    return autograd::tensor_list{n.needs(0) ? gather_by_indices<N>(g[0], n.saved(idx_)) : Tensor(),
                                 Tensor()};
  });
}

/// avg_pool{2,3}d: d self = the backward op.
template <auto impl, class Backward>
Tensor avg(const char* node, dispatch::OpId id, Backward backward, const Tensor& self, IntArrayRef k, IntArrayRef s,
           IntArrayRef p, bool ceil, bool cip, std::optional<int64_t> div) {
  autograd::Recorder r(node, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, k, s, p, ceil, cip, div); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("ceil_mode", ceil, "count_include_pad", cip, "divisor_override", div, "kernel_size", k,
           "padding", p, "stride", s);
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const auto list = [&](size_t i) -> const std::vector<int64_t>& { return n.value(i).to_int_list(); };
    return autograd::tensor_list{backward(g[0], n.saved(self_), list(3), list(5), list(4), ceil, cip, div)};
  });
}

/// Their backward ops: linear in grad_output, whose gradient is the forward pool of the incoming
/// grad (none for self).
template <auto impl, class Forward>
Tensor avg_backward(const char* node, dispatch::OpId id, Forward forward, const Tensor& grad_output,
                    const Tensor& self, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                    bool cip, std::optional<int64_t> div) {
  autograd::Recorder r(node, grad_output, self);
  Tensor out = r.forward(
      [&] { return dispatch::call<impl>(id, grad_output, self, k, s, p, ceil, cip, div); });
  if (!r) return out;
  r.values("ceil_mode", ceil, "count_include_pad", cip, "divisor_override", div, "kernel_size", k,
           "padding", p, "stride", s);
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const auto list = [&](size_t i) -> const std::vector<int64_t>& { return n.value(i).to_int_list(); };
    return autograd::tensor_list{n.needs(0) ? forward(g[0], list(3), list(5), list(4), ceil, cip, div) : Tensor(),
                                 Tensor()};
  });
}

/// _adaptive_avg_pool{2,3}d: d self = the backward op.
template <auto impl, class Backward>
Tensor adaptive_avg(const char* node, dispatch::OpId id, Backward backward, const Tensor& self,
                    IntArrayRef output_size) {
  autograd::Recorder r(node, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, output_size); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    return autograd::tensor_list{backward(g[0], n.saved(self_))};
  });
}

/// Their backward ops: the gradient of grad_output is the forward pool of the incoming grad to
/// grad_output's spatial size (the last `N` dims).
template <auto impl, int N, class Forward>
Tensor adaptive_avg_backward(const char* node, dispatch::OpId id, Forward forward,
                             const Tensor& grad_output,
                             const Tensor& self) {
  autograd::Recorder r(node, grad_output, self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, grad_output, self); });
  if (!r) return out;
  std::vector<int64_t> os;
  for (int64_t i = N; i > 0; --i) os.push_back(grad_output.size(-i));
  r.save(grad_output, "grad_output");  // as PyTorch (the rule reads only its spatial size)
  return r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    return autograd::tensor_list{n.needs(0) ? forward(g[0], os) : Tensor(), Tensor()};
  });
}

}  // namespace ember::ops::pool
