#!/usr/bin/env python3
"""A real job log's main-queue jobs, time-compressed, submitted to a Slurm (the box's).

Used by bench/runtime/slurm_replay.sh (Slurm alone vs. with libelastic filling the holes) and by
`scripts/demo.sh --slurm` (main jobs arrive while the elastic jobs train on what they leave idle).

  main_queue.py replay --log SWF --start S --minutes M --speed X --nodes N --out DIR --label L
                       [--status STATUS_JSON] [--partition P] -- SLURM_CMD...
      The log's jobs submitted from trace second S (after its first submission) for M wall
      minutes, X trace seconds per wall second, run time and limit divided by X. A job of share
      s = processors / MaxProcs x N nodes gets k = round(s) of them, at least 1, and is kept
      with probability min(1, s / k) (seeded, --seed): on a few nodes most jobs of a big
      machine round up to a whole node, and thinning them keeps the log's offered load instead
      of multiplying it (CTC day 30 at 48x on 4 nodes: 3.2x the box without, 0.58 with;
      --all-jobs keeps every job). Each is
      submitted on time to partition P (main) through SLURM_CMD (e.g. `scripts/box.sh slurm`) and
      writes its start time to DIR; every second the nodes main jobs run on, the nodes holder
      jobs run on (partition --holder-partition, elastic feed slurm's) and (--status: an
      elasticd status.json) the nodes elastic jobs hold, are sampled. At the window's end what is
      left of P's jobs is cancelled, the summary printed and DIR/LABEL.json written.
  main_queue.py summary --out DIR --label L --nodes N      the summary again, from DIR
  main_queue.py compare --out DIR --base B --label L [--slurmctld-log LOG]
                                  job by job, how much later each main job started in run L
                                  than in run B; with slurmctld's log (debug level), also
                                  counted from Slurm's first scheduling pass after its
                                  submission, without the wait for that pass (up to ~1 s,
                                  whose phase drifts from run to run)
  main_queue.py after-pass --slurmctld-log LOG JOB_ID START
                                  a job's start (s since the epoch) counted from slurmctld's
                                  first scheduling pass after its submission
  main_queue.py holders DIR       how the preempted holder jobs (elastic feed slurm's, their
                                  output in DIR) left: released by the runtime within their wait,
                                  or not (the main job then waited for them)

Summary: main jobs started and still pending at the end, their waits (submit -> start) p50/p99,
idle node-seconds (N minus the nodes main jobs use), the share of them holder jobs held (the rest
is lost to Slurm and the feed: a node idle before its holder runs) and the share elastic jobs held
(a holder's node not in an elastic job is lost to the runtime: the grow not made yet).
Exit status 2 on bad input (the log's file and line are named), 1 when Slurm refuses a job.
"""
import argparse
import bisect
import datetime
import gzip
import json
import math
import os
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time


def fail(msg, code=2):
    print(f"main_queue: {msg}", file=sys.stderr)
    sys.exit(code)


