// A tour of ember's core, printed as PyTorch would print it (make demo runs this).
#include <ember/ember.h>

#include <iostream>

using namespace ember;
using namespace ember::indexing;

namespace {
void section(const char* title) { std::cout << "\n== " << title << " ==\n"; }
template <class T>
void show(const char* code, const T& value) {
  std::cout << ">>> " << code << "\n" << value << "\n";
}
}  // namespace

int main() {
  manual_seed(0);

  section("tensors and printing");
  Tensor a = arange(12).view({3, 4});
  show("a = arange(12).view({3, 4})", a);
  show("a.to(kFloat32) / 3", a.to(kFloat32) / 3);
  show("tensor({{1.5, 2.0}, {1e-5, 3e6}})", tensor({{1.5, 2.0}, {1e-5, 3e6}}));
  show("ones({2}, kBFloat16)", ones({2}, kBFloat16));
  show("arange(2000) (summarised)", arange(2000));

  section("views share storage");
  Tensor t = a.t();
  show("a.t()", t);
  std::cout << "a.t().is_contiguous() = " << t.is_contiguous() << ", same storage: "
            << (t.impl()->storage().get() == a.impl()->storage().get()) << "\n";
  Tensor row = a.index({1});
  row.fill_(-1);
  show("a after a.index({1}).fill_(-1)", a);
  show("a.index({Slice(), Slice(None, None, 2)})", a.index({Slice(), Slice(std::nullopt, std::nullopt, 2)}));
  show("a.index({a > 5})", a.index({a > 5}));

  section("broadcasting and type promotion");
  Tensor i = arange(3, TensorOptions(kInt32));
  show("arange(3, kInt32) + 1        (weak int scalar keeps int32)", i + 1);
  show("arange(3, kInt32) * 0.5      (float scalar -> default float)", i * 0.5);
  show("ones({2, 1}) + arange(3)     (broadcast)", ones({2, 1}) + arange(3));
  show("ones({2}, kFloat16) + ones({2}, kBFloat16)", ones({2}, kFloat16) + ones({2}, kBFloat16));

  section("reductions, softmax, matmul");
  Tensor x = randn({2, 3});
  show("x = randn({2, 3})", x);
  show("x.sum(1)", x.sum({1}));
  show("x.softmax(-1)", x.softmax(-1));
  auto [values, indices] = x.max(1);
  show("x.max(1) values", values);
  show("x.max(1) indices", indices);
  show("matmul(x, x.t())", matmul(x, x.t()));

  section("meta tensors: shapes without data");
  {
    DeviceGuard meta(kMeta);
    Tensor w = empty({1024, 4096});
    Tensor y = linear(ones({8, 4096}), w);
    show("linear(ones({8, 4096}), w) on meta", y);
  }

  section("errors say what was expected and what came");
  try {
    ones({2, 3}) + ones({4});
  } catch (const Error& e) {
    std::cout << "ember::Error: " << e.what() << "\n";
  }
  return 0;
}
