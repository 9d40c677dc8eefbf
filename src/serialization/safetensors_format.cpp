// The safetensors header: parsed and validated exactly as the safetensors crate does, and
// written byte for byte as it writes it (serde_json's compact form, padded with spaces).
#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "ember/safetensors.h"
#include "serialization/safetensors_internal.h"

namespace ember::safetensors {

// Note [safetensors validation]
// The crate's read_metadata, step by step, with its error texts:
//   fewer than 8 bytes                      -> "header too small"
//   N > 100'000'000                         -> "header too large"
//   8 + N past the end of the file          -> "invalid header length"
//   header not UTF-8                        -> "invalid UTF-8 in header: ..."
//   not JSON, or not the expected shape     -> "invalid JSON in header: ..."
//   entries sorted by data_offsets; each must start where the previous ended, and end >= start
//                                           -> "invalid offset for tensor `NAME`"
//   product of the shape times the dtype's bits overflows
//                                           -> "overflow computing buffer size from shape ..."
//   bits not a whole number of bytes        -> "The slice is slicing for subbytes dtypes, ..."
//   end - start != the shape's byte size    -> "invalid shape, data type, or offset for tensor"
//   8 + N + last end != the file's size     -> "incomplete metadata, file not fully covered"
// Duplicate keys in the JSON object are refused too (serde keeps one silently; two entries
// for one name can only be a crafted file). Nothing outside the file is ever addressed: every
// tensor's bytes lie inside [8 + N, size) once this passes.

namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// The crate's Dtype enum, in declaration order (its derived Ord sorts the tensors of a file:
// descending rank, then name), with each type's width in bits.
struct DtypeRow {
  const char* name;
  int bits;
  std::optional<ScalarType> ember;
};
const DtypeRow kDtypes[] = {
    {"BOOL", 8, kBool},       {"F4", 4, {}},          {"F6_E2M3", 6, {}},      {"F6_E3M2", 6, {}},
    {"U8", 8, kUInt8},        {"I8", 8, kInt8},       {"F8_E5M2", 8, {}},      {"F8_E4M3", 8, {}},
    {"F8_E8M0", 8, {}},       {"F8_E4M3FNUZ", 8, {}}, {"F8_E5M2FNUZ", 8, {}},  {"I16", 16, kInt16},
    {"U16", 16, {}},          {"F16", 16, kFloat16},  {"BF16", 16, kBFloat16}, {"I32", 32, kInt32},
    {"U32", 32, {}},          {"F32", 32, kFloat32},  {"C64", 64, {}},         {"F64", 64, kFloat64},
    {"I64", 64, kInt64},      {"U64", 64, {}},
};

const DtypeRow* find_dtype(const std::string& name) {
  for (const auto& row : kDtypes)
    if (name == row.name) return &row;
  return nullptr;
}

int dtype_rank(const std::string& name) {
  for (size_t i = 0; i < std::size(kDtypes); ++i)
    if (name == kDtypes[i].name) return static_cast<int>(i);
  return -1;
}

[[noreturn]] void fail(const std::string& msg) { throw SafetensorError(msg); }

// Rust's str::from_utf8 error texts.
void check_utf8(const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    const uint8_t c = s[i];
    size_t len;
    uint32_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      fail(detail::str_cat("invalid UTF-8 in header: invalid utf-8 sequence of 1 bytes from index ", i));
    }
    for (size_t k = 1; k < len; ++k) {
      if (i + k >= n)
        fail(detail::str_cat("invalid UTF-8 in header: incomplete utf-8 byte sequence from index ", i));
      const uint8_t b = s[i + k];
      const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
      if (!ok)
        fail(detail::str_cat("invalid UTF-8 in header: invalid utf-8 sequence of ", k,
                             " bytes from index ", i));
    }
    i += len;
  }
}

[[noreturn]] void bad_json(const std::string& what) { fail("invalid JSON in header: " + what); }

