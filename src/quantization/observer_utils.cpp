#include "quantization/observer_utils.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>

#include "ember/ops/factory.h"
#include "ember/storage.h"
#include "ember/tensor_impl.h"
#include "ember/quantization/observer.h"
#include "ember/warning.h"

namespace ember::quantization::detail {

std::vector<float> floats(const Tensor& t) {
  Tensor c = t.detach().to(kFloat32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor scalar_f32(float v) { return ember::full({}, v, TensorOptions().dtype(kFloat32)); }

void resize_(const Tensor& t, IntArrayRef shape) {
  if (t.sizes().equals(shape)) return;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  TensorImpl* impl = t.impl();
  const size_t need = static_cast<size_t>(numel) * impl->itemsize();
  if (impl->storage_offset() != 0 || impl->storage()->nbytes() < need) {
    impl->set_storage(Storage::allocate(need, t.device()));
  }
  impl->set_geometry(shape, contiguous_strides(shape), 0);
}

void store(Tensor& buffer, const Tensor& value) {
  if (buffer.defined() && buffer.dtype() == kFloat32 && !buffer.requires_grad()) {
    resize_(buffer, value.sizes());
    buffer.copy_(value);
  } else {
    buffer = value.to(kFloat32).clone();
  }
}

float fmin_nan(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::nanf("");
  return std::min(a, b);
}
float fmax_nan(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::nanf("");
  return std::max(a, b);
}

std::pair<float, float> aminmax(const std::vector<float>& v) {
  float mn = v.at(0), mx = v.at(0);
  for (float x : v) {
    mn = fmin_nan(mn, x);
    mx = fmax_nan(mx, x);
  }
  return {mn, mx};
}

bool check_min_max_valid(const Tensor& min_val, const Tensor& max_val) {
  const char* uncalibrated = "must run observer before calling calculate_qparams. Returning default values.";
  if (min_val.numel() == 0 || max_val.numel() == 0) {
    EMBER_WARN(uncalibrated);
    return false;
  }
  const auto mins = floats(min_val), maxs = floats(max_val);
  bool ok = true;
  if (min_val.dim() == 0 || max_val.dim() == 0) {
    if (std::isinf(mins[0]) && mins[0] > 0 && std::isinf(maxs[0]) && maxs[0] < 0) {
      EMBER_WARN(uncalibrated);
      return false;
    }
    ok = mins[0] <= maxs[0];
  } else {
    for (size_t i = 0; i < mins.size() && i < maxs.size(); ++i) ok = ok && mins[i] <= maxs[i];
  }
  if (!ok) {
    throw AssertionError("min " + format_tensor(min_val) + " should be less than max " +
                         format_tensor(max_val));
  }
  return true;
}

std::pair<Tensor, Tensor> default_qparams() {
  return {ember::full({1}, 1.0f, TensorOptions().dtype(kFloat32)),
          ember::full({1}, int64_t{0}, TensorOptions().dtype(kInt64))};
}

int64_t metadata_version(const nn::LocalMetadata& md) {
  auto it = md.find("version");
  if (it == md.end() || it->second.is_none()) return 0;
  return it->second.to_int();
}

// The per-tensor check each class makes before its base constructor runs (torch's texts).
const ObserverOptions& per_tensor_only(const ObserverOptions& o, const std::string& type_name) {
  const std::string sp(20, ' ');
  EMBER_CHECK_NOT_IMPLEMENTED(
      o.qscheme == QScheme::PerTensorAffine || o.qscheme == QScheme::PerTensorSymmetric,
      type_name == "MovingAverageMinMaxObserver"
          ? type_name + "'s qscheme only support " + sp + "ember.per_tensor_symmetric and ember.per_tensor_affine."
          : type_name + "'s qscheme only support ember.per_tensor_symmetric " + sp + "and ember.per_tensor_affine.");
  return o;
}

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // The shortest round-trip digits, laid out as Python's float repr does ('r' format):
  // positional when -4 <= exponent < 16, else d.ddde+XX.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  const auto epos = sci.find('e');
  const int exp = std::atoi(std::string(sci.substr(epos + 1)).c_str());
  std::string digits;
  for (char c : sci.substr(0, epos)) {
    if (c != '.') digits.push_back(c);
  }
  std::ostringstream os;
  if (v < 0) os << '-';
  const auto nd = static_cast<int>(digits.size());
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      os << "0." << std::string(static_cast<size_t>(-exp - 1), '0') << digits;
    } else if (exp + 1 >= nd) {
      os << digits << std::string(static_cast<size_t>(exp + 1 - nd), '0') << ".0";
    } else {
      os << digits.substr(0, static_cast<size_t>(exp + 1)) << '.' << digits.substr(static_cast<size_t>(exp + 1));
    }
  } else {
    os << digits[0];
    if (nd > 1) os << '.' << digits.substr(1);
    os << 'e' << (exp < 0 ? '-' : '+') << (std::abs(exp) < 10 ? "0" : "") << std::abs(exp);
  }
  return os.str();
}

std::string format_tensor(const Tensor& t) {
  if (t.dim() == 0) return python_float(static_cast<double>(floats(t)[0]));
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace ember::quantization::detail
