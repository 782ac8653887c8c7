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
"""
import argparse
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


def run_point(args, flag, value, out_dir):
    cmd = [args.replay, "--trace", args.trace, "--workload", args.workload, "--solver",
           args.solver, "--no-plots", "--out", out_dir, flag, str(value)]
    if args.end:
        cmd += ["--end", args.end]
    cmd += args.extra
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"sweep: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    with open(os.path.join(out_dir, "metrics.json")) as f:
        return json.load(f)


def plot(xlabel, dat, png, gp):
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo size 800,500 noenhanced
set output '{png}'
set title 'elastic-replay: efficiency vs {xlabel}'
set xlabel '{xlabel}'
set ylabel 'fraction'
set yrange [0:1.05]
set key bottom right
set grid
set logscale x
plot '{dat}' using 1:2 with linespoints lw 2 pt 7 title 'elastic efficiency S/I', \\
     '{dat}' using 1:3 with linespoints lw 2 pt 5 title 'utilisation A/H'
""")
    subprocess.run(["gnuplot", gp], check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--replay", required=True, help="the elastic-replay binary")
    p.add_argument("--trace", default=os.path.join(
        DATA, "nodestate", "summit_2021-02-10_first2days_idle_intervals.csv.gz"))
    p.add_argument("--workload", default=os.path.join(DATA, "workloads", "hps-shufflenet-jobs-1000J.csv.gz"))
    p.add_argument("--solver", default="dp")
    p.add_argument("--end", default="+43200", help="window end passed to elastic-replay ('' = whole trace)")
    p.add_argument("--only", choices=sorted(SWEEPS), action="append", help="sweep only these (repeatable)")
    p.add_argument("--out", default="sweep-out")
    p.add_argument("extra", nargs="*", help="further elastic-replay options (after --)")
    args = p.parse_args()
    if shutil.which("gnuplot") is None:
        sys.exit("sweep: gnuplot not found (apt-get install gnuplot-nox)")
    os.makedirs(args.out, exist_ok=True)
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
