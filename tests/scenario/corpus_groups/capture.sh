#!/bin/sh
# Captures perf 6.1's reports of the corpus recordings with event groups (GROUP_DESC),
# with an empty --symfs and an empty HOME (nothing of this machine may name their
# addresses), for ../group_fixture_test.cc:
#   sh tests/scenario/corpus_groups/capture.sh [CORPUS_DIR]
# Writes FILE.perf-MODE.txt for each MODE|ARGS of modes.txt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$here/../../../../shared/corpus}
work=$(mktemp -d /tmp/perflens-corpus-groups-XXXXXX)
mkdir -p "$work/home" "$work/symfs"
for f in perf.data.group_desc-4.14 perf.data.lost_samples-4.4 perf.data.piped.header_feautres_group_desc-6.8; do
  while IFS='|' read -r mode args; do
    case $mode in ''|'#'*) continue ;; esac
    eval "set -- $args"
    HOME="$work/home" perf "$@" -i "$corpus/perf_data_converter/$f" --symfs "$work/symfs" \
      > "$here/$f.perf-$mode.txt" 2>/dev/null
    echo "$f $mode: $(wc -l < "$here/$f.perf-$mode.txt") lines"
  done < "$here/modes.txt"
done
rm -rf "$work"
