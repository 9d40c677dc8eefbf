// Reading and writing the token streams the differential tests exchange with the tools in this
// directory (ember_eval: forward values, ember_grad: gradients). Python writes a SPEC with
// tensors in raw files; the tool writes results.txt and raw files back.
//
// Arguments, one per "arg" token:
//   arg T <dtype> <layout c|t|s> <ndim> <sizes...> <raw little-endian file[@byte offset]>
//   arg I <int> | arg F <double> | arg B <0|1> | arg N | arg S <string> | arg Y <dtype>
//   arg L <n> <ints...>            an int list
//   arg TL <n>  then n "arg T ..." a tensor list; when an element is "arg N" the list is a
//                                  Tensor?[] (e.g. index.Tensor's indices with a None)
// Layouts give the same values with different strides: c contiguous, t the dims stored in
// reverse order (a permuted view), s every other element of a buffer twice as wide.
#pragma once

#include <ember/ember.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace ember_tools {

using namespace ember;

inline Tensor read_tensor(std::istream& in) {
  std::string dtype, layout, path;
  int64_t ndim;
  in >> dtype >> layout >> ndim;
  std::vector<int64_t> sizes(static_cast<size_t>(ndim));
  for (auto& s : sizes) in >> s;
  in >> path;
  ScalarType dt = dtype_from_name(dtype);
  Tensor logical = empty(sizes, TensorOptions(dt).device(kCPU));
  // "FILE@OFFSET": the values start OFFSET bytes into FILE (many tensors packed in one file).
  std::streamoff offset = 0;
  if (auto at = path.rfind('@'); at != std::string::npos) {
    offset = std::stoll(path.substr(at + 1));
    path.resize(at);
  }
  std::ifstream f(path, std::ios::binary);
  f.seekg(offset);
  f.read(static_cast<char*>(logical.data_ptr()), static_cast<std::streamsize>(logical.nbytes()));
  if (!f && logical.nbytes() > 0) throw std::runtime_error("cannot read " + path);
  if (layout == "c" || ndim == 0) return logical;
  if (layout == "t") {
    std::vector<int64_t> rev(sizes.rbegin(), sizes.rend()), perm;
    for (int64_t d = ndim - 1; d >= 0; --d) perm.push_back(d);
    Tensor y = empty(rev, TensorOptions(dt).device(kCPU)).permute(perm);
    y.copy_(logical);
    return y;
  }
  if (layout == "s") {
    std::vector<int64_t> wide = sizes;
    wide.back() *= 2;
    Tensor y = empty(wide, TensorOptions(dt).device(kCPU)).slice(-1, 0, std::nullopt, 2);
    y.copy_(logical);
    return y;
  }
  throw std::runtime_error("unknown layout " + layout);
}

inline Value read_arg(std::istream& in) {
  std::string kind;
  in >> kind;
  if (kind == "T") return Value(read_tensor(in));
  if (kind == "I") {
    int64_t v;
    in >> v;
    return Value(v);
  }
  if (kind == "F") {
    std::string v;
    in >> v;
    return Value(std::stod(v));
  }
  if (kind == "B") {
    int v;
    in >> v;
    return Value(v != 0);
  }
  if (kind == "N") return Value();
  if (kind == "S") {
    std::string v;
    in >> v;
    return Value(v);
  }
  if (kind == "Y") {
    std::string v;
    in >> v;
    return Value(dtype_from_name(v));
  }
  if (kind == "L") {
    int64_t n;
    in >> n;
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v) in >> x;
    return Value(std::move(v));
  }
  if (kind == "TL") {
    int64_t n;
    in >> n;
    Value::OptionalTensorList v;
    bool has_none = false;
    for (int64_t i = 0; i < n; ++i) {
      std::string tag, t;
      in >> tag >> t;  // "arg T" or "arg N"
      if (t == "N") {
        v.emplace_back(std::nullopt);
        has_none = true;
      } else {
        v.emplace_back(read_tensor(in));
      }
    }
    if (has_none) return Value(std::move(v));
    std::vector<Tensor> plain;
    for (auto& t : v) plain.push_back(*t);
    return Value(std::move(plain));
  }
  throw std::runtime_error("unknown arg kind " + kind);
}

inline const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Runtime: return "RuntimeError";
    case ErrorKind::Type: return "TypeError";
    case ErrorKind::Value: return "ValueError";
    case ErrorKind::Index: return "IndexError";
    case ErrorKind::Key: return "KeyError";
    case ErrorKind::NotImplemented: return "NotImplementedError";
    case ErrorKind::Attribute: return "AttributeError";
    case ErrorKind::Assertion: return "AssertionError";
    case ErrorKind::LinAlg: return "LinAlgError";
  }
  return "RuntimeError";
}

/// The op named "aten::add.Tensor" (or "aten::exp": the default overload).
inline const OpHandle& op_by_full_name(const std::string& full) {
  auto dot = full.find('.', full.find("::"));
  std::string name = dot == std::string::npos ? full : full.substr(0, dot);
  std::string overload = dot == std::string::npos ? "default" : full.substr(dot + 1);
  return find_op(name, overload);
}

/// A message on one line: newlines travel as the two characters "\n" (the tests compare the first).
inline std::string one_line(const std::string& msg) {
  std::string escaped;
  for (char c : msg) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  return escaped;
}

/// "<tag> T <dtype> <ndim> <sizes...> <path>", and the tensor's values (row-major) in `path`.
inline void write_tensor(std::ostream& out, const Tensor& t, const std::string& path,
                         const char* tag = "out") {
  Tensor c = t.contiguous();
  out << tag << " T " << dtype_name(t.dtype()) << " " << t.dim();
  for (int64_t s : t.sizes()) out << " " << s;
  out << " " << path << "\n";
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
}

/// Tensors' values appended to one file; each is written as "<path>@<offset>".
class Blob {
 public:
  explicit Blob(std::string path) : path_(std::move(path)), f_(path_, std::ios::binary) {}
  /// "<tag> T <dtype> <ndim> <sizes...> <path>@<offset>", the values appended to the blob.
  void write(std::ostream& out, const Tensor& t, const char* tag) {
    Tensor c = t.contiguous();
    out << tag << " T " << dtype_name(t.dtype()) << " " << t.dim();
    for (int64_t s : t.sizes()) out << " " << s;
    out << " " << path_ << "@" << offset_ << "\n";
    f_.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
    offset_ += static_cast<int64_t>(c.nbytes());
  }

 private:
  std::string path_;
  std::ofstream f_;
  int64_t offset_ = 0;
};

}  // namespace ember_tools
