// The layout of a new elementwise output (Note [Elementwise output layout]): the strides
// PyTorch 1.13 gives the same ops on the same inputs, printed by
//   a = torch.randn(2,3,4,5).to(memory_format=torch.channels_last); c = torch.randn(2,3,4,5)
//   print((a + c).stride(), ...)
// and the values equal those computed from row-major copies.
#include <functional>
#include <string>
#include <vector>

#include "testing.h"

namespace ember {
namespace {

const std::vector<int64_t> kCl = {60, 1, 15, 3};   // channels_last strides of [2, 3, 4, 5]
const std::vector<int64_t> kRow = {60, 20, 5, 1};  // row-major strides of [2, 3, 4, 5]

Tensor randn_cl() { return randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast); }
// [2, 3, 1, 1] with the strides torch's .to(memory_format=torch.channels_last) gives it
// (.contiguous(memory_format=...) keeps (3, 1, 1, 1), already channels_last-contiguous).
Tensor randn_nc11_cl() {
  Tensor t = empty_strided({2, 3, 1, 1}, {3, 1, 3, 3});
  t.copy_(randn({2, 3, 1, 1}));
  return t;
}

struct Case {
  std::string name;
  std::function<Tensor()> op;
  std::vector<int64_t> strides;  // PyTorch's
};

TEST(ElementwiseLayout, OutputStridesAsPytorch) {
  manual_seed(0);
  const Tensor a = randn_cl();
  const Tensor c = randn({2, 3, 4, 5});
  const Tensor bias = randn({3, 1, 1});
  const Tensor row = randn({5});
  const std::vector<Case> cases = {
      {"relu(cl)", [&] { return a.relu(); }, kCl},
      {"relu6(cl)", [&] { return relu6(a); }, kCl},
      {"hardtanh(cl)", [&] { return hardtanh(a, -1, 1); }, kCl},
      {"hardswish(cl)", [&] { return hardswish(a); }, kCl},
      {"sigmoid(cl)", [&] { return a.sigmoid(); }, kCl},
      {"neg(cl)", [&] { return a.neg(); }, kCl},
      {"pow(cl, 2)", [&] { return pow(a, 2); }, kCl},
      {"clamp(cl)", [&] { return clamp(a, 0, 1); }, kCl},
      {"add(cl, cl)", [&] { return a + a; }, kCl},
      {"add(cl, row-major)", [&] { return a + c; }, kCl},
      {"add(row-major, cl)", [&] { return c + a; }, kRow},
      {"add(cl, scalar)", [&] { return a + 1; }, kCl},
      {"mul(cl, [3, 1, 1])", [&] { return a * bias; }, kCl},
      {"add(cl, [5])", [&] { return a + row; }, kCl},
      {"gt(cl, 0)", [&] { return (a > 0); }, kCl},
      {"where(cl > 0, cl, 0)", [&] { return where((a > 0), a, zeros({})); }, kCl},
      {"addcmul(cl, cl, cl)", [&] { return addcmul(a, a, a); }, kCl},
      {"expanded cl + 0",
       [&] {
         return randn({1, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast).expand({2, 3, 4, 5}) +
                0;
       },
       kCl},
      {"cl[:, :, ::2] + 0", [&] { return a.slice(2, 0, std::nullopt, 2) + 0; }, {30, 1, 15, 3}},
      {"N,C,1,1 strided (3, 1, 3, 3) + 1",
       [&] { return randn_nc11_cl() + 1; },
       {3, 1, 3, 3}},
      {"N,C,1,1 strided (3, 1, 3, 3) + row-major",
       [&] {
         return randn_nc11_cl() + randn({2, 3, 1, 1});
       },
       {3, 1, 1, 1}},
      {"transposed 2-d + 1", [&] { return randn({3, 4}).t() + 1; }, {1, 4}},
      {"permuted 3-d * 2", [&] { return randn({4, 5, 3}).permute({2, 0, 1}) * 2; }, {1, 15, 3}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const Tensor out = k.op();
    EXPECT_EQ(out.strides().vec(), k.strides);
  }
}

// The values do not depend on the layout: each channels_last result equals the op on row-major
// copies of its inputs.
TEST(ElementwiseLayout, ValuesMatchRowMajor) {
  manual_seed(1);
  const Tensor a = randn_cl(), b = randn_cl();
  const Tensor ar = a.contiguous(), br = b.contiguous();
  EXPECT_TRUE(equal(a + b, ar + br));
  EXPECT_TRUE(equal(relu6(a), relu6(ar)));
  EXPECT_TRUE(equal(a * randn({3, 1, 1}).fill_(0.5), ar * 0.5));
  EXPECT_TRUE(equal(hardswish(a), hardswish(ar)));
  EXPECT_TRUE(equal(where((a > 0), a, b), where((ar > 0), ar, br)));
}

// On meta tensors the layout is computed the same way (no data touched).
TEST(ElementwiseLayout, Meta) {
  const Tensor a = empty_strided({2, 3, 4, 5}, kCl, TensorOptions().device(kMeta));
  EXPECT_EQ((a + a).strides().vec(), kCl);
  EXPECT_EQ(a.relu().strides().vec(), kCl);
  EXPECT_TRUE((a + a).is_meta());
}

}  // namespace
}  // namespace ember
