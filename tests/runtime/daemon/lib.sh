# Shared helpers of the elasticd end-to-end tests (sourced by e2e.sh and fmnist.sh). A test gets a
# fresh dir, starts a real elasticd under mpirun on the head host h0 of a cluster in a box
# (scripts/box.sh: hosts h1..h8 are network namespaces with their own hostname, /tmp and PRRTE
# daemon), drives the hostfile and the queue, and asserts on events.jsonl, status.json, the journal
# and each job's output, including that every rank ran on its node (gethostname()).
#   needs: MPIRUN ELASTICD ELASTIC set by the caller (and TRAINER for submit).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BOX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/box.sh
BOX_HOSTS=${BOX_HOSTS:-8}
"$BOX" check || { echo "SKIP: no cluster in a box on this machine (see above)"; exit 77; }
"$BOX" up "$BOX_HOSTS" || exit 1
mapfile -t BOX_MPIRUN_ARGS < <("$BOX" mpirun-args)
# Outside /tmp: every host sees it, as a cluster's shared file system (each host's /tmp is its own).
T=$(mktemp -d /var/tmp/elasticd-e2e.XXXXXX)
chmod 700 "$T"
S=$T/state
H=$T/hosts
DAEMON_PID=
cleanup() {
  [ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && sleep 2 && kill -KILL "$DAEMON_PID" 2>/dev/null
  kill_all_hosts
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon log"; tail -40 "$T/daemon.log" 2>/dev/null
  echo "--- events"; tail -40 "$S/events.jsonl" 2>/dev/null | cut -c1-400
  for f in "$S"/jobs/*/stderr; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  for f in "$S"/jobs/*/stdout; do [ -s "$f" ] && { echo "--- $f (last lines)"; tail -3 "$f"; }; done
  # A hang is a bug report: where elasticd's threads are, if it still runs, and where the job's
  # ranks are (every host's), without the threads that only wait in an event loop.
  command -v gdb >/dev/null || exit 1
  local pid p
  pid=$(sed -n 's/^elasticd: running (pid \([0-9]*\)).*/\1/p' "$T/daemon.log" 2>/dev/null | head -1)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    echo "--- elasticd $pid threads"
    threads "$pid"
  fi
  for p in /proc/[0-9]*; do
    is_case_rank "${p#/proc/}" || continue
    echo "--- rank ${p#/proc/} (node $(tr '\0' '\n' 2>/dev/null < "$p/environ" |
      sed -n 's/^ELASTIC_NODE=//p')) threads"
    threads "${p#/proc/}" | awk '/^Thread/ { if (t != "" && !idle) printf "%s", t; t = $0 "\n"; idle = 0; next }
      /^#/ { t = t $0 "\n"; if (/event_base_loop|progress_engine/) idle = 1 }
      END { if (t != "" && !idle) printf "%s", t }' | cut -c1-240
  done
  exit 1
}
# Whether process PID is a rank of this case's jobs (its stdout is under $S).
is_case_rank() { grep -qz "^ELASTIC_STDOUT=$S/" "/proc/$1/environ" 2>/dev/null; }
# Every thread's backtrace of process PID.
threads() { timeout 30 gdb -p "$1" -batch -ex 'thread apply all bt 12' 2>/dev/null | grep -E '^(#|Thread)'; }
# hosts N [FIRST]: hFIRST..h(FIRST+N-1) (one slot each), replaced atomically.
hosts_range() {
  local n=$1 first=${2:-1} i
  : > "$H.new"
  for ((i = first; i < first + n; i++)); do printf 'h%d slots=1\n' "$i" >> "$H.new"; done
  mv "$H.new" "$H"
}
hosts_list() {  # hosts_list h1 h3 ...
  : > "$H.new"
  for n in "$@"; do echo "$n slots=1" >> "$H.new"; done
  mv "$H.new" "$H"
}
# mpirun knows only h0: every other host joins the DVM when elasticd first spawns onto it.
daemon_cmd() {
  "$BOX" exec h0 "$MPIRUN" --with-ft ulfm "${BOX_MPIRUN_ARGS[@]}" -n 1 --bind-to none "$ELASTICD" \
    --hostfile "$H" --state-dir "$S" "$@"
}
start_daemon() {
  rm -f "$S/status.json"
  daemon_cmd --ranks-per-node 1 --grace-s "${GRACE:-20}" "$@" >> "$T/daemon.log" 2>&1 &
  DAEMON_PID=$!
  wait_for 30 "[ -s $S/status.json ]" || fail "elasticd did not start"
}
# submit ID STEPS MIN MAX [ENV=VAL ...]
submit() {
  local id=$1 steps=$2 min=$3 max=$4 kv
  shift 4
  {
    echo "id = \"$id\""
    echo "command = \"$TRAINER\""
    echo "args = [\"$steps\"]"
    echo "min_nodes = $min"
    echo "max_nodes = $max"
    echo "[env]"
    echo "ELASTIC_TEST_STEP_US = \"${STEP_US:-20000}\""
    for kv in "$@"; do echo "${kv%%=*} = \"${kv#*=}\""; done
    [ -z "${SUBMIT_TOML:-}" ] || echo "$SUBMIT_TOML"  # more of the spec, e.g. a [scaling] table
  } > "$T/$id.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/$id.toml" > /dev/null || fail "submit $id"
}
# A [scaling] table for submit (SUBMIT_TOML=$(linear_scaling MAX)): throughput linear up to MAX
# nodes and free rescales, so that every plan gives the job the whole pool. For cases that assert
# what the runtime does with nodes, not the planner's judgement: learned from this box, where the
# hosts share 2 cores, 3 ranks can measure as fast as 4 and the plan rightly leaves a node idle.
linear_scaling() {
  printf '[scaling]\nnodes = [1, %d]\nsamples_per_s = [50.0, %d.0]\ngrow_stall_s = 0.0\nshrink_stall_s = 0.0' \
    "$1" $((50 * $1))
}
# SIGKILL elasticd (not mpirun), clear what the old ranks left behind and start a new elasticd on
# the same state dir.
crash_and_restart_daemon() {
  # elasticd itself, by the pid it holds its lock with (a pgrep for "elasticd" also matches the
  # box's wrapper and mpirun, whose command lines name it: killing those is another fault).
  local dpid
  dpid=$(cat "$S/daemon.pid" 2> /dev/null)
  [ -n "$dpid" ] && kill -0 "$dpid" 2> /dev/null || fail "no elasticd to kill (daemon.pid: '$dpid')"
  echo "SIGKILL elasticd $dpid ($(ps -o comm= -p "$dpid"))"
  kill -KILL "$dpid"
  wait_for 20 "! kill -0 $DAEMON_PID 2>/dev/null" || kill -TERM "$DAEMON_PID"
  sleep 1
  kill_all_hosts  # whatever mpirun left behind of the old ranks
  start_daemon
}
out() { cat "$S"/jobs/"$1"/stdout 2>/dev/null; }  # out ID: the job's standard output
# no_wrong_allreduce ID...: fails the case if a rank of a job found a wrong sum (test_trainer says
# so on its standard error, then exits).
no_wrong_allreduce() {
  local j
  for j in "$@"; do
    grep -q WRONG "$S/jobs/$j/stderr" 2>/dev/null && fail "wrong allreduce in $j: $(grep -m1 WRONG "$S/jobs/$j/stderr")"
  done
  return 0
}
# wait_for SECONDS 'shell condition'
wait_for() {
  local end=$((SECONDS + $1))
  while ((SECONDS < end)); do
    eval "$2" && return 0
    sleep 0.2
  done
  return 1
}
job_state() {  # job_state ID -> state from status.json
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(next((j['state'] for j in d['jobs'] if j['id']=='$1'), 'none'))" 2>/dev/null
}
job_ranks() {
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(next((j['ranks'] for j in d['jobs'] if j['id']=='$1'), -1))" 2>/dev/null
}
job_nodes() {
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(' '.join(next((j['nodes'] for j in d['jobs'] if j['id']=='$1'), [])))" 2>/dev/null
}
job_step_s() {  # job_step_s ID -> seconds per training step lately, from status.json (0: not known)
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(next((j.get('step_s', 0) for j in d['jobs'] if j['id']=='$1'), 0))" 2>/dev/null
}
node_state() {  # node_state NAME -> free/busy/leaving/lost/none from status.json
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(next((n['state'] for n in d['nodes'] if n['name']=='$1'), 'none'))" 2>/dev/null
}
count_events() {  # count_events EVENT [grep pattern]
  grep "\"event\":\"$1\"" "$S/events.jsonl" 2>/dev/null | grep -c -- "${2:-}"
}
# The pids of this test's job ranks running on host $1 (processes in its network namespace).
rank_pids() {
  local p
  for p in $("$BOX" pids "$1"); do is_case_rank "$p" && echo "$p"; done
}
# A node loss: every process of the host dies, its PRRTE daemon included.
kill_node() { echo "killed $1: $("$BOX" pids "$1" | tr '\n' ' ')"; "$BOX" kill "$1"; }
kill_all_hosts() { "$BOX" kill-all; }
# Every rank of every job ran on the host elasticd placed it on. elasticd's view: the hosts the
# ranks reported (job_started/job_grown "hosts") and no "rank_misplaced" event; the ranks' own view
# where the program prints it (test_trainer: "joined ... node N host H" with N = H).
ranks_on_their_hosts() {
  local f bad=0 n=0 seen
  for f in "$S"/jobs/*/stdout; do
    [ -f "$f" ] || continue
    n=$((n + $(grep -c '^joined ' "$f")))
    bad=$((bad + $(awk '/^joined / && $9 != $11' "$f" | wc -l)))
  done
  seen=$(python3 -c "
import json, sys
hosts = set()
for line in open('$S/events.jsonl'):
    e = json.loads(line)
    if e['event'] in ('job_started', 'job_grown'): hosts.update(e.get('hosts', []))
print(' '.join(sorted(hosts)))" 2>/dev/null)
  echo "ranks checked on their hosts: $n joined lines, $bad misplaced;" \
    "elasticd saw ranks on: ${seen:-nothing}; rank_misplaced events: $(count_events rank_misplaced)"
  [ -n "$seen" ] && [ "$bad" = 0 ] && [ "$(count_events rank_misplaced)" = 0 ] &&
    ! echo " $seen " | grep -q ' h0 '
}
# No MPI error text anywhere in the daemon log or job output.
no_mpi_errors() {
  ! grep -qiE "MPI_ERR|error|abort|unable to reach|noticed that process" "$T/daemon.log" "$S"/jobs/*/stderr 2>/dev/null
}
