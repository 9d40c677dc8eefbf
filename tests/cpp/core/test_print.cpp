// Printing. Every expected string is PyTorch 1.13's repr of the same tensor (torch. -> ember.);
// tests/python/core/test_repr_vs_torch.py checks a few hundred more against torch directly.
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "ember/quantized/tensor.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;

/// A contiguous tensor of `dtype` holding `values` (row-major).
Tensor make(const std::vector<double>& values, IntArrayRef sizes, ScalarType dtype = kFloat32) {
  Tensor t = empty(sizes, dtype);
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data_ptr<T>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

std::vector<double> iota(int64_t n, double scale = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) * scale;
  return v;
}

TEST(Print, FloatModes) {
  EXPECT_EQ(to_string(make({1, 2, 3}, {3})), "tensor([1., 2., 3.])");
  EXPECT_EQ(to_string(make({1.5, -2.25, 3, 0.125, 10, -7}, {2, 3})),
            "tensor([[ 1.5000, -2.2500,  3.0000],\n"
            "        [ 0.1250, 10.0000, -7.0000]])");
  EXPECT_EQ(to_string(make({1e-5, 1.0, 123.0}, {3})),
            "tensor([1.0000e-05, 1.0000e+00, 1.2300e+02])");
}

TEST(Print, IntegersAndBool) {
  EXPECT_EQ(to_string(make({0, 1, 2}, {3}, kInt64)), "tensor([0, 1, 2])");
  EXPECT_EQ(to_string(make({-3, 100, 7}, {3}, kInt32)), "tensor([ -3, 100,   7], dtype=ember.int32)");
  EXPECT_EQ(to_string(make({-128, 0, 127}, {3}, kInt8)),
            "tensor([-128,    0,  127], dtype=ember.int8)");
  EXPECT_EQ(to_string(make({0, 255}, {2}, kUInt8)), "tensor([  0, 255], dtype=ember.uint8)");
  EXPECT_EQ(to_string(make({1, 0}, {2}, kBool)), "tensor([ True, False])");
  EXPECT_EQ(to_string(make(iota(8), {2, 2, 2}, kInt64)),
            "tensor([[[0, 1],\n"
            "         [2, 3]],\n"
            "\n"
            "        [[4, 5],\n"
            "         [6, 7]]])");
}

TEST(Print, ZeroDim) {
  EXPECT_EQ(to_string(scalar_tensor(3.0)), "tensor(3.)");
  EXPECT_EQ(to_string(scalar_tensor(-2.5, kFloat64)), "tensor(-2.5000, dtype=ember.float64)");
  EXPECT_EQ(to_string(scalar_tensor(7)), "tensor(7)");
}

TEST(Print, Empty) {
  EXPECT_EQ(to_string(zeros({0})), "tensor([])");
  EXPECT_EQ(to_string(empty({0, 3})), "tensor([], size=(0, 3))");
  EXPECT_EQ(to_string(empty({0}, kInt64)), "tensor([], dtype=ember.int64)");
  EXPECT_EQ(to_string(empty({2, 0}, kFloat16)), "tensor([], size=(2, 0), dtype=ember.float16)");
}

TEST(Print, Meta) {
  TensorOptions meta = TensorOptions().device(kMeta);
  EXPECT_EQ(to_string(zeros({5, 3}, meta)), "tensor(..., device='meta', size=(5, 3))");
  EXPECT_EQ(to_string(zeros({}, meta)), "tensor(..., device='meta', size=())");
  EXPECT_EQ(to_string(zeros({4}, meta.dtype(kInt64))),
            "tensor(..., device='meta', size=(4,), dtype=ember.int64)");
}

TEST(Print, InfAndNan) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(to_string(make({inf, -inf, NAN, 1.5}, {4})), "tensor([   inf,   -inf,    nan, 1.5000])");
  EXPECT_EQ(to_string(make({inf, 2}, {2})), "tensor([inf, 2.])");
  EXPECT_EQ(to_string(make({-NAN, 1.5}, {2})), "tensor([   nan, 1.5000])");  // never "-nan"
}

