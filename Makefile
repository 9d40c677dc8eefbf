# ember — the two commands (README.md):
#   make demo   set up, build, run the showcase
#   make test   set up, build, run every test (C++ and Python)
# Both are incremental: re-running with nothing changed only re-checks.

BUILD      ?= build
BUILD_TYPE ?= Release
PYTHON     := /usr/bin/python3
JOBS       ?= $(shell nproc)

.PHONY: demo test setup-demo setup-test build test-cpp test-python test-fuzz fuzz-long bench asan clean

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

clean:
	rm -rf $(BUILD) build-asan build-bench
