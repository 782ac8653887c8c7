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
# slurmctld logs its scheduling passes at debug level (since_pass).
export ELASTIC_SLURM_DEBUG=${ELASTIC_SLURM_DEBUG:-debug}
"$BOX" slurm-up || fail "slurm-up"
CTLD_LOG=$("$BOX" slurm-logs)/slurmctld.log
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
# A main-queue job on K nodes that writes its start time (date +%s.%N) to FILE and runs SECONDS;
# prints its job id.
submit_main() {  # submit_main K FILE SECONDS
  slurm sbatch --parsable -o /dev/null -p main -N"$1" --wrap "date +%s.%N > $2; sleep $3"
}
now() { date +%s.%N; }
# since_pass JOB_ID START: the job's start counted from slurmctld's first scheduling pass after
# its submission (s), without the 0-1 s wait for that pass (docs/slurm.md, "Where the shift comes
# from").
since_pass() {
  python3 "$(dirname "$BOX")/main_queue.py" after-pass --slurmctld-log "$CTLD_LOG" "$1" "$2"
}
# main_delay K: submit a K-node main job, wait for it to start and end; prints start - submit and
# start - Slurm's first pass after the submission (s).
main_delay() {
  local f=$T/main.$RANDOM t0 id
  t0=$(now)
  id=$(submit_main "$1" "$f" 0) || fail "sbatch main"
  wait_for 30 "[ -s $f ]" || fail "main job did not start"
  wait_for 30 "[ -z \"\$(slurm squeue -h -p main)\" ]" || fail "main job did not end"
  echo "$(echo "$(cat "$f") - $t0" | bc) $(since_pass "$id" "$(cat "$f")")"
}
# medians LABEL PAIR...: the medians of main_delay's two numbers over its outputs.
medians() {
  local label=$1
  shift
  echo "$label: median $(printf '%s\n' "$@" | cut -d' ' -f1 | median) s after submission," \
    "$(printf '%s\n' "$@" | cut -d' ' -f2 | median) s after Slurm's first scheduling pass"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
slurm_cleanup() {
  stop_feed
  "$BOX" slurm-down
  cleanup
}
trap slurm_cleanup EXIT
