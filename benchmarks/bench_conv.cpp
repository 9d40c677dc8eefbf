// conv2d of MobileNetV2's layer shapes (batch 1, 224x224 input) and one training-step backward,
// ember beside libtorch 1.13 in the same run (bench_common.h's method), at 1 and 2 threads.
// Both libraries get the same channels_last (NHWC) input, the layout MobileNetV2 runs in here,
// plus one NCHW case; weights are plain OIHW tensors on both sides (libtorch reorders them per
// call, ember reorders once and keeps the copy while the weight is unchanged: Note [oneDNN
// convolution cache]). Threads: ember::set_num_threads and at::set_num_threads to the same count
// (libtorch's oneDNN follows its OpenMP setting).
#include <torch/torch.h>

#include "bench_common.h"

namespace {

struct Shape {
  const char* name;
  int64_t c_in, c_out, hw, k, stride, groups;
};

const Shape kShapes[] = {
    {"stem_3x32_s2_224", 3, 32, 224, 3, 2, 1},
    {"dw_32_112", 32, 32, 112, 3, 1, 32},
    {"pw_32x16_112", 32, 16, 112, 1, 1, 1},
    {"pw_24x144_56", 24, 144, 56, 1, 1, 1},
    {"dw_144_s2_56", 144, 144, 56, 3, 2, 144},
    {"pw_96x576_14", 96, 576, 14, 1, 1, 1},
    {"dw_960_7", 960, 960, 7, 3, 1, 960},
    {"pw_320x1280_7", 320, 1280, 7, 1, 1, 1},
};

void forward(const Shape& s, bool channels_last, int threads) {
  bench::set_threads(threads);
  auto xd = bench::filler(s.c_in * s.hw * s.hw, 1);
  auto wd = bench::filler(s.c_out * (s.c_in / s.groups) * s.k * s.k, 2);
  auto bd = bench::filler(s.c_out, 3);
  const ember::MemoryFormat ef =
      channels_last ? ember::MemoryFormat::ChannelsLast : ember::MemoryFormat::Contiguous;
  const auto tf = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  ember::Tensor ex = bench::ember_tensor(xd, {1, s.c_in, s.hw, s.hw}).contiguous(ef);
  ember::Tensor ew = bench::ember_tensor(wd, {s.c_out, s.c_in / s.groups, s.k, s.k});
  ember::Tensor eb = bench::ember_tensor(bd, {s.c_out});
  at::Tensor tx = bench::torch_tensor(xd, {1, s.c_in, s.hw, s.hw}).contiguous(tf);
  at::Tensor tw = bench::torch_tensor(wd, {s.c_out, s.c_in / s.groups, s.k, s.k});
  at::Tensor tb = bench::torch_tensor(bd, {s.c_out});
  const int64_t pad = s.k / 2;
  at::NoGradGuard no_grad;
  auto t = bench::compare(
      bench::Timer::Wall, 20, 9,
      [&] { ember::conv2d(ex, ew, eb, {s.stride, s.stride}, {pad, pad}, {1, 1}, s.groups); },
      [&] { at::conv2d(tx, tw, tb, {s.stride, s.stride}, {pad, pad}, {1, 1}, s.groups); });
  bench::report(std::string("conv2d_") + s.name + (channels_last ? "_nhwc" : "_nchw") + "_t" +
                    std::to_string(threads),
                "us", t.ember * 1e6, t.pytorch * 1e6, true);
}

// forward + backward (input and weight gradients) of a digits-CNN-like layer, batch 64
void training(int threads) {
  bench::set_threads(threads);
  auto xd = bench::filler(64 * 16 * 14 * 14, 4);
  auto wd = bench::filler(32 * 16 * 3 * 3, 5);
  ember::Tensor ex = bench::ember_tensor(xd, {64, 16, 14, 14}).requires_grad_();
  ember::Tensor ew = bench::ember_tensor(wd, {32, 16, 3, 3}).requires_grad_();
  at::Tensor tx = bench::torch_tensor(xd, {64, 16, 14, 14}).requires_grad_();
  at::Tensor tw = bench::torch_tensor(wd, {32, 16, 3, 3}).requires_grad_();
  auto t = bench::compare(
      bench::Timer::Wall, 5, 7,
      [&] { ember::conv2d(ex, ew, std::nullopt, {1, 1}, {1, 1}).sum().backward(); },
      [&] { at::conv2d(tx, tw, {}, {1, 1}, {1, 1}).sum().backward(); });
  bench::report("conv2d_fwd_bwd_64x16x14x14_32k3_nchw_t" + std::to_string(threads), "us",
                t.ember * 1e6, t.pytorch * 1e6, true);
}

}  // namespace

int main() {
  for (int threads : {1, 2}) {
    for (const Shape& s : kShapes) forward(s, true, threads);
    forward(kShapes[3], false, threads);
    forward(kShapes[0], false, threads);
    training(threads);
  }
}
