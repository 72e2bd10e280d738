#!/usr/bin/env bash
# Times perflens (Release build) against perf 6.1 on the same large recordings.
#
#   bash bench/compare.sh [options]
#
# Steps:
#  1. builds perflens in build-bench (Release) unless --perflens is given, and the
#     benchmark workloads (bench/workload, -O2 -fno-omit-frame-pointer, several threads):
#     workload.cc (~600 generated functions), libm_workload.cc (time in libm/libc/
#     libstdc++ hot functions, shallow stacks), deep_workload.cc (~60-120-frame recursion);
#  2. records one file per shape (--shapes) into the work dir (never the source tree):
#       fp.data     workload       perf record -e cpu-clock -g -F $FREQ     (>= 300K samples)
#       libm.data   libm workload  perf record -e cpu-clock -g -F $FREQ     (~300K samples)
#       deep.data   deep workload  perf record -e cpu-clock -g -F $FREQ     (~300K samples)
#       dwarf.data  workload       perf record -e cpu-clock --call-graph dwarf  (>= 200 MB)
#     and checks the sizes with `perf report --stats`;
#  3. runs each job N times (median) under /usr/bin/time -v for perf and perflens,
#     alternating the two, on each shape's file:
#       report --stdio --no-children -g none --sort comm,dso,sym
#       report --stdio                      (children + call graph)
#       script > /dev/null
#     and prints one table: shape, job, wall, user+sys CPU, peak RSS, the ratios
#     perf/perflens, and the floor: `cat FILE > /dev/null` from the page cache (the least
#     any reader of the file pays); then, perflens only, `export --format pprof` against
#     `report --no-children` on fp.data;
#     On dwarf.data, hotspot's perfparser (which unwinds and symbolizes every sample;
#     `bash scripts/install-deps.sh --bench` installs it) is timed in the same rotation
#     and printed after the jobs, with perflens's report and script against it;
#  4. --scaling: bench/perfdata_repeat.py writes fp.data's data section FACTOR times
#     (times shifted; <1 is a prefix) for each of --scaling-factors, "auto" being the
#     factor that reaches 2 GiB (skipped when the work dir's disk has less than 3x that
#     free); prints per file its size, samples, perflens's flat report (the first job)
#     wall / CPU / peak RSS, seconds per GB, and the cat floor. The files are deleted
#     afterwards unless --keep.
#
# Options:
#   --runs N          runs per measurement (default 3; the median is printed)
#   --work DIR        recordings and binaries go here (default $TMPDIR/perflens-bench)
#   --seconds S       CPU seconds of the fp recording (default 14)
#   --freq F          sampling frequency of the fp recording (default 25000)
#   --dwarf-seconds S CPU seconds of the dwarf recording (default 12, at -F 2500)
#   --libm-seconds S  CPU seconds of the libm recording (default 12)
#   --deep-seconds S  CPU seconds of the deep recording (default 12)
#   --shapes LIST     comma-separated shapes to record and time (default fp,libm,deep,dwarf)
#   --threads T       workload threads (default 4)
#   --perflens PATH   perflens binary to time (default build-bench/src/cli/perflens)
#   --rerecord        record again even if the files exist in the work dir
#   --no-dwarf        skip the dwarf recording and its timings (drops dwarf from --shapes)
#   --scaling         also run the scaling series on copies of fp.data
#   --scaling-factors "F..."  its factors (default "0.25 1 4 16 auto")
#   --keep            keep the scaling series' files (scale_F.data in the work dir)
#   --only-perflens   time perflens only (no perf runs)
#   --srcline         also time `report --no-children -g none --sort sym,srcline` and
#                     `-g caller,0.5,address` on fp.data (issue #13; perf runs addr2line
#                     per address: ~130 s a run), and perflens's `report --inline`
#                     against `--no-inline` on each file
#   --annotate        also time `annotate --stdio -s SYM` on fp.data, SYM its hottest
#                     user symbol (the hottest is a kernel one: neither tool annotates
#                     kernel code without a vmlinux)
set -euo pipefail

