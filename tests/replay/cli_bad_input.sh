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
echo ok
