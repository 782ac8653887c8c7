#!/usr/bin/env bash
# CLI tests for `elastic`: cli_test.sh CASE ELASTIC_BINARY DATA_DIR [CASE ARGS...]
# Each case checks exit codes (0 ok, 2 bad input, 1 runtime error) and what the user sees.
set -uo pipefail
case_name=$1 elastic=$2 data=$3
shift 3
tmp=$(mktemp -d)
export ELASTIC_STATE_DIR=$tmp/state
unset MPI_HOME
. "$(dirname "$0")/../../cli/expect.sh"

write_job() {  # write_job FILE ID [extra lines]
  local f=$1 id=$2; shift 2
  { echo "id = \"$id\""; echo 'command = "/bin/true"'; echo 'min_nodes = 1'; echo 'max_nodes = 3'
    echo 'target_samples = 5000'; for l in "$@"; do echo "$l"; done; } >"$f"
}

# elasticd through `elastic up` (cases up_elasticd, up_requeue; need $mpirun and $elasticd).
up_pid=
start_up() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  rm -f "$tmp/state/status.json"
  "$elastic" up --mpirun "$mpirun" --elasticd "$elasticd" "$@" \
    --daemon-arg=--ranks-per-node --daemon-arg 1 >>"$tmp/up.log" 2>&1 &
  up_pid=$!
  wait_for 60 '[ -s "$tmp/state/status.json" ]' || { fail "elasticd did not start: $(tail -5 "$tmp/up.log")"; exit 1; }
}
# Stops mpirun (elastic execs it) and whatever job ranks it left (they carry the state dir).
stop_up() {
  [ -n "$up_pid" ] || return 0
  kill -TERM "$up_pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$up_pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$up_pid" 2>/dev/null
  local p
  for p in /proc/[0-9]*; do
    grep -qz "^ELASTIC_STDOUT=$tmp/state/" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  up_pid=
  return 0
}
trap 'stop_up; chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
wait_for() { local end=$((SECONDS + $1)); while ((SECONDS < end)); do eval "$2" && return 0; sleep 0.2; done; return 1; }
journal_events() {  # the job's journal events, in order, less its rescales (a job never measured
  # starts on one node and grows once its reports say it scales)
  python3 -c 'import json,sys; print(" ".join(r["event"] for r in map(json.loads, open(sys.argv[1])) if r["job"] == sys.argv[2] and r["event"] != "rescaled"))' \
    "$tmp/state/journal.jsonl" "$1" 2>/dev/null
}
journal_started_nodes() {
  python3 -c 'import json,sys; print(" ".join(next(r["nodes"] for r in map(json.loads, open(sys.argv[1])) if r["job"] == sys.argv[2] and r["event"] == "started")))' \
    "$tmp/state/journal.jsonl" "$1" 2>/dev/null
}
job_field() {  # job_field ID FIELD: from the daemon's status.json
  python3 -c 'import json,sys; print(next(j[sys.argv[3]] for j in json.load(open(sys.argv[1]))["jobs"] if j["id"] == sys.argv[2]))' \
    "$tmp/state/status.json" "$1" "$2" 2>/dev/null
}

case $case_name in
submit_status)
  write_job "$tmp/a.toml" mnist-a
  expect_rc 0 "$elastic" submit "$tmp/a.toml"
  [ "$out" = "mnist-a" ] || fail "submit printed '$out', want the id"
  [ "$(stat -c %a "$tmp/state")" = 700 ] || fail "state dir is not 0700"
  printf 'command = "/bin/true"\nmax_nodes = 2\n' >"$tmp/noid.toml"
  expect_rc 0 "$elastic" --state-dir "$tmp/state" submit "$tmp/noid.toml"
  generated=$out
  [[ "$generated" =~ ^job-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$ ]] || fail "generated id '$generated'"
  expect_rc 0 "$elastic" status --json
  printf '%s' "$out" >"$tmp/status.json"
  # What did not reach stdout is a failure (a full disk exited 0 with nothing printed).
  for args in "status" "status --json" "nodes" "nodes --json"; do
    # shellcheck disable=SC2086  # the subcommand and its flag are two words
    "$elastic" $args >/dev/full 2>"$tmp/err"; rc=$?
    [ "$rc" = 1 ] || fail "'elastic $args >/dev/full' exited $rc, want 1"
    contains "$(cat "$tmp/err")" "elastic: cannot write to standard output"
  done
  python3 - "$generated" "$tmp/status.json" <<'PY' || fail "status --json content"
import json, sys
s = json.load(open(sys.argv[2]))
jobs = {j["id"]: j for j in s["jobs"]}
assert s["daemon_running"] is False, s
assert jobs["mnist-a"]["state"] == "queued", jobs
assert jobs["mnist-a"]["max_nodes"] == 3 and jobs["mnist-a"]["target_samples"] == 5000, jobs
assert jobs[sys.argv[1]]["state"] == "queued", jobs
PY
  expect_rc 0 "$elastic" status
  contains "$out" "JOB"
  contains "$out" "mnist-a"
  contains "$err" "no elasticd is running"
  # The same id twice is refused, naming the field.
  expect_rc 2 "$elastic" submit "$tmp/a.toml"
  contains "$err" "field 'id'"
  ;;