std::string json_type(const json& j) {
  if (j.is_number_float()) return detail::str_cat("floating point `", j.dump(), "`");
  if (j.is_number_integer()) return detail::str_cat("integer `", j.dump(), "`");
  if (j.is_string()) return detail::str_cat("string ", j.dump());
  if (j.is_boolean()) return detail::str_cat("boolean `", j.dump(), "`");
  if (j.is_null()) return "null";
  if (j.is_array()) return "sequence";
  if (j.is_object()) return "map";
  return j.type_name();
}

uint64_t as_usize(const json& j, const std::string& tensor, const char* field) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
    bad_json(detail::str_cat("invalid type: ", json_type(j), ", expected usize in `", field,
                             "` of tensor `", tensor, "`"));
  return j.get<uint64_t>();
}

TensorInfo parse_info(const std::string& name, const json& j) {
  if (!j.is_object())
    bad_json(detail::str_cat("invalid type: ", json_type(j), ", expected struct TensorInfo for tensor `",
                             name, "`"));
  TensorInfo info;
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!j.contains(field)) bad_json(detail::str_cat("missing field `", field, "` for tensor `", name, "`"));
  const json& dt = j["dtype"];
  if (!dt.is_string())
    bad_json(detail::str_cat("invalid type: ", json_type(dt), ", expected a dtype name for tensor `", name, "`"));
  info.dtype = dt.get<std::string>();
  if (!find_dtype(info.dtype)) {
    std::string names;
    for (const auto& row : kDtypes) names += detail::str_cat(names.empty() ? "" : ", ", "`", row.name, "`");
    bad_json(detail::str_cat("unknown variant `", info.dtype, "`, expected one of ", names,
                             " for tensor `", name, "`"));
  }
  const json& shape = j["shape"];
  if (!shape.is_array())
    bad_json(detail::str_cat("invalid type: ", json_type(shape), ", expected a sequence in `shape` of tensor `",
                             name, "`"));
  for (const json& d : shape) info.shape.push_back(as_usize(d, name, "shape"));
  const json& off = j["data_offsets"];
  if (!off.is_array() || off.size() != 2)
    bad_json(detail::str_cat(off.is_array() ? detail::str_cat("invalid length ", off.size())
                                            : "invalid type: " + json_type(off),
                             ", expected a tuple of size 2 in `data_offsets` of tensor `", name, "`"));
  info.begin = as_usize(off[0], name, "data_offsets");
  info.end = as_usize(off[1], name, "data_offsets");
  return info;
}

bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) { return __builtin_mul_overflow(a, b, &out); }

}  // namespace

namespace internal {

int dtype_bits(const std::string& name) {
  const DtypeRow* row = find_dtype(name);
  return row ? row->bits : 0;
}

uint64_t info_nbytes(const TensorInfo& info) {
  uint64_t n = 1;
  for (uint64_t d : info.shape)
    if (mul_overflows(n, d, n)) fail("overflow computing buffer size from shape and/or element type");
  uint64_t bits;
  if (mul_overflows(n, static_cast<uint64_t>(dtype_bits(info.dtype)), bits))
    fail("overflow computing buffer size from shape and/or element type");
  if (bits % 8 != 0)
    fail("The slice is slicing for subbytes dtypes, and the slice does not end up at a byte boundary, "
         "this is invalid.");
  return bits / 8;
}

}  // namespace internal

const TensorInfo* Header::find(const std::string& name) const {
  for (const auto& [n, info] : tensors)
    if (n == name) return &info;
  return nullptr;
}

std::optional<ScalarType> dtype_from_name(const std::string& name) {
  const DtypeRow* row = find_dtype(name);
  return row ? row->ember : std::nullopt;
}

std::string dtype_name(ScalarType t) {
  for (const auto& row : kDtypes)
    if (row.ember && *row.ember == t) return row.name;
  fail(detail::str_cat("Unknown dtype \"", ::ember::dtype_name(t),
                       "\". Supported dtypes: bool, int8, uint8, int16, int32, int64, float16, float32, "
                       "float64, bfloat16"));
}

