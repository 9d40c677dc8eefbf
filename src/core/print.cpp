// Tensor printing: a port of PyTorch 1.13's torch/_tensor_str.py, so that to_string(t) equals
// Python's repr(t) character for character (with "ember." where PyTorch writes "torch.").
//
// The pieces mirror the Python ones: gather_shown() plays get_summarized_data (only the elements
// that will be printed, so that a huge tensor costs no more than its corners), Formatter is
// _Formatter, render() is _tensor_str_with_formatter / _vector_str, and repr_with_prefix() is
// _str_intern with _add_suffixes. Python's float formatting ('{:.4f}', '{:.4e}', '{:.0f}') is
// reproduced with the C conversions it agrees with (both round the exact binary value
// correctly; both write at least two exponent digits), except for NaN, which C may sign.
#include "ember/print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/quantized/tensor.h"
#include "ember/tensor.h"

namespace ember {

PrintOptions& print_options() {
  static PrintOptions options;
  return options;
}

void set_printoptions(std::optional<int> precision, std::optional<double> threshold,
                      std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                      const std::optional<std::string>& profile, std::optional<bool> sci_mode) {
  PrintOptions& o = print_options();
  if (profile == "default") {
    o.precision = 4, o.threshold = 1000, o.edgeitems = 3, o.linewidth = 80;
  } else if (profile == "short") {
    o.precision = 2, o.threshold = 1000, o.edgeitems = 2, o.linewidth = 80;
  } else if (profile == "full") {
    o.precision = 4, o.threshold = std::numeric_limits<double>::infinity(), o.edgeitems = 3,
    o.linewidth = 80;
  }
  if (precision) o.precision = *precision;
  if (threshold) o.threshold = *threshold;
  if (edgeitems) o.edgeitems = *edgeitems;
  if (linewidth) o.linewidth = *linewidth;
  o.sci_mode = sci_mode;
}

namespace {

// ---- Python's formatting of one number ----

/// Python's format(value, '.{prec}{conv}') for conv 'f' or 'e'.
std::string py_format_float(double v, char conv, int prec) {
  if (std::isnan(v)) return "nan";  // Python never prints "-nan"
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const char* spec = conv == 'e' ? "%.*e" : "%.*f";
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, spec, prec, v);
  if (n < static_cast<int>(sizeof buf)) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');  // e.g. '{:.4f}' of 1e300
  std::snprintf(big.data(), big.size(), spec, prec, v);
  big.resize(static_cast<size_t>(n));
  return big;
}

/// Python's str(tuple(sizes)): "(5, 3)", "(5,)", "()".
std::string py_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

// ---- the elements print shows ----

/// The elements print shows, in row-major order over the grid of shown indices. For a summarised
/// tensor these are exactly get_summarized_data's elements, which also feed the Formatter.
struct Shown {
  std::vector<std::vector<int64_t>> index;  // per dim, the indices shown
  std::vector<bool> elided;                 // per dim, whether "..." stands between head and tail
  bool floating = false;
  bool boolean = false;
  bool complex = false;    // complex dtypes: f holds the real parts, fi the imaginary ones
  std::vector<double> f;   // floating dtypes (16-bit floats widened through float, as .float())
  std::vector<double> fi;
  std::vector<int64_t> i;  // integral dtypes and bool (exact, which a double is not for int64)
  size_t size() const { return floating ? f.size() : i.size(); }
};

Shown gather_shown(const Tensor& t, bool summarize, const PrintOptions& o) {
  Shown s;
  const int64_t nd = t.dim();
  s.index.resize(static_cast<size_t>(nd));
  s.elided.assign(static_cast<size_t>(nd), false);
  for (int64_t d = 0; d < nd; ++d) {
    auto& idx = s.index[static_cast<size_t>(d)];
    const int64_t n = t.size(d);
    if (summarize && n > 2 * o.edgeitems) {
      // Python's self[-edgeitems:] is the whole dim when edgeitems is 0, and torch.stack of the
      // empty list of leading slices fails; both quirks are kept so that reprs still agree.
      EMBER_CHECK(o.edgeitems > 0 || d == nd - 1, "stack expects a non-empty TensorList");
      s.elided[static_cast<size_t>(d)] = true;
      for (int64_t k = 0; k < o.edgeitems; ++k) idx.push_back(k);
      for (int64_t k = o.edgeitems > 0 ? n - o.edgeitems : 0; k < n; ++k) idx.push_back(k);
    } else {
      for (int64_t k = 0; k < n; ++k) idx.push_back(k);
    }
  }
  s.complex = is_complex(t.dtype());
  s.floating = is_floating(t.dtype()) || s.complex;
  s.boolean = t.dtype() == kBool;

  // Odometer over the shown grid; one dtype switch, reading through the strides.
  visit_dtype_and_complex(t.dtype(), [&]<class T>() {
    const T* base = static_cast<const T*>(t.data_ptr());
    std::vector<size_t> pos(static_cast<size_t>(nd), 0);
    int64_t total = 1;
    for (const auto& idx : s.index) total *= static_cast<int64_t>(idx.size());
    if (s.floating) s.f.reserve(static_cast<size_t>(total));
    else s.i.reserve(static_cast<size_t>(total));
    for (int64_t k = 0; k < total; ++k) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; ++d) {
        off += s.index[static_cast<size_t>(d)][pos[static_cast<size_t>(d)]] * t.stride(d);
      }
      const T v = base[off];
      if constexpr (is_complex_v<T>) {
        s.f.push_back(static_cast<double>(v.real()));
        s.fi.push_back(static_cast<double>(v.imag()));
      } else if constexpr (is_reduced_float_v<T>) s.f.push_back(static_cast<double>(static_cast<float>(v)));
      else if constexpr (std::is_floating_point_v<T>) s.f.push_back(static_cast<double>(v));
      else s.i.push_back(static_cast<int64_t>(v));
      for (int64_t d = nd - 1; d >= 0; --d) {
        auto u = static_cast<size_t>(d);
        if (++pos[u] < s.index[u].size()) break;
        pos[u] = 0;
      }
    }
  }, "print");
  return s;
}

