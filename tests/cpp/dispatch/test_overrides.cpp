// The function-override layer (torch_function subclasses and modes), dispatch modes, the
// autograd and quantized slots, and the unboxed fast path (Note [Dispatch layers]).
#include <atomic>
#include <thread>

#include "ember/grad_mode.h"
#include "subclasses.h"

namespace ember {
namespace {

using dispatch::local_state;
using dispatch::OpId;
using testing::dispatch_log;
using testing::DispatchTest;
using testing::expect_error;
using testing::expect_raw;
using testing::expect_values;
using testing::function_sub;
using testing::FunctionSub;
using testing::Handling;
using testing::LogDispatchMode;
using testing::LogFunctionMode;

using FunctionLayer = DispatchTest;
using DispatchModes = DispatchTest;
using FastPath = DispatchTest;
using KernelSlots = DispatchTest;
using KernelSlotsDeathTest = DispatchTest;

TEST_F(FunctionLayer, HandlerGetsThePublicOpBoxedInSchemaOrder) {
  Tensor plain = full({2}, 2.0);
  Tensor s = function_sub(full({2}, 1.0), "A", Handling::ReturnMarker);
  EXPECT_TRUE(s.impl()->keys().has(DispatchKey::FunctionOverride));
  Tensor r = ember::add(s, plain, 3);
  expect_values(r, {1}, {-42});  // the handler's result is the op's result
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});
  const Stack& args = testing::last_args();
  ASSERT_EQ(args.size(), 3u);  // self, other, alpha: every schema argument, defaults filled
  EXPECT_TRUE(args[0].to_tensor().is_same(s));
  EXPECT_TRUE(args[1].to_tensor().is_same(plain));
  ASSERT_TRUE(args[2].is_int());
  EXPECT_EQ(args[2].to_int(), 3);

  ember::add(plain, s);  // a subclass in any tensor slot
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});
  EXPECT_EQ(testing::last_args()[2].to_int(), 1);  // alpha's default
  s + 1.5;  // operators and scalars: a wrapped-number tensor in `other`
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});
  EXPECT_TRUE(testing::last_args()[1].to_tensor().impl()->is_wrapped_number());
  s.sub(plain);
  s.add_(plain);
  EXPECT_EQ(take_log(), (Log{"A:aten::sub.Tensor", "A:aten::add_.Tensor"}));
  expect_raw(s, {2}, {1, 1});  // the handler wrote nothing
}

TEST_F(FunctionLayer, HandlerSeesTheOpHandleOfTheTable) {
  struct Probe : FunctionSub {
    Probe() : FunctionSub("Probe") {}
    std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
      seen = &op;
      return op.redispatch(args);
    }
    const OpHandle* seen = nullptr;
  };
  Tensor s = alias(ones({1}));
  auto probe = make_intrusive<Probe>();
  set_subclass(s, probe);
  ember::sub(s, s);
  EXPECT_EQ(probe->seen, &find_op("aten::sub", "Tensor"));
  s.detach();
  EXPECT_EQ(probe->seen, &find_op("aten::detach"));
}

TEST_F(FunctionLayer, HandlerResultsMustMatchTheOpsReturns) {
  struct Returns : FunctionSub {
    explicit Returns(Stack r) : FunctionSub("Returns"), result(std::move(r)) {}
    std::optional<Stack> torch_function(const OpHandle&, const Stack&) override { return result; }
    Stack result;
  };
  Tensor s = alias(ones({1}));
  set_subclass(s, make_intrusive<Returns>(Stack{}));
  expect_error([&] { ember::add(s, s); },
               "aten::add.Tensor: an override returned nothing where a Tensor was expected",
               ErrorKind::Type);
  set_subclass(s, make_intrusive<Returns>(Stack{Value(3)}));
  expect_error([&] { s.clone(); }, "aten::clone: an override returned int where a Tensor was expected",
               ErrorKind::Type);
  Tensor other = zeros({1});
  set_subclass(s, make_intrusive<Returns>(Stack{Value(other)}));
  EXPECT_TRUE(ember::add(s, s).is_same(other));
  Tensor& self = s.add_(s);  // an in-place op returns its argument, whatever the handler gives
  EXPECT_EQ(&self, &s);
}

