#!/bin/bash
# Rescale latency of libelastic vs the restart baseline of TorchElastic-style systems, on the
# cluster in a box (scripts/box.sh: hosts with their own hostname, /tmp and PRRTE daemon; mpirun on
# h0). Usage: run_bench.sh MPI_BIN RESCALE_BENCH TRAINER [HOSTS=2,4,8] [REPS=3] [RANKS_PER_HOST=1]
# (env STATE_MB=4: model size synced to new ranks / reloaded from the checkpoint file;
# WARM_UP_MB: a grow's warm-up per connection, 0 = off, unset = the Session's default; STEP_US: the
# trainer's sleep per step, default 1000: a longer one leaves the box's cores to the rescale itself).
#   elastic   rescale_bench under `mpirun --with-ft ulfm -n 1` on h0: grow, shrink on notice,
#             recovery after a whole host is killed (its PRRTE daemon included), from detection;
#             each until the first step of the new membership.
#   restart   per host count H: a standalone job on h1..hH (plain mpirun on h0, R ranks per host,
#             durable checkpoints on the shared file system) is stopped (SIGTERM to mpirun, wait)
#             and relaunched; rank 0 loads the checkpoint, broadcasts it and reports its first
#             step. Timed from the stop to that step.
# Prints the medians and the ratios restart / elastic. Not a ctest (timing); run by hand, e.g.
#   cmake --build build --target run_runtime_bench
set -u
bin=$1 bench=$2 trainer=$3 hosts=${4:-2,4,8} reps=${5:-3} rph=${6:-1} state_mb=${STATE_MB:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BOX=$(cd "$(dirname "$0")/../.." && pwd)/scripts/box.sh
max=$(tr ',' '\n' <<< "$hosts" | sort -n | tail -1)
"$BOX" up "$max" || exit 1
mapfile -t boxargs < <("$BOX" mpirun-args)
tmp=$(mktemp -d /var/tmp/runtime-bench.XXXXXX)  # shared by every host
sweep() { "$BOX" kill-all; }
# The logs of a failed round (the jobs' stdout/stderr, elasticd's) stay for a look.
trap 'sweep; if grep -q "rescale_bench: .*failed" "$tmp/elastic.err" 2>/dev/null; then echo "logs kept in $tmp" >&2; else rm -rf "$tmp"; fi' EXIT
now() { date +%s.%N; }
wait_grep() {  # wait_grep SECONDS PATTERN FILE
  local end=$((SECONDS + $1))
  while ((SECONDS < end)); do grep -q "$2" "$3" 2>/dev/null && return 0; sleep 0.01; done
  return 1
}

echo "elastic: rescale_bench on the box, hosts $hosts, $rph rank(s) per host, $reps repetitions," \
  "state $state_mb MB, warm-up ${WARM_UP_MB:-default} MB, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$BOX" exec h0 "$bin/mpirun" --with-ft ulfm "${boxargs[@]}" -n 1 --bind-to none "$bench" "$trainer" \
  --box "$BOX" --out "$tmp" --hosts "$hosts" --ranks-per-host "$rph" --reps "$reps" \
  --state-mb "$state_mb" ${WARM_UP_MB:+--warm-up-mb "$WARM_UP_MB"} ${STEP_US:+--step-us "$STEP_US"} \
  > "$tmp/results.jsonl" 2> "$tmp/elastic.err"
# prterun's exit status reflects the killed ranks; failed rounds are reported by the bench.
grep -E "rescale_bench:" "$tmp/elastic.err" >&2
sweep

echo "restart baseline" >&2
launch() {  # launch H OUT: a standalone job on h1..hH in the background; sets PID
  "$BOX" exec h0 "$bin/mpirun" "${boxargs[@]}" --host "$(seq -s, -f "h%g:$rph" 1 "$1")" \
    -n $(($1 * rph)) --bind-to none "$trainer" --state-mb "$state_mb" --checkpoint "$tmp/ck_$1" \
    > "$2" 2>&1 &
  PID=$!
}
for h in ${hosts//,/ }; do
  for ((r = 0; r < reps; r++)); do
    rm -f "$tmp/ck_$h"
    a=$tmp/a_${h}_$r.out b=$tmp/b_${h}_$r.out
    launch "$h" "$a"
    wait_grep 120 first_step "$a"
    end=$((SECONDS + 120)); while [ ! -s "$tmp/ck_$h" ] && ((SECONDS < end)); do sleep 0.05; done
    [ -s "$tmp/ck_$h" ] || { echo "no checkpoint at $h hosts" >&2; kill -TERM $PID; wait $PID; continue; }
    sleep 0.3
    t0=$(now)
    kill -TERM $PID; wait $PID 2> /dev/null
    launch "$h" "$b"
    if wait_grep 120 first_step "$b"; then
      t1=$(awk '/first_step/ {print $2; exit}' "$b")
      echo "{\"hosts\":$h,\"rph\":$rph,\"what\":\"restart\",\"s\":$(awk "BEGIN {print $t1 - $t0}")}" >> "$tmp/results.jsonl"
    else
      echo "restart at $h hosts did not reach its first step" >&2
    fi
    kill -TERM $PID; wait $PID 2> /dev/null
    sweep
  done
done

python3 - "$tmp/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
if not rows:
    sys.exit("run_bench: no measurement was recorded (every run failed? see the logs above)")
by = {}
for r in rows:
    by.setdefault((r["hosts"], r["what"]), []).append(r["s"])
rph = rows[0]["rph"] if rows else 1
def med(n, w):
    v = by.get((n, w))
    return statistics.median(v) if v else None
def ms(x): return "      -" if x is None else f"{x * 1000:7.1f}"
def ratio(a, b): return "     -" if a is None or b is None or b == 0 else f"{a / b:6.1f}"
sizes = sorted({n for n, _ in by})
print(f"Rescale latency on the box, {rph} rank(s) per host, medians in ms (runs per cell: " +
      ", ".join(f"{w}={len(by.get((sizes[0], w), []))}" for w in ("grow", "restart")) + ")")
print(" hosts    grow   stall  shrink   stall  detect recovery restart | restart/grow /stall /shrink /recovery")
for n in sizes:
    g, gs, s, ss, d, rc, rs = (med(n, w) for w in
        ("grow", "grow_stall", "shrink", "shrink_stall", "detect", "recovery", "restart"))
    print(f"{n:6d} {ms(g)} {ms(gs)} {ms(s)} {ms(ss)} {ms(d)} {ms(rc)}  {ms(rs)} |"
          f"       {ratio(rs, g)} {ratio(rs, gs)} {ratio(rs, s)}    {ratio(rs, rc)}")
print("grow: order -> first step on all H hosts (H/2 hosts added with one spawn; the job trains")
print("on H/2 hosts meanwhile); stall: how long the change held the training up (the leader's end of")
print("last step at the old size -> end of first step at the new one); shrink: notice -> first step")
print("on H/2 hosts; recovery: controller's detection of a host's death (all its processes, PRRTE")
print("daemon included, SIGKILLed) -> first step on H-1 hosts; detect: kill -> detection;")
print("restart: stop the job on H hosts + mpirun relaunch + checkpoint reload -> first step.")
print("Targets at 8 hosts: stall <= 100 ms, shrink <= 100 ms, recovery <= 500 ms after detection,")
print("each >= 10x faster than restart.")
PY
