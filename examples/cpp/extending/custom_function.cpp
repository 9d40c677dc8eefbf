// Extension point 1: a custom autograd Function, checked with gradcheck.
//
// PyTorch's "Extending torch.autograd" in C++: a Function<T> supplies forward and backward, and
// ember::autograd::gradcheck compares its backward with finite differences (libtorch has no C++
// gradcheck). Build against an installed ember:
//   cmake -S examples/cpp/extending -B build-ex -DCMAKE_PREFIX_PATH=<prefix> && cmake --build build-ex
#include <ember/ember.h>

#include <cstdio>

using ember::Tensor;
using ember::autograd::AutogradContext;
using ember::autograd::tensor_list;

// P3(x) = (5x^3 - 3x) / 2, the third Legendre polynomial (PyTorch's tutorial uses it too).
struct LegendreP3 : ember::autograd::Function<LegendreP3> {
  // forward gets a context to stash what backward needs.
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return 0.5 * (5 * x.pow(3) - 3 * x);
  }
  // One gradient per forward argument: dL/dx = dL/dy * P3'(x) = dL/dy * 1.5 (5x^2 - 1).
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * 1.5 * (5 * x.pow(2) - 1)};
  }
};

// The same function with a deliberately wrong backward (the factor 1.5 forgotten).
struct BrokenP3 : ember::autograd::Function<BrokenP3> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return 0.5 * (5 * x.pow(3) - 3 * x);
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * (5 * x.pow(2) - 1)};
  }
};

int main() {
  ember::manual_seed(0);
  // gradcheck perturbs inputs by 1e-6: use float64, as in PyTorch.
  Tensor x = ember::randn({5}, ember::kFloat64).requires_grad_();

  Tensor y = LegendreP3::apply(x);
  std::printf("y.grad_fn: %s\n", y.grad_fn()->name().c_str());  // "LegendreP3Backward"

  // gradcheck takes a function of a list of tensors returning a list of tensors.
  auto p3 = [](const tensor_list& in) { return tensor_list{LegendreP3::apply(in[0])}; };
  const bool ok = ember::autograd::gradcheck(p3, {x});
  std::printf("gradcheck(LegendreP3) = %s\n", ok ? "true" : "false");

  // A wrong backward is caught: raise_exception=false returns false instead of throwing
  // GradcheckError (whose message shows both Jacobians).
  auto broken = [](const tensor_list& in) { return tensor_list{BrokenP3::apply(in[0])}; };
  const bool caught = !ember::autograd::gradcheck(broken, {x}, {.raise_exception = false});
  std::printf("gradcheck(BrokenP3) = %s\n", caught ? "false (caught)" : "true (MISSED)");

  // The Function trains like any op: fit a * P3(b * t) to sin(t) for a few steps.
  Tensor t = ember::linspace(-1, 1, 64);
  Tensor target = t.sin();
  Tensor a = ember::tensor({0.5}).requires_grad_(), b = ember::tensor({0.5}).requires_grad_();
  ember::optim::SGD opt({a, b}, {.lr = 0.5});
  double first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    opt.zero_grad();
    Tensor loss = (a * LegendreP3::apply(b * t) - target).pow(2).mean();
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  std::printf("fit loss: %.4f -> %.4f\n", first, last);
  const bool ok_all = ok && caught && last < first;
  std::printf("custom_function: %s\n", ok_all ? "OK" : "FAILED");
  return ok_all ? 0 : 1;
}