def window(log, start, minutes, speed, nodes, thin=True, seed=1):
    """(offset_s, nodes, run_s, limit_min) per job submitted in the window, offsets in wall s."""
    opener = gzip.open if log.endswith(".gz") else open
    machine, jobs, first = None, [], None
    try:
        with opener(log, "rt") as f:
            for n, line in enumerate(f, 1):
                if line.startswith(";"):
                    key, _, value = line[1:].partition(":")
                    if key.strip() == "MaxProcs" or (key.strip() == "MaxNodes" and machine is None):
                        try:
                            machine = int(value.split()[0])
                        except (ValueError, IndexError):
                            fail(f"{log}:{n}: bad {key.strip()} header '{value.strip()}'")
                    continue
                v = line.split()
                if not v:
                    continue
                if len(v) != 18:
                    fail(f"{log}:{n}: expected 18 SWF fields, got {len(v)}")
                try:
                    submit, run, procs, req = float(v[1]), float(v[3]), int(v[4]), float(v[8])
                except ValueError as e:
                    fail(f"{log}:{n}: {e}")
                first = submit if first is None else first
                off = (submit - first - start) / speed
                if off < 0 or off >= minutes * 60 or run <= 0 or procs <= 0:
                    continue
                jobs.append((off, procs, max(1.0, run / speed), max(req, run) / speed))
    except OSError as e:
        fail(f"cannot read the log: {e}")
    except (EOFError, gzip.BadGzipFile) as e:
        fail(f"{log}: {e}")
    if machine is None or machine <= 0:
        fail(f"{log}: no MaxProcs or MaxNodes header: the machine's size is needed to scale jobs")
    rng = random.Random(seed)
    out = []
    for off, procs, run_s, limit_s in jobs:
        share = procs / machine * nodes
        k = max(1, min(nodes, round(share)))
        if thin and rng.random() >= min(1.0, share / k):
            continue
        out.append((off, k, run_s, max(1, math.ceil(limit_s / 60) + 1)))
    return out


def offered_load(jobs, minutes, nodes):
    """Node-seconds the window's jobs ask for within it, over the nodes' seconds."""
    span = minutes * 60
    return sum(k * min(run_s, span - off) for off, k, run_s, _ in jobs) / (nodes * span)


def slurm(cmd, *args, check=True):
    r = subprocess.run(list(cmd) + list(args), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:1])} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def main_nodes(cmd, partition):
    out = slurm(cmd, "squeue", "-h", "-p", partition, "-t", "R", "-o", "%D", check=False)
    return sum(int(x) for x in out.split() if x.isdigit())


def elastic_nodes(status):
    try:
        with open(status) as f:
            return sum(1 for n in json.load(f)["nodes"] if n["state"] == "busy")
    except (OSError, ValueError, KeyError):
        return 0  # being rewritten, or no daemon yet


def replay(a):
    jobs = window(a.log, a.start, a.minutes, a.speed, a.nodes, not a.all_jobs, a.seed)
    os.makedirs(a.out, exist_ok=True)
    prefix = os.path.join(os.path.abspath(a.out), a.label)
    print(f"main queue: {len(jobs)} jobs of {os.path.basename(a.log)} in {a.minutes:g} min "
          f"(trace s {a.start:g}.., {a.speed:g}x{', every job' if a.all_jobs else ''}) on "
          f"{a.nodes} nodes, partition {a.partition}; offered load "
          f"{offered_load(jobs, a.minutes, a.nodes):.2f}", flush=True)
    samples, submits, job_ids, stop = [], {}, {}, threading.Event()

    def sample():
        while not stop.is_set():
            m = main_nodes(a.slurm, a.partition)
            h = main_nodes(a.slurm, a.holder_partition)
            e = elastic_nodes(a.status) if a.status else 0
            samples.append((time.time(), m, e, h))
            stop.wait(1.0)

    sampler = threading.Thread(target=sample, daemon=True)
    t0 = time.time()
    sampler.start()
    refused, next_report = 0, t0 + 30
    for i, (off, k, run_s, limit) in enumerate(jobs, 1):
        while time.time() < t0 + off:
            time.sleep(min(0.05, t0 + off - time.time()))
        submits[i] = time.time()
        try:
            out = slurm(a.slurm, "sbatch", "--parsable", "-o", "/dev/null", "-J", f"main-{i}",
                        "-p", a.partition, f"-N{k}", "-t", str(limit),
                        "--wrap",
                        f"date +%s.%N > {shlex.quote(f'{prefix}.start.{i}')}; sleep {run_s:.1f}")
            job_ids[i] = int(out.split(";")[0])
        except (RuntimeError, ValueError) as e:
            refused += 1
            print(f"main queue: job {i}: {e}", file=sys.stderr, flush=True)
        if time.time() >= next_report:
            next_report += 30
            _, m, e, h = samples[-1] if samples else (0, 0, 0, 0)
            print(f"main queue: t+{time.time() - t0:.0f}s {i}/{len(jobs)} submitted, "
                  f"main jobs on {m} node(s), holders on {h}, elastic jobs on {e}", flush=True)
    while time.time() < t0 + a.minutes * 60:
        time.sleep(0.5)
    stop.set()
    sampler.join()
    slurm(a.slurm, "scancel", "-p", a.partition, check=False)
    with open(prefix + ".json", "w") as f:
        json.dump({"submits": submits, "job_ids": job_ids, "samples": samples, "refused": refused},
                  f)
    summary(a.out, a.label, a.nodes)
    return 1 if refused else 0


