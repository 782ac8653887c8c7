#!/bin/bash
# Usage: pitfalls.sh MPI_BIN SRC_DIR PROBE. Asserts the Open MPI 5.0.7 behaviours the runtime is built
# around, so that a fixed (or regressed) Open MPI shows up here. docs/runtime.md "Known limitations".
set -u
bin=$1; src=$2; probe=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "UNEXPECTED: $1"; fails=$((fails + 1)); fi; }
# Every process of this test carries PITFALLS_RUN in its environment; reap kills those left over
# by a step (a hung mpirun that `timeout` stopped leaves its spawned ranks behind, and leftover
# ranks and daemons broke the next step's fake-node spawns).
export PITFALLS_RUN=$tmp
reap() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = $$ ] && continue
    grep -qzx "PITFALLS_RUN=$tmp" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  sleep 0.5
}
trap 'reap; rm -rf "$tmp"' EXIT
run() { reap; timeout "$1" "$bin/mpirun" --with-ft ulfm --bind-to none -n 1 "${@:2}" > "$tmp/out" 2>&1; echo $? > "$tmp/rc"; }
# run_until SECONDS PATTERN ARGS...: as run, but stops mpirun as soon as PATTERN is in its output
# (mpirun may hang after printing an abort; a loaded machine makes spawns slow, hence a generous
# limit instead of a tight one).
run_until() {
  local limit=$1 pattern=$2 pid i
  shift 2
  reap
  "$bin/mpirun" --with-ft ulfm --bind-to none -n 1 "$@" > "$tmp/out" 2>&1 &
  pid=$!
  for ((i = 0; i < limit * 5; i++)); do
    kill -0 $pid 2>/dev/null || break
    grep -q "$pattern" "$tmp/out" && break
    sleep 0.2
  done
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
}

# A: leaving ranks free their communicators and call MPI_Finalize: clean (what Session::exit does).
run 60 "$probe" leave free-finalize
check "free + MPI_Finalize after spawn/merge is clean" \
  'grep -q "round 1 ok" $tmp/out && grep -q "parent finalized" $tmp/out && [ $(cat $tmp/rc) = 0 ]'
# B: pitfall 3 — MPI_Comm_disconnect of the merged communicator hangs.
run 20 "$probe" leave disconnect-finalize
check "disconnect after spawn/merge hangs (pitfall 3)" '! grep -q "round 1 ok" $tmp/out'
# C: a rank that exits without MPI_Finalize takes mpirun down (no _exit as a way out).
run 30 "$probe" leave exit-no-finalize
check "exit without MPI_Finalize aborts mpirun" 'grep -q "exiting" $tmp/out && [ $(cat $tmp/rc) != 0 ]'
# D: SIGKILLed ranks are tolerated under --with-ft ulfm: the parent goes on spawning.
run 30 "$probe" leave sigkill
check "SIGKILLed spawned ranks do not stop the parent" 'grep -q "round 1 ok" $tmp/out'
# E: pitfall 4 (fake nodes): spawns onto fake nodes' own PRRTE daemons do not all work. Two ways
# have been seen: the first such spawn works and the second cannot be reached ("unable to reach
# each other"), or PRRTE loses the fake node's daemon in the first one (its connect handler logs a
# PMIX_ERROR at prted/pmix/pmix_server_dyn.c:1048, then "lost communication with a remote
# daemon"; this happened in 2 of 2 attempts in one full ctest run). Either way the runtime cannot
# use them; a spawn onto the head node works.
printf 'localhost slots=4\nnode01 slots=4\nnode02 slots=4\n' > "$tmp/hosts"
run_until 180 "unable to reach each other\|lost communication with a remote daemon" \
  --hostfile "$tmp/hosts" --prtemca plm_ssh_agent "$src/fake_node_agent.sh" "$probe" spawn \
  localhost:2 node01:2 node02:2
check "a spawn onto the head node works" 'grep -q "spawn localhost:2 ok" $tmp/out'
if grep -q "spawn node01:2 ok" $tmp/out; then
  how="the second is unreachable"
else
  how="PRRTE lost the fake node's daemon in the first"
fi
check "spawns onto fake-node daemons fail (pitfall 4: $how)" \
  '! grep -q "spawn node02:2 ok" $tmp/out &&
   grep -q "unable to reach each other\|lost communication with a remote daemon" $tmp/out'
# F: MPI_Comm_spawn of a command that exits before MPI_Init does not return (Open MPI waits for
# the children's connection data; elasticd bounds it in a helper thread: bounded_spawn.h and the
# e2e case spawn_exit).
run 20 "$probe" noinit
check "spawn of a command that exits before MPI_Init hangs" \
  'grep -q "spawning" $tmp/out && ! grep -q "spawn returned" $tmp/out'
[ $fails = 0 ] && echo PASS || { echo "FAIL ($fails unexpected)"; exit 1; }
