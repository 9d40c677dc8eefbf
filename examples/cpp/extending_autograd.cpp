// PyTorch's "Extending torch.autograd", in ember's C++: custom Functions, checked with gradcheck.
// Run by `make demo`.
#include <cstdio>

#include "autograd_functions.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"

using ember::Tensor;
using ember::autograd::tensor_list;

int main() {
  ember::manual_seed(0);
  Tensor x = ember::randn({4, 3}, ember::kFloat64).requires_grad_();
  Tensor w = ember::randn({5, 3}, ember::kFloat64).requires_grad_();
  Tensor b = ember::randn({5}, ember::kFloat64).requires_grad_();

  Tensor y = examples::LinearFunction::apply(x, w, std::optional<Tensor>(b));
  std::printf("LinearFunction output grad_fn: %s\n", y.grad_fn()->name().c_str());
  const bool ok = ember::autograd::gradcheck(
      [](const tensor_list& in) {
        return tensor_list{examples::LinearFunction::apply(in[0], in[1], std::optional<Tensor>(in[2]))};
      },
      {x, w, b});
  std::printf("gradcheck(LinearFunction) = %s\n", ok ? "true" : "false");

  Tensor c = ember::tensor({1.0, 2.0, 3.0}, ember::kFloat64).requires_grad_();
  tensor_list cube = examples::MyCube::apply(c);
  auto g = ember::autograd::grad({cube[0].sum()}, {c}, {}, std::nullopt, /*create_graph=*/true);
  auto gg = ember::autograd::grad({g[0].sum()}, {c});
  std::printf("MyCube: d/dx x^3 at [1, 2, 3] = %s, d2/dx2 = %s (6x)\n", g[0].detach().to_string().c_str(),
              gg[0].to_string().c_str());

  Tensor s = ember::tensor({3.0, 1.0, 2.0}, ember::kFloat64).requires_grad_();
  tensor_list sorted = examples::SortFunction::apply(s);
  std::printf("SortFunction: values %s, indices require grad: %s\n",
              sorted[0].detach().to_string().c_str(), sorted[1].requires_grad() ? "yes" : "no");
  return ok ? 0 : 1;
}
