#!/bin/bash
# Usage: feed.sh CASE ELASTIC [MPIRUN ELASTICD TRAINER]. `elastic feed slurm` against the box's
# real Slurm (lib.sh):
#   preempt    holders fill every node and the hostfile lists exactly them; a main-queue job
#              preempts two holders, whose nodes leave the hostfile and whose holders exit on
#              release (not KillWait's SIGKILL); holders come back when the main job ends
#   main_wait  a 2-node main job's start delay, 10 times on an empty box and 10 times with holders
#              on every node, in the same run (printed: the medians; asserted: every holder left
#              on release and every main job started)
#   shrink     elasticd runs a test_trainer job on the held nodes; 10 times a 1-node main job
#              preempts a holder: the job shrinks off that node on notice (node_released, no ULFM
#              repair, no rank of ours left in the host's process table when the main job starts),
#              the holder leaves on release, and after the main job the holder comes back
#              and the job grows again; the job finishes with a correct allreduce at every step
#   vacate     as shrink, with `--vacate-for main`: the feed sees each main job pending and gives a
#              holder back before Slurm's scheduling pass (the same shrink on notice, then
#              scancel), so that some main jobs start without preempting (counted in slurmctld's
#              log); the rest are preempted as before. elasticd's status.json gives the job's step
#              time (10 ms steps: at most --vacate-max-step's 0.25 s)
#   vacate_slow  as vacate with 3 main jobs, but the job's steps take 0.4 s: status.json says so,
#              and the feed gives none of its nodes back (it would leave after Slurm's pass);
#              every main job preempts a holder, which the job leaves on notice as in shrink
#   steps      as shrink, but elasticd runs with `elastic up --slurm-steps`' launch line: PRRTE's
#              daemon and the ranks on each node run as a step of its holder job
#              (elastic-slurm-agent). A preemption is still a notice (shrink, no ULFM repair, the
#              daemon survives the SIGTERM until the holder leaves), and when Slurm ends the holder
#              nothing of ours is left on the node, daemon included; a holder killed without
#              notice (elasticd frozen, so the holder waits out --max-wait-s) takes its node's
#              daemon and ranks with it (a node loss the job survives); the job grows back onto new
#              holders each time and finishes
#   bad_input  no such partition, also in --vacate-for (exit 2, named), sbatch refused (drained
#              partition: the feed says so and keeps going), slurmctld down (the last good
#              hostfile kept, its pending-job listing's failure said once, not at each retry)
set -u
CASE=$1 ELASTIC=$2 MPIRUN=${3:-} ELASTICD=${4:-} TRAINER=${5:-}
. "$(dirname "$0")/lib.sh"

