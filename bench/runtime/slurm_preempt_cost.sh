#!/bin/bash
# Slurm's own price of preemption, without libelastic: how much later a 1-node main-queue job
# starts when every node is held by a scavenger job that exits at once on SIGTERM (`exec sleep`)
# than on the empty box, in the same run (the box's Slurm: scripts/box.sh slurm-up, nodes h1..h4).
# What is left of bench/runtime/slurm_replay.sh's per-job delay after this is the holders' leave.
#   Usage: slurm_preempt_cost.sh [N]     N main jobs each way (default 10)
# Each main job is submitted after a random 0-0.99 s sleep, so that submissions fall at random
# phases of slurmctld's 1 s background loop; delay = the job's first `date` minus the submit time,
# and minus slurmctld's first scheduling pass after the submission (its log at debug level).
# Prints both lists and their medians; exit 0 when every job started, 1 otherwise.
set -u
case ${1:-} in -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
N=${1:-10}
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "slurm_preempt_cost: N must be a positive integer, not '$N'"; exit 2; }
. "$(dirname "$0")/../../tests/runtime/slurm/lib.sh"

# delay: a 1-node main job submitted at a random phase; prints main_delay's two numbers (s).
delay() {
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  main_delay 1
}
# fill: a holder that exits at once on SIGTERM on every node without one, all running.
fill() {
  local k
  for ((k = 1; k <= BOX_HOSTS; k++)); do
    [ -n "$(slurm squeue -h -p scavenger -w "h$k")" ] ||
      slurm sbatch -Q -p scavenger -w "h$k" -o /dev/null --wrap 'exec sleep 100000' >/dev/null ||
      fail "sbatch holder on h$k"
  done
  wait_for 30 "[ \"\$(slurm squeue -h -p scavenger -t R | wc -l)\" = $BOX_HOSTS ]" ||
    fail "holders did not fill the box"
}

empty=() full=()
for ((i = 0; i < N; i++)); do empty+=("$(delay)"); done
for ((i = 0; i < N; i++)); do fill; full+=("$(delay)"); done
slurm scancel -p scavenger
for d in "${empty[@]}" "${full[@]}"; do
  [[ $d =~ ^[0-9]*\.[0-9]+\ [0-9]*\.[0-9]+$ ]] || { echo "slurm_preempt_cost: a main job failed: $d"; exit 1; }
done
echo "1-node main job start delay (s; after submission/after Slurm's first pass), empty box: ${empty[*]/ /\/}"
echo "1-node main job start delay, instant-exit holders on every node: ${full[*]/ /\/}"
medians "empty box" "${empty[@]}"
medians "instant-exit holders on every node" "${full[@]}"