bad_spec)
  printf 'command = "/bin/true"\nmin_nodes = 4\nmax_nodes = 2\n' >"$tmp/minmax.toml"
  expect_rc 2 "$elastic" submit "$tmp/minmax.toml"
  contains "$err" "minmax.toml:3:"
  contains "$err" "field 'max_nodes'"
  printf 'min_nodes = 1\n' >"$tmp/nocmd.toml"
  expect_rc 2 "$elastic" submit "$tmp/nocmd.toml"
  contains "$err" "field 'command'"
  printf 'command = "/bin/true"\n\nmax_nodez = 2\n' >"$tmp/typo.toml"
  expect_rc 2 "$elastic" submit "$tmp/typo.toml"
  contains "$err" "typo.toml:3:1: field 'max_nodez': unknown key"
  expect_rc 2 "$elastic" submit "$tmp/does-not-exist.toml"
  # Nothing was queued by any of these.
  [ -z "$(ls -A "$tmp/state/queue" 2>/dev/null)" ] || fail "a bad spec reached the queue"
  ;;
missing_command)
  printf 'id = "ghost"\ncommand = "no-such-program-xyz"\n' >"$tmp/ghost.toml"
  expect_rc 0 "$elastic" submit "$tmp/ghost.toml"
  contains "$err" "warning"
  contains "$err" "field 'command'"
  contains "$err" "no-such-program-xyz"
  [ -f "$tmp/state/queue/ghost.toml" ] || fail "job not queued"
  ;;
cancel)
  write_job "$tmp/a.toml" a
  expect_rc 0 "$elastic" submit "$tmp/a.toml"
  expect_rc 0 "$elastic" cancel a
  [ -f "$tmp/state/queue/a.cancel" ] || fail "no cancel request file"
  expect_rc 2 "$elastic" cancel nosuchjob
  contains "$err" "no job 'nosuchjob'"
  expect_rc 2 "$elastic" cancel "../x"
  ;;
state_dir_perms)
  mkdir -m 0777 "$tmp/open"; chmod 0777 "$tmp/open"
  write_job "$tmp/a.toml" a
  expect_rc 2 "$elastic" --state-dir "$tmp/open" submit "$tmp/a.toml"
  contains "$err" "writable by group or others"
  contains "$err" "chmod 700"
  [ ! -e "$tmp/open/queue" ] || fail "used a world-writable state dir"
  expect_rc 2 "$elastic" --state-dir "$tmp/open" status
  ;;