// ---- _Formatter ----

class Formatter {
 public:
  Formatter(const Shown& s, const PrintOptions& o) : s_(s), precision_(o.precision) {
    if (!s.floating) {
      for (size_t k = 0; k < s.size(); ++k) widen(plain(k).size());
      return;
    }
    std::vector<double> nonzero_finite;
    for (double v : s.f) {
      if (std::isfinite(v) && v != 0) nonzero_finite.push_back(v);
    }
    // With nothing to measure PyTorch returns early: int mode, width 1, and sci_mode left off
    // even when the options force it.
    if (nonzero_finite.empty()) return;
    double lo = std::abs(nonzero_finite[0]), hi = lo;
    for (double v : nonzero_finite) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (int_mode_) {
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8;
    } else {
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4;
    }
    for (double v : nonzero_finite) {
      if (sci_mode_) widen(py_format_float(v, 'e', precision_).size());
      else if (int_mode_) widen(py_format_float(v, 'f', 0).size() + 1);  // room for the "."
      else widen(py_format_float(v, 'f', precision_).size());
    }
    if (o.sci_mode) sci_mode_ = *o.sci_mode;
  }

  size_t width() const { return max_width_; }

  /// Element k of the shown elements, right-aligned to the common width.
  std::string format(size_t k) const {
    std::string r;
    if (!s_.floating) {
      r = plain(k);
    } else {
      const double v = s_.f[k];
      if (sci_mode_) {
        r = py_format_float(v, 'e', precision_);
      } else if (int_mode_) {
        r = py_format_float(v, 'f', 0);
        if (std::isfinite(v)) r += ".";
      } else {
        r = py_format_float(v, 'f', precision_);
      }
    }
    if (r.size() < max_width_) r.insert(0, max_width_ - r.size(), ' ');
    return r;
  }

