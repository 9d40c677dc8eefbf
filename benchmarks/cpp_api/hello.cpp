// hello_startup: a process whose only work is its first tensor op, built twice by
// benchmarks/CMakeLists.txt — hello_ember (ember) and hello_torch (-DUSE_TORCH, libtorch).
// benchmarks/bench_cpp_api.cpp times exec to exit.
#include <cstdio>
#ifdef USE_TORCH
#include <torch/torch.h>
namespace T = torch;
#else
#include <ember/ember.h>
namespace T = ember;
#endif

int main() {
  T::Tensor t = T::ones({2, 2}) + 1;
  std::printf("%g\n", t.sum().item<double>());
  return 0;
}