feed)
  expect_rc 0 "$elastic" feed slurm --input "$data/sinfo_N_T_c.txt" --hostfile "$tmp/hosts"
  [ "$(cat "$tmp/hosts")" = "$(printf 'nid00002 slots=128\nnid00004 slots=128\nnid00009 slots=64\nnid00014 slots=128')" ] \
    || fail "slurm hostfile: $(cat "$tmp/hosts")"
  expect_rc 0 "$elastic" feed pbs --input "$data/pbsnodes_a.txt" --hostfile "$tmp/hosts" --slots 4
  [ "$(cat "$tmp/hosts")" = "$(printf 'x3001c0s13b0n0 slots=4\nx3001c0s19b1n0 slots=4')" ] \
    || fail "pbs hostfile: $(cat "$tmp/hosts")"
  cp "$tmp/hosts" "$tmp/before"
  expect_rc 2 "$elastic" feed slurm --input "$data/sinfo_malformed.txt" --hostfile "$tmp/hosts"
  contains "$err" "sinfo_malformed.txt:2:"
  cmp -s "$tmp/hosts" "$tmp/before" || fail "a bad input replaced the hostfile"
  # A folder as the input is an error, not an empty listing (it wrote an empty hostfile: every
  # node taken back).
  # It is the user's mistake: bad input, exit 2 (it was 1, a runtime error).
  mkdir -p "$tmp/a_folder"
  expect_rc 2 "$elastic" feed slurm --input "$tmp/a_folder" --hostfile "$tmp/hosts"
  contains "$err" "cannot read $tmp/a_folder: Is a directory"
  cmp -s "$tmp/hosts" "$tmp/before" || fail "a folder as the input replaced the hostfile"
  expect_rc 0 "$elastic" feed slurm --input - --hostfile "$tmp/hosts" <<<"n1 idle 8"
  [ "$(cat "$tmp/hosts")" = "n1 slots=8" ] || fail "stdin feed"
  # Compressed node lists (sinfo without -N) are expanded; a bad one is named.
  expect_rc 0 "$elastic" feed slurm --input - --hostfile "$tmp/hosts" <<<"n[1-3] idle 8"
  [ "$(cat "$tmp/hosts")" = "$(printf 'n1 slots=8\nn2 slots=8\nn3 slots=8')" ] || fail "node list: $(cat "$tmp/hosts")"
  expect_rc 2 "$elastic" feed slurm --input - --hostfile "$tmp/hosts" <<<"n[3-1] idle 8"
  contains "$err" "<stdin>:1: a range must not run backwards: '3-1'"
  expect_rc 2 "$elastic" feed lsf --input x --hostfile "$tmp/hosts"
  # A bad number says what is wanted (CLI11's own check printed the range of a double).
  expect_rc 2 "$elastic" feed slurm --hostfile "$tmp/hosts" --vacate-every -1
  contains "$err" "--vacate-every: must be > 0, got -1"
  lacks "$err" "179769"
  expect_rc 2 "$elastic" feed slurm --hostfile "$tmp/hosts" --vacate-max-step abc
  contains "$err" "--vacate-max-step: 'abc' is not a number"
  # inf and huge durations are refused, naming the option and the bound: `--every inf` overflowed
  # the sleep's deadline and busy-looped on the scheduler.
  expect_rc 2 timeout 10 "$elastic" feed slurm --input "$data/sinfo_T_c.txt" --hostfile "$tmp/hosts" --every inf
  contains "$err" "--every: must be a finite number, got inf"
  expect_rc 2 timeout 10 "$elastic" feed slurm --input "$data/sinfo_T_c.txt" --hostfile "$tmp/hosts" --vacate-every 1e8
  contains "$err" "--vacate-every: must be at most 1e7 seconds (about 116 days), got 1e8"
  expect_rc 2 timeout 10 "$elastic" feed slurm --input "$data/sinfo_T_c.txt" --hostfile "$tmp/hosts" --vacate-max-step 1e300
  contains "$err" "--vacate-max-step: must be at most 1e7 seconds"
  expect_rc 2 timeout 10 "$elastic" feed slurm --input "$data/sinfo_T_c.txt" --hostfile "$tmp/hosts" --submit-per-s inf
  contains "$err" "--submit-per-s: must be a finite number, got inf"
  # Holder jobs need elastic-holder beside elastic: a partial install is named at once (it
  # used to submit holders that died on the nodes, and the feed said only "0 held node(s)").
  mkdir "$tmp/alone" && cp "$elastic" "$tmp/alone/elastic"
  expect_rc 2 "$tmp/alone/elastic" feed slurm --hostfile "$tmp/hosts"
  contains "$err" "$tmp/alone/elastic-holder is missing or not executable"
  contains "$err" "--holder"
  # Polling (--every) goes on until SIGTERM, then exits 0.
  "$elastic" feed pbs --input "$data/pbsnodes_a.txt" --hostfile "$tmp/polled" --every 0.05 2>"$tmp/poll.err" &
  poller=$!
  wait_for 30 '[ -s "$tmp/polled" ]' || fail "the polling feed wrote nothing: $(cat "$tmp/poll.err")"
  kill -TERM "$poller"; wait "$poller"; rc=$?
  [ "$rc" = 0 ] || fail "the polling feed exited $rc on SIGTERM, want 0"
  # Issue 16: --start 1e300 printed "-9223372036854775808 is outside the trace" (UB cast).
  printf 'node,idle_start_unix,idle_end_unix\nn1,1000,2000\n' >"$tmp/trace.csv"
  expect_rc 2 "$elastic" feed trace --trace "$tmp/trace.csv" --hostfile "$tmp/hosts" --nodes 1 --start 1e300
  contains "$err" "--start: 1e+300 is outside the trace [1000, 2000)"
  lacks "$err" "-9223372036854775808"
  # A --speed so slow that the window's wall time overflowed the replay's clock: every step was
  # written at once and the feed exited 0.
  cp "$tmp/hosts" "$tmp/before"
  expect_rc 2 timeout 10 "$elastic" feed trace --trace "$tmp/trace.csv" --hostfile "$tmp/hosts" --nodes 1 --speed 1e-300
  contains "$err" "--speed: the window of 1000 trace s would take 1e+303 wall s at 1e-300x, more than 1e7 s"
  cmp -s "$tmp/hosts" "$tmp/before" || fail "a refused --speed wrote the hostfile"
  expect_rc 2 "$elastic" feed trace --trace "$tmp/trace.csv" --hostfile "$tmp/hosts" --nodes 1 --speed inf
  contains "$err" "--speed: must be a finite number, got inf"
  # A folder as the trace is bad input too (it was 1, "cannot read", as for an I/O error).
  expect_rc 2 "$elastic" feed trace --trace "$tmp/a_folder" --hostfile "$tmp/hosts" --nodes 1
  contains "$err" "$tmp/a_folder: is a directory, not a file"
  ;;
holder)
  # elastic-holder (built beside elastic): CLI11's own exit codes (109 for an unknown option, 106
  # for a bad value) were returned; bad input is 2. --max-wait-s inf overflowed the deadline and
  # the holder left at once instead of waiting.
  holder=$(dirname "$elastic")/elastic-holder
  expect_rc 0 "$holder" --help
  contains "$out" "--max-wait-s"
  expect_rc 2 "$holder" --dir "$tmp" --bogus
  contains "$err" "--bogus"
  expect_rc 2 "$holder"
  contains "$err" "--dir is required"
  expect_rc 2 "$holder" --dir "$tmp" --max-wait-s abc
  contains "$err" "--max-wait-s: 'abc' is not a number"
  expect_rc 2 env SLURM_JOB_ID=7 timeout 10 "$holder" --dir "$tmp" --max-wait-s inf
  contains "$err" "--max-wait-s: must be a finite number, got inf"
  expect_rc 2 "$holder" --dir "$tmp" --max-wait-s 1e300
  contains "$err" "--max-wait-s: must be at most 1e7 seconds (about 116 days), got 1e300"
  ;;
