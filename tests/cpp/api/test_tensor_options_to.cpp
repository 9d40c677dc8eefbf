// libtorch's Tensor::to(TensorOptions) and the layout / memory_format members of TensorOptions
// (issue 17): x.to(w.options()), the aliasing and copy rules of to, libtorch's two refusals
// (requires_grad set, a memory format given twice), and the memory format in empty / zeros /
// ones / full / *_like. Strides and texts as libtorch 1.13 gives them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;

template <class F>
std::string error_text(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

std::vector<int64_t> strides_of(const Tensor& t) { return {t.strides().begin(), t.strides().end()}; }

const char* kTwice =
    "Cannot set memory_format both in TensorOptions and explicit argument; please delete the "
    "redundant setter.";

TEST(TensorOptionsTo, OtherTensorsOptions) {
  Tensor x = arange(6, kFloat32).view({2, 3});
  Tensor w = zeros({1}, kFloat64);
  Tensor y = x.to(w.options());
  EXPECT_EQ(y.dtype(), kFloat64);
  EXPECT_TRUE(y.is_cpu());
  EXPECT_TRUE(y.equal(arange(6, kFloat64).view({2, 3})));
  EXPECT_FALSE(y.is_same(x));

  // Nothing to change: to returns the tensor itself, unless asked to copy.
  EXPECT_TRUE(x.to(x.options()).is_same(x));
  EXPECT_TRUE(x.to(TensorOptions()).is_same(x));
  Tensor c = x.to(x.options(), /*copy=*/true);
  EXPECT_FALSE(c.is_same(x));
  EXPECT_NE(c.data_ptr(), x.data_ptr());
  EXPECT_TRUE(c.equal(x));

  // Only what the options give changes: a device alone keeps the dtype, a dtype alone the device.
  Tensor m = x.to(TensorOptions().device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_EQ(x.to(dtype(kInt64)).dtype(), kInt64);
  EXPECT_TRUE(x.to(dtype(kInt64)).is_cpu());
  // The implicit TensorOptions constructors of libtorch: x.to(kFloat64) stays the dtype overload.
  EXPECT_EQ(x.to(TensorOptions(kFloat64)).dtype(), kFloat64);
}

TEST(TensorOptionsTo, IsDifferentiable) {
  Tensor x = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor y = x.to(dtype(kFloat64));
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "ToCopyBackward0");
  (y * y).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_TRUE(x.grad().equal(tensor({2.0f, 4.0f, 6.0f})));
}

TEST(TensorOptionsTo, LibtorchRefusals) {
  Tensor x = ones({2});
  // libtorch 1.13's check_tensor_options_and_extract_memory_format, word for word.
  EXPECT_EQ(error_text([&] { (void)x.to(dtype(kFloat64).requires_grad(true)); }),
            "Operators taking TensorOptions cannot take a TensorOptions with options.requires_grad "
            "set as true. This isn't implemented yet.");
  EXPECT_EQ(error_text([&] {
              (void)x.to(memory_format(MemoryFormat::Contiguous), false, MemoryFormat::Contiguous);
            }),
            kTwice);
  // requires_grad(false) is what t.options() carry: accepted.
  EXPECT_EQ(x.to(dtype(kFloat64).requires_grad(false)).dtype(), kFloat64);
}

TEST(TensorOptionsTo, MemoryFormat) {
  Tensor x = arange(120, kFloat32).view({2, 3, 4, 5});
  Tensor cl = x.to(memory_format(MemoryFormat::ChannelsLast));
  EXPECT_EQ(strides_of(cl), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(cl.equal(x));
  // The explicit argument works as in the other overloads; with dtype from the options.
  Tensor cl64 = x.to(dtype(kFloat64), false, MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl64.dtype(), kFloat64);
  EXPECT_TRUE(cl64.is_contiguous(MemoryFormat::ChannelsLast));
  // Already in the format asked for: the tensor itself.
  EXPECT_TRUE(cl.to(memory_format(MemoryFormat::ChannelsLast)).is_same(cl));
  // Preserve keeps the layout; Contiguous makes it row-major again.
  EXPECT_TRUE(cl.to(dtype(kFloat64).memory_format(MemoryFormat::Preserve))
                  .is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(cl.to(memory_format(MemoryFormat::Contiguous)).is_contiguous());
  // The options carry what options() gives, so a tensor's options with a format port too.
  EXPECT_EQ(strides_of(x.to(x.options().memory_format(MemoryFormat::ChannelsLast))),
            (std::vector<int64_t>{60, 1, 15, 3}));
}

TEST(TensorOptionsLayout, StridedOnly) {
  TensorOptions o;
  EXPECT_FALSE(o.has_layout());
  EXPECT_EQ(o.layout(), kStrided);
  EXPECT_TRUE(layout(kStrided).has_layout());
  EXPECT_EQ(layout(kStrided).layout_opt(), kStrided);
  Tensor x = ones({2});
  EXPECT_EQ(x.layout(), kStrided);
  EXPECT_TRUE(x.options().has_layout());
  EXPECT_EQ(x.options().dtype_opt(), kFloat32);
  EXPECT_EQ(x.options().device_opt(), Device(kCPU));
  EXPECT_FALSE(x.options().has_memory_format());
  std::ostringstream os;
  os << kStrided;
  EXPECT_EQ(os.str(), "ember.strided");
  // Factories accept the layout (as libtorch code passes it).
  EXPECT_EQ(zeros({2}, TensorOptions().layout(kStrided).dtype(kInt32)).dtype(), kInt32);
}

TEST(TensorOptionsMemoryFormat, Factories) {
  const std::vector<int64_t> nhwc{60, 1, 15, 3};
  const TensorOptions cl = memory_format(MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(empty({2, 3, 4, 5}, cl)), nhwc);
  Tensor z = zeros({2, 3, 4, 5}, cl);
  EXPECT_EQ(strides_of(z), nhwc);
  EXPECT_TRUE(z.equal(zeros({2, 3, 4, 5})));
  Tensor o = ones({2, 3, 4, 5}, cl.dtype(kFloat64));
  EXPECT_EQ(strides_of(o), nhwc);
  EXPECT_EQ(o.dtype(), kFloat64);
  EXPECT_TRUE(o.equal(ones({2, 3, 4, 5}, kFloat64)));
  Tensor f = full({2, 3, 4, 5}, 7, cl);  // dtype from the scalar, as without a format
  EXPECT_EQ(f.dtype(), kInt64);
  EXPECT_EQ(strides_of(f), nhwc);
  EXPECT_EQ(f.sum().item<int64_t>(), 7 * 120);
  EXPECT_EQ(full({2, 3, 4, 5}, 0.5, cl).dtype(), default_dtype());
  // requires_grad still makes a leaf.
  Tensor g = zeros({1, 2, 2, 2}, cl.requires_grad(true));
  EXPECT_TRUE(g.requires_grad());
  EXPECT_TRUE(g.is_leaf());
  EXPECT_TRUE(g.is_contiguous(MemoryFormat::ChannelsLast));
  // Contiguous is the default layout.
  EXPECT_TRUE(zeros({2, 3, 4, 5}, memory_format(MemoryFormat::Contiguous)).is_contiguous());
  // PyTorch's errors: a rank that has no channels_last, and preserve for a factory.
  EXPECT_EQ(error_text([&] { (void)empty({2, 3}, cl); }), "required rank 4 tensor to use channels_last format");
  EXPECT_EQ(error_text([&] { (void)zeros({2, 3}, cl); }), "required rank 4 tensor to use channels_last format");
  EXPECT_EQ(error_text([&] { (void)empty({2, 3}, memory_format(MemoryFormat::Preserve)); }),
            "unsupported memory format Preserve");
  // A format in the options and as the argument.
  EXPECT_EQ(error_text([&] { (void)empty({1, 1, 1, 1}, cl, MemoryFormat::ChannelsLast); }), kTwice);
}

TEST(TensorOptionsMemoryFormat, LikeFactories) {
  Tensor x = arange(120, kFloat32).view({2, 3, 4, 5});
  const std::vector<int64_t> nhwc{60, 1, 15, 3};
  const TensorOptions cl = memory_format(MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(empty_like(x, cl)), nhwc);
  EXPECT_EQ(strides_of(zeros_like(x, cl)), nhwc);
  EXPECT_EQ(strides_of(ones_like(x, cl)), nhwc);
  Tensor f = full_like(x, 2.5, cl);
  EXPECT_EQ(strides_of(f), nhwc);
  EXPECT_EQ(f.sum().item<double>(), 2.5 * 120);
  // Without a format the *_like forms preserve the input's; Contiguous overrides it.
  Tensor xcl = x.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(strides_of(zeros_like(xcl)), nhwc);
  EXPECT_TRUE(zeros_like(xcl, memory_format(MemoryFormat::Contiguous)).is_contiguous());
  EXPECT_EQ(error_text([&] { (void)empty_like(x, cl, MemoryFormat::Contiguous); }), kTwice);
}

}  // namespace
