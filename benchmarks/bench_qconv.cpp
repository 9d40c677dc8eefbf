// int8 convolution and linear kernels (src/backends/cpu/quantized, raw buffers) on the 52
// convolutions of MobileNetV2 (batch 1, 224x224 input) and its 1280 -> 1000 classifier, beside
// libtorch 1.13's quantized::conv2d / quantized::linear in the same run (bench_common.h's
// method), at 1 and 2 threads:
//   *_onednn_*  ember's Onednn formula vs torch's onednn engine (per-channel weights, its
//               default qconfig)
//   *_qnnpack_* ember's Qnnpack formula (bit-exact with torch's qnnpack) vs torch's qnnpack
//               engine (per-tensor weights, its default qconfig)
// The totals are sums of per-layer medians; depthwise / 1x1 subtotals and every layer follow
// with `bench_qconv layers`. Both libraries get the same codes, NHWC activations; torch's time
// includes its op dispatch and output allocation (a few us per layer), ember's a bare kernel
// call into a preallocated output.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>

#include <cstring>

#include "backends/cpu/quantized/qconv.h"
#include "bench_common.h"

namespace {

namespace q = ember::cpu::quantized;

struct Layer {
  int64_t c, o, groups, k, stride, hw;  // hw: input height = width
};

// MobileNetV2 (torchvision, width 1.0): features.0, then per block [expand 1x1,] depthwise 3x3,
// project 1x1, then features.18.
std::vector<Layer> mobilenet_v2_convs() {
  std::vector<Layer> layers{{3, 32, 1, 3, 2, 224}};
  const int64_t settings[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t c = 32, hw = 112;
  for (const auto& s : settings) {
    for (int64_t i = 0; i < s[2]; ++i) {
      const int64_t stride = i == 0 ? s[3] : 1, hidden = c * s[0];
      if (s[0] != 1) layers.push_back({c, hidden, 1, 1, 1, hw});
      layers.push_back({hidden, hidden, hidden, 3, stride, hw});
      hw = (hw + 2 - 3) / stride + 1;
      layers.push_back({hidden, s[1], 1, 1, 1, hw});
      c = s[1];
    }
  }
  layers.push_back({c, 1280, 1, 1, 1, hw});
  return layers;
}

c10::IValue call(const char* name, const char* overload, std::vector<c10::IValue> args) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
  op.callBoxed(&args);
  return args[0];
}

struct Totals {
  double ember = 0, torch = 0;
  void add(const bench::Timing& t) {
    ember += t.ember;
    torch += t.pytorch;
  }
};

int64_t iters_for(double macs) {
  return std::clamp<int64_t>(static_cast<int64_t>(4e7 / macs), 5, 400);
}

void conv_layers(bool onednn, int threads, bool per_layer) {
  bench::set_threads(threads);
  at::globalContext().setQEngine(onednn ? at::QEngine::ONEDNN : at::QEngine::QNNPACK);
  const q::QFormula formula = onednn ? q::QFormula::Onednn : q::QFormula::Qnnpack;
  const char* fname = onednn ? "onednn" : "qnnpack";
  const auto layers = mobilenet_v2_convs();
  Totals all, dw, pw, stem;
  for (size_t li = 0; li < layers.size(); ++li) {
    const Layer& L = layers[li];
    const int64_t pad = L.k / 2, oh = (L.hw + 2 * pad - L.k) / L.stride + 1;
    auto xd = bench::filler(L.c * L.hw * L.hw, 1 + li);
    auto wd = bench::filler(L.o * (L.c / L.groups) * L.k * L.k, 100 + li);
    auto bd = bench::filler(L.o, 200 + li);
    at::Tensor xf = bench::torch_tensor(xd, {1, L.c, L.hw, L.hw}).add(1.f);  // [0, 2)
    at::Tensor qx = at::quantize_per_tensor(xf, 2.0 / 255, 0, at::kQUInt8)
                        .contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor wf = bench::torch_tensor(wd, {L.o, L.c / L.groups, L.k, L.k});
    at::Tensor qw = onednn ? at::quantize_per_channel(wf, at::full({L.o}, 1.0 / 127, at::kDouble),
                                                      at::zeros({L.o}, at::kLong), 0, at::kQInt8)
                           : at::quantize_per_tensor(wf, 1.0 / 127, 0, at::kQInt8);
    at::Tensor bias = bench::torch_tensor(bd, {L.o});
    const double y_scale = 0.05 * std::sqrt(static_cast<double>(L.c / L.groups * L.k * L.k));
    c10::IValue packed =
        call("quantized::conv2d_prepack", "",
             {qw, bias, std::vector<int64_t>{L.stride, L.stride}, std::vector<int64_t>{pad, pad},
              std::vector<int64_t>{1, 1}, L.groups});
    auto conv = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::conv2d_relu", "new");

    // ember: the same codes, NHWC
    at::Tensor x_codes = qx.int_repr().contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor w_codes = qw.int_repr().contiguous();
    std::vector<double> scales(onednn ? L.o : 1, 1.0 / 127);
    std::vector<int64_t> zps(scales.size(), 0);
    const q::QConvGeometry g{L.c, L.o, L.groups, L.k, L.k, L.stride, L.stride, pad, pad, 1, 1};
    auto p =
        q::PackedQConv2d::create(formula, g, w_codes.data_ptr<int8_t>(), scales.data(), zps.data(),
                                 static_cast<int64_t>(scales.size()), bias.data_ptr<float>());
    std::vector<uint8_t> y(oh * oh * L.o);
    const uint8_t* xp = x_codes.data_ptr<uint8_t>();
    const double macs = static_cast<double>(oh * oh * L.o * (L.c / L.groups) * L.k * L.k);
    auto t = bench::compare(
        bench::Timer::Wall, static_cast<int>(iters_for(macs)), 7,
        [&] { p->run(xp, 1, L.hw, L.hw, 2.0 / 255, 0, y.data(), y_scale, 0, true); },
        [&] {
          std::vector<c10::IValue> s{qx, packed, y_scale, int64_t{0}};
          conv.callBoxed(&s);
        });
    all.add(t);
    (li == 0 ? stem : L.groups > 1 ? dw : pw).add(t);
    if (per_layer) {
      char name[160];
      std::snprintf(name, sizeof name, "qconv_mnv2_L%02zu_%s%ldx%ld_k%ld_s%ld_%ld_%s_b1_%dt", li,
                    L.groups > 1 ? "dw" : "", static_cast<long>(L.c), static_cast<long>(L.o),
                    static_cast<long>(L.k), static_cast<long>(L.stride), static_cast<long>(L.hw),
                    fname, threads);
      bench::report(name, "us", t.ember * 1e6, t.pytorch * 1e6, true);
    }
  }
  const std::string suffix = std::string("_") + fname + "_b1_" + std::to_string(threads) + "t";
  bench::report("qconv_mnv2_52" + suffix, "ms", all.ember * 1e3, all.torch * 1e3, true);
  bench::report("qconv_mnv2_dw17" + suffix, "ms", dw.ember * 1e3, dw.torch * 1e3, true);
  bench::report("qconv_mnv2_1x1_34" + suffix, "ms", pw.ember * 1e3, pw.torch * 1e3, true);
  bench::report("qconv_mnv2_stem" + suffix, "ms", stem.ember * 1e3, stem.torch * 1e3, true);
}

void linear(bool onednn, int threads) {
  bench::set_threads(threads);
  at::globalContext().setQEngine(onednn ? at::QEngine::ONEDNN : at::QEngine::QNNPACK);
  const q::QFormula formula = onednn ? q::QFormula::Onednn : q::QFormula::Qnnpack;
  auto xd = bench::filler(1280, 7), wd = bench::filler(1000 * 1280, 8), bd = bench::filler(1000, 9);
  at::Tensor qx = at::quantize_per_tensor(bench::torch_tensor(xd, {1, 1280}).add(1.f), 2.0 / 255, 0,
                                          at::kQUInt8);
  at::Tensor qw =
      at::quantize_per_tensor(bench::torch_tensor(wd, {1000, 1280}), 1.0 / 127, 0, at::kQInt8);
  at::Tensor bias = bench::torch_tensor(bd, {1000});
  c10::IValue packed = call("quantized::linear_prepack", "", {qw, bias});
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear", "");
  at::Tensor x_codes = qx.int_repr(), w_codes = qw.int_repr();
  const double s = 1.0 / 127;
  const int64_t z = 0;
  auto p = q::PackedQLinear::create(formula, 1280, 1000, w_codes.data_ptr<int8_t>(), &s, &z, 1,
                                    bias.data_ptr<float>());
  std::vector<uint8_t> y(1000);
  auto t = bench::compare(
      bench::Timer::Wall, 200, 7,
      [&] { p->run(x_codes.data_ptr<uint8_t>(), 1, 2.0 / 255, 0, y.data(), 1.0, 128, false); },
      [&] {
        std::vector<c10::IValue> st{qx, packed, 1.0, int64_t{128}};
        op.callBoxed(&st);
      });
  bench::report(std::string("qlinear_1280x1000_") + (onednn ? "onednn" : "qnnpack") + "_b1_" +
                    std::to_string(threads) + "t",
                "us", t.ember * 1e6, t.pytorch * 1e6, true);
}

}  // namespace

int main(int argc, char** argv) {
  const bool per_layer = argc > 1 && std::strcmp(argv[1], "layers") == 0;
  at::NoGradGuard no_grad;
  for (int threads : {1, 2}) {
    for (bool onednn : {true, false}) {
      conv_layers(onednn, threads, per_layer);
      linear(onednn, threads);
    }
  }
  return 0;
}
