#!/usr/bin/env bash
# The showcase: the tour of the core, then a benchmark line (ember beside PyTorch, same run).
set -euo pipefail
build=${1:-build}
"$build/examples/cpp/tour"
echo
echo "== extending autograd: user-defined Functions in C++ =="
"$build/examples/cpp/extending_autograd"
echo
echo "== end to end: an MLP on sklearn's digits, its state_dict loaded into a meta-built copy =="
if [[ -x "$build/examples/cpp/digits" ]]; then
  "$build/examples/cpp/digits"
else
  echo "(digits not built: zlib1g-dev missing)"
fi
echo
echo "== a CNN on the digits: conv, batch norm, ReLU, max pooling, linear =="
if [[ -x "$build/examples/cpp/digits_cnn" ]]; then
  "$build/examples/cpp/digits_cnn"
else
  echo "(digits_cnn not built: zlib1g-dev missing)"
fi
echo
echo "== a character-level transformer language model (C++; the Python twin runs below) =="
"$build/examples/cpp/char_transformer" 200
echo
echo "== Python: PyTorch's extension tutorials and everyday code, run as they are after \`import ember as torch\` =="
for script in examples/python/*.py; do
  echo "-- $script"
  PYTHONPATH="$build/python" /usr/bin/python3 "$script"
done
echo
echo "== benchmark: ember beside PyTorch in the same run =="
if [[ -x "$build/benchmarks/bench_core" ]]; then
  # Per-op overhead and bandwidth of add; `make bench` runs every benchmark.
  "$build/benchmarks/bench_core" add_1
  # Autograd's per-op overhead: forward + backward of a small MLP.
  "$build/benchmarks/bench_autograd" mlp16
  # MobileNetV2 and ResNet-18 inference, batch 1, 224x224, one thread, beside PyTorch eager
  # (and TorchScript-frozen: the _frozen lines); the first run exports torchvision's models.
  "$build/benchmarks/bench_models" mobilenet_v2_b1_1t
  "$build/benchmarks/bench_models" resnet18_b1_1t
  # One training step of examples/cpp/digits_cnn's network (batch 64, one thread).
  "$build/benchmarks/bench_models" digits_cnn_train_b64_1t
else
  echo "(benchmarks not built: libtorch-dev missing)"
fi
# From Python: per-call overhead of an op, of a __torch_function__ subclass, an MLP train step.
PYTHONPATH="$build/python" /usr/bin/python3 benchmarks/bench_python.py
# DataLoader throughput without and with two worker processes; deepcopy of a ResNet-50.
PYTHONPATH="$build/python" /usr/bin/python3 benchmarks/bench_data.py
PYTHONPATH="$build/python" /usr/bin/python3 benchmarks/bench_copy.py
echo
echo "== int8: torchvision's MobileNetV2 converted by torch 1.13, run by ember's quantized modules =="
# The same int8 network on both sides (ember's fast engine beside torch's onednn engine, ember's
# qnnpack-exact engine beside torch's qnnpack), batch 1, one thread; tests/python/quantized
# checks that the qnnpack outputs are equal bit for bit.
PYTHONPATH="$build/python" /usr/bin/python3 -W ignore benchmarks/bench_qmodels.py mobilenet_v2_int8_b1_1t
PYTHONPATH="$build/python" /usr/bin/python3 -W ignore benchmarks/bench_qmodels.py mobilenet_v2_int8_qnnpack
echo
echo "== the quantization workflow: fp32 -> post-training quantization / quantization-aware training =="
# The digits CNN: accuracy, state_dict size and latency for fp32, PTQ and QAT side by side; then
# MobileNetV2 fp32 vs int8 on both engines with the int8 model's SQNR against fp32, beside torch
# 1.13 running the same flow (prepare, calibrate, convert) in the same run.
PYTHONPATH="$build/python" /usr/bin/python3 -W ignore benchmarks/bench_qworkflow.py
