#!/bin/bash
# Usage: e2e.sh CASE MPIRUN ELASTICD ELASTIC TRAINER [HELLO]. End-to-end must-shows of elasticd, each
# against a real elasticd under mpirun --with-ft ulfm on a cluster in a box (lib.sh: head h0,
# nodes h1..h8, one PRRTE daemon per host) with test_trainer jobs (allreduce checked every step);
# every case ends by checking that each rank ran on its own node's host. Cases: grow
# shrink_notice leader_leaves kill vanish kill_relay kill_job repair_waits cancel_in_repair grace_kill
# kill_mid_spawn vanish_mid_spawn kill_parent_mid_spawn kill_rank_mid_spawn unreachable_host
# vanished_host late_daemon churn learn hole_loss restart daemon_dies bad_input output_bound
# spawn_exit, and hello_leader_leaves with example 01 (HELLO).
set -u
CASE=$1 MPIRUN=$2 ELASTICD=$3 ELASTIC=$4 TRAINER=$5 HELLO=${6:-}
. "$(dirname "$0")/lib.sh"

case_grow() {  # 1 -> 2 -> 4 -> 8 -> 4 -> 2 -> 1 nodes, then the job finishes
  hosts_range 1
  start_daemon
  submit g 1800 1 8
  local n
  for n in 1 2 4 8 4 2 1; do
    hosts_range $n
    wait_for 60 "[ \"\$(job_ranks g)\" = $n ]" || fail "job did not reach $n ranks"
    echo "reached $n ranks"
  done
  wait_for 120 '[ "$(job_state g)" = finished ]' || fail "job did not finish"
  no_wrong_allreduce g
  [ "$(out g | grep -c '^joined')" = 8 ] || fail "expected 8 processes to join"
  [ "$(out g | grep -c '^left')" = 7 ] || fail "expected 7 processes to leave"
  [ "$(out g | grep -c '^done rank 0 size 1 ')" = 1 ] || fail "expected one rank to finish at size 1"
  local gens
  gens=$(out g | grep -oE '^(changed|joined) gen [0-9]+' | awk '{print $3}' | sort -un | wc -l)
  [ "$gens" -ge 3 ] || fail "only $gens generations"
  # The grows' spawns ran beside the training: the leader kept stepping while they went on (the
  # steps it took meanwhile are the "overlap" of its "changed" lines after a grow).
  local overlapped
  overlapped=$(out g | awk '/^(joined|changed) / && $5 == 0 {
    if (prev > 0 && $7 > prev && $11 > 0) n++; prev = $7 } END { print n + 0 }')
  [ "$overlapped" -ge 1 ] || fail "no grow overlapped with training: $(out g | grep '^changed')"
  sleep 1
  no_mpi_errors || fail "MPI error output"
  echo "generations: $gens"
}

case_shrink_notice() {  # h3 leaves the hostfile: vacated and released within the grace period
  GRACE=15
  hosts_range 4
  # A held node leaving is planned at once, not after the debounce (its new owner waits): with
  # 20 s here, a plan that waited for it would miss the 15 s below. The start waits for it.
  start_daemon --debounce-s 20
  submit s 1500 1 4
  wait_for 60 '[ "$(job_ranks s)" = 4 ]' || fail "job did not reach 4 ranks"
  [ -n "$(rank_pids h3)" ] || fail "no ranks on h3 before the notice"
  hosts_list h1 h2 h4
  wait_for 15 "[ \$(count_events node_released '\"h3\"') -ge 1 ]" || fail "h3 not released within the grace period"
  [ -z "$(rank_pids h3)" ] || fail "ranks left on h3: $(rank_pids h3)"
  grep '"node_released"' "$S/events.jsonl" | grep h3
  [ "$(job_state s)" = running ] && [ "$(job_ranks s)" = 3 ] || fail "job not running on 3 ranks"
  wait_for 120 '[ "$(job_state s)" = finished ]' || fail "job did not finish"
  no_wrong_allreduce s
  no_mpi_errors || fail "MPI error output"
}

job_samples() {
  python3 -c "import json; d=json.load(open('$S/status.json')); print(next((j['samples_done'] for j in d['jobs'] if j['id']=='$1'), -1))" 2>/dev/null
}

case_leader_leaves() {  # the oldest rank's node leaves: the job's sample count does not drop
  hosts_list h1
  start_daemon
  submit l 100000 1 2
  wait_for 60 '[ "$(job_ranks l)" = 1 ]' || fail "job did not start"
  sleep 5
  hosts_list h1 h2
  wait_for 60 '[ "$(job_ranks l)" = 2 ]' || fail "job did not grow to h2"
  sleep 3
  local before after
  before=$(job_samples l)
  hosts_list h2  # the leader (C rank 0, on h1) leaves; h2's rank, which joined later, leads
  wait_for 60 '[ "$(job_ranks l)" = 1 ] && [ "$(job_nodes l)" = h2 ]' || fail "h1 not released"
  sleep 3
  after=$(job_samples l)
  echo "samples counted: $before before h1 left, $after after"
  [ "$after" -gt "$before" ] || fail "the sample count dropped from $before to $after"
}

case_hello_leader_leaves() {  # example 01: the rank that joined and then leads keeps the step count
  hosts_list h1
  start_daemon
  # Runs until cancelled; linear scaling, so that the planner keeps both nodes (learned, the
  # example's steps of microseconds run faster on one node, and it shrank back before h1 left).
  SUBMIT_TOML=$(linear_scaling 2) TRAINER=$HELLO submit h 1000000000 1 2
  wait_for 60 '[ "$(job_ranks h)" = 1 ]' || fail "job did not start"
  sleep 2
  hosts_list h1 h2
  wait_for 60 '[ "$(job_ranks h)" = 2 ]' || fail "job did not grow to h2"
  sleep 2
  hosts_list h2
  wait_for 60 '[ "$(job_ranks h)" = 1 ] && [ "$(job_nodes h)" = h2 ]' || fail "h1 not released"
  sleep 2
  "$ELASTIC" --state-dir "$S" cancel h > /dev/null || fail "cancel h"
  wait_for 60 "out h | grep -q '^done:'" || fail "example 01 did not stop: $(job_state h)"
  out h | grep '^done:'
  # Every step adds 1 to the model: a rank that started counting steps at 0 when it joined (until
  # 2026-12-07) ended with fewer steps than the model says.
  out h | grep -qE '^done: ([0-9]+) steps, model \1\.0,' || fail "steps and model disagree"
}

