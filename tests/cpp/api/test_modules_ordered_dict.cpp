// OrderedDict (libtorch's torch::OrderedDict) and the named_* views that return it (issue 17).
#include "testing.h"

namespace ember {
namespace {

namespace nn = ember::nn;

std::shared_ptr<nn::Sequential> net() {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 3),
                                              std::make_shared<nn::BatchNorm1d>(3),
                                              std::make_shared<nn::Linear>(3, 1, false));
  return seq;
}

TEST(ModulesOrderedDict, NamedParameters) {
  auto m = net();
  auto params = m->named_parameters();
  EXPECT_EQ(params.size(), 5u);
  EXPECT_FALSE(params.is_empty());
  EXPECT_EQ(params.keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.weight"}));
  EXPECT_TRUE(params["0.weight"].is_same(m->at<nn::Linear>(0)->weight()));
  EXPECT_TRUE(params.contains("2.weight"));
  EXPECT_FALSE(params.contains("2.bias"));
  EXPECT_EQ(params.find("2.bias"), nullptr);
  testing::expect_error([&] { params["0.wieght"]; }, "Parameter '0.wieght' is not defined",
                        ErrorKind::Key);
  // In-order iteration: items with key() / value(), and structured bindings.
  std::vector<std::string> seen;
  for (const auto& item : params) {
    seen.push_back(item.key());
    EXPECT_TRUE(item.value().is_parameter());
    EXPECT_TRUE(item->is_same(item.value()));
  }
  EXPECT_EQ(seen, params.keys());
  size_t i = 0;
  for (auto& [name, t] : params) {
    EXPECT_EQ(name, seen[i++]);
    t = Tensor();  // bound by reference: this changes the dict's value, not the module
  }
  EXPECT_FALSE(params.values()[0].defined());
  EXPECT_TRUE(m->at<nn::Linear>(0)->weight().defined());
  EXPECT_EQ(params[size_t{4}].key(), "2.weight");
  EXPECT_EQ(params.front().key(), "0.weight");
  EXPECT_EQ(params.back().key(), "2.weight");
  testing::expect_error([&] { params[size_t{5}]; }, "Index 5 is out of bounds (size 5)",
                        ErrorKind::Index);
}

TEST(ModulesOrderedDict, NamedBuffersChildrenModules) {
  auto m = net();
  auto buffers = m->named_buffers();
  EXPECT_EQ(buffers.keys(), (std::vector<std::string>{"1.running_mean", "1.running_var",
                                                      "1.num_batches_tracked"}));
  testing::expect_error([&] { buffers["x"]; }, "Buffer 'x' is not defined", ErrorKind::Key);
  auto children = m->named_children();
  EXPECT_EQ(children.keys(), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(children["1"]->type_name(), "BatchNorm1d");
  testing::expect_error([&] { children["3"]; }, "Module '3' is not defined", ErrorKind::Key);
  auto modules = m->named_modules();
  EXPECT_EQ(modules.keys(), (std::vector<std::string>{"", "0", "1", "2"}));
  EXPECT_EQ(modules[""].get(), m.get());
  for (const auto& [name, mod] : m->named_modules("net")) EXPECT_EQ(name.substr(0, 3), "net");
  // Duplicates: the same Linear twice is listed once unless asked.
  auto shared = std::make_shared<nn::Linear>(2, 2);
  nn::Sequential twice(std::vector<std::shared_ptr<nn::Module>>{shared, shared});
  EXPECT_EQ(twice.named_children().size(), 1u);
  EXPECT_EQ(twice.named_parameters().size(), 2u);
  EXPECT_EQ(twice.named_parameters("", true, false).keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
}

TEST(ModulesOrderedDict, StandaloneUse) {
  OrderedDict<std::string, int> d;
  EXPECT_TRUE(d.is_empty());
  d.insert("b", 2);
  d.insert("a", 1);
  d.insert_or_assign("b", 20);
  d.insert_or_assign("c", 3);
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(d.values(), (std::vector<int>{20, 1, 3}));
  EXPECT_EQ(d["b"], 20);
  testing::expect_error([&] { d.insert("a", 5); }, "Key 'a' already defined", ErrorKind::Key);
  testing::expect_error([&] { d["zz"]; }, "Key 'zz' is not defined", ErrorKind::Key);
  const auto& cd = d;
  EXPECT_EQ(cd["c"], 3);
  auto copy = d;  // copies keep their own index
  copy["a"] = 100;
  EXPECT_EQ(d["a"], 1);
  EXPECT_EQ(copy.pairs()[1], (std::pair<std::string, int>{"a", 100}));
  for (auto [k, v] : d) EXPECT_FALSE(k.empty());  // by value: a copy of each item
  d.clear();
  EXPECT_EQ(d.size(), 0u);
  EXPECT_FALSE(d.contains("a"));
  OrderedDict<std::string, int> init{{"x", 1}, {"y", 2}};
  EXPECT_EQ(init.keys(), (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace ember
