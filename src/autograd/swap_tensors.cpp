#include "ember/swap_tensors.h"

#include "autograd_meta.h"
#include "functions.h"

namespace ember::utils {

namespace {
// The owners PyTorch's use-count check counts, in C++ terms: the tensor itself, its AccumulateGrad
// node, and the graph's saved copies.
struct Owners {
  long saved = 0;
  std::shared_ptr<autograd::Node> accumulator;
  long count() const { return 1 + saved + (accumulator ? 1 : 0); }
};

Owners owners_of(const Tensor& t) {
  Owners o;
  if (const auto* m = autograd::get_meta(t)) {
    if (m->saved_token_) o.saved = m->saved_token_.use_count() - 1;
    o.accumulator = m->grad_accumulator_.lock();
  }
  return o;
}

void check_swappable(const Tensor& t, const char* label) {
  const Owners o = owners_of(t);
  EMBER_CHECK(o.saved == 0, "Expected use_count of ", label,
              " to be 1 or 2 with an AccumulateGrad node but got ", o.count(),
              " make sure you are not holding references to the tensor in other places.");
  if (o.accumulator) static_cast<autograd::AccumulateGrad*>(o.accumulator.get())->poison();
}
}  // namespace

void (*python_swap_hook)(const Tensor& t1, const Tensor& t2) = nullptr;

void swap_tensors(const Tensor& t1, const Tensor& t2) {
  EMBER_CHECK_TYPE(t1.defined() && t2.defined(), "swap_tensors: both tensors must be defined");
  if (t1.is_same(t2)) return;
  check_swappable(t1, "t1");
  check_swappable(t2, "t2");
  if (python_swap_hook) python_swap_hook(t1, t2);
  t1.impl()->swap_contents(*t2.impl());
  // Graphs recorded from now on get fresh AccumulateGrad nodes (the poisoned ones serve only the
  // graphs recorded before the swap).
  for (const Tensor* t : {&t1, &t2}) {
    if (auto* m = autograd::get_meta(*t)) m->grad_accumulator_.reset();
  }
}

}  // namespace ember::utils
