#!/bin/bash
# Usage: kill_test.sh MPIRUN FASHION_MNIST. Fashion-MNIST on 4 ranks under `mpirun --with-ft ulfm`,
# once undisturbed and once with world rank 2 SIGKILLed from outside after epoch 1: the survivors
# must repair, roll back, re-shard and end within 1 accuracy point of the undisturbed run (>= 0.85).
set -u
mpirun=$1; prog=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=(--with-ft ulfm --bind-to none --map-by :OVERSUBSCRIBE -n 4 "$prog" --epochs 5 --batch 16)
fail() { echo "FAIL: $*"; exit 1; }
accuracy() { sed -n 's/^final test accuracy \([0-9.]*\).*/\1/p' "$1"; }

timeout 300 "$mpirun" "${args[@]}" > "$tmp/base" 2>&1
cat "$tmp/base"
base=$(accuracy "$tmp/base"); [ -n "$base" ] || fail "undisturbed run printed no accuracy"

timeout 300 "$mpirun" "${args[@]}" > "$tmp/kill" 2>&1 &
run=$!
# Wait for epoch 1 to finish, then find world rank 2 among mpirun's descendants.
for _ in $(seq 600); do grep -q '^epoch 1:' "$tmp/kill" && break; sleep 0.1; done
descendants() { local p; for p in $(ps -o pid= --ppid "$1"); do echo "$p"; descendants "$p"; done; }
victim=""
for p in $(descendants "$run"); do
  if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2'; then victim=$p; fi
done
[ -n "$victim" ] || fail "world rank 2 not found"
echo "killing world rank 2 (pid $victim)"
kill -9 "$victim"
wait "$run"
cat "$tmp/kill"
grep -q 'membership repaired after a failure: 4 -> 3' "$tmp/kill" || fail "no repair to 3 ranks"
acc=$(accuracy "$tmp/kill"); [ -n "$acc" ] || fail "the run with a kill printed no accuracy"
echo "undisturbed $base, with a kill $acc"
awk -v a="$acc" -v b="$base" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a >= 0.85 && d <= 0.01) }' \
  || fail "accuracy $acc not >= 0.85 and within 0.01 of $base"
echo PASS
