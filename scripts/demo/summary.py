#!/usr/bin/env python3
"""The end-of-run summary of scripts/demo.sh.

Reads what the runtime left in the state dir (events.jsonl, jobs/<id>/stdout) and the status
snapshots demo.sh polled once a second (polls.jsonl: status.json with newlines removed), and
prints per job: samples, rescales, samples/s, node-seconds, final test accuracy; overall: granted
vs used node-seconds (utilisation) and an elastic-efficiency estimate (samples done vs samples the
same node counts give at their steady rate measured in this run, DESIGN.md "Metrics").
Exit status 1 when a job did not finish.

Usage: summary.py STATE_DIR POLLS_JSONL INITIAL_POOL JOB_ID...
"""
import json
import os
import re
import statistics
import sys


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


def integrate(steps, t0, t1):
    """Integral over [t0, t1] of a step function given as sorted (time, value) pairs."""
    total, value, last = 0.0, 0.0, t0
    for t, v in steps:
        if t > t1:
            break
        if t > last:
            total += value * (t - last)
            last = t
        value = v
    return total + value * max(0.0, t1 - last)


def main():
    state, polls_path, initial_pool = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ids = sys.argv[4:]
    events = load_lines(os.path.join(state, "events.jsonl"))
    polls = load_lines(polls_path)

    t_begin = min((e["t"] for e in events if e["event"] == "job_submitted"), default=None)
    if t_begin is None:
        print("no job was submitted")
        return 1
    jobs = {i: {"starts": 0, "grown": 0, "shrunk": 0, "recovered": 0, "end": None,
                "state": "unknown", "samples": 0, "reason": "", "first_start": None,
                "nodes": [(t_begin, 0)]} for i in ids}
    pool = [(t_begin, initial_pool)]
    for e in events:
        j = jobs.get(e.get("job"))
        ev, t = e["event"], e["t"]
        if ev == "hostfile":
            pool.append((max(t, t_begin), e["pool"]))
        if j is None:
            continue
        if ev in ("job_started", "job_grown", "job_shrunk", "job_recovered"):
            j["nodes"].append((t, len(e.get("nodes", []))))
        if ev == "job_started":
            j["starts"] += 1
            j["first_start"] = j["first_start"] or t
        elif ev == "job_grown" and e.get("ok", True):
            j["grown"] += 1
        elif ev == "job_shrunk" and e.get("ok", True):
            j["shrunk"] += 1
        elif ev == "job_recovered":
            j["recovered"] += 1
        elif ev == "job_requeued":
            j["nodes"].append((t, 0))
        elif ev in ("job_finished", "job_failed", "job_cancelled"):
            j["nodes"].append((t, 0))
            j["end"] = t
            j["state"] = ev[4:]
            j["samples"] = e.get("samples_done", 0)
            j["reason"] = e.get("reason", "")
    t_end = max([j["end"] for j in jobs.values() if j["end"]] + [polls[-1]["time"] if polls else t_begin])
    # The pool before the first hostfile event after t_begin: the last one before it.
    pool.sort()
    before = [p for p in pool if p[0] <= t_begin]
    pool = [(t_begin, before[-1][1])] + [p for p in pool if p[0] > t_begin]

    # Steady rates per (job, node count): pairs of consecutive polls in which the job ran on the
    # same nodes and its rescale count did not move.
    rates = {i: {} for i in ids}
    intervals = {i: [] for i in ids}  # (dt, nodes, dsamples)
    for p, q in zip(polls, polls[1:]):
        pj = {x["id"]: x for x in p.get("jobs", [])}
        qj = {x["id"]: x for x in q.get("jobs", [])}
        dt = q["time"] - p["time"]
        for i in ids:
            a, b = pj.get(i), qj.get(i)
            if not a or not b or dt <= 0 or a["state"] != "running" or b["state"] != "running":
                continue
            n = len(a["nodes"])
            ds = b["samples_done"] - a["samples_done"]
            if n == 0 or ds < 0:
                continue
            intervals[i].append((dt, n, ds))
            if sorted(a["nodes"]) == sorted(b["nodes"]) and a["rescales"] == b["rescales"] and ds > 0:
                rates[i].setdefault(n, []).append(ds / dt)
    steady = {i: {n: statistics.median(v) for n, v in r.items()} for i, r in rates.items()}

    def rate_at(i, n):
        table = steady[i]
        if n in table:
            return table[n]
        if not table:
            return None
        # Unmeasured count: the nearest measured one scaled linearly (optimistic for n above it).
        m = min(table, key=lambda k: (abs(k - n), k))
        return table[m] * n / m

    print()
    print("=" * 100)
    print("Summary (%.0f s from the first submission to the last job's end)" % (t_end - t_begin))
    print("=" * 100)
    hdr = "%-14s %-9s %9s %5s %7s %7s %8s %7s %7s %7s %5s %9s"
    print(hdr % ("job", "state", "samples", "grows", "shrinks", "repairs", "restarts", "run s",
                 "smp/s", "node-s", "eff", "test acc"))
    total_s = total_i = used = 0.0
    bad = 0
    for i in ids:
        j = jobs[i]
        end = j["end"] or t_end
        run_s = end - j["first_start"] if j["first_start"] else 0.0
        node_s = integrate(sorted(j["nodes"]), t_begin, end)
        used += node_s
        s = sum(ds for _, _, ds in intervals[i])
        ideal = 0.0
        for dt, n, _ in intervals[i]:
            r = rate_at(i, n)
            ideal += dt * (r if r is not None else 0.0)
        total_s += s
        total_i += ideal
        acc = "-"
        out = os.path.join(state, "jobs", i, "stdout")
        if os.path.exists(out):
            found = re.findall(r"final test accuracy ([0-9.]+)", open(out, errors="replace").read())
            if found:
                acc = found[-1]
        samples = j["samples"] or (s if not j["end"] else 0)
        print(hdr % (i, j["state"], samples, j["grown"], j["shrunk"], j["recovered"],
                     max(0, j["starts"] - 1), "%.1f" % run_s,
                     "%.0f" % (samples / run_s) if run_s > 0 else "-", "%.0f" % node_s,
                     "%.0f%%" % (100 * s / ideal) if ideal > 0 else "-", acc))
        if j["state"] != "finished":
            bad += 1
            if j["reason"]:
                print("    %s: %s" % (i, j["reason"]))
    for i in ids:
        if steady[i]:
            print("  steady samples/s of %-13s by node count: %s" % (
                i, ", ".join("%d: %.0f" % (n, r) for n, r in sorted(steady[i].items()))))
    granted = integrate(pool, t_begin, t_end)
    print("-" * 100)
    print("granted by the trace: %.0f node-s (%.1f nodes on average over %.0f s)" %
          (granted, granted / max(1e-9, t_end - t_begin), t_end - t_begin))
    print("used by the jobs:     %.0f node-s  -> utilisation %.0f%%" %
          (used, 100 * used / granted if granted > 0 else 0))
    if total_i > 0:
        print("elastic efficiency:   %.0f%% (samples done / samples at the steady rate of the same "
              "node counts; the rest went to rescales, restarts and joins)" % (100 * total_s / total_i))
    print("rescales: %d grows, %d shrinks, %d failure repairs, %d restarts" % (
        sum(j["grown"] for j in jobs.values()), sum(j["shrunk"] for j in jobs.values()),
        sum(j["recovered"] for j in jobs.values()),
        sum(max(0, j["starts"] - 1) for j in jobs.values())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
