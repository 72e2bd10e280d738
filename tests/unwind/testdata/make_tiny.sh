#!/bin/sh
# Re-creates tiny.data and cache/ (run as root or with perf_event_paranoid <= 1):
# tiny.c built without frame pointers in a stable path, recorded user-only with a
# 1 KiB stack copy, and the binary's build-id cache entry copied out of a private
# ~/.debug. libc is deliberately not cached: the unwound chains end at its first frame.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/perflens-unwind
rm -rf "$work" && mkdir -p "$work/bin" "$work/home"
cc -O2 -g -fomit-frame-pointer -fno-inline -o "$work/bin/tiny" "$here/tiny.c"
cd "$work"
HOME="$work/home" perf record -q -e cpu-clock:u --call-graph dwarf,1024 -F 4000 -o tiny.data "$work/bin/tiny"
cp tiny.data "$here/tiny.data"
rm -rf "$here/cache" && mkdir -p "$here/cache"
bid=$(perf buildid-list -i tiny.data | awk '$2 ~ /\/tiny$/ {print $1}')
mkdir -p "$here/cache/tmp/perflens-unwind/bin/tiny/$bid" "$here/cache/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$work/bin/tiny" "$here/cache/tmp/perflens-unwind/bin/tiny/$bid/elf"
ln -s "../../tmp/perflens-unwind/bin/tiny/$bid" "$here/cache/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)"
echo "build-id $bid"
