// The op table and the boxed calling convention: every row of ops.def parses into the schema it
// was written as, lookups, defaults, boxed calls, and Value.
#include <set>

#include "dispatch/boxing.h"
#include "dispatch/schema.h"
#include "testing.h"

namespace ember {
namespace {

using dispatch::default_value;
using dispatch::fill_defaults;
using dispatch::OpId;
using testing::expect_error;
using testing::expect_values;

// The schema string an OpHandle's parsed fields stand for, written as PyTorch writes schemas.
std::string render_arg(const SchemaArg& a) {
  std::string s = a.type;
  if (!a.name.empty()) s += " " + a.name;
  if (a.default_value) s += "=" + *a.default_value;
  return s;
}
std::string render(const OpHandle& op) {
  std::string s = op.full_name() + "(";
  bool kwarg_only = false;
  for (size_t i = 0; i < op.arguments().size(); ++i) {
    const SchemaArg& a = op.arguments()[i];
    if (i) s += ", ";
    if (a.kwarg_only && !kwarg_only) {
      s += "*, ";
      kwarg_only = true;
    }
    s += render_arg(a);
  }
  s += ") -> ";
  const auto& rets = op.returns();
  // One result goes without parentheses, named or not ("-> Tensor Y", as PyTorch prints it).
  if (rets.size() == 1) return s + render_arg(rets[0]);
  s += "(";
  for (size_t i = 0; i < rets.size(); ++i) s += (i ? ", " : "") + render_arg(rets[i]);
  return s + ")";
}

// A type as written, without alias annotations: "Tensor(a!)" -> "Tensor", "Tensor(a)[]" ->
// "Tensor[]".
std::string base_type(const std::string& type) {
  std::string r;
  int depth = 0;
  for (char c : type) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (depth == 0)
      r += c;
  }
  return r;
}

TEST(Schema, EveryRowRoundTrips) {
  auto ops = all_ops();
  ASSERT_EQ(ops.size(), static_cast<size_t>(dispatch::kNumOps));
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpHandle& op = ops[i];
    SCOPED_TRACE(op.schema());
    EXPECT_EQ(op.id(), static_cast<int>(i));
    EXPECT_EQ(&dispatch::op_handle(static_cast<OpId>(i)), &op);
    EXPECT_EQ(render(op), op.schema());
    // PyTorch's ops keep their names (aten::, quantized::); ember's own (module_load) live in
    // "ember::".
    EXPECT_TRUE(op.name().starts_with("aten::") || op.name().starts_with("quantized::") ||
                op.name().starts_with("ember::"));
    EXPECT_FALSE(op.overload().empty());
    EXPECT_EQ(op.full_name(),
              op.overload() == "default" ? op.name() : op.name() + "." + op.overload());
    EXPECT_EQ(&find_op(op.name(), op.overload()), &op);
    EXPECT_FALSE(op.returns().empty());
    // In-place ops are exactly those named with a trailing underscore, and write their self.
    EXPECT_EQ(op.is_inplace(), op.name().ends_with("_"));
  }
}

