// Quantized tensors: quantize / dequantize numerics (quantization-spec § 1.2, § 11 items 1-8 and
// 86), the fast loops against their scalar references, the qparam accessors, the empty / make
// constructors, the QuantizedCPU key and the engine setting.
#include <cmath>
#include <limits>
#include <random>

#include "ember/quantized/tensor.h"
#include "quant/quantize_kernels.h"
#include "quant/quantizer.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::from_values;
using testing::values;

std::vector<double> codes(const Tensor& q) { return values(int_repr(q)); }

TEST(QTensor, TiesGoToEven) {  // item 1
  Tensor x = from_values({0.5, 1.5, 2.5, -0.5, -1.5}, {5});
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 0, kQInt8)), (std::vector<double>{0, 2, 2, 0, -2}));
}

TEST(QTensor, MultipliesByTheFloatReciprocal) {  // item 2
  Tensor x = from_values({0.273939937}, {1});
  EXPECT_EQ(codes(quantize_per_tensor(x, 0.00214854861, 0, kQUInt8)), std::vector<double>{128});
}

TEST(QTensor, SaturatesToTheDtypeRange) {  // item 3
  Tensor x = from_values({300, -300}, {2});
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 10, kQUInt8)), (std::vector<double>{255, 0}));
}

TEST(QTensor, ZeroPointOutOfRange) {  // item 4
  Tensor x = from_values({1}, {1});
  expect_error([&] { quantize_per_tensor(x, 0.1, 300, kQUInt8); },
               "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.");
  expect_error([&] { quantize_per_tensor(x, 0.1, -129, kQInt8); },
               "quantize_tensor_per_tensor_affine zero_point -129 is below lower bound.");
}

TEST(QTensor, DequantizeIsOneFloatMultiply) {  // item 5
  Tensor q = _make_per_tensor_quantized_tensor(from_values({200}, {1}, kUInt8), 0.0235, 128);
  Tensor d = dequantize(q);
  EXPECT_EQ(d.dtype(), kFloat32);
  EXPECT_EQ(d.data_ptr<float>()[0], 72.0f * static_cast<float>(0.0235));
}

TEST(QTensor, PerChannelParameters) {  // item 6
  Tensor w = from_values({0.5, 1.5, 2.5, -0.5, -1.5, 1e30}, {2, 3});
  Tensor s = from_values({1.0, 0.5}, {2}, kFloat64);
  Tensor z = from_values({0, 3}, {2}, kInt64);
  Tensor q = quantize_per_channel(w, s, z, 0, kQInt8);
  EXPECT_EQ(qscheme(q), QScheme::PerChannelAffine);
  EXPECT_EQ(q.q_per_channel_scales().dtype(), kFloat64);
  EXPECT_EQ(q.q_per_channel_zero_points().dtype(), kInt64);
  EXPECT_EQ(q_per_channel_axis(q), 0);
  EXPECT_EQ(codes(q), (std::vector<double>{0, 2, 2, 2, 0, -128}));  // torch 1.13's codes
  EXPECT_EQ(values(dequantize(q)), (std::vector<double>{0, 2, 2, -0.5, -1.5, -65.5}));
  // float scales / int32 zero points are converted, as PyTorch does
  Tensor q2 = quantize_per_channel(w, s.to(kFloat32), z.to(kInt32), 0, kQInt8);
  EXPECT_EQ(q2.q_per_channel_scales().dtype(), kFloat64);
  EXPECT_EQ(q2.q_per_channel_zero_points().dtype(), kInt64);
  expect_error([&] { quantize_per_channel(w, s, z, 1, kQInt8); },
               "length of scales must equal to channel");
  expect_error([&] { quantize_per_channel(w, s, z, 2, kQInt8); },
               "Channel axis out of range in per channel affine quantization. Got: 2Expected: [0, 2)");
  expect_error([&] { quantize_per_channel(w, s, from_values({0, 300}, {2}, kInt64), 0, kQInt8); },
               "quantize_tensor_per_channel_affine zero_point 300 is above upper bound.");
  expect_error([&] { q.q_scale(); }, "Expected quantizer->qscheme() == kPerTensorAffine");
}

