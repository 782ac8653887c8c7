#!/usr/bin/env python3
"""Parameter sweeps of elastic-replay with one PNG per swept parameter, as the papers' figures:
elastic efficiency and utilisation against the look-ahead horizon T_fwd, the grow/shrink stall
(our measured rescale stalls against Elastic Horovod's 12-19 s) and --max-running.

Each point is one elastic-replay run; the numbers come from its metrics.json, the plots from
gnuplot. The defaults replay the first 12 h of the shared Summit slice (a few seconds a point);
--end +170000 covers the whole slice.

    bench/replay/sweep.py --replay build/default/allocator/replay/elastic-replay --out out/sweep

Writes OUT/<param>.dat (value, elastic efficiency, utilisation, samples, rescales, preemptions),
OUT/<param>.gp and OUT/<param>.png for param in horizon, stall, max_running.

--frontier instead plots what each planner trades: samples against elastic efficiency, one point
per horizon, for the exact planner and for --hole-loss, with the issue's 0.97 target (a planner
helps only where its curve lies above and right of the other's). It writes OUT/frontier.dat,
OUT/frontier.gp and OUT/frontier.png; runs go in parallel (--jobs), as --hole-loss takes minutes
a run with 1000 admitted:

    bench/replay/sweep.py --replay ... --frontier --end '' --jobs 2 --out out/f -- --max-running 1000
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")

# Swept values (plotted on a log x axis); the others stay at elastic-replay's defaults (horizon 10 s, the workload's stalls,
# 10 running jobs).
SWEEPS = {
    "horizon": ("--horizon", [1, 3, 10, 30, 100, 300, 600], "look-ahead horizon T_fwd (s)"),
    "stall": ("--stall", [0.1, 0.3, 1, 3, 10, 19, 30], "grow and shrink stall per rescale (s)"),
    "max_running": ("--max-running", [1, 2, 5, 10, 20, 50, 100], "jobs admitted at once"),
}

# --frontier: each planner's flags and the horizons it is run at. --hole-loss charges a start its
# full stall, so a horizon under the stall (18 s) runs nothing.
FRONTIER = {
    "exact": ([], [1, 3, 10, 30, 60, 120, 300]),
    "hole-loss": (["--hole-loss"], [20, 30, 45, 60, 90, 120, 240]),
}
TARGET = 0.97
DEFAULT_HORIZON = 10  # elastic-replay's --horizon: "today's exact planner" of the issue


def run_point(args, flag, value, out_dir, policy_flags=()):
    cmd = [args.replay, "--trace", args.trace, "--workload", args.workload, "--solver",
           args.solver, "--no-plots", "--out", out_dir, flag, str(value), *policy_flags]
    if args.end:
        cmd += ["--end", args.end]
    cmd += args.extra
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"sweep: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    with open(os.path.join(out_dir, "metrics.json")) as f:
        return json.load(f)


def gnuplot(gp, png, size, title, xlabel, ylabel, script):
    """Writes gp (the common preamble, then script) and runs it into png."""
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo size {size} noenhanced
set output '{png}'
set title "{title}"
set xlabel '{xlabel}'
set ylabel '{ylabel}'
set grid
{script}""")
    subprocess.run(["gnuplot", gp], check=True)


def plot(xlabel, dat, png, gp):
    gnuplot(gp, png, "800,500", f"elastic-replay: efficiency vs {xlabel}", xlabel, "fraction",
            f"""set yrange [0:1.05]
set key bottom right
set logscale x
plot '{dat}' using 1:2 with linespoints lw 2 pt 7 title 'elastic efficiency S/I', \\
     '{dat}' using 1:3 with linespoints lw 2 pt 5 title 'utilisation A/H'
""")


def plot_frontier(dat, png, gp, title, top):
    series = ", \\\n     ".join(
        f"'{dat}' index {i} using ($3/1e10):4 with linespoints lw 2 pt 7 title '{name}', "
        f"'' index {i} using ($3/1e10):4:(sprintf('%g s', $2)) with labels left "
        f"offset char 0.6,0.5 font ',9' notitle"
        for i, name in enumerate(FRONTIER))
    default = FRONTIER["exact"][1].index(DEFAULT_HORIZON)
    gnuplot(gp, png, "900,600",
            f"{title}\\nsamples vs elastic efficiency, one point per horizon T_fwd",
            "samples (1e10)", "elastic efficiency S/I", f"""set yrange [*:{top:.4f}]
set key outside bottom center horizontal
plot {series}, \\
     '{dat}' index 0 every ::{default}::{default} using ($3/1e10):4 with points pt 6 ps 3 \\
       lc rgb 'red' title 'exact at the default {DEFAULT_HORIZON} s', \\
     {TARGET} with lines dt 2 lc rgb 'black' title 'target {TARGET}'
""")


