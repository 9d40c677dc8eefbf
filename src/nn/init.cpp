// nn::init: torch.nn.init's fills (include/ember/nn/init.h), and the scalar math they need
// (src/nn/init_math.h): erfinv for trunc_normal_, the QR factorisation for orthogonal_.
//
// Every fill runs under NoGradGuard and goes through the ops (uniform_, normal_, fill_, copy_,
// ...), so dtype errors, version counters and meta tensors behave as for those ops; only
// trunc_normal_'s erfinv and orthogonal_'s QR read values, and they skip meta tensors.
#include "ember/nn/init.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/grad_mode.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/random.h"
#include "ember/ops/view.h"
#include "ember/warning.h"
#include "init_math.h"

// LAPACK from the OpenBLAS ember links for its GEMMs (LP64: 32-bit integers).
extern "C" {
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda,
             const double* tau, double* work, const int* lwork, int* info);
}

namespace ember::nn::init {

// ---- scalar math ----
namespace detail {

namespace {
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // d/dx erf(x) at 0

// M. Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single-precision
// version: relative error below ~4e-7 where float can represent y, a good start below that.
double erfinv_giles(double y) {
  double w = -std::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}
}  // namespace

double erfinv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0 || y == -1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (y == 0.0) return y;  // keeps the sign of -0
  const double ay = std::fabs(y);
  double x = erfinv_giles(ay);
  if (ay <= 0.5) {
    // Newton on erf(x) = ay: erf' = 2/sqrt(pi) exp(-x^2) >= 0.86 here, quadratic convergence.
    for (int i = 0; i < 4; ++i) {
      const double dx = (std::erf(x) - ay) / (kTwoOverSqrtPi * std::exp(-x * x));
      x -= dx;
      if (std::fabs(dx) <= 1e-17 * x) break;
    }
  } else {
    // Near ±1, erf(x) has lost the digits that distinguish x; q = 1 - ay is exact (Sterbenz)
    // and erfc keeps them. Newton on g(x) = log(erfc(x)) - log(q), whose slope
    // -2/sqrt(pi) exp(-x^2) / erfc(x) ~ -2x varies slowly, so it also converges from the
    // rougher starts Giles' polynomial gives beyond float's range.
    const double log_q = std::log(1.0 - ay);
    for (int i = 0; i < 8; ++i) {
      const double c = std::erfc(x);
      const double dx = (std::log(c) - log_q) / (-kTwoOverSqrtPi * std::exp(-x * x) / c);
      x -= dx;
      if (std::fabs(dx) <= 1e-16 * x) break;
    }
  }
  return std::copysign(x, y);
}

namespace {
double sign_of(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }

int lapack_int(int64_t v) {
  EMBER_CHECK(v <= std::numeric_limits<int>::max(), "orthogonal_: a dimension of ", v,
              " is too large for LAPACK");
  return static_cast<int>(v);
}
}  // namespace

std::vector<double> signed_qr_q(std::vector<double> a, int64_t m64, int64_t n64) {
  EMBER_ASSERT(m64 >= n64 && n64 >= 1 && static_cast<int64_t>(a.size()) == m64 * n64);
  const int m = lapack_int(m64), n = lapack_int(n64);
  std::vector<double> tau(static_cast<size_t>(n));
  int info = 0, lwork = -1;
  double query = 0;
  dgeqrf_(&m, &n, a.data(), &m, tau.data(), &query, &lwork, &info);
  EMBER_ASSERT(info == 0, "dgeqrf workspace query failed: info=", info);
  lwork = std::max(1, static_cast<int>(query));
  std::vector<double> work(static_cast<size_t>(lwork));
  dgeqrf_(&m, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
  EMBER_ASSERT(info == 0, "dgeqrf failed: info=", info);
  std::vector<double> signs(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) signs[j] = sign_of(a[static_cast<size_t>(j) * m + j]);  // R[j][j]
  lwork = -1;
  dorgqr_(&m, &n, &n, a.data(), &m, tau.data(), &query, &lwork, &info);
  EMBER_ASSERT(info == 0, "dorgqr workspace query failed: info=", info);
  lwork = std::max(1, static_cast<int>(query));
  work.assign(static_cast<size_t>(lwork), 0.0);
  dorgqr_(&m, &n, &n, a.data(), &m, tau.data(), work.data(), &lwork, &info);
  EMBER_ASSERT(info == 0, "dorgqr failed: info=", info);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) a[static_cast<size_t>(j) * m + i] *= signs[j];
  }
  return a;
}

