#!/bin/bash
# Usage: standalone_kill.sh MPIRUN TRAINER. 4 ranks, one on each of 4 hosts of the cluster in a box
# (tests/runtime/box_mpirun.sh); rank 2 SIGKILLs itself at step 40; the 3 survivors must recover
# once and all finish with size 3 and a correct allreduce. Exits 77 (skipped) without a box.
set -u
mpirun=$1; trainer=$2
out=$(ELASTIC_TEST_KILL_RANK=2 ELASTIC_TEST_KILL_STEP=40 timeout 120 \
  "$(dirname "$0")/../box_mpirun.sh" "$mpirun" 4 -x ELASTIC_TEST_KILL_RANK -x ELASTIC_TEST_KILL_STEP \
  "$trainer" 120 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && exit 77
fail() { echo "FAIL: $*"; exit 1; }
echo "$out" | grep -q WRONG && fail "wrong allreduce"
[ "$(echo "$out" | grep -c '^recovered .* size 3 ')" -eq 3 ] || fail "expected 3 recovered ranks of size 3"
[ "$(echo "$out" | grep -c '^done rank [0-2] size 3 steps 120')" -eq 3 ] || fail "expected 3 finished ranks"
echo PASS
