#!/bin/bash
# Usage: standalone_kill.sh MPIRUN TRAINER. 4 ranks; rank 2 SIGKILLs itself at step 40; the 3
# survivors must recover once and all finish with size 3 and a correct allreduce.
set -u
mpirun=$1; trainer=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(ELASTIC_TEST_KILL_RANK=2 ELASTIC_TEST_KILL_STEP=40 timeout 120 "$mpirun" --with-ft ulfm \
  -x ELASTIC_TEST_KILL_RANK -x ELASTIC_TEST_KILL_STEP --bind-to none --map-by :OVERSUBSCRIBE \
  -n 4 "$trainer" 120 2>&1)
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
echo "$out" | grep -q WRONG && fail "wrong allreduce"
[ "$(echo "$out" | grep -c '^recovered .* size 3 ')" -eq 3 ] || fail "expected 3 recovered ranks of size 3"
[ "$(echo "$out" | grep -c '^done rank [0-2] size 3 steps 120')" -eq 3 ] || fail "expected 3 finished ranks"
echo PASS
