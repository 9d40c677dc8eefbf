// Operators registered at run time (include/ember/library.h): EMBER_LIBRARY blocks, typed and
// boxed calls, the kernel chosen per key, the layers a run-time op passes, and the errors.
#include <gtest/gtest.h>

#include "ember/autograd/function.h"
#include "ember/ember.h"
#include "ember/library.h"
#include "ember/warning.h"

namespace {

using ember::Dispatcher;
using ember::Library;
using ember::LibraryKey;
using ember::Stack;
using ember::Tensor;
using ember::Value;

Tensor scale_cpu(const Tensor& x, int64_t k) { return x * static_cast<double>(k); }
Tensor scale_meta(const Tensor& x, int64_t) { return ember::empty_like(x); }
Tensor twice(const Tensor& x) { return x + x; }
std::tuple<Tensor, Tensor> split2(const Tensor& x, double a) { return {x * a, x - a}; }

// d(k x)/dx = k: the Autograd kernel records a custom Function around the op.
struct ScaleFn : ember::autograd::Function<ScaleFn> {
  static Tensor forward(ember::autograd::AutogradContext* ctx, const Tensor& x, int64_t k) {
    ctx->saved_data["k"] = k;
    static auto op = Dispatcher::singleton()
                         .findSchemaOrThrow("ltest::scale", "")
                         .typed<Tensor(const Tensor&, int64_t)>();
    ember::AutoDispatchBelowAutograd below;
    return op.call(x, k);
  }
  static ember::autograd::tensor_list backward(ember::autograd::AutogradContext* ctx,
                                               ember::autograd::tensor_list g) {
    return {g[0] * static_cast<double>(ctx->saved_data["k"].to_int()), Tensor()};
  }
};
Tensor scale_autograd(const Tensor& x, int64_t k) { return ScaleFn::apply(x, k); }

}  // namespace

EMBER_LIBRARY(ltest, m) {
  m.def("scale(Tensor self, int k=2) -> Tensor");
  m.def("twice", &twice);                                    // schema inferred
  m.def("split2(Tensor x, float a) -> (Tensor, Tensor)", &split2);
  m.def("noback(Tensor x) -> Tensor");
  m.def("lam", [](const Tensor& x, int64_t n) { return x + static_cast<double>(n); });
}
EMBER_LIBRARY_IMPL(ltest, CPU, m) {
  m.impl("scale", &scale_cpu);
  m.impl("noback", [](const Tensor& x) { return x * 3.0; });
}
EMBER_LIBRARY_IMPL(ltest, Meta, m) { m.impl("scale", &scale_meta); }
EMBER_LIBRARY_IMPL(ltest, Autograd, m) { m.impl("scale", &scale_autograd); }
EMBER_LIBRARY_FRAGMENT(ltest, m) { m.def("extra(Tensor x) -> Tensor", &twice); }

TEST(Library, TypedAndBoxedCalls) {
  Tensor x = ember::arange(3, ember::TensorOptions().dtype(ember::kFloat32));
  auto op = Dispatcher::singleton().findSchemaOrThrow("ltest::scale", "").typed<Tensor(const Tensor&, int64_t)>();
  EXPECT_TRUE(op.call(x, 3).equal(x * 3.0));
  // Boxed: the default k=2 is filled in.
  Stack out = ember::find_op("ltest::scale").call({Value(x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].to_tensor().equal(x * 2.0));
  Stack stack{Value(x), Value(int64_t{4})};
  Dispatcher::singleton().findSchemaOrThrow("ltest::scale", "").callBoxed(&stack);
  EXPECT_TRUE(stack[0].to_tensor().equal(x * 4.0));
  // Several results, a lambda kernel, a fragment.
  auto s = Dispatcher::singleton().findSchemaOrThrow("ltest::split2", "")
               .typed<std::tuple<Tensor, Tensor>(const Tensor&, double)>();
  auto [a, b] = s.call(x, 2.0);
  EXPECT_TRUE(a.equal(x * 2.0));
  EXPECT_TRUE(b.equal(x - 2.0));
  EXPECT_TRUE(ember::find_op("ltest::lam").call({Value(x), Value(int64_t{5})})[0].to_tensor().equal(x + 5.0));
  EXPECT_TRUE(ember::find_op("ltest::extra").call({Value(x)})[0].to_tensor().equal(x + x));
}

TEST(Library, InferredSchema) {
  EXPECT_EQ(ember::find_op("ltest::twice").schema(), "ltest::twice(Tensor _0) -> Tensor _0");
  EXPECT_EQ(ember::find_op("ltest::lam").schema(), "ltest::lam(Tensor _0, int _1) -> Tensor _0");
  EXPECT_GE(ember::find_op("ltest::scale").id(), 0);
  EXPECT_TRUE(ember::op_overloads("ltest::scale") == std::vector<std::string>{"default"});
}

TEST(Library, WrongSignatureAndUnknownOp) {
  auto h = Dispatcher::singleton().findSchemaOrThrow("ltest::scale", "");
  try {
    h.typed<Tensor(const Tensor&, double)>();
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Tried to access or call an operator with a wrong signature"),
              std::string::npos);
  }
  EXPECT_FALSE(Dispatcher::singleton().findSchema("ltest::nope", "").has_value());
  try {
    Dispatcher::singleton().findSchemaOrThrow("ltest::scale", "bad");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_STREQ(e.what(), "Could not find schema for ltest::scale.bad");
  }
}

