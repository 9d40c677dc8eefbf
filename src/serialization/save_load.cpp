// ember::save / ember::load: the archive layout around data.pkl, storages from records (copied
// or mapped), atomic saves, and the legacy (pre-1.6) format.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <unordered_map>

#include "ember/nn/state_dict.h"
#include "serialization/atomic_file.h"
#include "serialization/file_sink.h"
#include "serialization/pickle.h"
#include "serialization/zip.h"

namespace ember::serialization {
using detail::ByteSink;
using detail::ByteSource;
using detail::StorageRef;
using detail::ZipEntry;
using detail::ZipReader;
using detail::ZipWriter;

namespace {

class StreamSink final : public ByteSink {
 public:
  explicit StreamSink(std::ostream& os) : os_(os) {}
  void write(const void* data, size_t n) override {
    os_.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    EMBER_CHECK(os_.good(), "ember::save: writing to the stream failed");
  }

 private:
  std::ostream& os_;
};

// 2.x's serialization_id: 40 decimal digits (a hash of the records, then random digits).
std::string serialization_id(uint32_t records_crc) {
  std::random_device rd;
  uint64_t r = (uint64_t(rd()) << 32) | rd();
  std::string a = std::to_string(records_crc), b = std::to_string(r);
  return std::string(20 - a.size(), '0') + a + std::string(20 - std::min<size_t>(20, b.size()), '0') + b;
}

void write_records(const std::string& pkl, StorageRecords storages, ByteSink& sink,
                   const std::string& name) {
  ZipWriter w(sink);
  w.write_record(name + "/data.pkl", pkl.data(), pkl.size());
  w.write_record(name + "/byteorder", "little", 6);
  // PyTorch writes the records in the order of their keys as strings ("0", "1", "10", "2").
  std::sort(storages.begin(), storages.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  uint32_t crc = 0;
  for (const auto& [key, s] : storages) {
    EMBER_CHECK(s->device().is_cpu(), "ember::save: storage on ", s->device(),
                " has no data to write");
    w.write_record(name + "/data/" + key, s->data(), s->nbytes());
    crc = detail::crc32_of(key.data(), key.size(), crc);
  }
  w.write_record(name + "/version", "3\n", 2);
  std::string id = serialization_id(crc);
  w.write_record(name + "/.data/serialization_id", id.data(), id.size());
  w.finish();
}

void write_archive(const NodePtr& obj, ByteSink& sink, const SaveOptions& o,
                   const std::string& name) {
  StorageRecords storages;
  std::string pkl = detail::pickle_node(
      obj, o.pickle_protocol, [&](const StorageRef& r) { storages.emplace_back(r.key, r.storage); });
  write_records(pkl, std::move(storages), sink, name);
}

// Writes through `write(sink)` to `path`: atomically (Note [Atomic saves]) or in place.
void write_file(const std::string& path, bool atomic, const std::function<void(ByteSink&)>& write);

std::string stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base.empty() ? "archive" : base;
}

Device restore_location(const std::string& location, const LoadOptions& o) {
  if (o.map_location) return o.map_location(location);
  if (location == "cpu" || location.rfind("cpu:", 0) == 0) return kCPU;
  if (location == "meta") return kMeta;
  EMBER_CHECK(location.rfind("cuda", 0) != 0,
              "Attempting to deserialize object on a CUDA device but ember has no CUDA devices. "
              "If you are running on a CPU-only machine, please use ember.load with "
              "map_location=ember.device('cpu') to map your storages to the CPU.");
  EMBER_FAIL("don't know how to restore data location of storage at location '", location,
             "': pass map_location to map it to a device ember has (cpu, meta)");
}

void byteswap(void* data, size_t nbytes, size_t elem) {
  auto* p = static_cast<uint8_t*>(data);
  for (size_t i = 0; i + elem <= nbytes; i += elem) std::reverse(p + i, p + i + elem);
}

// The persistent id's parts, checked: ('storage', type, key, location, numel[, view]).
struct Pid {
  ScalarType dtype;
  std::string key, location;
  int64_t numel;
  NodePtr view;  // legacy only
};

Pid parse_pid(const Node& pid, const std::string& what) {
  using K = Node::Kind;
  const auto& a = pid.items;
  auto bad = [&](const std::string& m) -> Pid {
    throw UnpicklingError("persistent id in " + what + ": " + m);
  };
  if (a.empty() || !(a[0]->is(K::String) || a[0]->is(K::Bytes)) || a[0]->str != "storage") {
    return bad("Only persistent_load of storage is allowed, got " +
               (a.empty() ? std::string("an empty tuple") : "'" + a[0]->str + "'"));
  }
  if (a.size() != 5 && a.size() != 6) return bad("expected 5 items, got " + std::to_string(a.size()));
  if (!a[1]->is(K::Global)) return bad(std::string("item 1 must be a storage type, got ") + a[1]->type_name());
  ScalarType dt = detail::storage_type_dtype(a[1]->str);
  if (a[1]->str == "torch.UntypedStorage" || a[1]->str == "torch.storage.UntypedStorage") dt = kUInt8;
  if (dt == ScalarType::Undefined) return bad(a[1]->str + " is not a storage type");
  if (!a[2]->is(K::String) || !a[3]->is(K::String) || !a[4]->is(K::Int)) {
    return bad("expected (str key, str location, int numel)");
  }
  if (a[4]->integer < 0) return bad("negative storage size " + std::to_string(a[4]->integer));
  return Pid{dt, a[2]->str, a[3]->str, a[4]->integer, a.size() == 6 ? a[5] : nullptr};
}

NodePtr storage_node(intrusive_ptr<Storage> s, ScalarType dt, int64_t numel,
                     const std::string& location) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::Storage;
  n->storage = std::move(s);
  n->dtype = dt;
  n->integer = numel;
  n->location = location;
  return n;
}

NodePtr load_zip(const std::shared_ptr<ByteSource>& src, const LoadOptions& o) {
  ZipReader reader(src);
  EMBER_CHECK(!reader.entries().empty(), "PytorchStreamReader failed reading zip archive: the "
                                         "archive has no records");
  const std::string& first = reader.entries().front().name;
  size_t slash = first.find('/');
  EMBER_CHECK(slash != std::string::npos && slash > 0, "PytorchStreamReader failed reading zip "
              "archive: file in archive is not in a subdirectory: ", first);
  const std::string prefix = first.substr(0, slash + 1);
  const ZipEntry* pkl_entry = reader.find(prefix + "data.pkl");
  EMBER_CHECK(pkl_entry, "PytorchStreamReader failed locating file data.pkl: file not found (the "
                         "zip is not a checkpoint in PyTorch's format, as ember.save writes)");
  const ZipEntry* ver = reader.find(prefix + "version");
  if (!ver) ver = reader.find(prefix + ".data/version");
  if (ver) {
    EMBER_CHECK(ver->size <= 32, "PytorchStreamReader failed reading file version: record of ",
                ver->size, " bytes");
    std::string v = reader.read(*ver);
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    EMBER_CHECK(!v.empty() && end && *end == '\0' && n >= 1 && n <= 10,
                "PytorchStreamReader failed reading file version: '", v,
                "' (ember reads versions 1 to 10)");
  }
  bool big_endian = false;
  if (const ZipEntry* bo = reader.find(prefix + "byteorder")) {
    EMBER_CHECK(bo->size <= 16, "byteorder record of ", bo->size, " bytes");
    std::string order = reader.read(*bo);
    EMBER_CHECK(order == "little" || order == "big", "Unknown endianness type: ", order);
    big_endian = order == "big";
  }
  EMBER_CHECK(pkl_entry->size <= (uint64_t{1} << 34), "data.pkl of ", pkl_entry->size,
              " bytes is absurdly large");
  std::string pkl = reader.read(*pkl_entry);
  struct Loaded {
    intrusive_ptr<Storage> storage;
  };
  std::unordered_map<std::string, Loaded> loaded;
  const std::string what = prefix + "data.pkl";
  auto persistent_load = [&](const Node& pid_node) -> NodePtr {
    Pid pid = parse_pid(pid_node, what);
    size_t elem = element_size(pid.dtype);
    uint64_t nbytes;
    if (__builtin_mul_overflow(uint64_t(pid.numel), uint64_t(elem), &nbytes)) {
      throw UnpicklingError("storage '" + pid.key + "' size overflows");
    }
    auto it = loaded.find(pid.key);
    if (it != loaded.end()) {
      // Another typed view of the same record: it must fit.
      const auto& s = it->second.storage;
      if (nbytes > s->nbytes()) {
        throw UnpicklingError("storage '" + pid.key + "' is used with " + std::to_string(nbytes) +
                              " bytes but its record holds " + std::to_string(s->nbytes()));
      }
      return storage_node(s, pid.dtype, int64_t(s->nbytes() / elem), pid.location);
    }
    const ZipEntry* e = reader.find(prefix + "data/" + pid.key);
    if (!e) throw UnpicklingError("storage record '" + prefix + "data/" + pid.key + "' is missing");
    if (e->size != nbytes) {
      throw UnpicklingError("storage record '" + e->name + "' holds " + std::to_string(e->size) +
                            " bytes but the checkpoint describes " + std::to_string(pid.numel) +
                            " elements of " + std::to_string(elem) + " bytes");
    }
    Device dev = o.map_storage && !o.map_location ? kCPU : restore_location(pid.location, o);
    intrusive_ptr<Storage> s;
    if (dev.is_meta()) {
      s = Storage::allocate(nbytes, kMeta);
    } else if (o.mmap && src->is_mapped() && e->method == 0 && !big_endian &&
               e->data_offset % std::max<size_t>(elem, 1) == 0) {
      // A view of the mapping; the storage keeps the mapping (the source) alive.
      auto keep = src;
      s = Storage::wrap(const_cast<uint8_t*>(src->data()) + e->data_offset, nbytes,
                        [keep](void*) {});
    } else {
      s = Storage::allocate(nbytes, kCPU);
      if (nbytes) reader.read_into(*e, s->data(), o.check_crc && !o.mmap);
      if (big_endian && elem > 1) byteswap(s->data(), nbytes, elem);
    }
    if (o.map_storage) {
      if (intrusive_ptr<Storage> mapped = o.map_storage(s, pid.location)) {
        EMBER_CHECK(mapped->nbytes() >= nbytes, "map_location returned a storage of ",
                    mapped->nbytes(), " bytes for one of ", nbytes);
        s = std::move(mapped);
      }
    }
    loaded.emplace(pid.key, Loaded{s});
    return storage_node(s, pid.dtype, pid.numel, pid.location);
  };
  return detail::unpickle(pkl.data(), pkl.size(), persistent_load, what);
}

// ---- the legacy format: pickles back to back, then the storages' bytes ----
// pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2): torch's legacy magic number.
constexpr unsigned char kLegacyMagicBytes[15] = {0x80, 0x02, 0x8a, 0x0a, 'l', 0xfc, 0x9c, 'F',
                                                 0xf9, ' ', 'j', 0xa8, 'P', 0x19, '.'};

NodePtr load_legacy(const std::shared_ptr<ByteSource>& src, const LoadOptions& o) {
  const uint64_t size = src->size();
  std::string all(size, '\0');
  src->read_at(0, all.data(), size);
  size_t pos = sizeof(kLegacyMagicBytes);
  auto next = [&](const detail::PersistentLoad& pl, const char* what) {
    size_t used = 0;
    NodePtr n = detail::unpickle(all.data() + pos, all.size() - pos, pl, what, &used);
    pos += used;
    return n;
  };
  auto no_pid = [](const Node&) -> NodePtr {
    throw UnpicklingError("unexpected persistent id in the legacy header");
  };
  NodePtr version = next(no_pid, "the legacy protocol version");
  EMBER_CHECK(version->is(Node::Kind::Int) && version->integer == 1001,
              "Invalid protocol version: ", version->is(Node::Kind::Int) ? version->integer : -1);
  NodePtr sys_info = next(no_pid, "the legacy sys_info");
  if (sys_info->is(Node::Kind::Dict)) {
    NodePtr le = sys_info->get("little_endian");
    EMBER_CHECK(!le || !le->is(Node::Kind::Bool) || le->boolean,
                "legacy checkpoint: big-endian files are not supported");
  }
  struct Root {
    intrusive_ptr<Storage> storage;
    ScalarType dtype;
    int64_t numel;
  };
  std::unordered_map<std::string, Root> roots;
  auto persistent_load = [&](const Node& pid_node) -> NodePtr {
    Pid pid = parse_pid(pid_node, "the legacy pickle");
    size_t elem = element_size(pid.dtype);
    uint64_t nbytes;
    if (__builtin_mul_overflow(uint64_t(pid.numel), uint64_t(elem), &nbytes) || nbytes > size) {
      throw UnpicklingError("legacy storage '" + pid.key + "' of " + std::to_string(pid.numel) +
                            " elements is larger than the file");
    }
    auto it = roots.find(pid.key);
    if (it == roots.end()) {
      Device dev = restore_location(pid.location, o);
      it = roots.emplace(pid.key, Root{Storage::allocate(nbytes, dev), pid.dtype, pid.numel}).first;
    }
    const Root& r = it->second;
    if (pid.view && !pid.view->is(Node::Kind::None)) {
      const auto& v = pid.view->items;
      if (!pid.view->is(Node::Kind::Tuple) || v.size() != 3 || !v[1]->is(Node::Kind::Int) ||
          !v[2]->is(Node::Kind::Int) || v[1]->integer < 0 || v[2]->integer < 0 ||
          v[1]->integer + v[2]->integer > r.numel) {
        throw UnpicklingError("legacy storage view of '" + pid.key + "' is out of range");
      }
      auto root = r.storage;
      auto* base = static_cast<char*>(root->data());
      auto view = Storage::wrap(base ? base + v[1]->integer * int64_t(elem) : nullptr,
                                uint64_t(v[2]->integer) * elem, [root](void*) {}, root->device());
      return storage_node(view, pid.dtype, v[2]->integer, pid.location);
    }
    return storage_node(r.storage, pid.dtype, r.numel, pid.location);
  };
  NodePtr result = next(persistent_load, "the legacy pickle");
  NodePtr keys = next(no_pid, "the legacy storage keys");
  EMBER_CHECK(keys->is(Node::Kind::List), "legacy checkpoint: the storage keys must be a list");
  for (const auto& k : keys->items) {
    EMBER_CHECK(k->is(Node::Kind::String), "legacy checkpoint: storage keys must be str");
    auto it = roots.find(k->str);
    EMBER_CHECK(it != roots.end(), "legacy checkpoint: data for unknown storage '", k->str, "'");
    const Root& r = it->second;
    EMBER_CHECK(size - pos >= 8, "legacy checkpoint: truncated before storage '", k->str, "'");
    int64_t n = 0;
    std::memcpy(&n, all.data() + pos, 8);
    pos += 8;
    EMBER_CHECK(n == r.numel, "legacy checkpoint: storage '", k->str, "' has ", n,
                " elements in the data but ", r.numel, " in the pickle");
    uint64_t nbytes = r.storage->nbytes();
    EMBER_CHECK(size - pos >= nbytes, "legacy checkpoint: truncated in storage '", k->str, "'");
    if (r.storage->data()) std::memcpy(r.storage->data(), all.data() + pos, nbytes);
    pos += nbytes;
  }
  return result;
}

std::shared_ptr<ByteSource> read_stream(std::istream& in) {
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ByteSource::from_buffer(std::move(bytes));
}

NodePtr load_source(const std::shared_ptr<ByteSource>& src, const LoadOptions& o) {
  std::string head(std::min<uint64_t>(src->size(), 16), '\0');
  src->read_at(0, head.data(), head.size());
  EMBER_CHECK(!head.empty(), "ember.load: the file is empty (zero-length): not a checkpoint");
  if (is_zip_file(head)) return load_zip(src, o);
  if (head.size() >= 15 && std::memcmp(head.data(), kLegacyMagicBytes, 15) == 0) {
    EMBER_CHECK(!o.mmap, "mmap can only be used with files saved with the zip format "
                         "(ember.save, and PyTorch's since 1.6), not the legacy format");
    return load_legacy(src, o);
  }
  // As torch.load: a file that is not a zip is read as a (legacy) pickle, and fails as one.
  char key[8];
  std::snprintf(key, sizeof key, "%c", head[0]);
  throw UnpicklingError(std::string("invalid load key, '") +
                        (std::isprint(static_cast<unsigned char>(head[0])) ? key : "\\x??") +
                        "': not a checkpoint (the file starts with neither a zip header nor the "
                        "legacy format's magic number)");
}

}  // namespace

