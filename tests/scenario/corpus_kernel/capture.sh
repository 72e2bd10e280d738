#!/bin/sh
# Captures perf 6.1's kernel rows ([k]) of old-kernel corpus recordings reported with an
# empty --symfs and an empty HOME (nothing of this machine may name them), for
# ../foreign_kernel_test.cc:
#   sh tests/scenario/corpus_kernel/capture.sh [CORPUS_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$here/../../../../shared/corpus}
work=$(mktemp -d /tmp/perflens-corpus-kernel-XXXXXX)
mkdir -p "$work/home" "$work/symfs"
for f in perf.data.callgraph-3.4 perf.data.busy.1-3.8; do
  HOME="$work/home" perf report -i "$corpus/perf_data_converter/$f" --symfs "$work/symfs" --stdio --no-children \
    --sort sym -F overhead,sample,sym -t '|' 2>/dev/null | grep '\[k\]' | LC_ALL=C sort > "$here/$f.perf-kernel-rows.txt"
  echo "$f: $(wc -l < "$here/$f.perf-kernel-rows.txt") rows"
done
rm -rf "$work"