# released_count: holders that exited because the feed released their node.
released_count() { cat "$HOLDERS"/*.out 2>/dev/null | grep -c 'released after'; }

case_preempt() {
  start_feed
  wait_filled || fail "holders did not fill h1..h$BOX_HOSTS"
  echo "filled: $(hostfile_nodes | tr '\n' ' ')"
  submit_main 2 "$T/main.start" 20 > /dev/null || fail "sbatch main"
  wait_for 30 "[ -s $T/main.start ]" || fail "main job did not start"
  local ran left
  ran=$(slurm squeue -h -p main -o %N)
  echo "main job runs on $ran"
  # Its nodes left the hostfile (on notice) and their holders exited on release.
  wait_for 5 "[ \"\$(released_count)\" = 2 ]" || fail "holders released: $(released_count), expected 2"
  left=$(hostfile_nodes | tr '\n' ' ')
  for n in $(slurm scontrol show hostnames "$ran"); do
    grep -qx "$n" <(hostfile_nodes) && fail "$n runs the main job and is still in the hostfile"
    grep -q 'released after' "$HOLDERS/$n.out" || fail "$n's holder did not leave on release"
  done
  echo "hostfile during the main job: $left"
  grep -h 'released after' "$HOLDERS"/*.out
  # Holders come back once the main job ends; how long the hostfile lags behind squeue.
  slurm scancel -p main -u "$(id -un)"
  local end=$((SECONDS + 30)) in_squeue= in_hostfile=
  while ((SECONDS < end)) && [ -z "$in_hostfile" ]; do
    [ -z "$in_squeue" ] && [ "$(held_nodes | wc -l)" = "$BOX_HOSTS" ] && in_squeue=$(now)
    [ -n "$in_squeue" ] && [ "$(hostfile_nodes | wc -l)" = "$BOX_HOSTS" ] && in_hostfile=$(now)
    sleep 0.05
  done
  wait_filled 30 || fail "holders did not come back after the main job"
  echo "refilled: $(hostfile_nodes | tr '\n' ' '); hostfile followed squeue after $(echo "$in_hostfile - $in_squeue" | bc) s"
}

case_main_wait() {
  local empty=() full=() i
  for i in $(seq 10); do empty+=("$(main_delay 2)"); done
  start_feed
  for i in $(seq 10); do
    wait_filled 30 || fail "holders did not refill before run $i"
    full+=("$(main_delay 2)")
  done
  [ "$(released_count)" -ge 10 ] || fail "only $(released_count) holders left on release"
  ! grep -h 'not released' "$HOLDERS"/*.out || fail "a holder waited out its limit"
  echo "main job start delay (s; after submission, after Slurm's first pass), empty box: ${empty[*]/ /\/}"
  echo "main job start delay, holders on every node: ${full[*]/ /\/}"
  medians "empty box" "${empty[@]}"
  medians "holders on every node" "${full[@]}"
}

case_shrink() {  # case_shrink [FEED OPTIONS]
  local cycles=${CYCLES:-10} i t0 id node delays=() empty=() released after_submit after_pass
  STEP_S=0
  for i in $(seq "$cycles"); do empty+=("$(main_delay 1)"); done
  start_feed "$@"
  wait_filled || fail "holders did not fill h1..h$BOX_HOSTS"
  # elasticd's default debounce (0.5 s): a held node leaving is planned at once regardless.
  start_daemon ${DEBOUNCE_S:+--debounce-s "$DEBOUNCE_S"}
  STEP_US=${STEP_US_E:-10000} SUBMIT_TOML=$(linear_scaling 4) submit e 10000000 1 4 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks e)" = 4 ]' || fail "job did not reach 4 ranks"
  for i in $(seq "$cycles"); do
    [ "$(job_state e)" = running ] || fail "job no longer running at preemption $i"
    rm -f "$T/main.start"
    t0=$(now)
    id=$(submit_main 1 "$T/main.start" 2) || fail "sbatch main"
    wait_for 30 "[ -s $T/main.start ]" || fail "main job $i did not start"
    delays+=("$(echo "$(cat "$T/main.start") - $t0" | bc) $(since_pass "$id" "$(cat "$T/main.start")")")
    node=$(slurm squeue -h -p main -o %N)
    released=$(count_events node_released "\"$node\"")
    [ "$released" -ge 1 ] || fail "main job $i started on $node before elasticd released it"
    # Nothing of ours is left beside the main job (the host's process table).
    [ -z "$(rank_pids "$node")" ] || fail "ranks of ours on $node beside main job $i: $(rank_pids "$node")"
    read -r after_submit after_pass <<< "${delays[-1]}"
    echo "preemption $i: main job on $node after $after_submit s ($after_pass s after Slurm's first pass); job ranks $(job_ranks e)"
    wait_for 30 '[ -z "$(slurm squeue -h -p main)" ]' || fail "main job $i did not end"
    wait_filled 30 || fail "holders did not come back after main job $i"
    wait_for 60 '[ "$(job_ranks e)" = 4 ]' || fail "job did not grow back after preemption $i"
  done
  STEP_S=$(job_step_s e)
  echo "the job's step time in status.json: $STEP_S s"
  touch "$T/stop"
  wait_for 60 '[ "$(job_state e)" = finished ]' || fail "job did not finish: $(job_state e)"
  no_wrong_allreduce e
  released=$(grep -h 'released after' "$HOLDERS"/*.out | wc -l)
  echo "holders that left on release: $released of $cycles"
  echo "1-node main job start delay (s; after submission/after Slurm's first pass), empty box: ${empty[*]/ /\/}"
  echo "1-node main job start delay, elastic job on every node: ${delays[*]/ /\/}"
  medians "empty box" "${empty[@]}"
  medians "elastic job on every node" "${delays[@]}"
  grep -h 'not released' "$HOLDERS"/*.out
  echo "ULFM repairs: $(out e | grep -c '^recovered'); node_lost events: $(count_events node_lost)"
  [ "$(out e | grep -c '^recovered')" = 0 ] && [ "$(count_events node_lost)" = 0 ] ||
    fail "a preemption was handled as a failure"
  [ "$released" -ge $((cycles - 1)) ] || fail "only $released of $cycles holders left on release"
  ranks_on_their_hosts || fail "ranks not on their hosts"
}

# vacate_run: case_shrink with --vacate-for main; sets GIVEN and PREEMPTED (main jobs that
# preempted a holder, from slurmctld's log).
vacate_run() {
  local from
  from=$(($(wc -l < "$CTLD_LOG") + 1))
  case_shrink --vacate-for main
  PREEMPTED=$(tail -n +"$from" "$CTLD_LOG" | grep -c 'preempted JobId=')
  GIVEN=$(grep -c 'back ahead of Slurm' "$T/feed.log")
  echo "holders given back ahead of Slurm's pass: $GIVEN; main jobs that preempted a holder: $PREEMPTED of ${CYCLES:-10}"
}

case_vacate() {
  vacate_run
  [ "$GIVEN" -ge 1 ] || fail "the feed never gave a holder back ahead of Slurm"
  [ "$PREEMPTED" -lt "${CYCLES:-10}" ] || fail "every main job still preempted a holder"
  awk -v s="$STEP_S" 'BEGIN { exit !(s > 0 && s <= 0.25) }' ||
    fail "status.json step_s $STEP_S for 10 ms steps (expected in (0, 0.25])"
}

case_vacate_slow() {
  CYCLES=3 STEP_US_E=400000 vacate_run
  awk -v s="$STEP_S" 'BEGIN { exit !(s >= 0.35) }' ||
    fail "status.json step_s $STEP_S for 0.4 s steps"
  [ "$GIVEN" = 0 ] || fail "the feed gave back $GIVEN node(s) of a job stepping every $STEP_S s"
  [ "$PREEMPTED" = 3 ] || fail "$PREEMPTED of 3 main jobs preempted a holder (expected all)"
}

# Our processes on host $1: its PRRTE daemon (prted) and this test's ranks.
our_pids() { { pgrep -f "$(dirname "$MPIRUN")/prted" | grep -Fxf <("$BOX" pids "$1"); rank_pids "$1"; } | sort -u; }
# The command names from pid $1 up to the host's init (a step's processes descend from slurmstepd).
ancestry() {
  local p=$1 names=
  while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    names="$names $(ps -o comm= -p "$p")"
    p=$(ps -o ppid= -p "$p" | tr -d ' ')
  done
  echo "$names"
}
# steps_daemon: elasticd as `elastic up --slurm-steps` starts it (its --dry-run line: the agent,
# --leave-session-attached, --ranks-ignore-sigterm), with the box's network settings.
steps_daemon() {
  local line a net=()
  # The box's network settings, not its launch agent: --slurm-steps brings its own.
  mapfile -t net < <("$BOX" mpirun-args --no-agent | sed 's/^/--mpi-arg=/')
  line=$("$ELASTIC" --state-dir "$S" up --hostfile "$H" --slurm-steps --mpirun "$MPIRUN" \
    --elasticd "$ELASTICD" "${net[@]}" --daemon-arg=--ranks-per-node --daemon-arg=1 \
    --daemon-arg=--grace-s --daemon-arg=20 --daemon-arg=--debounce-s --daemon-arg=0.1 --dry-run) ||
    fail "elastic up --slurm-steps --dry-run"
  echo "launch line: $line"
  for a in elastic-slurm-agent --leave-session-attached --ranks-ignore-sigterm; do
    echo "$line" | grep -q -- "$a" || fail "the --slurm-steps line lacks $a"
  done
  rm -f "$S/status.json"
  "$BOX" exec h0 /usr/bin/env SLURM_CONF="$("$BOX" slurm-conf)" /bin/sh -c "exec $line" \
    >> "$T/daemon.log" 2>&1 &
  DAEMON_PID=$!
  wait_for 30 "[ -s $S/status.json ]" || fail "elasticd did not start"
}

case_steps() {
  local node i pids before dpid
  start_feed
  wait_filled || fail "holders did not fill h1..h$BOX_HOSTS"
  steps_daemon
  STEP_US=10000 SUBMIT_TOML=$(linear_scaling 4) submit e 10000000 1 4 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks e)" = 4 ]' || fail "job did not reach 4 ranks"
  for ((i = 1; i <= BOX_HOSTS; i++)); do
    pids=$(our_pids "h$i")
    [ -n "$pids" ] || fail "nothing of ours on h$i"
    for p in $pids; do
      ancestry "$p" | grep -qw slurmstepd || fail "h$i: $(ps -o comm= -p "$p") ($p) is not in a Slurm step: $(ancestry "$p")"
    done
  done
  echo "every node's daemon and ranks run in a step of its holder"
  for i in 1 2; do
    [ "$(job_state e)" = running ] || fail "job no longer running at preemption $i"
    rm -f "$T/main.start"
    before=$(count_events node_released)
    submit_main 1 "$T/main.start" 2 > /dev/null || fail "sbatch main"
    wait_for 30 "[ -s $T/main.start ]" || fail "main job $i did not start"
    node=$(slurm squeue -h -p main -o %N)
    [ "$(count_events node_released "\"$node\"")" -ge 1 ] && [ "$(count_events node_released)" -gt "$before" ] ||
      fail "main job $i started on $node before elasticd released it"
    # The holder has gone, and Slurm with it took the step: nothing of ours, daemon included.
    wait_for 5 '[ -z "$(our_pids "$node")" ]' || fail "left on $node beside main job $i: $(our_pids "$node" | tr '\n' ' ')"
    echo "preemption $i: $node released on notice, nothing of ours left beside the main job"
    wait_for 30 '[ -z "$(slurm squeue -h -p main)" ]' || fail "main job $i did not end"
    wait_filled 30 || fail "holders did not come back after main job $i"
    wait_for 60 '[ "$(job_ranks e)" = 4 ]' || fail "job did not grow back after preemption $i"
  done
  # An eviction our notice path does not answer (elasticd frozen): the holder gives up after
  # --max-wait-s and exits, Slurm kills its steps, and our daemon and ranks on the node die with
  # them. The job loses that node (ULFM repair) and goes on.
  dpid=$(sed -n 's/^elasticd: running (pid \([0-9]*\)).*/\1/p' "$T/daemon.log" | head -1)
  [ -n "$dpid" ] || fail "no elasticd pid in the daemon log"
  kill -STOP "$dpid"
  rm -f "$T/main.start"
  submit_main 1 "$T/main.start" 2 > /dev/null || fail "sbatch main"
  wait_for 30 "[ -s $T/main.start ]" || { kill -CONT "$dpid"; fail "main job did not start while elasticd was frozen"; }
  node=$(slurm squeue -h -p main -o %N)
  wait_for 5 '[ -z "$(our_pids "$node")" ]' || { kill -CONT "$dpid"; fail "left on $node after Slurm evicted its holder: $(our_pids "$node" | tr '\n' ' ')"; }
  kill -CONT "$dpid"
  echo "eviction with elasticd frozen: nothing of ours left on $node once the main job started"
  wait_for 60 "[ \"\$(count_events node_lost '\"$node\"')\" -ge 1 ]" || fail "the loss of $node was not seen"
  wait_for 30 '[ -z "$(slurm squeue -h -p main)" ]' || fail "the last main job did not end"
  wait_filled 30 || fail "holders did not come back after the eviction"
  wait_for 60 '[ "$(job_ranks e)" = 4 ]' || fail "job did not grow back after the eviction"
  touch "$T/stop"
  wait_for 60 '[ "$(job_state e)" = finished ]' || fail "job did not finish: $(job_state e)"
  no_wrong_allreduce e
  echo "ULFM repairs: $(out e | grep -c '^recovered'); node_lost events: $(count_events node_lost)"
  ranks_on_their_hosts || fail "ranks not on their hosts"
}

