// sort (always stable: equal elements keep their order, whatever `stable` says) and topk.
#include "../backends/cpu/sort_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim,
                                     bool descending) {
  ops::check_not_quantized("aten::sort", {self});
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor values = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  Tensor indices = empty(self.sizes(), TensorOptions(kInt64).device(self.device()));
  if (!values.is_meta()) cpu::sort_kernel(values, indices, self, self.dim() == 0 ? 0 : d, descending);
  return {values, indices};
}

// `sorted` is accepted and ignored: the k elements always come out best first. Among equal
// elements the lower index comes first (PyTorch leaves that order unspecified).
std::tuple<Tensor, Tensor> topk_impl(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                     bool /*sorted*/) {
  ops::check_not_quantized("aten::topk", {self});
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(k >= 0 && k <= len, "selected index k out of range");
  DimVector shape = self.sizes().vec();
  // A 0-d input gives 0-d results holding its element, for k = 0 too (as PyTorch).
  if (self.dim() > 0) shape[static_cast<size_t>(d)] = k;
  Tensor values = empty(shape, TensorOptions(self.dtype()).device(self.device()));
  Tensor indices = empty(shape, TensorOptions(kInt64).device(self.device()));
  if (!values.is_meta()) {
    cpu::topk_kernel(values, indices, self, self.dim() == 0 ? 1 : k, self.dim() == 0 ? 0 : d, largest);
  }
  return {values, indices};
}

}  // namespace

// ---- autograd ----
// The gradient goes back to where each value came from (PyTorch's
// value_selecting_reduction_backward); the indices are not differentiable.
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// PyTorch names x.sort(dim) (aten::sort.default) SortBackward0 and x.sort(stable=...)
// (aten::sort.stable) SortBackward1. ember has only sort.stable, and Tensor::sort always passes
// a bool, so stable=True (which in PyTorch only sort.stable takes) names SortBackward1 and
// False / None the common SortBackward0; only an explicit stable=False differs from PyTorch.
std::tuple<Tensor, Tensor> sort_autograd(const Tensor& self, const std::optional<bool>& stable,
                                         const int64_t& dim, const bool& descending) {
  autograd::Recorder r(stable.value_or(false) ? "SortBackward1" : "SortBackward0", self);
  auto outs = r.forward(
      [&] { return dispatch::call<sort_impl>(OpId::sort_stable, self, stable, dim, descending); });
  if (!r) return outs;
  const size_t indices_ = 0;
  r.values("dim", dim, "self_sizes", self.sizes());
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{ops::value_selecting_backward(g[0], dim, n.saved(indices_), n.value(1).to_int_list(), true)};
  });
  ops::save_output_at(r, std::get<1>(outs), indices_, "indices");
  return outs;
}

std::tuple<Tensor, Tensor> topk_autograd(const Tensor& self, const int64_t& k, const int64_t& dim,
                                         const bool& largest, const bool& sorted) {
  autograd::Recorder r("TopkBackward0", self);
  auto outs = r.forward(
      [&] { return dispatch::call<topk_impl>(OpId::topk, self, k, dim, largest, sorted); });
  if (!r) return outs;
  const size_t indices_ = 0;
  r.values("dim", dim, "self_sizes", self.sizes());
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{ops::value_selecting_backward(g[0], dim, n.saved(indices_), n.value(1).to_int_list(), true)};
  });
  ops::save_output_at(r, std::get<1>(outs), indices_, "indices");
  return outs;
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(sort_stable, &sort_autograd);
EMBER_REGISTER_AUTOGRAD(topk, &topk_autograd);

std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                bool descending) {
  return dispatch::call<sort_impl>(OpId::sort_stable, self, stable, dim, descending);
}
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  return dispatch::call<topk_impl>(OpId::topk, self, k, dim, largest, sorted);
}

EMBER_REGISTER_OP(sort_stable, &sort);
EMBER_REGISTER_OP(topk, &topk);

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending, bool stable) const {
  return ember::sort(*this, stable, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

}  // namespace ember
