// Writing zips laid out as PyTorch's writer (miniz under caffe2's PyTorchStreamWriter) does:
// stored records, each local header padded with an "FB" extra field of 'Z's so that the data
// starts on a 64-byte boundary, a data descriptor after each record, and ZIP64 end records
// always. Python's zipfile, torch.load and ember's reader all read the result.
#include <cstring>

#include "ember/error.h"
#include "serialization/zip.h"

namespace ember::serialization::detail {
namespace {

void put16(std::string& s, uint16_t v) {
  s.push_back(char(v & 0xFF));
  s.push_back(char(v >> 8));
}
void put32(std::string& s, uint32_t v) {
  put16(s, uint16_t(v & 0xFFFF));
  put16(s, uint16_t(v >> 16));
}
void put64(std::string& s, uint64_t v) {
  put32(s, uint32_t(v & 0xFFFFFFFFu));
  put32(s, uint32_t(v >> 32));
}
uint32_t clamp32(uint64_t v, bool zip64) { return zip64 ? 0xFFFFFFFFu : uint32_t(v); }

constexpr uint16_t kFlags = 0x0808;  // data descriptor follows; names are UTF-8
constexpr uint16_t kVersionZip64 = 45;

}  // namespace

ZipWriter::ZipWriter(ByteSink& sink, uint64_t zip64_threshold)
    : sink_(sink), zip64_threshold_(zip64_threshold) {}

void ZipWriter::put(const void* p, size_t n) {
  sink_.write(p, n);
  offset_ += n;
}

void ZipWriter::write_record(const std::string& name, const void* data, size_t n) {
  EMBER_CHECK(!finished_, "zip writer: write_record after finish");
  EMBER_CHECK(name.size() <= 0xFFFF, "zip writer: record name of ", name.size(),
              " bytes is too long");
  EMBER_CHECK(names_.emplace(name, entries_.size()).second, "zip writer: duplicate record '",
              name, "'");
  const bool big = n >= zip64_threshold_;
  std::string h;
  put32(h, 0x04034b50);
  put16(h, big ? kVersionZip64 : 0);
  put16(h, kFlags);
  put16(h, 0);  // stored
  put16(h, 0);  // time
  put16(h, 0);  // date
  put32(h, 0);  // crc, sizes: in the data descriptor
  put32(h, big ? 0xFFFFFFFFu : 0);
  put32(h, big ? 0xFFFFFFFFu : 0);
  put16(h, uint16_t(name.size()));
  // PyTorch's padding rule: the data starts after the header, the name, the ZIP64 field (if
  // any) and a 4-byte "FB" field whose payload pads to the alignment.
  uint64_t start = offset_ + 30 + name.size() + (big ? 20 : 0) + 4;
  uint64_t pad = (kRecordAlignment - start % kRecordAlignment) % kRecordAlignment;
  put16(h, uint16_t((big ? 20 : 0) + 4 + pad));
  h += name;
  if (big) {
    put16(h, 0x0001);
    put16(h, 16);
    put64(h, n);
    put64(h, n);
  }
  h += "FB";
  put16(h, uint16_t(pad));
  h.append(pad, 'Z');
  ZipEntry e;
  e.name = name;
  e.size = e.compressed_size = n;
  e.header_offset = offset_;
  put(h.data(), h.size());
  e.data_offset = offset_;
  EMBER_ASSERT(e.data_offset % kRecordAlignment == 0);
  if (n) {
    e.crc32 = sink_.write_crc32(data, n, 0);
    offset_ += n;
  }
  std::string d;
  put32(d, 0x08074b50);
  put32(d, e.crc32);
  if (big) {
    put64(d, n);
    put64(d, n);
  } else {
    put32(d, uint32_t(n));
    put32(d, uint32_t(n));
  }
  put(d.data(), d.size());
  entries_.push_back(std::move(e));
}

void ZipWriter::finish() {
  EMBER_CHECK(!finished_, "zip writer: finish called twice");
  finished_ = true;
  const uint64_t cd_offset = offset_;
  std::string cd;
  for (const ZipEntry& e : entries_) {
    bool big_size = e.size >= zip64_threshold_, big_off = e.header_offset >= zip64_threshold_;
    std::string x;
    if (big_size || big_off) {
      put16(x, 0x0001);
      put16(x, uint16_t((big_size ? 16 : 0) + (big_off ? 8 : 0)));
      if (big_size) {
        put64(x, e.size);
        put64(x, e.compressed_size);
      }
      if (big_off) put64(x, e.header_offset);
    }
    put32(cd, 0x02014b50);
    put16(cd, x.empty() ? 0 : kVersionZip64);  // made by
    put16(cd, x.empty() ? 0 : kVersionZip64);  // needed
    put16(cd, kFlags);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, e.crc32);
    put32(cd, clamp32(e.compressed_size, big_size));
    put32(cd, clamp32(e.size, big_size));
    put16(cd, uint16_t(e.name.size()));
    put16(cd, uint16_t(x.size()));
    put16(cd, 0);  // comment
    put16(cd, 0);  // disk
    put16(cd, 0);  // internal attributes
    put32(cd, 0);  // external attributes
    put32(cd, clamp32(e.header_offset, big_off));
    cd += e.name;
    cd += x;
  }
  put(cd.data(), cd.size());
  const uint64_t end64_offset = offset_;
  const uint64_t n = entries_.size();
  std::string t;
  put32(t, 0x06064b50);
  put64(t, 44);
  put16(t, 0x031e);
  put16(t, kVersionZip64);
  put32(t, 0);
  put32(t, 0);
  put64(t, n);
  put64(t, n);
  put64(t, cd.size());
  put64(t, cd_offset);
  put32(t, 0x07064b50);
  put32(t, 0);
  put64(t, end64_offset);
  put32(t, 1);
  put32(t, 0x06054b50);
  put16(t, 0);
  put16(t, 0);
  put16(t, uint16_t(n >= 0xFFFF ? 0xFFFF : n));
  put16(t, uint16_t(n >= 0xFFFF ? 0xFFFF : n));
  put32(t, clamp32(cd.size(), cd.size() >= zip64_threshold_));
  put32(t, clamp32(cd_offset, cd_offset >= zip64_threshold_));
  put16(t, 0);
  put(t.data(), t.size());
}

}  // namespace ember::serialization::detail
