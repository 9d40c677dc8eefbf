// nn::Sequential, ModuleList, ModuleDict: names, repr and state_dict keys as torch 1.13,
// forward chaining with hooks, indexing, insertion, deletion with renumbering, slicing.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using Names = std::vector<std::string>;

Names child_names(const nn::ModuleContainer& c) { return c.keys(); }

TEST(LayersSequential, ReprNamesAndStateDictMatchTorch) {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 3),
                                              std::make_shared<nn::ReLU>());
  EXPECT_EQ(seq->repr(),
            "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)");
  EXPECT_EQ(seq->state_dict().keys(), (Names{"0.weight", "0.bias"}));
  nn::Sequential named({{"fc", std::make_shared<nn::Linear>(2, 3)}, {"act", std::make_shared<nn::Tanh>()}});
  EXPECT_EQ(named.repr(),
            "Sequential(\n  (fc): Linear(in_features=2, out_features=3, bias=True)\n  (act): Tanh()\n)");
  EXPECT_EQ(named.state_dict().keys(), (Names{"fc.weight", "fc.bias"}));
  EXPECT_EQ(nn::Sequential().repr(), "Sequential()");
  // Nested containers (torch's repr, pasted).
  auto inner = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(1, 2),
                                                std::make_shared<nn::Dropout>());
  auto list = std::make_shared<nn::ModuleList>(
      std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::Identity>()});
  nn::Sequential outer(inner, list);
  EXPECT_EQ(outer.repr(),
            "Sequential(\n  (0): Sequential(\n    (0): Linear(in_features=1, out_features=2, bias=True)\n"
            "    (1): Dropout(p=0.5, inplace=False)\n  )\n  (1): ModuleList(\n    (0): Identity()\n  )\n)");
  EXPECT_EQ(outer.state_dict().keys(), (Names{"0.0.weight", "0.0.bias"}));
  outer.eval();
  EXPECT_FALSE(inner->at<nn::Dropout>(1)->is_training());
}