src_dir=$(cd "$(dirname "$0")/.." && pwd)
runs=3
work=${TMPDIR:-/tmp}/perflens-bench
seconds=14
freq=25000
dwarf_seconds=12
dwarf_freq=2500
threads=4
perflens=""
rerecord=0
do_dwarf=1
do_scaling=0
do_srcline=0
do_annotate=0
scaling_factors="0.25 1 4 16 auto"
keep=0
shapes="fp,libm,deep,dwarf"
libm_seconds=12
deep_seconds=12
only_perflens=0
perf=${PERF:-/usr/bin/perf}
perfparser=${PERFPARSER:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --freq) freq=$2; shift 2 ;;
    --dwarf-seconds) dwarf_seconds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --perflens) perflens=$2; shift 2 ;;
    --rerecord) rerecord=1; shift ;;
    --no-dwarf) do_dwarf=0; shift ;;
    --scaling) do_scaling=1; shift ;;
    --scaling-factors) scaling_factors=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --shapes) shapes=$2; shift 2 ;;
    --libm-seconds) libm_seconds=$2; shift 2 ;;
    --deep-seconds) deep_seconds=$2; shift 2 ;;
    --only-perflens) only_perflens=1; shift ;;
    --srcline) do_srcline=1; shift ;;
    --annotate) do_annotate=1; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

IFS=, read -r -a shape_list <<<"$shapes"
for sh in "${shape_list[@]}"; do
  case "$sh" in fp|libm|deep|dwarf) ;; *) echo "compare.sh: unknown shape $sh (fp, libm, deep, dwarf)" >&2; exit 2 ;; esac
done
has_shape() { [[ ",$shapes," == *",$1,"* ]]; }
has_shape dwarf || do_dwarf=0
if [[ $do_dwarf -eq 0 ]]; then  # --no-dwarf
  kept=()
  for sh in "${shape_list[@]}"; do [[ $sh == dwarf ]] || kept+=("$sh"); done
  shape_list=("${kept[@]}")
fi

[[ -x /usr/bin/time ]] || { echo "compare.sh: /usr/bin/time missing (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$work"

# --- build -----------------------------------------------------------------------------
if [[ -z "$perflens" ]]; then
  build="$src_dir/build-bench"
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$src_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  ninja -C "$build" -j2 perflens >/dev/null
  perflens="$build/src/cli/perflens"
fi
wl="$work/perflens_workload"
if [[ ! -x "$wl" || "$src_dir/bench/workload/workload.cc" -nt "$wl" || "$src_dir/bench/workload/gen_functions.py" -nt "$wl" ]]; then
  python3 "$src_dir/bench/workload/gen_functions.py" "$work/bench_functions.cc" 600
  c++ -std=c++20 -O2 -g -fno-omit-frame-pointer -DPERFLENS_BENCH_NUM_FUNCTIONS=600 -pthread \
    "$src_dir/bench/workload/workload.cc" "$work/bench_functions.cc" -o "$wl"
fi
for name in libm deep; do
  has_shape "$name" || continue
  out="$work/perflens_${name}_workload"
  if [[ ! -x "$out" || "$src_dir/bench/workload/${name}_workload.cc" -nt "$out" ]]; then
    c++ -std=c++20 -O2 -g -fno-omit-frame-pointer -pthread \
      "$src_dir/bench/workload/${name}_workload.cc" -o "$out" -lm
  fi
done

# --- record ----------------------------------------------------------------------------
nr_samples() {  # file -> number of SAMPLE events from perf report --stats
  "$perf" report --stats -i "$1" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}'
}
record() {  # out workload cpu_seconds perf-record-args...
  local out=$1 prog=$2 secs=$3
  shift 3
  if [[ $rerecord -eq 1 || ! -s "$out" ]]; then
    echo "recording $(basename "$out") ($secs CPU-s, $threads threads) ..." >&2
    "$perf" record -q -e cpu-clock "$@" -o "$out" -- "$prog" "$secs" "$threads" >/dev/null 2>"$out.log" || {
      cat "$out.log" >&2
      exit 1
    }
  fi
}

if has_shape fp || [[ $do_scaling -eq 1 ]]; then
  record "$work/fp.data" "$wl" "$seconds" -g -F "$freq"
  fp_samples=$(nr_samples "$work/fp.data")
  echo "fp.data: $(du -m "$work/fp.data" | cut -f1) MB, $fp_samples samples"
  [[ $fp_samples -ge 300000 ]] || echo "warning: fp.data has fewer than 300K samples; raise --seconds" >&2
