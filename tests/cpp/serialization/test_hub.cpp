// ember::hub from C++: file:// downloads with and without a hash, the cache, torch.hub's hash
// rule, and tqdm's meter as torch.hub shows it.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember/hub.h"
#include "serialization/hub_progress.h"
#include "testing.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  fs::path d = fs::temp_directory_path() / (std::to_string(getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(Hub, HashRuleIsTorchHubs) {
  EXPECT_EQ(hub::hash_prefix_of("resnet18-f37072fd.pth"), "f37072fd");
  EXPECT_EQ(hub::hash_prefix_of("mobilenet_v2_qnnpack_37f702c5.pth"), std::nullopt);
  EXPECT_EQ(hub::hash_prefix_of("a-b-0fa.pth"), "0fa");  // the first match of -([a-f0-9]*)\.
  EXPECT_EQ(hub::hash_prefix_of("x-.pth"), "");
  EXPECT_EQ(hub::hash_prefix_of("x-ABC.pth"), std::nullopt);
}

TEST(Hub, TqdmMeter) {
  EXPECT_EQ(hub::format_sizeof(0), "0.00");
  EXPECT_EQ(hub::format_sizeof(999), "999");
  EXPECT_EQ(hub::format_sizeof(1023), "1.00k");
  EXPECT_EQ(hub::format_sizeof(10.5 * 1024 * 1024), "10.5M");
  EXPECT_EQ(hub::format_interval(7), "00:07");
  EXPECT_EQ(hub::format_interval(3723), "1:02:03");
  EXPECT_EQ(hub::format_meter(512, 1024, 1.0), " 50%|█████     | 512/1.00k [00:01<00:01, 512B/s]");
  EXPECT_EQ(hub::format_meter(1024, 1024, 0.5), "100%|██████████| 1.00k/1.00k [00:00<00:00, 2.00kB/s]");
  EXPECT_EQ(hub::format_meter(100, 1000, 0.0), " 10%|█         | 100/0.98k [00:00<?, ?B/s]");
  EXPECT_EQ(hub::format_meter(2048, std::nullopt, 2.0), "2.00k [00:02, 1.00kB/s]");
}

TEST(Hub, FileUrlsHashAndCache) {
  const fs::path dir = fresh_dir("hub");
  const fs::path src = dir / "w.pt";
  nn::StateDict saved;
  saved.insert("w", testing::iota({3}));
  save(saved, src.string());
  const std::string url = "file://" + src.string();
  std::string err;
  hub::set_stderr_sink([&](std::string_view s) { err += s; });
  hub::download_url_to_file(url, (dir / "copy.pt").string(), std::nullopt, false);
  EXPECT_EQ(read(dir / "copy.pt"), read(src));
  EXPECT_EQ(err, "");
  testing::expect_error([&] { hub::download_url_to_file(url, (dir / "bad.pt").string(), "0000000", false); },
                        "invalid hash value (expected \"0000000\", got \"");
  EXPECT_FALSE(fs::exists(dir / "bad.pt"));
  EXPECT_THROW(hub::download_url_to_file("file://" + (dir / "none").string(), (dir / "n.pt").string()),
               hub::UrlError);

  hub::UrlOptions o;
  o.model_dir = (dir / "cache").string();
  auto sd = hub::load_state_dict_from_url(url, o);
  testing::expect_values(sd.at("w").to_tensor(), {3}, {0, 1, 2});
  EXPECT_NE(err.find("Downloading: \"" + url + "\" to " + (dir / "cache" / "w.pt").string() + "\n"),
            std::string::npos);
  EXPECT_NE(err.find("100%|██████████|"), std::string::npos);
  err.clear();
  fs::remove(src);  // a cache hit never touches the URL
  testing::expect_values(hub::load_state_dict_from_url(url, o).at("w").to_tensor(), {3}, {0, 1, 2});
  EXPECT_EQ(err, "");
  hub::set_stderr_sink(nullptr);
  fs::remove_all(dir);
}

TEST(Hub, GetDirAndSetDir) {
  const std::string before = hub::get_dir();
  hub::set_dir("/tmp/somewhere");
  EXPECT_EQ(hub::get_dir(), "/tmp/somewhere");
  hub::set_dir(before);
}

}  // namespace
}  // namespace ember
