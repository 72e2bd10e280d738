#!/bin/sh
# Captures perf 6.1's outputs on the branch-stack recordings of the shared corpus, for
# ../corpus_branch_test.cc, with an empty --symfs and an empty HOME (nothing of this
# machine may name their addresses): the first 200 lines of `perf report --stdio`
# (branch mode, perf's default for these files), the first 30 of `perf script -F
# ip,sym,brstack` and the first 10 of `-F brstacksym,dso` (long lines); whole
# `--branch-history` reports (below).
#   sh tests/scenario/corpus_branch/capture.sh [CORPUS_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$here/../../../../shared/corpus}
work=$(mktemp -d /tmp/perflens-corpus-branch-XXXXXX)
mkdir -p "$work/home" "$work/symfs"
for f in perf_data_converter/perf.data.branch-4.14 perf_data_converter/perf.data.branch_stack_spec \
         perf_data_converter/perf.data.callgraph_and_branch-3.4 perf_data_converter/perf.data.callgraph_and_branch-3.8 \
         autofdo/propeller_sample_1.perfdata1 autofdo/test.lbr; do
  name=$(basename "$f")
  p() { n=$1; shift; HOME="$work/home" perf "$@" -i "$corpus/$f" --symfs "$work/symfs" 2>/dev/null | head -n "$n"; }
  p 200 report --stdio > "$here/$name.report.txt"
  p 30 script -F ip,sym,brstack > "$here/$name.brstack.txt"
  p 10 script -F brstacksym,dso > "$here/$name.brstacksym.txt"
  echo "$name: $(wc -c < "$here/$name.report.txt") $(wc -c < "$here/$name.brstack.txt") $(wc -c < "$here/$name.brstacksym.txt") bytes"
done
# --branch-history (perf writes to the addr2line it starts on files that do not exist
# here; SIGPIPE is ignored so that it does not die of it), whole, without perf's tip.
notip() { awk '{l[NR] = $0} END {for (i = 1; i <= NR; i++) {
  if (i + 2 <= NR && l[i] == "#" && l[i + 1] ~ /^# \(Tip: / && l[i + 2] == "#") { i += 2; continue }
  print l[i] }}'; }
ph() { src=$1; shift; (trap '' PIPE; HOME="$work/home" perf report --stdio "$@" -i "$corpus/$src" --symfs "$work/symfs" 2>/dev/null) | notip; }
ph perf_data_converter/perf.data.branch-4.14 --branch-history > "$here/perf.data.branch-4.14.branch-history.txt"
for f in perf.data.callgraph_and_branch-3.4 perf.data.callgraph_and_branch-3.8; do
  ph perf_data_converter/$f --branch-history --percent-limit 1 > "$here/$f.branch-history.txt"
  ph perf_data_converter/$f --branch-history --no-children -g caller --percent-limit 0.5 > "$here/$f.branch-history-self.txt"
done
rm -rf "$work"
