#!/usr/bin/env bash
# The showcase: the tour of the core, then a benchmark line (ember beside PyTorch, same run).
set -euo pipefail
build=${1:-build}
"$build/examples/cpp/tour"
echo
echo "== extending autograd: user-defined Functions in C++ =="
"$build/examples/cpp/extending_autograd"
echo
echo "== benchmark: ember beside PyTorch in the same run =="
if [[ -x "$build/benchmarks/bench_core" ]]; then
  # Per-op overhead and bandwidth of add; `make bench` runs every benchmark.
  "$build/benchmarks/bench_core" add_1
  # Autograd's per-op overhead: forward + backward of a small MLP.
  "$build/benchmarks/bench_autograd" mlp16
else
  echo "(benchmarks not built: libtorch-dev missing)"
fi
