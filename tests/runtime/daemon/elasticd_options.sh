#!/bin/bash
# Usage: elasticd_options.sh ELASTICD. elasticd's plan options (plan_actions.h) and its output bound
# (--max-output-mb) are checked before MPI starts, so the binary runs here without mpirun: --help
# lists them with their defaults, and a bad value exits 2 with a message naming the option.
set -u
elasticd=$1
fail() { echo "FAIL: $*"; exit 1; }
help=$("$elasticd" --help) || fail "--help exited $?"
for o in "--solver TEXT:SOLVER=dp " "--solve-time-limit-s FLOAT:SECONDS>0=2$" \
         "--horizon-s FLOAT:SECONDS>0=10$" "--grow-stall-s FLOAT:SECONDS>=0=1$" \
         "--shrink-stall-s FLOAT:SECONDS>=0=0.3$" "--max-output-mb FLOAT:MB>=0=1024$" \
         "--hole-loss" "node-milp" "equal-share"; do
  echo "$help" | grep -q -- "$o" || fail "--help lacks '$o': $help"
done
refused() {  # OPTION VALUE
  local out rc
  out=$("$elasticd" --hostfile /nonexistent --state-dir /nonexistent "$1" "$2" 2>&1); rc=$?
  echo "$1 $2 -> exit $rc: $out"
  [ $rc = 2 ] && echo "$out" | grep -q -- "$1" || fail "$1 $2: not refused (exit 2) naming $1"
}
refused --solver simplex
refused --solve-time-limit-s 0
refused --horizon-s -1
refused --grow-stall-s -0.5
refused --shrink-stall-s abc
refused --max-output-mb -1
echo PASS