TEST_F(FunctionLayer, AllDecliningIsATypeErrorListingTheTypes) {
  Tensor a = function_sub(ones({2}), "A", Handling::Decline);
  Tensor b = function_sub(ones({2}), "B", Handling::Decline);
  Tensor a2 = function_sub(ones({2}), "A", Handling::Decline);
  expect_error([&] { ember::add(a, ones({2})); },
               "no implementation found for 'aten::add.Tensor' on types that implement "
               "__torch_function__: [A]",
               ErrorKind::Type);
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});
  // One handler per type, types in argument order.
  expect_error([&] { ember::add(b, a); }, "__torch_function__: [B, A]", ErrorKind::Type);
  EXPECT_EQ(take_log(), (Log{"B:aten::add.Tensor", "A:aten::add.Tensor"}));
  expect_error([&] { ember::add(a, a2); }, "__torch_function__: [A]", ErrorKind::Type);
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});
  // The first handler that answers wins; later ones are not asked.
  Tensor c = function_sub(ones({2}), "C", Handling::ReturnMarker);
  expect_values(ember::add(c, b), {1}, {-42});
  EXPECT_EQ(take_log(), Log{"C:aten::add.Tensor"});
  expect_values(ember::add(a, c), {1}, {-42});
  EXPECT_EQ(take_log(), (Log{"A:aten::add.Tensor", "C:aten::add.Tensor"}));
}

TEST_F(FunctionLayer, DisableTorchFunctionSubclassSkipsSubclassesNotModes) {
  Tensor s = function_sub(full({2}, 1.0), "A", Handling::Decline);
  {
    DisableTorchFunctionSubclass off;
    expect_values(ember::add(s, full({2}, 2.0)), {2}, {3, 3});
    { DisableTorchFunctionSubclass nested; }
    expect_values(s.to(kFloat64), {2}, {1, 1});  // still off after the nested guard ends
    EXPECT_TRUE(take_log().empty());
    FunctionModeGuard mode(make_intrusive<LogFunctionMode>("mode"));
    ember::add(s, s);
    EXPECT_EQ(take_log(), Log{"mode:aten::add.Tensor"});
  }
  expect_error([&] { ember::add(s, s); }, "[A]", ErrorKind::Type);
  take_log();
  {
    DisableTorchFunction off;  // the whole layer: subclasses and modes
    FunctionModeGuard mode(make_intrusive<LogFunctionMode>("mode"));
    expect_values(ember::add(s, s), {2}, {2, 2});
    EXPECT_TRUE(take_log().empty());
  }
}

TEST_F(FunctionLayer, RedispatchRunsTheRealOpOnce) {
  Tensor s = function_sub(full({2, 2}, 1.5), "A", Handling::Redispatch);
  Tensor r = ember::add(s, full({2}, 2.0), 2);
  expect_values(r, {2, 2}, {5.5, 5.5, 5.5, 5.5});
  EXPECT_EQ(r.impl()->subclass(), nullptr);          // no automatic re-wrapping
  EXPECT_EQ(take_log(), Log{"A:aten::add.Tensor"});  // the redispatch did not come back
  Tensor d = s.detach();
  EXPECT_FALSE(d.is_same(s));
  EXPECT_EQ(take_log(), Log{"A:aten::detach"});
}

TEST_F(FunctionLayer, CompositeOpsAreSeenWholeNotTheirParts) {
  Tensor s = function_sub(full({2}, 1.25), "A", Handling::Redispatch);
  Tensor d = s.to(kFloat64);  // to.dtype decomposes into _to_copy: not seen here
  EXPECT_EQ(d.dtype(), kFloat64);
  expect_values(d, {2}, {1.25, 1.25});
  EXPECT_EQ(take_log(), Log{"A:aten::to.dtype"});
  s.to(kFloat32);
  EXPECT_EQ(take_log(), Log{"A:aten::to.dtype"});
  Tensor x = function_sub(expand(full({3, 1}, 2.0), {3, 2}), "A");
  Tensor c = x.contiguous();  // contiguous = empty + copy_: only contiguous is seen
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {3, 2}, {2, 2, 2, 2, 2, 2});
  EXPECT_EQ(take_log(), Log{"A:aten::contiguous"});
  Tensor z = zeros_like(s);
  EXPECT_EQ(take_log(), Log{"A:aten::zeros_like"});
  expect_values(z, {2}, {0, 0});
}

TEST_F(FunctionLayer, ModesSeeFactoriesAndPlainTensors) {
  FunctionModeGuard mode(make_intrusive<LogFunctionMode>("mode"));
  Tensor z = zeros({2});
  Tensor e = empty({3}, kInt64);
  Tensor a = ones({2}) + z;
  Tensor d = a.to(kFloat64);
  EXPECT_EQ(take_log(), (Log{"mode:aten::zeros", "mode:aten::empty.memory_format",
                             "mode:aten::ones", "mode:aten::add.Tensor", "mode:aten::to.dtype"}));
  expect_raw(a, {2}, {1, 1});
  expect_raw(d, {2}, {1, 1});
  EXPECT_EQ(e.dtype(), kInt64);
}