TEST(Schema, EveryTypeAndDefaultIsUnderstood) {
  // The types the boxing layer converts (alias annotations aside).
  const std::set<std::string> known = {
      "Tensor",       "Tensor?",       "Tensor[]",   "Tensor?[]", "int",
      "int?",         "int[]",         "int[1]",     "int[1]?",   "float",
      "float?",       "bool",          "bool?",      "Scalar",    "Scalar?",
      "ScalarType",   "ScalarType?",   "Layout?",    "Device",    "Device?",
      "MemoryFormat", "MemoryFormat?", "Generator?", "str",       "str?",
      "int[2]",       "int[4]",        "SymInt",     "SymInt[2]", "SymInt[4]",
      "SymInt[]?",    "SymInt[]",     "SymInt?",    "int[]?",     "int[3]",      "int[6]",
      "SymInt[3]",    "float[]?",
      "bool[3]",  // convolution_backward's output_mask (bool[3]: boxed as ints)
      "bool[2]",  // grid_sampler_3d_backward's output_mask (likewise)
      // objects of C++ classes (Value kind Object): the quantized ops' packed params
      "__torch__.torch.classes.quantized.Conv2dPackedParamsBase",
      "__torch__.torch.classes.quantized.Conv3dPackedParamsBase",
      "__torch__.torch.classes.quantized.LinearPackedParamsBase",
      "__torch__.torch.classes.quantized.EmbeddingPackedParamsBase"};
  for (const OpHandle& op : all_ops()) {
    SCOPED_TRACE(op.schema());
    std::set<std::string> names;
    for (const SchemaArg& a : op.arguments()) {
      std::string t = base_type(a.type);
      EXPECT_TRUE(known.count(t)) << "unknown type " << a.type;
      EXPECT_TRUE(names.insert(a.name).second) << "argument named twice: " << a.name;
      EXPECT_EQ(a.is_mutable, a.type.find('!') != std::string::npos);
      if (!a.default_value) continue;
      Value v = default_value(a.type, *a.default_value);
      if (v.is_none()) {
        EXPECT_TRUE(t.ends_with("?")) << a.name << " defaults to None but is not optional";
        continue;
      }
      std::string held = v.type_name();
      if (t.starts_with("int[") || t.starts_with("SymInt["))
        EXPECT_EQ(held, "int[]") << a.name;
      else if (t.starts_with("int") || t.starts_with("SymInt") || t.starts_with("MemoryFormat") ||
               t.starts_with("Layout"))
        EXPECT_EQ(held, "int") << a.name;
      else if (t.starts_with("float"))
        EXPECT_EQ(held, "float") << a.name;
      else if (t.starts_with("bool"))
        EXPECT_EQ(held, "bool") << a.name;
      else if (t.starts_with("ScalarType"))
        EXPECT_EQ(held, "ScalarType") << a.name;
      else if (t.starts_with("str"))
        EXPECT_EQ(held, "str") << a.name;
      else if (t.starts_with("Scalar"))
        EXPECT_TRUE(v.is_scalar()) << a.name;
      else
        ADD_FAILURE() << "unexpected default " << *a.default_value << " for " << a.type;
    }
  }
}

TEST(Schema, ParsesArgumentsReturnsAndAnnotations) {
  const OpHandle& add = find_op("aten::add", "Tensor");
  ASSERT_EQ(add.arguments().size(), 3u);
  EXPECT_EQ(add.arguments()[0].name, "self");
  EXPECT_EQ(add.arguments()[0].type, "Tensor");
  EXPECT_FALSE(add.arguments()[0].kwarg_only);
  EXPECT_FALSE(add.arguments()[0].default_value.has_value());
  EXPECT_EQ(add.arguments()[1].name, "other");
  EXPECT_EQ(add.arguments()[2].name, "alpha");
  EXPECT_EQ(add.arguments()[2].type, "Scalar");
  EXPECT_TRUE(add.arguments()[2].kwarg_only);
  EXPECT_EQ(add.arguments()[2].default_value, "1");
  ASSERT_EQ(add.returns().size(), 1u);
  EXPECT_EQ(add.returns()[0].type, "Tensor");
  EXPECT_EQ(add.returns()[0].name, "");
  EXPECT_FALSE(add.is_composite());
  EXPECT_FALSE(add.is_inplace());

  const OpHandle& copy = find_op("aten::copy_");
  EXPECT_EQ(copy.overload(), "default");
  EXPECT_EQ(copy.full_name(), "aten::copy_");
  EXPECT_EQ(copy.arguments()[0].type, "Tensor(a!)");
  EXPECT_TRUE(copy.arguments()[0].is_mutable);
  EXPECT_FALSE(copy.arguments()[1].is_mutable);
  EXPECT_TRUE(copy.returns()[0].is_mutable);
  EXPECT_TRUE(copy.is_inplace());

  const OpHandle& max_dim = find_op("aten::max", "dim");
  ASSERT_EQ(max_dim.returns().size(), 2u);
  EXPECT_EQ(max_dim.returns()[0].name, "values");
  EXPECT_EQ(max_dim.returns()[1].name, "indices");
  EXPECT_EQ(max_dim.returns()[1].type, "Tensor");

  const OpHandle& chunk = find_op("aten::chunk");
  EXPECT_EQ(chunk.arguments()[0].type, "Tensor(a -> *)");
  EXPECT_EQ(chunk.arguments()[0].name, "self");
  EXPECT_EQ(chunk.returns()[0].type, "Tensor(a)[]");
  EXPECT_TRUE(chunk.is_composite());

  const OpHandle& sort = find_op("aten::sort", "stable");
  EXPECT_EQ(sort.arguments()[1].name, "stable");
  EXPECT_EQ(sort.arguments()[1].type, "bool?");
  EXPECT_TRUE(sort.arguments()[1].kwarg_only);
  EXPECT_FALSE(sort.arguments()[1].default_value.has_value());  // required, though optional

  const OpHandle& gelu = find_op("aten::gelu");
  EXPECT_EQ(gelu.arguments()[1].default_value, "'none'");
  const OpHandle& index_put = find_op("aten::index_put_");
  EXPECT_EQ(index_put.arguments()[1].type, "Tensor?[]");
  EXPECT_TRUE(find_op("aten::linear").is_composite());
  EXPECT_TRUE(find_op("aten::to", "dtype").is_composite());
  EXPECT_FALSE(find_op("aten::_to_copy").is_composite());
}

