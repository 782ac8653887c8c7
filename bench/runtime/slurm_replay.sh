#!/bin/bash
# Zero cost to the main queue, measured: a time-compressed window of a real job log's main jobs
# arrives on the box's Slurm (scripts/box.sh slurm-up, nodes h1..h4), once on Slurm alone and once
# with libelastic filling the holes (elastic feed slurm holders + elasticd + two test_trainer jobs
# of 1..4 nodes). Not a ctest (it runs for 2 x REPLAY_MINUTES).
#   Usage: slurm_replay.sh MPIRUN ELASTICD ELASTIC TRAINER
#   e.g.   B=build/default; bench/runtime/slurm_replay.sh $MPI_HOME/bin/mpirun \
#            $B/runtime/daemon/elasticd $B/runtime/control/elastic $B/tests/runtime/daemon/test_trainer
# Knobs: REPLAY_LOG (SWF, default ../shared/data/swf/CTC-SP2-1996-3.1-cln.swf.gz), REPLAY_START
# (trace s after the log's first submission, 2592000 = day 30), REPLAY_MINUTES (30), REPLAY_SPEED
# (trace s per wall s, 48: the window is REPLAY_MINUTES x 48 trace minutes), REPLAY_ALL_JOBS=1
# (no thinning), REPLAY_FILL_ONLY=1 (only the run with libelastic: its fill and its main-job
# waits, without the Slurm-alone baseline, in half the time), REPLAY_AGAIN=1 (Slurm alone once
# more after the run with libelastic, in 3 x REPLAY_MINUTES: how much two runs of Slurm alone
# differ job by job, the noise the comparison is judged against; with REPLAY_FILL_ONLY=1 the first
# Slurm-alone run is left out), REPLAY_FEED_ARGS (the feed's options, default "--vacate-for main":
# holders given back as soon as a main job is pending; "" for preemption only). scripts/main_queue.py submits the
# jobs (run time and limit divided by the speed; small jobs, which round up to a whole node of the
# box, thinned so that the log's offered load is kept: 22 of the default window's 133 jobs, load
# 0.55 instead of 3.2) and prints per run: jobs started, main-job waits p50/p99 (started jobs;
# those still pending at the window's end are counted apart), the idle node-seconds (4 minus the
# nodes main jobs use, sampled every second) and the share of them the elastic jobs held; then
# job by job, how much later each main job started with libelastic than alone (`main_queue.py
# compare`), also counted from Slurm's first scheduling pass after each submission (slurmctld's
# log at debug level, kept as RUN_DIR/slurmctld.log): a batch job waits for slurmctld's next pass,
# about once a second at a phase that drifts from run to run, which shifts whole runs' waits by up
# to a second either way (docs/slurm.md); the elastic jobs' samples and how many preempted holders
# were released in time.
set -u
MPIRUN=$1 ELASTICD=$2 ELASTIC=$3 TRAINER=$4
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${REPLAY_LOG:-$ROOT/../shared/data/swf/CTC-SP2-1996-3.1-cln.swf.gz}
START=${REPLAY_START:-2592000} MINUTES=${REPLAY_MINUTES:-30} SPEED=${REPLAY_SPEED:-48}
[ -r "$LOG" ] || { echo "slurm_replay: cannot read REPLAY_LOG '$LOG'"; exit 2; }
KEEP=${KEEP:-1}  # lib.sh keeps the run's dir (state, events, holders' output) for inspection
. "$ROOT/tests/runtime/slurm/lib.sh"

# replay LABEL [--status STATUS_JSON]: the window's main jobs on the box's Slurm (main_queue.py).
replay() {
  local label=$1
  shift
  python3 "$ROOT/scripts/main_queue.py" replay --log "$LOG" --start "$START" --minutes "$MINUTES" \
    --speed "$SPEED" --nodes "$BOX_HOSTS" --out "$T" --label "$label" \
    ${REPLAY_ALL_JOBS:+--all-jobs} "$@" -- "$BOX" slurm ||
    echo "slurm_replay: main_queue.py replay $label failed ($?)"
}

runs=(with_libelastic)
[ "${REPLAY_FILL_ONLY:-0}" = 1 ] || runs=(slurm_only "${runs[@]}")
[ "${REPLAY_AGAIN:-0}" = 1 ] && runs+=(slurm_only_again)
[ "${runs[0]}" = slurm_only ] && replay slurm_only
# shellcheck disable=SC2086 # options, split on purpose
start_feed ${REPLAY_FEED_ARGS---vacate-for main}
wait_filled 30 || fail "holders did not fill the box"
start_daemon --debounce-s 0.1
for j in e1 e2; do
  STEP_US=20000 SUBMIT_TOML=$(linear_scaling "$BOX_HOSTS") submit "$j" 100000000 1 "$BOX_HOSTS" \
    ELASTIC_TEST_STOP_FILE="$T/stop"
done
replay with_libelastic --status "$S/status.json"
touch "$T/stop"
wait_for 120 '[ "$(job_state e1)" = finished ] && [ "$(job_state e2)" = finished ]' || echo "elastic jobs did not finish"
elastic_jobs=$(python3 -c "import json; d=json.load(open('$S/status.json')); print('elastic jobs:', ', '.join(f\"{j['id']} {j['state']} {j['samples_done']} samples {j['reason']}\" for j in d['jobs']))")
if [ "${runs[-1]}" = slurm_only_again ]; then
  # Slurm alone again: no elasticd, no feed, no holder left.
  kill -TERM "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
  DAEMON_PID=
  stop_feed
  slurm scancel -u "$(id -un)"
  wait_for 30 '[ -z "$(slurm squeue -h)" ]' || fail "holders did not end before the second Slurm-alone run"
  replay slurm_only_again
fi
cp "$CTLD_LOG" "$T/slurmctld.log" || echo "slurm_replay: no slurmctld log at $CTLD_LOG"
echo "=== summary (REPLAY_MINUTES=$MINUTES, REPLAY_SPEED=$SPEED, REPLAY_START=$START)"
for l in "${runs[@]}"; do
  python3 "$ROOT/scripts/main_queue.py" summary --out "$T" --label $l --nodes "$BOX_HOSTS"
done
if [ "${runs[0]}" = slurm_only ]; then
  for l in "${runs[@]:1}"; do
    python3 "$ROOT/scripts/main_queue.py" compare --out "$T" --base slurm_only --label "$l" \
      --slurmctld-log "$T/slurmctld.log"
  done
fi
[ "${runs[-1]}" = slurm_only_again ] &&
  python3 "$ROOT/scripts/main_queue.py" compare --out "$T" --base slurm_only_again --label with_libelastic \
    --slurmctld-log "$T/slurmctld.log"
echo "$elastic_jobs"
python3 "$ROOT/scripts/main_queue.py" holders "$HOLDERS"