elasticd_options)
  # elasticd refuses durations and sizes its conversions cannot hold (static_cast<long>(inf * 1000)
  # and MB -> bytes were undefined), before MPI_Init and naming the option: exit 2.
  # The hostfile does not exist: an elasticd that took the option fails on it at once (exit 2 as
  # well, but with another message and after making the state dir).
  elasticd=$1
  for bad in "--directive-timeout-s inf|--directive-timeout-s: must be a finite number, got inf" \
             "--spawn-timeout-s 1e300|--spawn-timeout-s: must be at most 1e7 seconds (about 116 days), got 1e300" \
             "--grace-s inf|--grace-s: must be a finite number, got inf" \
             "--debounce-s 1e8|--debounce-s: must be at most 1e7 seconds" \
             "--solve-time-limit-s inf|--solve-time-limit-s: must be a finite number, got inf" \
             "--horizon-s 1e300|--horizon-s: must be at most 1e7 seconds" \
             "--grow-stall-s inf|--grow-stall-s: must be a finite number, got inf" \
             "--shrink-stall-s 1e300|--shrink-stall-s: must be at most 1e7 seconds" \
             "--events-max-mb 1e300|--events-max-mb: must be at most 1e6 MB (about 1 TB), got 1e300" \
             "--events-max-mb inf|--events-max-mb: must be a finite number, got inf" \
             "--max-output-mb 1e300|--max-output-mb: must be at most 1e6 MB (about 1 TB), got 1e300" \
             "--max-output-mb -1|--max-output-mb: must be >= 0, got -1"; do
    # shellcheck disable=SC2086  # the option and its value are two words
    expect_rc 2 timeout 30 "$elasticd" --hostfile "$tmp/no_hostfile" --state-dir "$tmp/dstate" ${bad%%|*}
    contains "$err" "${bad#*|}"
  done
  [ ! -e "$tmp/dstate" ] || fail "elasticd made its state dir despite a refused option"
  ;;
up)
  # Fake nodes are labels: mpirun gets neither the hostfile nor a launch agent.
  expect_rc 0 "$elastic" up --fake-nodes 8 --dry-run --mpirun /opt/mpi/bin/mpirun \
    --elasticd /opt/bin/elasticd --mpi-arg=--mca --mpi-arg coll --mpi-arg '^han' \
    --daemon-arg=--grace-s --daemon-arg 5
  want="/opt/mpi/bin/mpirun --with-ft ulfm -n 1 --bind-to none --mca coll '^han' /opt/bin/elasticd --hostfile $tmp/state/fake_hostfile --state-dir $tmp/state --fake-nodes --grace-s 5"
  [ "$out" = "$want" ] || fail "fake-node dry-run line:\n got: $out\nwant: $want"
  # A cluster: mpirun knows only this node (elasticd adds granted nodes as it spawns there) and
  # gets the launch agent, if any, to start PRRTE's daemons on them.
  printf 'n1 slots=4\nn2 slots=4\n' >"$tmp/granted"
  expect_rc 0 "$elastic" up --hostfile "$tmp/granted" --agent /usr/bin/rsh --dry-run --mpirun mpirun \
    --elasticd /opt/bin/elasticd
  want="mpirun --with-ft ulfm -n 1 --bind-to none --prtemca rml_base_radix 16384 --prtemca plm_ssh_agent /usr/bin/rsh /opt/bin/elasticd --hostfile $tmp/granted --state-dir $tmp/state"
  [ "$out" = "$want" ] || fail "cluster dry-run line:\n got: $out\nwant: $want"
  expect_rc 2 "$elastic" up --dry-run
  contains "$err" "--hostfile FILE or --fake-nodes N"
  # --slurm-steps launches through elastic-slurm-agent beside elastic; without it, said at once.
  mkdir "$tmp/alone" && cp "$elastic" "$tmp/alone/elastic"
  expect_rc 2 "$tmp/alone/elastic" up --hostfile "$tmp/granted" --slurm-steps --dry-run
  contains "$err" "$tmp/alone/elastic-slurm-agent is missing or not executable"
  expect_rc 2 "$elastic" up --fake-nodes 2 --agent /usr/bin/rsh --dry-run
  contains "$err" "--agent"
  printf 'n1 slots=two\n' >"$tmp/bad.hosts"
  expect_rc 2 "$elastic" up --hostfile "$tmp/bad.hosts" --dry-run
  contains "$err" "bad.hosts:1:"
  expect_rc 2 "$elastic" up --fake-nodes 2 --hostfile "$tmp/bad.hosts" --dry-run
  contains "$err" "bad.hosts:1:"
  # Not a dry run: writes the fake hostfile, then execs mpirun (here: a stand-in that records argv).
  printf '#!/bin/sh\nprintf "%%s\\n" "$@" > %s/argv\n' "$tmp" >"$tmp/fake-mpirun"; chmod +x "$tmp/fake-mpirun"
  expect_rc 0 "$elastic" up --fake-nodes 3 --slots 4 --mpirun "$tmp/fake-mpirun"
  [ "$(cat "$tmp/state/fake_hostfile")" = "$(printf 'node01 slots=4\nnode02 slots=4\nnode03 slots=4')" ] \
    || fail "fake hostfile: $(cat "$tmp/state/fake_hostfile")"
  argv=$(tr '\n' ' ' <"$tmp/argv")
  contains "$argv" "--with-ft ulfm -n 1 --bind-to none "
  contains "$argv" "elasticd --hostfile $tmp/state/fake_hostfile --state-dir $tmp/state --fake-nodes"
  lacks "$argv" "plm_ssh_agent"
  # Its own fake_hostfile is rewritten; an adapter's --hostfile that exists is kept as it is
  # (a restarted daemon must see the pool the feed left), one that does not is created.
  expect_rc 0 "$elastic" up --fake-nodes 2 --slots 1 --mpirun "$tmp/fake-mpirun"
  [ "$(cat "$tmp/state/fake_hostfile")" = "$(printf 'node01 slots=1\nnode02 slots=1')" ] \
    || fail "fake hostfile not rewritten: $(cat "$tmp/state/fake_hostfile")"
  expect_rc 0 "$elastic" up --fake-nodes 4 --slots 1 --hostfile "$tmp/pool" --mpirun "$tmp/fake-mpirun"
  [ "$(wc -l <"$tmp/pool")" = 4 ] || fail "pool not created with 4 nodes: $(cat "$tmp/pool")"
  printf 'node03 slots=1\n' >"$tmp/pool"
  expect_rc 0 "$elastic" up --fake-nodes 4 --slots 1 --hostfile "$tmp/pool" --mpirun "$tmp/fake-mpirun"
  [ "$(cat "$tmp/pool")" = "node03 slots=1" ] || fail "existing pool overwritten: $(cat "$tmp/pool")"
  contains "$err" "keeping its 1 node(s)"
  contains "$(tr '\n' ' ' <"$tmp/argv")" "--hostfile $tmp/pool --state-dir $tmp/state --fake-nodes"
  ;;