TEST(QTensor, Qint32Bias) {  // item 7
  Tensor b = from_values({0.123456, -7.5, 3e4, 1e-5}, {4});
  Tensor q = quantize_per_tensor(b, 1e-4, 0, kQInt32);
  const float inv = 1.0f / static_cast<float>(1e-4);
  const float* x = b.data_ptr<float>();
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i) expected.push_back(std::nearbyint(x[i] * inv));
  EXPECT_EQ(codes(q), expected);
}

TEST(QTensor, IntReprDtypes) {  // item 8
  Tensor x = from_values({1, 2}, {2});
  EXPECT_EQ(int_repr(quantize_per_tensor(x, 1.0, 0, kQUInt8)).dtype(), kUInt8);
  EXPECT_EQ(int_repr(quantize_per_tensor(x, 1.0, 0, kQInt8)).dtype(), kInt8);
  EXPECT_EQ(int_repr(quantize_per_tensor(x, 1.0, 0, kQInt32)).dtype(), kInt32);
}

TEST(QTensor, ZeroPointAddedAfterRounding) {  // item 86
  Tensor x = from_values({0.5, 1.5, -0.5}, {3});
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 1, kQUInt8)), (std::vector<double>{1, 3, 1}));
}

TEST(QTensor, NonFiniteAndHugeValuesAsTorch) {
  // PyTorch 1.13's x86 conversion: NaN, ±inf and |v| >= 2^63 give the minimum code.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor x = from_values({nan, inf, -inf, 1e30, -1e30, 3e9, 1e19, 16777217.0}, {8});
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 5, kQUInt8)),
            (std::vector<double>{0, 0, 0, 0, 0, 255, 0, 255}));
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 5, kQInt8)),
            (std::vector<double>{-128, -128, -128, -128, -128, 127, -128, 127}));
  EXPECT_EQ(codes(quantize_per_tensor(x, 1.0, 5, kQInt32)),
            (std::vector<double>{-2147483648.0, -2147483648.0, -2147483648.0, -2147483648.0,
                                 -2147483648.0, 2147483647.0, -2147483648.0, 16777220.0}));
  // qint32 dequantize: q - z wraps in int32, as PyTorch's kernel does
  Tensor q = _make_per_tensor_quantized_tensor(
      from_values({2147483647.0, -2147483648.0, 16777217.0}, {3}, kInt32), 0.3, 7);
  EXPECT_EQ(values(dequantize(q)), (std::vector<double>{644245120.0, 644245120.0, 5033163.0}));
}

// The fast loops equal their scalar references on random data with ties, saturation, NaN and
// infinities, for every code type and both per-channel layouts.
template <class T>
void check_fast_equals_ref(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-300.f, 300.f);
  const int64_t n = 70001;  // > one parallel grain, odd tail
  std::vector<float> x(n);
  for (auto& v : x) v = u(rng);
  for (int64_t i = 0; i < n; i += 97) x[i] = std::nearbyint(x[i]) + 0.5f;  // ties
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[5] = std::numeric_limits<float>::infinity();
  x[7] = -std::numeric_limits<float>::infinity();
  x[9] = 1e30f;
  const double scale = 0.37;
  const int64_t zp = std::is_same_v<T, uint8_t> ? 17 : -3;
  std::vector<T> a(n), b(n);
  qkernels::quantize(x.data(), a.data(), n, scale, zp);
  qkernels::quantize_ref(x.data(), b.data(), n, scale, zp);
  ASSERT_EQ(a, b);
  std::vector<float> da(n), db(n);
  qkernels::dequantize(a.data(), da.data(), n, scale, zp);
  qkernels::dequantize_ref(a.data(), db.data(), n, scale, zp);
  ASSERT_EQ(da, db);
  for (int64_t inner : {int64_t{1}, int64_t{7}}) {
    const int64_t channels = 5, outer = n / (channels * inner);
    const int64_t m = outer * channels * inner;
    std::vector<double> s{0.1, 0.37, 1.0, 2.5, 1e-3};
    std::vector<int64_t> z{0, 3, std::is_same_v<T, uint8_t> ? 255 : -128, 1, 2};
    std::vector<T> pa(m), pb(m);
    qkernels::quantize_per_channel(x.data(), pa.data(), outer, channels, inner, s.data(), z.data());
    qkernels::quantize_per_channel_ref(x.data(), pb.data(), outer, channels, inner, s.data(), z.data());
    ASSERT_EQ(pa, pb) << "inner " << inner;
    std::vector<float> fa(m), fb(m);
    qkernels::dequantize_per_channel(pa.data(), fa.data(), outer, channels, inner, s.data(), z.data());
    qkernels::dequantize_per_channel_ref(pa.data(), fb.data(), outer, channels, inner, s.data(), z.data());
    ASSERT_EQ(fa, fb) << "inner " << inner;
  }
}