case_kill() {  # a whole host dies (its PRRTE daemon too), three times; it comes back and is reused
  hosts_range 4
  start_daemon
  SUBMIT_TOML=$(linear_scaling 4) submit k 2400 1 4
  wait_for 60 '[ "$(job_ranks k)" = 4 ]' || fail "job did not reach 4 ranks"
  local round victim
  for round in 1 2 3; do
    victim=$(printf 'h%d' $((round + 1)))
    sleep 1
    kill_node "$victim"
    wait_for 60 "[ \$(count_events node_lost '\"$victim\"') -ge 1 ]" || fail "loss of $victim not seen"
    wait_for 60 '[ "$(job_ranks k)" = 3 ]' || fail "job did not continue on 3 ranks"
    wait_for 5 "[ \"\$(node_state $victim)\" = lost ]" || fail "$victim not marked lost"
    # The node comes back: the scheduler drops it and grants it again.
    hosts_list $(for i in 1 2 3 4; do n=$(printf 'h%d' $i); [ $n != "$victim" ] && echo $n; done)
    sleep 1.5
    hosts_range 4
    wait_for 60 '[ "$(job_ranks k)" = 4 ]' || fail "job did not grow back after round $round"
    job_nodes k | grep -qw "$victim" || fail "$victim not reused"
    echo "round $round: $victim lost, recovered, reused"
  done
  wait_for 180 '[ "$(job_state k)" = finished ]' || fail "job did not finish"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  no_wrong_allreduce k
  [ "$(out k | grep -c '^recovered')" -ge 3 ] || fail "expected recoveries"
  # The decision log, drawn: the three hosts lost, each where the pool still had it.
  "$ELASTIC" --state-dir "$S" timeline --out "$T/timeline" || fail "elastic timeline failed"
  [ "$(awk '!/^#/ { print $2, $3 }' "$T/timeline/timeline_lost.dat" | tr '\n' ' ')" = "4 h2 4 h3 4 h4 " ] \
    || fail "timeline's lost nodes: $(cat "$T/timeline/timeline_lost.dat")"
}

# A host vanishes without a word (box.sh vanish: its cable cut, its processes stopped), as at a power
# loss: no connection reset and no exit of its launch agent tells anybody. PRRTE declares its daemon
# lost after 20 s of silence (the prefix's keepalive settings; patch 0029 for the connection that
# has data in flight, which otherwise waited 15-30 minutes for TCP's retransmissions to run out),
# the job repairs onto 3 ranks, and the host, rebooted, is granted again and reused. The job grew
# onto h3, so the survivors on h1 and h2 are told of h3's process by PRRTE's notification to other
# jobs (patch 0030); no reset connection tells them.
case_vanish() {
  hosts_range 2
  start_daemon
  SUBMIT_TOML=$(linear_scaling 4) submit v 2400 1 4
  wait_for 60 '[ "$(job_ranks v)" = 2 ]' || fail "job did not start on 2 ranks"
  # Grown onto h3 and h4 by a spawn: their processes are another PRRTE job than h1's and h2's.
  hosts_range 4
  wait_for 60 '[ "$(job_ranks v)" = 4 ]' || fail "job did not grow to 4 ranks"
  sleep 1
  echo "h3 vanishes: $("$BOX" pids h3 | tr '\n' ' ')"
  local cut=$SECONDS
  "$BOX" vanish h3
  # Another job starts meanwhile on h5, as on any busy cluster: its launch message goes to every
  # PRRTE daemon, h3's too, and waits unacknowledged in the connection to h3, which TCP's keepalive
  # never probes (patch 0029 bounds that case). A node is worth more to it than to v, so it keeps h5.
  hosts_list h1 h2 h3 h4 h5
  SUBMIT_TOML=$(printf '[scaling]\nnodes = [1, 2]\nsamples_per_s = [100.0, 200.0]\ngrow_stall_s = 0.0\nshrink_stall_s = 0.0') \
    submit w 100000000 1 1 ELASTIC_TEST_STOP_FILE="$T/stop_w"
  wait_for 120 "[ \$(count_events node_lost '\"h3\"') -ge 1 ]" || fail "loss of h3 not seen"
  echo "h3's loss seen $((SECONDS - cut)) s after the cut"
  wait_for 60 '[ "$(job_ranks v)" = 3 ]' || fail "job did not continue on 3 ranks"
  grep -q 'on node h3 lost' "$T/daemon.log" || fail "PRRTE did not report h3's daemon lost"
  wait_for 60 '[ "$(job_nodes w)" = h5 ]' || fail "job w did not start on h5"
  hosts_list h1 h2 h4 h5
  "$BOX" revive h3
  sleep 1.5
  hosts_list h1 h2 h3 h4 h5
  wait_for 60 '[ "$(job_ranks v)" = 4 ]' || fail "job did not grow back onto h3"
  job_nodes v | grep -qw h3 || fail "h3 not reused"
  wait_for 180 '[ "$(job_state v)" = finished ]' || fail "job did not finish"
  touch "$T/stop_w"
  wait_for 60 '[ "$(job_state w)" = finished ]' || fail "job w did not finish"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  no_wrong_allreduce v w
  out v | grep -q '^recovered' || fail "the ranks saw no recovery"
}

# The leader's node dies: C rank 0, the sync's root and the rank that sends the job's sample count
# (every other kill case spares it). The survivors repair, the next oldest leads, the count goes on
# from where it was, and the job finishes without a restart from its checkpoint.
case_kill_leader() {
  hosts_range 3
  start_daemon
  SUBMIT_TOML=$(linear_scaling 3) submit k 3000 1 3
  wait_for 60 '[ "$(job_ranks k)" = 3 ]' || fail "job did not reach 3 ranks"
  wait_for 60 '[ "$(job_samples k)" -ge 300 ]' || fail "fewer than 300 samples counted: $(job_samples k)"
  local nodes leader before after survivors
  read -r -a nodes <<< "$(job_nodes k)"
  leader=${nodes[0]}  # nodes are in rank order: the oldest rank leads
  grep -q "^joined gen 1 rank 0 size 3 node $leader " <(out k) || fail "rank 0 is not on $leader: $(out k | head -3)"
  before=$(job_samples k)
  kill_node "$leader"
  wait_for 60 "[ \$(count_events job_recovered '\"k\"') -ge 1 ]" || fail "k did not recover from the loss of its leader's node $leader"
  wait_for 60 '[ "$(job_ranks k)" = 2 ]' || fail "k did not go on with 2 ranks"
  survivors=$(job_nodes k)
  wait_for 30 "[ \"\$(job_samples k)\" -gt $before ]" || fail "the count did not go on past $before: $(job_samples k)"
  after=$(job_samples k)
  wait_for 180 '[ "$(job_state k)" = finished ]' || fail "k did not finish: $(job_state k)"
  [ "$(count_events job_requeued)" = 0 ] || fail "k was requeued (restarted from its checkpoint)"
  [ "$(count_events node_lost "\"$leader\"")" -ge 1 ] || fail "the loss of $leader was not recorded"
  no_wrong_allreduce k
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  echo "leader's node $leader killed: recovered on $survivors, samples $before before, $after after the repair"
}

