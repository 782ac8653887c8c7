#!/bin/bash
# Rescale latency of libelastic vs the restart baseline of TorchElastic-style systems, on this
# machine. Usage: run_bench.sh MPI_BIN RESCALE_BENCH TRAINER [SIZES=2,4,8,16] [REPS=3]
# (env STATE_MB=4: model size synced to new ranks / reloaded from the checkpoint file).
#   elastic   rescale_bench under `mpirun --with-ft ulfm -n 1`: grow, shrink on notice, recovery
#             after a SIGKILL (from detection), each until the first step of the new membership.
#   restart   per size N: a standalone N-rank job (plain mpirun, durable checkpoints) is stopped
#             (SIGTERM to mpirun, wait) and relaunched with mpirun; rank 0 loads the checkpoint
#             file, broadcasts it and reports its first step. Timed from the stop to that step.
# Prints the medians and the ratios restart / elastic. Not a ctest (timing); run by hand, e.g.
#   cmake --build build --target run_runtime_bench
set -u
bin=$1 bench=$2 trainer=$3 sizes=${4:-2,4,8,16} reps=${5:-3} state_mb=${STATE_MB:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d /tmp/runtime-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
wait_grep() {  # wait_grep SECONDS PATTERN FILE
  local end=$((SECONDS + $1))
  while ((SECONDS < end)); do grep -q "$2" "$3" 2>/dev/null && return 0; sleep 0.01; done
  return 1
}

echo "elastic: rescale_bench, sizes $sizes, $reps repetitions, state $state_mb MB" >&2
"$bin/mpirun" --with-ft ulfm -n 1 --bind-to none "$bench" "$trainer" --sizes "$sizes" \
  --reps "$reps" --state-mb "$state_mb" > "$tmp/results.jsonl" 2> "$tmp/elastic.err"
# prterun's exit status reflects the SIGKILLed ranks; failed rounds are reported by the bench.
grep -E "rescale_bench:" "$tmp/elastic.err" >&2

echo "restart baseline" >&2
launch() {  # launch N OUT: a standalone job in the background; sets PID
  "$bin/mpirun" -n "$1" --bind-to none --oversubscribe "$trainer" --state-mb "$state_mb" \
    --checkpoint "$tmp/ck_$1" > "$2" 2>&1 &
  PID=$!
}
for n in ${sizes//,/ }; do
  for ((r = 0; r < reps; r++)); do
    rm -f "$tmp/ck_$n"
    a=$tmp/a_${n}_$r.out b=$tmp/b_${n}_$r.out
    launch "$n" "$a"
    wait_grep 120 first_step "$a"
    end=$((SECONDS + 120)); while [ ! -s "$tmp/ck_$n" ] && ((SECONDS < end)); do sleep 0.05; done
    [ -s "$tmp/ck_$n" ] || { echo "no checkpoint at n=$n" >&2; kill -TERM $PID; wait $PID; continue; }
    sleep 0.3
    t0=$(now)
    kill -TERM $PID; wait $PID 2> /dev/null
    launch "$n" "$b"
    if wait_grep 120 first_step "$b"; then
      t1=$(awk '/first_step/ {print $2; exit}' "$b")
      echo "{\"n\":$n,\"what\":\"restart\",\"s\":$(awk "BEGIN {print $t1 - $t0}")}" >> "$tmp/results.jsonl"
    else
      echo "restart at n=$n did not reach its first step" >&2
    fi
    kill -TERM $PID; wait $PID 2> /dev/null
  done
done

python3 - "$tmp/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
by = {}
for r in rows:
    by.setdefault((r["n"], r["what"]), []).append(r["s"])
def med(n, w):
    v = by.get((n, w))
    return statistics.median(v) if v else None
def ms(x): return "      -" if x is None else f"{x * 1000:7.1f}"
def ratio(a, b): return "     -" if a is None or b is None or b == 0 else f"{a / b:6.1f}"
sizes = sorted({n for n, _ in by})
print("Rescale latency, medians in ms (runs per cell: " +
      ", ".join(f"{w}={len(by.get((sizes[0], w), []))}" for w in ("grow", "restart")) + ")")
print(" ranks    grow   stall  shrink   stall  detect recovery restart | restart/grow /stall /shrink /recovery")
for n in sizes:
    g, gs, s, ss, d, rc, rs = (med(n, w) for w in
        ("grow", "grow_stall", "shrink", "shrink_stall", "detect", "recovery", "restart"))
    print(f"{n:6d} {ms(g)} {ms(gs)} {ms(s)} {ms(ss)} {ms(d)} {ms(rc)}  {ms(rs)} |"
          f"       {ratio(rs, g)} {ratio(rs, gs)} {ratio(rs, s)}    {ratio(rs, rc)}")
print("grow: order -> first step at N ranks (N/2 spawned as one node; the job trains at N/2 while")
print("they start); stall: how long the change held the training up (the leader's end of last step")
print("at the old size -> end of first step at the new one); shrink: notice -> first step at N/2;")
print("recovery: controller's detection of a SIGKILL of N/2 ranks -> first step at N/2;")
print("detect: kill -> detection; restart: stop N ranks + mpirun relaunch + checkpoint reload -> first step.")
print("Targets at 8 ranks: grow <= 1000 ms, shrink <= 300 ms, recovery <= 500 ms, each >= 10x faster than restart.")
PY
