// libcurl and OpenSSL's libcrypto for ember::hub, opened on first use.
//
// Note [Lazy libcurl and libcrypto]
// Downloads (ember::hub) are the only users of libcurl and of libcrypto's SHA-256, and libcurl
// linked as a dependency of libember.so brings ~30 shared libraries (TLS, Kerberos, LDAP, SSH,
// IDN, ...) into every process: their loading and relocation was about a third of a C++ hello
// world's start (benchmarks/bench_cpp_api hello_startup). So libember does not link them: the
// first download dlopens them by SONAME (fixed at configure time from the libraries found) and
// looks up the few functions it calls. The headers still give the types and constants. A
// machine without them fails at that point with an error naming the package to install.
#pragma once

#include <curl/curl.h>
#include <openssl/evp.h>

namespace ember::hub::libs {

struct CurlLib {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
};

struct CryptoLib {
  decltype(&::EVP_MD_CTX_new) md_ctx_new;
  decltype(&::EVP_MD_CTX_free) md_ctx_free;
  decltype(&::EVP_sha256) sha256;
  decltype(&::EVP_DigestInit_ex) digest_init_ex;
  decltype(&::EVP_DigestUpdate) digest_update;
  decltype(&::EVP_DigestFinal_ex) digest_final_ex;
};

/// Loaded once per process (thread-safe); throws ember::Error when the library is missing.
const CurlLib& curl_lib();
const CryptoLib& crypto_lib();

}  // namespace ember::hub::libs
