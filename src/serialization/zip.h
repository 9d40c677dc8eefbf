// The zip container of PyTorch's checkpoints: a reader that accepts what PyTorch (miniz) and
// other tools write, and a writer that lays records out as PyTorch does. Internal to ember.
//
//   ZipWriter w(sink);                              // sink: a ByteSink (file, stream, buffer)
//   w.write_record("archive/data.pkl", p, n);       // stored, data 64-byte aligned
//   w.finish();                                     // central directory, ZIP64 end records
//
//   ZipReader r(ByteSource::open_file(path, /*map=*/true));
//   const ZipEntry& e = r.entry("archive/data/0");  // bounds-checked against the file
//   std::string pkl = r.read("archive/data.pkl");   // inflates deflated records, checks the CRC
//
// Note [A small zip layer of our own]
// DESIGN.md asks for a kept library. Debian offers libzip and minizip (miniz, which PyTorch
// uses, is not packaged). Neither does the two things a checkpoint needs: libzip's zip_stat has
// no data offset, so a stored record cannot be mapped in place (mmap=True); and neither writer
// lets the caller pad the local header so that the data starts on a 64-byte boundary, as
// PyTorch's writer does (its "FB" extra field) and as zero-copy loading needs. A stored-only
// zip is a small format, so ember writes it here, with every length and offset read from a
// file checked against the file's size before use. Deflated records written by other tools are
// inflated with zlib (a kept library), bounded by their declared size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ember::serialization::detail {

/// PyTorch's record alignment (caffe2's kFieldAlignment).
constexpr uint64_t kRecordAlignment = 64;

/// CRC-32 (zlib's, chained as zlib chains it: crc32_of(b, nb, crc32_of(a, na)) is the CRC of a
/// then b) through ISA-L's folding kernels (Note [CRC-32 through ISA-L] in crc32.cpp).
uint32_t crc32_of(const void* data, size_t n, uint32_t crc = 0);
/// The same through zlib's crc32: the reference crc32_of is tested against.
uint32_t crc32_ref(const void* data, size_t n, uint32_t crc = 0);

/// Random-access bytes: a file (read with pread, or mapped), or a buffer in memory.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  /// Reads exactly n bytes at `offset` (checked against size()).
  virtual void read_at(uint64_t offset, void* dst, size_t n) const = 0;
  /// The whole content when it is in memory (a mapping or a buffer), else nullptr.
  virtual const uint8_t* data() const { return nullptr; }
  /// Whether data() is a file mapping (storages may then alias it).
  virtual bool is_mapped() const { return false; }

  static std::shared_ptr<ByteSource> open_file(const std::string& path, bool map);
  static std::shared_ptr<ByteSource> from_buffer(std::string bytes);
};

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t header_offset = 0;
  uint64_t data_offset = 0;  // where the (possibly compressed) bytes start
};

class ZipReader {
 public:
  /// Parses the end records and the central directory; throws ember::Error on anything
  /// malformed (with what was expected and what the file holds).
  explicit ZipReader(std::shared_ptr<ByteSource> source);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;
  const ZipEntry& entry(const std::string& name) const;  // throws when absent
  /// The record's bytes (inflated if needed), CRC-checked.
  std::string read(const ZipEntry& e) const;
  std::string read(const std::string& name) const { return read(entry(name)); }
  /// Writes the record's e.size bytes to dst; check_crc verifies them.
  void read_into(const ZipEntry& e, void* dst, bool check_crc) const;
  const std::shared_ptr<ByteSource>& source() const { return source_; }

 private:
  void parse();
  std::shared_ptr<ByteSource> source_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

/// Where a writer's bytes go.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* data, size_t n) = 0;
  /// Writes n bytes and returns crc32_of(data, n, crc): a sink that copies the bytes anyway
  /// computes the CRC in the same pass (Note [Saving at disk speed]).
  virtual uint32_t write_crc32(const void* data, size_t n, uint32_t crc) {
    crc = crc32_of(data, n, crc);
    write(data, n);
    return crc;
  }
};

class ZipWriter {
 public:
  /// zip64_threshold: sizes and offsets at or above it use ZIP64 fields (tests lower it).
  explicit ZipWriter(ByteSink& sink, uint64_t zip64_threshold = 0xFFFFFFFFu);
  /// One stored record, its data aligned to kRecordAlignment in the file.
  void write_record(const std::string& name, const void* data, size_t n);
  /// The central directory and the end records (ZIP64 ones always, as PyTorch's writer does).
  void finish();
  uint64_t offset() const { return offset_; }

 private:
  void put(const void* p, size_t n);
  ByteSink& sink_;
  uint64_t zip64_threshold_;
  uint64_t offset_ = 0;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, size_t> names_;
  bool finished_ = false;
};

}  // namespace ember::serialization::detail
