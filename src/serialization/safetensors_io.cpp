// safetensors files: the save checks safetensors.torch makes, atomic writes, private mappings
// for zero-copy loads, and get_slice's indexing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "ember/ops/factory.h"
#include "ember/safetensors.h"
#include "serialization/atomic_file.h"
#include "serialization/file_sink.h"
#include "serialization/safetensors_internal.h"
#include "serialization/zip.h"

namespace ember::safetensors {

namespace {

[[noreturn]] void fail(const std::string& msg) { throw SafetensorError(msg); }

// The file mapped privately (MAP_PRIVATE, writable): tensors over it may be written, and their
// pages are then copied, never written back, as torch's from_file(shared=False). The mapping is
// the checkpoint reader's (zip.h's ByteSource); a missing file is FileNotFoundError first.
using FileMap = serialization::detail::ByteSource;

std::shared_ptr<FileMap> map_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw FileNotFound("No such file or directory: " + path);
  } else if (!S_ISREG(st.st_mode)) {
    fail(detail::str_cat("Could not open ", path, ": not a regular file"));
  }
  return FileMap::open_file(path, /*map=*/true);
}

ScalarType ember_dtype(const std::string& name, const std::string& tensor) {
  auto t = dtype_from_name(name);
  if (!t) fail(detail::str_cat("tensor `", tensor, "` has dtype ", name, ", which ember does not have"));
  return *t;
}

DimVector ember_shape(const TensorInfo& info, const std::string& tensor) {
  DimVector sizes;
  for (uint64_t d : info.shape) {
    if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(detail::str_cat("tensor `", tensor, "` has a dimension of ", d, ", too large for a tensor"));
    sizes.push_back(static_cast<int64_t>(d));
  }
  return sizes;
}

// Bytes other than 0 and 1 in a BOOL tensor become 1 (torch reads them as true; a C++ bool must
// hold 0 or 1). Only the offending bytes are written, so a clean mapped tensor stays unshared.
void normalize_bools(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] > 1) p[i] = 1;
}

// A tensor over `bytes` of the file image. `keep` (the mapping) keeps the bytes alive when
// they are used in place; without it, or when they are not aligned for the dtype, they are
// copied into fresh memory.
Tensor make_tensor(const std::string& name, const TensorInfo& info, uint8_t* bytes,
                   const std::shared_ptr<FileMap>& keep) {
  const ScalarType dt = ember_dtype(info.dtype, name);
  const DimVector sizes = ember_shape(info, name);
  const size_t nbytes = info.end - info.begin;
  const bool aligned = reinterpret_cast<uintptr_t>(bytes) % element_size(dt) == 0;
  Tensor t;
  if (keep && aligned && nbytes > 0) {
    t = from_blob(bytes, sizes, TensorOptions(dt), [keep](void*) {});
  } else {
    t = empty(sizes, TensorOptions(dt));
    if (nbytes) std::memcpy(t.data_ptr(), bytes, nbytes);
  }
  if (dt == kBool) normalize_bools(static_cast<uint8_t*>(t.data_ptr()), nbytes);
  return t;
}

// safetensors.torch's _find_shared_tensors: tensors are grouped by storage, and within a
// storage the ones whose byte ranges overlap form one group. Meta tensors and empty storages
// are never shared.
std::vector<std::vector<std::string>> shared_groups(const TensorList& tensors, bool all) {
  struct Area {
    uintptr_t start, stop;
    std::string name;
  };
  std::map<std::pair<const void*, size_t>, std::vector<Area>> by_storage;
  std::vector<std::pair<const void*, size_t>> order;
  for (const auto& [name, t] : tensors) {
    if (!t.defined() || t.is_meta()) continue;
    const Storage& s = *t.impl()->storage();
    if (!s.data() || s.nbytes() == 0) continue;
    uintptr_t start = reinterpret_cast<uintptr_t>(t.data_ptr()), stop = start;
    if (t.numel() > 0) {
      int64_t last = 0;  // the farthest element, in elements from the first
      for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * std::max<int64_t>(t.stride(d), 0);
      stop = start + static_cast<uintptr_t>(last + 1) * t.element_size();
    }
    auto key = std::pair(s.data(), s.nbytes());
    if (!by_storage.count(key)) order.push_back(key);
    by_storage[key].push_back({start, stop, name});
  }
  std::vector<std::vector<std::string>> failing;
  for (const auto& key : order) {
    auto areas = by_storage[key];
    if (areas.size() < 2 && !all) continue;
    std::sort(areas.begin(), areas.end(), [](const Area& a, const Area& b) {
      return std::tie(a.start, a.stop, a.name) < std::tie(b.start, b.stop, b.name);
    });
    std::vector<std::vector<std::string>> groups{{areas[0].name}};
    uintptr_t last_stop = areas[0].stop;
    for (size_t i = 1; i < areas.size(); ++i) {
      if (areas[i].start >= last_stop)
        groups.push_back({areas[i].name});
      else
        groups.back().push_back(areas[i].name);
      last_stop = areas[i].stop;
    }
    for (auto& g : groups)
      if (g.size() > 1 || all) {
        std::sort(g.begin(), g.end());
        failing.push_back(std::move(g));
      }
  }
  return failing;
}