def frontier(args):
    points = [(name, flags, h) for name, (flags, horizons) in FRONTIER.items() for h in horizons]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = [pool.submit(run_point, args, "--horizon", h,
                            os.path.join(args.out, "runs", f"frontier-{name}-{h}"), flags)
                for name, flags, h in points]
        metrics = []
        try:
            for (name, _, h), run in zip(points, runs):
                m = run.result()
                metrics.append(m)
                print(f"{name} horizon={h}: samples {m['samples']:.4g}, "
                      f"elastic efficiency {m['elastic_efficiency']:.4f}", flush=True)
        except BaseException:  # a failed run ends the sweep: the queued ones do not start
            for run in runs:
                run.cancel()
            raise
    dat = os.path.join(args.out, "frontier.dat")
    with open(dat, "w") as f:
        f.write("# policy horizon_s samples elastic_efficiency utilization rescales\n")
        previous = None
        for (name, _, h), m in zip(points, metrics):
            if previous is not None and name != previous:
                f.write("\n\n")  # a gnuplot index per planner
            previous = name
            f.write(f"{name} {h} {m['samples']:.6g} {m['elastic_efficiency']:.6f} "
                    f"{m['utilization']:.6f} {m['rescales']}\n")
    title = os.path.basename(args.workload).removesuffix(".csv.gz")
    if args.extra:
        title += " " + " ".join(args.extra)
    top = max([TARGET] + [m["elastic_efficiency"] for m in metrics]) + 0.002
    plot_frontier(dat, os.path.join(args.out, "frontier.png"),
                  os.path.join(args.out, "frontier.gp"), title, top)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", required=True, help="the elastic-replay binary")
    p.add_argument("--trace", default=os.path.join(
        DATA, "nodestate", "summit_2021-02-10_first2days_idle_intervals.csv.gz"))
    p.add_argument("--workload", default=os.path.join(DATA, "workloads", "hps-shufflenet-jobs-1000J.csv.gz"))
    p.add_argument("--solver", default="dp")
    p.add_argument("--end", default="+43200", help="window end passed to elastic-replay ('' = whole trace)")
    p.add_argument("--only", choices=sorted(SWEEPS), action="append", help="sweep only these (repeatable)")
    p.add_argument("--frontier", action="store_true",
                   help="samples vs elastic efficiency per horizon, exact planner and --hole-loss")
    p.add_argument("--jobs", type=int, default=1, help="elastic-replay runs at once (--frontier)")
    p.add_argument("--out", default="sweep-out")
    p.add_argument("extra", nargs="*", help="further elastic-replay options (after --)")
    args = p.parse_args()
    if shutil.which("gnuplot") is None:
        sys.exit("sweep: gnuplot not found (apt-get install gnuplot-nox)")
    if args.jobs < 1:
        sys.exit(f"sweep: --jobs must be at least 1 (got {args.jobs})")
    os.makedirs(args.out, exist_ok=True)
    if args.frontier:
        frontier(args)
        print(f"plot in {args.out}")
        return
    for name in args.only or sorted(SWEEPS):
        flag, values, xlabel = SWEEPS[name]
        dat = os.path.join(args.out, f"{name}.dat")
        with open(dat, "w") as f:
            f.write("# value elastic_efficiency utilization samples rescales preemptions\n")
            for v in values:
                m = run_point(args, flag, v, os.path.join(args.out, "runs", f"{name}-{v}"))
                f.write(f"{v} {m['elastic_efficiency']:.6f} {m['utilization']:.6f} "
                        f"{m['samples']:.6g} {m['rescales']} {m['preemptions']}\n")
                print(f"{name}={v}: elastic efficiency {m['elastic_efficiency']:.4f}, "
                      f"utilisation {m['utilization']:.4f}, samples {m['samples']:.4g}", flush=True)
        plot(xlabel, dat, os.path.join(args.out, f"{name}.png"),
             os.path.join(args.out, f"{name}.gp"))
    print(f"plots in {args.out}")


if __name__ == "__main__":
    main()
