# Shared helpers of the Slurm feed tests (sourced): daemon/lib.sh's box, state dir and elasticd
# helpers, plus the box's real Slurm (scripts/box.sh slurm-up: nodes h1..h4, partitions main and
# scavenger) and `elastic feed slurm` running on the head host h0 as on a login node.
#   needs: ELASTIC (and MPIRUN ELASTICD TRAINER for elasticd) set by the caller.
command -v slurmd >/dev/null || { echo "SKIP: Slurm not installed (scripts/install-deps.sh)"; exit 77; }
BOX_HOSTS=${BOX_HOSTS:-4}
. "$(dirname "${BASH_SOURCE[0]}")/../daemon/lib.sh"
eval "$(declare -f fail | sed '1s/^fail/daemon_fail/')"
fail() {
  echo "--- feed log"; tail -30 "$T/feed.log" 2>/dev/null
  echo "--- squeue"; slurm squeue 2>&1
  daemon_fail "$@"
}
"$BOX" slurm-up || fail "slurm-up"
# A running Slurm is reused (slurm-up is idempotent): no job of an earlier test may remain.
"$BOX" slurm scancel -u "$(id -un)"
wait_for 20 '[ -z "$("$BOX" slurm squeue -h)" ]' || fail "jobs of an earlier test remain"
HOLDERS=$S/slurm-holders
FEED_PID=
slurm() { "$BOX" slurm "$@"; }
start_feed() {  # start_feed [FEED OPTIONS]
  "$BOX" exec h0 /usr/bin/env SLURM_CONF="$("$BOX" slurm-conf)" "$ELASTIC" --state-dir "$S" \
    feed slurm --hostfile "$H" "$@" >> "$T/feed.log" 2>&1 &
  FEED_PID=$!
}
stop_feed() {
  [ -n "$FEED_PID" ] || return 0
  kill -TERM "$FEED_PID" 2>/dev/null
  wait "$FEED_PID" 2>/dev/null
  FEED_PID=
}
# The nodes whose holder job runs, and the nodes of the hostfile, one per line in name order.
held_nodes() { slurm squeue -h -p scavenger -t R -o '%j' | sed -n 's/^elastic-hold://p' | sort; }
hostfile_nodes() { awk '{print $1}' "$H" 2>/dev/null | sort; }
# Holders on every node, and the hostfile lists exactly them.
wait_filled() {
  wait_for "${1:-20}" "[ \"\$(held_nodes | wc -l)\" = $BOX_HOSTS ] && [ \"\$(hostfile_nodes)\" = \"\$(held_nodes)\" ]"
}
# A main-queue job on K nodes that writes its start time (date +%s.%N) to FILE and runs SECONDS.
submit_main() {  # submit_main K FILE SECONDS
  slurm sbatch -Q -o /dev/null -p main -N"$1" --wrap "date +%s.%N > $2; sleep $3"
}
now() { date +%s.%N; }
# main_delay K: submit a K-node main job, wait for it to start and end; prints start - submit (s).
main_delay() {
  local f=$T/main.$RANDOM t0
  t0=$(now)
  submit_main "$1" "$f" 0 || fail "sbatch main"
  wait_for 30 "[ -s $f ]" || fail "main job did not start"
  wait_for 30 "[ -z \"\$(slurm squeue -h -p main)\" ]" || fail "main job did not end"
  echo "$(cat "$f") - $t0" | bc
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
slurm_cleanup() {
  stop_feed
  "$BOX" slurm-down
  cleanup
}
trap slurm_cleanup EXIT