bool is_zip_file(const std::string& first_bytes) {
  return first_bytes.size() >= 4 && std::memcmp(first_bytes.data(), "PK\x03\x04", 4) == 0;
}

std::string pickle(const NodePtr& obj, int protocol,
                   const std::function<void(const std::string&, const intrusive_ptr<Storage>&)>&
                       record) {
  return detail::pickle_node(obj, protocol,
                             [&](const StorageRef& r) { record(r.key, r.storage); });
}

void save(const NodePtr& obj, std::ostream& out, const SaveOptions& options) {
  StreamSink sink(out);
  write_archive(obj, sink, options, options.archive_name.empty() ? "archive" : options.archive_name);
  out.flush();
}

// Note [Atomic saves] (src/serialization/atomic_file.cpp).
namespace {
void write_file(const std::string& path, bool atomic, const std::function<void(ByteSink&)>& write) {
  using detail::FileSink;
  if (!atomic) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    EMBER_CHECK(fd >= 0, "[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");
    try {
      FileSink sink(fd, path, FileSink::Mode::kBuffered);
      write(sink);
      sink.finish();
    } catch (...) {
      ::close(fd);
      throw;
    }
    EMBER_CHECK(::close(fd) == 0, "writing '", path, "' failed: ", std::strerror(errno));
    return;
  }
  detail::TempFileBeside tmp(path);
  if (tmp.fd() < 0) {
    struct stat st {};
    EMBER_CHECK(::stat(tmp.folder().c_str(), &st) == 0 && S_ISDIR(st.st_mode), "Parent directory ",
                tmp.folder(), " does not exist.");
    EMBER_FAIL("[Errno ", tmp.error(), "] ", std::strerror(tmp.error()), ": '", path, "'");
  }
  {
    FileSink sink(tmp.fd(), tmp.path(), FileSink::Mode::kDurable);
    write(sink);
    sink.finish();
  }
  if (int e = tmp.sync_and_close()) EMBER_FAIL("writing '", tmp.path(), "' to disk failed: ", std::strerror(e));
  if (int e = tmp.replace_target()) EMBER_FAIL("[Errno ", e, "] ", std::strerror(e), ": '", path, "'");
}

}  // namespace