up_mpirun)
  # Through the real mpirun, with a stand-in elasticd that records where and how it ran.
  mpirun=$1
  printf '#!/bin/sh\necho "daemon label=${ELASTIC_FAKE_NODE:-none}: $*" > %s/daemon.out\n' "$tmp" >"$tmp/elasticd"
  chmod +x "$tmp/elasticd"
  expect_rc 0 timeout 100 "$elastic" up --fake-nodes 3 --mpirun "$mpirun" --elasticd "$tmp/elasticd"
  [ "$(cat "$tmp/daemon.out" 2>/dev/null)" = "daemon label=none: --hostfile $tmp/state/fake_hostfile --state-dir $tmp/state --fake-nodes" ] \
    || fail "stand-in daemon did not run under mpirun as the label-mode controller: $(cat "$tmp/daemon.out" 2>&1) / $err"
  ;;
up_elasticd)
  # The real thing: `elastic up --fake-nodes 2` runs elasticd, which runs two jobs one after the
  # other on both fake nodes (a second spawn is what a PRRTE daemon per fake node could not do).
  mpirun=$1 elasticd=$2 hello=$3
  start_up --fake-nodes 2 --slots 1
  expect_rc 0 "$elastic" nodes --json
  [ "$(printf '%s' "$out" | python3 -c 'import json,sys; print(" ".join(n["name"] for n in json.load(sys.stdin)))')" = "node01 node02" ] \
    || fail "nodes: $out"
  for id in first second; do
    printf 'id = "%s"\ncommand = "%s"\nargs = ["300"]\nmin_nodes = 2\nmax_nodes = 2\n' "$id" "$hello" >"$tmp/$id.toml"
    expect_rc 0 "$elastic" submit "$tmp/$id.toml"
    wait_for 90 "[ \"\$(journal_events $id)\" = 'submitted started finished' ]" \
      || fail "job $id: journal says '$(journal_events "$id")' / $(tail -5 "$tmp/up.log")"
    [ "$(journal_started_nodes "$id")" = "node01 node02" ] \
      || fail "job $id did not start on node01+node02: $(journal_started_nodes "$id")"
  done
  lacks "$(cat "$tmp/up.log")" "MPI_ERR"
  lacks "$(cat "$tmp/up.log")" "unable to reach"
  # The timeline read back from this elasticd's decision log: each job held both nodes, one job
  # after the other.
  expect_rc 0 "$elastic" timeline
  contains "$out" "2 jobs: $tmp/state/timeline/timeline.csv"
  held=$(python3 -c 'import csv,sys
rows = list(csv.DictReader(open(sys.argv[1])))
both = sum(1 for r in rows if int(r["first"]) and int(r["second"]))
print(max(int(r["granted_nodes"]) for r in rows), max(int(r["first"]) for r in rows),
      max(int(r["second"]) for r in rows), both)' "$tmp/state/timeline/timeline.csv")
  [ "$held" = "2 2 2 0" ] || fail "timeline: granted, first, second, rows with both: $held"
  ;;
private_state)
  # Issue 16: the state dir and everything in it are its owner's only (0700 dirs, 0600 files:
  # job output, journal, decision log, metrics, status, queue, lock, the fake hostfile; sockets or
  # fifos would be caught too), so another user can neither read a job's output nor submit. $tmp
  # is opened to all, so that only the state dir's own modes keep the other user out.
  mpirun=$1 elasticd=$2 hello=$3
  chmod 0755 "$tmp"
  start_up --fake-nodes 1 --slots 1
  printf 'id = "mine"\ncommand = "%s"\nargs = ["50"]\nmin_nodes = 1\nmax_nodes = 1\n' "$hello" >"$tmp/mine.toml"
  expect_rc 0 "$elastic" submit "$tmp/mine.toml"
  wait_for 90 "[ \"\$(journal_events mine)\" = 'submitted started finished' ]" \
    || fail "job mine: journal says '$(journal_events mine)' / $(tail -5 "$tmp/up.log")"
  [ -s "$tmp/state/jobs/mine/stdout" ] || fail "the job wrote no output"
  [ -s "$tmp/state/metrics.prom" ] && [ -s "$tmp/state/events.jsonl" ] || fail "no metrics or decision log"
  open=$(find "$tmp/state" \( -type d ! -perm 0700 \) -o \( ! -type d -perm /077 \) -printf '%m %p\n')
  [ -z "$open" ] || fail "not owner-only: $open"
  printf 'id = "theirs"\ncommand = "/bin/true"\n' >"$tmp/theirs.toml"
  chmod 0644 "$tmp/mine.toml" "$tmp/theirs.toml"
  if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null; then
    echo "SKIPPED the other-user checks: they need root (runuser -u nobody)"
  elif ! runuser -u nobody -- cat "$tmp/mine.toml" >/dev/null 2>&1 \
       || ! runuser -u nobody -- "$elastic" --help >/dev/null 2>&1; then
    # The control: where nobody cannot reach $tmp or the binary, a refusal would prove nothing.
    echo "SKIPPED the other-user checks: nobody cannot read $tmp/mine.toml or run $elastic"
  else
    expect_rc 1 runuser -u nobody -- cat "$tmp/state/jobs/mine/stdout"
    contains "$err" "Permission denied"
    expect_rc 1 runuser -u nobody -- cat "$tmp/state/journal.jsonl"
    runuser -u nobody -- "$elastic" --state-dir "$tmp/state" submit "$tmp/theirs.toml" >"$tmp/nobody.out" 2>&1 \
      && fail "nobody submitted: $(cat "$tmp/nobody.out")"
    [ ! -e "$tmp/state/queue/theirs.toml" ] || fail "nobody's job is in the queue"
    contains "$(cat "$tmp/nobody.out")" "$tmp/state"
  fi
  stop_up
  ;;
