#!/usr/bin/env bash
# Runs two perflens binaries on the same recordings with the same options and diffs
# their outputs: the check that a refactoring changed nothing a user sees.
#
#   bash scripts/compare-builds.sh OLD_PERFLENS NEW_PERFLENS [FILE...]
#
# Without FILEs: every perf.data of the replay fixtures (tests/scenario/fixtures/*/),
# the demo recording and the shared corpus (../shared/corpus). Each file is run with:
#   report (default: children + graph), report --no-children -g none with each sort
#   key (comm,dso,sym / pid / dso / sym / cpu), report with -g folded, flat and
#   fractal, --comms/--dsos filters, -n --percent-limit 1, --json, script,
#   script -F folded, header, stats, dump.
# HOME is an empty temp dir for both, and each fixture's build-id cache is passed as
# --buildid-dir, so both builds see the same files. Outputs (stdout and stderr) go to
# $WORK (default a temp dir, kept when something differs). Exit status 1 if any
# output differs; the summary counts compared runs and files.
set -uo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,15p' "$0"
  exit 2
fi
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
shift 2
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$(mktemp -d /tmp/perflens-compare-XXXXXX)}"
mkdir -p "$WORK/home"

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  while IFS= read -r f; do files+=("$f"); done < <(
    { ls "$ROOT"/tests/scenario/fixtures/*/perf.data "$ROOT"/examples/*.perf.data 2>/dev/null
      find "$ROOT/../shared/corpus" -type f ! -name '*.md' ! -name '*.json' ! -name 'LICENSE*' \
        ! -name '*.pb_text' ! -name '*.buildids' 2>/dev/null | sort; })
fi

jobs=(
  "report --stdio"
  "report --stdio --no-children -g none -s comm,dso,sym"
  "report --stdio --no-children -g none -s pid"
  "report --stdio --no-children -g none -s dso"
  "report --stdio --no-children -g none -s sym"
  "report --stdio --no-children -g none -s cpu,comm"
  "report --stdio --children -g folded"
  "report --stdio --no-children -g flat"
  "report --stdio --children -g fractal,0.5,callee"
  "report --stdio --no-children -g none -n --percent-limit 1"
  "report --stdio --no-children -g none --dsos [kernel.kallsyms]"
  "report --stdio --no-children -g none --comms perf"
  "report --json --no-children"
  "script"
  "script -F folded"
  "header -I"
  "stats"
  "dump"
)

runs=0 diffs=0
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  cache=()
  d=$(dirname "$f")
  if [[ -d "$d/cache" ]]; then cache=(--buildid-dir "$d/cache")
  elif [[ -d "$d/../cache" ]]; then cache=(--buildid-dir "$(readlink -f "$d/../cache")"); fi
  tag=$(echo "$f" | sed 's|.*/||; s|[^A-Za-z0-9._-]|_|g')_$(echo "$f" | md5sum | cut -c1-6)
  for j in "${jobs[@]}"; do
    read -r -a args <<<"$j"
    extra=()
    [[ ${args[0]} == report || ${args[0]} == script ]] && extra=("${cache[@]}")
    name="$WORK/$tag.$(echo "$j" | tr -c 'A-Za-z0-9' '_')"
    HOME="$WORK/home" "$OLD" "${args[@]}" -i "$f" "${extra[@]}" >"$name.old" 2>&1
    echo "exit $?" >>"$name.old"
    HOME="$WORK/home" "$NEW" "${args[@]}" -i "$f" "${extra[@]}" >"$name.new" 2>&1
    echo "exit $?" >>"$name.new"
    runs=$((runs + 1))
    if ! cmp -s "$name.old" "$name.new"; then
      diffs=$((diffs + 1))
      echo "DIFFERS: $j -i $f   (diff $name.old $name.new)"
    else
      rm -f "$name.old" "$name.new"
    fi
  done
done
echo "compared $runs runs over ${#files[@]} files: $diffs differ"
if [[ $diffs -eq 0 ]]; then rm -rf "$WORK"; exit 0; fi
echo "outputs kept in $WORK"
exit 1