void save(const NodePtr& obj, const std::string& path, const SaveOptions& options) {
  const std::string name = options.archive_name.empty() ? stem(path) : options.archive_name;
  write_file(path, options.atomic, [&](ByteSink& sink) { write_archive(obj, sink, options, name); });
}

void save_pickled(const std::string& pkl, const StorageRecords& storages, const std::string& path,
                  const SaveOptions& options) {
  const std::string name = options.archive_name.empty() ? stem(path) : options.archive_name;
  write_file(path, options.atomic, [&](ByteSink& sink) { write_records(pkl, storages, sink, name); });
}

void save_pickled(const std::string& pkl, const StorageRecords& storages, std::ostream& out,
                  const SaveOptions& options) {
  StreamSink sink(out);
  write_records(pkl, storages, sink, options.archive_name.empty() ? "archive" : options.archive_name);
  out.flush();
}

NodePtr load(const std::string& path, const LoadOptions& options) {
  return load_source(ByteSource::open_file(path, options.mmap), options);
}

NodePtr load(std::istream& in, const LoadOptions& options) {
  EMBER_CHECK(!options.mmap, "mmap can only be used with files, not streams");
  return load_source(read_stream(in), options);
}

NodePtr load_bytes(std::string bytes, const LoadOptions& options) {
  EMBER_CHECK(!options.mmap, "mmap can only be used with files, not buffers");
  return load_source(ByteSource::from_buffer(std::move(bytes)), options);
}

}  // namespace ember::serialization

namespace ember {
nn::StateDict load_state_dict(const std::string& path, const serialization::LoadOptions& o) {
  return serialization::to_state_dict(*serialization::load(path, o));
}
nn::StateDict load_state_dict(std::istream& in, const serialization::LoadOptions& o) {
  return serialization::to_state_dict(*serialization::load(in, o));
}
}  // namespace ember