TEST(Schema, FindOpAndOverloads) {
  const OpHandle& detach = find_op("aten::detach");
  EXPECT_EQ(&find_op("aten::detach", ""), &detach);
  EXPECT_EQ(&find_op("aten::detach", "default"), &detach);
  EXPECT_EQ(op_overloads("aten::add"), (std::vector<std::string>{"Tensor", "Scalar"}));
  EXPECT_EQ(op_overloads("aten::div"),
            (std::vector<std::string>{"Tensor", "Tensor_mode", "Scalar", "Scalar_mode"}));
  EXPECT_EQ(op_overloads("aten::to"), (std::vector<std::string>{"dtype", "device"}));
  EXPECT_EQ(op_overloads("aten::detach"), (std::vector<std::string>{"default"}));
  EXPECT_TRUE(op_overloads("aten::no_such_op").empty());
  expect_error([] { find_op("aten::no_such_op"); },
               "no op named 'aten::no_such_op' in ember's op table", ErrorKind::Key);
  expect_error([] { find_op("aten::detach", "Scalar"); },
               "no op named 'aten::detach.Scalar' in ember's op table", ErrorKind::Key);
  expect_error([] { find_op("add", "Tensor"); }, "no op named 'add.Tensor'", ErrorKind::Key);
}

TEST(Schema, MalformedSchemasAreErrors) {
  using dispatch::parse_schema;
  expect_error([] { parse_schema("aten::foo"); },
               "malformed schema (expected 'ns::name.overload(args) -> returns'): aten::foo");
  expect_error([] { parse_schema("aten::foo(Tensor self) Tensor"); }, "malformed schema");
  expect_error([] { parse_schema("foo(Tensor self) -> Tensor"); },
               "malformed schema (the name must be 'namespace::name'): foo(Tensor self) -> Tensor");
  expect_error([] { parse_schema("aten::foo(Tensor) -> Tensor"); },
               "malformed schema (argument 'Tensor' has no name)");
  expect_error([] { parse_schema("aten::foo(Tensor self, *, *, int a) -> Tensor"); },
               "'*' appears twice");
  expect_error([] { parse_schema("aten::foo(int a=) -> Tensor"); }, "has an empty default");
  ParsedSchema p = parse_schema(
      "my::op.v2(Tensor(a!) x, int[2] k=1, *, float eps=1e-05) -> (Tensor a, Tensor b)");
  EXPECT_EQ(p.name, "my::op");
  EXPECT_EQ(p.overload, "v2");
  ASSERT_EQ(p.arguments.size(), 3u);
  EXPECT_TRUE(p.arguments[0].is_mutable);
  EXPECT_EQ(p.arguments[1].type, "int[2]");
  EXPECT_TRUE(p.arguments[2].kwarg_only);
  ASSERT_EQ(p.returns.size(), 2u);
  EXPECT_EQ(p.returns[1].name, "b");
}

