// Memory formats: channels_last strides, is_contiguous / contiguous / suggest_memory_format,
// and the factories, clone and to honouring memory_format (expected strides from torch 1.13).
#include "../testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::values;
constexpr MemoryFormat CL = MemoryFormat::ChannelsLast;
constexpr MemoryFormat CF = MemoryFormat::Contiguous;
constexpr MemoryFormat PF = MemoryFormat::Preserve;

std::vector<int64_t> strides_of(const Tensor& t) { return t.strides().vec(); }

TEST(MemoryFormat, Strides) {
  // torch: empty(2,3,4,5, memory_format=channels_last).stride() == (60, 1, 15, 3)
  EXPECT_EQ(strides_of(empty({2, 3, 4, 5}, {}, CL)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(empty({0, 3, 4, 5}, {}, CL)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(empty({2, 0, 4, 5}, {}, CL)), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(strides_of(empty({2, 3, 0, 5}, {}, CL)), (std::vector<int64_t>{0, 1, 15, 3}));
  EXPECT_EQ(strides_of(empty({2, 3, 4, 5}, {}, CF)), (std::vector<int64_t>{60, 20, 5, 1}));
  Tensor m = empty({2, 3, 4, 5}, TensorOptions(kFloat32).device(kMeta), CL);
  EXPECT_TRUE(m.is_meta());
  EXPECT_TRUE(m.is_contiguous(CL));
  expect_error([] { empty({2, 3}, {}, CL); }, "required rank 4 tensor to use channels_last format");
  expect_error([] { empty({2, 3, 4, 5}, {}, PF); }, "unsupported memory format Preserve");
  expect_error([] { empty({2, 3, 4}, {}, MemoryFormat::ChannelsLast3d); },
               "required rank 5 tensor to use channels_last_3d format");
}

TEST(MemoryFormat, IsContiguousAndSuggest) {
  Tensor x = empty({2, 3, 4, 5});
  EXPECT_TRUE(x.is_contiguous(CF));
  EXPECT_FALSE(x.is_contiguous(CL));
  EXPECT_TRUE(x.is_contiguous(PF));  // as torch: preserve asks for the default
  Tensor c = x.contiguous(CL);
  EXPECT_TRUE(c.is_contiguous(CL));
  EXPECT_FALSE(c.is_contiguous());
  EXPECT_EQ(c.suggest_memory_format(), CL);
  EXPECT_EQ(x.suggest_memory_format(), CF);
  // size-1 dims make both formats true (torch: empty(2,1,4,5) and empty(2,3,1,1))
  EXPECT_TRUE(empty({2, 1, 4, 5}).is_contiguous(CL));
  EXPECT_TRUE(empty({2, 3, 1, 1}).is_contiguous(CL));
  EXPECT_FALSE(empty({0, 3, 4, 5}).is_contiguous(CL));
  // ambiguous layouts suggest contiguous: N111, and a trivial C dim
  EXPECT_EQ(empty({2, 3, 1, 1}).suggest_memory_format(), CF);
  EXPECT_EQ(empty({4, 1, 1, 1}, {}, CL).suggest_memory_format(), CF);
  EXPECT_EQ(empty({2, 1, 4, 5}, {}, CL).suggest_memory_format(), CL);
  // a sliced channels_last tensor still looks channels_last
  Tensor s = c.slice(2, 0, 4, 2);
  EXPECT_FALSE(s.is_contiguous(CL));
  EXPECT_EQ(s.suggest_memory_format(), CL);
  EXPECT_FALSE(ones({3, 4}).is_contiguous(CL));
  EXPECT_EQ(ones({3, 4}).suggest_memory_format(), CF);
}

TEST(MemoryFormat, ContiguousCopiesValues) {
  Tensor x = testing::iota({2, 3, 4, 5});
  Tensor c = x.contiguous(CL);
  EXPECT_FALSE(c.is_same(x));
  EXPECT_EQ(values(c), values(x));
  EXPECT_TRUE(c.contiguous(CL).is_same(c));  // already so: self
  Tensor back = c.contiguous();
  EXPECT_TRUE(back.is_contiguous());
  EXPECT_EQ(values(back), values(x));
  EXPECT_TRUE(x.contiguous(PF).is_same(x));
  expect_error([&] { x.slice(2, 0, 4, 2).contiguous(PF); },
               "preserve memory format is unsupported by the contiguous operator");
  expect_error([] { ones({2, 3}).contiguous(CL); }, "required rank 4 tensor to use channels_last format");
  // meta
  Tensor m = empty({2, 3, 4, 5}, TensorOptions(kFloat32).device(kMeta)).contiguous(CL);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(strides_of(m), (std::vector<int64_t>{60, 1, 15, 3}));
}

TEST(MemoryFormat, CloneEmptyLikeTo) {
  Tensor x = testing::iota({2, 3, 4, 5});
  Tensor xc = x.to(CL);  // torch: x.to(memory_format=channels_last)
  EXPECT_EQ(strides_of(xc), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(values(xc), values(x));
  EXPECT_TRUE(xc.to(CL).is_same(xc));
  EXPECT_EQ(strides_of(x.clone(CL)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(xc.clone()), (std::vector<int64_t>{60, 1, 15, 3}));  // preserve
  EXPECT_EQ(strides_of(xc.clone(CF)), (std::vector<int64_t>{60, 20, 5, 1}));
  // non-dense: preserve takes the suggested format (torch: (30, 1, 15, 3) and (30, 10, 5, 1))
  Tensor sl = xc.slice(2, 0, 4, 2);
  EXPECT_EQ(strides_of(sl.clone()), (std::vector<int64_t>{30, 1, 15, 3}));
  EXPECT_EQ(strides_of(sl.contiguous()), (std::vector<int64_t>{30, 10, 5, 1}));
  EXPECT_EQ(strides_of(empty_like(sl)), (std::vector<int64_t>{30, 1, 15, 3}));
  EXPECT_EQ(values(sl.clone()), values(x.slice(2, 0, 4, 2)));
  EXPECT_EQ(strides_of(empty_like(x, {}, CL)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(strides_of(empty_like(xc)), (std::vector<int64_t>{60, 1, 15, 3}));
  // dtype conversions keep the layout; an explicit format forces a copy (torch's to_will_alias)
  EXPECT_EQ(strides_of(xc.to(kFloat64)), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_FALSE(x.to(kFloat32, false, CL).is_same(x));
  EXPECT_TRUE(xc.to(kFloat32, false, CL).is_same(xc));
  EXPECT_EQ(strides_of(x.to(kFloat64, false, CL)), (std::vector<int64_t>{60, 1, 15, 3}));
  // gradients flow through the format change
  Tensor leaf = testing::iota({1, 2, 2, 2}, kFloat64).requires_grad_();
  leaf.to(CL).mul(2).sum().backward();
  EXPECT_EQ(values(leaf.grad()), std::vector<double>(8, 2.0));
}

TEST(MemoryFormat, BoxedSchemaArguments) {
  // the boxed MemoryFormat ints of the schemas (0 contiguous, 1 preserve, 2 channels_last)
  const OpHandle& op = find_op("aten::empty", "memory_format");
  Stack out = op.call({Value(std::vector<int64_t>{2, 3, 4, 5}), Value(), Value(), Value(), Value(),
                        Value(int64_t{2})});
  EXPECT_EQ(strides_of(out[0].to_tensor()), (std::vector<int64_t>{60, 1, 15, 3}));
  const OpHandle& clone_op = find_op("aten::clone");
  Tensor x = ones({2, 3, 4, 5});
  Stack c = clone_op.call({Value(x), Value(int64_t{2})});
  EXPECT_TRUE(c[0].to_tensor().is_contiguous(CL));
  expect_error([&] { clone_op.call({Value(x), Value(int64_t{7})}); }, "unknown memory format 7");
}

}  // namespace
}  // namespace ember
