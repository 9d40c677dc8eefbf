// pad (constant, reflect, replicate) and interpolate (nearest, bilinear) against torch 1.13
// (normpool_expected.h): values, gradients, layouts, meta, errors, gradcheck.
#include <gtest/gtest.h>

#include "normpool_testing.h"

namespace ember {
namespace {

namespace E = normpool_expected;
using namespace normpool_testing;

TEST(Pad, ValuesAndGradients) {
  expect_forward_backward([](const tensor_list& in) { return pad(in[0], {2, 1, 1, 2}, "reflect"); },
                          {wave({1, 2, 3, 4})}, E::pad_reflect_out, {E::pad_reflect_g0});
  expect_forward_backward([](const tensor_list& in) { return pad(in[0], {3, -1, 2, 0}, "replicate"); },
                          {wave({1, 2, 3, 4})}, E::pad_replicate_out, {E::pad_replicate_g0});
  expect_forward_backward([](const tensor_list& in) { return pad(in[0], {1, -2, 2, 1}, "constant", 0.5); },
                          {wave({1, 2, 3, 4})}, E::pad_constant_out, {E::pad_constant_g0});
  expect_forward_backward([](const tensor_list& in) { return pad(in[0], {2, 3}, "reflect"); },
                          {wave({2, 5})}, E::pad_reflect1d_out, {E::pad_reflect1d_g0});
  expect_forward_backward([](const tensor_list& in) { return pad(in[0], {2, 3}, "replicate"); },
                          {wave({2, 2, 5})}, E::pad_replicate1d_out, {E::pad_replicate1d_g0});
  Tensor x = wave({1, 2, 3, 4}).requires_grad_();
  EXPECT_EQ(pad(x, {1, 1}).grad_fn()->name(), "ConstantPadNdBackward0");
  EXPECT_EQ(pad(x, {1, 1, 1, 1}, "reflect").grad_fn()->name(), "ReflectionPad2DBackward0");
  EXPECT_EQ(pad(x, {1, 1, 1, 1}, "replicate").grad_fn()->name(), "ReplicationPad2DBackward0");
  EXPECT_EQ(pad(x.select(0, 0), {1, 1}, "reflect").grad_fn()->name(), "ReflectionPad1DBackward0");
}

TEST(Pad, LayoutsDtypesMeta) {
  for (const char* mode : {"constant", "reflect", "replicate"}) {
    SCOPED_TRACE(mode);
    Tensor x = wave({2, 3, 4, 5});
    const std::vector<int64_t> p{1, 2, 3, 1};
    Tensor ref = pad(x, p, mode);
    testing::expect_values(pad(channels_last(x), p, mode), ref.sizes(), testing::values(ref), 0, 0);
    testing::expect_values(pad(strided(x), p, mode), ref.sizes(), testing::values(ref), 0, 0);
    testing::expect_values(pad(x.to(kFloat32), p, mode), ref.sizes(), testing::values(ref), 1e-6, 1e-6);
    Tensor m = pad(empty({2, 3, 4, 5}, TensorOptions(kFloat32).device(kMeta)), p, mode);
    EXPECT_TRUE(m.is_meta());
    EXPECT_EQ(m.sizes().vec(), ref.sizes().vec());
  }
  // constant padding works on any dtype and any rank
  Tensor i = pad(testing::iota({2, 2}, kInt64), {1, 0, 0, 1}, "constant", 7);
  testing::expect_values(i, {3, 3}, {7, 0, 1, 7, 2, 3, 7, 7, 7}, 0, 0);
  EXPECT_EQ(i.dtype(), kInt64);
}

TEST(Pad, Errors) {
  using testing::expect_error;
  Tensor x = wave({1, 2, 3, 3});
  expect_error([&] { pad(x, {1, 1, 1}); }, "Padding length must be divisible by 2");
  expect_error([&] { pad(x, std::vector<int64_t>(10, 1)); }, "Padding length too large");
  expect_error([&] { pad(x, {1, 1}, "foo"); }, "Unrecognised padding mode foo", ErrorKind::NotImplemented);
  expect_error([&] { pad(x, {1, 1}, "reflect", 2.0); }, "Padding mode \"reflect\" doesn't take in value argument");
  expect_error([&] { pad(x, {3, 3, 1, 1}, "reflect"); },
               "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at dimension 3 of input 4");
  expect_error([&] { pad(x, {1, 1, 3, 3}, "reflect"); },
               "Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at dimension 2 of input 4");
  expect_error([&] { pad(wave({1, 0, 3, 3}), {1, 1, 1, 1}, "replicate"); },
               "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: [1, 0, 3, 3]");
  expect_error([&] { pad(x.to(kInt64), {1, 1, 1, 1}, "reflect"); }, "\"reflection_pad2d\" not implemented for 'Long'");
  expect_error([&] { constant_pad_nd(x, {1, 1, 1}); }, "Length of pad must be even but instead it equals 3");
  expect_error([&] { constant_pad_nd(x, {-5, 1}); },
               "The input size 3, plus negative padding -5 and 1 resulted in a negative output size, which is invalid. Check dimension 3 of your input.");
}

TEST(Interpolate, ValuesAndGradients) {
  using V = std::vector<double>;
  using S = std::vector<int64_t>;
  const Tensor x = wave({1, 2, 3, 4});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], std::nullopt, V{2.0}, "nearest"); },
                          {x}, E::near_scale_out, {E::near_scale_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], S{5, 7}, std::nullopt, "nearest"); },
                          {x}, E::near_size_out, {E::near_size_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], std::nullopt, V{1.7}, "nearest"); },
                          {x}, E::near_frac_out, {E::near_frac_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], S{5, 7}, std::nullopt, "bilinear", false); },
                          {x}, E::bil_out, {E::bil_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], S{5, 7}, std::nullopt, "bilinear", true); },
                          {x}, E::bil_ac_out, {E::bil_ac_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], std::nullopt, V{1.5}, "bilinear"); },
                          {x}, E::bil_scale_out, {E::bil_scale_g0});
  expect_forward_backward([](const tensor_list& in) { return interpolate(in[0], S{2, 3}, std::nullopt, "bilinear"); },
                          {x}, E::bil_down_out, {E::bil_down_g0});
  Tensor r = wave({1, 2, 3, 4}).requires_grad_();
  EXPECT_EQ(interpolate(r, S{6, 8}, std::nullopt).grad_fn()->name(), "UpsampleNearest2DBackward0");
  EXPECT_EQ(interpolate(r, S{6, 8}, std::nullopt, "bilinear").grad_fn()->name(), "UpsampleBilinear2DBackward0");
}