 private:
  std::string plain(size_t k) const {  // Python's "{}".format of an int or a bool
    if (s_.boolean) return s_.i[k] ? "True" : "False";
    return std::to_string(s_.i[k]);
  }
  void widen(size_t w) { max_width_ = std::max(max_width_, w); }

  const Shown& s_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

// ---- _tensor_str_with_formatter ----

struct Renderer {
  const Shown& s;
  const Formatter& fmt;
  const PrintOptions& o;
  std::vector<size_t> block;  // per dim, shown elements under one index of that dim
  const Formatter* imag = nullptr;  // complex tensors: the imaginary parts' formatter

  /// _val_formatter: "re+imj" with each part in its formatter's width, the imaginary part
  /// stripped of its padding and signed.
  std::string element(size_t k) const {
    if (!imag) return fmt.format(k);
    std::string im = imag->format(k) + "j";
    im.erase(0, im.find_first_not_of(' '));
    const std::string re = fmt.format(k);
    return im[0] == '+' || im[0] == '-' ? re + im : re + "+" + im;
  }

  /// The dims from `d` on, whose first shown element is `first`, at indentation `indent`.
  std::string render(size_t d, size_t first, int64_t indent) const {
    const size_t nd = s.index.size();
    if (d == nd) return element(first);  // 0-d: _scalar_str
    const size_t n = s.index[d].size();
    const int64_t edge = o.edgeitems;
    if (d + 1 == nd) return vector_str(d, first, indent);
    std::vector<std::string> slices;
    for (size_t k = 0; k < n; ++k) {
      if (s.elided[d] && k == static_cast<size_t>(edge)) slices.emplace_back("...");
      slices.push_back(render(d + 1, first + k * block[d], indent + 1));
    }
    const std::string sep = "," + std::string(nd - d - 1, '\n') +
                            std::string(static_cast<size_t>(indent + 1), ' ');
    return "[" + join(slices, sep) + "]";
  }