fi
for name in libm deep; do
  has_shape "$name" || continue
  if [[ $name == libm ]]; then secs=$libm_seconds; else secs=$deep_seconds; fi
  # -m 1024: the deep chains make ~700-byte samples; the default buffer loses some.
  record "$work/$name.data" "$work/perflens_${name}_workload" "$secs" -g -F "$freq" -m 1024
  n=$(nr_samples "$work/$name.data")
  echo "$name.data: $(du -m "$work/$name.data" | cut -f1) MB, $n samples"
  [[ $n -ge 250000 ]] || echo "warning: $name.data has fewer than 250K samples; raise --$name-seconds" >&2
done
if [[ $do_dwarf -eq 1 ]]; then
  record "$work/dwarf.data" "$wl" "$dwarf_seconds" --call-graph dwarf -F "$dwarf_freq" -m 1024
  dwarf_mb=$(du -m "$work/dwarf.data" | cut -f1)
  echo "dwarf.data: $dwarf_mb MB, $(nr_samples "$work/dwarf.data") samples"
  [[ $dwarf_mb -ge 200 ]] || echo "warning: dwarf.data is below 200 MB; raise --dwarf-seconds" >&2
fi

# --- timing ----------------------------------------------------------------------------
# measure cmd... -> "wall cpu rss_mb" of one run (output discarded)
# Wall time from bash's EPOCHREALTIME (microseconds): /usr/bin/time prints it in 10 ms
# steps, too coarse for the ~50 ms jobs.
measure() {
  local log="$work/time.log" t0 t1
  t0=$EPOCHREALTIME
  /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$work/stderr.log" || {
    echo "compare.sh: command failed: $*" >&2
    cat "$work/stderr.log" >&2
    exit 1
  }
  t1=$EPOCHREALTIME
  awk -F': ' -v t0="$t0" -v t1="$t1" '
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
    END { printf "%.3f %.2f %.0f\n", t1 - t0, u + s, m / 1024 }' "$log"
}
# median per column of "wall cpu rss" lines
median_of() {
  awk '{ w[NR] = $1; c[NR] = $2; r[NR] = $3 }
       function med(a, n,   i, j, t) { for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
       END { printf "%s %s %s\n", med(w, NR), med(c, NR), med(r, NR) }'
}
# median of N runs, per column
median_runs() {
  local i
  for ((i = 0; i < runs; ++i)); do measure "$@"; done | median_of
}

printf '\nperflens: %s\nperf: %s (%s)\nruns per cell: %d (median)\n\n' "$perflens" "$perf" "$("$perf" --version)" "$runs"
# floor FILE -> median wall of `cat FILE > /dev/null` once the file is in the page cache
floor_of() {
  cat "$1" >/dev/null
  median_runs cat "$1" | cut -d' ' -f1
}
declare -A floors  # per file, measured once for the three jobs
header='%-6s %-44s %9s %9s %9s | %9s %9s %9s | %8s %8s %8s | %8s\n'
printf "$header" shape job "perf s" "perf cpu" "perf MB" "pl s" "pl cpu" "pl MB" "wall x" "cpu x" "rss x" "floor s"

shape_of() { basename "$1" .data; }
run_job() {  # file label args...
  local file=$1 label=$2
  shift 2
  [[ -n "${floors[$file]:-}" ]] || floors[$file]=$(floor_of "$file")
  local fl=${floors[$file]}
  local pl perf_r i pl_runs="" perf_runs=""
  # perflens and perf runs alternate, so that this VM's drift (timings move by 15% and
  # more over minutes) weighs on both sides alike.
  for ((i = 0; i < runs; ++i)); do
    pl_runs+="$(measure "$perflens" "$@" -i "$file")"$'\n'
    [[ $only_perflens -eq 1 ]] || perf_runs+="$(measure "$perf" "$@" -i "$file")"$'\n'
  done
  pl=$(printf '%s' "$pl_runs" | median_of)
  if [[ $only_perflens -eq 1 ]]; then
    perf_r="0 0 0"
  else
    perf_r=$(printf '%s' "$perf_runs" | median_of)
  fi
  read -r pw pc pm <<<"$perf_r"
  read -r lw lc lm <<<"$pl"
  awk -v f="$(shape_of "$file")" -v j="$label" -v pw="$pw" -v pc="$pc" -v pm="$pm" -v lw="$lw" -v lc="$lc" -v lm="$lm" -v fl="$fl" 'BEGIN {
    wx = lw > 0 ? pw / lw : 0; cx = lc > 0 ? pc / lc : 0; rx = lm > 0 ? pm / lm : 0
    printf "%-6s %-44s %9.3f %9.2f %9d | %9.3f %9.2f %9d | %7.1fx %7.1fx %7.1fx | %8.3f\n", f, j, pw, pc, pm, lw, lc, lm, wx, cx, rx, fl }'
}

