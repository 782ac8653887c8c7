#!/usr/bin/env bash
# Fuzzes the input parsers with libFuzzer (tests/fuzz/, docs/testing.md): builds the fuzz targets
# with clang (the `fuzz` preset: ASan + UBSan, no MPI), seeds a corpus per target from
# tests/fuzz/seeds, tests/fuzz/regressions, the other tests' inputs and excerpts of ../shared/data,
# and runs each target for --seconds. Any crash, sanitizer report, leak, timeout or out-of-memory
# fails the run; the input is kept as BUILD_DIR/findings/<target>-<kind>-<hash>.
#
#   scripts/fuzz.sh [--seconds N] [--build-dir DIR] [--build-only | --no-build] [TARGET...]
#
# Defaults: 60 s per target, build/fuzz, every target. The corpus (BUILD_DIR/corpus/<target>)
# grows across runs. Needs clang and libclang-rt-14-dev (scripts/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
seconds=60 build_dir=$src/build/fuzz build=1 run=1
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --build-only) run=0; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
say() { printf '[fuzz] %s\n' "$*" >&2; }

if [ "$build" = 1 ]; then
  say "configure + build the fuzz targets (preset fuzz) in $build_dir"
  cmake --preset fuzz -B "$build_dir" >/dev/null
  nice cmake --build "$build_dir" --target elastic_fuzzers -j "$(nproc)"
fi
[ "$run" = 1 ] || exit 0

if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build_dir"/tests/fuzz/*_fuzz; do targets+=("$(basename "${f%_fuzz}")"); done
fi
data=$src/../shared/data

# The first N lines of a gzip file (zcat ends on SIGPIPE, which is no error here).
head_of() { zcat "$1" | head -n "$2" || true; }
# Seeds derived from other inputs of the tree and from ../shared/data (which is never changed).
derive_seeds() {
  local name=$1 dir=$2
  case $name in
    swf)
      head_of "$data/swf/theta_2022.swf.gz" 60 >"$dir/theta_head.swf"
      head_of "$data/swf/CTC-SP2-1996-3.1-cln.swf.gz" 80 >"$dir/ctc_head.swf" ;;
    interval_csv|trace_feed)
      head_of "$data/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz" 200 \
        >"$dir/summit_head.csv"
      cp "$src"/tests/fuzz/seeds/interval_csv/* "$dir/" ;;
    workload_csv)
      cp "$data/workloads/hps-shufflenet-jobs-10J.csv.gz" "$dir/"
      head_of "$data/workloads/ImageNet-imgps-jobs-1001J.csv.gz" 8 >"$dir/imagenet_head.csv" ;;
    job_spec) cp "$src"/scripts/demo/*.toml "$dir/" ;;
    feeds) cp "$src"/tests/runtime/control/data/*.txt "$dir/" ;;
  esac
}

failed=()
for name in "${targets[@]}"; do
  bin=$build_dir/tests/fuzz/${name}_fuzz
  [ -x "$bin" ] || { say "no fuzz target $name ($bin)"; exit 2; }
  corpus=$build_dir/corpus/$name
  mkdir -p "$corpus" "$build_dir/findings"
  for d in "$src/tests/fuzz/seeds/$name" "$src/tests/fuzz/regressions/$name"; do
    if [ -d "$d" ]; then cp "$d"/* "$corpus/" 2>/dev/null || true; fi
  done
  derive_seeds "$name" "$corpus"
  say "$name: ${seconds}s on $(find "$corpus" -type f | wc -l) inputs"
  log=$build_dir/findings/$name.log
  # -timeout: one input running 10 s is a finding (a parser must not hang); -rss_limit_mb likewise.
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
     nice "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$build_dir/findings/$name-" "$corpus" >"$log" 2>&1; then
    say "$name: $(grep -m1 '^stat::number_of_executed_units' "$log" | sed 's/.*: *//') runs, nothing found"
  else
    say "$name: FOUND something, log $log:"
    grep -E 'ERROR|FUZZ_CHECK|runtime error|Test unit written|SUMMARY' "$log" | head -n 12 >&2 || tail -n 20 "$log" >&2
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED: ${failed[*]} (inputs in $build_dir/findings/)"
  exit 1
fi
say "all ${#targets[@]} targets ran ${seconds}s each, nothing found"
