#!/usr/bin/env bash
# CLI tests for `elastic`: cli_test.sh CASE ELASTIC_BINARY DATA_DIR AGENT_SCRIPT
# Each case checks exit codes (0 ok, 2 bad input, 1 runtime error) and what the user sees.
set -uo pipefail
case_name=$1 elastic=$2 data=$3 agent=$4
shift 4
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
export ELASTIC_STATE_DIR=$tmp/state
unset MPI_HOME
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect_rc WANT CMD...: runs CMD, keeps stdout in $out and stderr in $err.
expect_rc() {
  local want=$1; shift
  out=$("$@" 2>"$tmp/err"); local rc=$?
  err=$(cat "$tmp/err")
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want (stderr: $err)"
}
contains() { case "$1" in *"$2"*) ;; *) fail "expected '$2' in: $1" ;; esac; }
lacks() { case "$1" in *"$2"*) fail "did not expect '$2' in: $1" ;; esac; }

write_job() {  # write_job FILE ID [extra lines]
  local f=$1 id=$2; shift 2
  { echo "id = \"$id\""; echo 'command = "/bin/true"'; echo 'min_nodes = 1'; echo 'max_nodes = 3'
    echo 'target_samples = 5000'; for l in "$@"; do echo "$l"; done; } >"$f"
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
  expect_rc 0 "$elastic" feed slurm --input - --hostfile "$tmp/hosts" <<<"n1 idle 8"
  [ "$(cat "$tmp/hosts")" = "n1 slots=8" ] || fail "stdin feed"
  expect_rc 2 "$elastic" feed lsf --input x --hostfile "$tmp/hosts"
  ;;
up)
  expect_rc 0 "$elastic" up --fake-nodes 8 --dry-run --mpirun /opt/mpi/bin/mpirun \
    --elasticd /opt/bin/elasticd --agent "$agent" --mpi-arg=--mca --mpi-arg coll --mpi-arg '^han' \
    --daemon-arg=--grace-s --daemon-arg 5
  want="/opt/mpi/bin/mpirun --with-ft ulfm -n 1 --prtemca plm_ssh_agent $agent --hostfile $tmp/state/fake_hostfile --mca coll '^han' /opt/bin/elasticd --hostfile $tmp/state/fake_hostfile --state-dir $tmp/state --grace-s 5"
  [ "$out" = "$want" ] || fail "dry-run line:\n got: $out\nwant: $want"
  expect_rc 2 "$elastic" up --dry-run
  contains "$err" "--hostfile FILE or --fake-nodes N"
  printf 'n1 slots=two\n' >"$tmp/bad.hosts"
  expect_rc 2 "$elastic" up --hostfile "$tmp/bad.hosts" --dry-run
  contains "$err" "bad.hosts:1:"
  # Not a dry run: writes the fake hostfile, then execs mpirun (here: a stand-in that records argv).
  printf '#!/bin/sh\nprintf "%%s\\n" "$@" > %s/argv\n' "$tmp" >"$tmp/fake-mpirun"; chmod +x "$tmp/fake-mpirun"
  expect_rc 0 "$elastic" up --fake-nodes 3 --slots 4 --mpirun "$tmp/fake-mpirun" --agent "$agent"
  [ "$(cat "$tmp/state/fake_hostfile")" = "$(printf 'node01 slots=4\nnode02 slots=4\nnode03 slots=4')" ] \
    || fail "fake hostfile: $(cat "$tmp/state/fake_hostfile")"
  contains "$(tr '\n' ' ' <"$tmp/argv")" "--with-ft ulfm -n 1 --prtemca plm_ssh_agent $agent"
  # The agent drops the host and ssh options and runs the command here, as that node.
  [ "$("$agent" -x -o BatchMode=yes node07 'echo $ELASTIC_FAKE_NODE')" = node07 ] || fail "agent"
  ;;
up_mpirun)
  mpirun=$1
  printf '#!/bin/sh\necho "daemon on $ELASTIC_FAKE_NODE: $*" > %s/daemon.out\n' "$tmp" >"$tmp/elasticd"
  chmod +x "$tmp/elasticd"
  expect_rc 0 timeout 100 "$elastic" up --fake-nodes 3 --mpirun "$mpirun" --elasticd "$tmp/elasticd" --agent "$agent"
  [ "$(cat "$tmp/daemon.out" 2>/dev/null)" = "daemon on node01: --hostfile $tmp/state/fake_hostfile --state-dir $tmp/state" ] \
    || fail "stand-in daemon did not run on node01 via mpirun: $(cat "$tmp/daemon.out" 2>&1) / $err"
  ;;
nodes)
  mkdir -m 0700 -p "$tmp/state"
  expect_rc 0 "$elastic" nodes
  contains "$out" "NODE"
  expect_rc 2 "$elastic" --state-dir "$tmp/nowhere" nodes
  ;;
usage)
  expect_rc 0 "$elastic" --help
  for sub in submit status cancel nodes feed up; do contains "$out" "$sub"; done
  expect_rc 2 "$elastic"
  expect_rc 2 "$elastic" frobnicate
  expect_rc 2 "$elastic" submit
  ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
[ "$failures" = 0 ] || { echo "$case_name: $failures failure(s)" >&2; exit 1; }
echo "$case_name: ok"