  std::string vector_str(size_t d, size_t first, int64_t indent) const {
    // complex: the imaginary part's width and its "j" too
    const auto element_length = static_cast<double>(fmt.width() + 2 + (imag ? imag->width() + 1 : 0));
    const auto per_line = static_cast<size_t>(std::max<double>(
        1, std::floor(static_cast<double>(o.linewidth - indent) / element_length)));
    std::vector<std::string> data;
    const size_t n = s.index[d].size();
    for (size_t k = 0; k < n; ++k) {
      if (s.elided[d] && k == static_cast<size_t>(o.edgeitems)) data.emplace_back(" ...");
      data.push_back(element(first + k));
    }
    std::vector<std::string> lines;
    for (size_t k = 0; k < data.size(); k += per_line) {
      std::vector<std::string> line(data.begin() + static_cast<std::ptrdiff_t>(k),
                                    data.begin() + static_cast<std::ptrdiff_t>(
                                                       std::min(data.size(), k + per_line)));
      lines.push_back(join(line, ", "));
    }
    return "[" + join(lines, ",\n" + std::string(static_cast<size_t>(indent + 1), ' ')) + "]";
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string r;
    for (size_t k = 0; k < parts.size(); ++k) {
      if (k) r += sep;
      r += parts[k];
    }
    return r;
  }
};

/// _tensor_str for a CPU tensor with at least one element.
std::string tensor_str(const Tensor& t, int64_t indent, const PrintOptions& o) {
  const bool summarize = static_cast<double>(t.numel()) > o.threshold;
  Shown s = gather_shown(t, summarize, o);
  if (s.complex) {
    // _Formatter(self.real) and _Formatter(self.imag): each part measured on its own.
    Shown im = s;
    im.f.swap(im.fi);
    Formatter fmt(s, o), ifmt(im, o);
    Renderer r{s, fmt, o, std::vector<size_t>(s.index.size(), 1), &ifmt};
    for (size_t d = s.index.size(); d-- > 1;) r.block[d - 1] = r.block[d] * s.index[d].size();
    return r.render(0, 0, indent);
  }
  Formatter fmt(s, o);
  Renderer r{s, fmt, o, std::vector<size_t>(s.index.size(), 1)};
  for (size_t d = s.index.size(); d-- > 1;) r.block[d - 1] = r.block[d] * s.index[d].size();
  return r.render(0, 0, indent);
}

/// The autograd suffixes, all in one place: grad_fn=<Name> for a tensor an op produced
/// (autograd will add it here, ahead of this branch), else requires_grad=True for a leaf.
void add_autograd_suffixes(const Tensor& t, std::vector<std::string>& suffixes) {
  if (auto fn = t.grad_fn()) {
    suffixes.push_back("grad_fn=<" + fn->name() + ">");
  } else if (t.requires_grad()) {
    suffixes.emplace_back("requires_grad=True");
  }
}

/// _add_suffixes, including its way of measuring the last line (one more than its length).
std::string add_suffixes(const std::string& body, const std::vector<std::string>& suffixes,
                         int64_t indent, const PrintOptions& o) {
  std::string r = body;
  const size_t nl = body.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(body.size()) -
                          (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const auto& suffix : suffixes) {
    const auto len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > o.linewidth) {
      r += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      r += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return r + ")";
}

/// Python's repr of a float (str(0.1) == "0.1", "1e-05", "1e+16", "1.0", "inf"): the shortest
/// digits that round-trip, positional for exponents -4..15, else scientific with a signed,
/// at-least-two-digit exponent.
std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e-05"
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const auto e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exp = std::stoi(sci.substr(e + 1));
  if (exp < -4 || exp >= 16) {
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    const std::string ex = std::to_string(std::abs(exp));
    return sign + m + "e" + (exp < 0 ? "-" : "+") + (ex.size() < 2 ? "0" : "") + ex;
  }
  std::string r;
  if (exp < 0) {
    r = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (static_cast<size_t>(exp + 1) >= digits.size()) {
    r = digits + std::string(static_cast<size_t>(exp + 1) - digits.size(), '0') + ".0";
  } else {
    r = digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
  }
  return sign + r;
}

/// The suffixes and body of a quantized tensor (PyTorch's _str_intern: size, dtype, scheme and
/// qparams, then the dequantized values).
std::string quantized_body(const Tensor& t, std::vector<std::string>& suffixes, int64_t indent,
                           const PrintOptions& o, bool with_contents) {
  suffixes.push_back("size=" + py_tuple(t.sizes()));
  suffixes.push_back("dtype=" + dtype_repr(t.dtype()));
  const QScheme scheme = qscheme(t);
  suffixes.push_back(std::string("quantization_scheme=ember.") + qscheme_name(scheme));
  if (scheme == QScheme::PerTensorAffine || scheme == QScheme::PerTensorSymmetric) {
    suffixes.push_back("scale=" + python_float_repr(q_scale(t)));
    suffixes.push_back("zero_point=" + std::to_string(q_zero_point(t)));
  } else {
    suffixes.push_back("scale=" + to_string(q_per_channel_scales(t)));
    suffixes.push_back("zero_point=" + to_string(q_per_channel_zero_points(t)));
    suffixes.push_back("axis=" + std::to_string(q_per_channel_axis(t)));
  }
  if (!with_contents) return std::string();
  // Meta quantized tensors (an ember extension) have no values to show.
  if (t.is_meta()) return "...";
  const Tensor values = dequantize(t);
  if (values.numel() == 0) return "[]";
  return tensor_str(values, indent, o);
}

/// _str_intern for a strided tensor: `prefix` is "tensor(" or a subclass's "Name("; `contents`
/// (tensor_contents=) replaces the elements, which are then not read.
std::string repr_with_prefix(const Tensor& t, const std::string& prefix,
                             const std::optional<std::string>& contents = std::nullopt) {
  const PrintOptions& o = print_options();
  if (!contents) {
    EMBER_CHECK(o.precision >= 0, "print_options().precision must be >= 0, got ", o.precision);
    EMBER_CHECK(o.edgeitems >= 0, "print_options().edgeitems must be >= 0, got ", o.edgeitems);
  }
  const auto indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  // Only cpu is a default device in PyTorch's sense; every other device is always named.
  if (!t.device().is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  const ScalarType dt = t.dtype();
  const bool has_default_dtype =
      dt == default_dtype() || dt == default_complex_dtype() || dt == kInt64 || dt == kBool;
  std::string body;
  if (t.is_quantized()) {
    body = quantized_body(t, suffixes, indent, o, !contents);
  } else if (t.is_meta()) {
    suffixes.push_back("size=" + py_tuple(t.sizes()));
    if (dt != default_dtype()) suffixes.push_back("dtype=" + dtype_repr(dt));
    body = "...";
  } else if (t.numel() == 0) {
    // Shape shown unless it is (0,), as NumPy; dtype always shown unless the default float,
    // since there are no elements to tell an int64 tensor by.
    if (t.dim() != 1) suffixes.push_back("size=" + py_tuple(t.sizes()));
    if (dt != default_dtype()) suffixes.push_back("dtype=" + dtype_repr(dt));
    body = "[]";
  } else {
    if (!has_default_dtype) suffixes.push_back("dtype=" + dtype_repr(dt));
    if (!contents) body = tensor_str(t, indent, o);
  }
  if (contents) body = *contents;
  add_autograd_suffixes(t, suffixes);
  return add_suffixes(prefix + body, suffixes, indent, o);
}

}  // namespace

std::string to_string(const Tensor& t) {
  // libtorch's operator<< form; Python has no undefined tensors to compare with.
  if (!t.defined()) return "[ Tensor (undefined) ]";
  if (t.is_parameter()) return "Parameter containing:\n" + repr_with_prefix(t, "tensor(");
  return repr_with_prefix(t, "tensor(");
}

std::string to_string(const Tensor& t, const std::string& class_name,
                      const std::optional<std::string>& contents) {
  EMBER_CHECK(t.defined(), "to_string: undefined tensor");
  if (class_name.empty()) return repr_with_prefix(t, "tensor(", contents);
  std::string r = repr_with_prefix(t, class_name + "(", contents);
  // A custom tensor class made a parameter keeps its name, wrapped as PyTorch does.
  return t.is_parameter() ? "Parameter(" + r + ")" : r;
}

std::string Tensor::to_string() const { return ember::to_string(*this); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << ember::to_string(t); }

std::string py_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // to_chars without a precision gives the shortest round-trip digits, as Python's repr does;
  // only the layout (fixed or scientific) is then Python's own choice.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);  // "-1.2345e-05", "5e-01"
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::atoi(sci.c_str() + e + 1);
  std::string sign;
  if (mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  if (exponent >= -4 && exponent < 16) {
    std::string int_part, frac_part;
    if (exponent >= 0) {
      const size_t n_int = static_cast<size_t>(exponent) + 1;
      int_part = digits.substr(0, std::min(n_int, digits.size()));
      if (int_part.size() < n_int) int_part += std::string(n_int - int_part.size(), '0');
      frac_part = digits.size() > n_int ? digits.substr(n_int) : "0";
    } else {
      int_part = "0";
      frac_part = std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return sign + int_part + "." + frac_part;
  }
  std::string out = sign + digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int mag = std::abs(exponent);
  return out + "e" + (exponent < 0 ? "-" : "+") + (mag < 10 ? "0" : "") + std::to_string(mag);
}

}  // namespace ember
