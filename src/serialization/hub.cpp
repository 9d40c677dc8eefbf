// ember::hub: torch.hub's downloads and cache over libcurl, SHA-256 from OpenSSL (both opened
// on first use: Note [Lazy libcurl and libcrypto] in hub_libs.h).
#include "ember/hub.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <regex>

#include "ember/warning.h"
#include "serialization/atomic_file.h"
#include "serialization/hub_libs.h"
#include "serialization/hub_progress.h"
#include "serialization/zip.h"

namespace ember::hub {

namespace fs = std::filesystem;
using libs::crypto_lib;
using libs::curl_lib;

namespace {

std::mutex g_mutex;
std::optional<std::string> g_hub_dir;
TextSink g_sink;

std::string expand_user(const std::string& p) {
  if (p.empty() || p[0] != '~' || (p.size() > 1 && p[1] != '/')) return p;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + p.substr(1);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

// One global curl_global_init, thread-safe after it (curl's requirement).
void curl_init_once() {
  static const bool ok = curl_lib().global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  EMBER_CHECK(ok, "hub: libcurl failed to initialise");
}

class Sha256 {
 public:
  Sha256() : ctx_(crypto_lib().md_ctx_new()) {
    EMBER_CHECK(ctx_ && crypto_lib().digest_init_ex(ctx_, crypto_lib().sha256(), nullptr) == 1, "hub: SHA-256 unavailable");
  }
  ~Sha256() { crypto_lib().md_ctx_free(ctx_); }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* p, size_t n) { crypto_lib().digest_update(ctx_, p, n); }
  std::string hexdigest() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    crypto_lib().digest_final_ex(ctx_, md, &len);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) {
      out += hex[md[i] >> 4];
      out += hex[md[i] & 15];
    }
    return out;
  }

 private:
  EVP_MD_CTX* ctx_;
};

struct Transfer {
  int fd = -1;
  std::string path;
  std::optional<Sha256> sha;
  std::optional<ProgressBar> bar;
  CURL* curl = nullptr;
  bool write_failed = false;
  int write_errno = 0;
  uint64_t received = 0;
};

size_t on_data(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  if (t->bar && t->received == 0) {
    curl_off_t total = -1;
    if (curl_lib().easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &total) == CURLE_OK && total >= 0)
      t->bar->set_total(static_cast<uint64_t>(total));
  }
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(t->fd, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      t->write_failed = true;
      t->write_errno = errno;
      return 0;  // curl stops with CURLE_WRITE_ERROR
    }
    done += static_cast<size_t>(w);
  }
  if (t->sha) t->sha->update(data, n);
  t->received += n;
  if (t->bar) t->bar->update(n);
  return n;
}

std::string reason_phrase(long code) {
  switch (code) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

}  // namespace

void write_stderr(std::string_view text) {
  TextSink sink;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    sink = g_sink;
  }
  if (sink) {
    sink(text);
  } else {
    std::cerr << text << std::flush;
  }
}

void set_stderr_sink(TextSink sink) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_sink = std::move(sink);
}

std::string get_dir() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_hub_dir) return *g_hub_dir;
  }
  const std::string cache = env_or("XDG_CACHE_HOME", "~/.cache");
  const std::string home = expand_user(env_or("EMBER_HOME", (fs::path(cache) / "ember").string()));
  return (fs::path(home) / "hub").string();
}

void set_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_hub_dir = expand_user(dir);
}

std::optional<std::string> hash_prefix_of(const std::string& filename) {
  static const std::regex hash_regex(R"(-([a-f0-9]*)\.)");
  std::smatch m;
  if (!std::regex_search(filename, m, hash_regex)) return std::nullopt;
  return m[1].str();
}

