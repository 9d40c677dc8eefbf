// Reads scikit-learn's handwritten-digits data set (UCI "optdigits" test part: 1797 images of
// 8x8 pixels with values 0..16, ten classes) from the gzip'd CSV that Debian's python3-sklearn
// ships. zlib does the decompression: no Python runs.
//
//   examples::DigitsData d = examples::load_digits(examples::digits_path(argc, argv));
//   // d.pixels: rows x 64 floats (0..16), d.labels: rows ints (0..9)
#pragma once

#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace examples {

/// Where Debian's python3-sklearn puts the file.
inline constexpr const char* kDigitsDefaultPath =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
inline constexpr int64_t kDigitsPixels = 64;
inline constexpr int64_t kDigitsClasses = 10;

struct DigitsData {
  int64_t rows = 0;
  std::vector<float> pixels;    // rows x 64, row-major, values 0..16
  std::vector<int64_t> labels;  // rows, values 0..9
};

/// The file to read: argv[1] if given, else $EMBER_DIGITS_CSV, else Debian's path.
inline std::string digits_path(int argc, char** argv) {
  if (argc > 1) return argv[1];
  if (const char* env = std::getenv("EMBER_DIGITS_CSV"); env != nullptr && *env != '\0') return env;
  return kDigitsDefaultPath;
}

namespace detail {

// The whole decompressed file (about 260 KB). gzread also reads a file that is not gzip'd as is.
inline std::string gunzip_file(const std::string& path) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    const std::string why = errno != 0 ? std::strerror(errno) : "zlib could not open it";
    throw std::runtime_error(
        "cannot open the digits data set '" + path + "': " + why + ". Debian's python3-sklearn " +
        "ships it as " + kDigitsDefaultPath + " (`apt-get install python3-sklearn`; `make demo` " +
        "and `make test` install it); another copy can be given as the first argument or in " +
        "EMBER_DIGITS_CSV.");
  }
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  int err = Z_OK;
  const std::string zmsg = n < 0 ? gzerror(f, &err) : "";
  gzclose(f);
  if (n < 0) throw std::runtime_error("cannot read '" + path + "': " + zmsg);
  return text;
}

inline std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace detail

/// Parses "p0,...,p63,label" lines. Every row must have 65 numbers, pixels in [0, 16] and an
/// integral label in [0, 9]; a bad line is reported with its number.
inline DigitsData load_digits(const std::string& path) {
  const std::string text = detail::gunzip_file(path);
  DigitsData d;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    auto bad = [&](const std::string& what) {
      return std::runtime_error(path + ":" + std::to_string(line_no) + ": " + what);
    };
    const char* p = line.c_str();
    double values[kDigitsPixels + 1];
    int64_t count = 0;
    while (true) {
      char* next = nullptr;
      const double v = std::strtod(p, &next);
      if (next == p) throw bad("expected a number at column " + std::to_string(count + 1));
      if (count == kDigitsPixels + 1) throw bad("expected 65 values (64 pixels and a label), got more");
      values[count++] = v;
      p = next;
      if (*p == '\0') break;
      if (*p != ',') throw bad(std::string("expected ',' after column ") + std::to_string(count) +
                               ", got '" + *p + "'");
      ++p;
    }
    if (count != kDigitsPixels + 1) {
      throw bad("expected 65 values (64 pixels and a label), got " + std::to_string(count));
    }
    for (int64_t i = 0; i < kDigitsPixels; ++i) {
      if (!(values[i] >= 0 && values[i] <= 16)) {
        throw bad("pixel " + std::to_string(i) + " is " + detail::format_number(values[i]) +
                  ", expected a value in [0, 16]");
      }
      d.pixels.push_back(static_cast<float>(values[i]));
    }
    const double label = values[kDigitsPixels];
    if (!(label >= 0 && label < kDigitsClasses) || label != static_cast<double>(static_cast<int64_t>(label))) {
      throw bad("label is " + detail::format_number(label) + ", expected an integer in [0, 9]");
    }
    d.labels.push_back(static_cast<int64_t>(label));
    ++d.rows;
  }
  if (d.rows == 0) throw std::runtime_error(path + ": no rows");
  return d;
}

}  // namespace examples
