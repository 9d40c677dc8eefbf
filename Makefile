# ember — the two commands (README.md):
#   make demo   set up, build, run the showcase
#   make test   set up, build, run every test (C++ and Python)
# Both are incremental: re-running with nothing changed only re-checks.

BUILD      ?= build
BUILD_TYPE ?= Release
PYTHON     := /usr/bin/python3
JOBS       ?= $(shell nproc)

.PHONY: demo test setup-demo setup-test build test-cpp test-python test-fuzz fuzz-long bench asan asan-python clean

demo: setup-demo build
	@scripts/demo.sh $(BUILD)

test: setup-test build test-cpp test-python test-fuzz

setup-demo:
	@scripts/setup.sh demo

setup-test:
	@scripts/setup.sh test

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test-cpp: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python: build
	EMBER_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pytest -q tests/python

# libFuzzer targets (tests/fuzz): a few seconds each over the seed corpus, when setup installed clang.
test-fuzz: build
	@if command -v clang++-14 >/dev/null; then \
	  cmake -S . -B $(BUILD) -DEMBER_FUZZ=ON >/dev/null && cmake --build $(BUILD) -j $(JOBS) --target ember_fuzz && \
	  tests/fuzz/run.sh $(BUILD)/fuzz 5; \
	else echo "test-fuzz: clang++-14 is not installed (scripts/setup.sh test installs it); skipped"; fi

# The long run: FUZZ_SECONDS (default 600) per target.
FUZZ_SECONDS ?= 600
fuzz-long: build
	cmake -S . -B $(BUILD) -DEMBER_FUZZ=ON >/dev/null && cmake --build $(BUILD) -j $(JOBS) --target ember_fuzz
	tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

# Benchmarks: ember beside PyTorch in the same run, JSON lines (benchmarks/run).
bench: setup-demo
	@benchmarks/run

# The whole C++ suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan: setup-test
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEMBER_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --output-on-failure -j $(JOBS) -E install

# The Python suite on the same build (slow: roughly half an hour). python3 itself is not
# instrumented, so the ASan runtime must come first in the process: it is preloaded (with UBSan's,
# which the ASan-built ember._C needs too). Leak checking is off (CPython, numpy and torch keep
# their allocations to exit). test_packaging is left out: it pip-installs the build into a venv.
# ASAN_PYTHON_TESTS picks folders or files (default: all of tests/python).
ASAN_PYTHON_TESTS ?= tests/python
asan-python: setup-test
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEMBER_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	LD_PRELOAD=$$(c++ -print-file-name=libasan.so):$$(c++ -print-file-name=libubsan.so) \
	  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 EMBER_BUILD_DIR=$(abspath build-asan) \
	  $(PYTHON) -m pytest -q -p no:cacheprovider --ignore=tests/python/frontend/test_packaging.py \
	  $(ASAN_PYTHON_TESTS)

clean:
	rm -rf $(BUILD) build-asan build-bench
