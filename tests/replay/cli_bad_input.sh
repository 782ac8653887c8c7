#!/bin/sh
# Bad input reaches the user as a message naming file and line, and exit code 2 (never a crash).
# Usage: cli_bad_input.sh <elastic-replay> <shared data dir> <scratch dir>
set -u
replay=$1 data=$2 dir=$3
mkdir -p "$dir"
printf 'node,idle_start_unix,idle_end_unix,duration_s,censored\na,100,200,100,0\nb,1x0,300,200,0\n' > "$dir/bad.csv"
"$replay" --trace "$dir/bad.csv" --workload "$data/workloads/hps-shufflenet-jobs-10J.csv.gz" \
  --out "$dir/out" --no-plots 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 2 ] || { echo "expected exit 2, got $rc"; cat "$dir/err.txt"; exit 1; }
grep -q "bad.csv:3" "$dir/err.txt" || { echo "error does not name bad.csv:3:"; cat "$dir/err.txt"; exit 1; }
# --lenient skips the line and counts it.
"$replay" --trace "$dir/bad.csv" --workload "$data/workloads/hps-shufflenet-jobs-10J.csv.gz" \
  --out "$dir/out" --no-plots --lenient > /dev/null 2>&1 || { echo "--lenient run failed"; exit 1; }
grep -q '"skipped_lines": 1' "$dir/out/metrics.json" || { echo "skipped line not counted"; exit 1; }
# An empty trace is an error too.
printf 'node,idle_start_unix,idle_end_unix\n' > "$dir/empty.csv"
"$replay" --trace "$dir/empty.csv" --workload "$data/workloads/hps-shufflenet-jobs-10J.csv.gz" \
  --out "$dir/out" --no-plots 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 2 ] && grep -q "empty trace" "$dir/err.txt" || { echo "empty trace: rc=$rc"; cat "$dir/err.txt"; exit 1; }
# Issue 16: each input below crashed (bad_alloc, exit 134), ran away, was accepted, exited with
# CLI11's own code (106, 114, 105) or named no option. Each must exit 2 naming what is wrong.
w="$data/workloads/hps-shufflenet-jobs-10J.csv.gz"
job='1 0 0 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1'
printf '; MaxNodes: 2000000000\n%s\n' "$job" > "$dir/big.swf"
printf '; MaxNodes: 9223372036854775807\n%s\n' "$job" > "$dir/huge.swf"
printf '; MaxNodes: 8\n%s\n' "$job" > "$dir/ok.swf"
token=$(head -c 100000 /dev/zero | tr '\0' x)
expect() {  # expect "<message part>" args...: exit 2 and the message on stderr
  want=$1
  shift
  "$replay" --workload "$w" --out "$dir/out" --no-plots "$@" > /dev/null 2> "$dir/err.txt"
  rc=$?
  [ "$rc" -eq 2 ] && grep -qF -- "$want" "$dir/err.txt" && [ "$(wc -c < "$dir/err.txt")" -lt 400 ] || {
    echo "expected exit 2 and '$want', got $rc:" | head -c 300; head -c 400 "$dir/err.txt"; exit 1; }
}
expect "big.swf:1: header MaxNodes: 2000000000 is outside [0, 1000000]" --trace "$dir/big.swf"
expect "huge.swf:1: header MaxNodes: 9223372036854775808 is outside [0, 1000000]" --trace "$dir/huge.swf"
expect "--capacity: Value 2000000000 not in range 0 to 1000000" --trace "$dir/ok.swf" --capacity 2000000000
expect "--capacity: Value 10000000 not in range 0 to 1000000" --trace "$dir/ok.swf" --capacity 10000000
expect "--capacity" --trace "$dir/ok.swf" --capacity x                         # was 106
expect "--tile-days: 8.64e+11 copies of a trace of 100 s" --trace "$dir/ok.swf" --tile-days 1e9
expect "--horizon: must be in (0, 1e+07] seconds, not 1e+308" --trace "$dir/ok.swf" --horizon 1e308
expect "--bogus" --trace "$dir/ok.swf" --bogus                                  # was 114
expect "--max-running: Value 0 not in range 1 to 1000000" --trace "$dir/ok.swf" --max-running 0  # was 105
expect "--start: not a time: $(printf '%.64s' "$token")... (100000 bytes)" --trace "$dir/ok.swf" --start "$token"
expect "--scaling: unknown 'oracel' (oracle, learned, probing, none)" --trace "$dir/ok.swf" --scaling learned,oracel
expect "--report-period: must be in (0, 1e+07] seconds, not 0" --trace "$dir/ok.swf" --report-period 0
expect "--report-noise: must be in [0, 1], not -0.1" --trace "$dir/ok.swf" --report-noise -0.1
expect "--seed: must be >= 0, not -3" --trace "$dir/ok.swf" --seed -3
expect "--scale-workload: not 'auto' or a whole number in [1, 10000]: 0" --trace "$dir/ok.swf" --scale-workload 0
expect "--scale-workload: not 'auto' or a whole number in [1, 10000]: 2x" --trace "$dir/ok.swf" --scale-workload 2x
expect "--stall: must be in [0, 1e+07] seconds, not -1" --trace "$dir/ok.swf" --stall -1
expect "--value-to-finish requires --hole-loss" --trace "$dir/ok.swf" --value-to-finish
expect "--finish-window-scale requires --value-to-finish" --trace "$dir/ok.swf" --hole-loss \
  --finish-window-scale 2
