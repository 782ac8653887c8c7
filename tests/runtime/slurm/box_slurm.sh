#!/bin/bash
# Usage: box_slurm.sh. The box's real Slurm (scripts/box_slurm.sh): slurm-up brings every node up
# idle, jobs run on distinct hosts, `box.sh kill-all` spares the daemons, a slurmd that cannot
# start fails slurm-up with its log named, and slurm-down leaves nothing on any host.
# Exits 77 (skipped) where no box can be made or Slurm is not installed.
set -u
BOX=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/box.sh
N=${BOX_HOSTS:-8}
"$BOX" check || { echo "SKIP: no cluster in a box on this machine"; exit 77; }
command -v slurmd >/dev/null || { echo "SKIP: Slurm not installed (scripts/install-deps.sh)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
running() { [[ $(ps -o stat= -p "$1" 2>/dev/null) == [^Z]* ]]; }  # a zombie has exited
trap '"$BOX" slurm-down' EXIT
"$BOX" up "$N" || fail "box up"
expected=$(seq -f 'h%g' 1 "$N")

"$BOX" slurm-up || fail "slurm-up"
idle=$("$BOX" slurm sinfo -h -N -p main -o '%N %T' | awk '$2 == "idle" {print $1}' | sort -V)
[ "$idle" = "$expected" ] || fail "sinfo idle nodes: '$idle', expected h1..h$N"
ran=$("$BOX" slurm srun -N"$N" hostname | sort -V)
[ "$ran" = "$expected" ] || fail "srun -N$N hostname printed '$ran'"
echo "srun -N$N hostname: $(echo $ran)"
ran=$("$BOX" slurm srun -N2 hostname | sort -u | wc -l)
[ "$ran" = 2 ] || fail "srun -N2 ran on $ran distinct hosts"

# kill-all (what every box test runs to clean up) spares the daemons: Slurm still runs jobs.
daemons=$(cat /run/"${ELASTIC_BOX_PREFIX:-elbox}"/slurm/pid/*.pid)
"$BOX" kill-all
for p in $daemons; do running "$p" || fail "kill-all killed Slurm daemon $p"; done
[ "$("$BOX" slurm srun -N"$N" hostname | sort -u | wc -l)" = "$N" ] || fail "srun after kill-all"
"$BOX" slurm-up || fail "slurm-up on a running Slurm"
for p in $daemons; do running "$p" || fail "a second slurm-up restarted daemon $p"; done

# Clean stop with work running: batch jobs in both partitions.
"$BOX" slurm sbatch -Q -o /dev/null -p scavenger -N1 --wrap 'sleep 300' || fail "sbatch scavenger"
"$BOX" slurm sbatch -Q -o /dev/null -p main -N2 --wrap 'sleep 300' || fail "sbatch main"
end=$((SECONDS + 20))
until [ "$("$BOX" slurm squeue -h -t R | wc -l)" = 2 ]; do
  ((SECONDS < end)) || fail "the two batch jobs did not start"; sleep 0.2
done
"$BOX" slurm-down || fail "slurm-down"
for p in $daemons; do running "$p" && fail "daemon $p outlived slurm-down"; done
for h in $("$BOX" hosts); do
  left=$("$BOX" pids "$h")
  [ -z "$left" ] || fail "left on $h after slurm-down: $(ps -o pid=,args= -p $left)"
done
echo "slurm-down: no process left on h0..h$N"

# A slurmd that cannot start (its port taken on h2): slurm-up fails, names the log, cleans up.
"$BOX" exec h2 python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 6818)); s.listen(); time.sleep(60)' &
blocker=$!
end=$((SECONDS + 10))
until "$BOX" exec h2 ss -Hltn 'sport = 6818' | grep -q .; do
  ((SECONDS < end)) || fail "could not take port 6818 on h2"; sleep 0.1
done
err=$("$BOX" slurm-up 2>&1) && fail "slurm-up succeeded with slurmd's port taken on h2"
echo "$err" | grep -q 'slurmd-h2.log' || fail "slurm-up did not name slurmd-h2.log: $err"
echo "slurm-up with h2's port taken: $(echo "$err" | grep -m1 -E "exited|fatal")"
kill "$blocker" 2>/dev/null; wait "$blocker" 2>/dev/null  # slurm-up's clean-up may have killed it
"$BOX" slurm-up || fail "slurm-up after the port was freed"
[ "$("$BOX" slurm sinfo -h -N -p main -t idle -o %N | wc -l)" = "$N" ] || fail "not all nodes idle"
echo PASS