std::string py_str_repr(const std::string& s) {
  const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = use_double ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == '\\' || c == q) out += '\\';
    out += c;
  }
  out += q;
  return out;
}

struct Prepared {
  std::vector<std::pair<std::string, TensorInfo>> entries;  // in file order, offsets set
  std::vector<const Tensor*> tensors;                       // same order
  std::string header;
};

// safetensors.torch's checks, in its order: shared memory first (all tensors), then each
// tensor's layout and dtype, then sizes.
Prepared prepare(const TensorList& tensors, const std::optional<Metadata>& metadata) {
  auto failing = shared_groups(tensors, /*all=*/false);
  if (!failing.empty()) {
    std::string list = "[";
    for (size_t i = 0; i < failing.size(); ++i) {
      list += i ? ", {" : "{";
      for (size_t j = 0; j < failing[i].size(); ++j) {
        if (j) list += ", ";
        list += py_str_repr(failing[i][j]);
      }
      list += "}";
    }
    list += "]";
    EMBER_FAIL("\n            Some tensors share memory, this will lead to duplicate memory on disk and potential "
               "differences when loading them again: ", list,
               ".\n            A potential way to correctly save your model is to use `save_model`.\n"
               "            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors\n"
               "            ");
  }
  std::vector<std::pair<std::string, TensorInfo>> entries;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK_VALUE(t.defined(), "Key `", name, "` is invalid, expected ember.Tensor but received an undefined tensor");
    EMBER_CHECK_VALUE(t.is_contiguous(), "You are trying to save a non contiguous tensor: `", name,
                      "` which is not allowed. It either means you are trying to save tensors which are reference "
                      "of each other in which case it's recommended to save only the full tensors, and reslice at "
                      "load time, or simply call `.contiguous()` on your tensor to pack it before saving.");
    TensorInfo info;
    info.dtype = safetensors::dtype_name(t.dtype());
    for (int64_t d : t.sizes()) info.shape.push_back(static_cast<uint64_t>(d));
    entries.emplace_back(name, std::move(info));
  }
  for (const auto& [name, t] : tensors)
    if (t.is_meta() && t.numel() > 0)  // a meta tensor has no bytes: the crate's size check fails
      fail("Error while serializing: invalid shape, data type, or offset for tensor");
  Prepared p;
  uint64_t offset = 0;
  for (size_t i : internal::save_order(entries)) {
    auto e = entries[i];
    e.second.begin = offset;
    offset += tensors[i].second.nbytes();
    e.second.end = offset;
    p.entries.push_back(std::move(e));
    p.tensors.push_back(&tensors[i].second);
  }
  p.header = internal::header_bytes(p.entries, metadata);
  return p;
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

}  // namespace

std::vector<std::vector<std::string>> find_shared_tensors(const TensorList& tensors) {
  return shared_groups(tensors, /*all=*/true);
}

bool is_complete(const Tensor& t) {
  const Storage& s = *t.impl()->storage();
  return t.data_ptr() == s.data() && t.nbytes() == s.nbytes();
}

std::string serialize(const TensorList& tensors, const std::optional<Metadata>& metadata) {
  Prepared p = prepare(tensors, metadata);
  std::string out = le64(p.header.size()) + p.header;
  out.reserve(out.size() + (p.entries.empty() ? 0 : p.entries.back().second.end));
  for (const Tensor* t : p.tensors)
    if (t->nbytes()) out.append(static_cast<const char*>(t->data_ptr()), t->nbytes());
  return out;
}

void save_file(const TensorList& tensors, const std::string& path, const std::optional<Metadata>& metadata) {
  Prepared p = prepare(tensors, metadata);
  serialization::detail::TempFileBeside tmp(path, ".tmp");
  const auto io_error = [&](int e) {
    fail(detail::str_cat("Error while serializing: I/O error: ", std::strerror(e), " (", path, ")"));
  };
  if (tmp.fd() < 0) io_error(tmp.error());
  const std::string head = le64(p.header.size()) + p.header;
  {  // at disk speed (Note [Saving at disk speed])
    using serialization::detail::FileSink;
    FileSink sink(tmp.fd(), tmp.path(), FileSink::Mode::kDurable, /*direct=*/true, io_error);
    sink.write(head.data(), head.size());
    for (const Tensor* t : p.tensors)
      if (t->nbytes()) sink.write(t->data_ptr(), t->nbytes());
    sink.finish();
  }
  if (int e = tmp.sync_and_close()) io_error(e);
  if (int e = tmp.replace_target()) io_error(e);
}

