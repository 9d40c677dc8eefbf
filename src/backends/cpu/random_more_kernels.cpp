// Samplers of the extra distributions: inverse transforms for Cauchy and geometric, Box-Muller
// for log-normal, and PyTorch's algorithms for Poisson (Knuth's product of uniforms below rate
// 10, Hormann's transformed rejection PTRS above) and binomial (inversion by geometric waiting
// times below count * p = 10, Hormann's BTRS above; p > 1/2 through count - Binomial(count, 1-p)).
#include "random_more_kernels.h"

#include <cmath>
#include <functional>
#include <numbers>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/parallel.h"
#include "random_kernels.h"

namespace ember::cpu {

namespace {

// A uniform in the open interval (0, 1): 53 random bits, centred in their cell.
double open_unit(uint64_t key, uint64_t position, uint32_t attempt) {
  return (static_cast<double>(element_bits(key, position, attempt) >> 11) + 0.5) * 0x1.0p-53;
}

// out[i] = f(i) for every element, in row-major order of out's shape.
void fill_by_position(const Tensor& out, const std::function<double(int64_t)>& f) {
  Tensor buf = empty(out.sizes(), TensorOptions(kFloat64));
  double* data = static_cast<double*>(buf.data_ptr());
  parallel_for(0, buf.numel(), 2048, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) data[i] = f(i);
  });
  Tensor o = out;
  o.copy_(buf);
}

// log(k!) - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2): the Stirling tail BTRS uses.
double stirling_tail(double k) {
  return std::lgamma(k + 1.0) - ((k + 0.5) * std::log(k + 1.0) - (k + 1.0) + 0.5 * std::log(2 * std::numbers::pi));
}

double binomial_inversion(double count, double prob, uint64_t key, uint64_t pos) {
  const double logprob = std::log1p(-prob);
  double geom_sum = 0, num_geom = 0;
  for (uint32_t attempt = 0;; ++attempt) {
    geom_sum += std::ceil(std::log(open_unit(key, pos, attempt)) / logprob);
    if (geom_sum > count) break;
    num_geom += 1;
  }
  return num_geom;
}

double binomial_btrs(double count, double prob, uint64_t key, uint64_t pos) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  for (uint32_t attempt = 0;; attempt += 2) {
    const double u = open_unit(key, pos, attempt) - 0.5;
    double v = open_unit(key, pos, attempt + 1);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upper = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                         stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
    if (v <= upper) return k;
  }
}

}  // namespace

double sample_poisson(double rate, uint64_t key, uint64_t pos) {
  if (rate == 0) return 0;
  if (rate >= 10) {  // PTRS (Hormann 1993)
    const double slam = std::sqrt(rate), loglam = std::log(rate);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (uint32_t attempt = 0;; attempt += 2) {
      const double u = open_unit(key, pos, attempt) - 0.5, v = open_unit(key, pos, attempt + 1);
      const double us = 0.5 - std::fabs(u);
      const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -rate + k * loglam - std::lgamma(k + 1))
        return k;
    }
  }
  // Knuth: the number of uniforms whose running product stays above e^-rate
  const double enlam = std::exp(-rate);
  double prod = 1.0, x = 0;
  for (uint32_t attempt = 0;; ++attempt) {
    prod *= open_unit(key, pos, attempt);
    if (prod <= enlam) return x;
    x += 1;
  }
}

double sample_binomial(double count, double prob, uint64_t key, uint64_t pos) {
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  if (prob <= 0.5) {
    return count * prob >= 10.0 ? binomial_btrs(count, prob, key, pos) : binomial_inversion(count, prob, key, pos);
  }
  if (prob > 0.5) {
    const double q = 1.0 - prob;
    return count - (count * q >= 10.0 ? binomial_btrs(count, q, key, pos) : binomial_inversion(count, q, key, pos));
  }
  return std::nan("");
}

void cauchy_kernel(const Tensor& self, double median, double sigma, uint64_t key) {
  fill_by_position(self, [&](int64_t i) {
    return median + sigma * std::tan(std::numbers::pi * (open_unit(key, static_cast<uint64_t>(i), 0) - 0.5));
  });
}

void log_normal_kernel(const Tensor& self, double mean, double std, uint64_t key) {
  fill_by_position(self, [&](int64_t i) {
    const auto pos = static_cast<uint64_t>(i);
    const double r = std::sqrt(-2.0 * std::log(open_unit(key, pos, 0)));
    const double z = r * std::cos(2 * std::numbers::pi * open_unit(key, pos, 1));
    return std::exp(mean + std * z);
  });
}

void geometric_kernel(const Tensor& self, double p, uint64_t key) {
  const double logq = std::log1p(-p);
  fill_by_position(self, [&](int64_t i) {
    return std::ceil(std::log(open_unit(key, static_cast<uint64_t>(i), 0)) / logq);
  });
}

void poisson_kernel(const Tensor& out, const Tensor& rate, uint64_t key) {
  const Tensor r = rate.to(kFloat64).contiguous();
  const double* rd = static_cast<const double*>(r.data_ptr());
  fill_by_position(out, [&](int64_t i) { return sample_poisson(rd[i], key, static_cast<uint64_t>(i)); });
}

void binomial_kernel(const Tensor& out, const Tensor& count, const Tensor& prob, uint64_t key) {
  const Tensor c = count.to(kFloat64).contiguous(), p = prob.to(kFloat64).contiguous();
  const double* cd = static_cast<const double*>(c.data_ptr());
  const double* pd = static_cast<const double*>(p.data_ptr());
  fill_by_position(out, [&](int64_t i) { return sample_binomial(cd[i], pd[i], key, static_cast<uint64_t>(i)); });
}

}  // namespace ember::cpu