def job_waits(out, label):
    """The run's record and each main job's wait in s, by job number (None: never started)."""
    prefix = os.path.join(out, label)
    with open(prefix + ".json") as f:
        run = json.load(f)
    waits = {}
    for i, submitted in run["submits"].items():
        try:
            with open(f"{prefix}.start.{i}") as f:
                waits[int(i)] = float(f.read()) - submitted
        except (OSError, ValueError):
            waits[int(i)] = None
    return run, waits


def summarize(out, label, nodes):
    run, by_job = job_waits(out, label)
    waits = sorted(w for w in by_job.values() if w is not None)
    pending = len(by_job) - len(waits)
    pct = lambda p: waits[min(len(waits) - 1, int(p / 100 * len(waits)))] if waits else math.nan
    idle = filled = held = 0.0
    rows = run["samples"]
    for (t0, m, e, h), (t1, *_) in zip(rows, rows[1:]):
        idle += (nodes - m) * (t1 - t0)
        filled += min(e, nodes - m) * (t1 - t0)
        held += min(h, nodes - m) * (t1 - t0)
    return {"label": label, "started": len(waits), "pending": pending, "refused": run["refused"],
            "wait_p50_s": pct(50), "wait_p99_s": pct(99), "idle_node_s": idle,
            "holder_node_s": held, "elastic_node_s": filled, "filled": filled / idle if idle else 0.0}


def summary(out, label, nodes):
    s = summarize(out, label, nodes)
    print(f"{label}: {s['started']} main jobs started, {s['pending']} still pending at the end"
          f"{', %d refused' % s['refused'] if s['refused'] else ''}; wait p50 {s['wait_p50_s']:.2f} s, "
          f"p99 {s['wait_p99_s']:.2f} s; idle node-s {s['idle_node_s']:.0f}, held by holders "
          f"{s['holder_node_s']:.0f}, by elastic jobs {s['elastic_node_s']:.0f} "
          f"({100 * s['filled']:.1f}%)", flush=True)
    return 0


# Where a scheduling pass of slurmctld begins (SlurmctldDebug=debug or more): its main scheduler's
# and its backfill scheduler's.
SCHED_PASSES = ("sched: Running job scheduler", "sched/backfill: _attempt_backfill: beginning")
SUBMITTED = "_slurm_rpc_submit_batch_job: JobId="


def slurmctld_log(path):
    """From a slurmctld log: when each batch job was submitted (job id -> s since the epoch) and
    when the scheduling passes began (sorted). Its stamps are local time, as slurmctld writes."""
    submitted, passes = {}, []
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            stamp, _, text = line.partition("] ")
            if not stamp.startswith("[") or not (SUBMITTED in text or
                                                 any(p in text for p in SCHED_PASSES)):
                continue
            try:
                t = datetime.datetime.fromisoformat(stamp[1:]).timestamp()
                if SUBMITTED in text:
                    submitted[int(text.split(SUBMITTED)[1].split()[0])] = t
                else:
                    passes.append(t)
            except (ValueError, IndexError) as e:
                fail(f"{path}:{n}: {e}")
    if not passes:
        fail(f"{path}: no scheduling pass logged: slurmctld must log at debug level or more "
             "(SlurmctldDebug=debug; scripts/box.sh: ELASTIC_SLURM_DEBUG=debug)")
    passes.sort()
    return submitted, passes


