// ember_repr FILE: prints ember's repr of every tensor in FILE, each followed by a line holding
// only kDelimiter. tests/python/core/test_repr_vs_torch.py writes FILE and compares the output
// with PyTorch's repr.
//
// FILE is a sequence of cases, all integers little-endian:
//   u8 name length, dtype name ("float32", ...)
//   u8 device (0 cpu, 1 meta)
//   i32 precision, i64 threshold, i64 edgeitems, i64 linewidth, i8 sci_mode (-1 auto, 0, 1)
//   u8 ndim, i64 sizes[ndim], i64 strides[ndim] (elements), i64 storage offset (elements)
//   i64 byte count, the bytes of the storage the tensor views (cpu only; 0 for meta)
// A case ember refuses prints "ERROR: <message>" in place of the repr.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

constexpr const char* kDelimiter = "<<<ember-repr-end>>>";

class Reader {
 public:
  explicit Reader(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  bool done() const { return pos_ == bytes_.size(); }
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  const char* take(size_t n) {
    if (bytes_.size() - pos_ < n) throw std::runtime_error("ember_repr: truncated input file");
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::vector<char> bytes_;
  size_t pos_ = 0;
};

std::string one_case(Reader& in) {
  const auto name_len = in.get<uint8_t>();
  std::string name(in.take(name_len), name_len);
  const bool meta = in.get<uint8_t>() != 0;
  ember::PrintOptions opts;
  opts.precision = in.get<int32_t>();
  opts.threshold = in.get<int64_t>();
  opts.edgeitems = in.get<int64_t>();
  opts.linewidth = in.get<int64_t>();
  const auto sci = in.get<int8_t>();
  if (sci >= 0) opts.sci_mode = sci != 0;
  const auto ndim = in.get<uint8_t>();
  std::vector<int64_t> sizes(ndim), strides(ndim);
  for (auto& s : sizes) s = in.get<int64_t>();
  for (auto& s : strides) s = in.get<int64_t>();
  const auto offset = in.get<int64_t>();
  const auto nbytes = in.get<int64_t>();
  const char* bytes = in.take(static_cast<size_t>(nbytes));

  const ember::ScalarType dtype = ember::dtype_from_name(name);
  ember::print_options() = opts;
  ember::Tensor t;
  if (meta) {
    t = ember::empty_strided(sizes, strides, ember::TensorOptions(dtype).device(ember::kMeta));
  } else {
    // The tensor owns a copy of the storage bytes and views it through the given geometry.
    auto owned = std::make_unique<char[]>(static_cast<size_t>(nbytes) + 1);
    std::memcpy(owned.get(), bytes, static_cast<size_t>(nbytes));
    char* buf = owned.get();
    t = ember::from_blob(buf + offset * static_cast<int64_t>(ember::element_size(dtype)), sizes,
                         strides, dtype, [buf](void*) { delete[] buf; });
    owned.release();  // the tensor's deleter frees it now
  }
  return ember::to_string(t);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "ember_repr: cannot open %s\n", argv[1]);
    return 2;
  }
  Reader in(std::vector<char>(std::istreambuf_iterator<char>(f), {}));
  while (!in.done()) {
    try {
      std::cout << one_case(in) << "\n";
    } catch (const ember::Error& e) {
      std::cout << "ERROR: " << e.what() << "\n";
    } catch (const std::runtime_error& e) {  // a malformed file: nothing after it can be read
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    std::cout << kDelimiter << "\n";
  }
  ember::print_options() = ember::PrintOptions{};
  return 0;
}
