// The fast save path (Note [Saving at disk speed], Note [CRC-32 through ISA-L]): ISA-L's CRC-32
// equals zlib's on every length and alignment, and a FileSink writes exactly the bytes an
// in-memory sink gets, with O_DIRECT and without, through several staging buffers and odd tails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "../testing.h"
#include "ember/ember.h"
#include "ember/serialization.h"
#include "serialization/file_sink.h"
#include "serialization/zip.h"

namespace ember {
namespace {

namespace ser = serialization;
using ser::detail::ByteSink;
using ser::detail::crc32_of;
using ser::detail::crc32_ref;
using ser::detail::FileSink;
using ser::detail::ZipReader;
using ser::detail::ZipWriter;

struct MemorySink : ByteSink {
  std::string bytes;
  void write(const void* p, size_t n) override { bytes.append(static_cast<const char*>(p), n); }
};

std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(g());
  return s;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "ember_sink_" + std::to_string(::getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(SerializationCrc32, IsalEqualsZlibOnEveryLengthAndAlignment) {
  const std::string data = random_bytes(4096 + 64, 1);
  for (size_t align = 0; align < 64; align += 7)
    for (size_t n = 0; n <= 1100; ++n)
      ASSERT_EQ(crc32_of(data.data() + align, n), crc32_ref(data.data() + align, n))
          << "length " << n << " at offset " << align;
  // Known values (zlib's crc32 of "123456789" is the CRC-32 check value).
  EXPECT_EQ(crc32_of("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32_ref("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32_of("", 0, 0x1234u), 0x1234u);
}

TEST(SerializationCrc32, ChainsAsZlibDoesOnLargeBuffers) {
  const std::string data = random_bytes((size_t{9} << 20) + 333, 2);
  const uint32_t whole = crc32_ref(data.data(), data.size());
  EXPECT_EQ(crc32_of(data.data(), data.size()), whole);
  // Split anywhere, chained: the same CRC (as FileSink computes it, piece by piece).
  for (size_t cut : {size_t{1}, size_t{4095}, size_t{1} << 20, data.size() - 1}) {
    uint32_t c = crc32_of(data.data(), cut);
    EXPECT_EQ(crc32_of(data.data() + cut, data.size() - cut, c), whole) << cut;
  }
}

// A zip with records of awkward sizes, through any sink: the same bytes whatever the sink.
void write_zip(ByteSink& sink, const std::vector<std::string>& records) {
  ZipWriter w(sink);
  for (size_t i = 0; i < records.size(); ++i)
    w.write_record("archive/data/" + std::to_string(i), records[i].data(), records[i].size());
  w.finish();
}

std::string file_through_sink(const std::vector<std::string>& records, FileSink::Mode mode,
                              bool direct, bool* went_direct) {
  const std::string path = temp_path("zip");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  {
    FileSink sink(fd, path, mode, direct);
    write_zip(sink, records);
    sink.finish();
    EXPECT_EQ(sink.size(), static_cast<uint64_t>(::lseek(fd, 0, SEEK_END)));
    *went_direct = sink.direct();
  }
  ::close(fd);
  std::string bytes = slurp(path);
  std::remove(path.c_str());
  return bytes;
}

bool file_system_takes_o_direct() {
  const std::string path = temp_path("probe");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
  bool ok = false;
  if (fd >= 0) {
    void* block = std::aligned_alloc(4096, 4096);
    std::memset(block, 0, 4096);
    ok = ::pwrite(fd, block, 4096, 0) == 4096;
    std::free(block);
    ::close(fd);
  }
  std::remove(path.c_str());
  return ok;
}

TEST(SerializationFileSink, WritesExactlyTheBytesOfAMemorySink) {
  // Records spanning several staging buffers, tails not a whole 4096-byte block, empty
  // records, and a file whose total size is not a block multiple (the O_DIRECT tail is padded
  // for the write, then truncated away).
  std::vector<std::string> records = {
      random_bytes(5, 3), random_bytes(2 * FileSink::kBufferBytes + 123, 4), "",
      random_bytes(4096, 5), random_bytes(FileSink::kBufferBytes / 2 - 7, 6)};
  MemorySink mem;
  write_zip(mem, records);
  ASSERT_NE(mem.bytes.size() % FileSink::kBlock, 0u);
  const bool fs_direct = file_system_takes_o_direct();
  struct Case {
    FileSink::Mode mode;
    bool direct;
  };
  for (Case c : {Case{FileSink::Mode::kDurable, true}, Case{FileSink::Mode::kDurable, false},
                 Case{FileSink::Mode::kBuffered, true}}) {
    bool went_direct = true;
    const std::string bytes = file_through_sink(records, c.mode, c.direct, &went_direct);
    EXPECT_EQ(bytes.size(), mem.bytes.size());
    EXPECT_TRUE(bytes == mem.bytes) << "mode " << int(c.mode) << " direct " << c.direct;
    // O_DIRECT only for durable sinks that may use it, and then wherever the file system takes it.
    EXPECT_EQ(went_direct, c.mode == FileSink::Mode::kDurable && c.direct && fs_direct);
    // The CRCs the sink computed while copying are those of the records.
    ZipReader r(ser::detail::ByteSource::from_buffer(bytes));
    for (size_t i = 0; i < records.size(); ++i)
      EXPECT_EQ(r.entry("archive/data/" + std::to_string(i)).crc32,
                crc32_ref(records[i].data(), records[i].size()));
  }
}

TEST(SerializationFileSink, SmallFilesAndAnEmptyOne) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}}) {
    const std::string path = temp_path("small");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    const std::string data = random_bytes(n, 7);
    {
      FileSink sink(fd, path, FileSink::Mode::kDurable);
      sink.write(data.data(), data.size());
      sink.finish();
    }
    ::close(fd);
    EXPECT_EQ(slurp(path), data) << n;
    std::remove(path.c_str());
  }
}