up_kill_stopped)
  # A rank that left its job and does not exit is killed grace_s later, here on elasticd's own host
  # (label mode: SIGKILL; e2e grace_kill shows the other hosts, killed through PRRTE). The job's
  # rank is SIGSTOPped and the job cancelled: its stop times out, and the rank is killed.
  mpirun=$1 elasticd=$2 trainer=$3
  start_up --fake-nodes 1 --slots 1 --daemon-arg=--grace-s --daemon-arg 3 \
    --daemon-arg=--directive-timeout-s --daemon-arg 3
  printf 'id = "fm"\ncommand = "%s"\nargs = ["--epochs", "50"]\nmin_nodes = 1\nmax_nodes = 1\n' \
    "$trainer" >"$tmp/fm.toml"
  expect_rc 0 "$elastic" submit "$tmp/fm.toml"
  wait_for 90 '[ "$(job_field fm samples_done)" -gt 0 ] 2>/dev/null' \
    || fail "job did not train: $(journal_events fm) / $(tail -5 "$tmp/up.log")"
  ranks=$(for p in /proc/[0-9]*; do grep -qz "^ELASTIC_STDOUT=$tmp/state/" "$p/environ" 2>/dev/null && echo "${p#/proc/}"; done)
  [ -n "$ranks" ] || fail "no rank of fm found"
  kill -STOP $ranks
  expect_rc 0 "$elastic" cancel fm
  wait_for 30 "grep -q '\"processes_killed\"' '$tmp/state/events.jsonl'" \
    || fail "the stopped rank was not killed: $(tail -5 "$tmp/state/events.jsonl")"
  for p in $ranks; do
    wait_for 10 "[ ! -e /proc/$p ] || grep -q '^State:.*Z' /proc/$p/status" || fail "rank $p still runs"
  done
  wait_for 10 '[ "$(job_field fm state)" = cancelled ]' || fail "fm: $(job_field fm state)"
  grep '"processes_killed"' "$tmp/state/events.jsonl"
  ;;
