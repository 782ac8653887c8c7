#!/usr/bin/env bash
# The demo (README's main command): the elastic runtime on a cluster in a box (scripts/box.sh: 8
# distinct hosts h1..h8 on this machine, each with its own hostname, network address, /tmp and
# PRRTE daemon; elasticd on the head host h0), the hosts granted and reclaimed as a real
# supercomputer's idle nodes were (a time-compressed window of the shared Summit node-state trace),
# running three Fashion-MNIST training jobs that grow and shrink with the pool. Shows `elastic
# status` every few seconds and ends with a summary: samples, rescales, samples/s, utilisation,
# efficiency (against the throughput elasticd learned) and test accuracy per job, and the hosts
# every job's ranks ran on. Exit status: 0 all jobs finished, 1 a job failed (or the demo timed
# out, or a step failed), 2 only the announced fallback ran. The state dir is kept for inspection.
#
# Steps: scripts/install-deps.sh; configure + build the targets it runs; `box.sh up 8`; `elastic up`
# (elasticd under mpirun on h0, ranks spawned onto their hosts); `elastic feed trace --hosts` into
# the daemon's hostfile; `elastic submit` x3 (scripts/demo/*.toml); watch; summarise
# (scripts/demo/summary.py). Where no box can be built (not root, no namespaces) it says so loudly
# and falls back to label mode (every rank on this host, node names as labels). If elasticd cannot
# run at all, it says so and runs the allocator's trace replay instead (announced).
#
# `scripts/demo.sh --slurm`: the same jobs on a real Slurm instead of the trace (issue 11, docs/
# slurm.md): `box.sh slurm-up` (slurmctld on h0, a slurmd on each of h1..h8); `elastic feed slurm`
# holds every idle node with a preemptible holder job and writes the held nodes into the hostfile;
# elasticd runs its processes inside the holders (`elastic up --slurm-steps`); meanwhile a window
# of a real job log's main-queue jobs (scripts/main_queue.py: the CTC SP2 log, day 10, 12x, every
# job: 11 jobs of 1-4 nodes, offered load 0.61) arrives
# in Slurm's main partition; the feed gives holders back as soon as a main job is pending
# (--vacate-for main), or Slurm preempts them, and the jobs shrink off those nodes on notice. The
# summary adds the main queue's side: jobs started, their waits, the idle node-seconds the elastic
# jobs filled, and how many preempted holders the runtime released within their wait.
#
# Knobs (environment; a relative path is taken from where the demo was started): ELASTIC_BUILD_DIR
# (default build/default, the "default" preset), DEMO_STATE (state dir, new, not under /tmp or
# /dev/shm, which each host of the box has of its own; default out/demo/run-<time>), DEMO_NODES (8), DEMO_TRACE_START (trace offset in s; 51743 = 14 h 22 min
# in, where the 8 busiest nodes churn between 2 and 8 idle),
# DEMO_TRACE_WINDOW (3700 trace s), DEMO_SPEED (25 trace s per wall s, so the window lasts about
# 150 s; the pool stays as the trace left it afterwards), DEMO_TIMEOUT (480 s for the jobs),
# DEMO_REFRESH (5 s), DEMO_ELASTICD_ARGS (more elasticd options, split at spaces, e.g.
# "--hole-loss --horizon-s 60"); with --slurm: DEMO_MAIN_LOG (SWF), DEMO_MAIN_START (trace s, 864000 = day
# 10), DEMO_MAIN_SPEED (12), DEMO_MAIN_MINUTES (3: how long main jobs arrive; the summary waits
# for the window's end). DEMO_MAIN_SPEED=150 once brought a 6-node main job that preempted 6
# holders while jobs were starting, and elasticd died with PRRTE's "lost communication with a
# remote daemon"; patches 0012-0014 fix both ways a daemon is lost during a spawn, each tested by
# an e2e case, and the window re-run on 2026-11-28 ended with exit 0 (1 run, docs/slurm.md).
set -euo pipefail
CALLER=$PWD
# A path a knob gives, relative to where the demo was started (it runs from the repository root).
from_caller() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$CALLER/$1" ;; esac; }
cd "$(dirname "$0")/.."
SLURM_MODE=0
case "${1:-}" in
  --slurm) SLURM_MODE=1 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "demo.sh: unknown argument '$1' (scripts/demo.sh --help)" >&2; exit 2 ;;
