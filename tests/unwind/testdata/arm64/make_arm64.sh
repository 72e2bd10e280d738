#!/bin/sh
# Re-creates this folder's aarch64 unwinding fixture (README.md): builds
# ../../../scenario/programs/dwarf_levels.c for aarch64, runs it under qemu-aarch64 with
# gdb-multiarch attached, and at each stop of capture.py writes the registers, 4 KB of
# stack and the true chain. Needs (Debian): gcc-aarch64-linux-gnu qemu-user gdb-multiarch.
#   sh tests/unwind/testdata/arm64/make_arm64.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../../scenario/programs" && pwd)/dwarf_levels.c
work=$(mktemp -d /tmp/perflens-arm64-XXXXXX)
# -no-pie: the text at 0x400000 under qemu as under the kernel, so the MMAP in the test
# is the ELF's own layout.
aarch64-linux-gnu-gcc -O2 -g -fomit-frame-pointer -fno-inline -no-pie -DNAME='"dwarf_arm64"' \
  -o "$work/dwarf_arm64" "$src"
# The breakpoints in capture.py are this build's addresses: check the code has not moved.
aarch64-linux-gnu-nm "$work/dwarf_arm64" | grep -q '^00000000004007b0 t LeafSum$' ||
  { echo "LeafSum is not at 0x4007b0 any more: update capture.py's breakpoints"; exit 1; }
qemu-aarch64 -L /usr/aarch64-linux-gnu -g 1234 "$work/dwarf_arm64" 0.05 >/dev/null &
sleep 0.5
ARM64_OUT=$here timeout 120 gdb-multiarch -q -batch -ex "file $work/dwarf_arm64" -x "$here/capture.py" >"$work/gdb.log" 2>&1 ||
  { cat "$work/gdb.log"; exit 1; }
wait || true
# The test needs the symbols and .eh_frame, not the DWARF (gdb used it for the truth).
aarch64-linux-gnu-strip --strip-debug -o "$here/dwarf_arm64" "$work/dwarf_arm64"
rm -rf "$work"
ls -la "$here"