TEST(QTensor, FastLoopsEqualReferences) {
  set_num_threads(2);
  check_fast_equals_ref<uint8_t>(1);
  check_fast_equals_ref<int8_t>(2);
  check_fast_equals_ref<int32_t>(3);
  set_num_threads(1);
  check_fast_equals_ref<uint8_t>(4);
}

TEST(QTensor, ChannelsLastIsKept) {
  Tensor x = testing::iota({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast) * 0.01;
  Tensor q = quantize_per_tensor(x, 0.05, 3, kQUInt8);
  EXPECT_TRUE(q.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(int_repr(q).is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(dequantize(q).is_contiguous(MemoryFormat::ChannelsLast));
  Tensor s = from_values({0.01, 0.02, 0.04}, {3}, kFloat64);
  Tensor z = from_values({0, 1, 2}, {3}, kInt64);
  Tensor qc = quantize_per_channel(x, s, z, 1, kQUInt8);
  Tensor qn = quantize_per_channel(x.contiguous(), s, z, 1, kQUInt8);
  EXPECT_TRUE(qc.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(codes(qc), codes(qn));
  EXPECT_EQ(values(dequantize(qc)), values(dequantize(qn)));
}

TEST(QTensor, KeysAndQuantizer) {
  Tensor q = quantize_per_tensor(from_values({1, 2}, {2}), 0.5, 1, kQUInt8);
  EXPECT_TRUE(q.impl()->keys().has(DispatchKey::QuantizedCPU));
  EXPECT_EQ(q.q_scale(), 0.5);
  EXPECT_EQ(q.q_zero_point(), 1);
  EXPECT_EQ(q.qscheme(), QScheme::PerTensorAffine);
  const auto* pt = as_per_tensor(get_quantizer(q));
  ASSERT_NE(pt, nullptr);
  EXPECT_EQ(pt->dtype(), kQUInt8);
  // Tensor.data = other (shallow_copy_from) and swap_contents move the quantizer with the data.
  Tensor f = from_values({1, 2}, {2});
  Tensor q2 = quantize_per_tensor(from_values({3}, {1}), 0.25, 2, kQInt8);
  q.impl()->swap_contents(*q2.impl());
  EXPECT_EQ(q.q_scale(), 0.25);
  EXPECT_EQ(q2.q_scale(), 0.5);
  f.impl()->shallow_copy_from(*q.impl());
  EXPECT_TRUE(f.is_quantized());
  EXPECT_TRUE(f.impl()->keys().has(DispatchKey::QuantizedCPU));
  EXPECT_EQ(f.q_scale(), 0.25);
  // float tensors have no qparams: PyTorch's "no kernel for the CPU backend" error
  expect_error([&] { q_scale(from_values({1}, {1})); },
               "Could not run 'aten::q_scale' with arguments from the 'CPU' backend",
               ErrorKind::NotImplemented);
  expect_error([&] { int_repr(from_values({1}, {1})); },
               "Could not run 'aten::int_repr' with arguments from the 'CPU' backend",
               ErrorKind::NotImplemented);
}

TEST(QTensor, InputChecks) {
  Tensor x = from_values({1, 2}, {2});
  expect_error([&] { quantize_per_tensor(x.to(kFloat64), 0.1, 0, kQUInt8); },
               "Quantize only works on Float Tensor, got Double");
  expect_error([&] { quantize_per_tensor(x, 0.1, 0, kFloat32); },
               "ScalarType Float is not supported in new_qtensor.");
  expect_error([&] { quantize_per_channel(x.to(kFloat64), from_values({1}, {1}, kFloat64),
                                          from_values({0}, {1}, kInt64), 0, kQUInt8); },
               "quantize_tensor_per_channel_affine expects a Float Tensor, got Double");
  expect_error([&] { _empty_affine_quantized({2}, kFloat32, 1.0, 0); },
               "Creation of quantized tensor requires quantized dtype like ember.quint8");
  expect_error([&] { _make_per_tensor_quantized_tensor(from_values({1}, {1}, kInt64), 1.0, 0); },
               "Creation of quantized tensor requires quantized dtype like ember.quint8");
}

TEST(QTensor, EmptyAndMake) {
  Tensor e = _empty_affine_quantized({2, 3, 4, 5}, kQInt8, 0.5, 2, MemoryFormat::ChannelsLast);
  EXPECT_EQ(e.dtype(), kQInt8);
  EXPECT_TRUE(e.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(e.q_scale(), 0.5);
  Tensor s = from_values({0.1, 0.2}, {2}, kFloat64);
  Tensor z = from_values({1, 2}, {2}, kInt64);
  Tensor pc = _empty_per_channel_affine_quantized({2, 3}, s, z, 0, kQUInt8);
  EXPECT_EQ(pc.qscheme(), QScheme::PerChannelAffine);
  // The quantizer owns its parameters: writing to the caller's tensors changes nothing.
  s.fill_(7.0);
  EXPECT_EQ(values(pc.q_per_channel_scales()), (std::vector<double>{0.1, 0.2}));
  // _make copies the codes (PyTorch too).
  Tensor codes8 = from_values({1, 2, 3, 4}, {2, 2}, kInt8);
  Tensor m = _make_per_channel_quantized_tensor(codes8, from_values({0.1, 0.2}, {2}, kFloat64), z, 1);
  codes8.fill_(9);
  EXPECT_EQ(codes(m), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(values(dequantize(m)),
            (std::vector<double>{0.0f, 0.0f, 2 * 0.1f, 2 * 0.2f}));
  // Meta tensors carry shapes and qparams only.
  Tensor meta = _empty_affine_quantized({2, 3}, kQUInt8, 0.1, 3, MemoryFormat::Contiguous, Device("meta"));
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(meta.q_zero_point(), 3);
  EXPECT_TRUE(dequantize(meta).is_meta());
  EXPECT_TRUE(quantize_per_tensor(empty({2, 3}, TensorOptions(kFloat32).device(Device("meta"))), 0.1, 3,
                                  kQUInt8).is_meta());
}

TEST(QTensor, TensorQparamsAndLists) {
  Tensor x = from_values({0.5, 1.5}, {2});
  Tensor a = quantize_per_tensor(x, from_values({0.1}, {}), from_values({10}, {}, kInt64), kQUInt8);
  EXPECT_EQ(a.q_scale(), static_cast<double>(0.1f));
  auto l = quantize_per_tensor(std::vector<Tensor>{x, x}, from_values({0.1, 0.2}, {2}),
                               from_values({10, 3}, {2}, kInt64), kQUInt8);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1].q_zero_point(), 3);
  auto d = dequantize(l);
  EXPECT_EQ(values(d[0]), values(dequantize(l[0])));
}

TEST(QEngine, GetSetSupported) {
  EXPECT_EQ(quantized_engine(), QEngine::X86);
  auto engines = supported_quantized_engines();
  EXPECT_EQ(engines, (std::vector<QEngine>{QEngine::QNNPACK, QEngine::NoQEngine, QEngine::ONEDNN,
                                            QEngine::X86}));
  set_quantized_engine(QEngine::QNNPACK);
  EXPECT_EQ(quantized_engine(), QEngine::QNNPACK);
  expect_error([] { set_quantized_engine(QEngine::FBGEMM); }, "quantized engine FBGEMM is not supported");
  EXPECT_EQ(quantized_engine(), QEngine::QNNPACK);  // unchanged by the refused call
  set_quantized_engine(QEngine::X86);
}

}  // namespace
}  // namespace ember