TEST(Interpolate, LayoutsDtypesMetaErrors) {
  using V = std::vector<double>;
  using S = std::vector<int64_t>;
  for (const char* mode : {"nearest", "bilinear"}) {
    SCOPED_TRACE(mode);
    Tensor x = wave({2, 3, 4, 5});
    Tensor ref = interpolate(x, S{7, 9}, std::nullopt, mode);
    testing::expect_values(interpolate(channels_last(x), S{7, 9}, std::nullopt, mode), ref.sizes(), testing::values(ref), 1e-12, 1e-12);
    testing::expect_values(interpolate(strided(x), S{7, 9}, std::nullopt, mode), ref.sizes(), testing::values(ref), 1e-12, 1e-12);
    testing::expect_values(interpolate(x.to(kFloat32), S{7, 9}, std::nullopt, mode), ref.sizes(), testing::values(ref), 1e-5, 1e-5);
    Tensor m = interpolate(empty({2, 3, 4, 5}, TensorOptions(kFloat32).device(kMeta)), std::nullopt, V{2.0}, mode);
    EXPECT_TRUE(m.is_meta());
    EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 3, 8, 10}));
  }
  using testing::expect_error;
  Tensor x = wave({1, 2, 3, 4});
  expect_error([&] { interpolate(x, S{2, 2}, V{2.0}); }, "only one of size or scale_factor should be defined", ErrorKind::Value);
  expect_error([&] { interpolate(x, std::nullopt, std::nullopt); }, "either size or scale_factor should be defined", ErrorKind::Value);
  expect_error([&] { interpolate(x, S{2, 2}, std::nullopt, "nearest", true); },
               "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
               ErrorKind::Value);
  expect_error([&] { interpolate(x, S{2, 2, 2}, std::nullopt); },
               "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 4] and output size of [2, 2, 2]",
               ErrorKind::Value);
  expect_error([&] { upsample_nearest2d(x, {0, 4}); },
               "Input and output sizes should be greater than 0, but got input (H: 3, W: 4) output (H: 0, W: 4)");
}

TEST(GradPadInterp, GradcheckAndDoubleBackward) {
  using S = std::vector<int64_t>;
  using V = std::vector<double>;
  const std::vector<std::function<Tensor(const Tensor&)>> fns = {
      [](const Tensor& x) { return pad(x, {2, 1, 1, 2}, "reflect"); },
      [](const Tensor& x) { return pad(x, {2, -1, 0, 2}, "replicate"); },
      [](const Tensor& x) { return pad(x, {1, -1, 2, 1}, "constant", 0.5); },
      [](const Tensor& x) { return pad(x.flatten(0, 1), {2, 1}, "reflect"); },
      [](const Tensor& x) { return pad(x.flatten(0, 1), {2, 1}, "replicate"); },
      [](const Tensor& x) { return interpolate(x, S{5, 3}, std::nullopt, "nearest"); },
      [](const Tensor& x) { return interpolate(x, std::nullopt, V{1.5, 2.0}, "bilinear"); },
      [](const Tensor& x) { return interpolate(x, S{4, 5}, std::nullopt, "bilinear", true); },
  };
  for (size_t i = 0; i < fns.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const auto& f = fns[i];
    auto g = [&](const tensor_list& in) { return tensor_list{f(in[0])}; };
    expect_gradchecks(g, {wave({1, 2, 3, 4})});
    expect_gradchecks(g, {channels_last(wave({2, 2, 3, 3}))});
  }
}

}  // namespace
}  // namespace ember
