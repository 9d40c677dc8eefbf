// A ByteSink onto a file descriptor that writes at disk speed (Note [Saving at disk speed]):
// bytes are copied (and, for zip records, CRC-ed in the same pass) into page-aligned buffers that
// a writer thread hands to the kernel while the next buffer fills.
//
//   FileSink sink(fd, path, FileSink::Mode::kDurable);   // O_DIRECT where the file system allows
//   ZipWriter w(sink); ...; w.finish();
//   sink.finish();   // the file holds exactly the bytes written (then fsync, rename)
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serialization/zip.h"

namespace ember::serialization::detail {

class FileSink final : public ByteSink {
 public:
  enum class Mode {
    kBuffered,  // through the page cache, no sync (a non-atomic save, like torch.save)
    kDurable,   // the caller fsyncs at the end: O_DIRECT when the file system takes it, else
                // buffered writes pushed to disk as they go (sync_file_range)
  };
  /// Throws the error of a failed write (errno): callers word their own (the default says
  /// "writing '<path>' failed: <strerror>" as an ember::Error).
  using OnError = std::function<void(int)>;
  /// fd: open for writing, empty, positioned at 0; path names it in errors. `direct` false
  /// keeps a durable sink off O_DIRECT (EMBER_DIRECT_IO=0 does the same for every save).
  FileSink(int fd, std::string path, Mode mode, bool direct = true, OnError on_error = nullptr);
  /// Stops the writer thread; a sink not finished leaves the file partly written.
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  void write(const void* data, size_t n) override;
  uint32_t write_crc32(const void* data, size_t n, uint32_t crc) override;
  /// Writes what is buffered and waits for the writer: the file then holds exactly the bytes
  /// given (an O_DIRECT tail block padded for the write is truncated away). Throws ember::Error
  /// on any write error.
  void finish();
  /// Whether the bytes went (so far) with O_DIRECT; false after a refusal (Mode::kBuffered
  /// never tries).
  bool direct() const;
  uint64_t size() const { return offset_ + fill_; }

  /// Staging buffers: their size (a multiple of every block size O_DIRECT may need) and count.
  static constexpr size_t kBufferBytes = size_t{16} << 20;
  static constexpr size_t kBuffers = 2;
  static constexpr size_t kBlock = 4096;

 private:
  struct Job {
    size_t buffer;
    uint64_t offset;
    size_t n;
  };
  void submit(size_t n);  // hands buffer cur_ (n bytes) to the writer, takes a free one
  void drain();           // waits until the writer is idle; throws its error
  void writer_loop();
  int write_job(const Job& job);  // 0 or errno
  [[noreturn]] void throw_error();

  int fd_;
  std::string path_;
  Mode mode_;
  OnError on_error_;
  std::vector<uint8_t*> buffers_;
  size_t cur_ = 0, fill_ = 0;
  uint64_t offset_ = 0;  // file offset of buffer cur_'s first byte
  uint64_t synced_ = 0;  // (buffered durable) bytes handed to sync_file_range

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<size_t> free_;
  bool stop_ = false, direct_ = false;
  int error_ = 0;
  std::thread writer_;
};

}  // namespace ember::serialization::detail