void download_url_to_file(const std::string& url, const std::string& dst_in,
                          const std::optional<std::string>& hash_prefix, bool progress) {
  curl_init_once();
  const std::string dst = expand_user(dst_in);
  // Note [Atomic saves]: the download lands in the cache only when complete and verified.
  serialization::detail::TempFileBeside tmp(dst, ".download.");
  if (tmp.fd() < 0)
    EMBER_FAIL("download_url_to_file: cannot create a temporary file in ", tmp.folder(), ": ",
               std::strerror(tmp.error()));
  Transfer t;
  t.fd = tmp.fd();
  t.path = tmp.path();
  if (hash_prefix) t.sha.emplace();
  if (progress) t.bar.emplace(&write_stderr);

  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_lib().easy_init(), curl_lib().easy_cleanup);
  char errbuf[CURL_ERROR_SIZE] = {0};
  t.curl = curl.get();
  try {
    EMBER_CHECK(curl, "download_url_to_file: libcurl could not start a transfer");
    curl_lib().easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_lib().easy_setopt(curl.get(), CURLOPT_USERAGENT, "ember.hub");
    curl_lib().easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
    curl_lib().easy_setopt(curl.get(), CURLOPT_MAXREDIRS, 10L);
    curl_lib().easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https,file");
    curl_lib().easy_setopt(curl.get(), CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_lib().easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, errbuf);
    curl_lib().easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);  // an error page is not the file
    curl_lib().easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, on_data);
    curl_lib().easy_setopt(curl.get(), CURLOPT_WRITEDATA, &t);
    curl_lib().easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_lib().easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 60L);
    // A stalled server: fewer than 1 byte/s for 60 s ends the transfer (urllib's socket timeout
    // is infinite by default, but a cache that never fills helps nobody).
    curl_lib().easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_lib().easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);
    const CURLcode rc = curl_lib().easy_perform(curl.get());
    long code = 0;
    curl_lib().easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &code);
    const bool is_http = url.rfind("http", 0) == 0;
    if (is_http && code >= 400) throw HttpError(url, code, reason_phrase(code));
    if (t.write_failed)
      EMBER_FAIL("download_url_to_file: writing ", t.path, " failed: ", std::strerror(t.write_errno));
    if (rc != CURLE_OK) {
      std::string why = errbuf[0] ? errbuf : curl_lib().easy_strerror(rc);
      throw UrlError(detail::str_cat(why, " (", url, ")"));
    }
    if (t.bar) t.bar->close();
    if (int e = tmp.sync_and_close())
      EMBER_FAIL("download_url_to_file: writing ", t.path, " to disk failed: ", std::strerror(e));
    if (hash_prefix) {
      const std::string digest = t.sha->hexdigest();
      if (digest.compare(0, hash_prefix->size(), *hash_prefix) != 0)
        EMBER_FAIL("invalid hash value (expected \"", *hash_prefix, "\", got \"", digest, "\")");
    }
    if (int e = tmp.replace_target())
      EMBER_FAIL("download_url_to_file: cannot move the download to ", dst, ": ", std::strerror(e));
  } catch (...) {
    if (t.bar) t.bar->close();
    throw;  // tmp removes the partial file
  }
}

std::string cached_file_for_url(const std::string& url, const UrlOptions& o) {
  const std::string model_dir = o.model_dir ? *o.model_dir : (fs::path(get_dir()) / "checkpoints").string();
  std::error_code ec;
  fs::create_directories(model_dir, ec);
  EMBER_CHECK(!ec, "load_state_dict_from_url: cannot create ", model_dir, ": ", ec.message());
  // os.path.basename(urlparse(url).path): the path without query or fragment.
  std::string path = url;
  if (auto scheme = path.find("://"); scheme != std::string::npos) {
    path = path.substr(scheme + 3);
    auto slash = path.find('/');
    path = slash == std::string::npos ? "" : path.substr(slash);
  }
  path = path.substr(0, path.find_first_of("?#"));
  std::string filename = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (o.file_name) filename = *o.file_name;
  const std::string cached = (fs::path(model_dir) / filename).string();
  if (!fs::exists(cached)) {
    write_stderr(detail::str_cat("Downloading: \"", url, "\" to ", cached, "\n"));
    std::optional<std::string> prefix;
    if (o.check_hash) prefix = hash_prefix_of(filename);
    download_url_to_file(url, cached, prefix, o.progress);
  }
  // torch.hub's legacy zip: a zip holding exactly one file, extracted next to it.
  auto source = serialization::detail::ByteSource::open_file(cached, /*map=*/false);
  if (source->size() >= 4) {
    char magic[4];
    source->read_at(0, magic, 4);
    if (std::memcmp(magic, "PK\x03\x04", 4) == 0) {
      serialization::detail::ZipReader zip(source);
      const auto& entries = zip.entries();
      if (entries.size() == 1 && !entries[0].name.empty() && entries[0].name.back() != '/') {
        warn("Falling back to the old format < 1.6. This support will be deprecated in favor of default "
             "zipfile format introduced in 1.6. Please redo ember.save() to save it in the new zipfile format.");
        const fs::path name(entries[0].name);
        EMBER_CHECK(!name.is_absolute() && name.lexically_normal().string().rfind("..", 0) != 0,
                    "load_state_dict_from_url: the zip's record name ", entries[0].name,
                    " points outside ", model_dir);
        const fs::path out = fs::path(model_dir) / name.lexically_normal();
        fs::create_directories(out.parent_path(), ec);
        const std::string bytes = zip.read(entries[0]);
        FILE* f = std::fopen(out.c_str(), "wb");
        EMBER_CHECK(f, "load_state_dict_from_url: cannot write ", out.string(), ": ", std::strerror(errno));
        const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
        EMBER_CHECK(std::fclose(f) == 0 && ok, "load_state_dict_from_url: cannot write ", out.string());
        return out.string();
      }
    }
  }
  return cached;
}

nn::StateDict load_state_dict_from_url(const std::string& url, const UrlOptions& options,
                                       const serialization::LoadOptions& load_options) {
  return load_state_dict(cached_file_for_url(url, options), load_options);
}

}  // namespace ember::hub