TEST(Schema, DefaultValues) {
  // Each kind of default the table uses, converted for its argument's type.
  EXPECT_EQ(default_value("int[1]", "[]").to_int_list(), std::vector<int64_t>{});
  EXPECT_EQ(default_value("int[]", "[0, 1]").to_int_list(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(default_value("int[2]", "1").to_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(default_value("float[]", "[0.5, 2]").to_double_list(), (std::vector<double>{0.5, 2}));
  EXPECT_EQ(default_value("ScalarType?", "long").to_dtype(), kInt64);
  EXPECT_EQ(default_value("ScalarType", "float").to_dtype(), kFloat32);
  EXPECT_EQ(default_value("str", "'none'").to_string_value(), "none");
  EXPECT_EQ(default_value("str", "\"tanh\"").to_string_value(), "tanh");
  Value p = default_value("float", "0.5");
  ASSERT_TRUE(p.is_double());
  EXPECT_EQ(p.to_double(), 0.5);
  Value from = default_value("float", "0");  // a float argument's default is a float
  ASSERT_TRUE(from.is_double());
  EXPECT_EQ(from.to_double(), 0.0);
  EXPECT_TRUE(std::isinf(default_value("float", "-inf").to_double()));
  EXPECT_EQ(default_value("float", "1e-05").to_double(), 1e-05);
  Value alpha = default_value("Scalar", "1");  // an int Scalar stays int (weak promotion)
  ASSERT_TRUE(alpha.is_int());
  EXPECT_EQ(alpha.to_int(), 1);
  EXPECT_TRUE(default_value("Scalar", "0.5").is_double());
  EXPECT_EQ(default_value("Scalar", "-1").to_int(), -1);
  EXPECT_EQ(default_value("int", "-1").to_int(), -1);
  EXPECT_TRUE(default_value("int?", "None").is_none());
  EXPECT_TRUE(default_value("bool?", "None").is_none());
  EXPECT_EQ(default_value("bool", "False").to_bool(), false);
  EXPECT_EQ(default_value("bool", "True").to_bool(), true);
  EXPECT_EQ(default_value("MemoryFormat", "contiguous_format").to_int(), 0);
  EXPECT_EQ(default_value("MemoryFormat", "preserve_format").to_int(), 1);
  EXPECT_EQ(default_value("MemoryFormat", "0").to_int(), 0);  // as torch prints it
  EXPECT_EQ(default_value("Layout", "strided").to_int(), 0);
  expect_error([] { default_value("ScalarType?", "lung"); }, "unknown dtype 'lung'",
               ErrorKind::Value);
  expect_error([] { default_value("int", "1x"); },
               "malformed number '1x' in default 1x for an argument of type int");
  expect_error([] { default_value("bool", "1"); }, "for a bool argument (expected True or False)");
  expect_error([] { default_value("MemoryFormat", "sideways"); },
               "unknown default 'sideways' for an argument of type MemoryFormat");
  expect_error([] { default_value("str", "'none"); }, "unterminated string default 'none");
  expect_error([] { default_value("int[]", "[1, 2"); }, "unterminated list default [1, 2");
}

TEST(Schema, FillDefaultsFromTheTable) {
  Tensor t = zeros({2});
  Stack amax = fill_defaults(find_op("aten::amax"), {Value(t)});
  ASSERT_EQ(amax.size(), 3u);
  EXPECT_EQ(amax[1].to_int_list(), std::vector<int64_t>{});
  EXPECT_FALSE(amax[2].to_bool());

  Stack randint = fill_defaults(find_op("aten::randint", "low"), {0, 10, std::vector<int64_t>{3}});
  ASSERT_EQ(randint.size(), 7u);
  EXPECT_EQ(randint[3].to_dtype(), kInt64);
  EXPECT_TRUE(randint[4].is_none() && randint[5].is_none() && randint[6].is_none());

  Stack gelu = fill_defaults(find_op("aten::gelu"), {t});
  EXPECT_EQ(gelu[1].to_string_value(), "none");
  Stack bern = fill_defaults(find_op("aten::bernoulli_", "float"), {t});
  EXPECT_EQ(bern[1].to_double(), 0.5);
  EXPECT_TRUE(bern[2].is_none());
  Stack add = fill_defaults(find_op("aten::add", "Tensor"), {t, t});
  EXPECT_TRUE(add[2].is_int());
  EXPECT_EQ(add[2].to_int(), 1);
  Stack slice = fill_defaults(find_op("aten::slice", "Tensor"), {t});
  EXPECT_EQ(slice[1].to_int(), 0);
  EXPECT_TRUE(slice[2].is_none());
  EXPECT_TRUE(slice[3].is_none());
  EXPECT_EQ(slice[4].to_int(), 1);
  Stack hardtanh = fill_defaults(find_op("aten::hardtanh"), {t});
  EXPECT_EQ(hardtanh[1].to_int(), -1);
  EXPECT_EQ(hardtanh[2].to_int(), 1);
  Stack contiguous = fill_defaults(find_op("aten::contiguous"), {t});
  EXPECT_EQ(contiguous[1].to_int(), 0);
  Stack var = fill_defaults(find_op("aten::var", "correction"), {t});
  EXPECT_TRUE(var[1].is_none() && var[2].is_none());
  EXPECT_FALSE(var[3].to_bool());
  Stack sort = fill_defaults(find_op("aten::sort", "stable"), {t, Value()});  // stable given
  EXPECT_EQ(sort[2].to_int(), -1);
  EXPECT_FALSE(sort[3].to_bool());

  // A required argument left out, optional or not, and too many arguments: TypeErrors.
  expect_error([&] { fill_defaults(find_op("aten::sort", "stable"), {t}); },
               "aten::sort.stable() missing required argument 'stable' (position 1)",
               ErrorKind::Type);
  expect_error([&] { fill_defaults(find_op("aten::add", "Tensor"), {t}); },
               "aten::add.Tensor() missing required argument 'other' (position 1)",
               ErrorKind::Type);
  expect_error(
      [&] {
        fill_defaults(find_op("aten::detach"), {t, t});
      },
      "aten::detach() takes 1 arguments but 2 were given", ErrorKind::Type);
}

TEST(Schema, BoxedFrontendsTakeTheSchemasArguments) {
  // A frontend registered with EMBER_REGISTER_OP must take exactly the schema's arguments, in
  // order, or boxed calls (overrides' redispatch, Python) would shift them.
  int registered = 0;
  for (const OpHandle& op : all_ops()) {
    auto id = static_cast<OpId>(op.id());
    if (!dispatch::boxed_fn(id)) {
      EXPECT_EQ(dispatch::boxed_arity(id), -1) << op.full_name();
      continue;
    }
    ++registered;
    EXPECT_EQ(dispatch::boxed_arity(id), static_cast<int>(op.arguments().size()))
        << op.full_name() << ": the C++ frontend's parameters differ from " << op.schema();
  }
  EXPECT_GE(registered, 20);  // copy, factory, view and binary ops at least
}

TEST(Schema, BoxedCallsFillDefaultsAndConvert) {
  Tensor a = full({2}, 1.5), b = full({2}, 2.0);
  const OpHandle& add = find_op("aten::add", "Tensor");
  Stack out = add.call({a, b});
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0].to_tensor(), {2}, {3.5, 3.5});
  expect_values(add.call({a, b, 2})[0].to_tensor(), {2}, {5.5, 5.5});
  expect_values(add.call({a, b, 0.5})[0].to_tensor(), {2}, {2.5, 2.5});

  Stack z = find_op("aten::zeros").call({std::vector<int64_t>{2, 3}});
  EXPECT_EQ(z[0].to_tensor().dtype(), kFloat32);
  expect_values(z[0].to_tensor(), {2, 3}, {0, 0, 0, 0, 0, 0});
  Stack zi = find_op("aten::zeros").call({std::vector<int64_t>{2}, kInt64});
  EXPECT_EQ(zi[0].to_tensor().dtype(), kInt64);
  Stack e = find_op("aten::empty", "memory_format")
                .call({std::vector<int64_t>{4}, Value(), Value(), kMeta});
  EXPECT_TRUE(e[0].to_tensor().is_meta());

  Tensor col = full({3, 1}, 2.0);
  Tensor x = find_op("aten::expand").call({col, std::vector<int64_t>{3, 2}})[0].to_tensor();
  EXPECT_EQ(x.strides().vec(), (std::vector<int64_t>{1, 0}));
  // contiguous's default memory format (contiguous_format) unboxes as the int its frontend takes.
  Tensor c = find_op("aten::contiguous").call({x})[0].to_tensor();
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {3, 2}, {2, 2, 2, 2, 2, 2});

  Tensor d = find_op("aten::to", "dtype").call({a, kFloat64})[0].to_tensor();
  EXPECT_EQ(d.dtype(), kFloat64);
  Tensor same = find_op("aten::to", "dtype").call({a, kFloat32})[0].to_tensor();
  EXPECT_TRUE(same.is_same(a));  // to() without a change returns self
  Tensor copy = find_op("aten::_to_copy").call({a})[0].to_tensor();
  EXPECT_FALSE(copy.is_same(a));
  expect_values(copy, {2}, {1.5, 1.5});
  Tensor moved = find_op("aten::to", "device").call({a, "meta", kFloat64})[0].to_tensor();
  EXPECT_TRUE(moved.is_meta());

  Tensor f = zeros({2});
  Stack filled = find_op("aten::fill_", "Scalar").call({f, 4});
  EXPECT_TRUE(filled[0].to_tensor().is_same(f));  // in place: the mutated argument comes back
  expect_values(f, {2}, {4, 4});

  expect_error(
      [&] {
        add.call({a, "x"});
      },
      "expected a value of type Tensor but got str", ErrorKind::Type);
  expect_error([&] { add.call({a, b, "x"}); }, "expected a Number but got str", ErrorKind::Type);
  expect_error(
      [&] {
        find_op("aten::zeros").call({std::vector<int64_t>{2}, 3.0});
      },
      "expected a value of type ScalarType but got float", ErrorKind::Type);
}

