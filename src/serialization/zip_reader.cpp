// Reading zips: every number the file gives is checked against the file's size before it is
// used (Note [A small zip layer of our own] in zip.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "ember/error.h"
#include "ember/parallel.h"
#include "serialization/zip.h"

namespace ember::serialization::detail {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | (uint64_t(le32(p + 4)) << 32); }

class FileSource final : public ByteSource {
 public:
  FileSource(const std::string& path, bool map) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EMBER_CHECK(fd_ >= 0, "[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      int err = errno;
      ::close(fd_);
      EMBER_FAIL("[Errno ", err, "] ", std::strerror(err), ": '", path, "'");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (map && size_ > 0) {
      // Copy-on-write: tensors over the mapping may be written; the file never changes.
      void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) {
        int err = errno;
        ::close(fd_);
        EMBER_FAIL("mmap of '", path, "' failed: ", std::strerror(err));
      }
      map_ = static_cast<uint8_t*>(p);
    }
  }
  ~FileSource() override {
    if (map_) ::munmap(map_, size_);
    ::close(fd_);
  }
  uint64_t size() const override { return size_; }
  void read_at(uint64_t offset, void* dst, size_t n) const override {
    EMBER_CHECK(offset <= size_ && n <= size_ - offset, "reading ", n, " bytes at offset ", offset,
                " of '", path_, "', which has ", size_, " bytes: the file is truncated");
    if (map_) {
      std::memcpy(dst, map_ + offset, n);
      return;
    }
    auto* out = static_cast<char*>(dst);
    // Large reads are split over the pool: pread of a cached file is a memcpy, and two
    // threads copy faster than one.
    constexpr size_t kChunk = size_t{8} << 20;
    auto read_range = [&](size_t begin, size_t end) {
      while (begin < end) {
        ssize_t got = ::pread(fd_, out + begin, end - begin, static_cast<off_t>(offset + begin));
        if (got < 0 && errno == EINTR) continue;
        EMBER_CHECK(got > 0, "reading '", path_, "' failed at offset ", offset + begin, ": ",
                    got < 0 ? std::strerror(errno) : "unexpected end of file");
        begin += static_cast<size_t>(got);
      }
    };
    if (n < 2 * kChunk) {
      read_range(0, n);
      return;
    }
    int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      read_range(static_cast<size_t>(b) * kChunk, std::min(n, static_cast<size_t>(e) * kChunk));
    });
  }
  const uint8_t* data() const override { return map_; }
  bool is_mapped() const override { return map_ != nullptr; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint8_t* map_ = nullptr;
};

class BufferSource final : public ByteSource {
 public:
  explicit BufferSource(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  void read_at(uint64_t offset, void* dst, size_t n) const override {
    EMBER_CHECK(offset <= bytes_.size() && n <= bytes_.size() - offset, "reading ", n,
                " bytes at offset ", offset, " of a buffer of ", bytes_.size(),
                " bytes: the data is truncated");
    std::memcpy(dst, bytes_.data() + offset, n);
  }
  const uint8_t* data() const override {
    return reinterpret_cast<const uint8_t*>(bytes_.data());
  }

 private:
  std::string bytes_;
};

std::string bytes_at(const ByteSource& s, uint64_t offset, size_t n) {
  std::string out(n, '\0');
  s.read_at(offset, out.data(), n);
  return out;
}

const uint8_t* u8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

}  // namespace

std::shared_ptr<ByteSource> ByteSource::open_file(const std::string& path, bool map) {
  return std::make_shared<FileSource>(path, map);
}
std::shared_ptr<ByteSource> ByteSource::from_buffer(std::string bytes) {
  return std::make_shared<BufferSource>(std::move(bytes));
}

ZipReader::ZipReader(std::shared_ptr<ByteSource> source) : source_(std::move(source)) { parse(); }