Header parse_header(const uint8_t* data, size_t size) {
  if (size < 8) fail("header too small");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];  // little-endian whatever the host
  if (n > kMaxHeaderSize) fail("header too large");
  if (n > size - 8) fail("invalid header length");
  const uint8_t* text = data + 8;
  check_utf8(text, n);

  // Duplicate keys, at any depth, are found while parsing (the DOM keeps only one).
  std::vector<std::set<std::string>> seen;
  std::string duplicate;
  auto on_event = [&](int /*depth*/, json::parse_event_t ev, json& parsed) {
    switch (ev) {
      case json::parse_event_t::object_start: seen.emplace_back(); break;
      case json::parse_event_t::object_end:
        if (!seen.empty()) seen.pop_back();
        break;
      case json::parse_event_t::key:
        if (!seen.empty() && !seen.back().insert(parsed.get<std::string>()).second && duplicate.empty())
          duplicate = parsed.get<std::string>();
        break;
      default: break;
    }
    return true;
  };
  json doc;
  try {
    doc = json::parse(text, text + n, on_event);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); what.rfind("[json.exception.", 0) == 0 && p != std::string::npos)
      what = what.substr(p + 2);
    bad_json(what);
  }
  if (!duplicate.empty()) bad_json(detail::str_cat("duplicate field `", duplicate, "`"));
  if (!doc.is_object()) bad_json(detail::str_cat("invalid type: ", json_type(doc), ", expected a map"));

  Header h;
  h.header_len = n;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (it->is_null()) continue;
      if (!it->is_object())
        bad_json(detail::str_cat("invalid type: ", json_type(*it), ", expected a map in `__metadata__`"));
      Metadata md;
      for (auto kv = it->begin(); kv != it->end(); ++kv) {
        if (!kv->is_string())
          bad_json(detail::str_cat("invalid type: ", json_type(*kv), ", expected a string in `__metadata__` for key `",
                                   kv.key(), "`"));
        md.emplace(kv.key(), kv->get<std::string>());
      }
      h.metadata = std::move(md);
      continue;
    }
    h.tensors.emplace_back(it.key(), parse_info(it.key(), *it));
  }
  std::stable_sort(h.tensors.begin(), h.tensors.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second.begin, a.second.end) < std::pair(b.second.begin, b.second.end);
  });
  uint64_t start = 0;
  for (const auto& [name, info] : h.tensors) {
    if (info.begin != start || info.end < info.begin)
      fail(detail::str_cat("invalid offset for tensor `", name, "`"));
    start = info.end;
    if (internal::info_nbytes(info) != info.end - info.begin)
      fail("invalid shape, data type, or offset for tensor");
  }
  if (start != size - 8 - n) fail("incomplete metadata, file not fully covered");
  return h;
}

namespace internal {

std::string header_bytes(const std::vector<std::pair<std::string, TensorInfo>>& entries,
                         const std::optional<Metadata>& metadata) {
  ordered_json doc = ordered_json::object();
  if (metadata) {
    ordered_json md = ordered_json::object();
    for (const auto& [k, v] : *metadata) md[k] = v;
    doc["__metadata__"] = std::move(md);
  }
  for (const auto& [name, info] : entries) {
    EMBER_CHECK_VALUE(!doc.contains(name), "safetensors: the name `", name,
                      "` is used twice (or collides with __metadata__)");
    ordered_json e = ordered_json::object();
    e["dtype"] = info.dtype;
    e["shape"] = info.shape;
    e["data_offsets"] = {info.begin, info.end};
    doc[name] = std::move(e);
  }
  std::string out;
  try {
    out = doc.dump();
  } catch (const ordered_json::exception& e) {
    fail(detail::str_cat("Error while serializing: ", e.what()));
  }
  out.resize((out.size() + 7) / 8 * 8, ' ');  // the crate pads to 8 with spaces
  if (out.size() > kMaxHeaderSize) fail("Error while serializing: header too large");
  return out;
}

std::vector<size_t> save_order(const std::vector<std::pair<std::string, TensorInfo>>& entries) {
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int ra = dtype_rank(entries[a].second.dtype), rb = dtype_rank(entries[b].second.dtype);
    if (ra != rb) return ra > rb;
    return entries[a].first < entries[b].first;
  });
  return order;
}

}  // namespace internal

}  // namespace ember::safetensors