TEST(Library, MetaKernelAndMissingBackend) {
  Tensor m = ember::empty({2, 3}, ember::TensorOptions().device(ember::kMeta));
  Stack out = ember::find_op("ltest::scale").call({Value(m)});
  EXPECT_TRUE(out[0].to_tensor().is_meta());
  EXPECT_EQ(out[0].to_tensor().sizes().vec(), (std::vector<int64_t>{2, 3}));
  try {
    ember::find_op("ltest::noback").call({Value(m)});
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_EQ(e.kind(), ember::ErrorKind::NotImplemented);
    EXPECT_TRUE(std::string(e.what()).starts_with(
        "Could not run 'ltest::noback' with arguments from the 'Meta' backend."));
  }
}

TEST(Library, SecondDefBlockAndDuplicateDef) {
  try {
    Library again(Library::DEF, "ltest", std::nullopt, "again.cpp", 7);
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.starts_with("Only a single TORCH_LIBRARY can be used to register the namespace "
                                "ltest; please put all of your definitions in a single "
                                "TORCH_LIBRARY block.  If you were"));
    EXPECT_NE(msg.find("test_library.cpp:"), std::string::npos);
    EXPECT_TRUE(msg.ends_with("; latest registration was registered at again.cpp:7"));
  }
  Library frag(Library::FRAGMENT, "ltest", std::nullopt, "frag.cpp", 3);
  try {
    frag.def("scale(Tensor self, int k=2) -> Tensor");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.starts_with("Tried to register an operator (ltest::scale(Tensor self, int k=2) "
                                "-> Tensor) with the same name and overload name multiple times."));
    EXPECT_NE(msg.find("Duplicate registration: registered at frag.cpp:3. Original registration: "
                       "registered at "),
              std::string::npos);
  }
  EXPECT_THROW(frag.def("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
               ember::Error);
}

TEST(Library, DestroyedLibraryRemovesItsOps) {
  {
    Library lib(Library::DEF, "ltemp", std::nullopt, "t.cpp", 1);
    lib.def("f(Tensor x) -> Tensor", &twice);
    EXPECT_TRUE(Dispatcher::singleton().findSchema("ltemp::f", "").has_value());
    {
      Library impl(Library::IMPL, "ltemp", LibraryKey::CPU, "t.cpp", 2);
      impl.impl("f", [](const Tensor& x) { return x * 10.0; });
      Tensor one = ember::ones({1});
      EXPECT_EQ(ember::find_op("ltemp::f").call({Value(one)})[0].to_tensor().item().to_double(), 10.0);
    }
    // The CPU kernel went with its block: the composite kernel is back.
    Tensor one = ember::ones({1});
    EXPECT_EQ(ember::find_op("ltemp::f").call({Value(one)})[0].to_tensor().item().to_double(), 2.0);
  }
  EXPECT_FALSE(Dispatcher::singleton().findSchema("ltemp::f", "").has_value());
  // The namespace is free again, and the op comes back at the same id.
  Library again(Library::DEF, "ltemp", std::nullopt, "t.cpp", 9);
  again.def("f(Tensor x, int k) -> Tensor");
  EXPECT_EQ(ember::find_op("ltemp::f").schema(), "ltemp::f(Tensor x, int k) -> Tensor");
}

TEST(Library, AutogradKernel) {
  Tensor x = ember::arange(3, ember::TensorOptions().dtype(ember::kFloat32)).requires_grad_();
  Tensor y = ember::find_op("ltest::scale").call({Value(x), Value(int64_t{5})})[0].to_tensor();
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "ScaleFnBackward");
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(ember::full({3}, 5.0)));
}

TEST(Library, CompositeImplicitAutogradDecomposes) {
  Tensor x = ember::ones({2}).requires_grad_();
  Tensor y = ember::find_op("ltest::twice").call({Value(x)})[0].to_tensor();
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");  // autograd saw the decomposition
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(ember::full({2}, 2.0)));
}