# PRRTE routes over a tree of daemons, 64 children each by default: past 64 hosts a daemon relays
# for others, and its node's loss cut them off too. The box has 8 hosts, so a chain (routing radix
# 1, through the environment: h1's daemon relays for h2's, h2's for h3's, ...) stands in for a
# larger cluster's tree. First, without elastic up's radix, h2's loss takes h3 and h4 with it (the
# stand-in works); then, with the radix `elastic up` passes on the command line (which overrides
# the environment), h2's loss costs h2 only, and the job grows back onto it.
case_kill_relay() {
  local flat
  hosts_range 4
  flat=$("$ELASTIC" --state-dir "$T/dry" up --hostfile "$H" --mpirun "$MPIRUN" \
           --elasticd "$ELASTICD" --agent /bin/true --dry-run | grep -o -- '--prtemca rml_base_radix [0-9]*')
  [ -n "$flat" ] || fail "elastic up passes no routing radix"
  export PRTE_MCA_rml_base_radix=1
  local base=("${BOX_MPIRUN_ARGS[@]}") setting lost
  for setting in chain flat; do
    [ $setting = chain ] || { BOX_MPIRUN_ARGS=("${base[@]}" $flat); S=$T/state-flat; hosts_range 4; }
    start_daemon
    SUBMIT_TOML=$(linear_scaling 4) submit $setting 100000 1 4
    wait_for 60 "[ \"\$(job_ranks $setting)\" = 4 ]" || fail "$setting: job did not reach 4 ranks"
    sleep 1
    kill_node h2
    wait_for 60 "[ \$(count_events node_lost '\"h2\"') -ge 1 ]" || fail "$setting: loss of h2 not seen"
    sleep 5  # time for the daemons behind h2 to be declared lost too
    lost=$(for h in h1 h3 h4; do [ "$(count_events node_lost "\"$h\"")" -ge 1 ] && echo $h; done | xargs)
    echo "$setting ($(printf '%s ' "${BOX_MPIRUN_ARGS[@]}" | grep -o 'rml_base_radix [0-9]*' || echo "radix 1 from the environment")): h2 killed, also lost: ${lost:-none}"
    if [ $setting = chain ]; then
      [ -n "$lost" ] || fail "the chain did not route through h2: nothing behind it was lost"
      kill -TERM "$DAEMON_PID"; wait_for 20 "! kill -0 $DAEMON_PID 2>/dev/null" || kill -KILL "$DAEMON_PID"
      kill_all_hosts
      continue
    fi
    [ -z "$lost" ] || fail "h2's loss took $lost with it"
    wait_for 60 '[ "$(job_ranks flat)" = 3 ]' || fail "job did not continue on 3 ranks"
    hosts_list h1 h3 h4
    sleep 1.5
    hosts_range 4
    wait_for 60 '[ "$(job_ranks flat)" = 4 ]' || fail "job did not grow back onto h2"
  done
}

# --hole-loss: elasticd learns from the hostfile how long granted nodes stay. h1 and h2 come and
# go three times (holes of about 3 s) while h3 stays; then all three are granted and a 1-node job
# submitted at once starts on h3, the node expected to stay longest (by hand, without --hole-loss
# the same job started on h1, the first free node in the allocator's node order).
case_hole_loss() {
  hosts_list h3
  start_daemon --hole-loss --horizon-s 60
  local round
  for round in 1 2 3; do
    hosts_list h1 h2 h3
    sleep 3
    hosts_list h3
    sleep 1
  done
  hosts_list h1 h2 h3
  submit s 200 1 1
  wait_for 60 '[ "$(job_ranks s)" = 1 ]' || fail "job did not start"
  local expected  # in the plan that started it
  expected=$(python3 -c "
import json
for l in open('$S/events.jsonl'):
    p = json.loads(l)
    if p['event'] == 'plan' and any(a['job'] == 's' and a['count'] == 1 for a in p['plan']):
        print(' '.join(f'{n}={p[\"expected_idle_s\"][n]:g}' for n in ('h1', 'h2', 'h3'))); break")
  echo "started on $(job_nodes s); the plan's expected idle seconds: $expected"
  [ "$(job_nodes s)" = h3 ] || fail "started on $(job_nodes s), not on h3 (expected idle: $expected)"
  [ "$(count_events hostfile)" -ge 7 ] || fail "the hostfile changes were not all seen"
  wait_for 60 '[ "$(job_state s)" = finished ]' || fail "job did not finish"
}

case_kill_job() {  # every rank of a job dies at once (its only host, daemon included)
  hosts_range 2
  start_daemon
  submit j 900 1 1
  wait_for 60 '[ "$(job_ranks j)" = 1 ]' || fail "job did not start"
  local victim
  victim=$(job_nodes j)
  sleep 1
  kill_node "$victim"
  # No survivor is left to revoke the job's communicator: elasticd must learn of the loss itself.
  wait_for 30 "[ \$(count_events node_lost '\"$victim\"') -ge 1 ]" || fail "loss of $victim not seen"
  wait_for 10 "[ \$(count_events job_requeued '\"j\"') -ge 1 ]" || fail "job not requeued"
  wait_for 60 '[ "$(job_state j)" = running ]' || fail "job not started again: $(job_state j)"
  job_nodes j | grep -qw "$victim" && fail "started again on the lost node $victim"
  wait_for 120 '[ "$(job_state j)" = finished ]' || fail "job did not finish: $(job_state j)"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  echo "lost $victim with every rank of the job; requeued, finished on $(grep '"job_started"' "$S/events.jsonl" | tail -1 | sed 's/.*"nodes":\[\([^]]*\)\].*/\1/')"
}

# A repair waits until every survivor has entered it; a rank in a long step enters at its next MPI
# call (here SIGSTOP holds job a's survivor). Meanwhile elasticd serves its other jobs: b loses a
# node at the same instant, and its own repair ends beside a's; b finishes and is stopped, c is
# planned onto b's node and starts, status.json shows a repairing; when the survivor goes on, a's
# repair ends and a trains on without the lost node. (Until 2026-12-03 elasticd ran the repair
# inline: nothing else happened until it ended.)
case_repair_waits() {
  hosts_range 5
  start_daemon
  SUBMIT_TOML=$(linear_scaling 2) submit a 2500 1 2
  wait_for 60 '[ "$(job_ranks a)" = 2 ]' || fail "job a did not reach 2 ranks"
  SUBMIT_TOML=$(linear_scaling 2) submit b 600 1 2
  wait_for 60 '[ "$(job_state b)" = running ] && [ "$(job_ranks b)" = 2 ]' || fail "job b did not reach 2 ranks"
  local nodes survivor victim pids b_nodes
  read -r -a nodes <<< "$(job_nodes a)"
  read -r -a b_nodes <<< "$(job_nodes b)"
  survivor=${nodes[0]} victim=${nodes[1]}
  pids=$(rank_pids "$survivor")
  [ -n "$pids" ] || fail "no rank of a on $survivor"
  kill -STOP $pids
  echo "stopped a's rank on $survivor ($pids)"
  kill_node "$victim"
  kill_node "${b_nodes[1]}"
  wait_for 30 "[ \$(count_events job_repair_started '\"a\"') -ge 1 ]" || { kill -CONT $pids; fail "a's repair did not start"; }
  wait_for 40 "[ \$(count_events job_recovered '\"b\"') -ge 1 ]" || { kill -CONT $pids; fail "b's repair did not end while a's waited"; }
  wait_for 40 '[ "$(job_state b)" = finished ]' || { kill -CONT $pids; fail "b did not finish while a's repair waited: $(job_state b)"; }
  out b | grep -q '^recovered' || { kill -CONT $pids; fail "b's ranks saw no recovery"; }
  grep -q WRONG "$S/jobs/b/stderr" && { kill -CONT $pids; fail "wrong allreduce in b"; }
  submit c 100 1 1
  wait_for 20 '[ "$(job_state c)" = finished ]' || { kill -CONT $pids; fail "c did not run while a's repair waited: $(job_state c)"; }
  local recovered state
  recovered=$(count_events job_recovered '"a"') state=$(job_state a)
  state="$state$(python3 -c "import json; d=json.load(open('$S/status.json')); print(''.join(' (' + j['reason'] + ')' for j in d['jobs'] if j['id'] == 'a' and j['reason']))")"
  kill -CONT $pids
  echo "b recovered and finished, c ran on $(grep '"job_started"' "$S/events.jsonl" | grep '"job":"c"' | sed 's/.*"nodes":\[\([^]]*\)\].*/\1/') while a's repair waited for its stopped rank (a: $state, recoveries so far: $recovered)"
  [ "$recovered" = 0 ] && [ "$state" = "running (repairing: a process failed)" ] ||
    fail "a's repair ended before its rank went on, or status.json did not show it"
  grep '"event":"plan"' "$S/events.jsonl" | grep -q '"repairing":\["a"\]' || fail "no plan left a out while it repaired"
  wait_for 60 "[ \$(count_events job_recovered '\"a\"') -ge 1 ]" || fail "a's repair did not end"
  grep '"job_recovered"' "$S/events.jsonl" | cut -c1-300
  wait_for 120 '[ "$(job_state a)" = finished ]' || fail "a did not finish: $(job_state a)"
  no_wrong_allreduce a
  [ "$(out a | grep -c '^recovered')" -ge 1 ] || fail "a's ranks saw no recovery"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
}

# A job cancelled while it repairs the loss of a node (its survivor SIGSTOPped holds the repair
# open): the loss is kept, the node stays lost and the next job is not placed there, although the
# job ended before any poll saw its repair end. (Until 2026-12-07 the cancel dropped the repair's
# lost nodes with the job: the dead host went back to the pool.)
case_cancel_in_repair() {
  hosts_range 3
  start_daemon
  SUBMIT_TOML=$(linear_scaling 2) submit a 2500 1 2
  wait_for 60 '[ "$(job_ranks a)" = 2 ]' || fail "job a did not reach 2 ranks"
  local nodes survivor victim pids
  read -r -a nodes <<< "$(job_nodes a)"
  survivor=${nodes[0]} victim=${nodes[1]}
  pids=$(rank_pids "$survivor")
  [ -n "$pids" ] || fail "no rank of a on $survivor"
  kill -STOP $pids
  kill_node "$victim"
  wait_for 30 "[ \$(count_events job_repair_started '\"a\"') -ge 1 ]" || { kill -CONT $pids; fail "a's repair did not start"; }
  "$ELASTIC" --state-dir "$S" cancel a > /dev/null || { kill -CONT $pids; fail "cancel a"; }
  wait_for 20 "[ \$(count_events job_cancel_requested '\"a\"') = 1 ]" ||
    { kill -CONT $pids; fail "elasticd did not take the cancel"; }
  kill -CONT $pids
  wait_for 60 '[ "$(job_state a)" = cancelled ]' || fail "a was not cancelled: $(job_state a)"
  [ "$(count_events job_recovered '"a"')" = 0 ] || fail "a's repair ended in a poll: the case did not cancel during it"
  wait_for 10 "[ \$(count_events node_lost '\"$victim\"') -ge 1 ]" || fail "the loss of $victim was forgotten"
  [ "$(node_state "$victim")" = lost ] || fail "$victim is $(node_state "$victim"), not lost"
  submit b 300 1 3
  wait_for 60 '[ "$(job_state b)" = finished ]' || fail "b did not finish: $(job_state b)"
  grep -E '"event":"job_(started|grown)"' "$S/events.jsonl" | grep '"job":"b"' | grep -q "\"$victim\"" &&
    fail "b was placed on the lost node $victim"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  echo "a cancelled during its repair; $victim stays lost; b started on $(grep '"job_started"' "$S/events.jsonl" | grep '"job":"b"' | sed 's/.*"nodes":\[\([^]]*\)\].*/\1/')"
}

# A failure interrupts a planned shrink. Job a holds h1..h3 with its ranks SIGSTOPped, so the
# shrink that makes room for b (far faster per node) waits for them; a node that a keeps dies
# meanwhile. The shrink ends in a repair, not a split: the node a was to give up is still a's, so
# b's start there is skipped (action_skipped) until a later plan shrinks a for real, and no two
# jobs ever hold one node. (Until 2026-12-07 the shrink reported success after the repair and b
# was started beside a's rank.)
case_shrink_interrupted() {
  hosts_range 3
  start_daemon
  SUBMIT_TOML=$(linear_scaling 3) submit a 2500 1 3
  wait_for 60 '[ "$(job_ranks a)" = 3 ]' || fail "job a did not reach 3 ranks"
  local nodes pids n given victim
  read -r -a nodes <<< "$(job_nodes a)"
  pids=$(for n in "${nodes[@]}"; do rank_pids "$n"; done)
  [ "$(echo $pids | wc -w)" = 3 ] || fail "not 3 ranks of a: $pids"
  kill -STOP $pids
  SUBMIT_TOML=$(printf '[scaling]\nnodes = [1]\nsamples_per_s = [5000.0]\ngrow_stall_s = 0.0\nshrink_stall_s = 0.0') \
    submit b 300 1 1
  wait_for 30 "grep '\"event\":\"plan\"' '$S/events.jsonl' | grep -q '\"count\":1,\"job\":\"b\"'" ||
    { kill -CONT $pids; fail "no plan gave b a node"; }
  given=$(grep '"event":"plan"' "$S/events.jsonl" | grep -o '"count":1,"job":"b","nodes":\["[^"]*"\]' | head -1 |
    sed 's/.*"nodes":\["\([^"]*\)"\].*/\1/')
  for n in "${nodes[@]}"; do [ "$n" != "$given" ] && victim=$n && break; done
  echo "the plan gives b $given of a's ${nodes[*]}; a's ranks are stopped; killing $victim"
  kill_node "$victim"
  kill -CONT $pids 2> /dev/null
  wait_for 60 "grep '\"action_skipped\"' '$S/events.jsonl' | grep '\"job\":\"b\"' | grep -q '\"$given\"'" ||
    fail "b's start on $given (still a's) was not skipped"
  grep '"job_shrunk"' "$S/events.jsonl" | grep '"job":"a"' | head -1 | grep -q '"ok":false' ||
    fail "a's interrupted shrink was reported as done"
  wait_for 120 '[ "$(job_state b)" = finished ]' || fail "b did not finish: $(job_state b)"
  wait_for 120 '[ "$(job_state a)" = finished ]' || fail "a did not finish: $(job_state a)"
  [ "$(count_events job_recovered '"a"')" -ge 1 ] || fail "a did not recover from the loss of $victim"
  no_wrong_allreduce a
  # b started on $given only after a let it go (a job_shrunk that released it, ok).
  local order
  order=$(grep -nE '"event":"(job_started|job_shrunk)"' "$S/events.jsonl" |
    grep -E '"job":"b"|"ok":true' | head -2 | cut -d: -f2- | sed 's/.*"event":"\([a-z_]*\)".*/\1/' | tr '\n' ' ')
  [ "$order" = "job_shrunk job_started " ] || fail "b started before a released a node: $order"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  echo "a's shrink was interrupted by the loss of $victim; b waited for $given and started on $(grep '"job_started"' "$S/events.jsonl" | grep '"job":"b"' | sed 's/.*"nodes":\[\([^]]*\)\].*/\1/')"
}

# A process that left its job and does not exit is killed: at its node's deadline when the node
# leaves the hostfile (grace period), grace_s after it left otherwise. Job x's only rank is
# SIGSTOPped and its node taken back: the stop times out, x is requeued onto the other node, and
# elasticd kills the rank through PRRTE (PMIx job control) at the node's deadline. Then job y's
# rank is stopped and y cancelled on a node that stays: killed grace_s later, and job z starts
# there. (Until 2026-12-03 such a rank kept its node "in use" for ever: grace_exceeded events.)
case_grace_kill() {
  GRACE=4
  hosts_range 2
  start_daemon --directive-timeout-s 3
  submit x 600 1 1
  wait_for 60 '[ "$(job_ranks x)" = 1 ]' || fail "job x did not start"
  local v w pids
  v=$(job_nodes x)
  w=$([ "$v" = h1 ] && echo h2 || echo h1)
  pids=$(rank_pids "$v")
  [ -n "$pids" ] || fail "no rank of x on $v"
  kill -STOP $pids
  hosts_list "$w"
  wait_for 30 "[ \$(count_events processes_killed '\"$v\"') -ge 1 ]" || fail "x's stopped rank on $v was not killed"
  wait_for 15 "[ \$(count_events node_released '\"$v\"') -ge 1 ]" || fail "$v not released after the kill"
  [ -z "$(rank_pids "$v")" ] || fail "ranks left on $v: $(rank_pids "$v")"
  grep -E '"(processes_killed|node_released)"' "$S/events.jsonl" | cut -c1-200
  wait_for 90 '[ "$(job_state x)" = finished ]' || fail "x did not finish after its requeue: $(job_state x)"
  submit y 3000 1 1
  wait_for 60 '[ "$(job_ranks y)" = 1 ]' || fail "job y did not start"
  [ "$(job_nodes y)" = "$w" ] || fail "y started on $(job_nodes y), not $w"
  pids=$(rank_pids "$w")
  kill -STOP $pids
  "$ELASTIC" --state-dir "$S" cancel y > /dev/null || fail "cancel y"
  wait_for 30 "[ \$(count_events processes_killed '\"$w\"') -ge 1 ]" || fail "y's stopped rank on $w was not killed"
  submit z 100 1 1
  wait_for 60 '[ "$(job_state z)" = finished ]' || fail "z did not run on $w after the kill: $(job_state z)"
  # z's rank may still be exiting (a sanitized one runs its leak check): nothing is left soon.
  wait_for 20 '[ -z "$(rank_pids "$w")" ]' || fail "ranks left on $w: $(rank_pids "$w")"
  echo "y: $(job_state y); z ran on $(grep '"job_started"' "$S/events.jsonl" | grep '"job":"z"' | sed 's/.*"nodes":\[\([^]]*\)\].*/\1/')"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
}

case_churn() {  # 3 jobs on 8 nodes, the hostfile changes every 3 s
  hosts_range 8
  start_daemon
  submit a 700 1 8; submit b 700 1 8; submit c 700 2 8
  local sets=("1 2 3 4 5 6 7 8" "1 2 3 5 8" "2 3 4 5 6 7" "1 4 6 7 8" "1 2 3 4 5 6 7 8" "3 4 5 6" "1 2 5 6 7 8")
  local i=0 s
  while [ "$(job_state a)$(job_state b)$(job_state c)" != finishedfinishedfinished ] && ((i < 40)); do
    s=${sets[$((i % ${#sets[@]}))]}
    hosts_list $(for x in $s; do printf 'h%d ' "$x"; done)
    sleep 3
    i=$((i + 1))
  done
  hosts_range 8
  wait_for 180 '[ "$(job_state a)$(job_state b)$(job_state c)" = finishedfinishedfinished ]' ||
    fail "not all jobs finished: $(job_state a) $(job_state b) $(job_state c)"
  no_wrong_allreduce a b c
  echo "hostfile changes: $i, plans: $(count_events plan), rescales: $(($(count_events job_grown) + $(count_events job_shrunk)))"
  # Plans are followed: after each plan, each job's last start/grow/shrink holds the plan's nodes.
  python3 - "$S/events.jsonl" <<'PY' || fail "an action did not follow its plan"
import json, sys
bad = 0
def check(plan, last):
    global bad
    for job, nodes in last.items():
        if sorted(nodes) != sorted(plan.get(job, [])):
            print("mismatch", job, nodes, plan.get(job)); bad += 1
plan, last = {}, {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "plan":
        check(plan, last)
        plan, last = {p["job"]: p["nodes"] for p in e["plan"]}, {}
    elif e["event"] in ("job_started", "job_grown", "job_shrunk") and e.get("ok", True):
        last[e["job"]] = e["nodes"]
    elif e["event"] in ("node_lost", "job_requeued"):
        last.pop(e.get("job"), None)
check(plan, last)
sys.exit(1 if bad else 0)
PY
}

learned_apart() {
  python3 - "$S/events.jsonl" <<'PY'
import json, sys
last = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "plan":
        for j in e["jobs"]:
            if "learned" in j and j["learned"]["counts_measured"] >= 2:
                last[j["job"]] = j["learned"]["serial_fraction"]
print("serial fractions:", last)
sys.exit(0 if last.get("scales", 0) < 0.2 and last.get("flat", 0) > 0.6 else 1)
PY
}

case_learn() {  # two jobs without tables: one scales, one does not; the runtime learns which
  hosts_range 6
  start_daemon
  # The flat job comes first and takes every node; the one that scales must win them from it.
  submit flat 100000 1 6 ELASTIC_TEST_NO_SCALING=1
  wait_for 60 '[ "$(job_ranks flat)" = 6 ]' || fail "flat did not take the 6 nodes"
  wait_for 30 "[ \$(count_events throughput_learned '\"flat\"') -ge 1 ]" || fail "nothing learned for flat"
  submit scales 100000 1 5
  wait_for 180 '[ "$(job_ranks scales)" -ge 4 ] && [ "$(job_ranks flat)" = 1 ]' ||
    fail "not learned: scales has $(job_ranks scales) nodes, flat $(job_ranks flat)"
  echo "scales: $(job_ranks scales) nodes, flat: $(job_ranks flat) node"
  # The fit, as the plans used it: the flat job, measured at two counts, has a serial fraction
  # near 1; the one that scales, near 0 once it too has two counts.
  wait_for 90 learned_apart || fail "learned curves are wrong: $(learned_apart)"
  learned_apart
  grep '"throughput_learned"' "$S/events.jsonl" | cut -c1-200 | tail -4
  "$ELASTIC" --state-dir "$S" cancel scales > /dev/null; "$ELASTIC" --state-dir "$S" cancel flat > /dev/null
}

case_restart() {  # SIGKILL elasticd mid-run and start it again: no job lost
  hosts_range 4
  # Compacted as soon as it holds two records per job: the restart replays snapshots.
  start_daemon --journal-compact-records 1
  submit r1 900 1 4
  wait_for 60 '[ "$(job_state r1)" = running ]' || fail "r1 did not start"
  # r2 is worth little per node: it waits in the queue while r1 holds the nodes.
  {
    echo 'id = "r2"'; echo "command = \"$TRAINER\""; echo 'args = ["200"]'
    echo 'min_nodes = 1'; echo 'max_nodes = 2'
    echo '[env]'; echo 'ELASTIC_TEST_STEP_US = "20000"'
    echo '[scaling]'; echo 'nodes = [1]'; echo 'samples_per_s = [0.001]'
  } > "$T/r2.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/r2.toml" > /dev/null || fail "submit r2"
  wait_for 30 '[ "$(job_state r2)" = queued ]' || fail "r2 not queued"
  sleep 2
  grep -q '"event":"snapshot"' "$S/journal.jsonl" || fail "journal not compacted"
  grep '"journal_compacted"' "$S/events.jsonl" | tail -1
  local records
  records=$(wc -l < "$S/journal.jsonl")
  crash_and_restart_daemon
  grep '"daemon_started"' "$S/events.jsonl" | tail -1
  grep '"daemon_started"' "$S/events.jsonl" | tail -1 | grep -q "\"journal_records\":$records," ||
    fail "the restart did not replay the $records records of the compacted journal"
  wait_for 60 "[ \$(count_events job_started '\"r1\"') -ge 2 ]" || fail "r1 not restarted"
  wait_for 240 '[ "$(job_state r1)$(job_state r2)" = finishedfinished ]' ||
    fail "jobs lost: r1=$(job_state r1) r2=$(job_state r2)"
}

case_daemon_dies() {  # elasticd is SIGKILLed and nothing restarts it: its job's ranks end too
  hosts_range 2
  start_daemon
  SUBMIT_TOML=$(linear_scaling 2) submit d 100000 1 2
  wait_for 60 '[ "$(job_ranks d)" = 2 ]' || fail "job did not reach 2 ranks"
  sleep 2
  local dpid
  dpid=$(cat "$S/daemon.pid")
  echo "SIGKILL elasticd $dpid"
  kill -KILL "$dpid"
  # No rank may train on for a runtime that is gone, holding its node: each ends by itself.
  wait_for 60 '[ -z "$(rank_pids h1)$(rank_pids h2)" ]' ||
    fail "ranks still running 60 s after elasticd died: h1 $(rank_pids h1), h2 $(rank_pids h2)"
  echo "the ranks ended; mpirun $(kill -0 "$DAEMON_PID" 2> /dev/null && echo "still runs" || echo "has exited")"
  tail -3 "$S/jobs/d/stderr"
  # Each rank saw why. Until 2026-12-07 the survivors repaired J without the controller, took a
  # rank's data for directives ("invalid directive from the controller: bad magic 0") and gave up
  # after five repairs ("the job communicator kept failing").
  [ "$(grep -c 'the runtime (elasticd, the job communicator.s rank 0) is gone' "$S/jobs/d/stderr")" = 2 ] ||
    fail "the ranks did not say that elasticd is gone"
  ! grep -q 'invalid directive' "$S/jobs/d/stderr" || fail "a rank read a directive from another rank"
}

case_bad_input() {
  # A malformed hostfile at start: a clear error naming file:line, exit 2.
  printf 'h1 slots=1\nh2 slots=banana\n' > "$H"
  daemon_cmd > "$T/bad.log" 2>&1
  local rc=$?
  cat "$T/bad.log" | head -3
  [ $rc != 0 ] && grep -q "hosts:2" "$T/bad.log" || fail "malformed hostfile not reported (rc $rc)"
  # Job specs with min > max or without a command: refused by `elastic submit` (exit 2).
  printf 'command = "/bin/true"\nmin_nodes = 3\nmax_nodes = 2\n' > "$T/minmax.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/minmax.toml" > "$T/e1" 2>&1; rc=$?
  cat "$T/e1"; [ $rc = 2 ] && grep -q min_nodes "$T/e1" || fail "min > max accepted"
  printf 'min_nodes = 1\nmax_nodes = 2\n' > "$T/nocmd.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/nocmd.toml" > "$T/e2" 2>&1; rc=$?
  cat "$T/e2"; [ $rc = 2 ] && grep -q command "$T/e2" || fail "missing command accepted"
  hosts_range 4
  start_daemon
  submit good 600 1 2
  # The same bad spec written straight into the queue: rejected by the daemon with the reason.
  cp "$T/minmax.toml" "$S/queue/handmade.toml"
  submit_raw() { "$ELASTIC" --state-dir "$S" submit "$1" > /dev/null 2>&1; }
  printf 'id = "nocmd"\ncommand = "/nonexistent/train"\nmin_nodes = 1\nmax_nodes = 1\n' > "$T/nx.toml"
  submit_raw "$T/nx.toml"
  submit quits 100 1 1 ELASTIC_TEST_EXIT_AT_ONCE=1
  wait_for 30 "[ \$(count_events submission_rejected handmade) -ge 1 ]" || fail "bad queued spec not rejected"
  wait_for 30 '[ "$(job_state nocmd)" = failed ]' || fail "nonexistent command not failed"
  wait_for 60 '[ "$(job_state quits)" = failed ]' || fail "job exiting 1 not failed"
  # A malformed hostfile while running: ignored, the last good pool stays.
  printf 'h1 slots=1\nh2 slots=-4\n' > "$H.new"; mv "$H.new" "$H"
  wait_for 10 "[ \$(count_events hostfile_rejected) -ge 1 ]" || fail "bad hostfile update not reported"
  grep -E '"(submission_rejected|job_failed|hostfile_rejected)"' "$S/events.jsonl" | cut -c1-300
  wait_for 120 '[ "$(job_state good)" = finished ]' || fail "the good job did not finish: $(job_state good)"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
}

grow_failed() { grep '"job_grown"' "$S/events.jsonl" | grep -q '"ok":false'; }
# After a grow that failed: the job (run with ELASTIC_TEST_STOP_FILE=$T/stop) is stopped and
# finishes correctly, elasticd alive and no job failed.
finish_after_failed_grow() {
  touch "$T/stop"
  wait_for 180 "[ \"\$(job_state $1)\" = finished ]" || fail "job did not finish: $(job_state "$1")"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  no_wrong_allreduce "$1"
  [ "$(count_events job_failed)" = 0 ] || fail "a job failed"
}

# A host is lost while a grow's spawn onto it is in progress: h2's daemon runs and has started the
# rank, which holds before MPI_Init, so the spawn cannot complete until the host is lost. Killed, the
# host's kernel resets its connections at once; vanished, PRRTE's keepalive notices it after 20 s.
# Either way the spawn fails well before elasticd's 60 s spawn timeout, the grow with it, and the job
# goes on; the host, back, is used.
mid_spawn_loss() {  # mid_spawn_loss kill|vanish
  hosts_list h1
  start_daemon
  touch "$T/hold"
  SUBMIT_TOML=$(linear_scaling 2) submit m 100000 1 2 ELASTIC_TEST_HOLD_BEFORE_INIT_ON=h2 \
    ELASTIC_TEST_HOLD_FILE="$T/hold" ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks m)" = 1 ]' || fail "job did not start on h1"
  hosts_list h1 h2
  wait_for 60 '[ -n "$(rank_pids h2)" ]' || fail "no rank started on h2"
  sleep 1
  local lost=$SECONDS bound=30
  if [ "$1" = kill ]; then kill_node h2; else "$BOX" vanish h2 || fail "box.sh vanish h2"; bound=50; fi
  rm -f "$T/hold"
  wait_for $bound grow_failed || fail "the grow onto the lost host did not fail within $bound s"
  echo "the grow failed $((SECONDS - lost)) s after h2 was lost ($1)"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  [ "$(job_state m)" = running ] || fail "job not running after the failed grow: $(job_state m)"
  # The host is back (kill: its processes died, not the namespace): the retried grow succeeds.
  [ "$1" = kill ] || "$BOX" revive h2
  wait_for 90 '[ "$(job_ranks m)" = 2 ]' || fail "job did not grow onto h2 again"
  job_nodes m | grep -qw h2 || fail "h2 not reused"
  echo "spawn onto h2 failed with the host; job went on at 1 rank, then grew onto h2"
  finish_after_failed_grow m
}
case_kill_mid_spawn() { mid_spawn_loss kill; }
case_vanish_mid_spawn() { mid_spawn_loss vanish; }

# A member of the job dies while a grow's spawn is in progress (its rank holds before MPI_Init on
# h3): WHAT = host (h2 with its PRRTE daemon) or rank (the rank on h2 alone, its daemon lives on).
parent_dies_mid_spawn() {
  local what=$1
  hosts_list h1 h2
  start_daemon
  touch "$T/hold"
  SUBMIT_TOML=$(linear_scaling 3) submit p 100000 1 3 ELASTIC_TEST_HOLD_BEFORE_INIT_ON=h3 \
    ELASTIC_TEST_HOLD_FILE="$T/hold" ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks p)" = 2 ]' || fail "job did not start on h1 and h2"
  hosts_list h1 h2 h3
  wait_for 60 '[ -n "$(rank_pids h3)" ]' || fail "no rank started on h3"
  sleep 1
  if [ "$what" = host ]; then
    kill_node h2
  else
    echo "killed the rank on h2: $(rank_pids h2)"
    kill -KILL $(rank_pids h2)
  fi
  sleep 1
  rm -f "$T/hold"
  # The job repairs onto h1 and grows onto h3: no job failure, no restart from the checkpoint.
  # The grow fails first: its connect spans the dead rank, whose job (the spawn that placed it on
  # h1 and h2) goes on without it.
  local t0=$SECONDS
  wait_for 120 '[ "$(job_ranks p)" = 2 ] && job_nodes p | grep -qw h3' ||
    fail "job did not go on with h1 and h3: $(job_state p) $(job_nodes p)"
  echo "job on h1 and h3 $((SECONDS - t0)) s after the hold ended"
  [ "$(count_events job_recovered)" -ge 1 ] || fail "the job did not recover from the loss of h2"
  [ "$(count_events job_requeued)" = 0 ] || fail "the job was requeued (restarted from its checkpoint)"
  # mpirun (the HNP) releases that connect with an error once it knows the rank is dead (patch
  # 0020); stock PRRTE never completes it, and the grow met elasticd's 60 s spawn timeout.
  grep -q "released with an error: one of them has terminated" "$T/daemon.log" ||
    fail "mpirun did not fail the connect with the dead rank"
  if grep -q "is not known here (waited" "$T/daemon.log"; then
    fail "a connect waited for an unknown job: $(grep -m1 'is not known here' "$T/daemon.log")"
  fi
  finish_after_failed_grow p
}
case_kill_parent_mid_spawn() { parent_dies_mid_spawn host; }
case_kill_rank_mid_spawn() { parent_dies_mid_spawn rank; }

# A launch agent with faults, in place of the box's: for a host H while $T/unreachable.H exists it
# fails as ssh does for a host that is down (exit 255); while $T/late.H exists it starts the command
# 40 s late in the background and ends at once, as ssh does once PRRTE's daemon has daemonized (a
# daemon slow to start: a hung file system, a loaded node). Otherwise it is the box's agent.
use_fault_agent() {
  cat > "$T/agent" <<AGENT
#!/bin/bash
args=("\$@")
while [ \$# -gt 0 ] && [[ \$1 == -* ]]; do shift; done
if [ -e "$T/unreachable.\$1" ]; then
  echo "ssh: connect to host \$1 port 22: No route to host" >&2
  exit 255
fi
if [ -e "$T/late.\$1" ]; then
  setsid bash -c 'sleep 40; exec "\$0" "\$@"' "$BOX" agent "\${args[@]}" < /dev/null >> "$T/late.log" 2>&1 &
  exit 0
fi
exec "$BOX" agent "\${args[@]}"
AGENT
  chmod +x "$T/agent"
  mapfile -t BOX_MPIRUN_ARGS < <("$BOX" mpirun-args --no-agent)
  BOX_MPIRUN_ARGS+=(--prtemca plm_ssh_agent "$T/agent")
}

case_unreachable_host() {  # a granted host cannot be reached: its daemon never starts
  use_fault_agent
  hosts_list h1
  start_daemon
  touch "$T/unreachable.h2"
  SUBMIT_TOML=$(linear_scaling 2) submit u 100000 1 2 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks u)" = 1 ]' || fail "job did not start on h1"
  hosts_list h1 h2
  wait_for 30 grow_failed || fail "the grow onto the unreachable host did not fail within 30 s"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  [ "$(job_state u)" = running ] && [ "$(job_ranks u)" = 1 ] ||
    fail "job not running on 1 rank after the failed grow: $(job_state u) $(job_ranks u)"
  # h2 can be reached again: a retried grow succeeds.
  rm -f "$T/unreachable.h2"
  wait_for 120 '[ "$(job_ranks u)" = 2 ]' || fail "job did not grow onto h2 once it was reachable"
  echo "grow onto unreachable h2 failed; job went on at 1 rank, then grew onto h2"
  finish_after_failed_grow u
}

# A daemon that does not report within PRRTE's 30 s (patch 0031), although its launch agent ended
# well: it counts as failed to start, the grow fails and the job trains on. The retried grow gets a
# new daemon on h2; the first one's report, 40 s after its launch, is refused, and the job, on h2
# by then, is not disturbed.
case_late_daemon() {
  use_fault_agent
  hosts_list h1
  start_daemon
  touch "$T/late.h2"
  SUBMIT_TOML=$(linear_scaling 2) submit d 100000 1 2 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks d)" = 1 ]' || fail "job did not start on h1"
  hosts_list h1 h2
  wait_for 50 grow_failed || fail "the grow onto h2 did not fail within 50 s"
  grep -q 'on node h2 did not report within' "$T/daemon.log" || fail "PRRTE did not give h2's daemon up"
  [ "$(job_state d)" = running ] && [ "$(job_ranks d)" = 1 ] ||
    fail "job not running on 1 rank after the failed grow: $(job_state d) $(job_ranks d)"
  rm -f "$T/late.h2"
  wait_for 120 '[ "$(job_ranks d)" = 2 ]' || fail "job did not grow onto h2 with a new daemon"
  wait_for 60 "grep -q 'reported after it was given up' $T/daemon.log" ||
    fail "no late report from h2's first daemon: $(cat "$T/late.log" 2>/dev/null)"
  sleep 2
  [ "$(job_state d)" = running ] && [ "$(job_ranks d)" = 2 ] ||
    fail "job not running on 2 ranks after the late report: $(job_state d) $(job_ranks d)"
  echo "h2's daemon given up at 30 s; the job grew onto h2 with a new one; the late report refused"
  finish_after_failed_grow d
}

# A granted host vanished before the runtime ever used it (no daemon there yet): the launch agent,
# like ssh, waits for a connection the host never answers (box.sh agent: about 130 s, TCP's own
# limit), longer than elasticd waits for a spawn (60 s), which then failed the job. PRRTE now kills
# an agent whose daemon has not reported in 30 s (patch 0031): the grow fails, the job trains on,
# and the host, back, is used.
case_vanished_host() {
  hosts_list h1
  start_daemon
  SUBMIT_TOML=$(linear_scaling 2) submit x 100000 1 2 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks x)" = 1 ]' || fail "job did not start on h1"
  "$BOX" vanish h2
  local granted=$SECONDS
  hosts_list h1 h2
  wait_for 120 grow_failed || fail "the grow onto the vanished host did not fail within 120 s"
  echo "grow onto vanished h2 failed $((SECONDS - granted)) s after the grant"
  grep -q 'on node h2 did not report within' "$T/daemon.log" ||
    fail "PRRTE did not give up h2's daemon: $(grep -i h2 "$T/daemon.log" | head -5)"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
  [ "$(job_state x)" = running ] && [ "$(job_ranks x)" = 1 ] ||
    fail "job not running on 1 rank after the failed grow: $(job_state x) $(job_ranks x)"
  "$BOX" revive h2
  wait_for 120 '[ "$(job_ranks x)" = 2 ]' || fail "job did not grow onto h2 once it was back"
  finish_after_failed_grow x
}

case_output_bound() {  # a job that prints without bound: its stderr stays near --max-output-mb
  hosts_list h1
  start_daemon --max-output-mb 1
  STEP_US=10000 submit p 100000 1 1 ELASTIC_TEST_PRINT_KB=64 ELASTIC_TEST_STOP_FILE="$T/stop"
  wait_for 60 '[ "$(job_ranks p)" = 1 ]' || fail "job did not start"
  local f=$S/jobs/p/stderr i size max=0
  for ((i = 0; i < 40; i++)); do  # 8 s at up to 6.4 MB/s written
    size=$(stat -c %s "$f" 2>/dev/null || echo 0)
    ((size > max)) && max=$size
    sleep 0.2
  done
  wait_for 10 "[ \$(count_events job_output_dropped) -ge 2 ]" ||
    fail "output not cut twice: $(count_events job_output_dropped) job_output_dropped events"
  # 1 MB bound, checked once a second: the file never held more than the bound plus what a second
  # of this job's output adds (at most 6.4 MB; far more was written).
  ((max < 8 * 1024 * 1024)) || fail "stderr reached $max bytes"
  head -1 "$f" | grep -q '^print rank 0 step 0 line 0 ' || fail "the head of stderr was not kept"
  grep -q '^\[elasticd: [0-9]* bytes of output dropped' "$f" || fail "no marker in stderr"
  local dropped
  dropped=$(grep '"job_output_dropped"' "$S/events.jsonl" | tail -1 | sed 's/.*"total_bytes":\([0-9]*\).*/\1/')
  echo "stderr at most $max bytes over 8 s; $(count_events job_output_dropped) cuts, $dropped bytes dropped"
  ((dropped > 10 * 1024 * 1024)) || fail "only $dropped bytes dropped: the job did not print as asked"
  touch "$T/stop"
  wait_for 60 '[ "$(job_state p)" = finished ]' || fail "job did not finish: $(job_state p)"
  grep -q '^joined ' "$S/jobs/p/stdout" || fail "stdout lost"
}

case_spawn_exit() {  # commands that exit or hang before MPI_Init: the spawn fails, never hangs
  hosts_range 4
  start_daemon --spawn-timeout-s 5
  # At start: /bin/sh -c "exit 1" never joins. The spawn fails as soon as the command has exited
  # (patch 0012), the start is retried and after 3 refused starts the job fails; elasticd goes on.
  {
    echo 'id = "sh1"'; echo 'command = "/bin/sh"'; echo 'args = ["-c", "exit 1"]'
    echo 'min_nodes = 1'; echo 'max_nodes = 1'
  } > "$T/sh1.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/sh1.toml" > /dev/null || fail "submit sh1"
  wait_for 60 '[ "$(job_state sh1)" = failed ]' || fail "sh -c 'exit 1' not failed: $(job_state sh1)"
  grep '"job_failed"' "$S/events.jsonl" | grep sh1 | grep -q "could not start on h1: MPI_Comm_spawn" ||
    fail "no spawn failure reason for sh1"
  [ "$(grep '"job_requeued"' "$S/events.jsonl" | grep -c sh1)" = 2 ] || fail "sh1 not tried 3 times"
  # At a grow: the trainer exits before MPI_Init on h2 only. The grow fails and the job trains on
  # at its size.
  hosts_list h1
  SUBMIT_TOML=$(linear_scaling 2) submit g2 100000 1 2 ELASTIC_TEST_EXIT_BEFORE_INIT_ON=h2 \
    ELASTIC_TEST_STOP_FILE="$T/stop-g2"
  wait_for 60 '[ "$(job_ranks g2)" = 1 ]' || fail "g2 did not start on h1"
  hosts_list h1 h2
  wait_for 30 "grep '\"job_grown\"' '$S/events.jsonl' | grep g2 | grep -q '\"ok\":false'" ||
    fail "g2's grow onto h2 did not fail within 30 s"
  [ "$(job_state g2)" = running ] && [ "$(job_ranks g2)" = 1 ] ||
    fail "g2 not running on 1 rank after the failed grow: $(job_state g2) $(job_ranks g2)"
  touch "$T/stop-g2"
  wait_for 60 '[ "$(job_state g2)" = finished ]' || fail "g2 did not finish: $(job_state g2)"
  # At a grow: the trainer hangs before MPI_Init on h2. The spawn does not return within
  # --spawn-timeout-s: the job fails with the reason and its ranks on h1 exit (bounded).
  touch "$T/hold"
  hosts_list h1
  submit g3 100000 1 2 ELASTIC_TEST_HOLD_BEFORE_INIT_ON=h2 ELASTIC_TEST_HOLD_FILE="$T/hold"
  wait_for 60 '[ "$(job_ranks g3)" = 1 ]' || fail "g3 did not start on h1"
  hosts_list h1 h2
  wait_for 90 '[ "$(job_state g3)" = failed ]' || fail "g3 not failed: $(job_state g3)"
  grep '"job_failed"' "$S/events.jsonl" | grep g3 | grep -q "did not return within" ||
    fail "no spawn-timeout reason for g3"
  wait_for 90 '[ -z "$(rank_pids h1)" ]' || fail "ranks of g3 left on h1: $(rank_pids h1)"
  rm -f "$T/hold"
  grep -E '"job_failed"' "$S/events.jsonl" | cut -c1-300
  grep '"job_grown"' "$S/events.jsonl" | cut -c1-300
  submit ok 300 1 2
  wait_for 120 '[ "$(job_state ok)" = finished ]' || fail "a later job did not finish: $(job_state ok)"
  kill -0 "$DAEMON_PID" || fail "elasticd died"
}

"case_$CASE"
ranks_on_their_hosts || fail "a rank did not run on the host of its node"
echo PASS
