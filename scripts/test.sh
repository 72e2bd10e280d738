#!/usr/bin/env bash
# Configures, builds and runs every perflens test.
#
#   bash scripts/test.sh [BUILD_DIR] [extra cmake -D options...]
#
# BUILD_DIR defaults to "build" (relative to the repository root). Extra arguments are
# passed to cmake, e.g. `bash scripts/test.sh build-asan -DPERFLENS_SANITIZE=ON`.
# JOBS (default 2) sets the build and ctest parallelism.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${1:-build}"
shift || true
case "$BUILD_DIR" in
  /*) ;;
  *) BUILD_DIR="$ROOT/$BUILD_DIR" ;;
esac
JOBS="${JOBS:-2}"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja "$@"
cmake --build "$BUILD_DIR" -- -j"$JOBS"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$JOBS"