TEST(Schema, OpsWithoutFrontendCannotBeCalledByName) {
  for (const OpHandle& op : all_ops()) {
    if (dispatch::boxed_fn(static_cast<OpId>(op.id()))) continue;
    expect_error([&] { op.call({}); },
                 "op " + op.full_name() + " has no boxed entry (it cannot be called by name)",
                 ErrorKind::NotImplemented);
    return;  // one is enough; once every op has a frontend there is none to try
  }
}

TEST(Value, HoldsEachKindAndNamesIt) {
  EXPECT_STREQ(Value().type_name(), "None");
  EXPECT_TRUE(Value(std::nullopt).is_none());
  EXPECT_STREQ(Value(zeros({1})).type_name(), "Tensor");
  EXPECT_STREQ(Value(3).type_name(), "int");
  EXPECT_STREQ(Value(int64_t{3}).type_name(), "int");
  EXPECT_STREQ(Value(0.5).type_name(), "float");
  EXPECT_STREQ(Value(true).type_name(), "bool");
  EXPECT_STREQ(Value(std::vector<int64_t>{1}).type_name(), "int[]");
  EXPECT_STREQ(Value(IntArrayRef{1, 2}).type_name(), "int[]");
  EXPECT_STREQ(Value(std::vector<double>{1}).type_name(), "float[]");
  EXPECT_STREQ(Value(std::vector<Tensor>{}).type_name(), "Tensor[]");
  EXPECT_STREQ(Value(Value::OptionalTensorList{}).type_name(), "Tensor?[]");
  EXPECT_STREQ(Value(kInt8).type_name(), "ScalarType");
  EXPECT_STREQ(Value(kMeta).type_name(), "Device");
  EXPECT_STREQ(Value("s").type_name(), "str");
  EXPECT_TRUE(Value(std::optional<int64_t>()).is_none());
  EXPECT_EQ(Value(std::optional<int64_t>(4)).to_int(), 4);
  // Scalars box by kind.
  EXPECT_TRUE(Value(Scalar(2)).is_int());
  EXPECT_TRUE(Value(Scalar(2.5)).is_double());
  EXPECT_TRUE(Value(Scalar(true)).is_bool());
}