esac
ROOT=$PWD
say() { printf '[demo] %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

NODES=${DEMO_NODES:-8}
TRACE=$ROOT/../shared/data/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz
TRACE_START=${DEMO_TRACE_START:-51743}
TRACE_WINDOW=${DEMO_TRACE_WINDOW:-3700}
SPEED=${DEMO_SPEED:-25}
TIMEOUT=${DEMO_TIMEOUT:-480}
REFRESH=${DEMO_REFRESH:-5}
JOBS=(fmnist-small fmnist-base fmnist-wide)
MAIN_LOG=$(from_caller "${DEMO_MAIN_LOG:-$ROOT/../shared/data/swf/CTC-SP2-1996-3.1-cln.swf.gz}")
MAIN_START=${DEMO_MAIN_START:-864000}
MAIN_SPEED=${DEMO_MAIN_SPEED:-12}
MAIN_MINUTES=${DEMO_MAIN_MINUTES:-3}
T_START=$SECONDS

# ---- 1. dependencies and build -----------------------------------------------------------------
say "installing dependencies (scripts/install-deps.sh; cached after the first run)"
deps_env=$(scripts/install-deps.sh | tail -n 1) || die "scripts/install-deps.sh failed (its messages are above)"
eval "$deps_env"
export MPI_HOME
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
command -v python3 > /dev/null || die "python3 is needed for the summary (apt-get install python3)"

BUILD=$(from_caller "${ELASTIC_BUILD_DIR:-$ROOT/build/default}")
mkdir -p "$ROOT/out/demo"
BUILD_LOG=$ROOT/out/demo/build.log
say "configuring (log: $BUILD_LOG)"
if [ -z "${ELASTIC_BUILD_DIR:-}" ]; then
  cmake --preset default -DMPI_HOME="$MPI_HOME" > "$BUILD_LOG" 2>&1 ||
    { tail -30 "$BUILD_LOG" >&2; die "configure failed"; }
else
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_HOME="$MPI_HOME" \
    > "$BUILD_LOG" 2>&1 || { tail -30 "$BUILD_LOG" >&2; die "configure failed"; }
fi
# Only what the demo runs (the whole project with its tests is scripts/test.sh's business).
build() {
  cmake --build "$BUILD" --target "$@" -j "$(nproc)" >> "$BUILD_LOG" 2>&1 &
  local pid=$! last=
  while kill -0 $pid 2> /dev/null; do
    sleep 10
    last=$(grep -oE '^\[[0-9]+/[0-9]+\]' "$BUILD_LOG" | tail -n 1 || true)
    kill -0 $pid 2> /dev/null && say "building $* ${last:-...}"
  done
  wait $pid
}
say "building elastic (with elastic-holder, elastic-slurm-agent), elasticd, fashion_mnist, elastic-alloc, elastic-replay"
build elastic elastic-holder elastic-slurm-agent fashion_mnist elastic-alloc elastic-replay ||
  { grep -B2 -A12 -m1 'FAILED:' "$BUILD_LOG" >&2 || tail -30 "$BUILD_LOG" >&2; die "build failed"; }
ELASTIC=$BUILD/runtime/control/elastic
TRAINER=$BUILD/examples/02_fashion_mnist/fashion_mnist
ELASTICD=$BUILD/runtime/daemon/elasticd
RUNTIME_WHY=
if ! build elasticd; then
  RUNTIME_WHY="elasticd did not build (see $BUILD_LOG)"
fi
say "build done ($((SECONDS - T_START)) s so far)"

# ---- fallback: the allocator on real traces, announced as such ----------------------------------
fallback() {
  say "=================================================================================="
  say "THE RUNTIME DEMO IS UNAVAILABLE: $1"
  say "Running the fallback instead: the allocator on real data (no MPI, no training)."
  say "=================================================================================="
  local data=$ROOT/../shared/data
  say "elastic-alloc: one allocation for the ImageNet workload (its first jobs) over 128 nodes"
  "$BUILD/allocator/elastic-alloc" --workload "$data/workloads/ImageNet-imgps-jobs-1001J.csv.gz" \
    --nodes 128 || die "elastic-alloc failed"
  say "elastic-replay: the Summit idle-node slice with the 10-job workload, MILP vs equal share"
  "$BUILD/allocator/replay/elastic-replay" --compare milp,equal-share --trace "$TRACE" \
    --start "+$TRACE_START" --end "+$((TRACE_START + 6 * 3600))" \
    --workload "$data/workloads/hps-shufflenet-jobs-10J.csv.gz" --out "$ROOT/out/demo/replay" \
    || die "elastic-replay failed"
  say "fallback done; the runtime demo did not run: $1"
  exit 2
}
[ -n "$RUNTIME_WHY" ] && fallback "$RUNTIME_WHY"

# ---- 2. the runtime on the cluster in a box -----------------------------------------------------
# What can be checked is checked before the box goes up, and the cleanup is armed before it: a
# failure or Ctrl-C after it takes the box (and Slurm) down again.
if [ "$SLURM_MODE" = 1 ]; then
  [ -r "$MAIN_LOG" ] || die "cannot read the main queue's job log DEMO_MAIN_LOG=$MAIN_LOG"
fi
S=$(from_caller "${DEMO_STATE:-$ROOT/out/demo/run-$(date +%Y%m%d-%H%M%S)}")
mkdir -p "$(dirname "$S")"
mkdir -m 700 "$S" || die "cannot create the state dir $S (it must not exist yet)"
mkdir -p "$S/demo"
WORK=$S/demo/work
mkdir -p "$WORK"
ln -sf "$TRAINER" "$WORK/fashion_mnist"
BOX=$ROOT/scripts/box.sh
BOX_WHY=
MODE=labels
# elasticd holds a lock on daemon.pid while it runs; the pid in it tells whether it still does.
daemon_pid() { cat "$S/daemon.pid" 2> /dev/null || true; }
daemon_alive() { local p; p=$(daemon_pid); [ -n "$p" ] && kill -0 "$p" 2> /dev/null; }
# Starts elasticd and waits (30 s at most) until a new one holds the state dir.
start_daemon() {
  local before
  before=$(daemon_pid)
  "${UP_CMD[@]}" >> "$S/demo/daemon.log" 2>&1 &
  UP_PID=$!
  for _ in $(seq 1 60); do
    [ "$(daemon_pid)" != "$before" ] && daemon_alive && [ -s "$S/status.json" ] && return 0
    kill -0 "$UP_PID" 2> /dev/null || return 1
    sleep 0.5
  done
  return 1
}
# mpirun of a dead elasticd and the job ranks it left behind (they carry the state dir in their
# environment); all started by this script.
stop_daemon() {
  if [ -n "$UP_PID" ] && kill -0 "$UP_PID" 2> /dev/null; then
    kill -TERM "$UP_PID" 2> /dev/null || true
    for _ in $(seq 1 30); do kill -0 "$UP_PID" 2> /dev/null || break; sleep 0.5; done
    kill -KILL "$UP_PID" 2> /dev/null || true
  fi
  UP_PID=
  local p
  for p in /proc/[0-9]*; do
    grep -qz "^ELASTIC_STDOUT=$S/" "$p/environ" 2> /dev/null && { kill -KILL "${p#/proc/}" 2> /dev/null || true; }
  done
  if [ "$MODE" = box ]; then "$BOX" kill-all; fi
  return 0
}
UP_PID= FEED_PID= MAIN_PID=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # set -e holds here too: a kill of a process that already ended must not end the cleanup.
  [ -z "$MAIN_PID" ] || kill "$MAIN_PID" 2> /dev/null || true
  [ -z "$FEED_PID" ] || kill "$FEED_PID" 2> /dev/null || true
  [ -n "$UP_PID" ] && say "stopping elasticd"
  stop_daemon
  [ "$MODE" != box ] || "$BOX" down
  say "state dir kept for inspection: $S (events.jsonl, journal.jsonl, jobs/*/stdout, demo/)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if BOX_WHY=$("$BOX" check 2>&1) && { MODE=box; "$BOX" up "$NODES"; }; then
  :
else
  # A box that came up in part goes down again.
  [ "$MODE" != box ] || "$BOX" down > /dev/null 2>&1 || true
  MODE=labels
  say "=================================================================================="
  say "NO CLUSTER IN A BOX HERE: ${BOX_WHY:-box.sh up failed}"
  say "Falling back to LABEL MODE: every rank runs on this host, node names are only labels."
  say "=================================================================================="
fi
if [ "$MODE" = box ]; then
  # elasticd runs on h0, whose /tmp and /dev/shm are its own: it would not see the state dir there.
  case "$(realpath -m "$S")" in
    /tmp/* | /dev/shm/*) die "DEMO_STATE=$S: every host of the box has its own /tmp and /dev/shm; put the state dir elsewhere (default: out/demo/)" ;;
  esac
fi
if [ "$SLURM_MODE" = 1 ]; then
  [ "$MODE" = box ] || die "--slurm needs the cluster in a box (${BOX_WHY:-box.sh up failed}); run without it"
  say "starting Slurm on the box (box.sh slurm-up: slurmctld on h0, slurmd on h1..h$NODES)"
  "$BOX" slurm-up || die "box.sh slurm-up failed (Slurm's logs: see its message above)"
fi

# elasticd through `elastic up`. On the box: mpirun on h0 knows only h0, and elasticd spawns each
# job's ranks onto the granted hosts (PRRTE starts its daemon on a host at its first spawn there,
# through box.sh's launch agent); the feed below writes h1..hN into the hostfile. In label mode:
# `elastic up --fake-nodes`, which writes node01..nodeNN (labels) into the hostfile. Either way the
# hostfile is kept as the feed left it when the daemon is restarted.
HOSTS=$S/hostfile
ELASTICD_RUN=$ELASTICD
if [ -n "${DEMO_DAEMON_WRAP:-}" ]; then  # e.g. "gdb -batch -ex run -ex bt --args": a debugger
  ELASTICD_RUN=$S/demo/elasticd-wrapped
  printf '#!/bin/sh\nexec %s %q "$@"\n' "$DEMO_DAEMON_WRAP" "$ELASTICD" > "$ELASTICD_RUN"
  chmod +x "$ELASTICD_RUN"
fi
DAEMON_ARGS=(--daemon-arg=--ranks-per-node --daemon-arg 1 --daemon-arg=--grace-s --daemon-arg 10)
for a in ${DEMO_ELASTICD_ARGS:-}; do DAEMON_ARGS+=("--daemon-arg=$a"); done
if [ "$SLURM_MODE" = 1 ]; then
  SLURM_ENV=(/usr/bin/env SLURM_CONF="$("$BOX" slurm-conf)")
  # Our processes on a node run as steps of its holder job (docs/slurm.md): --slurm-steps brings
  # its own launch agent, so the box gives only its network settings.
  : > "$HOSTS"
  mapfile -t box_args < <("$BOX" mpirun-args --no-agent)
  UP_CMD=("$BOX" exec h0 "${SLURM_ENV[@]}" "$ELASTIC" --state-dir "$S" up --hostfile "$HOSTS"
          --slurm-steps --elasticd "$ELASTICD_RUN")
  for a in "${box_args[@]}"; do UP_CMD+=("--mpi-arg=$a"); done
  # A preempted holder waits a few seconds for its node's release: react to the notice at once.
  UP_CMD+=("${DAEMON_ARGS[@]}" --daemon-arg=--debounce-s --daemon-arg 0.1)
  WHERE="the box's Slurm nodes h1..h$NODES, inside their holder jobs (elasticd on h0)"
elif [ "$MODE" = box ]; then
  : > "$HOSTS"
  mapfile -t box_args < <("$BOX" mpirun-args)
  UP_CMD=("$BOX" exec h0 "$ELASTIC" --state-dir "$S" up --hostfile "$HOSTS" --elasticd "$ELASTICD_RUN")
  for a in "${box_args[@]}"; do UP_CMD+=("--mpi-arg=$a"); done
  UP_CMD+=("${DAEMON_ARGS[@]}")
  FEED_NODES=(--hosts "$(seq -s, -f 'h%g' 1 "$NODES")")
  WHERE="the box's hosts h1..h$NODES (elasticd on h0)"
else
  UP_CMD=("$ELASTIC" --state-dir "$S" up --fake-nodes "$NODES" --slots 1 --hostfile "$HOSTS"
          --elasticd "$ELASTICD_RUN" "${DAEMON_ARGS[@]}")
  FEED_NODES=(--nodes "$NODES")
  WHERE="$NODES fake nodes (LABEL MODE)"
fi
say "starting elasticd on $WHERE (log: $S/demo/daemon.log):"
say "  ${UP_CMD[*]}"
if ! start_daemon; then
  tail -15 "$S/demo/daemon.log" >&2
  stop_daemon
  fallback "elasticd did not come up within 30 s (log above: $S/demo/daemon.log)"
fi
say "elasticd is up (pid $(daemon_pid))"

if [ "$SLURM_MODE" = 1 ]; then
  say "elastic feed slurm on h0: a holder job on every idle node (log: $S/demo/feed.log)"
  "$BOX" exec h0 "${SLURM_ENV[@]}" "$ELASTIC" --state-dir "$S" feed slurm --hostfile "$HOSTS" \
    --vacate-for main > "$S/demo/feed.log" 2>&1 &
  FEED_PID=$!
  for _ in $(seq 1 120); do [ "$(wc -l < "$HOSTS")" -ge "$NODES" ] && break; sleep 0.25; done
  say "holders hold $(wc -l < "$HOSTS") of $NODES nodes"
  # granted: what the feed last wrote
  granted() { grep 'held node' "$S/demo/feed.log" | tail -n 1 | sed 's/^elastic feed slurm: //; s/ ->.*//'; }
else
  say "replaying the Summit trace: $TRACE_WINDOW trace s from +$TRACE_START s at ${SPEED}x" \
    "-> $(awk "BEGIN{print $TRACE_WINDOW/$SPEED}") wall s (log: $S/demo/feed.log)"
  "$ELASTIC" feed trace --trace "$TRACE" "${FEED_NODES[@]}" --start "$TRACE_START" \
    --duration "$TRACE_WINDOW" --speed "$SPEED" --slots 1 --hostfile "$HOSTS" \
    > "$S/demo/feed.log" 2>&1 &
  FEED_PID=$!
  for _ in $(seq 1 40); do grep -q '^\[' "$S/demo/feed.log" 2> /dev/null && break; sleep 0.25; done
  grep -q '^\[' "$S/demo/feed.log" || { cat "$S/demo/feed.log" >&2; die "elastic feed trace did not start"; }
  sed -n '1,/^\[/p' "$S/demo/feed.log" | sed 's/^/    /' >&2
  granted() { grep '^\[' "$S/demo/feed.log" | tail -n 1 | sed 's/^\[ *\([0-9.]*\)s\] //'; }
fi

say "submitting ${JOBS[*]} (specs: scripts/demo/)"
for j in "${JOBS[@]}"; do
  (cd "$WORK" && "$ELASTIC" --state-dir "$S" submit "$ROOT/scripts/demo/$j.toml" > /dev/null) ||
    die "submit $j failed"
done
if [ "$SLURM_MODE" = 1 ]; then
  say "main queue: the jobs of $(basename "$MAIN_LOG") from trace s $MAIN_START at ${MAIN_SPEED}x" \
    "arrive for $MAIN_MINUTES min in partition main (log: $S/demo/main_queue.log)"
  python3 "$ROOT/scripts/main_queue.py" replay --log "$MAIN_LOG" --start "$MAIN_START" \
    --speed "$MAIN_SPEED" --minutes "$MAIN_MINUTES" --nodes "$NODES" --out "$S/demo/main_queue" \
    --label demo --status "$S/status.json" --all-jobs -- "$BOX" slurm \
    > "$S/demo/main_queue.log" 2>&1 &
  MAIN_PID=$!
fi

# ---- 3. watch ----------------------------------------------------------------------------------
# status.json once a second, one line each, for inspection after the run.
POLLS=$S/demo/polls.jsonl
: > "$POLLS"
T0=$SECONDS
DAEMON_RESTARTS=0
done_jobs() { grep -oE '"state": "(finished|failed|cancelled)"' "$S/status.json" 2> /dev/null | wc -l; }
next_show=$T0
while :; do
  { tr -d '\n' < "$S/status.json"; echo; } >> "$POLLS" 2> /dev/null || true
  if ((SECONDS >= next_show)); then
    next_show=$((SECONDS + REFRESH))
    printf '\n--- t+%ds  granted: %s\n' $((SECONDS - T0)) "$(granted)"
    if [ "$SLURM_MODE" = 1 ]; then
      printf 'main queue: %s\n' "$("$BOX" slurm squeue -h -p main -o '%T %D' 2> /dev/null |
        awk '$1 == "RUNNING" {r++; n += $2} $1 == "PENDING" {p++}
             END {printf "%d job(s) running on %d node(s), %d pending", r, n, p}')"
    fi
    "$ELASTIC" --state-dir "$S" status 2>&1 || true
  fi
  [ "$(done_jobs)" -ge ${#JOBS[@]} ] && break
  if ! daemon_alive; then
    # Not hidden: announced, counted in the summary, and the reason to look at the log. The
    # journal brings every job back (running ones restart from their checkpoints).
    say "!!! elasticd (pid $(daemon_pid)) died unexpectedly; last lines of $S/demo/daemon.log:"
    tail -5 "$S/demo/daemon.log" | sed 's/^/    /' >&2
    ((DAEMON_RESTARTS < 2)) || die "elasticd died $((DAEMON_RESTARTS + 1)) times; giving up"
    DAEMON_RESTARTS=$((DAEMON_RESTARTS + 1))
    stop_daemon
    start_daemon || die "elasticd did not come back"
    say "!!! elasticd restarted (pid $(daemon_pid)); its journal brought the jobs back"
  fi
  if ((SECONDS - T0 > TIMEOUT)); then
    "$ELASTIC" --state-dir "$S" status >&2 || true
    die "the jobs did not finish within $TIMEOUT s (DEMO_TIMEOUT); see $S"
  fi
  sleep 1
done
{ tr -d '\n' < "$S/status.json"; echo; } >> "$POLLS"
printf '\n--- t+%ds  all jobs ended\n' $((SECONDS - T0))
"$ELASTIC" --state-dir "$S" status

# ---- 4. summary --------------------------------------------------------------------------------
# elasticd marks a job finished when its ranks report done; they print the final accuracy and exit
# after that. Wait for them (30 s at most) before reading their output.
ranks_left() {
  local p
  for p in /proc/[0-9]*; do grep -qz "^ELASTIC_STDOUT=$S/" "$p/environ" 2> /dev/null && return 0; done
  return 1
}
for _ in $(seq 1 60); do ranks_left || break; sleep 0.5; done
rc=0
GRANTED_BY=("the trace")
[ "$SLURM_MODE" = 0 ] || GRANTED_BY=("the holders")
python3 "$ROOT/scripts/demo/summary.py" --granted-by "${GRANTED_BY[@]}" "$S" "$NODES" "${JOBS[@]}" || rc=$?
# The same run as a picture: nodes per job over time, the nodes granted, nodes lost.
printf 'timeline: '
"$ELASTIC" --state-dir "$S" timeline || say "elastic timeline failed (the summary above stands)"
if [ "$SLURM_MODE" = 1 ]; then
  say "waiting for the main queue's window to end (at most $MAIN_MINUTES min after the submissions)"
  wait "$MAIN_PID" || { rc=1; say "main_queue.py failed (see $S/demo/main_queue.log)"; }
  MAIN_PID=
  printf '\n=== the main queue (Slurm partition main)\n'
  tail -n 1 "$S/demo/main_queue.log"
  python3 "$ROOT/scripts/main_queue.py" holders "$S/slurm-holders" || true
fi
say "demo wall time: $((SECONDS - T_START)) s (jobs: $((SECONDS - T0)) s)"
[ $rc -eq 0 ] || say "a job did not finish (see above and $S/jobs/*/stderr)"
exit $rc
