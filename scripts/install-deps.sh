#!/usr/bin/env bash
# Installs every Debian package perflens needs to build, test and run the demo.
# Idempotent: packages already installed (per dpkg -s) are skipped, and apt-get is not
# touched at all when nothing is missing, so a rerun takes well under a second.
# Usage: bash scripts/install-deps.sh [--bench]   (as root, or with sudo available)
#   --bench  also what bench/compare.sh compares against beyond perf: hotspot's
#            perfparser (Debian `hotspot`, a Qt application: not needed to build or test)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  clang libclang-rt-14-dev          # libFuzzer targets and sanitizer runtimes
  libelf-dev libdw-dev              # ELF/DWARF symbolization
  elfutils                          # eu-addr2line: the inline-frame tests' oracle
  libzstd-dev zstd                  # PERF_RECORD_COMPRESSED; zstd-compressed debug sections
  libdeflate-dev                    # zlib-compressed debug sections, ~3x zlib's inflate
  libcapstone-dev                   # annotate's disassembler (x86_64, aarch64)
  libiberty-dev                     # Rust demangling (libiberty's rust_demangle, as perf 6.1)
  libdebuginfod-dev debuginfod      # fetching files by build-id; the debuginfod tests' server
  libtraceevent-dev                 # tracepoint payloads (perf script's trace field, --sort trace)
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev protobuf-compiler # pprof export
  golang-go golang-github-google-pprof-dev  # pprof itself, built offline for the export tests
  python3-jsonschema                # speedscope export: validated against speedscope's schema
  nodejs                            # Firefox export: loaded by the Firefox Profiler's own code (vendored profiler-cli)
  chromium chromium-driver python3-selenium  # the HTML report's headless-browser test
  linux-perf                        # perf record for the demo and scenario tests
  gcc-multilib g++-multilib         # 32-bit test binaries
  python3 time
)
if [[ "${1:-}" == "--bench" ]]; then
  PACKAGES+=(hotspot)               # /usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  # dpkg -s succeeds for removed-but-configured packages too; check the status line.
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "${missing[@]}" </dev/null
echo "install-deps: done"