TEST_F(FunctionLayer, ModeIsPoppedWhileItsHandlerRuns) {
  struct Busy : FunctionMode {
    std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
      dispatch_log().push_back("busy:" + op.full_name());
      EXPECT_FALSE(local_state().included.has(DispatchKey::FunctionOverride));
      Tensor inner = ones({1}) + ones({1});  // reaches no mode: this one is off the stack
      EXPECT_EQ(inner.item<double>(), 2.0);
      return op.call(args);  // nor does the op itself
    }
  };
  Tensor five = full({2}, 5.0), one = ones({2});
  FunctionModeGuard mode(make_intrusive<Busy>());
  EXPECT_TRUE(local_state().included.has(DispatchKey::FunctionOverride));
  Tensor r = ember::sub(five, one);
  EXPECT_EQ(take_log(), Log{"busy:aten::sub.Tensor"});
  expect_raw(r, {2}, {4, 4});
  EXPECT_TRUE(local_state().included.has(DispatchKey::FunctionOverride));  // pushed back
}

TEST_F(FunctionLayer, NestedModesRunInnermostFirstThenSubclasses) {
  Tensor s = function_sub(ones({2}), "A", Handling::Redispatch);
  {
    FunctionModeGuard outer(make_intrusive<LogFunctionMode>("outer", Handling::Call));
    FunctionModeGuard inner(make_intrusive<LogFunctionMode>("inner", Handling::Call));
    zeros({1});
    EXPECT_EQ(take_log(), (Log{"inner:aten::zeros", "outer:aten::zeros"}));
    Tensor r = ember::add(s, s);
    EXPECT_EQ(take_log(),
              (Log{"inner:aten::add.Tensor", "outer:aten::add.Tensor", "A:aten::add.Tensor"}));
    expect_raw(r, {2}, {2, 2});
  }
  zeros({1});
  EXPECT_TRUE(take_log().empty());
  EXPECT_TRUE(local_state().included.empty());
}

TEST_F(FunctionLayer, DecliningModeFallsToSubclassesThenErrors) {
  Tensor s = function_sub(ones({2}), "A", Handling::Redispatch);
  Tensor no = function_sub(ones({2}), "No", Handling::Decline);
  FunctionModeGuard mode(make_intrusive<LogFunctionMode>("mode", Handling::Decline));
  expect_error([] { zeros({2}); },
               "no implementation found for 'aten::zeros' on types that implement "
               "__torch_function__: [] nor was it found on the currently active mode",
               ErrorKind::Type);
  EXPECT_EQ(take_log(), Log{"mode:aten::zeros"});
  Tensor r = ember::add(s, s);
  EXPECT_EQ(take_log(), (Log{"mode:aten::add.Tensor", "A:aten::add.Tensor"}));
  expect_raw(r, {2}, {2, 2});
  expect_error([&] { ember::add(no, no); },
               "__torch_function__: [No] nor was it found on the currently active mode",
               ErrorKind::Type);
}

TEST_F(DispatchModes, SeePrimitiveOpsAndFactoriesBelowComposites) {
  Tensor col = full({3, 1}, 2.0);
  DispatchModeGuard mode(make_intrusive<LogDispatchMode>("mode"));
  Tensor z = zeros({2});
  Tensor e = empty({2}, kInt32);
  EXPECT_EQ(take_log(), (Log{"mode:aten::zeros", "mode:aten::empty.memory_format"}));
  Tensor a = ember::add(z, ones({2}), 2);
  EXPECT_EQ(take_log(), (Log{"mode:aten::ones", "mode:aten::add.Tensor"}));
  expect_raw(a, {2}, {2, 2});
  Tensor d = a.to(kFloat64);  // to.dtype is composite: the mode sees _to_copy
  EXPECT_EQ(take_log(), Log{"mode:aten::_to_copy"});
  expect_raw(d, {2}, {2, 2});
  Tensor x = expand(col, {3, 2});
  Tensor c = x.contiguous();
  EXPECT_EQ(take_log(),
            (Log{"mode:aten::expand", "mode:aten::clone"}));
  expect_raw(c, {3, 2}, {2, 2, 2, 2, 2, 2});
  a.clone();
  a.detach();
  a.fill_(1);
  // detach twice, as PyTorch 1.13 (Note [Detach through the dispatch layer]).
  EXPECT_EQ(take_log(), (Log{"mode:aten::clone", "mode:aten::detach", "mode:aten::detach",
                             "mode:aten::fill_.Scalar"}));
}