std::vector<double> signed_qr_q_ref(std::vector<double> a, int64_t m, int64_t n) {
  EMBER_ASSERT(m >= n && n >= 1 && static_cast<int64_t>(a.size()) == m * n);
  auto at = [&](std::vector<double>& v, int64_t i, int64_t j) -> double& { return v[j * m + i]; };
  std::vector<std::vector<double>> reflectors;  // v_k over rows k..m-1, unit length (or zero)
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += at(a, i, k) * at(a, i, k);
    norm = std::sqrt(norm);
    const double alpha = at(a, k, k) >= 0 ? -norm : norm;  // R[k][k]; avoids cancellation
    std::vector<double> v(static_cast<size_t>(m - k));
    for (int64_t i = k; i < m; ++i) v[i - k] = at(a, i, k);
    v[0] -= alpha;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    vnorm = std::sqrt(vnorm);
    if (vnorm > 0) {
      for (double& x : v) x /= vnorm;
      for (int64_t j = k; j < n; ++j) {  // A[k:, j] -= 2 v (v . A[k:, j])
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[i - k] * at(a, i, j);
        for (int64_t i = k; i < m; ++i) at(a, i, j) -= 2 * dot * v[i - k];
      }
    }
    reflectors.push_back(std::move(v));
  }
  std::vector<double> signs(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) signs[j] = sign_of(at(a, j, j));
  // Q = H_0 H_1 ... H_{n-1} applied to the first n columns of the identity.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  for (int64_t j = 0; j < n; ++j) at(q, j, j) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double>& v = reflectors[k];
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * at(q, i, j);
      for (int64_t i = k; i < m; ++i) at(q, i, j) -= 2 * dot * v[i - k];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) at(q, i, j) *= signs[j];
  }
  return q;
}

}  // namespace detail

// ---- gains and fans ----

double calculate_gain(const std::string& nonlinearity, const std::optional<Scalar>& param) {
  static const char* const kLinear[] = {"linear",           "conv1d",           "conv2d",
                                        "conv3d",           "conv_transpose1d", "conv_transpose2d",
                                        "conv_transpose3d", "sigmoid"};
  for (const char* name : kLinear) {
    if (nonlinearity == name) return 1.0;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    double negative_slope = 0.01;
    if (param.has_value()) {
      // Python accepts ints and floats, not bools (which are ints there).
      EMBER_CHECK_VALUE(!param->is_bool(), "negative_slope ", param->to_bool() ? "True" : "False",
                        " not a valid number");
      negative_slope = param->to_double();
    }
    return std::sqrt(2.0 / (1 + negative_slope * negative_slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;  // found empirically (PyTorch PR 50664)
  EMBER_FAIL_KIND(ErrorKind::Value, "Unsupported nonlinearity ", nonlinearity);
}

std::pair<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive_field_size = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field_size *= tensor.size(d);
  return {tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size};
}

int64_t _calculate_correct_fan(const Tensor& tensor, const std::string& mode) {
  std::string lower = mode;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  EMBER_CHECK_VALUE(lower == "fan_in" || lower == "fan_out", "Mode ", lower,
                    " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return lower == "fan_in" ? fan_in : fan_out;
}

namespace {

// Python divides floats here and raises ZeroDivisionError; ember says the same as a
// RuntimeError (it has no ZeroDivisionError kind).
double checked_div(double num, double den) {
  EMBER_CHECK(den != 0.0, "float division by zero");
  return num / den;
}

bool has_values(const Tensor& t) { return !t.is_meta() && t.numel() > 0; }

}  // namespace

// ---- fills ----

Tensor& uniform_(Tensor& tensor, double a, double b, Generator* generator) {
  NoGradGuard no_grad;
  return ember::uniform_(tensor, a, b, generator);
}

Tensor& normal_(Tensor& tensor, double mean, double std_dev, Generator* generator) {
  NoGradGuard no_grad;
  return ember::normal_(tensor, mean, std_dev, generator);
}

Tensor& trunc_normal_(Tensor& tensor, double mean, double std_dev, double a, double b,
                      Generator* generator) {
  if (mean < a - 2 * std_dev || mean > b + 2 * std_dev) {
    EMBER_WARN("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
               "values may be incorrect.");
  }
  NoGradGuard no_grad;
  const auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = norm_cdf(checked_div(a - mean, std_dev));
  const double u = norm_cdf(checked_div(b - mean, std_dev));
  // Uniform in [2l - 1, 2u - 1], then the inverse CDF of the normal: erfinv. PyTorch applies
  // erfinv_ in the tensor's dtype; ember applies it in float64 and rounds once.
  ember::uniform_(tensor, 2 * l - 1, 2 * u - 1, generator);
  if (has_values(tensor)) {
    Tensor values = tensor.to(kFloat64, /*copy=*/true).contiguous();
    double* p = values.data_ptr<double>();
    for (int64_t i = 0; i < values.numel(); ++i) p[i] = detail::erfinv(p[i]);
    tensor.copy_(values);
  }
  tensor.mul_(std_dev * std::sqrt(2.));
  tensor.add_(mean);
  tensor.clamp_(a, b);
  return tensor;
}

Tensor& constant_(Tensor& tensor, const Scalar& val) {
  NoGradGuard no_grad;
  return tensor.fill_(val);
}

Tensor& ones_(Tensor& tensor) {
  NoGradGuard no_grad;
  return tensor.fill_(1.);
}

Tensor& zeros_(Tensor& tensor) {
  NoGradGuard no_grad;
  return tensor.zero_();
}

Tensor& eye_(Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  tensor.zero_();
  const int64_t k = std::min(tensor.size(0), tensor.size(1));
  if (k > 0) {
    // The main diagonal as a 1-d view: stride stride(0) + stride(1), any layout.
    tensor.as_strided({k}, {tensor.stride(0) + tensor.stride(1)}, tensor.storage_offset()).fill_(1);
  }
  return tensor;
}

Tensor& xavier_uniform_(Tensor& tensor, double gain, Generator* generator) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std_dev = gain * std::sqrt(checked_div(2.0, static_cast<double>(fan_in + fan_out)));
  const double a = std::sqrt(3.0) * std_dev;  // the uniform bound with that standard deviation
  return init::uniform_(tensor, -a, a, generator);
}

Tensor& xavier_normal_(Tensor& tensor, double gain, Generator* generator) {
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std_dev = gain * std::sqrt(checked_div(2.0, static_cast<double>(fan_in + fan_out)));
  return init::normal_(tensor, 0., std_dev, generator);
}

namespace {
// kaiming_*'s standard deviation, or nullopt for a tensor with no elements (left alone).
std::optional<double> kaiming_std(const Tensor& tensor, double a, const std::string& mode,
                                  const std::string& nonlinearity) {
  const IntArrayRef sizes = tensor.sizes();
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    EMBER_WARN("Initializing zero-element tensors is a no-op");
    return std::nullopt;
  }
  const int64_t fan = _calculate_correct_fan(tensor, mode);
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor& kaiming_uniform_(Tensor& tensor, double a, const std::string& mode,
                         const std::string& nonlinearity, Generator* generator) {
  const std::optional<double> std_dev = kaiming_std(tensor, a, mode, nonlinearity);
  if (!std_dev) return tensor;
  const double bound = std::sqrt(3.0) * *std_dev;
  return init::uniform_(tensor, -bound, bound, generator);
}

Tensor& kaiming_normal_(Tensor& tensor, double a, const std::string& mode,
                        const std::string& nonlinearity, Generator* generator) {
  const std::optional<double> std_dev = kaiming_std(tensor, a, mode, nonlinearity);
  if (!std_dev) return tensor;
  return init::normal_(tensor, 0., *std_dev, generator);
}

Tensor& orthogonal_(Tensor& tensor, double gain, Generator* generator) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  // A normal matrix of the tensor's dtype and device, as PyTorch's tensor.new(rows, cols).
  Tensor flattened = empty({rows, cols}, TensorOptions(tensor.dtype()).device(tensor.device()));
  ember::normal_(flattened, 0., 1., generator);
  Tensor target = tensor.view({rows, cols});
  if (!tensor.is_meta()) {
    // QR of the tall orientation (flattened, or its transpose when rows < cols) in float64.
    // Column-major m x n buffers: flattened^T's row-major data is flattened's column-major one.
    const Tensor f = flattened.to(kFloat64).contiguous();
    const double* p = f.data_ptr<double>();
    const bool wide = rows < cols;
    const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
    std::vector<double> a(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        // A(r, c) = flattened(i, j) with (r, c) = (i, j), or (j, i) when wide.
        const int64_t r = wide ? j : i, c = wide ? i : j;
        a[static_cast<size_t>(c * m + r)] = p[i * cols + j];
      }
    }
    const std::vector<double> q = detail::signed_qr_q(std::move(a), m, n);
    // Back to rows x cols: Q itself, or Q^T when wide.
    Tensor result = empty({rows, cols}, kFloat64);
    double* out = result.data_ptr<double>();
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t r = wide ? j : i, c = wide ? i : j;
        out[i * cols + j] = q[static_cast<size_t>(c * m + r)];
      }
    }
    target.copy_(result);
  }
  tensor.mul_(gain);
  return tensor;
}