void ZipReader::parse() {
  const ByteSource& s = *source_;
  const uint64_t size = s.size();
  EMBER_CHECK(size > 0, "PytorchStreamReader failed reading zip archive: the file is empty "
                        "(zero-length)");
  EMBER_CHECK(size >= 22, "PytorchStreamReader failed reading zip archive: not a zip file (",
              size, " bytes, shorter than a zip's end record)");
  // The end record sits in the last 22 + 65535 bytes (its comment is at most 65535 long).
  uint64_t tail_len = std::min<uint64_t>(size, 22 + 65535);
  std::string tail = bytes_at(s, size - tail_len, tail_len);
  int64_t at = -1;
  for (int64_t i = static_cast<int64_t>(tail_len) - 22; i >= 0; --i) {
    if (le32(u8(tail) + i) == kEndSig) {
      at = i;
      break;
    }
  }
  EMBER_CHECK(at >= 0, "PytorchStreamReader failed reading zip archive: failed finding central "
                       "directory (no zip end record: not a zip file, or a truncated one)");
  const uint8_t* end = u8(tail) + at;
  uint64_t end_offset = size - tail_len + static_cast<uint64_t>(at);
  uint64_t n_entries = le16(end + 10), cd_size = le32(end + 12), cd_offset = le32(end + 16);
  EMBER_CHECK(le16(end + 4) == 0 && le16(end + 6) == 0 && le16(end + 8) == le16(end + 10),
              "zip archive: multi-disk archives are not supported");
  uint64_t cd_limit = end_offset;  // the central directory ends before the end records
  if (end_offset >= 20) {
    std::string loc = bytes_at(s, end_offset - 20, 20);
    if (le32(u8(loc)) == kLocator64Sig) {
      uint64_t end64 = le64(u8(loc) + 8);
      EMBER_CHECK(end64 <= end_offset - 20 && end_offset - 20 - end64 >= 56,
                  "zip archive: the ZIP64 end record's offset ", end64,
                  " is outside the file (corrupted or truncated)");
      std::string e64 = bytes_at(s, end64, 56);
      EMBER_CHECK(le32(u8(e64)) == kEnd64Sig, "zip archive: no ZIP64 end record at offset ",
                  end64, " (corrupted)");
      EMBER_CHECK(le32(u8(e64) + 16) == 0 && le32(u8(e64) + 20) == 0,
                  "zip archive: multi-disk archives are not supported");
      n_entries = le64(u8(e64) + 32);
      cd_size = le64(u8(e64) + 40);
      cd_offset = le64(u8(e64) + 48);
      cd_limit = end64;
    }
  }
  EMBER_CHECK(cd_offset <= cd_limit && cd_size <= cd_limit - cd_offset,
              "zip archive: the central directory (", cd_size, " bytes at offset ", cd_offset,
              ") does not fit in the file of ", size, " bytes (corrupted or truncated)");
  EMBER_CHECK(n_entries <= cd_size / 46, "zip archive: ", n_entries,
              " entries cannot fit in a central directory of ", cd_size, " bytes (corrupted)");
  std::string cd = bytes_at(s, cd_offset, cd_size);
  entries_.reserve(n_entries);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < n_entries; ++i) {
    EMBER_CHECK(cd_size - pos >= 46 && le32(u8(cd) + pos) == kCentralSig,
                "zip archive: central directory entry ", i, " at offset ", cd_offset + pos,
                " is corrupted");
    const uint8_t* h = u8(cd) + pos;
    ZipEntry e;
    uint16_t flags = le16(h + 8);
    e.method = le16(h + 10);
    e.crc32 = le32(h + 16);
    e.compressed_size = le32(h + 20);
    e.size = le32(h + 24);
    uint64_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    e.header_offset = le32(h + 42);
    EMBER_CHECK(cd_size - pos - 46 >= name_len + extra_len + comment_len,
                "zip archive: central directory entry ", i, " overruns the directory (corrupted)");
    e.name.assign(cd, pos + 46, name_len);
    // ZIP64 extra field: the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
    const uint8_t* x = h + 46 + name_len;
    for (uint64_t xp = 0; xp + 4 <= extra_len;) {
      uint16_t id = le16(x + xp), len = le16(x + xp + 2);
      EMBER_CHECK(xp + 4 + len <= extra_len, "zip archive: the extra field of '", e.name,
                  "' overruns its entry (corrupted)");
      if (id == 0x0001) {
        const uint8_t* f = x + xp + 4;
        uint64_t left = len;
        auto take = [&](uint64_t& field) {
          if (field != 0xFFFFFFFFu) return;
          EMBER_CHECK(left >= 8, "zip archive: the ZIP64 field of '", e.name, "' is too short");
          field = le64(f);
          f += 8;
          left -= 8;
        };
        take(e.size);
        take(e.compressed_size);
        take(e.header_offset);
      }
      xp += 4 + len;
    }
    pos += 46 + name_len + extra_len + comment_len;
    EMBER_CHECK(!(flags & 1), "zip archive: record '", e.name, "' is encrypted");
    EMBER_CHECK(e.method == 0 || e.method == 8, "zip archive: record '", e.name,
                "' uses compression method ", e.method, "; only stored (0) and deflated (8) "
                "records are supported");
    EMBER_CHECK(e.method != 0 || e.compressed_size == e.size, "zip archive: stored record '",
                e.name, "' has a compressed size ", e.compressed_size, " different from its size ",
                e.size, " (corrupted)");
    // Deflate expands at most ~1032:1; a record declaring more is a zip bomb.
    EMBER_CHECK(e.method != 8 || e.size <= e.compressed_size * 1032 + 1024, "zip archive: record '",
                e.name, "' declares ", e.size, " bytes from ", e.compressed_size,
                " compressed bytes, more than deflate can produce: refusing a zip bomb");
    EMBER_CHECK(e.header_offset <= cd_offset && cd_offset - e.header_offset >= 30,
                "zip archive: the local header of '", e.name, "' (offset ", e.header_offset,
                ") is outside the file's data area (corrupted or truncated)");
    std::string local = bytes_at(s, e.header_offset, 30);
    EMBER_CHECK(le32(u8(local)) == kLocalSig, "zip archive: no local header for '", e.name,
                "' at offset ", e.header_offset, " (corrupted)");
    uint64_t lname = le16(u8(local) + 26), lextra = le16(u8(local) + 28);
    EMBER_CHECK(lname == name_len && bytes_at(s, e.header_offset + 30, lname) == e.name,
                "zip archive: the local header at offset ", e.header_offset,
                " names another record than '", e.name, "' (corrupted)");
    e.data_offset = e.header_offset + 30 + lname + lextra;
    EMBER_CHECK(e.data_offset <= cd_offset && e.compressed_size <= cd_offset - e.data_offset,
                "zip archive: record '", e.name, "' (", e.compressed_size, " bytes at offset ",
                e.data_offset, ") runs past the end of the data (truncated or corrupted)");
    EMBER_CHECK(index_.emplace(e.name, entries_.size()).second, "zip archive: duplicate record '",
                e.name, "'");
    entries_.push_back(std::move(e));
  }
}