TEST_F(DispatchModes, ArePoppedInTheirHandlerAndNestInnermostFirst) {
  struct Busy : DispatchMode {
    std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
      dispatch_log().push_back("busy:" + op.full_name());
      // Below autograd and the function layer; this mode is off its stack.
      EXPECT_TRUE(local_state().excluded.has(DispatchKey::Autograd));
      EXPECT_TRUE(local_state().excluded.has(DispatchKey::FunctionOverride));
      ones({1});
      return op.call(args);
    }
  };
  {
    DispatchModeGuard outer(make_intrusive<LogDispatchMode>("outer", Handling::Redispatch));
    DispatchModeGuard inner(make_intrusive<Busy>());
    Tensor z = zeros({2});
    // The inner mode's own ops, and its call of the op, reach the outer mode.
    EXPECT_EQ(take_log(), (Log{"busy:aten::zeros", "outer:aten::ones", "outer:aten::zeros"}));
    expect_raw(z, {2}, {0, 0});
  }
  EXPECT_TRUE(local_state().excluded.empty());
  EXPECT_TRUE(local_state().included.empty());
}

TEST_F(DispatchModes, DecliningIsATypeError) {
  DispatchModeGuard mode(make_intrusive<LogDispatchMode>("mode", Handling::Decline));
  expect_error([] { zeros({2}); },
               "Multiple dispatch failed for 'aten::zeros'; all __torch_dispatch__ handlers "
               "returned NotImplemented: [] nor was it found on the currently active mode",
               ErrorKind::Type);
}

TEST_F(DispatchModes, FunctionModeRedispatchStillReachesTheDispatchLayer) {
  DispatchModeGuard dmode(make_intrusive<LogDispatchMode>("dispatch"));
  FunctionModeGuard fmode(make_intrusive<LogFunctionMode>("function"));
  Tensor d = full({2}, 3.0).to(kFloat64);
  EXPECT_EQ(take_log(), (Log{"function:aten::full", "dispatch:aten::full",
                             "function:aten::to.dtype", "dispatch:aten::_to_copy"}));
  expect_raw(d, {2}, {3, 3});
}

TEST_F(FastPath, PlainTensorsNeverBox) {
  Tensor a = full({2, 3}, 1.5), b = ones({3});
  Tensor m = empty({2, 3}, TensorOptions().device(kMeta));
  const uint64_t before = local_state().slow_calls;
  Tensor r = ember::add(a, b, 2);
  ember::sub(a, b);
  a.add_(b);
  a.clone();
  a.detach();
  a.to(kFloat64);
  a.contiguous();
  expand(b, {2, 3});
  zeros({2});
  empty({2});
  Tensor c = empty({2, 3});
  c.copy_(a);
  c.fill_(3);
  ember::add(m, m);  // meta tensors too
  m.to(kInt64);
  EXPECT_EQ(local_state().slow_calls, before);
  expect_values(r, {2, 3}, {3.5, 3.5, 3.5, 3.5, 3.5, 3.5});
  EXPECT_TRUE(dispatch_log().empty());

  Tensor s = function_sub(a, "A");  // any upper key leaves the fast path
  ember::add(s, b);
  EXPECT_GT(local_state().slow_calls, before);
}

TEST_F(FastPath, ModesAreThreadLocal) {
  // A mode on another thread changes nothing here.
  std::atomic<int> stage{0};
  std::thread other([&] {
    DispatchModeGuard mode(make_intrusive<LogDispatchMode>("other"));
    stage = 1;
    while (stage.load() != 2) std::this_thread::yield();
  });
  while (stage.load() != 1) std::this_thread::yield();
  const uint64_t before = local_state().slow_calls;
  expect_values(ember::add(ones({2}), ones({2})), {2}, {2, 2});
  EXPECT_EQ(local_state().slow_calls, before);
  stage = 2;
  other.join();
  EXPECT_TRUE(dispatch_log().empty());
}

// A fake autograd kernel for add: logs, then redispatches below autograd.
Tensor fake_add_autograd(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  dispatch_log().push_back("autograd:aten::add.Tensor");
  EXPECT_TRUE(local_state().excluded.has(DispatchKey::FunctionOverride));
  dispatch::AutoDispatchBelowAutograd below;
  return ember::add(self, other, alpha);
}
Tensor add_by_value(Tensor self, const Tensor&, const Scalar&) { return self; }
Tensor fake_add_quantized(const Tensor& self, const Tensor&, const Scalar&) {
  dispatch_log().push_back("quantized:aten::add.Tensor");
  return self;
}

