// The dispatch-override layer: wrapper tensors (make_wrapper_tensor, Note [Wrapper tensors]) whose
// torch_dispatch sees primitive ops, unwraps, runs them on the inner tensor and wraps again.
#include "subclasses.h"

namespace ember {
namespace {

using dispatch::local_state;
using testing::dispatch_log;
using testing::DispatchTest;
using testing::expect_error;
using testing::expect_raw;
using testing::expect_values;
using testing::FunctionSub;
using testing::Handling;
using testing::LogDispatchMode;
using testing::LogFunctionMode;
using testing::make_tensor;
using testing::unwrap;
using testing::wrap;
using testing::Wrapper;
using testing::wrapper_of;

using WrapperTensor = DispatchTest;
using Layers = DispatchTest;

TEST_F(WrapperTensor, HasMetadataAndNoData) {
  Tensor elem = make_tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = wrap(elem);
  EXPECT_EQ(w.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(w.strides().vec(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(w.dtype(), kFloat32);
  EXPECT_EQ(w.device(), kCPU);  // the device it was given, as PyTorch's wrappers report
  EXPECT_EQ(w.data_ptr(), nullptr);
  EXPECT_EQ(w.impl()->storage()->nbytes(), 24u);  // the bytes its geometry spans
  EXPECT_TRUE(w.impl()->subclass()->is_wrapper());
  EXPECT_TRUE(w.impl()->keys().has(DispatchKey::DispatchOverride));
  EXPECT_FALSE(w.impl()->keys().has(DispatchKey::FunctionOverride));
  EXPECT_TRUE(wrapper_of(w)->elem.is_same(elem));

  // Strides as given (or contiguous), on any device.
  Tensor t = make_wrapper_tensor({2, 3}, {1, 2}, kFloat64, kCPU, make_intrusive<Wrapper>(elem));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.impl()->storage()->nbytes(), 6u * 8u);
  Tensor m = make_wrapper_tensor({4}, {}, kInt64, kMeta, make_intrusive<Wrapper>(elem));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.strides().vec(), std::vector<int64_t>{1});
  Tensor e = make_wrapper_tensor({0, 3}, {}, kFloat32, kCPU, make_intrusive<Wrapper>(elem));
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.impl()->storage()->nbytes(), 0u);
  Tensor s = make_wrapper_tensor({}, {}, kBool, kCPU, make_intrusive<Wrapper>(elem));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.impl()->storage()->nbytes(), 1u);
}

TEST_F(WrapperTensor, ConstructionErrors) {
  Tensor elem = ones({2});
  expect_error(
      [] { make_wrapper_tensor({2}, {}, kFloat32, kCPU, make_intrusive<FunctionSub>("F")); },
      "F must define __torch_dispatch__", ErrorKind::Type);
  expect_error([] { make_wrapper_tensor({2}, {}, kFloat32, kCPU, nullptr); },
               "make_wrapper_tensor: the subclass hooks are null");
  expect_error(
      [&] {
        make_wrapper_tensor({2, 3}, {1}, kFloat32, kCPU, make_intrusive<Wrapper>(elem));
      },
      "make_wrapper_tensor: 2 sizes but 1 strides");
  expect_error(
      [&] {
        make_wrapper_tensor({2, -1}, {}, kFloat32, kCPU, make_intrusive<Wrapper>(elem));
      },
      "Trying to create tensor with negative dimension -1: [2, -1]");
  expect_error(
      [&] { make_wrapper_tensor({2}, {-1}, kFloat32, kCPU, make_intrusive<Wrapper>(elem)); },
      "make_wrapper_tensor: negative strides are not supported, got [-1]");
  auto hooks = make_intrusive<Wrapper>(elem);
  make_wrapper_tensor({2}, {}, kFloat32, kCPU, hooks);
  expect_error(
      [&] { make_wrapper_tensor({2}, {}, kFloat32, kCPU, hooks); },
      "these Wrapper hooks already belong to a wrapper tensor; each wrapper needs its own");
  // Nor can they move to a tensor with data; a copy of them belongs to no tensor yet.
  expect_error([&] { set_subclass(ones({2}), hooks); },
               "set_subclass: these Wrapper hooks belong to a wrapper tensor, which has no data to "
               "share with this one");
  auto copy = make_intrusive<Wrapper>(*hooks);
  EXPECT_FALSE(copy->is_wrapper());
  EXPECT_NE(wrapper_of(make_wrapper_tensor({2}, {}, kFloat32, kCPU, copy)), nullptr);
}

TEST_F(WrapperTensor, PrimitiveOpsReachTheHandler) {
  Tensor w = wrap(full({2, 3}, 1.5));
  Tensor plain = make_tensor({1, 2, 3}, {3});
  Tensor r = ember::add(w, plain, 2);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add.Tensor"});
  ASSERT_NE(wrapper_of(r), nullptr);  // the handler wrapped the result
  EXPECT_EQ(r.data_ptr(), nullptr);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 3}));
  expect_values(unwrap(r), {2, 3}, {3.5, 5.5, 7.5, 3.5, 5.5, 7.5});
  Tensor d = w - w;
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::sub.Tensor"});
  expect_values(unwrap(d), {2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor s = w + 1;  // a wrapped number beside a wrapper: the wrapper's handler decides
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add.Tensor"});
  expect_values(unwrap(s), {2, 3}, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
  Tensor x = expand(wrap(make_tensor({1, 2}, {2})), {3, 2});
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::expand"});
  EXPECT_EQ(x.strides().vec(), (std::vector<int64_t>{0, 1}));
  expect_values(unwrap(x), {3, 2}, {1, 2, 1, 2, 1, 2});
}

TEST_F(WrapperTensor, CompositesDecomposeBeforeTheHandler) {
  Tensor elem = make_tensor({1.25, 2.5, 3.75, 5}, {2, 2});
  Tensor w = wrap(elem);
  Tensor d = w.to(kFloat64);  // to.dtype is composite: the handler sees _to_copy
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::_to_copy"});
  EXPECT_EQ(d.dtype(), kFloat64);
  ASSERT_NE(wrapper_of(d), nullptr);
  expect_values(unwrap(d), {2, 2}, {1.25, 2.5, 3.75, 5});
  EXPECT_TRUE(w.to(kFloat32).is_same(w));  // a no-op .to() returns self, undispatched
  EXPECT_TRUE(take_log().empty());
  Tensor i = w.to(kInt64);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::_to_copy"});
  expect_values(unwrap(i), {2, 2}, {1, 2, 3, 5});

  Tensor c = w.clone();
  Tensor det = w.detach();
  // detach twice, as PyTorch 1.13 (Note [Detach through the dispatch layer]).
  EXPECT_EQ(take_log(),
            (Log{"Wrapper:aten::clone", "Wrapper:aten::detach", "Wrapper:aten::detach"}));
  EXPECT_FALSE(unwrap(c).is_same(elem));
  expect_values(unwrap(det), {2, 2}, {1.25, 2.5, 3.75, 5});

  // contiguous on a non-contiguous wrapper = clone(memory_format=contiguous_format), as
  // PyTorch's: the handler makes the copy, a wrapper.
  Tensor t = wrap(make_tensor({1.25, 2.5, 3.75, 5}, {2, 2}, {1, 2}));  // elem.t()
  EXPECT_FALSE(t.is_contiguous());
  Tensor ct = t.contiguous();
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::clone"});
  ASSERT_NE(wrapper_of(ct), nullptr);
  expect_values(unwrap(ct), {2, 2}, {1.25, 3.75, 2.5, 5});
  EXPECT_TRUE(w.contiguous().is_same(w));
  EXPECT_TRUE(take_log().empty());
}

TEST_F(WrapperTensor, InPlaceOpsWriteTheInnerTensor) {
  Tensor elem = full({2}, 1.0);
  Tensor w = wrap(elem);
  Tensor& same = w.add_(make_tensor({1, 2}, {2}), 3);
  EXPECT_EQ(&same, &w);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add_.Tensor"});
  expect_values(elem, {2}, {4, 7});
  w.fill_(2.5);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::fill_.Scalar"});
  expect_values(elem, {2}, {2.5, 2.5});
  w.copy_(make_tensor({8, 9}, {2}));
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::copy_"});
  expect_values(elem, {2}, {8, 9});
  w.zero_();
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::zero_"});
  expect_values(elem, {2}, {0, 0});
  Tensor dst = zeros({2});
  dst.copy_(wrap(make_tensor({3, 4}, {2})));  // a plain destination, a wrapper source
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::copy_"});
  expect_values(dst, {2}, {3, 4});
}

TEST_F(WrapperTensor, DecliningIsATypeErrorBeforeAnyKernel) {
  Wrapper::handling = Handling::Decline;
  Tensor w = wrap(ones({2})), w2 = wrap(ones({2}));
  expect_error([&] { ember::add(w, ones({2})); },
               "Multiple dispatch failed for 'aten::add.Tensor'; all __torch_dispatch__ handlers "
               "returned NotImplemented: [Wrapper]",
               ErrorKind::Type);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add.Tensor"});
  expect_error([&] { ember::add(w, w2); }, "NotImplemented: [Wrapper]", ErrorKind::Type);
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add.Tensor"});  // one handler per type
  expect_error([&] { w.clone(); }, "Multiple dispatch failed for 'aten::clone'", ErrorKind::Type);
  expect_error([&] { w.fill_(1); }, "Multiple dispatch failed for 'aten::fill_.Scalar'",
               ErrorKind::Type);
}

TEST_F(WrapperTensor, NoKernelEverRunsOnItsMissingData) {
  Tensor w = wrap(full({2}, 1.0));
  const std::string refused =
      "Could not run 'aten::add.Tensor' on a wrapper tensor of type Wrapper: it has no data of "
      "its own. Its __torch_dispatch__ must unwrap it and call the op on the inner tensors "
      "instead of redispatching it.";
  Wrapper::handling = Handling::Redispatch;  // the handler passes the wrapper itself down
  expect_error([&] { ember::add(w, ones({2})); }, refused, ErrorKind::NotImplemented);
  expect_error([&] { ember::add(ones({2}), w); }, refused, ErrorKind::NotImplemented);
  expect_error([&] { w.fill_(3); }, "Could not run 'aten::fill_.Scalar' on a wrapper tensor",
               ErrorKind::NotImplemented);
  Wrapper::handling = Handling::Call;
  {
    dispatch::ExcludeKeysGuard no_dispatch_layer(DispatchKey::DispatchOverride);
    expect_error([&] { ember::add(w, ones({2})); }, refused, ErrorKind::NotImplemented);
    expect_error(
        [&] {
          find_op("aten::add", "Tensor").redispatch({w, w});
        },
        refused, ErrorKind::NotImplemented);
  }
  // Its hooks cannot be taken away or replaced by hooks without torch_dispatch.
  expect_error([&] { set_subclass(w, nullptr); },
               "set_subclass: a wrapper tensor has no data, so its new hooks must define "
               "__torch_dispatch__ (Wrapper is being replaced by nothing)");
  expect_error([&] { set_subclass(w, make_intrusive<FunctionSub>("F")); },
               "(Wrapper is being replaced by F)");
  auto other = make_intrusive<Wrapper>(full({2}, 5.0));
  set_subclass(w, other);
  EXPECT_TRUE(other->is_wrapper());
  expect_values(unwrap(w + 1), {2}, {6, 6});
  take_log();
  // The wrapper tensor still works after all that.
  expect_values(unwrap(ember::add(w, ones({2}))), {2}, {6, 6});
  EXPECT_EQ(take_log(), Log{"Wrapper:aten::add.Tensor"});
}

TEST_F(WrapperTensor, MetaWrappersStayMeta) {
  Tensor w = wrap(empty({2, 3}, TensorOptions().device(kMeta)));
  EXPECT_TRUE(w.is_meta());
  Tensor r = ember::add(w, w).to(kFloat64);
  EXPECT_EQ(take_log(), (Log{"Wrapper:aten::add.Tensor", "Wrapper:aten::_to_copy"}));
  EXPECT_TRUE(r.is_meta());
  EXPECT_TRUE(unwrap(r).is_meta());
  EXPECT_EQ(r.dtype(), kFloat64);
}

TEST_F(WrapperTensor, ModesRunBeforeSubclasses) {
  Tensor w = wrap(full({2}, 2.0));
  Tensor one = ones({2});
  {
    DispatchModeGuard mode(make_intrusive<LogDispatchMode>("mode", Handling::Call));
    Tensor r = ember::add(w, one);
    // The mode passes the call on (it is popped meanwhile) to the subclass, whose own inner
    // call on the plain elem reaches no mode.
    EXPECT_EQ(take_log(), (Log{"mode:aten::add.Tensor", "Wrapper:aten::add.Tensor"}));
    expect_raw(unwrap(r), {2}, {3, 3});
  }
  EXPECT_TRUE(local_state().included.empty());
}

// The acceptance test, with the composites ember has today (tests/cpp/dispatch/
// test_linear_layers.cpp does the same with linear once it exists): an override at the function
// layer sees the public op; one at the dispatch layer (a wrapper subclass with virtual hooks)
// sees the primitive ops it decomposes into.
TEST_F(Layers, FunctionLayerSeesPublicOpsDispatchLayerSeesPrimitives) {
  auto transposed = [] { return make_tensor({1, 2, 3, 4}, {2, 2}, {1, 2}); };  // [[1,2],[3,4]].t()
  Tensor f = testing::function_sub(transposed(), "Fn");
  Tensor d = f.to(kFloat64);
  Tensor c = f.contiguous();
  EXPECT_EQ(take_log(), (Log{"Fn:aten::to.dtype", "Fn:aten::contiguous"}));
  expect_values(d, {2, 2}, {1, 3, 2, 4});
  expect_values(c, {2, 2}, {1, 3, 2, 4});

  Tensor w = wrap(transposed());
  Tensor wd = w.to(kFloat64);
  Tensor wc = w.contiguous();
  EXPECT_EQ(take_log(), (Log{"Wrapper:aten::_to_copy", "Wrapper:aten::clone"}));
  expect_values(unwrap(wd), {2, 2}, {1, 3, 2, 4});
  expect_values(unwrap(wc), {2, 2}, {1, 3, 2, 4});

  // A subclass with both hooks sees both: the public op at the function layer, whose
  // redispatch goes on through the dispatch layer, where the primitives arrive.
  Wrapper::with_function = true;
  Tensor both = wrap(transposed());
  EXPECT_TRUE(both.impl()->keys().has(DispatchKey::FunctionOverride));
  Tensor bd = both.to(kFloat64);
  Tensor bc = both.contiguous();
  EXPECT_EQ(take_log(), (Log{"Wrapper.function:aten::to.dtype", "Wrapper:aten::_to_copy",
                             "Wrapper.function:aten::contiguous", "Wrapper:aten::clone"}));
  expect_values(unwrap(bd), {2, 2}, {1, 3, 2, 4});
  expect_values(unwrap(bc), {2, 2}, {1, 3, 2, 4});
}

TEST_F(Layers, ModesSeeTheSameSplit) {
  Tensor x = make_tensor({1, 2, 3, 4}, {2, 2}, {1, 2});
  FunctionModeGuard fmode(make_intrusive<LogFunctionMode>("function"));
  DispatchModeGuard dmode(make_intrusive<LogDispatchMode>("dispatch"));
  Tensor c = x.contiguous();
  EXPECT_EQ(take_log(), (Log{"function:aten::contiguous", "dispatch:aten::clone"}));
  expect_raw(c, {2, 2}, {1, 3, 2, 4});
}

}  // namespace
}  // namespace ember
