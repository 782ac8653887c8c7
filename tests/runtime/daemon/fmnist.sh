#!/bin/bash
# Fashion-MNIST (examples/02_fashion_mnist, or example 04's LibTorch CNN) as a job of a real
# elasticd on the cluster in a box (lib.sh); each case ends by checking that every rank ran on its
# node's host.
# Usage: fmnist.sh CASE MPIRUN ELASTICD ELASTIC PROGRAM. Cases:
#   churn_kill  hostfile churn every few seconds and one host killed mid-run (its PRRTE daemon too): the job
#               ends within 1 test-accuracy point of the same training on a fixed 2 ranks (issue 5)
#   torch_churn_kill  the same with PROGRAM = examples/04_libtorch (a smaller CNN, 3 epochs, the
#               rate decayed per epoch; issue 12)
#   resume      elasticd SIGKILLed after the job's first durable checkpoint and started again: the
#               job resumes from that checkpoint (step > 0), not from scratch, and finishes (issue 4)
set -u
CASE=$1 MPIRUN=$2 ELASTICD=$3 ELASTIC=$4 FMNIST=$5
. "$(dirname "$0")/lib.sh"
accuracy() { sed -n 's/^final test accuracy \([0-9.]*\).*/\1/p'; }
EPOCHS=5
# The hang guards below, times ELASTIC_TEST_TIME_SCALE (tests/CMakeLists.txt: 4 under the sanitizers).
SCALE=${ELASTIC_TEST_TIME_SCALE:-1}
# --lr-ranks 2: the rate the fixed 2-rank run uses, scaled with the job size (linear scaling rule).
# --lr-decay 0.85: the rate decays per epoch, so the last epoch's accuracy is the trained model's and
# not a sample of constant-rate SGD noise (at a constant 0.01, the last 5 epochs of one fixed run
# spanned 0.8802-0.8857 and elastic runs ended anywhere in 0.8738-0.8883; CI failed on 0.8738).
TRAIN_ARGS=(--batch 32 --seed 7 --lr-ranks 2 --lr 0.02 --lr-decay 0.85)
# The stuck-rank watchdog, on in every run of the example here: churn_kill fails if it killed a
# healthy rank (waiting for a grow, a shrink or a repair is not being stuck).
STALL_ARGS=(--stall-timeout $((30 * SCALE)))

# submit_fmnist ID MIN MAX [EXTRA ARG ...]: the example as a job (EPOCHS epochs), one rank per node.
submit_fmnist() {
  local id=$1 min=$2 max=$3 a args=""
  shift 3
  for a in --epochs "$EPOCHS" "${TRAIN_ARGS[@]}" "${STALL_ARGS[@]}" "$@"; do args+="\"$a\", "; done
  {
    echo "id = \"$id\""
    echo "command = \"$FMNIST\""
    echo "args = [${args%, }]"
    echo "min_nodes = $min"
    echo "max_nodes = $max"
    echo "${SUBMIT_TOML:-}"
  } > "$T/$id.toml"
  "$ELASTIC" --state-dir "$S" submit "$T/$id.toml" > /dev/null || fail "submit $id"
}