// Restores a kernel slot however the test ends.
struct SlotRestorer {
  explicit SlotRestorer(dispatch::TypedSlot& s) : slot(s), saved(s) {}
  ~SlotRestorer() { slot = saved; }
  dispatch::TypedSlot& slot;
  dispatch::TypedSlot saved;
};

TEST_F(KernelSlots, AutogradKernelRunsBetweenTheOverrideLayers) {
  SlotRestorer restore(dispatch::autograd_slot(OpId::add_Tensor));
  dispatch::register_autograd(OpId::add_Tensor, &fake_add_autograd);
  SlotRestorer restore_sub(dispatch::autograd_slot(OpId::sub_Tensor));
  dispatch::autograd_slot(OpId::sub_Tensor) = {};
  Tensor x = full({2}, 1.5).requires_grad_();
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.impl()->keys().has(DispatchKey::Autograd));

  DispatchModeGuard dmode(make_intrusive<LogDispatchMode>("dispatch"));
  FunctionModeGuard fmode(make_intrusive<LogFunctionMode>("function"));
  Tensor y = ember::add(x, full({2}, 1.0), 2);
  // All four layers, in order: function, autograd, dispatch, then the CPU kernel.
  EXPECT_EQ(take_log(),
            (Log{"function:aten::full", "dispatch:aten::full", "function:aten::add.Tensor",
                 "autograd:aten::add.Tensor", "dispatch:aten::add.Tensor"}));
  expect_raw(y, {2}, {3.5, 3.5});
  {
    NoGradGuard no_grad;  // grad mode off: the autograd layer is skipped
    Tensor one = full({2}, 1.0);
    take_log();
    ember::add(x, one);
    EXPECT_EQ(take_log(), (Log{"function:aten::add.Tensor", "dispatch:aten::add.Tensor"}));
  }
  Tensor plain = full({2}, 1.0);
  take_log();
  ember::add(plain, plain);  // no tensor requires grad: no autograd kernel
  EXPECT_EQ(take_log(), (Log{"function:aten::add.Tensor", "dispatch:aten::add.Tensor"}));
  ember::sub(x, plain);  // no autograd kernel for sub (cleared above): straight through
  EXPECT_EQ(take_log(), (Log{"function:aten::sub.Tensor", "dispatch:aten::sub.Tensor"}));
}

TEST_F(KernelSlots, AutogradKernelAloneReachesTheBackend) {
  SlotRestorer restore(dispatch::autograd_slot(OpId::add_Tensor));
  dispatch::register_autograd(OpId::add_Tensor, &fake_add_autograd);
  Tensor x = full({2}, 1.5).requires_grad_();
  expect_values(ember::add(x, x), {2}, {3, 3});
  expect_values(x + 1, {2}, {2.5, 2.5});
  EXPECT_EQ(take_log(), (Log{"autograd:aten::add.Tensor", "autograd:aten::add.Tensor"}));
  EXPECT_TRUE(local_state().excluded.empty());  // the guards were undone
}

TEST_F(KernelSlots, QuantizedTensorsNeedAQuantizedKernel) {
  Tensor q = empty({2}, kQInt8);
  EXPECT_TRUE(q.impl()->keys().has(DispatchKey::QuantizedCPU));
  expect_error([&] { ember::add(q, q); },
               // PyTorch names the structured kernel's out= overload (src/quant/qtensor_ops.cpp)
               "Could not run 'aten::add.out' with arguments from the 'QuantizedCPU' backend. "
               "This could be because the operator doesn't exist for this backend.",
               ErrorKind::NotImplemented);
  SlotRestorer restore(dispatch::quantized_slot(OpId::add_Tensor));
  dispatch::register_quantized(OpId::add_Tensor, &fake_add_quantized);
  EXPECT_TRUE(ember::add(q, q).is_same(q));
  EXPECT_EQ(take_log(), Log{"quantized:aten::add.Tensor"});
}

TEST_F(KernelSlotsDeathTest, AKernelOfAnotherSignatureIsABug) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  SlotRestorer restore(dispatch::autograd_slot(OpId::add_Tensor));
  dispatch::register_autograd(OpId::add_Tensor, &add_by_value);  // self by value: not the call's
  Tensor x = full({2}, 1.5).requires_grad_();
  EXPECT_DEATH(ember::add(x, x),
               "the autograd kernel registered for aten::add.Tensor has signature "
               "ember::Tensor \\(ember::Tensor, ember::Tensor const&, ember::Scalar const&\\) but "
               "the op's frontend calls it as ember::Tensor \\(ember::Tensor const&, "
               "ember::Tensor const&, ember::Scalar const&\\)");
}

}  // namespace
}  // namespace ember