TEST(LayersSequential, ForwardChainsThroughCallsAndGradientsReachEveryParameter) {
  manual_seed(0);
  auto net = std::make_shared<nn::Sequential>(
      std::make_shared<nn::Embedding>(10, 4), std::make_shared<nn::LayerNorm>(4),
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(12, 6),
      std::make_shared<nn::GELU>(), std::make_shared<nn::Dropout>(0.1),
      std::make_shared<nn::Linear>(6, 3));
  Tensor idx = from_values({1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2}, {4, 3}, kInt64);
  int hook_calls = 0;
  net->at<nn::Linear>(3)->register_forward_hook(
      [&](nn::Module&, const std::vector<Value>&, const Value&) {
        ++hook_calls;
        return std::optional<Value>();
      });
  Tensor logits = (*net)(idx);
  EXPECT_EQ(logits.sizes().vec(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(hook_calls, 1);  // children run through call(), hooks included
  nn::CrossEntropyLoss()(logits, from_values({0, 1, 2, 1}, {4}, kInt64)).backward();
  for (const auto& [name, p] : net->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_EQ(p.grad().sizes().vec(), p.sizes().vec()) << name;
  }
  EXPECT_EQ(net->named_parameters().size(), 7u);  // emb, ln w/b, two Linear w/b
  // The typed forward gives the same as the call, in eval mode (dropout off).
  net->eval();
  EXPECT_TRUE(equal(net->forward(idx), (*net)(idx)));
  // An empty Sequential returns its input.
  Tensor x = ones({2});
  EXPECT_TRUE(nn::Sequential()(x).is_same(x));
  expect_error([&] { net->call({idx, idx}); },
               "Sequential.forward() takes 2 positional arguments but 3 were given", ErrorKind::Type);
}

TEST(LayersSequential, IndexingInsertDeleteSlice) {
  auto lin = std::make_shared<nn::Linear>(2, 2);
  auto relu = std::make_shared<nn::ReLU>();
  nn::Sequential s(lin, relu, std::make_shared<nn::Tanh>(), relu);  // relu twice, as torch allows
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(child_names(s), (Names{"0", "1", "2", "3"}));
  EXPECT_EQ(s.children().size(), 3u);  // duplicates removed from traversals, as torch
  EXPECT_EQ(s[0], lin);
  EXPECT_EQ(s[-1], relu);
  EXPECT_EQ(s.at<nn::Linear>(0), lin);
  expect_error([&] { s.at<nn::Linear>(1); }, "Sequential[1] holds a ReLU", ErrorKind::Type);
  expect_error([&] { s[4]; }, "index 4 is out of range", ErrorKind::Index);
  expect_error([&] { s[-5]; }, "index -5 is out of range", ErrorKind::Index);
  int n = 0;
  for (const auto& m : s) n += m == relu;
  EXPECT_EQ(n, 2);

  s.erase(1);  // torch: del s[1] renumbers
  EXPECT_EQ(child_names(s), (Names{"0", "1", "2"}));
  s.insert(1, std::make_shared<nn::Sigmoid>());
  EXPECT_EQ(s.repr(),
            "Sequential(\n  (0): Linear(in_features=2, out_features=2, bias=True)\n  (1): Sigmoid()\n"
            "  (2): Tanh()\n  (3): ReLU()\n)");
  expect_error([&] { s.insert(6, relu); }, "Index out of range: 6", ErrorKind::Index);
  s.insert(-4, std::make_shared<nn::Identity>());  // before the first
  EXPECT_EQ(s[0]->type_name(), "Identity");
  EXPECT_EQ(s.pop(0)->type_name(), "Identity");
  // Slices keep names (torch: s[1:3] prints (1) and (2); s[::-2] prints (3) then (1)).
  EXPECT_EQ(s.slice(1, 3)->repr(), "Sequential(\n  (1): Sigmoid()\n  (2): Tanh()\n)");
  EXPECT_EQ(s.slice(std::nullopt, std::nullopt, -2)->repr(),
            "Sequential(\n  (3): ReLU()\n  (1): Sigmoid()\n)");
  nn::Sequential named({{"fc", lin}, {"act", relu}, {"out", std::make_shared<nn::Identity>()}});
  EXPECT_EQ(child_names(*named.slice(0, 2)), (Names{"fc", "act"}));
  EXPECT_EQ(child_names(*named.slice(std::nullopt, std::nullopt, 2)), (Names{"fc", "out"}));
  named.erase(0);
  EXPECT_EQ(child_names(named), (Names{"0", "1"}));  // torch renumbers named ones too
  // set keeps the name; append / extend number on.
  s.set(-1, std::make_shared<nn::SiLU>());
  EXPECT_EQ(s[3]->type_name(), "SiLU");
  s.append(std::make_shared<nn::Flatten>()).push_back(std::make_shared<nn::Identity>());
  EXPECT_EQ(child_names(s), (Names{"0", "1", "2", "3", "4", "5"}));
  nn::Sequential more(std::make_shared<nn::Tanh>());
  s.extend(more);
  EXPECT_EQ(s.size(), 7u);
  s.erase(0, std::nullopt, 2);  // del s[::2]
  EXPECT_EQ(child_names(s), (Names{"0", "1", "2"}));
  EXPECT_EQ(s[0]->type_name(), "Sigmoid");
  expect_error([&] { s.slice(0, 1, 0); }, "slice step cannot be zero", ErrorKind::Value);
}

TEST(LayersModuleList, BehavesAsTorch) {
  nn::ModuleList ml({std::make_shared<nn::ReLU>(), std::make_shared<nn::Tanh>(),
                     std::make_shared<nn::Sigmoid>(), std::make_shared<nn::Identity>()});
  EXPECT_EQ(ml.size(), 4u);
  EXPECT_EQ(child_names(*ml.slice(1, std::nullopt)), (Names{"0", "1", "2"}));  // renumbered
  EXPECT_EQ(ml[-1]->repr(), "Identity()");
  ml.erase(0, 4, 2);  // del ml[0:4:2]
  EXPECT_EQ(ml.repr(), "ModuleList(\n  (0): Tanh()\n  (1): Identity()\n)");
  expect_error([&] { ml.call({ones({1})}); },
               "Module [ModuleList] is missing the required \"forward\" function",
               ErrorKind::NotImplemented);
  nn::ModuleList other({std::make_shared<nn::Linear>(1, 1)});
  ml.extend(other);
  ml.insert(0, std::make_shared<nn::ReLU>());
  EXPECT_EQ(ml.state_dict().keys(), (Names{"3.weight", "3.bias"}));
  EXPECT_EQ(ml.parameters().size(), 2u);
  std::vector<std::string> seen;
  for (const auto& m : ml) seen.push_back(m->type_name());
  EXPECT_EQ(seen, (Names{"ReLU", "Tanh", "Identity", "Linear"}));
  EXPECT_EQ(nn::ModuleList().repr(), "ModuleList()");
  // A child registered as None keeps its place.
  ml.append(nullptr);
  EXPECT_EQ(ml.size(), 5u);
  EXPECT_EQ(ml[4], nullptr);
  EXPECT_EQ(ml.repr().find("(4): None") != std::string::npos, true);
}

TEST(LayersModuleDict, BehavesAsTorch) {
  nn::ModuleDict d({{"b", std::make_shared<nn::ReLU>()}, {"a", std::make_shared<nn::Tanh>()}});
  d.set("b", std::make_shared<nn::Sigmoid>());  // replaced in place
  d.set("c", std::make_shared<nn::Identity>());
  EXPECT_EQ(d.repr(), "ModuleDict(\n  (b): Sigmoid()\n  (a): Tanh()\n  (c): Identity()\n)");
  EXPECT_EQ(d.keys(), (Names{"b", "a", "c"}));
  d.update({{"a", std::make_shared<nn::ReLU>()}, {"z", std::make_shared<nn::Linear>(1, 2)}});
  EXPECT_EQ(d.keys(), (Names{"b", "a", "c", "z"}));
  EXPECT_EQ(d["a"]->type_name(), "ReLU");
  EXPECT_EQ(d.at<nn::Linear>("z")->out_features, 2);
  EXPECT_EQ(d.pop("b")->type_name(), "Sigmoid");
  EXPECT_EQ(d.keys(), (Names{"a", "c", "z"}));
  EXPECT_TRUE(d.contains("z"));
  EXPECT_FALSE(d.contains("b"));
  expect_error([&] { d["b"]; }, "'b'", ErrorKind::Key);
  expect_error([&] { d.erase("b"); }, "'b'", ErrorKind::Key);
  EXPECT_EQ(d.state_dict().keys(), (Names{"z.weight", "z.bias"}));
  std::vector<std::string> keys;
  for (const auto& [k, m] : d) keys.push_back(k + ":" + m->type_name());
  EXPECT_EQ(keys, (Names{"a:ReLU", "c:Identity", "z:Linear"}));
  Tensor x = (*d["z"])(ones({1, 1}));
  EXPECT_EQ(x.sizes().vec(), (std::vector<int64_t>{1, 2}));
  d.clear();
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.repr(), "ModuleDict()");
  expect_error([&] { d.set("a.b", std::make_shared<nn::ReLU>()); },
               "Submodule name must not contain a dot (got 'a.b')");
}

TEST(LayersContainers, MetaModelMaterialisedByAssignAndToEmpty) {
  auto build = [](TensorOptions o) {
    return std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(8, 16, true, o),
                                            std::make_shared<nn::ReLU>(),
                                            std::make_shared<nn::LayerNorm>(16, 1e-5, true, o),
                                            std::make_shared<nn::Linear>(16, 4, true, o));
  };
  auto real = build({});
  auto skeleton = build(kMeta);
  for (const auto& p : skeleton->parameters()) EXPECT_TRUE(p.is_meta());
  EXPECT_EQ(skeleton->state_dict().keys(), real->state_dict().keys());
  skeleton->load_state_dict(real->state_dict(), true, /*assign=*/true);
  Tensor x = testing::iota({2, 8}) * 0.1;
  EXPECT_TRUE(equal((*skeleton)(x), (*real)(x)));
  auto other = build(kMeta);
  other->to_empty(kCPU);
  for (const auto& p : other->parameters()) EXPECT_TRUE(p.is_cpu());
  other->load_state_dict(real->state_dict());
  EXPECT_TRUE(equal((*other)(x), (*real)(x)));
}

// Resident memory of this process, in bytes (Linux /proc/self/statm: pages).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

TEST(LayersContainers, BillionParametersOnMetaAllocateNothing) {
  const int64_t before = resident_bytes();
  const auto start = std::chrono::steady_clock::now();
  auto model = std::make_shared<nn::Sequential>();
  for (int i = 0; i < 4; ++i) {
    model->append(std::make_shared<nn::Linear>(16384, 16384, true, kMeta));
    model->append(std::make_shared<nn::LayerNorm>(16384, 1e-5, true, kMeta));
    model->append(std::make_shared<nn::GELU>());
  }
  model->append(std::make_shared<nn::Embedding>(50000, 16384, std::nullopt, std::nullopt, 2.0,
                                                false, false, Tensor(), kMeta));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  EXPECT_GT(count, 1'000'000'000);
  EXPECT_LT(seconds, 0.5);
  EXPECT_LT(resident_bytes() - before, 16 << 20);  // 4 GB of float32 were never allocated
  EXPECT_EQ(model->state_dict().size(), 17u);
}

}  // namespace
}  // namespace ember
