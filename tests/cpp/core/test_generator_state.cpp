// Generator state (get_state / set_state), seeding, the default generator's free functions, and
// generators reaching ops through the boxed path (Value / OpHandle::call), as Python passes them.
#include "ember/dispatch.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;

TEST(GeneratorState, RoundTripReplaysEveryKindOfDraw) {
  Generator g(5);
  randn({3}, {}, &g);  // leaves a cached normal behind
  g.next_normal();
  const Tensor state = g.get_state();
  EXPECT_EQ(state.dtype(), kUInt8);
  EXPECT_EQ(state.numel(), Generator::kStateBytes);
  const Tensor a = rand({4}, {}, &g), b = randn({5}, {}, &g);
  const double n = g.next_normal();
  g.set_state(state);
  EXPECT_TRUE(equal(rand({4}, {}, &g), a));
  EXPECT_TRUE(equal(randn({5}, {}, &g), b));
  EXPECT_EQ(g.next_normal(), n);
  Generator h;
  h.set_state(state);
  EXPECT_EQ(h.initial_seed(), 5u);
  EXPECT_TRUE(equal(rand({4}, {}, &h), a));
}

TEST(GeneratorState, StateIsACopy) {
  Generator g(1);
  const Tensor s = g.get_state();
  const Tensor copy = s.clone();
  rand({100}, {}, &g);
  EXPECT_TRUE(equal(s, copy));
  EXPECT_FALSE(equal(g.get_state(), s));
}

TEST(GeneratorState, BadStatesAreRefusedAndLeaveTheGeneratorUnchanged) {
  Generator g(9);
  const Tensor before = g.get_state();
  expect_error([&] { g.set_state(zeros({10})); }, "RNG state must be a ember.ByteTensor", ErrorKind::Type);
  expect_error([&] { g.set_state(zeros({10}, kUInt8)); },
               "but found the input RNG state size to be 10");
  Tensor bad = before.clone();
  bad.data_ptr<uint8_t>()[312 * 8] = 255;  // the engine position
  expect_error([&] { g.set_state(bad); }, "Invalid RNG state");
  expect_error([&] { g.set_state(Tensor()); }, "RNG state must be", ErrorKind::Type);
  EXPECT_TRUE(equal(g.get_state(), before));
}

TEST(GeneratorState, SeedAndDefaultGeneratorFunctions) {
  Generator g;
  EXPECT_EQ(g.initial_seed(), 67280421310721u);
  const uint64_t s = g.seed();
  EXPECT_EQ(g.initial_seed(), s);
  EXPECT_EQ(g.device(), kCPU);

  manual_seed(3);
  EXPECT_EQ(initial_seed(), 3u);
  const Tensor state = get_rng_state();
  const Tensor a = rand({6});
  set_rng_state(state);
  EXPECT_TRUE(equal(rand({6}), a));
  const uint64_t fresh = seed();
  EXPECT_EQ(initial_seed(), fresh);
}

TEST(GeneratorState, SameSeedSameNumbersAsTheDefaultGenerator) {
  manual_seed(42);
  const Tensor a = rand({5}), b = randint(0, 100, {4});
  Generator g(42);
  EXPECT_TRUE(equal(rand({5}, {}, &g), a));
  EXPECT_TRUE(equal(randint(0, 100, {4}, {}, &g), b));
}

TEST(GeneratorState, GeneratorsCrossTheBox) {
  // A boxed call (as from Python) carries the generator; None means the default one.
  Generator g(7);
  Tensor x = empty({6});
  const OpHandle& uniform = find_op("aten::uniform_");
  uniform.call({x, 0.0, 1.0, Value(&g)});
  Generator h(7);
  Tensor y = empty({6});
  uniform_(y, 0, 1, &h);
  EXPECT_TRUE(equal(x, y));

  const OpHandle& rand_gen = find_op("aten::rand", "generator");
  Generator k(7);
  Stack out = rand_gen.call({std::vector<int64_t>{6}, Value(&k)});
  EXPECT_TRUE(equal(out[0].to_tensor(), y));

  Value v(&g);
  EXPECT_TRUE(v.is_generator());
  EXPECT_EQ(v.to_generator(), &g);
  EXPECT_STREQ(v.type_name(), "Generator");
  EXPECT_EQ(Value(static_cast<Generator*>(nullptr)).to_generator(), nullptr);
  EXPECT_TRUE(Value(static_cast<Generator*>(nullptr)).is_none());
}

TEST(GeneratorState, RandomToAndPlainRandom) {
  Generator g(3);
  Tensor a = empty({200}, kInt64);
  random_(a, 0, 5, &g);
  EXPECT_GE(a.min().item().to_int(), 0);
  EXPECT_LE(a.max().item().to_int(), 4);
  manual_seed(11);
  Tensor b = empty({50}, kInt64);
  random_(b, 7);
  manual_seed(11);
  Tensor c = empty({50}, kInt64);
  random_(c, 0, 7);
  EXPECT_TRUE(equal(b, c));
  Tensor d = empty({100}, kUInt8);
  random_(d);
  EXPECT_GT(d.max().item().to_int(), 128);
}

}  // namespace
}  // namespace ember
