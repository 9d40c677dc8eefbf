// A file written beside its target and renamed over it when complete (Note [Atomic saves]).
// Shared by ember::save, safetensors::save_file and hub downloads, which each word their own
// errors: the steps report errno rather than throwing.
#pragma once

#include <string>

namespace ember::serialization::detail {

class TempFileBeside {
 public:
  /// Creates ".<name><infix>XXXXXX" in the folder of `target` (so that the rename stays on one
  /// file system). On failure fd() < 0 and error() holds errno.
  TempFileBeside(std::string target, const char* infix = ".tmp.");
  /// A file not yet renamed over its target is closed and removed.
  ~TempFileBeside();
  TempFileBeside(const TempFileBeside&) = delete;
  TempFileBeside& operator=(const TempFileBeside&) = delete;

  int fd() const { return fd_; }
  int error() const { return error_; }
  const std::string& path() const { return path_; }
  const std::string& folder() const { return folder_; }

  /// fsync, the mode a new file gets (0666 less the umask: mkstemp's 0600 would make a saved
  /// file private by accident), close. 0 or errno.
  int sync_and_close();
  /// Renames the closed file over the target, then fsyncs the folder so that the rename itself
  /// survives a crash. 0 or errno.
  int replace_target();

 private:
  std::string target_, folder_, path_;
  int fd_ = -1;
  int error_ = 0;
  bool renamed_ = false;
};

}  // namespace ember::serialization::detail
