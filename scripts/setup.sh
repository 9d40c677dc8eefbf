#!/usr/bin/env bash
# Installs the Debian packages ember needs (only those missing), as root on Debian 12.
# Usage: scripts/setup.sh [demo|test]   — `test` adds what the test suite needs.
set -euo pipefail

want=(cmake ninja-build g++ pkg-config libgtest-dev libdnnl-dev libopenblas-dev libtorch-dev
      python3-torch python3-numpy
      zlib1g-dev python3-sklearn   # examples/cpp/digits: reads sklearn's digits.csv.gz with zlib
      python3-dev pybind11-dev python3-pybind11 python3-setuptools  # the Python package
      python3-torchvision  # bench_models (make demo) exports torchvision's models for libtorch
      nlohmann-json3-dev  # src/serialization/safetensors_format.cpp: safetensors headers are JSON
      libcurl4-openssl-dev libssl-dev  # src/serialization/hub.cpp: downloads, SHA-256
      libisal-dev)  # src/serialization/crc32.cpp: the CRC-32 of checkpoint records
if [[ "${1:-demo}" == "test" ]]; then
  want+=(python3-pytest
         clang-14 libclang-rt-14-dev  # tests/fuzz: libFuzzer targets (make test runs them briefly)
         python3-venv python3-pip python3-wheel)  # tests/python/frontend/test_packaging.py: pip install .
fi

missing=()
for pkg in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