Tensor& sparse_(Tensor& tensor, double sparsity, double std_dev, Generator* generator) {
  EMBER_CHECK_VALUE(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  ember::normal_(tensor, 0., std_dev, generator);
  if (!has_values(tensor)) return tensor;
  // Python slices randperm(rows)[:num_zeros]: a negative count drops that many from the end.
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  const int64_t count = std::clamp<int64_t>(num_zeros < 0 ? rows + num_zeros : num_zeros, 0, rows);
  Generator& gen = generator ? *generator : default_generator();
  Tensor mask = zeros({rows, cols}, kBool);
  bool* m = mask.data_ptr<bool>();
  std::vector<int64_t> perm(static_cast<size_t>(rows));
  for (int64_t c = 0; c < cols; ++c) {
    // The first `count` entries of a uniformly random permutation (partial Fisher-Yates).
    for (int64_t i = 0; i < rows; ++i) perm[i] = i;
    for (int64_t i = 0; i < count; ++i) {
      const auto span = static_cast<unsigned __int128>(rows - i);
      const auto pick = static_cast<int64_t>((static_cast<unsigned __int128>(gen.next_u64()) * span) >> 64);
      std::swap(perm[i], perm[i + pick]);
      m[perm[i] * cols + c] = true;
    }
  }
  tensor.masked_fill_(mask, 0);
  return tensor;
}

}  // namespace ember::nn::init
