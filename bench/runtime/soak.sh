#!/bin/bash
# Soak: consecutive cross-host rescales of one job on the cluster in a box, grows, shrinks on
# notice and whole-host kills (PRRTE daemon included) mixed at random, until RESCALES of them have
# been asked for. Every step waits until the job holds exactly the hosts the step leaves it (each
# rank on its own host) or counts the step as failed. Not a ctest (it runs for minutes).
#   Usage: soak.sh MPIRUN ELASTICD ELASTIC TRAINER [RESCALES=200] [SEED=1] [vanish]
#   e.g.   B=build/ci; bench/runtime/soak.sh $MPI_HOME/bin/mpirun $B/runtime/daemon/elasticd \
#            $B/runtime/control/elastic $B/tests/runtime/daemon/test_trainer 200
# With `vanish`, a fourth kind joins the mix: a host of the job vanishes without a word (box.sh
# vanish: its cable cut, its processes stopped); once elasticd has seen the loss, the host reboots
# (box.sh revive) and may be granted again by a later grow. Each costs PRRTE's 20 s keepalive, and
# the seeds give other sequences than without it.
# Prints one line per step and a summary: asked, done, failed by kind, recoveries, and whether
# elasticd and the job survived. Exit 0 only with 0 failed rescales.
set -u
MPIRUN=$1 ELASTICD=$2 ELASTIC=$3 TRAINER=$4 RESCALES=${5:-200} SEED=${6:-1} VANISH=${7:-}
[ -z "$VANISH" ] || [ "$VANISH" = vanish ] ||
  { echo "soak.sh: the 7th argument is 'vanish' or nothing, not '$VANISH'" >&2; exit 2; }
. "$(dirname "$0")/../../tests/runtime/daemon/lib.sh"
RANDOM=$SEED
STEP_US=20000
MAX=$BOX_HOSTS
pool=(1 2)  # host numbers in the hostfile
write_pool() { hosts_list $(for i in "${pool[@]}"; do echo "h$i"; done); }
sorted_pool() { printf '%s\n' "${pool[@]}" | sort -n | sed 's/^/h/' | paste -sd' '; }
job_hosts_sorted() { job_nodes soak | tr ' ' '\n' | sed 's/^h//' | sort -n | sed 's/^/h/' | paste -sd' '; }

write_pool
start_daemon
# The soak measures the runtime's rescales, not the planner's judgement (lib.sh, linear_scaling).
SUBMIT_TOML=$(linear_scaling "$MAX")
submit soak 100000000 1 "$MAX"
wait_for 60 "[ \"\$(job_ranks soak)\" = 2 ]" || fail "the job did not start on 2 hosts"
declare -A asked=([grow]=0 [shrink]=0 [kill]=0 [vanish]=0)
declare -A failed=([grow]=0 [shrink]=0 [kill]=0 [vanish]=0)
kinds=3
[ -z "$VANISH" ] || kinds=4
t_start=$SECONDS
for ((step = 1; step <= RESCALES; step++)); do
  n=${#pool[@]}
  free=()
  for ((i = 1; i <= MAX; i++)); do [[ " ${pool[*]} " == *" $i "* ]] || free+=("$i"); done
  r=$((RANDOM % kinds))
  if ((n == 1)) || { ((r == 0)) && ((${#free[@]} > 0)); }; then
    kind=grow
    pool+=("${free[$((RANDOM % ${#free[@]}))]}")
  elif ((r == 1)) || ((${#free[@]} == 0 && r == 0)); then
    kind=shrink
    idx=$((RANDOM % n))
    pool=("${pool[@]:0:idx}" "${pool[@]:idx+1}")
  else
    kind=kill
    ((r == 3)) && kind=vanish
    victim=${pool[$((RANDOM % n))]}
    lost_before=$(count_events node_lost "\"h$victim\"")
    if [ $kind = kill ]; then kill_node "h$victim" > /dev/null; else "$BOX" vanish "h$victim"; fi
    wait_for 60 "[ \$(count_events node_lost '\"h$victim\"') -gt $lost_before ]" || true
    [ $kind = kill ] || "$BOX" revive "h$victim"
    pool=($(for i in "${pool[@]}"; do [ "$i" = "$victim" ] || echo "$i"; done))
  fi
  asked[$kind]=$((${asked[$kind]} + 1))
  t0=$SECONDS
  write_pool
  want=$(sorted_pool)
  if wait_for 90 "[ \"\$(job_hosts_sorted)\" = \"$want\" ] && [ \"\$(job_ranks soak)\" = ${#pool[@]} ]"; then
    echo "step $step: $kind -> $want ($((SECONDS - t0)) s)"
  else
    failed[$kind]=$((${failed[$kind]} + 1))
    echo "step $step: $kind FAILED: wanted $want, job holds '$(job_hosts_sorted)' ($(job_state soak))"
    [ "$(job_state soak)" = running ] || break
  fi
done
total_failed=$((${failed[grow]} + ${failed[shrink]} + ${failed[kill]} + ${failed[vanish]}))
alive=yes; kill -0 "$DAEMON_PID" 2>/dev/null || alive=no
echo "soak: $((step - 1)) rescales asked in $((SECONDS - t_start)) s:" \
  "grow ${asked[grow]}, shrink ${asked[shrink]}, host kill ${asked[kill]}${VANISH:+, vanish ${asked[vanish]}};" \
  "failed: grow ${failed[grow]}, shrink ${failed[shrink]}, kill ${failed[kill]}${VANISH:+, vanish ${failed[vanish]}}" \
  "(total $total_failed)"
echo "soak: elasticd alive: $alive, job: $(job_state soak)," \
  "recoveries seen by the job: $(grep -c '^recovered' "$S/jobs/soak/stdout")," \
  "wrong allreduces: $(grep -c WRONG "$S/jobs/soak/stderr")"
ranks_on_their_hosts || total_failed=$((total_failed + 1))
"$ELASTIC" --state-dir "$S" cancel soak > /dev/null
[ "$total_failed" = 0 ] && [ "$alive" = yes ]
