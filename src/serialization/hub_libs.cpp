// Note [Lazy libcurl and libcrypto] (hub_libs.h).
#include "serialization/hub_libs.h"

#include <dlfcn.h>

#include "ember/error.h"

namespace ember::hub::libs {

namespace {

void* open_library(const char* soname, const char* package) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    EMBER_FAIL("ember::hub needs ", soname, " for downloads and could not load it (",
               why ? why : "unknown error", "): apt-get install ", package);
  }
  return handle;
}

template <class F>
void bind(void* handle, const char* soname, const char* name, F& fn) {
  void* sym = dlsym(handle, name);
  EMBER_CHECK(sym != nullptr, "ember::hub: ", soname, " has no ", name);
  fn = reinterpret_cast<F>(sym);
}

}  // namespace

const CurlLib& curl_lib() {
  static const CurlLib lib = [] {
    const char* so = EMBER_LIBCURL_SONAME;
    void* h = open_library(so, "libcurl4");
    CurlLib l{};
    bind(h, so, "curl_global_init", l.global_init);
    bind(h, so, "curl_easy_init", l.easy_init);
    bind(h, so, "curl_easy_cleanup", l.easy_cleanup);
    bind(h, so, "curl_easy_setopt", l.easy_setopt);
    bind(h, so, "curl_easy_perform", l.easy_perform);
    bind(h, so, "curl_easy_getinfo", l.easy_getinfo);
    bind(h, so, "curl_easy_strerror", l.easy_strerror);
    return l;  // the handle stays open for the process
  }();
  return lib;
}

const CryptoLib& crypto_lib() {
  static const CryptoLib lib = [] {
    const char* so = EMBER_LIBCRYPTO_SONAME;
    void* h = open_library(so, "libssl3");
    CryptoLib l{};
    bind(h, so, "EVP_MD_CTX_new", l.md_ctx_new);
    bind(h, so, "EVP_MD_CTX_free", l.md_ctx_free);
    bind(h, so, "EVP_sha256", l.sha256);
    bind(h, so, "EVP_DigestInit_ex", l.digest_init_ex);
    bind(h, so, "EVP_DigestUpdate", l.digest_update);
    bind(h, so, "EVP_DigestFinal_ex", l.digest_final_ex);
    return l;
  }();
  return lib;
}

}  // namespace ember::hub::libs
