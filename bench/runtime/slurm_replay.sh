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
# (trace s per wall s, 48: the window is REPLAY_MINUTES x 48 trace minutes). Jobs keep their
# share of the machine (nodes = round(processors / MaxProcs x 4), at least 1), run time and limit
# divided by the speed. Prints per run: jobs started, main-job waits p50/p99 (started jobs; those
# still pending at the window's end are counted apart), and with libelastic the idle node-seconds
# (4 minus the nodes main jobs use, sampled every second) and the share of them the elastic jobs
# held, and their samples.
set -u
MPIRUN=$1 ELASTICD=$2 ELASTIC=$3 TRAINER=$4
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${REPLAY_LOG:-$ROOT/../shared/data/swf/CTC-SP2-1996-3.1-cln.swf.gz}
START=${REPLAY_START:-2592000} MINUTES=${REPLAY_MINUTES:-30} SPEED=${REPLAY_SPEED:-48}
[ -r "$LOG" ] || { echo "slurm_replay: cannot read REPLAY_LOG '$LOG'"; exit 2; }
KEEP=${KEEP:-1}  # lib.sh keeps the run's dir (state, events, holders' output) for inspection
. "$ROOT/tests/runtime/slurm/lib.sh"

# "offset_s nodes run_s limit_min" per job in the window, wall seconds from the window's start.
python3 - "$LOG" "$START" "$MINUTES" "$SPEED" "$BOX_HOSTS" > "$T/jobs" <<'EOF' || fail "bad log"
import gzip, math, sys
log, start, minutes, speed, nodes = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
maxprocs, jobs, first = None, [], None
with gzip.open(log, "rt") as f:
    for n, line in enumerate(f, 1):
        if line.startswith(";"):
            if "MaxProcs:" in line: maxprocs = int(line.split(":")[1])
            continue
        v = line.split()
        if len(v) != 18: sys.exit(f"{log}:{n}: expected 18 SWF fields, got {len(v)}")
        submit, run, procs, req = float(v[1]), float(v[3]), int(v[4]), float(v[8])
        first = submit if first is None else first
        off = (submit - first - start) / speed
        if off < 0 or off >= minutes * 60 or run <= 0 or procs <= 0: continue
        k = max(1, min(nodes, round(procs / maxprocs * nodes)))
        run_s = max(1.0, run / speed)
        limit = max(1, math.ceil(max(req, run) / speed / 60) + 1)
        jobs.append((off, k, run_s, limit))
if maxprocs is None: sys.exit(f"{log}: no MaxProcs header")
for j in jobs: print("%.2f %d %.1f %d" % j)
EOF
echo "window: $(wc -l < "$T/jobs") main jobs in $MINUTES min (trace day $((START / 86400)), ${SPEED}x)"

# sample LABEL: every second, "t main_nodes elastic_nodes" (elastic: nodes busy in status.json).
sample() {
  while :; do
    local main elastic
    main=$(slurm squeue -h -p main -t R -o %D 2>/dev/null | awk '{s += $1} END {print s + 0}')
    elastic=$(python3 -c "import json; d=json.load(open('$S/status.json')); print(sum(1 for n in d['nodes'] if n['state'] == 'busy'))" 2>/dev/null || echo 0)
    echo "$(now) $main $elastic" >> "$T/$1.samples"
    sleep 1
  done
}
now() { date +%s.%N; }
# replay LABEL: submits the window's jobs on time, then cancels what is left at its end.
replay() {
  local label=$1 t0 i=0 off k run lim sampler
  sample "$label" & sampler=$!
  t0=$(now)
  while read -r off k run lim; do
    i=$((i + 1))
    while (( $(echo "$(now) - $t0 < $off" | bc) )); do sleep 0.05; done
    echo "$i $(now)" >> "$T/$label.submits"
    slurm sbatch -Q -o /dev/null -p main -N"$k" -t "$lim" \
      --wrap "date +%s.%N > $T/$label.start.$i; sleep $run" || echo "sbatch of job $i failed"
  done < "$T/jobs"
  while (( $(echo "$(now) - $t0 < $MINUTES * 60" | bc) )); do sleep 0.5; done
  kill "$sampler"; wait "$sampler" 2>/dev/null
  slurm scancel -p main -u "$(id -un)"
}
summary() {  # summary LABEL
  python3 - "$T" "$1" "$BOX_HOSTS" <<'EOF'
import glob, os, sys
t, label, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
sub = dict(l.split() for l in open(f"{t}/{label}.submits"))
waits, pending = [], 0
for i, s in sub.items():
    f = f"{t}/{label}.start.{i}"
    if os.path.exists(f) and os.path.getsize(f): waits.append(float(open(f).read()) - float(s))
    else: pending += 1
waits.sort()
pct = lambda p: waits[min(len(waits) - 1, int(p / 100 * len(waits)))] if waits else float("nan")
idle = filled = 0.0
rows = [tuple(map(float, l.split())) for l in open(f"{t}/{label}.samples")]
for (t0, m, e), (t1, _, _) in zip(rows, rows[1:]):
    idle += (nodes - m) * (t1 - t0); filled += min(e, nodes - m) * (t1 - t0)
print(f"{label}: {len(waits)} main jobs started, {pending} still pending at the end; wait p50 "
      f"{pct(50):.2f} s, p99 {pct(99):.2f} s; idle node-s {idle:.0f}, held by elastic jobs "
      f"{filled:.0f} ({100 * filled / idle if idle else 0:.1f}%)")
EOF
}

replay slurm_only
start_feed
wait_filled 30 || fail "holders did not fill the box"
start_daemon --debounce-s 0.1
for j in e1 e2; do
  STEP_US=20000 SUBMIT_TOML=$(linear_scaling "$BOX_HOSTS") submit "$j" 100000000 1 "$BOX_HOSTS" \
    ELASTIC_TEST_STOP_FILE="$T/stop"
done
replay with_libelastic
touch "$T/stop"
wait_for 120 '[ "$(job_state e1)" = finished ] && [ "$(job_state e2)" = finished ]' || echo "elastic jobs did not finish"
summary slurm_only
summary with_libelastic
python3 -c "import json; d=json.load(open('$S/status.json')); print('elastic jobs:', ', '.join(f\"{j['id']} {j['state']} {j['samples_done']} samples {j['reason']}\" for j in d['jobs']))"
echo "holders that left on release: $(cat "$HOLDERS"/*.out | grep -c 'released after'), not released in time: $(cat "$HOLDERS"/*.out | grep -c 'not released')"
