// Backward rules of the binary ops (binary.cpp: add_/sub_, div, remainder, pow, maximum,
// minimum), of clamp / where / masked_fill_ (pointwise.cpp) and of native_dropout (random.cpp):
// gradcheck and gradgradcheck in float64 with broadcast, 0-d, transposed and strided operands,
// values against torch 1.13, grad_fn names, in-place rules, mixed and float32 dtypes.
#include <gtest/gtest.h>

#include <functional>

#include "dispatch/dispatcher.h"
#include "grad_elementwise_util.h"

namespace ember {
namespace {

using grad_testing::expect_gradchecks;
using grad_testing::leaf;
using grad_testing::tensor_list;

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

using Inplace = std::function<void(Tensor&, const Tensor&)>;

struct BinaryCase {
  const char* op;
  Binary fn;
  const char* grad_fn;
  bool positive_self;  // pow: a positive base
  // torch 1.13 at a = kA (or kP), b = kB, grad_output [1, -2, 0.5, 3]: the gradients, and the
  // gradients of their total sum (second derivatives).
  std::vector<double> ga, gb, gga, ggb;
  Inplace op_;  // in-place ops: the op itself (fn applies it to a non-leaf copy of a)
};

const std::vector<double> kA{0.7, -1.3, 2.1, 1.6};
const std::vector<double> kP{0.7, 1.3, 2.1, 1.6};
const std::vector<double> kB{1.5, -2.5, 0.8, -0.6};
// The 2x3 layouts: no ratio a/b near an integer (remainder, rounding division), no ties.
const std::vector<double> kA6{0.7, -1.3, 2.1, 1.6, -0.45, 1.15};
const std::vector<double> kP6{0.7, 1.3, 2.1, 1.6, 0.45, 1.15};
const std::vector<double> kB3{1.5, -2.5, 0.8};
const double kB0 = 0.9;
const std::vector<double> kZero{0.0, 0.0, 0.0, 0.0};

// An out-of-place case, and an in-place one (applied to a non-leaf copy of a).
BinaryCase out_of_place(const char* op, Binary fn, const char* grad_fn, bool positive_self,
                        std::vector<std::vector<double>> g) {
  return {op, std::move(fn), grad_fn, positive_self, g[0], g[1], g[2], g[3], nullptr};
}
BinaryCase in_place(const char* op, Inplace op_, const char* grad_fn, bool positive_self,
                    std::vector<std::vector<double>> g) {
  Binary fn = [op_](const Tensor& a, const Tensor& b) {
    Tensor y = a * 1.0;
    op_(y, b);
    return y;
  };
  return {op, fn, grad_fn, positive_self, g[0], g[1], g[2], g[3], op_};
}

std::vector<BinaryCase> binary_cases() {
  // clang-format off
  const std::vector<std::vector<double>> div{
      {0.6666666666666666, 0.8, 0.625, -5.0},
      {-0.31111111111111106, -0.41600000000000004, -1.640625, -13.333333333333336},
      {-0.4444444444444444, 0.32, -0.78125, -8.333333333333334},
      {-0.029629629629629672, -0.012800000000000034, 3.3203125, -52.77777777777779}};
  const std::vector<std::vector<double>> pow{
      {1.2549900398011133, 1.996035546898109, 0.3448388057592086, -0.8485560473266633},
      {-0.20889096764187384, -0.2723179670187021, 0.6716030682496714, 1.0635317916318616},
      {1.285457981445141, -5.648667677679726, 0.654055504078961, 1.8639917043424883},
      {0.4635426986173188, -0.34617232376449925, 1.1851846922729115, 1.515299458901019}};
  const std::vector<double> go{1.0, -2.0, 0.5, 3.0};
  const std::vector<std::vector<double>> rounded{kZero, kZero, kZero, kZero};
  return {
      in_place("add_(alpha=2)", [](Tensor& a, const Tensor& b) { a.add_(b, 2); }, "AddBackward0", false,
               {go, {2.0, -4.0, 1.0, 6.0}, kZero, kZero}),
      in_place("sub_(alpha=2)", [](Tensor& a, const Tensor& b) { a.sub_(b, 2); }, "SubBackward0", false,
               {go, {-2.0, 4.0, -1.0, -6.0}, kZero, kZero}),
      out_of_place("div", [](const Tensor& a, const Tensor& b) { return a / b; }, "DivBackward0", false, div),
      in_place("div_", [](Tensor& a, const Tensor& b) { a.div_(b); }, "DivBackward0", false, div),
      // rounding_mode=None selects div.Tensor_mode, differentiated as plain division.
      out_of_place("div(rounding_mode=None)", [](const Tensor& a, const Tensor& b) {
        return dispatch::boxed_fn(dispatch::OpId::div_Tensor_mode)({a, b, Value()})[0].to_tensor();
      }, "DivBackward2", false, div),
      in_place("div_(rounding_mode=None)", [](Tensor& a, const Tensor& b) {
        dispatch::boxed_fn(dispatch::OpId::div__Tensor_mode)({a, b, Value()});
      }, "DivBackward2", false, div),
      out_of_place("div(trunc)", [](const Tensor& a, const Tensor& b) { return a.div(b, "trunc"); },
                   "DivBackward2", false, rounded),
      in_place("div_(floor)", [](Tensor& a, const Tensor& b) { a.div_(b, "floor"); }, "DivBackward2", false,
               rounded),
      out_of_place("remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); },
                   "RemainderBackward1", false, {go, {-0.0, 0.0, -1.0, 9.0}, kZero, kZero}),
      in_place("remainder_", [](Tensor& a, const Tensor& b) { a.remainder_(b); }, "RemainderBackward1", false,
               {go, {-0.0, 0.0, -1.0, 9.0}, kZero, kZero}),
      out_of_place("pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); }, "PowBackward1", true, pow),
      in_place("pow_", [](Tensor& a, const Tensor& b) { a.pow_(b); }, "PowBackward1", true, pow),
      in_place("mul_", [](Tensor& a, const Tensor& b) { a.mul_(b); }, "MulBackward0", false,
               {{1.5, 5.0, 0.4, -1.8}, {0.7, 2.6, 1.05, 4.8}, go, go}),
      out_of_place("maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
                   "MaximumBackward0", false, {{0.0, -2.0, 0.5, 3.0}, {1.0, 0.0, 0.0, 0.0}, kZero, kZero}),
      out_of_place("minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
                   "MinimumBackward0", false, {{1.0, 0.0, 0.0, 0.0}, {0.0, -2.0, 0.5, 3.0}, kZero, kZero}),
  };
  // clang-format on
}

Tensor grad_output() { return testing::from_values({1.0, -2.0, 0.5, 3.0}, {4}, kFloat64); }

TEST(GradElementwiseBinary, GradcheckAndGradgradcheck) {
  for (const BinaryCase& c : binary_cases()) {
    const Binary fn = c.fn;
    const std::string op = c.op;
    auto f = [fn](const tensor_list& in) { return tensor_list{fn(in[0], in[1])}; };
    const std::vector<double>& a4 = c.positive_self ? kP : kA;
    const std::vector<double>& a6 = c.positive_self ? kP6 : kA6;
    expect_gradchecks(f, {leaf(a4, {4}), leaf(kB, {4})}, op + " contiguous");
    expect_gradchecks(f, {grad_testing::transposed_leaf(a6, 2, 3), leaf(kB3, {3})},
                      op + " transposed, broadcast");
    expect_gradchecks(f, {leaf(a6, {2, 3}), leaf({kB0}, {})}, op + " 0-d other");
    expect_gradchecks(f, {grad_testing::strided_leaf(a4), grad_testing::strided_leaf(kB)},
                      op + " strided");
    // other broadcast through expand (stride 0) and a transposed other.
    auto expanded = [fn](const tensor_list& in) {
      return tensor_list{fn(in[0], in[1].expand({2, 3}))};
    };
    expect_gradchecks(expanded, {leaf(a6, {2, 3}), leaf(kB3, {1, 3})}, op + " expanded other");
    expect_gradchecks(
        f,
        {leaf(a6, {2, 3}), grad_testing::transposed_leaf({1.5, -2.5, 0.8, 1.1, -0.7, 0.6}, 2, 3)},
        op + " transposed other");
    // Only one operand requiring grad.
    expect_gradchecks(f, {leaf(a4, {4}), testing::from_values(kB, {4}, kFloat64)},
                      op + " self only");
    expect_gradchecks(f, {testing::from_values(a4, {4}, kFloat64), leaf(kB, {4})},
                      op + " other only");
  }
}

// In place on a view of a non-leaf: the base's history becomes CopySlices over the rule.
// CopySlices builds the base's gradient with copy_, clone and as_strided, so its own backward
// (the second derivative) needs their rules (other op families'); until they exist only the
// first derivative is checked here.
TEST(GradElementwiseBinary, InplaceOnView) {
  const bool copy_slices_differentiable = dispatch::autograd_slot(dispatch::OpId::copy_).fn &&
                                          dispatch::autograd_slot(dispatch::OpId::clone).fn &&
                                          dispatch::autograd_slot(dispatch::OpId::as_strided).fn;
  for (const BinaryCase& c : binary_cases()) {
    if (!c.op_) continue;
    const Inplace op_ = c.op_;
    auto f = [op_](const tensor_list& in) {
      Tensor y = in[0] * 1.0;
      Tensor v = y.unsqueeze(0);  // a view with its own grad_fn
      op_(v, in[1]);
      EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
      return tensor_list{y};
    };
    const std::vector<double>& a6 = c.positive_self ? kP6 : kA6;
    const std::vector<tensor_list> inputs{
        {leaf(a6, {2, 3}), leaf(kB3, {3})},
        {leaf(a6, {2, 3}), testing::from_values(kB3, {3}, kFloat64)},
        {testing::from_values(a6, {2, 3}, kFloat64), leaf(kB3, {3})}};
    for (const tensor_list& in : inputs) {
      const std::string what = std::string(c.op) + " on a view";
      if (copy_slices_differentiable) {
        expect_gradchecks(f, in, what);
      } else {
        EXPECT_TRUE(autograd::gradcheck(f, in)) << what;
      }
    }
    // A view made by an op without a rule of its own yet (slice): backward() alone.
    Tensor x = leaf(a6, {2, 3}), w = leaf(kB3, {3});
    Tensor y = x * 1.0;
    Tensor v = y.slice(0, 1, 2);
    op_(v, w);
    y.sum().backward();
    // The same op on row 1 alone; row 0 passes its gradient through.
    Tensor x_row = leaf({a6[3], a6[4], a6[5]}, {1, 3}), w2 = leaf(kB3, {3});
    Tensor y_row = x_row * 1.0;
    op_(y_row, w2);
    y_row.sum().backward();
    std::vector<double> expected{1, 1, 1};
    for (double g : testing::values(x_row.grad())) expected.push_back(g);
    testing::expect_values(x.grad(), {2, 3}, expected);
    testing::expect_values(w.grad(), {3}, testing::values(w2.grad()));
  }
}

// Out-of-place ops also broadcast self up to other's shape.
TEST(GradElementwiseBinary, BroadcastSelf) {
  for (const BinaryCase& c : binary_cases()) {
    if (c.op_) continue;  // in place: self keeps its shape
    const Binary fn = c.fn;
    auto f = [fn](const tensor_list& in) { return tensor_list{fn(in[0], in[1])}; };
    const std::vector<double> self3 =
        c.positive_self ? std::vector<double>{0.7, 1.3, 2.1} : std::vector<double>{0.7, -1.3, 2.1};
    expect_gradchecks(f, {leaf(self3, {3}), leaf({1.5, -2.5, 0.8, 1.1, -0.7, 0.6}, {2, 3})},
                      std::string(c.op) + " broadcast self");
    expect_gradchecks(f, {leaf({c.positive_self ? 1.3 : -1.3}, {}), leaf(kB, {4})},
                      std::string(c.op) + " 0-d self");
  }
}

TEST(GradElementwiseBinary, ValuesAndNamesMatchTorch) {
  for (const BinaryCase& c : binary_cases()) {
    SCOPED_TRACE(c.op);
    Tensor a = leaf(c.positive_self ? kP : kA, {4}), b = leaf(kB, {4});
    Tensor y = c.fn(a, b);
    EXPECT_EQ(y.grad_fn()->name(), c.grad_fn);
    tensor_list g =
        autograd::grad({y}, {a, b}, {grad_output()}, std::nullopt, /*create_graph=*/true);
    testing::expect_values(g[0], {4}, c.ga, 1e-6, 1e-12);
    testing::expect_values(g[1], {4}, c.gb, 1e-6, 1e-12);
    Tensor total = g[0].sum() + g[1].sum();
    tensor_list gg{zeros_like(a), zeros_like(b)};
    if (total.requires_grad()) {
      gg = autograd::grad({total}, {a, b}, {}, std::nullopt, false, /*allow_unused=*/true);
      for (auto& t : gg)
        if (!t.defined()) t = zeros({4}, kFloat64);
    }
    testing::expect_values(gg[0], {4}, c.gga, 1e-6, 1e-12);
    testing::expect_values(gg[1], {4}, c.ggb, 1e-6, 1e-12);
  }
}

TEST(GradElementwiseBinary, Float32AndMixedDtypes) {
  for (const BinaryCase& c : binary_cases()) {
    SCOPED_TRACE(c.op);
    Tensor a = testing::from_values(c.positive_self ? kP : kA, {4}, kFloat32).requires_grad_();
    Tensor b = testing::from_values(kB, {4}, kFloat32).requires_grad_();
    c.fn(a, b).backward(grad_output().to(kFloat32));
    EXPECT_EQ(a.grad().dtype(), kFloat32);
    EXPECT_EQ(b.grad().dtype(), kFloat32);
    testing::expect_values(a.grad(), {4}, c.ga, 1e-5, 1e-6);
    testing::expect_values(b.grad(), {4}, c.gb, 1e-5, 1e-6);
  }
  // float32 / float64: a float64 result; each operand's gradient in its own dtype (torch 1.13).
  Tensor x = testing::from_values({0.7, -1.3, 2.1}, {3}, kFloat32).requires_grad_();
  Tensor w = leaf({1.5, -2.5, 0.8}, {3});
  Tensor y = x / w;
  EXPECT_EQ(y.dtype(), kFloat64);
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_EQ(w.grad().dtype(), kFloat64);
  testing::expect_values(x.grad(), {3}, {0.6666666865348816, -0.4000000059604645, 1.25});
  testing::expect_values(w.grad(), {3},
                         {-0.31111110581292045, 0.20799999237060546, -3.281249850988388});
  // An integer divisor never requires grad.
  Tensor z = leaf({1.0, 3.0}, {2});
  (z / testing::from_values({2, 4}, {2}, kInt64)).sum().backward();
  testing::expect_values(z.grad(), {2}, {0.5, 0.25});
}

TEST(GradElementwiseBinary, EmptyAndMetaOperands) {
  for (const BinaryCase& c : binary_cases()) {
    SCOPED_TRACE(c.op);
    Tensor a = empty({0, 3}, kFloat64).requires_grad_(), b = leaf(kB3, {3});
    c.fn(a, b).sum().backward();
    EXPECT_EQ(a.grad().sizes(), IntArrayRef({0, 3}));
    testing::expect_values(b.grad(), {3}, {0, 0, 0});  // nothing to sum
    const TensorOptions meta = TensorOptions(kFloat32).device(kMeta);
    Tensor ma = empty({2, 3}, meta).requires_grad_(), mb = empty({3}, meta).requires_grad_();
    Tensor y = c.fn(ma, mb);
    EXPECT_TRUE(y.is_meta());
    EXPECT_EQ(y.sizes(), IntArrayRef({2, 3}));
    EXPECT_EQ(y.grad_fn()->name(), c.grad_fn);
  }
}

// Python numbers arrive as wrapped 0-d tensors; PyTorch's Scalar overloads name some nodes.
TEST(GradElementwiseBinary, ScalarOperands) {
  Tensor x = leaf({0.5, -1.25, 2.0}, {3});
  EXPECT_EQ((x / 2).grad_fn()->name(), "DivBackward0");
  EXPECT_EQ(x.div(2, "floor").grad_fn()->name(), "DivBackward2");
  EXPECT_EQ((x % 2).grad_fn()->name(), "RemainderBackward0");
  EXPECT_EQ(x.remainder(testing::from_values({2.0}, {}, kFloat64)).grad_fn()->name(),
            "RemainderBackward1");
  Tensor p = pow(wrapped_scalar_tensor(2.0), x);
  EXPECT_EQ(p.grad_fn()->name(), "PowBackward2");
  p.sum().backward();
  testing::expect_values(x.grad(), {3},
                         {0.9802581434685472, 0.2914324896880386, 2.772588722239781});
  x.set_grad(Tensor());
  (x / 4).sum().backward();
  testing::expect_values(x.grad(), {3}, {0.25, 0.25, 0.25});
  x.set_grad(Tensor());
  (x % 2).sum().backward();
  testing::expect_values(x.grad(), {3}, {1, 1, 1});
  expect_gradchecks(
      [](const tensor_list& in) { return tensor_list{pow(wrapped_scalar_tensor(2.0), in[0])}; },
      {leaf({0.5, -1.25, 2.0}, {3})}, "2 ** x");
  expect_gradchecks([](const tensor_list& in) { return tensor_list{in[0] / 3 + in[0] % 0.75}; },
                    {leaf({0.5, -1.25, 2.0}, {3})}, "x / 3 + x % 0.75");
}

TEST(GradElementwiseBinary, PowTensorScalar) {
  const std::vector<std::tuple<double, std::vector<double>, std::vector<double>>> cases{
      {2.5,
       {1.464155046434632, -7.411140263144397, 3.8039863958747278, 15.178932768808224},
       {3.137475099502783, -8.551315688243534, 2.7171331399105196, 14.230249470757707}},
      {3,
       {1.4699999999999998, -10.14, 6.615, 23.040000000000006},
       {4.199999999999999, -15.600000000000001, 6.300000000000001, 28.8}},
      {-1.5,
       {-3.6588630897991647, 1.5569077265805251, -0.11735808832352962, -1.3896727998786822},
       {13.06736817785416, -2.9940533203471635, 0.13971200990896382, 2.171363749810441}},
      {0, kZero, kZero},
      {1, {1.0, -2.0, 0.5, 3.0}, kZero}};
  for (const auto& [e, grad, gradgrad] : cases) {
    SCOPED_TRACE(e);
    const Scalar exponent = e == 3 ? Scalar(int64_t{3}) : Scalar(e);
    Tensor x = leaf(kP, {4});
    EXPECT_EQ(x.pow(exponent).grad_fn()->name(), "PowBackward0");
    auto [g, gg] = grad_testing::first_and_second(x.pow(exponent), x, grad_output());
    testing::expect_values(g, {4}, grad, 1e-6, 1e-12);
    testing::expect_values(gg, {4}, gradgrad, 1e-6, 1e-12);
    auto f = [exponent](const tensor_list& in) { return tensor_list{in[0].pow(exponent)}; };
    auto f_ = [exponent](const tensor_list& in) {
      Tensor y = in[0] * 1.0;
      return tensor_list{y.pow_(exponent)};
    };
    expect_gradchecks(f, {grad_testing::transposed_leaf(kP6, 2, 3)}, "pow(Scalar) transposed");
    expect_gradchecks(f, {leaf({1.7}, {})}, "pow(Scalar) 0-d");
    expect_gradchecks(f_, {grad_testing::strided_leaf(kP)}, "pow_(Scalar) strided");
    Tensor y = x * 1.0;
    y.pow_(exponent);
    EXPECT_EQ(y.grad_fn()->name(), "PowBackward0");
  }
}

// PyTorch's masking: d/dbase is 0 where exponent == 0; d/dexponent is 0 where base == 0 and
// exponent >= 0 (else result * log(base), -inf at base 0).
TEST(GradElementwiseBinary, PowAtZeroAsTorch) {
  const double inf = INFINITY, nan = std::nan("");
  Tensor b = leaf({0., 0., 0., 2., -2.}, {5});
  Tensor e = leaf({0., -1., 2., 0., 0.5}, {5});
  b.pow(e).sum().backward();
  testing::expect_values(b.grad(), {5}, {0, -inf, 0, 0, nan});
  testing::expect_values(e.grad(), {5}, {0, -inf, 0, 0.6931471805599453, nan});
  Tensor e2 = leaf({0., -1., 2., 0., 0.5}, {5});
  pow(wrapped_scalar_tensor(0.0), e2).sum().backward();
  testing::expect_values(e2.grad(), {5}, {0, -inf, 0, 0, 0});
  Tensor b2 = leaf({0., 0., 2.}, {3});
  b2.pow(0).sum().backward();  // zeros, even at 0
  testing::expect_values(b2.grad(), {3}, {0, 0, 0});
  b2.set_grad(Tensor());
  b2.pow(-1.0).sum().backward();
  testing::expect_values(b2.grad(), {3}, {-inf, -inf, -0.25});
}

TEST(GradElementwiseBinary, MaximumMinimumTiesAndNaN) {
  Tensor a = leaf({1., 2., 3.}, {3}), b = leaf({1., 3., 2.}, {3});
  maximum(a, b).sum().backward();
  testing::expect_values(a.grad(), {3}, {0.5, 0, 1});
  testing::expect_values(b.grad(), {3}, {0.5, 1, 0});
  a.set_grad(Tensor());
  b.set_grad(Tensor());
  minimum(a, b).sum().backward();
  testing::expect_values(a.grad(), {3}, {0.5, 1, 0});
  testing::expect_values(b.grad(), {3}, {0.5, 0, 1});
  const double nan = std::nan("");
  Tensor n = leaf({nan, 1.}, {2}), o = leaf({1., nan}, {2});
  maximum(n, o).sum().backward();
  testing::expect_values(n.grad(), {2}, {1, 1});
  testing::expect_values(o.grad(), {2}, {1, 1});
}

TEST(GradElementwiseBinary, InplaceRules) {
  Tensor x = leaf({1., 2.}, {2}), w = leaf({3., 4.}, {2});
  const std::string leaf_msg =
      "a leaf Variable that requires grad is being used in an in-place operation.";
  testing::expect_error([&] { x.add_(w); }, leaf_msg);
  testing::expect_error([&] { x.sub_(1); }, leaf_msg);
  testing::expect_error([&] { x.div_(w); }, leaf_msg);
  testing::expect_error([&] { x.div_(w, "trunc"); }, leaf_msg);
  testing::expect_error([&] { x.remainder_(w); }, leaf_msg);
  testing::expect_error([&] { x.pow_(w); }, leaf_msg);
  testing::expect_error([&] { x.pow_(2); }, leaf_msg);
  testing::expect_values(x, {2}, {1, 2});
  // A plain tensor written with a value that requires grad joins the graph.
  Tensor z = zeros({2}, kFloat64);
  z.add_(w, 3);
  EXPECT_EQ(z.grad_fn()->name(), "AddBackward0");
  (z * z).sum().backward();
  testing::expect_values(w.grad(), {2}, {54, 72});  // d (3w)^2 = 18 w
  // div_ saves other: writing it afterwards is an error; self's old value is a copy.
  Tensor v = w * 1.0;
  Tensor y = x * 1.0;
  y.div_(v);
  y.add_(1);
  v.mul_(2);
  testing::expect_error(
      [&] { y.sum().backward(); },
      "one of the variables needed for gradient computation has been modified by an "
      "inplace operation: [ember.DoubleTensor [2]]");
  // In place on a view: gradients flow through CopySlices.
  Tensor base = x * 1.0;
  base.slice(0, 1, 2).pow_(3);
  base.sum().backward();
  testing::expect_values(x.grad(), {2}, {1, 12});
}

}  // namespace
}  // namespace ember
