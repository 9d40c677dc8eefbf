// No error text says `torch.` where PyTorch's would (issue 17): ember says `ember.`.
//
// Note [Recording error texts] (ember/error.h) records every ember::Error's message. This file
// turns recording on before the first test of the binary runs (a gtest global environment) and,
// after the last one, checks every text the C++ suite provoked; the Python suite does the same
// in tests/python/conftest.py. A text may still name torch's own objects where it must: a
// checkpoint's pickled globals (`torch._utils._rebuild_tensor_v2`, `__torch__.torch.classes...`)
// a pickle's `GLOBAL torch.X` quoted from a file, the class of a user's own object (`<class 'torch.Tensor'>`) and addresses (`pytorch.org`,
// `...html#torch.nn`) — `torch.` preceded by a letter, digit, `_` or `.` is not a
// leak, and names_torch() knows the pickled module prefixes.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "ember/error.h"

namespace {

// The modules whose names a checkpoint's pickle holds (a text quoting them quotes the file).
const char* const kPickledPrefixes[] = {"torch._utils.", "torch.storage.", "torch.nn.parameter.",
                                        "torch._tensor.", "torch.serialization."};

// Whether `text` names `torch.` as ember's own name (a leak).
bool names_torch(const std::string& text) {
  for (size_t at = text.find("torch."); at != std::string::npos; at = text.find("torch.", at + 1)) {
    if (at > 0) {
      const unsigned char before = static_cast<unsigned char>(text[at - 1]);
      if (std::isalnum(before) || before == '_' || before == '.') continue;
    }
    // An address's anchor (https://pytorch.org/docs/...html#torch.autograd.Function).
    const size_t token = text.find_last_of(" \n\t", at);
    if (text.substr(token == std::string::npos ? 0 : token, at - (token == std::string::npos ? 0 : token))
            .find("://") != std::string::npos)
      continue;
    if (at >= 8 && text.compare(at - 8, 8, "<class '") == 0) continue;  // a user object's class
    if (at >= 7 && text.compare(at - 7, 7, "GLOBAL ") == 0) continue;   // a pickle's global
    bool pickled = false;
    for (const char* prefix : kPickledPrefixes) pickled |= text.compare(at, std::string(prefix).size(), prefix) == 0;
    if (!pickled) return true;
  }
  return false;
}

class ErrorTextEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ember::detail::take_recorded_errors();
    ember::detail::set_error_recording(true);
  }
  void TearDown() override {
    ember::detail::set_error_recording(false);
    std::vector<std::string> leaks;
    for (const std::string& text : ember::detail::take_recorded_errors())
      if (names_torch(text)) leaks.push_back(text);
    for (const std::string& text : leaks) ADD_FAILURE() << "an error text names torch.: " << text;
  }
};

const auto* const g_environment = ::testing::AddGlobalTestEnvironment(new ErrorTextEnvironment);

TEST(ErrorTexts, RecordingSeesEveryError) {
  // The environment has recording on: an error made here shows up (and is taken back out, so
  // that this test's deliberate text is not checked).
  auto before = ember::detail::take_recorded_errors();
  try {
    EMBER_CHECK_VALUE(false, "a torch.Size([2]) text");
  } catch (const ember::ValueError&) {
  }
  auto texts = ember::detail::take_recorded_errors();
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "a torch.Size([2]) text");
  EXPECT_TRUE(names_torch(texts[0]));
  // Put back what other tests in this process recorded before this one.
  ember::detail::set_error_recording(true);
  for (const std::string& t : before) {
    try {
      throw ember::Error(t);
    } catch (const ember::Error&) {
    }
  }
}

TEST(ErrorTexts, TheCheckTellsLeaksFromTorchsOwnNames) {
  EXPECT_TRUE(names_torch("expected torch.Tensor"));
  EXPECT_TRUE(names_torch("torch.__future__.set_swap_module_params_on_conversion"));
  EXPECT_FALSE(names_torch("expected ember.Tensor"));
  EXPECT_FALSE(names_torch("see https://pytorch.org/docs"));
  EXPECT_FALSE(names_torch("unsupported global torch._utils._rebuild_foo"));
  EXPECT_FALSE(names_torch("class __torch__.torch.classes.quantized.X"));
  EXPECT_FALSE(names_torch("safetensors.torch.save_model"));
  EXPECT_FALSE(names_torch("expected a Tensor, got <class 'torch.Tensor'>"));
  EXPECT_FALSE(names_torch("Unsupported global: GLOBAL torch.EvilStorage is not an allowed global"));
  EXPECT_FALSE(names_torch("see https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function"));
  EXPECT_TRUE(names_torch("https://x.org/ torch.nn"));
}

}  // namespace