def after_first_pass(out, label, log):
    """Each main job's wait from the first scheduling pass after slurmctld received it, by job
    number. A submitted batch job waits for slurmctld's next pass, and the passes come about once
    a second (22.05: the background loop sleeps 10 x 0.1 s, then queues one), at a phase that
    drifts against the wall clock: that wait differs from run to run by up to a second for
    reasons that have nothing to do with the nodes. What comes after the pass is Slurm starting the
    job: preempting holders, waiting for them to leave, launching the job."""
    run, waits = job_waits(out, label)
    if "job_ids" not in run:
        fail(f"{out}/{label}.json has no job ids (replays before they were recorded)")
    after = {}
    for i, job_id in run["job_ids"].items():
        start = None if waits.get(int(i)) is None else run["submits"][i] + waits[int(i)]
        first = first_pass(log, job_id)
        after[int(i)] = start - first if start is not None and first is not None else None
    return after


def first_pass(log, job_id):
    """When slurmctld's first scheduling pass after it received the job began (None: no such
    pass, or the job's submission is not in the log)."""
    submitted, passes = log
    k = bisect.bisect_right(passes, submitted.get(job_id, math.inf))
    return passes[k] if k < len(passes) else None


def paired(base, other, what):
    """Job by job: how much later each main job got `what` in run `other` than in run `base`."""
    deltas = [other[i] - base[i] for i in sorted(base)
              if base[i] is not None and other.get(i) is not None]
    if not deltas:
        return "no main job started in both runs"
    later, earlier = sum(d > 0 for d in deltas), sum(d < 0 for d in deltas)
    return (f"{what} {min(deltas):+.2f} to {max(deltas):+.2f} s, median "
            f"{statistics.median(deltas):+.2f} s; later in {later}, earlier in {earlier} "
            f"(sign test p = {sign_test(later, earlier):.3f}; {len(deltas)} started in both)")


def compare(out, base, other, log=None):
    """Job by job: how much later each main job started in run `other` than in run `base`; with
    slurmctld's log, also counted from Slurm's first scheduling pass after each submission."""
    _, a = job_waits(out, base)
    _, b = job_waits(out, other)
    print(f"{other} vs {base}, job by job: {paired(a, b, 'wait')}", flush=True)
    if log:
        times = slurmctld_log(log)
        a_after, b_after = after_first_pass(out, base, times), after_first_pass(out, other, times)
        print(f"{other} vs {base}, job by job from Slurm's first scheduling pass: "
              f"{paired(a_after, b_after, 'start')}", flush=True)

        def until_pass(waits, after):
            return statistics.median([waits[i] - after[i] for i in after if after[i] is not None]
                                     or [math.nan])
        print(f"  (the first pass came a median {until_pass(a, a_after):.2f} s after submission "
              f"in {base}, {until_pass(b, b_after):.2f} s in {other})", flush=True)
    return 0