TEST(Print, SummarisesPastThreshold) {
  EXPECT_EQ(to_string(make(iota(1001), {1001}, kInt64)),
            "tensor([   0,    1,    2,  ...,  998,  999, 1000])");
  EXPECT_EQ(to_string(make(iota(2000), {2, 1000})),
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
            "         9.9900e+02],\n"
            "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
            "         1.9990e+03]])");
}

TEST(Print, WrapsLongRows) {
  std::vector<double> v(30);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) / 3;
  EXPECT_EQ(to_string(make(v, {30}, kFloat64)),
            "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
            "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
            "        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n"
            "        9.0000, 9.3333, 9.6667], dtype=ember.float64)");
}

TEST(Print, NonContiguous) {
  float data[12];
  std::iota(data, data + 12, 0.f);
  // The transpose of a 2x3 [[0, 1, 2], [3, 4, 5]].
  EXPECT_EQ(to_string(from_blob(data, {3, 2}, {1, 3}, kFloat32)),
            "tensor([[0., 3.],\n"
            "        [1., 4.],\n"
            "        [2., 5.]])");
  // Every other column of a 2x6, starting one element in.
  EXPECT_EQ(to_string(from_blob(data + 1, {2, 3}, {6, 2}, kFloat32)),
            "tensor([[ 1.,  3.,  5.],\n"
            "        [ 7.,  9., 11.]])");
  // A row broadcast down a zero stride.
  EXPECT_EQ(to_string(from_blob(data + 1, {2, 2}, {0, 1}, kFloat32)),
            "tensor([[1., 2.],\n"
            "        [1., 2.]])");
}

TEST(Print, ReducedFloats) {
  EXPECT_EQ(to_string(ones({2}, kBFloat16)), "tensor([1., 1.], dtype=ember.bfloat16)");
  EXPECT_EQ(to_string(make({0.1, 65504}, {2}, kFloat16)),
            "tensor([9.9976e-02, 6.5504e+04], dtype=ember.float16)");
}

TEST(Print, OptionsAndDefaultDtype) {
  PrintOptions saved = print_options();
  print_options().precision = 2;
  EXPECT_EQ(to_string(make({3.14159, 2.71828}, {2})), "tensor([3.14, 2.72])");
  print_options() = saved;

  set_default_dtype(kFloat64);
  EXPECT_EQ(to_string(make({1.5}, {1}, kFloat64)), "tensor([1.5000])");
  EXPECT_EQ(to_string(make({1.5}, {1}, kFloat32)), "tensor([1.5000], dtype=ember.float32)");
  EXPECT_EQ(to_string(empty({0}, kFloat32)), "tensor([], dtype=ember.float32)");
  EXPECT_EQ(to_string(zeros({2}, TensorOptions(kFloat32).device(kMeta))),
            "tensor(..., device='meta', size=(2,), dtype=ember.float32)");
  set_default_dtype(kFloat32);
}

TEST(Print, StreamAndMethodAgree) {
  Tensor t = make({1, 2}, {2}, kInt16);
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), "tensor([1, 2], dtype=ember.int16)");
  EXPECT_EQ(t.to_string(), os.str());
  EXPECT_EQ(to_string(Tensor()), "[ Tensor (undefined) ]");
}

TEST(Print, Quantized) {
  // PyTorch's form (the quantized tensor tests compare many more against torch 1.13).
  Tensor q = quantize_per_tensor(full({2}, 0.5), 0.1, 3, kQUInt8);
  EXPECT_EQ(to_string(q),
            "tensor([0.5000, 0.5000], size=(2,), dtype=ember.quint8,\n"
            "       quantization_scheme=ember.per_tensor_affine, scale=0.1, zero_point=3)");
  // A quantized dtype without a quantizer (a plain factory made it): PyTorch's UnknownQuantizer.
  Tensor u = empty({2}, kQUInt8);
  expect_error([&] { to_string(u); }, "cannot call qscheme on UnknownQuantizer");
}

}  // namespace
}  // namespace ember
