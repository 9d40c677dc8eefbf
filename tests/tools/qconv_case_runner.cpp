// Runs the raw int8 kernels (src/backends/cpu/quantized) on cases written by
// tests/python/quantized/test_qconv_kernels_vs_torch.py, which compares the codes with torch
// 1.13's. Usage: qconv_case_runner DIR, where DIR/cases.txt has one case per line:
//   conv    FORMULA C O G KH KW SH SW PH PW DH DW N H W NW XS ZX YS ZY RELU BIAS PREFIX
//   linear  FORMULA K O M NW XS ZX YS ZY RELU BIAS PREFIX
//   dynamic FORMULA K O M NW REDUCE RELU BIAS PREFIX
// FORMULA is qnnpack or onednn; raw little-endian inputs DIR/PREFIX.{w (int8), ws (f64),
// wz (i64), b (f32), x (uint8 NHWC / M x K, or f32 for dynamic)}. Writes PREFIX.fast (the
// default path: oneDNN where usable), PREFIX.portable (the portable exact kernel) and
// PREFIX.ref (the scalar reference).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/quantized/qconv.h"

using namespace ember::cpu::quantized;

namespace {

template <class T>
std::vector<T> read_raw(const std::string& path, int64_t count) {
  std::vector<T> v(static_cast<size_t>(count));
  std::ifstream f(path, std::ios::binary);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
  if (count > 0 && !f) throw std::runtime_error("cannot read " + path);
  return v;
}

template <class T>
void write_raw(const std::string& path, const std::vector<T>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(T)));
}

QFormula formula_of(const std::string& s) {
  if (s == "qnnpack") return QFormula::Qnnpack;
  if (s == "onednn") return QFormula::Onednn;
  throw std::runtime_error("unknown formula " + s);
}

struct Weights {
  std::vector<int8_t> w;
  std::vector<double> ws;
  std::vector<int64_t> wz;
  std::vector<float> b;
  const float* bias() const { return b.empty() ? nullptr : b.data(); }
};

Weights read_weights(const std::string& p, int64_t count, int64_t nw, int64_t o, bool bias) {
  Weights k{read_raw<int8_t>(p + ".w", count),
            read_raw<double>(p + ".ws", nw),
            read_raw<int64_t>(p + ".wz", nw),
            {}};
  if (bias) k.b = read_raw<float>(p + ".b", o);
  return k;
}

void run_case(const std::string& dir, const std::string& line) {
  std::istringstream in(line);
  std::string kind, fname;
  in >> kind >> fname;
  const QFormula f = formula_of(fname);
  if (kind == "conv") {
    QConvGeometry g{};
    int64_t n, h, w, nw, zx, zy, relu, bias;
    double xs, ys;
    std::string prefix;
    in >> g.in_channels >> g.out_channels >> g.groups >> g.kernel_h >> g.kernel_w >> g.stride_h >>
        g.stride_w >> g.pad_h >> g.pad_w >> g.dilation_h >> g.dilation_w >> n >> h >> w >> nw >>
        xs >> zx >> ys >> zy >> relu >> bias >> prefix;
    const std::string p = dir + "/" + prefix;
    const int64_t count = g.out_channels * (g.in_channels / g.groups) * g.kernel_h * g.kernel_w;
    const Weights k = read_weights(p, count, nw, g.out_channels, bias);
    const auto x = read_raw<uint8_t>(p + ".x", n * h * w * g.in_channels);
    const int64_t ysize =
        n * std::max<int64_t>(g.out_h(h), 0) * std::max<int64_t>(g.out_w(w), 0) * g.out_channels;
    for (const char* path : {"fast", "portable"}) {
      set_onednn_int8_enabled(std::string(path) == "fast");
      auto packed = PackedQConv2d::create(f, g, k.w.data(), k.ws.data(), k.wz.data(), nw, k.bias());
      set_onednn_int8_enabled(true);
      std::vector<uint8_t> y(ysize);
      packed->run(x.data(), n, h, w, xs, zx, y.data(), ys, zy, relu != 0);
      write_raw(p + "." + path, y);
    }
    std::vector<uint8_t> y(ysize);
    qconv2d_ref(f, g, k.w.data(), k.ws.data(), k.wz.data(), nw, k.bias(), x.data(), n, h, w, xs, zx,
                y.data(), ys, zy, relu != 0);
    write_raw(p + ".ref", y);
  } else if (kind == "linear" || kind == "dynamic") {
    int64_t K, O, m, nw, zx = 0, zy = 0, relu, bias, reduce = 0;
    double xs = 0, ys = 0;
    std::string prefix;
    in >> K >> O >> m >> nw;
    if (kind == "linear") {
      in >> xs >> zx >> ys >> zy;
    } else {
      in >> reduce;
    }
    in >> relu >> bias >> prefix;
    const std::string p = dir + "/" + prefix;
    const Weights k = read_weights(p, K * O, nw, O, bias);
    for (const char* path : {"fast", "portable", "ref"}) {
      const std::string which(path);
      set_onednn_int8_enabled(which == "fast");
      auto packed =
          PackedQLinear::create(f, K, O, k.w.data(), k.ws.data(), k.wz.data(), nw, k.bias());
      set_onednn_int8_enabled(true);
      if (kind == "linear") {
        const auto x = read_raw<uint8_t>(p + ".x", m * K);
        std::vector<uint8_t> y(m * O);
        if (which == "ref") {
          qlinear_ref(f, K, O, k.w.data(), k.ws.data(), k.wz.data(), nw, k.bias(), x.data(), m, xs,
                      zx, y.data(), ys, zy, relu != 0);
        } else {
          packed->run(x.data(), m, xs, zx, y.data(), ys, zy, relu != 0);
        }
        write_raw(p + "." + which, y);
      } else {
        const auto x = read_raw<float>(p + ".x", m * K);
        std::vector<float> y(m * O);
        if (which == "ref") {
          qlinear_dynamic_ref(f, K, O, k.w.data(), k.ws.data(), k.wz.data(), nw, k.bias(), x.data(),
                              m, y.data(), reduce != 0, relu != 0);
        } else {
          packed->run_dynamic(x.data(), m, y.data(), reduce != 0, relu != 0);
        }
        write_raw(p + "." + which, y);
      }
    }
  } else {
    throw std::runtime_error("unknown case kind " + kind);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: qconv_case_runner DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream cases(dir + "/cases.txt");
  std::string line;
  try {
    while (std::getline(cases, line)) {
      if (!line.empty()) run_case(dir, line);
    }
  } catch (const std::exception& e) {
    std::cerr << "qconv_case_runner: " << e.what() << " (case: " << line << ")\n";
    return 1;
  }
  return 0;
}