up_requeue)
  # All nodes of a running Fashion-MNIST job (examples/02, below its accuracy target) are taken
  # back: the runtime stops it and restarts it on other nodes. The stopped ranks exit 0 (not a
  # completed run), so the job is requeued, not failed (an exit 1 of the old ranks used to reach
  # the new start and fail it). A restarted elasticd replays the journal (requeued records
  # included) without complaint, keeps the pool file as the "feed" left it, and starts the job
  # again when nodes come back.
  mpirun=$1 elasticd=$2 trainer=$3
  pool() { printf '%s slots=1\n' "$@" >"$tmp/pool.new"; [ $# -gt 0 ] || : >"$tmp/pool.new"; mv "$tmp/pool.new" "$tmp/pool"; }
  start_up --fake-nodes 2 --slots 1 --hostfile "$tmp/pool"
  printf 'id = "fm"\ncommand = "%s"\nargs = ["--epochs", "50", "--target-accuracy", "0.99"]\nmin_nodes = 1\nmax_nodes = 2\n' \
    "$trainer" >"$tmp/fm.toml"
  expect_rc 0 "$elastic" submit "$tmp/fm.toml"
  wait_for 90 '[ "$(job_field fm samples_done)" -gt 0 ] 2>/dev/null' \
    || fail "job did not train: $(journal_events fm) / $(tail -5 "$tmp/up.log")"
  pool node03 node04
  wait_for 60 "grep -q 'stopped by the runtime' '$tmp/state/jobs/fm/stdout'" \
    || fail "the job was not stopped: $(journal_events fm) / $(cat "$tmp/state/jobs/fm/stdout")"
  wait_for 60 '[ "$(journal_events fm)" = "submitted started requeued started" ]' \
    || fail "not restarted on node03 and node04: $(journal_events fm)"
  sleep 5  # time for a wrong exit code of the stopped ranks to reach the controller
  [ "$(journal_events fm)" = "submitted started requeued started" ] || fail "journal: $(journal_events fm)"
  lacks "$(cat "$tmp/up.log")" "exited with code"
  pool
  wait_for 60 '[ "$(journal_events fm)" = "submitted started requeued started requeued" ]' \
    || fail "not requeued on an empty pool: $(journal_events fm)"
  # A job waiting to restart keeps the samples of its runs so far (it showed 0 and Prometheus saw
  # the counter reset), in the daemon's status, in the journal, and after the daemon is gone.
  wait_for 10 '[ "$(job_field fm state)" = to_restart ]' || fail "status: $(job_field fm state)"
  [ "$(job_field fm reason)" = "the plan gave it no nodes" ] || fail "requeue reason: $(job_field fm reason)"
  done_before=$(job_field fm samples_done)
  [ "$done_before" -gt 0 ] || fail "a requeued job shows $done_before samples done"
  stop_up
  expect_rc 0 "$elastic" status --json
  [ "$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(j["state"], j["samples_done"])')" \
    = "to_restart $done_before" ] || fail "journal replay without a daemon (samples done $done_before): $out"
  start_up --fake-nodes 2 --slots 1 --hostfile "$tmp/pool"
  [ ! -s "$tmp/pool" ] || fail "elastic up rewrote the pool: $(cat "$tmp/pool")"
  [ "$(job_field fm state) / $(job_field fm reason)" = "to_restart / the plan gave it no nodes" ] \
    || fail "replayed job state $(job_field fm state) / $(job_field fm reason)"
  [ "$(job_field fm samples_done)" = "$done_before" ] || fail "replayed samples done $(job_field fm samples_done), was $done_before"
  pool node01
  wait_for 60 '[ "$(journal_events fm)" = "submitted started requeued started requeued started" ]' \
    || fail "not started again: $(journal_events fm) / $(tail -5 "$tmp/up.log")"
  lacks "$(cat "$tmp/up.log")" "unknown event"
  ;;
nodes)
  mkdir -m 0700 -p "$tmp/state"
  expect_rc 0 "$elastic" nodes
  contains "$out" "NODE"
  expect_rc 2 "$elastic" --state-dir "$tmp/nowhere" nodes
  ;;
journal)
  # Issue 16: a corrupt middle line stops elasticd ("refusing to guess"); check lists every bad
  # line, salvage keeps the good records and sets the bad ones aside so the daemon can start.
  mkdir -m 0700 -p "$tmp/state"
  expect_rc 0 "$elastic" journal check
  contains "$out" "clean, 0 records"
  spec='"spec": {"id": "ID", "command": "/bin/true", "max_nodes": 2}'
  { echo "{\"t\": 1, \"event\": \"submitted\", \"job\": \"a\", ${spec/ID/a}}"
    echo '{"t": 2, "event": "subm#tted", "job": "b", garbled'
    echo "{\"t\": 3, \"event\": \"submitted\", \"job\": \"c\", ${spec/ID/c}}"
    echo "{\"t\": 4, \"event\": \"submitted\", \"job\": \"a\", ${spec/ID/a}}"
    echo '{"t": 5, "event": "finished", "job": "a", "samples_done": 10}'; } >"$tmp/state/journal.jsonl"
  cp "$tmp/state/journal.jsonl" "$tmp/before"
  expect_rc 1 "$elastic" status  # what elasticd meets at start, too
  contains "$err" "journal.jsonl:2: bad journal record (not valid JSON); refusing to guess"
  contains "$err" "elastic journal salvage"
  expect_rc 2 "$elastic" journal check
  contains "$out" "$tmp/state/journal.jsonl:2: not valid JSON"
  contains "$out" "$tmp/state/journal.jsonl:4: job a submitted again; the first submission is kept"
  contains "$out" "2 bad line(s), 3 good records (2 jobs)"
  cmp -s "$tmp/state/journal.jsonl" "$tmp/before" || fail "check changed the journal"
  expect_rc 0 "$elastic" journal salvage
  contains "$out" "kept 3 records (2 jobs); moved 2 bad line(s) to $tmp/state/journal.jsonl.bad"
  [ "$(cat "$tmp/state/journal.jsonl.bad")" = "$(printf '# %s:2: not valid JSON\n%s\n# %s:4: job a submitted again; the first submission is kept\n%s' \
    "$tmp/state/journal.jsonl" "$(sed -n 2p "$tmp/before")" "$tmp/state/journal.jsonl" "$(sed -n 4p "$tmp/before")")" ] \
    || fail "side file: $(cat "$tmp/state/journal.jsonl.bad")"
  [ "$(cat "$tmp/state/journal.jsonl")" = "$(sed -n '1p;3p;5p' "$tmp/before")" ] || fail "salvaged journal: $(cat "$tmp/state/journal.jsonl")"
  [ "$(stat -c %a "$tmp/state/journal.jsonl" "$tmp/state/journal.jsonl.bad" | tr '\n' ' ')" = "600 600 " ] \
    || fail "salvaged files are not 0600"
  expect_rc 0 "$elastic" journal check
  contains "$out" "clean, 3 records, 2 jobs"
  expect_rc 0 "$elastic" status --json
  contains "$out" '"finished"'
  # A torn last record (a crash mid-append) is dropped, and status says so.
  printf '{"t": 6, "event": "cancelled", "jo' >>"$tmp/state/journal.jsonl"
  expect_rc 0 "$elastic" status
  contains "$err" "elastic: warning: $tmp/state/journal.jsonl:4: torn last record dropped (incomplete line)"
  expect_rc 2 "$elastic" journal repair
  expect_rc 2 "$elastic" --state-dir "$tmp/nowhere" journal check
  ;;