NamedTensors load(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  Header h;
  try {
    h = parse_header(bytes, size);
  } catch (const SafetensorError& e) {
    fail(std::string("Error while deserializing: ") + e.what());
  }
  NamedTensors out;
  const uint64_t base = 8 + h.header_len;
  for (const auto& [name, info] : h.tensors)
    out.emplace_back(name, make_tensor(name, info, const_cast<uint8_t*>(bytes) + base + info.begin, nullptr));
  return out;
}

NamedTensors load_file(const std::string& path) {
  SafeOpen f(path);
  NamedTensors out;
  for (const auto& name : f.offset_keys()) out.emplace_back(name, f.get_tensor(name));
  return out;
}

// ---- SafeOpen ----

struct SafeOpen::Mapping {
  std::shared_ptr<FileMap> source;
  uint8_t* data() const { return const_cast<uint8_t*>(source->data()); }
};

SafeOpen::SafeOpen(const std::string& path) : path_(path) {
  map_ = std::make_shared<Mapping>(Mapping{map_file(path)});
  try {
    header_ = parse_header(map_->data(), static_cast<size_t>(map_->source->size()));
  } catch (const SafetensorError& e) {
    fail(std::string("Error while deserializing header: ") + e.what());
  }
}

std::vector<std::string> SafeOpen::keys() const {
  std::vector<std::string> k = offset_keys();
  std::sort(k.begin(), k.end());
  return k;
}

std::vector<std::string> SafeOpen::offset_keys() const {
  std::vector<std::string> k;
  for (const auto& e : header_.tensors) k.push_back(e.first);
  return k;
}

const TensorInfo& SafeOpen::info(const std::string& name) const {
  const TensorInfo* info = header_.find(name);
  if (!info) fail("File does not contain tensor " + name);
  return *info;
}

Tensor SafeOpen::get_tensor(const std::string& name) const {
  const TensorInfo& i = info(name);
  return make_tensor(name, i, map_->data() + 8 + header_.header_len + i.begin, map_->source);
}

Tensor SafeOpen::get_slice(const std::string& name, const std::vector<SliceIndex>& indices) const {
  const TensorInfo& i = info(name);
  const auto& shape = i.shape;
  // The crate's text names every index as given ("[0:2, 1]") and the full shape.
  auto describe = [&]() {
    std::string s = "[";
    for (size_t k = 0; k < indices.size(); ++k) {
      if (k) s += ", ";
      if (auto* sel = std::get_if<int64_t>(&indices[k])) {
        s += std::to_string(*sel);
      } else {
        const auto& n = std::get<Narrow>(indices[k]);
        if (n.start) s += std::to_string(*n.start);
        s += ':';
        if (n.stop) s += std::to_string(*n.stop);
      }
    }
    s += "] with shape [";
    for (size_t k = 0; k < shape.size(); ++k) {
      if (k) s += ", ";
      s += std::to_string(shape[k]);
    }
    s += ']';
    return s;
  };
  if (indices.size() > shape.size())
    fail("Error during slicing " + describe() + ": more slicing indexes than dimensions in tensor");
  struct Range {
    uint64_t start, stop;
    bool select;
  };
  std::vector<Range> ranges(indices.size());
  // Checked from the last dimension to the first, as the crate walks them.
  for (size_t k = indices.size(); k-- > 0;) {
    const uint64_t dim = shape[k];
    Range r{};
    if (auto* sel = std::get_if<int64_t>(&indices[k])) {
      int64_t idx = *sel;
      if (idx < 0) {
        if (static_cast<uint64_t>(-idx) > dim)
          fail(detail::str_cat("Invalid index ", idx, " for dimension ", k, " of size ", dim));
        idx += static_cast<int64_t>(dim);
      }
      r = {static_cast<uint64_t>(idx), static_cast<uint64_t>(idx) + 1, true};
    } else {
      const auto& n = std::get<Narrow>(indices[k]);
      r = {n.start.value_or(0), n.stop.value_or(dim), false};
      if (r.stop < r.start) r.stop = r.start;  // an empty range, not a negative length
    }
    if (r.start >= dim || r.stop > dim) {
      const uint64_t asked = r.start >= dim ? r.start : r.stop - 1;
      fail(detail::str_cat("Error during slicing ", describe(), ": index ", asked,
                           " out of bounds for tensor dimension #", k, " of size ", dim));
    }
    ranges[k] = r;
  }
  Tensor t = get_tensor(name);
  int64_t d = 0;
  for (const Range& r : ranges) {
    if (r.select) {
      t = t.select(d, static_cast<int64_t>(r.start));
    } else {
      t = t.narrow(d, static_cast<int64_t>(r.start), static_cast<int64_t>(r.stop - r.start));
      ++d;
    }
  }
  return t.clone(MemoryFormat::Contiguous);
}

}  // namespace ember::safetensors