const ZipEntry* ZipReader::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const ZipEntry& ZipReader::entry(const std::string& name) const {
  const ZipEntry* e = find(name);
  EMBER_CHECK(e, "PytorchStreamReader failed locating file ", name, ": file not found");
  return *e;
}

std::string ZipReader::read(const ZipEntry& e) const {
  std::string out(e.size, '\0');
  read_into(e, out.data(), /*check_crc=*/true);
  return out;
}

void ZipReader::read_into(const ZipEntry& e, void* dst, bool check_crc) const {
  if (e.method == 0 && check_crc && e.size >= (size_t{4} << 20)) {
    // Read and check in one pass over cache-sized chunks, split over the pool: the CRC then
    // reads bytes still in cache instead of a second trip through memory.
    constexpr size_t kChunk = size_t{1} << 20;
    const size_t n = e.size;
    const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
    std::vector<uint32_t> parts(static_cast<size_t>(chunks));
    auto* out = static_cast<uint8_t*>(dst);
    parallel_for(0, chunks, 4, [&](int64_t b, int64_t end) {
      for (int64_t c = b; c < end; ++c) {
        size_t begin = static_cast<size_t>(c) * kChunk, len = std::min(kChunk, n - begin);
        source_->read_at(e.data_offset + begin, out + begin, len);
        parts[static_cast<size_t>(c)] =
            crc32_of(out + begin, len);
      }
    });
    uint32_t crc = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      size_t len = std::min(kChunk, n - static_cast<size_t>(c) * kChunk);
      crc = static_cast<uint32_t>(::crc32_combine(crc, parts[static_cast<size_t>(c)], z_off_t(len)));
    }
    EMBER_CHECK(crc == e.crc32, "zip archive: record '", e.name, "' fails its CRC-32 check (",
                "expected 0x", std::hex, e.crc32, ", got 0x", crc, "): the file is corrupted");
    return;
  }
  if (e.method == 0) {
    source_->read_at(e.data_offset, dst, e.size);
  } else {
    z_stream zs{};
    EMBER_CHECK(inflateInit2(&zs, -MAX_WBITS) == Z_OK, "zlib: inflateInit2 failed");
    std::string chunk;
    uint64_t in_pos = 0;
    auto* out = static_cast<Bytef*>(dst);
    uint64_t out_pos = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (zs.avail_in == 0 && in_pos < e.compressed_size) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(e.compressed_size - in_pos, 1u << 20));
        if (source_->data()) {
          zs.next_in = const_cast<Bytef*>(source_->data() + e.data_offset + in_pos);
        } else {
          chunk.resize(n);
          source_->read_at(e.data_offset + in_pos, chunk.data(), n);
          zs.next_in = reinterpret_cast<Bytef*>(chunk.data());
        }
        zs.avail_in = static_cast<uInt>(n);
        in_pos += n;
      }
      zs.next_out = out + out_pos;
      zs.avail_out = static_cast<uInt>(std::min<uint64_t>(e.size - out_pos, 1u << 30));
      uInt before = zs.avail_out;
      rc = inflate(&zs, Z_NO_FLUSH);
      out_pos += before - zs.avail_out;
      if (rc == Z_OK || rc == Z_STREAM_END) continue;
      const char* why = zs.msg ? zs.msg : "invalid deflate data";
      if (rc == Z_BUF_ERROR) {
        why = out_pos == e.size ? "it inflates to more than that: corrupted, or a zip bomb"
                                : "its compressed data ends early: truncated";
      }
      inflateEnd(&zs);
      EMBER_FAIL("zip archive: record '", e.name, "' does not inflate to its declared ", e.size,
                 " bytes (", why, ")");
    }
    inflateEnd(&zs);
    EMBER_CHECK(out_pos == e.size, "zip archive: record '", e.name, "' inflates to ", out_pos,
                " bytes, not its declared ", e.size, " (corrupted)");
  }
  if (check_crc) {
    uint32_t crc = crc32_of(dst, e.size);
    EMBER_CHECK(crc == e.crc32, "zip archive: record '", e.name, "' fails its CRC-32 check (",
                "expected 0x", std::hex, e.crc32, ", got 0x", crc, "): the file is corrupted");
  }
}

}  // namespace ember::serialization::detail
