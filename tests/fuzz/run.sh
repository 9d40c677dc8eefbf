#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS over its committed seed corpus (never writing to it):
#   tests/fuzz/run.sh <build>/fuzz [SECONDS=5] [TARGETS="safetensors zip_reader unpickler"]
# Exits non-zero on the first crash or sanitizer report; the input is left in <build>/fuzz/.
set -euo pipefail
dir=$1
seconds=${2:-5}
targets=${3:-safetensors zip_reader unpickler}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for name in $targets; do
  work=$(mktemp -d)
  echo "fuzz_$name: ${seconds}s over tests/fuzz/corpus/$name"
  if ! ASAN_OPTIONS=detect_leaks=0 "$dir/fuzz_$name" -max_total_time="$seconds" -max_len=65536 \
       -rss_limit_mb=4096 -artifact_prefix="$dir/crash-$name-" "$work" "$here/corpus/$name" \
       > "$dir/fuzz_$name.log" 2>&1; then
    tail -40 "$dir/fuzz_$name.log"
    status=1
  fi
  grep -E "^Done [0-9]+ runs" "$dir/fuzz_$name.log" | tail -1 || true
  rm -rf "$work"
done
exit $status
