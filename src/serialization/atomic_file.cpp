// Note [Atomic saves]
// A save writes a temporary file beside the target (same folder, so same file system), fsyncs
// it, renames it over the target and fsyncs the folder: a reader, or a crash at any moment,
// sees either the old file complete or the new one complete, never a torn one. How the bytes
// reach the disk fast enough for the fsync to cost little: Note [Saving at disk speed]
// (file_sink.cpp).
#include "serialization/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <vector>

namespace ember::serialization::detail {

TempFileBeside::TempFileBeside(std::string target, const char* infix) : target_(std::move(target)) {
  const size_t slash = target_.find_last_of('/');
  folder_ = slash == std::string::npos ? "." : (slash == 0 ? "/" : target_.substr(0, slash));
  const std::string prefix = slash == std::string::npos ? std::string() : target_.substr(0, slash + 1);
  const std::string name = target_.substr(slash == std::string::npos ? 0 : slash + 1);
  std::vector<char> tmpl;
  for (const std::string& part : {prefix, std::string("."), name, std::string(infix), std::string("XXXXXX")})
    tmpl.insert(tmpl.end(), part.begin(), part.end());
  tmpl.push_back('\0');
  fd_ = ::mkstemp(tmpl.data());
  if (fd_ < 0) {
    error_ = errno;
    return;
  }
  path_ = tmpl.data();
}

TempFileBeside::~TempFileBeside() {
  if (fd_ >= 0) ::close(fd_);
  if (!renamed_ && !path_.empty()) ::unlink(path_.c_str());
}

int TempFileBeside::sync_and_close() {
  // The mode first, so that the fsync makes it durable with the bytes.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  if (::fsync(fd_) != 0) return errno;
  const int rc = ::close(fd_);
  fd_ = -1;
  return rc == 0 ? 0 : errno;
}

int TempFileBeside::replace_target() {
  if (::rename(path_.c_str(), target_.c_str()) != 0) return errno;
  renamed_ = true;
  // Best effort: a folder that cannot be opened or synced leaves the rename to the OS.
  const int dfd = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return 0;
}

}  // namespace ember::serialization::detail
