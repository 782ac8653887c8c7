#!/usr/bin/env python3
"""Can an online planner tell a short hole from a long one when the hole starts?

Every hole a job uses costs at least one grow stall U, so using every hole gives at most about
1 - U * holes / hole-seconds of elastic efficiency (docs/replay.md: the one-grant-per-hole
reference, 0.9704 on the Summit slice). Beating it means leaving short holes unused, and a
planner sees a hole's length only when it ends: at its start the hole's age is 0 for every node.
This script groups the holes of an interval trace by what is known when each one starts and
prints, per group, how long its holes turn out to be and the reference of that group alone:

  batch   nodes that joined the pool in the same second
  pool    idle nodes just before the join
  gap     the node's busy time since its previous hole ended
  prev    the node's previous hole length
  block   the 4-hour block of the trace (is the trace stationary?)

A group whose reference is below the whole trace's would be worth skipping, at the cost of its
share of the usable node-seconds (last column); the row "skip groups under ..." skips them all,
knowing the groups' means in hindsight (an online planner would have to learn them first).
Holes open at the trace start are left out (their start is unknown).

A planner could also wait: grant a node only once its hole has reached an age a, so that holes
shorter than a are never used. The last table gives the reference of that policy per a (the first
a seconds of every hole unused, not counted in the efficiency's ideal) and the share of the usable
node-seconds it keeps.

    bench/replay/hole_predictors.py [--trace ../shared/data/nodestate/<slice>.csv.gz] [--stall 18]
                                    [--ages 0,5,10,...]
"""
import argparse
import bisect
import collections
import csv
import gzip
import os
import statistics
import sys

DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                    "shared", "data"))
DEFAULT_TRACE = os.path.join(DATA, "nodestate",
                             "summit_2021-02-10_first2days_idle_intervals.csv.gz")
BLOCK_S = 4 * 3600


def fail(message):
    """Bad input: the message on stderr, exit code 2 (as elastic-replay)."""
    print(f"hole_predictors: {message}", file=sys.stderr)
    sys.exit(2)


class Hole:
    def __init__(self, node, start, end):
        self.node, self.start, self.end = node, start, end

    @property
    def length(self):
        return self.end - self.start