timeline)
  # A decision log with a bad line: the error names the file and line; then the good log's plot.
  mkdir -m 0700 -p "$tmp/state"
  expect_rc 2 "$elastic" timeline
  contains "$err" "$tmp/state/events.jsonl not found"
  { echo '{"t": 10, "event": "hostfile", "pool": 2, "added": ["n1", "n2"], "removed": []}'
    echo '{"t": 11, "event": "job_started", "job": "a", "nodes": ["n1", "n2"]}'
    echo '{"t": 12, "event": "node_lost", "node": "n2", "job": "a"}'
    echo '{"t": 13, "event": "job_recovered", "job": "a", "nodes": ["n1"]}'
    echo '{"t": 14, "event": "job_finished", "job": "a"}'; } >"$tmp/state/events.jsonl"
  cp "$tmp/state/events.jsonl" "$tmp/good.jsonl"
  sed -i '3s/.*/{"t": 12, "event": "node_lost", garbled/' "$tmp/state/events.jsonl"
  expect_rc 2 "$elastic" timeline --out "$tmp/plot"
  contains "$err" "$tmp/state/events.jsonl:3: not a JSON object"
  cp "$tmp/good.jsonl" "$tmp/state/events.jsonl"
  expect_rc 0 "$elastic" timeline --out "$tmp/plot"
  contains "$out" "5 events over 4 s, 1 jobs: $tmp/plot/timeline.csv"
  [ "$(cat "$tmp/plot/timeline_lost.dat")" = "$(printf '# time nodes_granted node\n2.00000 2 n2')" ] \
    || fail "lost: $(cat "$tmp/plot/timeline_lost.dat")"
  if command -v gnuplot >/dev/null; then
    contains "$out" "$tmp/plot/timeline.png"
    [ "$(head -c 4 "$tmp/plot/timeline.png" | tail -c 3)" = PNG ] || fail "timeline.png is not a PNG"
  fi
  ;;
usage)
  expect_rc 0 "$elastic" --help
  for sub in submit status cancel nodes feed up journal timeline; do contains "$out" "$sub"; done
  expect_rc 2 "$elastic"
  expect_rc 2 "$elastic" frobnicate
  expect_rc 2 "$elastic" submit
  ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
[ "$failures" = 0 ] || { echo "$case_name: $failures failure(s)" >&2; exit 1; }
echo "$case_name: ok"