TEST(Value, ConversionsAndTheirErrors) {
  EXPECT_EQ(Value(3).to_double(), 3.0);                          // an int is a valid float
  EXPECT_EQ(Value(true).to_int(), 1);                            // and a bool a valid int
  EXPECT_EQ(Value(full({}, 2.5)).to_scalar().to_double(), 2.5);  // a 1-element tensor a Number
  EXPECT_EQ(Value("meta").to_device(), kMeta);
  expect_error([] { Value(0.5).to_int(); }, "expected a value of type int but got float",
               ErrorKind::Type);
  expect_error([] { Value(1).to_bool(); }, "expected a value of type bool but got int",
               ErrorKind::Type);
  expect_error([] { Value().to_tensor(); }, "expected a value of type Tensor but got None",
               ErrorKind::Type);
  expect_error([] { Value(zeros({2})).to_scalar(); },
               "expected a Number but got a Tensor with 2 elements", ErrorKind::Type);
  expect_error([] { Value(Tensor()).to_scalar(); }, "expected a Number but got an undefined Tensor",
               ErrorKind::Type);
  expect_error([] { Value(std::vector<int64_t>{}).to_tensor_list(); },
               "expected a value of type Tensor[] but got int[]", ErrorKind::Type);
}

}  // namespace
}  // namespace ember