# churn_kill: the fixed 2-rank run, then the same training as a job under churn and a kill.
churn_kill() {
  timeout $((300 * SCALE)) "$BOX" exec h0 "$MPIRUN" "${BOX_MPIRUN_ARGS[@]}" --host h1:1,h2:1 \
    --bind-to none -n 2 "$FMNIST" --epochs "$EPOCHS" "${TRAIN_ARGS[@]}" "${STALL_ARGS[@]}" > "$T/fixed" 2>&1
  tail -2 "$T/fixed"
  local fixed
  fixed=$(accuracy < "$T/fixed")
  [ -n "$fixed" ] || fail "the fixed 2-rank run printed no accuracy"

  hosts_range 4
  start_daemon
  # The case asserts what the runtime does under churn and a loss, not the planner's judgement:
  # learned from this box (4 hosts on 2 cores) one rank can measure fastest, and the job then
  # sat on one node through the churn (1 of 7 runs).
  SUBMIT_TOML=$(linear_scaling 4) submit_fmnist f 1 4
  wait_for 60 '[ "$(job_ranks f)" = 4 ]' || fail "job did not reach 4 ranks"
  local sets=("1 2 3" "2 3 4" "1 2" "1 2 3 4" "3 4" "1 3 4") i=0 s killed=""
  # A loss, not a loss racing a shrink: the job has settled inside the current pool (no node of it
  # leaving), so the victim is a node the hostfile keeps (a node killed while it leaves is only
  # released); and a repair, not a restart: the job holds 2 nodes or more (the allocator need not
  # give it every node of the pool, and with one node the kill takes all its ranks).
  settled() {
    local n nodes
    nodes=$(job_nodes f)
    [ "$(wc -w <<< "$nodes")" -ge 2 ] || return 1
    for n in $nodes; do [[ " $(echo $s | sed 's/[0-9]*/h&/g') " == *" $n "* ]] || return 1; done
    ! grep -q '"leaving"' "$S/status.json"
  }
  while [ "$(job_state f)" = running ] && ((i < 60)); do
    s=${sets[$((i % ${#sets[@]}))]}
    hosts_list $(for x in $s; do printf 'h%d ' "$x"; done)
    sleep 1.5
    i=$((i + 1))
    if [ -z "$killed" ] && ((i >= 3)) && wait_for 15 settled; then
      killed=$(job_nodes f | awk '{print $NF}')
      kill_node "$killed"
      wait_for 60 "[ \$(count_events node_lost '\"$killed\"') -ge 1 ]" || fail "loss of $killed not seen"
    fi
  done
  [ -n "$killed" ] || fail "no host killed: the job never held 2 nodes of a settled pool while it ran"
  hosts_range 4
  wait_for $((FINISH_S * SCALE)) '[ "$(job_state f)" = finished ]' || fail "job did not finish: $(job_state f)"
  # "finished" is the end of training; rank 0 then evaluates the test set and prints the accuracy
  # (example 04's evaluation takes seconds: reading the output at once missed the line).
  wait_for 120 "out f | grep -q '^final test accuracy'" || fail "no final accuracy line after the job finished"
  out f | grep -E '^(membership|final)' 
  out f | grep -q 'membership repaired after a failure' || fail "no repair after the kill"
  ! grep -h 'is stuck' "$T/fixed" "$S/jobs/f/stderr" || fail "the stall watchdog killed a healthy rank"
  [ "$(out f | grep -c 'membership changed')" -ge 3 ] || fail "fewer than 3 grows or shrinks seen by the job"
  local elastic
  elastic=$(out f | accuracy)
  [ -n "$elastic" ] || fail "the elastic run printed no accuracy"
  echo "hostfile changes: $i, rescales: $(($(count_events job_grown) + $(count_events job_shrunk))), killed: $killed"
  echo "test accuracy: fixed 2 ranks $fixed, elastic $elastic"
  # The runtime's own sample count covers every epoch (redone steps count again), also when a plan
  # stops the job (the leader sends its full count before it takes the stop).
  local counted
  counted=$(python3 -c "import json; d=json.load(open('$S/status.json')); print(next(j['samples_done'] for j in d['jobs'] if j['id']=='f'))")
  echo "samples counted by the runtime: $counted (epochs x 60000 = $((EPOCHS * 60000)))"
  [ "$counted" -ge $((EPOCHS * 60000)) ] || fail "the runtime counted only $counted samples"
  awk -v a="$elastic" -v b="$fixed" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
    fail "elastic accuracy $elastic not within 1 point of $fixed"
}

FINISH_S=300
case_churn_kill() {
  EPOCHS=20
  churn_kill
}

case_torch_churn_kill() {
  EPOCHS=3 FINISH_S=900
  TRAIN_ARGS=(--channels 16 --lr-decay 0.7 --seed 1 --lr-ranks 2)
  churn_kill
}

case_resume() {
  hosts_range 2
  start_daemon
  # The example checkpoints every 20 commits (200 steps): the first one comes early in epoch 1.
  EPOCHS=3
  submit_fmnist r 1 2
  local ckpt=$S/jobs/r/checkpoint
  wait_for 120 "[ -s $ckpt ]" || fail "no durable checkpoint at $ckpt"
  sleep 1
  crash_and_restart_daemon
  wait_for 60 "[ \$(count_events job_started '\"r\"') -ge 2 ]" || fail "job not restarted"
  wait_for $((300 * SCALE)) '[ "$(job_state r)" = finished ]' || fail "job did not finish: $(job_state r)"
  out r | grep -E '^(resumed|final)'
  local step
  step=$(out r | sed -n 's/^resumed from the checkpoint at step \([0-9]*\).*/\1/p' | tail -1)
  [ -n "$step" ] && [ "$step" -gt 0 ] || fail "the restarted job did not resume from its checkpoint"
}

"case_$CASE"
ranks_on_their_hosts || fail "a rank did not run on the host of its node"
echo PASS