def read_holes(path):
    """The trace's holes; a bad line exits 2 naming the file and line."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            reader = csv.DictReader(f)
            missing = {"node", "idle_start_unix", "idle_end_unix"} - set(reader.fieldnames or [])
            if missing:
                fail(f"{path}:1: missing column(s) {', '.join(sorted(missing))}")
            holes = []
            for row in reader:
                try:
                    hole = Hole(row["node"], int(row["idle_start_unix"]), int(row["idle_end_unix"]))
                except (TypeError, ValueError):
                    fail(f"{path}:{reader.line_num}: idle_start_unix and idle_end_unix must be "
                         "integers")
                if hole.length < 0:
                    fail(f"{path}:{reader.line_num}: hole ends before it starts")
                holes.append(hole)
    except csv.Error as e:
        fail(f"{path}: {e}")
    except OSError as e:
        fail(f"{path}: {e.strerror or e}")
    if not holes:
        fail(f"{path}: no holes")
    return holes


def bucket(value, edges):
    """The label of the first edge above value ('<edge'), or '>=last'."""
    for edge in edges:
        if value < edge:
            return f"<{edge}"
    return f">={edges[-1]}"


def group_order(label):
    """'<50' before '<100' before '>=400'; ' 8-12 h' by its first hour."""
    return label[0] == ">", float(label.lstrip("<>=").split("-")[0])


def observables(holes):
    """Per hole that starts after the trace start: {observable: group label}."""
    t0 = min(h.start for h in holes)
    batch = collections.Counter(h.start for h in holes)
    # Idle nodes just before each instant: joins count from their start, leaves from their end.
    changes = sorted([(h.start, 1) for h in holes] + [(h.end, -1) for h in holes])
    times, idle, level = [], [], 0
    for t, delta in changes:
        level += delta
        times.append(t)
        idle.append(level)
    by_node = collections.defaultdict(list)
    for h in holes:
        by_node[h.node].append(h)
    previous = {}
    for node_holes in by_node.values():
        node_holes.sort(key=lambda h: h.start)
        for before, hole in zip(node_holes, node_holes[1:]):
            previous[id(hole)] = before
    groups = {}
    for h in holes:
        if h.start == t0:
            continue
        i = bisect.bisect_left(times, h.start) - 1
        g = {
            "batch": bucket(batch[h.start], [2, 5, 17, 65, 257]),
            "pool": bucket(idle[i] if i >= 0 else 0, [50, 100, 200, 400]),
            "block": f"{(h.start - t0) // BLOCK_S * 4:>2}-{(h.start - t0) // BLOCK_S * 4 + 4} h",
        }
        before = previous.get(id(h))
        if before is not None:
            g["gap"] = bucket(h.start - before.end, [60, 300, 1800, 7200])
            g["prev"] = bucket(before.length, [100, 300, 1000, 3000])
        groups[id(h)] = g
    return groups


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", default=DEFAULT_TRACE, help="idle-interval CSV (.gz or plain)")
    parser.add_argument("--stall", type=float, default=18.0,
                        help="grow stall U of a hole's first grant in seconds (hps: 18)")
    parser.add_argument("--ages", default="0,5,10,15,20,30,45,60,90,120,300",
                        help="comma-separated hole ages in seconds at which a node is granted")
    args = parser.parse_args()
    if not args.stall >= 0:
        fail("--stall must be >= 0")
    try:
        ages = [float(a) for a in args.ages.split(",")]
    except ValueError:
        fail(f"--ages: '{args.ages}' is not a comma-separated list of seconds")
    if not all(a >= 0 for a in ages):
        fail(f"--ages: '{args.ages}' has an age below 0")
    holes = read_holes(args.trace)
    groups = observables(holes)
    used = [h for h in holes if id(h) in groups]
    usable = sum(max(h.length - args.stall, 0) for h in used)
    if usable <= 0:
        fail(f"{args.trace}: no hole after the trace start is longer than the stall "
             f"({args.stall:g} s): nothing to compare")

    def efficiency(lengths):
        # One grant per hole, at its start; a hole shorter than U loses all of itself.
        total = sum(lengths)
        return 1 - sum(min(args.stall, x) for x in lengths) / total if total > 0 else float("nan")

    def reference(hs):
        return efficiency([h.length for h in hs])

    print(f"{args.trace}: {len(holes)} holes, {len(used)} start after the trace start; "
          f"one grant per hole, U = {args.stall:g} s: elastic efficiency {reference(used):.4f}\n")
    print("| observable | group | holes | mean s | median s | < 100 s | reference | usable share |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ["batch", "pool", "gap", "prev", "block"]:
        by_group = collections.defaultdict(list)
        for h in used:
            if name in groups[id(h)]:
                by_group[groups[id(h)][name]].append(h)
        for label in sorted(by_group, key=group_order):
            hs = by_group[label]
            lengths = sorted(h.length for h in hs)
            share = sum(max(h.length - args.stall, 0) for h in hs) / usable
            print(f"| {name} | {label} | {len(hs)} | {statistics.mean(lengths):.0f} | "
                  f"{lengths[len(lengths) // 2]} | {sum(x < 100 for x in lengths) / len(hs):.2f} | "
                  f"{reference(hs):.4f} | {share:.3f} |")
        # Skipping every group under the whole trace's reference, knowing the groups' means in
        # hindsight: the most that skipping by this observable could give.
        kept = [h for hs in by_group.values() if reference(hs) >= reference(used) for h in hs]
        if kept:
            share = sum(max(h.length - args.stall, 0) for h in kept) / usable
            print(f"| {name} | skip groups under {reference(used):.4f} | {len(kept)} | | | | "
                  f"**{reference(kept):.4f}** | **{share:.3f}** |")

    print("\n| granted at age s | holes used | reference | usable share |")
    print("|---|---|---|---|")
    for age in ages:
        left = [h.length - age for h in used if h.length > age]
        share = sum(max(x - args.stall, 0) for x in left) / usable
        print(f"| {age:g} | {len(left)} | {efficiency(left):.4f} | {share:.3f} |")


if __name__ == "__main__":
    main()
