#!/bin/sh
# Captures perf 6.1's `perf diff` output on pairs of public corpus recordings, with an
# empty --symfs and an empty HOME (nothing of this machine may name their addresses),
# for ../diff_fixture_test.cc's corpus cases (skipped when the corpus is absent):
#   sh tests/scenario/corpus_diff/capture.sh [CORPUS_DIR]
# Each `pd NAME ARGS` line is one case; ARGS name files relative to the corpus.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "${1:-$here/../../../../shared/corpus}" && pwd)
work=$(mktemp -d /tmp/perflens-corpus-diff-XXXXXX)
mkdir -p "$work/home" "$work/symfs"
cd "$corpus"
pd() { out=$1; shift; HOME="$work/home" perf diff --symfs "$work/symfs" "$@" > "$here/expected-perf-diff-$out.txt"; }
pd fib eclipse-linuxtools/swtbot-fibTest/perf_old.data eclipse-linuxtools/swtbot-fibTest/perf_new.data
pd busy-3.8 perf_data_converter/perf.data.busy.0-3.8 perf_data_converter/perf.data.busy.1-3.8
pd busy-3.8-separator -t '|' perf_data_converter/perf.data.busy.0-3.8 perf_data_converter/perf.data.busy.1-3.8
pd busy-three-wdiff -c wdiff:1,2 perf_data_converter/perf.data.busy.1-3.4 perf_data_converter/perf.data.busy.0-3.4 perf_data_converter/perf.data.busy.0-3.8
pd busy-self-wdiff -c wdiff:1,1 perf_data_converter/perf.data.busy.0-3.8 perf_data_converter/perf.data.busy.0-3.8
pd busy-ratio-period-formula -c ratio -p -F perf_data_converter/perf.data.busy.1-3.4 perf_data_converter/perf.data.busy.0-3.4
pd multievent eclipse-linuxtools/multievent-data/perf.data eclipse-linuxtools/defaultevent-data/perf.data
pd multi-event-delta -c delta perf_data_converter/multi-event-single-process.perf.data perf_data_converter/perf.data.busy.1-3.4
pd busy-sort-sym -s sym perf_data_converter/perf.data.busy.0-3.4 perf_data_converter/perf.data.busy.1-3.4
pd busy-sort-comm-baseline-only -s comm -b -p perf_data_converter/perf.data.busy.0-3.4 perf_data_converter/perf.data.busy.1-3.4
pd callgraph perf_data_converter/perf.data.callgraph-3.4 perf_data_converter/perf.data.callgraph-3.8
pd callgraph-and-branch perf_data_converter/perf.data.callgraph_and_branch-3.4 perf_data_converter/perf.data.callgraph_and_branch-3.8
pd group-vs-hw-and-sw perf_data_converter/perf.data.group_desc-4.14 perf_data_converter/perf.data.hw_and_sw-3.4
rm -rf "$work"