files=()
for sh in "${shape_list[@]}"; do files+=("$work/$sh.data"); done
for f in "${files[@]}"; do
  run_job "$f" "report --no-children -g none -s comm,dso,sym" report --stdio --no-children -g none --sort comm,dso,sym
  run_job "$f" "report --stdio (children + graph)" report --stdio
  run_job "$f" "script" script
done
if [[ $do_srcline -eq 1 ]] && has_shape fp; then
  run_job "$work/fp.data" "report --no-children -g none -s sym,srcline" \
    report --stdio --no-children -g none --sort sym,srcline
  run_job "$work/fp.data" "report --no-children -g caller,0.5,address" \
    report --stdio --no-children -g caller,0.5,address
  # What inline frames cost perflens (children + graph; issue #13: at most 2x): --inline
  # (the default, as perf's) against --no-inline, alternating.
  for f in "${files[@]}"; do
    il_runs="" ni_runs=""
    for ((i = 0; i < runs; ++i)); do
      il_runs+="$(measure "$perflens" report --stdio --inline -i "$f")"$'\n'
      ni_runs+="$(measure "$perflens" report --stdio --no-inline -i "$f")"$'\n'
    done
    read -r iw _ _ <<<"$(printf '%s' "$il_runs" | median_of)"
    read -r nw _ _ <<<"$(printf '%s' "$ni_runs" | median_of)"
    awk -v f="$(basename "$f")" -v a="$iw" -v b="$nw" 'BEGIN {
      printf "%-10s perflens report --stdio --inline %.3f s / --no-inline %.3f s = %.2fx\n", f, a, b, (b > 0 ? a / b : 0) }'
  done
fi
# pprof export against the report it must not cost more than twice of (issue #16):
# `export --format pprof` and `report --stdio --no-children` on fp.data, alternating.
if has_shape fp; then
  ex_runs="" nc_runs=""
  for ((i = 0; i < runs; ++i)); do
    ex_runs+="$(measure "$perflens" export --format pprof -o "$work/fp.pb.gz" -i "$work/fp.data")"$'\n'
    nc_runs+="$(measure "$perflens" report --stdio --no-children -i "$work/fp.data")"$'\n'
  done
  read -r ew ec em <<<"$(printf '%s' "$ex_runs" | median_of)"
  read -r nw nc nm <<<"$(printf '%s' "$nc_runs" | median_of)"
  awk -v ew="$ew" -v ec="$ec" -v em="$em" -v nw="$nw" -v nc="$nc" -v nm="$nm" 'BEGIN {
    printf "fp.data    perflens export --format pprof %.3f s %.2f cpu %d MB / report --no-children %.3f s %.2f cpu %d MB = %.2fx wall\n",
           ew, ec, em, nw, nc, nm, (nw > 0 ? ew / nw : 0) }'
fi
if [[ $do_annotate -eq 1 ]] && has_shape fp; then
  hot=$("$perflens" report --stdio --no-children -g none --sort sym -i "$work/fp.data" 2>/dev/null |
    awk -F'\\[\\.\\] ' '/\[\.\] / && !found {sub(/ +$/, "", $2); print $2; found = 1}')  # no exit: SIGPIPE under pipefail
  run_job "$work/fp.data" "annotate --stdio -s '$hot'" annotate --stdio -s "$hot"
fi