TEST(SerializationFileSink, WriteErrorsSayWhatFailed) {
  // /dev/full refuses every write with ENOSPC: the error names the file and the reason, from
  // the writer thread's failure, at the next buffer handed over or at finish().
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  const std::string data = random_bytes(size_t{20} << 20, 8);
  testing::expect_error(
      [&] {
        FileSink sink(fd, "/dev/full", FileSink::Mode::kBuffered);
        sink.write(data.data(), data.size());
        sink.finish();
      },
      "writing '/dev/full' failed: No space left on device");
  testing::expect_error(
      [&] {
        FileSink sink(fd, "/dev/full", FileSink::Mode::kBuffered);
        sink.write("abc", 3);
        sink.finish();
      },
      "writing '/dev/full' failed: No space left on device");
  // A caller's own wording (safetensors' "I/O error: ..."): the errno reaches its callback.
  struct Refused {
    int err;
  };
  bool caught = false;
  try {
    FileSink sink(fd, "/dev/full", FileSink::Mode::kBuffered, true,
                  [](int e) { throw Refused{e}; });
    sink.write("abc", 3);
    sink.finish();
  } catch (const Refused& r) {
    caught = true;
    EXPECT_EQ(r.err, ENOSPC);
  }
  EXPECT_TRUE(caught);
  ::close(fd);
}

TEST(SerializationFileSink, AtomicSaveWithAndWithoutDirectIoGivesTheSameFile) {
  // ember::save end to end: the default (O_DIRECT here) and EMBER_DIRECT_IO=0 write the same
  // archive, which loads back; the serialization_id record (random digits) aside.
  auto d = ser::Node::dict(true);
  d->set("a", ser::Node::of(testing::iota({3000, 3001})));  // 36 MB: three staging buffers
  d->set("b", ser::Node::of(testing::iota({7}, kFloat64, 1.5)));
  const std::string p1 = temp_path("d.pt");
  save(d, p1);
  const std::string b1 = slurp(p1);
  ::setenv("EMBER_DIRECT_IO", "0", 1);
  save(d, p1);  // over the first: the atomic rename replaces it
  ::unsetenv("EMBER_DIRECT_IO");
  const std::string b2 = slurp(p1);
  ASSERT_EQ(b1.size(), b2.size());
  ZipReader r1(ser::detail::ByteSource::from_buffer(b1)),
      r2(ser::detail::ByteSource::from_buffer(b2));
  for (const auto& e : r1.entries())
    if (e.name.find("serialization_id") == std::string::npos) {
      EXPECT_EQ(r1.read(e), r2.read(e.name)) << e.name;
    }
  auto back = load(p1);
  EXPECT_TRUE(equal(back->at("a")->tensor, testing::iota({3000, 3001})));
  EXPECT_TRUE(equal(back->at("b")->tensor, testing::iota({7}, kFloat64, 1.5)));
  struct stat st {};
  ASSERT_EQ(::stat(p1.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);  // not mkstemp's 0600
  std::remove(p1.c_str());
}

}  // namespace
}  // namespace ember
