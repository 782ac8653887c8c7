#!/usr/bin/env python3
"""The end-of-run summary of scripts/demo.sh.

Reads what the runtime left in the state dir: events.jsonl (when each job started, grew, shrank,
was repaired, requeued, ended, on which nodes; the granted pool), journal.jsonl (the submitted
specs, for their scaling tables) and jobs/<id>/stdout (epochs completed, final test accuracy).
Prints per job: samples, rescales, samples/s, node-seconds, accuracy, and the host each rank ran on
(as the ranks reported it to elasticd); overall: granted vs used node-seconds (utilisation) and an
efficiency estimate (DESIGN.md "Metrics"): samples trained / what the same node counts would give
with no stalls, at the throughput curve elasticd learned for the job (its last `throughput_learned`
event: r(n) = r1 n / (1 + s (n - 1))), or at the job's declared [scaling] table when it has one.
Exit status 1 when a job did not finish.

Usage: summary.py [--granted-by WHAT] STATE_DIR INITIAL_POOL JOB_ID...
  (WHAT: who granted the pool, for the label; default "the trace")
"""
import json
import os
import re
import sys

kTrainSamples = 60000  # Fashion-MNIST's training set: one epoch


def load_lines(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a torn last line of a file still being written
    return out


def segments(steps, t0, t1):
    """(duration, value) pieces over [t0, t1] of a step function given as (time, value) pairs."""
    out, value, last = [], 0.0, t0
    for t, v in sorted(steps, key=lambda p: p[0]):
        if t > t1:
            break
        if t > last:
            out.append((t - last, value))
            last = t
        value = v
    if t1 > last:
        out.append((t1 - last, value))
    return out


def table_rate(scaling, n):
    """r(n) of a spec's [scaling] table: linear between points and from r(0) = 0, flat after."""
    if not scaling or n <= 0:
        return None if not scaling else 0.0
    xs, ys = [0] + list(scaling["nodes"]), [0.0] + list(scaling["samples_per_s"])
    if n >= xs[-1]:
        return ys[-1]
    for k in range(1, len(xs)):
        if n <= xs[k]:
            return ys[k - 1] + (ys[k] - ys[k - 1]) * (n - xs[k - 1]) / (xs[k] - xs[k - 1])
    return ys[-1]


def amdahl_rate(r1, s, n):
    """The learned curve elasticd plans with (allocator/include/elastic/allocator/scaling_model.h)."""
    return 0.0 if n <= 0 else r1 * n / (1.0 + s * (n - 1))


def main():
    args = sys.argv[1:]
    granted_by = "the trace"
    if args[:1] == ["--granted-by"]:
        granted_by, args = args[1], args[2:]
    state, initial_pool = args[0], int(args[1])
    ids = args[2:]
    events = load_lines(os.path.join(state, "events.jsonl"))
    specs = {r["job"]: r.get("spec", {}) for r in load_lines(os.path.join(state, "journal.jsonl"))
             if r.get("event") == "submitted"}

    t_begin = min((e["t"] for e in events if e["event"] == "job_submitted"), default=None)
    if t_begin is None:
        print("no job was submitted")
        return 1
    jobs = {i: {"starts": 0, "grown": 0, "shrunk": 0, "recovered": 0, "end": None,
                "state": "unknown", "samples": 0, "reason": "", "first_start": None,
                "nodes": [(t_begin, 0)], "learned": None, "hosts": {}, "misplaced": 0,
                "repair_ms": []}
            for i in ids}
    pool = [(0.0, initial_pool)]
    last_t = t_begin
    for e in events:
        ev, t = e["event"], e["t"]
        last_t = max(last_t, t)
        if ev == "hostfile":
            pool.append((t, e["pool"]))
        j = jobs.get(e.get("job"))
        if j is None:
            continue
        if ev in ("job_started", "job_grown", "job_shrunk", "job_recovered"):
            j["nodes"].append((t, len(e.get("nodes", []))))
        if ev in ("job_started", "job_grown"):
            for h in e.get("hosts", []):
                j["hosts"][h] = j["hosts"].get(h, 0) + 1
        if ev == "throughput_learned":
            j["learned"] = (e["r1"], e["serial_fraction"])
        if ev == "rank_misplaced":
            j["misplaced"] += 1
        if ev == "job_started":
            j["starts"] += 1
            j["first_start"] = j["first_start"] or t
        elif ev == "job_grown" and e.get("ok", True):
            j["grown"] += 1
        elif ev == "job_shrunk" and e.get("ok", True):
            j["shrunk"] += 1
        elif ev == "job_recovered":
            j["recovered"] += 1
            if "ms" in e:
                j["repair_ms"].append(e["ms"])
        elif ev == "job_requeued":
            j["nodes"].append((t, 0))
        elif ev in ("job_finished", "job_failed", "job_cancelled"):
            j["nodes"].append((t, 0))
            j["end"] = t
            j["state"] = ev[4:]
            j["samples"] = e.get("samples_done", 0)
            j["reason"] = e.get("reason", "")
    ends = [j["end"] for j in jobs.values() if j["end"]]
    t_end = max(ends) if len(ends) == len(ids) else last_t

    print()
    print("=" * 104)
    print("Summary: %d jobs, %.0f s from the first submission to the last job's end" %
          (len(ids), t_end - t_begin))
    print("=" * 104)
    hdr = "%-13s %-9s %8s %8s %6s %7s %7s %8s %6s %6s %6s %5s %8s"
    print(hdr % ("job", "state", "trained", "counted", "grows", "shrinks", "repairs", "restarts",
                 "run s", "smp/s", "node-s", "eff", "test acc"))
    used = trained_all = ideal_all = 0.0
    bad = 0
    bases = set()
    for i in ids:
        j = jobs[i]
        end = j["end"] or t_end
        run_s = end - j["first_start"] if j["first_start"] else 0.0
        pieces = segments(j["nodes"], t_begin, end)
        node_s = sum(dt * n for dt, n in pieces)
        used += node_s
        scaling = specs.get(i, {}).get("scaling")
        if scaling:
            ideal = sum(dt * table_rate(scaling, n) for dt, n in pieces)
            bases.add("declared [scaling] tables")
        elif j["learned"]:
            ideal = sum(dt * amdahl_rate(*j["learned"], n) for dt, n in pieces)
            bases.add("the throughput curves elasticd learned (r1, serial fraction)")
        else:
            ideal = 0.0
        acc, epochs = "-", 0
        out = os.path.join(state, "jobs", i, "stdout")
        if os.path.exists(out):
            text = open(out, errors="replace").read()
            found = re.findall(r"final test accuracy ([0-9.]+)", text)
            if found:
                acc = found[-1]
            # "epoch N: ..." lines (an epoch redone after a restart prints again).
            epochs = max([int(n) + 1 for n in re.findall(r"^epoch ([0-9]+):", text, re.M)] + [0])
        trained = epochs * kTrainSamples
        trained_all += trained
        ideal_all += ideal
        print(hdr % (i, j["state"], trained, j["samples"], j["grown"], j["shrunk"],
                     j["recovered"], max(0, j["starts"] - 1), "%.1f" % run_s,
                     "%.0f" % (trained / run_s) if run_s > 0 else "-", "%.0f" % node_s,
                     "%.0f%%" % (100 * trained / ideal) if ideal > 0 else "-", acc))
        if j["learned"]:
            print("    learned: r1 %.0f samples/s, serial fraction %.3f" % j["learned"])
        if j["hosts"]:
            print("    ranks started on: %s%s" % (
                " ".join("%s(%d)" % (h, c) for h, c in sorted(j["hosts"].items())),
                "" if not j["misplaced"] else "  (%d NOT on their node)" % j["misplaced"]))
        if j["state"] != "finished":
            bad += 1
            print("    %s: %s" % (i, j["reason"] or "did not finish"))
    granted = sum(dt * n for dt, n in segments(pool, t_begin, t_end))
    span = max(1e-9, t_end - t_begin)
    print("-" * 104)
    print("%-22s%6.0f node-s (%.1f of %d nodes on average)" %
          ("granted by %s:" % granted_by, granted, granted / span, initial_pool))
    print("used by the jobs:     %6.0f node-s -> utilisation %.0f%%" %
          (used, 100 * used / granted if granted > 0 else 0))
    if ideal_all > 0:
        print("efficiency estimate:  %.0f%% = samples trained / samples the same node counts give "
              "with no stalls at\n                      %s (what rescales, restarts and redone "
              "steps cost)" % (100 * trained_all / ideal_all, " and ".join(sorted(bases))))
    repair_ms = sorted(ms for j in jobs.values() for ms in j["repair_ms"])
    print("rescales: %d grows, %d shrinks, %d failure repairs%s, %d restarts (stopped, later "
          "resumed from a checkpoint)" % (
              sum(j["grown"] for j in jobs.values()), sum(j["shrunk"] for j in jobs.values()),
              sum(j["recovered"] for j in jobs.values()),
              " (%.0f-%.0f ms, the other jobs served meanwhile)" % (repair_ms[0], repair_ms[-1])
              if repair_ms else "",
              sum(max(0, j["starts"] - 1) for j in jobs.values())))
    print("trained = completed epochs x %d (the job's output); counted = the runtime's own sample "
          "counter" % kTrainSamples)
    restarts = sum(1 for e in events if e["event"] == "daemon_started") - 1
    if restarts > 0:
        print("elasticd died and was restarted %d time(s) during the run (see demo/daemon.log)" %
              restarts)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
