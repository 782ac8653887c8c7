#!/bin/bash
# Usage: kill_test.sh MPIRUN FASHION_MNIST. Fashion-MNIST on 4 ranks under ULFM, one rank on each of
# the hosts h1..h4 of the cluster in a box (scripts/box.sh), once undisturbed and once with the rank
# on h3 (world rank 2) SIGKILLed from outside after epoch 1: the survivors must repair, roll back,
# re-shard and end within 1 accuracy point of the undisturbed run (>= 0.85). Exits 77 (skipped)
# where the machine cannot build a box.
set -u
mpirun=$1; prog=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
BOX=$root/scripts/box.sh
"$BOX" check || { echo "SKIP: no cluster in a box on this machine"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One rank on each of h1..h4 (box_mpirun.sh: world rank 2 on h3).
train() { timeout 300 "$root/tests/runtime/box_mpirun.sh" "$mpirun" 4 "$prog" --epochs 5 --batch 16; }
fail() { echo "FAIL: $*"; exit 1; }
accuracy() { sed -n 's/^final test accuracy \([0-9.]*\).*/\1/p' "$1"; }

train > "$tmp/base" 2>&1
cat "$tmp/base"
base=$(accuracy "$tmp/base"); [ -n "$base" ] || fail "undisturbed run printed no accuracy"

train > "$tmp/kill" 2>&1 &
run=$!
# Wait for epoch 1 to finish, then find the rank among h3's processes (its PRRTE daemon lives on).
for _ in $(seq 600); do grep -q '^epoch 1:' "$tmp/kill" && break; sleep 0.1; done
name=$(basename "$prog" | cut -c1-15)  # /proc/PID/comm holds 15 characters
victim=""
for p in $("$BOX" pids h3); do
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$name" ] && victim=$p
done
[ -n "$victim" ] || fail "the rank on h3 not found"
echo "killing the rank on h3 (pid $victim)"
kill -9 "$victim"
wait "$run"
cat "$tmp/kill"
grep -q 'membership repaired after a failure: 4 -> 3' "$tmp/kill" || fail "no repair to 3 ranks"
acc=$(accuracy "$tmp/kill"); [ -n "$acc" ] || fail "the run with a kill printed no accuracy"
echo "undisturbed $base, with a kill $acc"
awk -v a="$acc" -v b="$base" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a >= 0.85 && d <= 0.01) }' \
  || fail "accuracy $acc not >= 0.85 and within 0.01 of $base"
echo PASS
