#!/usr/bin/env bash
# Builds perflens, records the bundled workload with `perf record -g` when perf works on
# this machine (else uses examples/workload.perf.data), and prints `perflens report` for it.
#
#   bash scripts/demo.sh [BUILD_DIR]        (default: build)
#
# Output goes to /tmp/perflens-demo (override with DEMO_DIR); the build uses JOBS
# parallel jobs (default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
DEMO_DIR="${DEMO_DIR:-/tmp/perflens-demo}"
JOBS="${JOBS:-2}"

echo "== building perflens in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja >/dev/null
cmake --build "$BUILD_DIR" --target perflens -- -j"$JOBS"
PERFLENS="$BUILD_DIR/src/cli/perflens"

mkdir -p "$DEMO_DIR"
cd "$DEMO_DIR"
DATA=""
if command -v perf >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
  echo "== recording examples/workload.c with perf record -g"
  cc -O1 -g -fno-omit-frame-pointer -fno-inline -o workload "$ROOT/examples/workload.c"
  if perf record -q -g -o workload.perf.data ./workload 300 </dev/null >record.log 2>&1 &&
     [[ -s workload.perf.data ]]; then
    DATA="$DEMO_DIR/workload.perf.data"
  else
    echo "   perf record failed (see $DEMO_DIR/record.log; perf_event_paranoid is" \
         "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?'))"
  fi
fi
if [[ -z "$DATA" ]]; then
  echo "== using the bundled recording examples/workload.perf.data"
  # The recording names /tmp/perflens-demo/workload; put the matching binary there.
  if [[ "$DEMO_DIR" == /tmp/perflens-demo ]]; then cp -f "$ROOT/examples/workload" "$DEMO_DIR/workload"; fi
  cp -f "$ROOT/examples/workload.perf.data" "$DEMO_DIR/bundled.perf.data"
  DATA="$DEMO_DIR/bundled.perf.data"
fi

echo "== $PERFLENS report --stdio -i $DATA"
if ! "$PERFLENS" report --stdio -i "$DATA"; then
  echo "== report failed; falling back to: perflens stats -i $DATA"
  "$PERFLENS" stats -i "$DATA"
fi
