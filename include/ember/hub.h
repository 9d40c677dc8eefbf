// Downloads with a cache, torch.hub's way: load_state_dict_from_url, download_url_to_file,
// get_dir / set_dir. http://, https:// and file:// URLs go through libcurl.
//
//   auto sd = ember::hub::load_state_dict_from_url(
//       "https://example.org/models/resnet18-f37072fd.pth", {.check_hash = true});
//   ember::hub::download_url_to_file("file:///data/w.pth", "/tmp/w.pth", "f37072fd");
//
// The cache is <get_dir()>/checkpoints, get_dir() being set_dir()'s folder or $EMBER_HOME/hub,
// with $EMBER_HOME defaulting to $XDG_CACHE_HOME/ember and $XDG_CACHE_HOME to ~/.cache (torch's
// rule with TORCH_HOME). A download goes to a temporary file in the destination's folder and is
// renamed into place only once complete and, when asked, hash-checked: a failed or interrupted
// download never leaves a file under the final name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ember/error.h"
#include "ember/nn/state_dict.h"
#include "ember/serialization.h"

namespace ember::hub {

/// An HTTP status >= 400 (Python: urllib.error.HTTPError, "HTTP Error 404: Not Found").
class HttpError : public Error {
 public:
  HttpError(std::string url, long code, std::string reason)
      : Error(detail::str_cat("HTTP Error ", code, ": ", reason)),
        url_(std::move(url)), code_(code), reason_(std::move(reason)) {}
  const std::string& url() const { return url_; }
  long code() const { return code_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string url_;
  long code_;
  std::string reason_;
};

/// Anything else that stops a transfer: no such host or file, refused or cut connections, a
/// body shorter than its Content-Length (Python: urllib.error.URLError with this reason).
class UrlError : public Error {
 public:
  explicit UrlError(std::string reason) : Error(reason), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

/// The hub folder: set_dir()'s, else $EMBER_HOME/hub (see above).
std::string get_dir();
/// Sets the hub folder (a leading ~ is expanded, as os.path.expanduser).
void set_dir(const std::string& dir);

/// Where the "Downloading: ..." line and the progress bar go (default: std::cerr). The Python
/// front end points it at sys.stderr.
using TextSink = std::function<void(std::string_view)>;
void set_stderr_sink(TextSink sink);

/// Downloads `url` to `dst` (~ expanded). With `hash_prefix`, the SHA-256 of the bytes must
/// start with it, else RuntimeError `invalid hash value (expected "...", got "...")` and no
/// file is left. `progress` draws a tqdm-like bar (size, percent, rate) on the stderr sink.
void download_url_to_file(const std::string& url, const std::string& dst,
                          const std::optional<std::string>& hash_prefix = std::nullopt,
                          bool progress = true);

/// torch.hub's HASH_REGEX, `-([a-f0-9]*)\.`, searched in a file name: the hex it captures,
/// or nullopt when the name has none (such a file is not checked).
std::optional<std::string> hash_prefix_of(const std::string& filename);

struct UrlOptions {
  std::optional<std::string> model_dir;  // default <get_dir()>/checkpoints
  bool progress = true;
  bool check_hash = false;
  std::optional<std::string> file_name;  // default: the last part of the URL's path
};

/// The cached file for `url`, downloaded first when absent (printing torch's
/// `Downloading: "<url>" to <path>` line). A legacy zip (one record, as torch.hub accepts) is
/// extracted into the folder and the extracted file's path returned.
std::string cached_file_for_url(const std::string& url, const UrlOptions& options = {});

/// cached_file_for_url, then ember::load_state_dict.
nn::StateDict load_state_dict_from_url(const std::string& url, const UrlOptions& options = {},
                                       const serialization::LoadOptions& load_options = {});

}  // namespace ember::hub
