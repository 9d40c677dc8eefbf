// safetensors from C++ (no Python in the process): exact bytes, round trips through files and
// buffers, zero-copy loads, the save refusals and the header checks.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "ember/safetensors.h"
#include "testing.h"

namespace ember {
namespace {

namespace st = safetensors;
using testing::expect_error;
using testing::expect_values;
using testing::iota;

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(n >> (8 * i));
  return s;
}

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::to_string(getpid()) + "_" + name)).string();
}

TEST(Safetensors, BytesAreTheFormatExactly) {
  Tensor x = iota({2, 3});
  Tensor a = iota({2}, kInt64, 1);
  std::string got = st::serialize({{"x", x}, {"a", a}}, st::Metadata{{"format", "pt"}});
  std::string header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
      R"("x":{"dtype":"F32","shape":[2,3],"data_offsets":[16,40]}})";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::string expected = le64(header.size()) + header;
  expected.append(static_cast<const char*>(a.data_ptr()), 16);
  expected.append(static_cast<const char*>(x.data_ptr()), 24);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(st::serialize({}), le64(8) + "{}      ");
}

TEST(Safetensors, RoundTripThroughBufferAndFile) {
  st::TensorList tensors = {{"w", iota({3, 4}, kBFloat16)},
                            {"h", iota({5}, kFloat16)},
                            {"b", iota({2, 2}, kFloat64)},
                            {"i", iota({}, kInt32, 7)},
                            {"e", empty({0, 4}, kInt8)},
                            {"m", iota({3}, kBool)}};
  std::string bytes = st::serialize(tensors);
  auto from_bytes = st::load(bytes.data(), bytes.size());
  const std::string path = temp_path("rt.safetensors");
  st::save_file(tensors, path, st::Metadata{{"k", "v"}});
  auto from_file = st::load_file(path);
  for (auto* loaded : {&from_bytes, &from_file}) {
    ASSERT_EQ(loaded->size(), tensors.size());
    for (const auto& [name, t] : tensors) {
      auto it = std::find_if(loaded->begin(), loaded->end(), [&](const auto& e) { return e.first == name; });
      ASSERT_NE(it, loaded->end()) << name;
      EXPECT_EQ(it->second.dtype(), t.dtype()) << name;
      EXPECT_EQ(it->second.sizes().vec(), t.sizes().vec()) << name;
      EXPECT_EQ(testing::values(it->second), testing::values(t)) << name;
    }
  }
  st::SafeOpen f(path);
  EXPECT_EQ(f.keys(), (std::vector<std::string>{"b", "e", "h", "i", "m", "w"}));
  // On disk: F64, I32, BF16, F16, I8, BOOL (descending alignment), so that order from offset_keys.
  EXPECT_EQ(f.offset_keys(), (std::vector<std::string>{"b", "i", "w", "h", "e", "m"}));
  ASSERT_TRUE(f.metadata().has_value());
  EXPECT_EQ(f.metadata()->at("k"), "v");
  expect_values(f.get_slice("w", {int64_t{-1}, st::Narrow{1, 3}}), {2}, {9, 10});
  expect_values(f.get_slice("w", {st::Narrow{std::nullopt, 2}}), {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  expect_error([&] { f.get_slice("w", {st::Narrow{0, 4}}); },
               "Error during slicing [0:4] with shape [3, 4]: index 3 out of bounds for tensor dimension #0 of size 3");
  expect_error([&] { f.get_tensor("zz"); }, "File does not contain tensor zz");
  std::filesystem::remove(path);
}

TEST(Safetensors, LoadFileIsZeroCopyAndPrivate) {
  const std::string path = temp_path("zc.safetensors");
  st::save_file({{"w", iota({1024})}}, path);
  st::SafeOpen f(path);
  Tensor a = f.get_tensor("w"), b = f.get_tensor("w");
  EXPECT_EQ(a.data_ptr(), b.data_ptr());  // both views of the one mapping
  a.data_ptr<float>()[0] = 5.f;
  EXPECT_EQ(st::load_file(path)[0].second.data_ptr<float>()[0], 0.f);  // the file is unchanged
  std::filesystem::remove(path);
  EXPECT_EQ(b.data_ptr<float>()[1], 1.f);  // the mapping outlives the name
}

TEST(Safetensors, SaveRefusesWhatSafetensorsRefuses) {
  Tensor x = iota({4, 4});
  expect_error([&] { st::serialize({{"a", x}, {"b", x.narrow(0, 1, 2)}}); },
               "Some tensors share memory, this will lead to duplicate memory on disk and potential differences "
               "when loading them again: [{'a', 'b'}]");
  EXPECT_NO_THROW(st::serialize({{"a", x.select(0, 0)}, {"b", x.select(0, 1)}}));
  expect_error([&] { st::serialize({{"t", x.t()}}); }, "You are trying to save a non contiguous tensor: `t`",
               ErrorKind::Value);
}

TEST(Safetensors, MalformedHeadersAreRefused) {
  auto load = [](const std::string& s) { return st::load(s.data(), s.size()); };
  expect_error([&] { load("abc"); }, "Error while deserializing: header too small");
  expect_error([&] { load(le64(100'000'001) + "{}"); }, "header too large");
  expect_error([&] { load(le64(40) + "{}"); }, "invalid header length");
  expect_error([&] { load(le64(2) + "{]"); }, "invalid JSON in header");
  const std::string h = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  expect_error([&] { load(le64(h.size()) + h + std::string(7, '\0')); },
               "incomplete metadata, file not fully covered");
  EXPECT_EQ(load(le64(h.size()) + h + std::string(8, '\0')).size(), 1u);
  try {
    load("x");
    FAIL();
  } catch (const st::SafetensorError&) {
  }
  const std::string missing = temp_path("does-not-exist.safetensors");
  EXPECT_THROW(st::SafeOpen{missing}, st::FileNotFound);
}

}  // namespace
}  // namespace ember