case_bad_input() {
  local out rc
  out=$("$BOX" exec h0 /usr/bin/env SLURM_CONF="$("$BOX" slurm-conf)" "$ELASTIC" --state-dir "$S" \
    feed slurm --hostfile "$H" --partition nosuch 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "no such partition: exit $rc, expected 2 ($out)"
  echo "$out" | grep -q "partition 'nosuch'" || fail "no such partition: '$out'"
  echo "no such partition: $out"
  out=$("$BOX" exec h0 /usr/bin/env SLURM_CONF="$("$BOX" slurm-conf)" "$ELASTIC" --state-dir "$S" \
    feed slurm --hostfile "$H" --vacate-for main,nosuch 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "--vacate-for with no such partition: exit $rc, expected 2 ($out)"
  echo "$out" | grep -q -- "--vacate-for: .*'nosuch'" || fail "--vacate-for nosuch: '$out'"
  echo "--vacate-for with no such partition: $out"
  # sbatch refused: the partition is drained. The feed says so, writes no node, and fills the
  # box once the partition is up again.
  slurm scontrol update PartitionName=scavenger State=DRAIN || fail "drain scavenger"
  start_feed --vacate-for main
  wait_for 10 "grep -qs 'refused' $T/feed.log" || fail "a refused sbatch was not reported"
  grep -m1 refused "$T/feed.log"
  [ -z "$(hostfile_nodes)" ] || fail "hostfile lists nodes without holders: $(hostfile_nodes)"
  kill -0 "$FEED_PID" || fail "the feed exited after a refused sbatch"
  slurm scontrol update PartitionName=scavenger State=UP || fail "resume scavenger"
  wait_filled || fail "holders did not fill the box after the partition came back"
  # slurmctld down: squeue fails, the feed says so and keeps the last good hostfile.
  local before
  before=$(cat "$H")
  kill -KILL "$(cat /run/"${ELASTIC_BOX_PREFIX:-elbox}"/slurm/pid/slurmctld.pid)"
  # (Slurm's clients retry the controller for about MessageTimeout, 10 s, before they fail.)
  wait_for 30 "grep -qs 'keeping the hostfile' $T/feed.log" || fail "slurmctld down not reported"
  grep -m1 'keeping the hostfile' "$T/feed.log"
  sleep 2
  [ "$(cat "$H")" = "$before" ] || fail "hostfile changed while slurmctld was down: $(cat "$H")"
  kill -0 "$FEED_PID" || fail "the feed exited while slurmctld was down"
  # Its pending-job listing (every 0.25 s) fails too, after its own retries: said once. The
  # feed polls in turn, holders then pending jobs, so two more failed holder polls after that
  # mean the pending listing failed again in between, unsaid.
  wait_for 60 "grep -qs 'not vacating ahead of Slurm' $T/feed.log" ||
    fail "the pending-job listing's failure was not reported"
  grep -m1 'not vacating ahead of Slurm' "$T/feed.log"
  local kept said
  kept=$(grep -c 'keeping the hostfile' "$T/feed.log")
  wait_for 60 "[ \$(grep -c 'keeping the hostfile' $T/feed.log) -ge $((kept + 2)) ]" ||
    fail "the feed stopped polling while slurmctld was down"
  said=$(grep -c 'not vacating ahead of Slurm' "$T/feed.log")
  [ "$said" = 1 ] || fail "pending-job listing failures said $said times"
}

"case_$CASE"
echo PASS
