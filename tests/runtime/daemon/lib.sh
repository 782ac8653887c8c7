# Shared helpers of the elasticd end-to-end tests (sourced by e2e.sh). A test gets a fresh dir,
# starts a real elasticd under mpirun in fake-node mode, drives the hostfile and the queue, and
# asserts on events.jsonl, status.json, the journal and each job's output.
#   needs: MPIRUN ELASTICD ELASTIC TRAINER set by the caller.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d /tmp/elasticd-e2e.XXXXXX)
chmod 700 "$T"
S=$T/state
H=$T/hosts
DAEMON_PID=
cleanup() {
  [ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && sleep 2 && kill -KILL "$DAEMON_PID" 2>/dev/null
  kill_label_all
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon log"; tail -40 "$T/daemon.log" 2>/dev/null
  echo "--- events"; tail -40 "$S/events.jsonl" 2>/dev/null | cut -c1-400
  for f in "$S"/jobs/*/stderr; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}
# hosts N [FIRST]: nodeFIRST..node(FIRST+N-1) (one slot each), replaced atomically.
hosts_range() {
  local n=$1 first=${2:-1} i
  : > "$H.new"
  for ((i = first; i < first + n; i++)); do printf 'node%02d slots=1\n' "$i" >> "$H.new"; done
  mv "$H.new" "$H"
}
hosts_list() {  # hosts_list node01 node03 ...
  : > "$H.new"
  for n in "$@"; do echo "$n slots=1" >> "$H.new"; done
  mv "$H.new" "$H"
}
start_daemon() {
  rm -f "$S/status.json"
  "$MPIRUN" --with-ft ulfm -n 1 --bind-to none "$ELASTICD" --hostfile "$H" --state-dir "$S" \
    --fake-nodes --ranks-per-node 1 --grace-s "${GRACE:-20}" "$@" >> "$T/daemon.log" 2>&1 &
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
  } > "$T/$id.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/$id.toml" > /dev/null || fail "submit $id"
}
# SIGKILL elasticd (not mpirun), clear what the old ranks left behind and start a new elasticd on
# the same state dir.
crash_and_restart_daemon() {
  local dpid
  dpid=$(pgrep -P "$DAEMON_PID" -f elasticd || pgrep -f "$ELASTICD --hostfile $H")
  echo "SIGKILL elasticd $dpid"
  kill -KILL $dpid
  wait_for 20 "! kill -0 $DAEMON_PID 2>/dev/null" || kill -TERM "$DAEMON_PID"
  sleep 1
  kill_label_all  # whatever mpirun left behind of the old ranks
  start_daemon
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
node_state() {  # node_state NAME -> free/busy/leaving/lost/none from status.json
  python3 -c "import json,sys; d=json.load(open('$S/status.json')); print(next((n['state'] for n in d['nodes'] if n['name']=='$1'), 'none'))" 2>/dev/null
}
count_events() {  # count_events EVENT [grep pattern]
  grep "\"event\":\"$1\"" "$S/events.jsonl" 2>/dev/null | grep -c -- "${2:-}"
}
# The pids of the job ranks running on a fake node (found by the label in their environment).
label_pids() {
  local p
  for p in /proc/[0-9]*; do
    grep -qzx "ELASTIC_FAKE_NODE=$1" "$p/environ" 2>/dev/null || continue
    grep -qz "^ELASTIC_STDOUT=$S/" "$p/environ" 2>/dev/null || continue
    echo "${p#/proc/}"
  done
}
kill_node() { local pids; pids=$(label_pids "$1"); [ -n "$pids" ] && kill -KILL $pids; echo "killed $1: $pids"; }
kill_label_all() {
  local p
  for p in /proc/[0-9]*; do
    grep -qz "^ELASTIC_STDOUT=$S/" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  return 0
}
# No MPI error text anywhere in the daemon log or job output.
no_mpi_errors() {
  ! grep -qiE "MPI_ERR|error|abort|unable to reach|noticed that process" "$T/daemon.log" "$S"/jobs/*/stderr 2>/dev/null
}