expect "--finish-window-scale: must be > 0, got 0" --trace "$dir/ok.swf" --hole-loss \
  --value-to-finish --finish-window-scale 0
expect "--compare: no solver given (milp, dp, node-milp, equal-share)" --trace "$dir/ok.swf" --compare ,  # was 0
expect "--time-limit: must be in (0, 1e+07] seconds, not 1e+300" --trace "$dir/ok.swf" --time-limit 1e300
# --out is made before the replay, and a folder that cannot be is named as --out (exit 2): it was
# found only after the replay, and the results were lost (exit 1, naming no option).
printf 'x' > "$dir/a_file"
"$replay" --trace "$dir/ok.swf" --workload "$w" --out "$dir/a_file/out" --no-plots > "$dir/out.txt" 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 2 ] && grep -qF -- "--out: cannot create $dir/a_file/out" "$dir/err.txt" || {
  echo "--out under a file: rc=$rc"; cat "$dir/err.txt"; exit 1; }
grep -q "replay wall s" "$dir/out.txt" && { echo "--out under a file: the replay ran"; exit 1; }
# The summary on stdout is the answer: a full disk is exit 1, not 0.
"$replay" --trace "$dir/ok.swf" --workload "$w" --out "$dir/out" --no-plots > /dev/full 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 1 ] && grep -qF "cannot write to standard output" "$dir/err.txt" || {
  echo "stdout /dev/full: rc=$rc"; cat "$dir/err.txt"; exit 1; }
# An interval-CSV error names the file once.
"$replay" --trace "$dir/bad.csv" --workload "$w" --out "$dir/out" --no-plots 2> "$dir/err.txt"
[ "$(grep -o "bad.csv" "$dir/err.txt" | wc -l)" -eq 1 ] || { echo "file named twice:"; cat "$dir/err.txt"; exit 1; }
# A duplicate job id in the workload is refused before the replay, naming file and line.
printf 'job,Tcup,Tcdw,Jmin,Jmax,Pmax,Tsub,Ns,Ps,Os\nJ1,1,1,1,2,100,2021-02-10 20:21:15,"[1]","[1]","[1]"\nJ1,1,1,1,2,100,2021-02-10 20:21:15,"[1]","[1]","[1]"\n' > "$dir/dup.csv"
"$replay" --trace "$dir/ok.swf" --workload "$dir/dup.csv" --out "$dir/out" --no-plots 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 2 ] && grep -qF "dup.csv:3:1: job: duplicate job id 'J1' (also on line 2)" "$dir/err.txt" || {
  echo "duplicate id: rc=$rc"; cat "$dir/err.txt"; exit 1; }
echo ok