def sign_test(later, earlier):
    """Two-sided sign test: the chance of a split at least this uneven if later and earlier were
    equally likely (ties left out)."""
    n, k = later + earlier, min(later, earlier)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def holders(holder_dir):
    """Preempted holders, and how many the runtime released in time, from their output files;
    and the holders the feed gave back ahead of Slurm (--vacate-for: cancelled, not preempted,
    then released)."""
    preempted = late = given_back = 0
    for name in sorted(os.listdir(holder_dir)):
        if not name.endswith(".out"):
            continue
        with open(os.path.join(holder_dir, name), errors="replace") as f:
            cancel = None  # "preempted" or "cancelled": the outcome line has not come yet
            for line in f:
                if "CANCELLED" in line:  # the feed's own cancels at the end say "not released" too
                    cancel = "preempted" if "DUE TO PREEMPTION" in line else "cancelled"
                elif cancel and ("released after" in line or "not released" in line):
                    if cancel == "preempted":
                        preempted += 1
                        late += "not released" in line
                    else:
                        given_back += "released after" in line
                    cancel = None
    print(f"preempted holders: {preempted}, released in time: {preempted - late}, "
          f"not released in time: {late}; given back ahead of Slurm: {given_back}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("replay", help="submit a window of the log's jobs on time, then summarise")
    r.add_argument("--log", required=True, help="SWF job log (.gz ok)")
    r.add_argument("--start", type=float, default=0, help="trace s after the first submission")
    r.add_argument("--minutes", type=float, required=True, help="wall minutes of the window")
    r.add_argument("--speed", type=float, default=48, help="trace s per wall s (48)")
    r.add_argument("--nodes", type=int, required=True, help="nodes of the Slurm cluster")
    r.add_argument("--out", required=True, help="dir every node sees (jobs write start times)")
    r.add_argument("--label", required=True, help="name of this run's files in --out")
    r.add_argument("--status", help="elasticd's status.json: sample the nodes elastic jobs hold")
    r.add_argument("--partition", default="main", help="the main queue's partition (main)")
    r.add_argument("--holder-partition", default="scavenger",
                   help="the holder jobs' partition (scavenger): sample the nodes they hold")
    r.add_argument("--all-jobs", action="store_true",
                   help="keep every job (no thinning: small jobs round up to whole nodes)")
    r.add_argument("--seed", type=int, default=1, help="seed of the thinning (1)")
    r.add_argument("slurm", nargs="+", help="how to run a Slurm client, e.g. scripts/box.sh slurm")
    s = sub.add_parser("summary", help="the summary of an earlier replay")
    s.add_argument("--out", required=True)
    s.add_argument("--label", required=True)
    s.add_argument("--nodes", type=int, required=True)
    c = sub.add_parser("compare", help="job by job, the waits of one replay against another's")
    c.add_argument("--out", required=True)
    c.add_argument("--base", required=True, help="label of the baseline run (e.g. slurm_only)")
    c.add_argument("--label", required=True, help="label of the run compared with it")
    c.add_argument("--slurmctld-log",
                   help="slurmctld's log of both runs (debug level): also compare the starts "
                        "counted from Slurm's first scheduling pass after each submission")
    f = sub.add_parser("after-pass", help="a job's start counted from slurmctld's first "
                                          "scheduling pass after its submission")
    f.add_argument("--slurmctld-log", required=True, help="slurmctld's log (debug level)")
    f.add_argument("job_id", type=int)
    f.add_argument("start", type=float, help="the job's start, s since the epoch")
    h = sub.add_parser("holders", help="how the preempted holder jobs left")
    h.add_argument("dir", help="the holders' dir (STATE_DIR/slurm-holders)")
    a = p.parse_args()
    if a.cmd == "holders":
        try:
            return holders(a.dir)
        except OSError as e:
            fail(f"cannot read the holders' output: {e}")
    if a.cmd == "after-pass":
        try:
            first = first_pass(slurmctld_log(a.slurmctld_log), a.job_id)
        except OSError as e:
            fail(f"cannot read slurmctld's log: {e}")
        if first is None:
            fail(f"{a.slurmctld_log}: no scheduling pass after job {a.job_id}'s submission")
        print(f"{a.start - first:.3f}")
        return 0
    if a.cmd == "compare":
        try:
            return compare(a.out, a.base, a.label, a.slurmctld_log)
        except (OSError, ValueError, KeyError) as e:
            fail(f"cannot compare replays '{a.label}' and '{a.base}' in {a.out}: {e}")
    if a.cmd == "summary":
        try:
            return summary(a.out, a.label, a.nodes)
        except (OSError, ValueError, KeyError) as e:
            fail(f"no replay '{a.label}' in {a.out}: {e}")
    if a.minutes <= 0 or a.speed <= 0 or a.nodes <= 0 or a.start < 0:
        fail("--minutes, --speed and --nodes must be positive, --start not negative")
    return replay(a)


if __name__ == "__main__":
    sys.exit(main())
