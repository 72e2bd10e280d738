#!/usr/bin/env bash
# Builds the libFuzzer targets in BUILD_DIR (clang) and runs each for SECONDS on its seed
# corpus plus the regression inputs. Exits non-zero on the first crash, hang (>10 s per
# input), leak or OOM (>2 GiB); the crashing input is left in BUILD_DIR/fuzz-artifacts/.
#   bash tests/fuzz/run.sh [BUILD_DIR] [SECONDS] [TARGET...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-build-fuzz}"
SECS="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(reader sample feature perf_map kallsyms report)
cd "$ROOT"

CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DPERFLENS_FUZZ=ON -DPERFLENS_BUILD_BENCH=OFF \
  -DPERFLENS_BUILD_TESTS=OFF >/dev/null
ninja -C "$BUILD" -j"${JOBS:-2}" $(printf '%s_fuzzer ' "${TARGETS[@]}")

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for t in "${TARGETS[@]}"; do
  work="$BUILD/fuzz-work/$t" art="$BUILD/fuzz-artifacts/$t"
  mkdir -p "$work" "$art"
  dirs=("$work" "tests/fuzz/corpus/$t/seeds")
  [ -d "tests/fuzz/corpus/regressions/$t" ] && dirs+=("tests/fuzz/corpus/regressions/$t")
  echo "--- $t: ${SECS}s"
  # With FUZZ_RUNS set (CI) the run is deterministic: a fixed seed and a fixed number of
  # inputs, with SECS only as a safety cap, so a green run stays green.
  limit=(-max_total_time="$SECS")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}" -max_total_time="$((SECS * 3))")
  "$BUILD/tests/fuzz/${t}_fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 -artifact_prefix="$art/" "${dirs[@]}" >"$BUILD/fuzz-$t.log" 2>&1 || {
    tail -n 60 "$BUILD/fuzz-$t.log"
    echo "FUZZ FAILURE in $t: input in $art/"
    exit 1
  }
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$BUILD/fuzz-$t.log" || true
done
