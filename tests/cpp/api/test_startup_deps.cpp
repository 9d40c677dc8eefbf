// What loading libember costs a process (issue 17's hello_startup): libcurl and libcrypto are
// not among libember's DT_NEEDED entries, so a process that never downloads never loads them
// (Note [Lazy libcurl and libcrypto]); the first download opens them (tests/cpp/serialization/
// test_hub.cpp exercises that path).
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

struct Search {
  std::string path;                 // libember's file, from dladdr
  std::vector<std::string> needed;  // its DT_NEEDED entries
  bool found = false;
};

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || s->path != info->dlpi_name) return 0;
  s->found = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char* strtab = nullptr;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    for (const ElfW(Dyn)* d = dyn; strtab != nullptr && d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_NEEDED) s->needed.emplace_back(strtab + d->d_un.d_val);
  }
  return 1;
}

TEST(StartupDeps, LibemberDoesNotNeedLibcurlOrLibcrypto) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<const void*>(&ember::detail::set_error_recording), &info), 0);
  Search s;
  s.path = info.dli_fname;
  dl_iterate_phdr(visit, &s);
  ASSERT_TRUE(s.found) << s.path;
  ASSERT_FALSE(s.needed.empty());  // the walk works: libstdc++, libc, ... are there
  bool has_libc = false;
  for (const std::string& n : s.needed) {
    has_libc = has_libc || n.rfind("libc.so", 0) == 0;
    EXPECT_NE(n.rfind("libcurl", 0), 0u) << n;
    EXPECT_NE(n.rfind("libcrypto", 0), 0u) << n;
    EXPECT_NE(n.rfind("libssl", 0), 0u) << n;
  }
  EXPECT_TRUE(has_libc);
}

}  // namespace
