// set_printoptions from C++ (profiles, sci_mode reset, infinite threshold) and to_string with a
// class name and tensor contents. Expected strings are PyTorch 1.13's (torch. -> ember.).
#include <limits>

#include "testing.h"

namespace ember {
namespace {

struct RestoreOptions {
  ~RestoreOptions() { print_options() = PrintOptions{}; }
};

TEST(PrintOptions, ProfilesAndOverrides) {
  RestoreOptions restore;
  set_printoptions(std::nullopt, std::nullopt, std::nullopt, std::nullopt, "short");
  EXPECT_EQ(print_options().precision, 2);
  EXPECT_EQ(print_options().edgeitems, 2);
  // torch.set_printoptions(profile='short'); torch.arange(10.) / 3
  EXPECT_EQ(to_string(arange(10).to(kFloat32) / 3),
            "tensor([0.00, 0.33, 0.67, 1.00, 1.33, 1.67, 2.00, 2.33, 2.67, 3.00])");
  set_printoptions(std::nullopt, std::nullopt, std::nullopt, std::nullopt, "full");
  EXPECT_EQ(print_options().threshold, std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_string(arange(1200)).size(), 8000u);  // nothing elided, as PyTorch's
  set_printoptions(2, std::nullopt, std::nullopt, std::nullopt, "default", true);
  EXPECT_EQ(print_options().threshold, 1000);
  EXPECT_EQ(to_string(full({2}, 1.5)), "tensor([1.50e+00, 1.50e+00])");
  // Every call sets sci_mode: leaving it out means automatic again.
  set_printoptions(2);
  EXPECT_FALSE(print_options().sci_mode.has_value());
  EXPECT_EQ(to_string(full({2}, 1.5)), "tensor([1.50, 1.50])");
  set_printoptions(std::nullopt, 5, 1);
  EXPECT_EQ(to_string(arange(10)), "tensor([0,  ..., 9])");  // PyTorch's spacing
  set_printoptions(std::nullopt, std::nullopt, std::nullopt, std::nullopt, "no such profile");
  EXPECT_EQ(print_options().threshold, 5);
}

TEST(PrintOptions, ClassNameAndContents) {
  const Tensor x = arange(3).to(kFloat32);
  EXPECT_EQ(to_string(x, "TaggedTensor"), "TaggedTensor([0., 1., 2.])");
  EXPECT_EQ(to_string(x, ""), "tensor([0., 1., 2.])");
  EXPECT_EQ(to_string(x, "", std::string("CONTENT")), "tensor(CONTENT)");
  EXPECT_EQ(to_string(zeros({2, 3}, TensorOptions().device(kMeta)), "", std::string("C")),
            "tensor(C, device='meta', size=(2, 3))");
  Tensor g = arange(4).to(kFloat32).requires_grad_();
  EXPECT_EQ(to_string(g, "", std::string("C")), "tensor(C, requires_grad=True)");
  EXPECT_EQ(to_string(arange(2).to(kInt32), "W", std::string("[..]")), "W([..], dtype=ember.int32)");
}

}  // namespace
}  // namespace ember