TEST(Library, NoAutogradKernelWarnsAtBackward) {
  Tensor x = ember::ones({2}).requires_grad_();
  Tensor y = ember::find_op("ltest::noback").call({Value(x)})[0].to_tensor();
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "WarnNotImplemented");
  ember::WarningCapture w;
  y.sum().backward();
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_TRUE(w.messages[0].starts_with(
      "ltest::noback: an autograd kernel was not registered to the Autograd key(s) but we are "
      "trying to backprop through it. This may lead to silently incorrect behavior."));
  EXPECT_FALSE(x.grad().defined());
}

TEST(Library, DispatchModeSeesRuntimeOp) {
  struct Logger : ember::DispatchMode {
    std::vector<std::string> seen;
    std::optional<Stack> torch_dispatch(const ember::OpHandle& op, const Stack& args) override {
      seen.push_back(op.full_name());
      return op.redispatch(args);
    }
  };
  auto mode = ember::make_intrusive<Logger>();
  Tensor x = ember::ones({2});
  {
    ember::DispatchModeGuard g(mode);
    Tensor y = ember::find_op("ltest::scale").call({Value(x)})[0].to_tensor();
    EXPECT_TRUE(y.equal(x * 2.0));
  }
  ASSERT_FALSE(mode->seen.empty());
  EXPECT_EQ(mode->seen[0], "ltest::scale");
}

namespace {
// A boxed kernel in libtorch's shape: arguments replaced by results on the stack.
void boxed_sum(const ember::OpHandle&, Stack* stack) {
  Tensor t = (*stack)[0].to_tensor() + (*stack)[1].to_tensor();
  stack->clear();
  stack->push_back(Value(t));
}
}  // namespace

TEST(Library, BoxedKernelsAndFallthrough) {
  Library lib(Library::FRAGMENT, "lboxed", std::nullopt, "b.cpp", 1);
  lib.def("sum2(Tensor a, Tensor b) -> Tensor");
  lib.impl("sum2", LibraryKey::CPU, ember::CppFunction::makeFromBoxedFunction<&boxed_sum>());
  Tensor one = ember::ones({2});
  EXPECT_TRUE(ember::find_op("lboxed::sum2").call({Value(one), Value(one)})[0].to_tensor().equal(one * 2.0));
  // A fallthrough at Autograd: below autograd, no node, no warning.
  lib.impl("sum2", LibraryKey::Autograd, ember::CppFunction::makeFallthrough());
  Tensor x = ember::ones({2}).requires_grad_();
  ember::WarningCapture w;
  Tensor y = ember::find_op("lboxed::sum2").call({Value(x), Value(x)})[0].to_tensor();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(w.messages.empty());
  // Registering a second kernel at the same key warns as PyTorch does, and the latest wins.
  lib.impl("sum2", LibraryKey::CPU, [](const Tensor& a, const Tensor&) { return a; });
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_TRUE(w.messages[0].starts_with("Overriding a previously registered kernel for the same "
                                        "operator and the same dispatch key"));
  EXPECT_TRUE(ember::find_op("lboxed::sum2").call({Value(one), Value(one)})[0].to_tensor().equal(one));
}

TEST(Library, ImplOnBuiltinOpAndForeignNamespace) {
  Library lib(Library::IMPL, "aten", LibraryKey::CPU, "x.cpp", 1);
  try {
    lib.impl("add.Tensor", &twice);
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_EQ(e.kind(), ember::ErrorKind::NotImplemented);
  }
  Library frag(Library::FRAGMENT, "lforeign", std::nullopt, "y.cpp", 2);
  EXPECT_THROW(frag.def("other::f(Tensor x) -> Tensor"), ember::Error);
  EXPECT_THROW(frag.def("f(Tensor x -> Tensor"), ember::Error);  // malformed schema
  Library impl_only(Library::IMPL, "lforeign", LibraryKey::CPU, "z.cpp", 3);
  EXPECT_THROW(impl_only.def("g(Tensor x) -> Tensor"), ember::Error);
}

TEST(Library, AutogradFallthroughFallback) {
  Tensor x = ember::ones({2}).requires_grad_();
  {
    Library fallback(Library::IMPL, "_", LibraryKey::Autograd, "fb.cpp", 1);
    fallback.fallback(ember::CppFunction::makeFallthrough());
    Tensor y = ember::find_op("ltest::noback").call({Value(x)})[0].to_tensor();
    EXPECT_FALSE(y.requires_grad());  // below autograd, no WarnNotImplemented node
    Library bad(Library::IMPL, "_", LibraryKey::CPU, "fb.cpp", 2);
    EXPECT_THROW(bad.fallback(ember::CppFunction::makeFallthrough()), ember::Error);
  }
  // The fallback went with its block.
  EXPECT_EQ(ember::find_op("ltest::noback").call({Value(x)})[0].to_tensor().grad_fn()->name(),
            "WarnNotImplemented");
}
