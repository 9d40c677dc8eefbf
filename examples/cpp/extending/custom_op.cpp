// Extension point 7: a custom operator registered at run time, as libtorch's TORCH_LIBRARY.
//
// The op `extending::muladd(Tensor a, Tensor b, float c=1) -> Tensor` (a * b + c) gets a CPU
// kernel, a Meta kernel (shapes only) and an Autograd kernel (a custom Function whose backward
// gives a*grad to b and b*grad to a). It is then called through the dispatcher, typed and boxed,
// on plain, meta and requires-grad tensors. Build against an installed ember:
//   cmake -S examples/cpp/extending -B build-ex -DCMAKE_PREFIX_PATH=<prefix> && cmake --build build-ex
#include <ember/ember.h>
#include <ember/library.h>

#include <cstdio>

using ember::Tensor;
using ember::autograd::AutogradContext;
using ember::autograd::tensor_list;

namespace {

Tensor muladd_cpu(const Tensor& a, const Tensor& b, double c) { return a * b + c; }

// Meta tensors carry no data: the kernel only says what the result looks like.
Tensor muladd_meta(const Tensor& a, const Tensor&, double) { return ember::empty_like(a); }

const auto& muladd_op() {
  static auto op = ember::Dispatcher::singleton()
                       .findSchemaOrThrow("extending::muladd", "")
                       .typed<Tensor(const Tensor&, const Tensor&, double)>();
  return op;
}

struct MulAdd : ember::autograd::Function<MulAdd> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b, double c) {
    ctx->save_for_backward({a, b});
    ember::AutoDispatchBelowAutograd below;  // the op's backend kernel, not this one again
    return muladd_op().call(a, b, c);
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    return {grads[0] * saved[1], grads[0] * saved[0], Tensor()};
  }
};
Tensor muladd_autograd(const Tensor& a, const Tensor& b, double c) { return MulAdd::apply(a, b, c); }

}  // namespace

EMBER_LIBRARY(extending, m) {
  m.def("muladd(Tensor a, Tensor b, float c=1) -> Tensor");
  // A second op whose schema comes from the C++ signature; the function becomes its
  // CompositeImplicitAutograd kernel (it decomposes into ops autograd already knows).
  m.def("square", [](const Tensor& x) { return x * x; });
}
EMBER_LIBRARY_IMPL(extending, CPU, m) { m.impl("muladd", &muladd_cpu); }
EMBER_LIBRARY_IMPL(extending, Meta, m) { m.impl("muladd", &muladd_meta); }
EMBER_LIBRARY_IMPL(extending, Autograd, m) { m.impl("muladd", &muladd_autograd); }

int main() {
  Tensor a = ember::tensor({1.0, 2.0, 3.0});
  Tensor b = ember::tensor({4.0, 5.0, 6.0});

  Tensor r = muladd_op().call(a, b, 0.5);  // the typed call
  std::printf("muladd: %s\n", r.to_string().c_str());

  // The boxed call fills in the default c=1.
  ember::Stack out = ember::find_op("extending::muladd").call({ember::Value(a), ember::Value(b)});
  std::printf("boxed (c=1): %s\n", out[0].to_tensor().to_string().c_str());
  std::printf("schema of square: %s\n", ember::find_op("extending::square").schema().c_str());

  Tensor m = ember::empty({2, 5}, ember::TensorOptions().device(ember::kMeta));
  Tensor mr = muladd_op().call(m, m, 1.0);
  std::printf("meta result: sizes [%lld, %lld], is_meta %d\n", static_cast<long long>(mr.size(0)),
              static_cast<long long>(mr.size(1)), static_cast<int>(mr.is_meta()));

  Tensor x = a.clone().requires_grad_();
  Tensor y = b.clone().requires_grad_();
  Tensor z = muladd_op().call(x, y, 2.0);
  std::printf("grad_fn: %s\n", z.grad_fn()->name().c_str());
  z.sum().backward();
  std::printf("x.grad: %s\ny.grad: %s\n", x.grad().to_string().c_str(), y.grad().to_string().c_str());
  const bool ok = x.grad().equal(b) && y.grad().equal(a) && r.equal(a * b + 0.5);
  std::printf("custom_op: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
