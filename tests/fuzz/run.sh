#!/usr/bin/env bash
# Builds the libFuzzer targets in BUILD_DIR (clang) and runs each for SECONDS on its seed
# corpus plus the regression inputs. Exits non-zero on the first crash, broken invariant
# (fuzz_invariants.h: the target traps), hang (>10 s per input), leak or OOM (>2 GiB;
# decompress: >1 GiB, as its bombs must stay bounded); the crashing input is left in
# BUILD_DIR/fuzz-artifacts/.
#   bash tests/fuzz/run.sh [BUILD_DIR] [SECONDS] [TARGET...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-build-fuzz}"
SECS="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
# Keep in step with tests/fuzz/CMakeLists.txt and tests/hardening/fuzz_regression_test.cc.
[ ${#TARGETS[@]} -gt 0 ] ||
  TARGETS=(reader decompress sample feature perf_map kallsyms report json call_graph script dump header dwarf jitdump tracing_data export)

# The read-only seed dirs of a target: the outputs' targets read perf.data files, the
# report seeds; decompress has its bombs and the reader seeds.
seed_dirs() {
  case "$1" in
    json|call_graph|script|dump|header|export) echo report ;;
    decompress) echo decompress reader ;;
    *) echo "$1" ;;
  esac
}
cd "$ROOT"

CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DPERFLENS_FUZZ=ON -DPERFLENS_BUILD_BENCH=OFF \
  -DPERFLENS_BUILD_TESTS=OFF >/dev/null
ninja -C "$BUILD" -j"${JOBS:-2}" $(printf '%s_fuzzer ' "${TARGETS[@]}")

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for t in "${TARGETS[@]}"; do
  work="$BUILD/fuzz-work/$t" art="$BUILD/fuzz-artifacts/$t"
  mkdir -p "$work" "$art"
  dirs=("$work")
  for d in $(seed_dirs "$t"); do dirs+=("tests/fuzz/corpus/$d/seeds"); done
  [ -d "tests/fuzz/corpus/regressions/$t" ] && dirs+=("tests/fuzz/corpus/regressions/$t")
  rss=2048
  [ "$t" = decompress ] && rss=1024
  echo "--- $t: ${SECS}s"
  # With FUZZ_RUNS set (CI) the inputs are fixed (a fixed seed, at most FUZZ_RUNS of
  # them) and SECS still caps the run, so the step's time stays bounded (13 targets): a
  # fast target is deterministic, a slow one (decompress runs its bombs to the 256 MiB
  # cap) stops at SECS.
  limit=(-max_total_time="$SECS")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}" -max_total_time="$SECS")
  "$BUILD/tests/fuzz/${t}_fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb="$rss" -malloc_limit_mb=1024 \
    -print_final_stats=1 -artifact_prefix="$art/" "${dirs[@]}" >"$BUILD/fuzz-$t.log" 2>&1 || {
    tail -n 60 "$BUILD/fuzz-$t.log"
    echo "FUZZ FAILURE in $t: input in $art/"
    exit 1
  }
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$BUILD/fuzz-$t.log" || true
done