# --- unwinding: hotspot's perfparser on dwarf.data ---------------------------------------
if [[ $do_dwarf -eq 1 ]]; then
  if [[ -x "$perfparser" ]]; then
    f="$work/dwarf.data"
    hs_runs="" rep_runs="" scr_runs=""
    for ((i = 0; i < runs; ++i)); do  # alternating, as run_job does
      hs_runs+="$(measure "$perfparser" --input "$f" --output /dev/null)"$'\n'
      rep_runs+="$(measure "$perflens" report --stdio -i "$f")"$'\n'
      scr_runs+="$(measure "$perflens" script -i "$f")"$'\n'
    done
    read -r hw hc hm <<<"$(printf '%s' "$hs_runs" | median_of)"
    printf '\nhotspot-perfparser --input dwarf.data --output /dev/null: %s s wall, %s s cpu, %s MB\n' "$hw" "$hc" "$hm"
    for job in report script; do
      if [[ $job == report ]]; then runs_text=$rep_runs; else runs_text=$scr_runs; fi
      read -r lw lc lm <<<"$(printf '%s' "$runs_text" | median_of)"
      # The ratios first: a `>` among printf's arguments is an output redirection to awk.
      awk -v j="$job" -v hw="$hw" -v hc="$hc" -v hm="$hm" -v lw="$lw" -v lc="$lc" -v lm="$lm" 'BEGIN {
        wx = lw > 0 ? hw / lw : 0; cx = lc > 0 ? hc / lc : 0; rx = lm > 0 ? hm / lm : 0
        printf "  perflens %-8s %7.3f s wall %7.2f s cpu %6d MB | perfparser/perflens: %5.1fx wall %5.1fx cpu %5.1fx rss\n",
               j, lw, lc, lm, wx, cx, rx }'
    done
  else
    echo "hotspot-perfparser not found at $perfparser (bash scripts/install-deps.sh --bench): unwinding not compared with it" >&2
  fi
fi

# --- scaling ---------------------------------------------------------------------------
# Copies of fp.data 0.25x .. 2 GiB (bench/perfdata_repeat.py): perflens's flat report
# should cost the same per GB at every size, and stay a small multiple of reading the file.
if [[ $do_scaling -eq 1 ]]; then
  base="$work/fp.data"
  base_bytes=$(stat -c %s "$base")
  printf '\nscaling (perflens report --stdio --no-children -g none --sort comm,dso,sym on copies of fp.data, median of %d):\n' "$runs"
  printf '%-7s %9s %11s | %9s %9s %9s | %8s | %8s %8s\n' factor MB samples "pl s" "pl cpu" "pl MB" "s per GB" "floor s" "pl/floor"
  for k in $scaling_factors; do
    if [[ $k == auto ]]; then
      k=$(( (2 * 1024 * 1024 * 1024 + base_bytes - 1) / base_bytes ))
      need=$((3 * k * base_bytes))
      avail=$(df --output=avail -B1 "$work" | tail -1)
      if [[ $avail -lt $need ]]; then
        echo "auto ($k x, $((k * base_bytes >> 20)) MB): skipped, $((avail >> 20)) MB free in $work, below 3x the file" >&2
        continue
      fi
    fi
    f="$work/scale_$k.data"
    line=$(/usr/bin/python3 "$src_dir/bench/perfdata_repeat.py" "$base" "$f" "$k")
    samples=$(sed -n 's/.* \([0-9][0-9]*\) samples$/\1/p' <<<"$line")
    bytes=$(stat -c %s "$f")
    fl=$(floor_of "$f")
    read -r lw lc lm <<<"$(median_runs "$perflens" report --stdio --no-children -g none --sort comm,dso,sym -i "$f")"
    awk -v k="$k" -v b="$bytes" -v n="$samples" -v lw="$lw" -v lc="$lc" -v lm="$lm" -v fl="$fl" 'BEGIN {
      printf "%-7s %9.1f %11d | %9.3f %9.2f %9d | %8.3f | %8.3f %7.1fx\n", k "x", b / 1048576, n, lw, lc, lm, lw / (b / 1e9), fl, (fl > 0 ? lw / fl : 0) }'
    [[ $keep -eq 1 ]] || rm -f "$f"
  done
fi
