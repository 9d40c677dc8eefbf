// Modules that read like libtorch's (issue 17): typed forwards through nn::ModuleBase, the boxed
// forward derived from them, hooks on typed calls, and type names from the C++ class.
#include <optional>
#include <tuple>

#include "testing.h"

namespace ember {
namespace {

namespace nn = ember::nn;

// One input, a child, no name passed: prints as "Block".
struct Block : nn::ModuleBase<Block> {
  Block() { fc = register_module("fc", std::make_shared<nn::Linear>(3, 3)); }
  Tensor forward(const Tensor& x) { return (*fc)(x).relu(); }
  std::shared_ptr<nn::Linear> fc;
};

// Several typed arguments, a trailing optional, a tuple result, a const forward.
struct Mix : nn::ModuleBase<Mix> {
  std::tuple<Tensor, Tensor> forward(const Tensor& a, int64_t times, double scale,
                                     std::optional<Tensor> bias = std::nullopt) const {
    Tensor y = a * static_cast<double>(times) * scale;
    if (bias) y = y + *bias;
    return {y, a};
  }
};

// A forward returning nothing, and one taking the boxed Value through.
struct Sink : nn::ModuleBase<Sink> {
  void forward(Tensor x) { seen = std::move(x); }
  Tensor seen;
};
struct AnyIn : nn::ModuleBase<AnyIn> {
  Value forward(const Value& v) { return v; }
};

// A layer extended with a typed forward of its own (Base = Linear).
struct Doubled : nn::ModuleBase<Doubled, nn::Linear> {
  Doubled() : ModuleBase(2, 2) {}
  Tensor forward(const Tensor& x) { return nn::Linear::forward(x) * 2.0; }
};

// An explicit name still wins.
struct Renamed : nn::ModuleBase<Renamed> {
  Renamed() : ModuleBase("Custom") {}
  Tensor forward(const Tensor& x) { return x; }
};

// A plain Module subclass (boxed forward of its own) and one without any forward.
struct PlainNet : nn::Module {
  Value forward(const std::vector<Value>& in) override { return in.at(0); }
};
struct NoForward : nn::Module {};
namespace inner {
template <class T>
struct Templated : nn::Module {};
}  // namespace inner

// For the compile-time checks (never constructed: their destructors would not compile).
struct MissingForward : nn::ModuleBase<MissingForward> {};
struct TwoForwards : nn::ModuleBase<TwoForwards> {
  Tensor forward(const Tensor& x) { return x; }
  Tensor forward(const Tensor& x, const Tensor& y) { return x + y; }
};
struct Unboxable {};
struct BadParam : nn::ModuleBase<BadParam> {
  Tensor forward(Unboxable) { return Tensor(); }
};

// The examples of docs/modules.md and docs/nn.md, as written there.
struct DocBlock : nn::ModuleBase<DocBlock> {
  DocBlock() {
    fc = register_module("fc", std::make_shared<nn::Linear>(4, 4));
    scale = register_parameter_ref("scale", ember::ones({4}));
  }
  Tensor forward(const Tensor& x, std::optional<Tensor> skip = std::nullopt) {
    Tensor y = (*fc)(x).relu() * scale;
    return skip ? y + *skip : y;
  }
  std::shared_ptr<nn::Linear> fc;
  nn::ParameterRef scale;
};
struct NnBlock : nn::ModuleBase<NnBlock> {
  NnBlock(int64_t dim, ember::TensorOptions options = {}) {
    fc = register_module("fc", std::make_shared<nn::Linear>(dim, dim, true, options));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(dim, 1e-5, true, options));
    scale = register_parameter_ref("scale", ember::ones({dim}, options));
    register_buffer("steps", ember::zeros({}, ember::kInt64));
  }
  ember::Tensor forward(const ember::Tensor& x) {
    return x + (*norm)(nn::functional::gelu((*fc)(x))) * scale;
  }
  std::string extra_repr() const override { return "residual=True"; }
  std::shared_ptr<nn::Linear> fc;
  std::shared_ptr<nn::LayerNorm> norm;
  nn::ParameterRef scale;
};

TEST(ModulesTyped, DocExamples) {
  auto b = std::make_shared<DocBlock>();
  Tensor x = ones({2, 4});
  EXPECT_TRUE(equal((*b)(x), b->forward(x)));
  EXPECT_TRUE(equal((*b)(x, x), b->forward(x) + x));
  auto seq = std::make_shared<nn::Sequential>(b, std::make_shared<nn::ReLU>());
  EXPECT_EQ(seq->repr().substr(0, 28), "Sequential(\n  (0): DocBlock(");
  auto net = std::make_shared<nn::Sequential>(std::make_shared<NnBlock>(16),
                                              std::make_shared<nn::Linear>(16, 4));
  EXPECT_EQ((*net)(ones({3, 16})).sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(net->state_dict().keys()[0], "0.scale");
  EXPECT_EQ(net->at<NnBlock>(0)->repr().substr(0, 24), "NnBlock(\n  residual=True");
}

TEST(ModulesTyped, CompileTimeChecks) {
  static_assert(Block::has_typed_forward());
  static_assert(Mix::has_typed_forward());
  static_assert(Sink::has_typed_forward());
  static_assert(!MissingForward::has_typed_forward());
  static_assert(!TwoForwards::has_typed_forward());
  static_assert(!BadParam::has_typed_forward());
}

TEST(ModulesTyped, TypeNameFromTheCppClass) {
  auto b = std::make_shared<Block>();
  EXPECT_EQ(b->type_name(), "Block");
  EXPECT_EQ(b->repr(),
            "Block(\n  (fc): Linear(in_features=3, out_features=3, bias=True)\n)");
  EXPECT_EQ(Renamed().type_name(), "Custom");
  EXPECT_EQ(PlainNet().type_name(), "PlainNet");
  EXPECT_EQ(inner::Templated<float>().type_name(), "Templated<float>");
  EXPECT_EQ(nn::Module().type_name(), "Module");
  EXPECT_EQ(nn::Module("Given").type_name(), "Given");
  EXPECT_EQ(Doubled().type_name(), "Doubled");  // the most derived class, not Linear
  // set_type_name (a front end's subclass) wins over the C++ name, and clears back to it.
  PlainNet p;
  p.set_type_name("FromPython");
  EXPECT_EQ(p.repr(), "FromPython()");
  p.set_type_name("");
  EXPECT_EQ(p.repr(), "PlainNet()");
  // The name shows in messages too.
  testing::expect_error([&] { p.parameter("w"); }, "'PlainNet' object has no parameter 'w'",
                        ErrorKind::Attribute);
}

TEST(ModulesTyped, BuiltInLayersKeepTorchNames) {
  EXPECT_EQ(nn::Linear(2, 3).type_name(), "Linear");
  EXPECT_EQ(nn::Conv2d(1, 1, 3).type_name(), "Conv2d");
  EXPECT_EQ(nn::BatchNorm2d(3).type_name(), "BatchNorm2d");
  EXPECT_EQ(nn::ReLU().type_name(), "ReLU");
  EXPECT_EQ(nn::Sequential().type_name(), "Sequential");
  EXPECT_EQ(nn::ModuleList().type_name(), "ModuleList");
  EXPECT_EQ(nn::ModuleDict().type_name(), "ModuleDict");
  EXPECT_EQ(nn::LSTM(nn::RNNOptions(2, 3)).type_name(), "LSTM");
  EXPECT_EQ(nn::Embedding(4, 2).type_name(), "Embedding");
  EXPECT_EQ(nn::LayerNorm(std::vector<int64_t>{4}).type_name(), "LayerNorm");
  EXPECT_EQ(nn::MaxPool2d(2).type_name(), "MaxPool2d");
  EXPECT_EQ(nn::Identity().type_name(), "Identity");
  EXPECT_EQ(nn::MultiheadAttention(4, 2).type_name(), "MultiheadAttention");
}

TEST(ModulesTyped, BoxedForwardFromTheTypedOne) {
  Mix m;
  Tensor a = ones({2});
  // Through the boxed path (what Sequential, hooks and Python use).
  Value out = m.call({a, int64_t{3}, 0.5});
  ASSERT_TRUE(out.is_tensor_list());
  testing::expect_values(out.to_tensor_list()[0], {2}, {1.5, 1.5});
  out = m.call({a, 2, 1.0, full({2}, 10.0)});
  testing::expect_values(out.to_tensor_list()[0], {2}, {12.0, 12.0});
  out = m.call({a, 2, 1.0, Value()});  // None for the optional
  testing::expect_values(out.to_tensor_list()[0], {2}, {2.0, 2.0});
  // Typed call: (*m)(...) returns forward's type.
  auto [y, same] = m(a, 4, 0.25);
  testing::expect_values(y, {2}, {1.0, 1.0});
  EXPECT_TRUE(same.is_same(a));

  Sink s;
  EXPECT_TRUE(s.call({a}).is_none());
  EXPECT_TRUE(s.seen.is_same(a));
  s(full({1}, 2.0));  // void result
  EXPECT_EQ(s.seen.item<float>(), 2.0f);
  AnyIn any;
  EXPECT_EQ(any(Value(7)).to_int(), 7);

  Doubled d;
  NoGradGuard no_grad;
  d.weight().copy_(eye(2));
  d.bias().zero_();
  testing::expect_values(d(ones({1, 2})), {1, 2}, {2.0, 2.0});
}

TEST(ModulesTyped, WrongArityOrTypesNameTheModuleAndSignature) {
  Mix m;
  const std::string sig =
      "(signature: forward(Tensor, int, float, Tensor?) -> (Tensor, Tensor))";
  testing::expect_error([&] { m.call({ones({1})}); },
                        "Mix.forward() missing 2 required positional arguments " + sig,
                        ErrorKind::Type);
  testing::expect_error([&] { m.call({ones({1}), 1, 1.0, Value(), 5}); },
                        "Mix.forward() takes from 4 to 5 positional arguments but 6 were given " + sig,
                        ErrorKind::Type);
  testing::expect_error([&] { m.call({ones({1}), 1.5, 1.0}); },
                        "Mix.forward(): argument 2 must be int, not float " + sig, ErrorKind::Type);
  testing::expect_error([&] { m.call({ones({1}), 1, 1.0, 3}); },
                        "Mix.forward(): argument 4 must be Tensor?, not int", ErrorKind::Type);
  Block b;
  testing::expect_error([&] { b.call({}); },
                        "Block.forward() missing 1 required positional argument (signature: "
                        "forward(Tensor) -> Tensor)",
                        ErrorKind::Type);
  testing::expect_error([&] { b.call({ones({1, 3}), ones({1, 3})}); },
                        "Block.forward() takes 2 positional arguments but 3 were given",
                        ErrorKind::Type);
  testing::expect_error([&] { b.call({Value("x")}); },
                        "Block.forward(): argument 1 must be Tensor, not str", ErrorKind::Type);
  // A forward hook that returns another type: the typed call says so.
  b.register_forward_hook([](nn::Module&, const std::vector<Value>&, const Value&) {
    return std::optional<Value>(Value(3));
  });
  testing::expect_error([&] { b(ones({1, 3})); },
                        "Block: expected forward's result (signature: forward(Tensor) -> Tensor), got int",
                        ErrorKind::Type);
}

TEST(ModulesTyped, ModuleWithoutForwardFailsNamingIt) {
  NoForward m;
  testing::expect_error([&] { m.call({ones({1})}); },
                        "Module [NoForward] is missing the required \"forward\" function",
                        ErrorKind::NotImplemented);
}

TEST(ModulesTyped, HooksFireOnTypedCallsNotOnDirectForward) {
  auto b = std::make_shared<Block>();
  int pre = 0, post = 0;
  b->register_forward_pre_hook([&](nn::Module& m, const std::vector<Value>& in) {
    EXPECT_EQ(&m, b.get());
    EXPECT_EQ(in.size(), 1u);
    ++pre;
    return std::optional<std::vector<Value>>();
  });
  b->register_forward_hook([&](nn::Module&, const std::vector<Value>&, const Value& out) {
    ++post;
    return std::optional<Value>(Value(out.to_tensor() * 0.0));  // replaces the output
  });
  Tensor x = ones({2, 3});
  Tensor y = (*b)(x);  // call path: hooks
  EXPECT_EQ(pre, 1);
  EXPECT_EQ(post, 1);
  EXPECT_EQ(y.abs().sum().item<float>(), 0.0f);
  b->forward(x);  // plain call, as libtorch's module->forward(x)
  EXPECT_EQ(pre, 1);
  EXPECT_EQ(post, 1);
  // In a Sequential the boxed forward runs, through call: hooks fire.
  auto seq = std::make_shared<nn::Sequential>(b, std::make_shared<nn::ReLU>());
  (*seq)(x);
  EXPECT_EQ(pre, 2);
  EXPECT_EQ(post, 2);
}

TEST(ModulesTyped, SequentialOfTypedModulesAndHookEditingTheList) {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<Block>(), std::make_shared<Block>());
  EXPECT_EQ(seq->repr().substr(0, 26), "Sequential(\n  (0): Block(\n");
  Tensor x = ones({1, 3});
  Tensor expect = seq->at<Block>(1)->forward(seq->at<Block>(0)->forward(x));
  EXPECT_TRUE(equal((*seq)(x), expect));
  // A pre-hook that appends a module while the Sequential runs: the new module runs too (the
  // list is read as it is at each step), and nothing dangles.
  auto first = seq->at<Block>(0);
  bool appended = false;
  first->register_forward_pre_hook([&](nn::Module&, const std::vector<Value>&) {
    if (!appended) {
      appended = true;
      seq->append(std::make_shared<nn::Identity>());
      seq->append(std::make_shared<nn::Flatten>(0));
    }
    return std::optional<std::vector<Value>>();
  });
  EXPECT_EQ((*seq)(x).dim(), 1);
  EXPECT_EQ(seq->size(), 4u);
}

}  // namespace
}  // namespace ember
