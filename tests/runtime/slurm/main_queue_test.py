#!/usr/bin/env python3
"""scripts/main_queue.py compare --slurmctld-log and after-pass: each main job's start counted from
slurmctld's first scheduling pass after it received the job, read from a log in slurmctld's own
format (lines as a 22.05 slurmctld at debug level wrote them on the box), and the clear errors on
a log without passes or with a bad time stamp; main_queue.py holders: how holders left, from
their output files."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from datetime import datetime

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts/main_queue.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import main_queue  # noqa: E402


def stamp(hms):
    return datetime.fromisoformat(f"2026-11-29T{hms}").timestamp()


# Job 11 arrives before the backfill pass at :47.102 and starts 0.04 s after it; job 12 arrives
# just after that pass began, so its first look is the main scheduler's pass at :47.127.
LOG = """\
[2026-11-29T01:23:45.101] debug:  sched/backfill: _attempt_backfill: beginning
[2026-11-29T01:23:46.556] _slurm_rpc_submit_batch_job: JobId=11 InitPrio=4294901745 usec=506
[2026-11-29T01:23:47.102] debug:  sched/backfill: _attempt_backfill: beginning
[2026-11-29T01:23:47.102] job_signal: 9 of running JobId=7 successful 0x8008
[2026-11-29T01:23:47.103] _slurm_rpc_submit_batch_job: JobId=12 InitPrio=4294901744 usec=300
[2026-11-29T01:23:47.127] debug:  sched: Running job scheduler for default depth.
[2026-11-29T01:23:48.121] debug:  sched: Running job scheduler for default depth.
"""


class CompareFromFirstPass(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = self.dir.name
        self.log = os.path.join(self.out, "slurmctld.log")
        with open(self.log, "w") as f:
            f.write(LOG)

    def tearDown(self):
        self.dir.cleanup()

    def run_record(self, label, submits, starts, job_ids):
        with open(os.path.join(self.out, label + ".json"), "w") as f:
            json.dump({"submits": submits, "job_ids": job_ids, "samples": [], "refused": 0}, f)
        for i, t in starts.items():
            with open(os.path.join(self.out, f"{label}.start.{i}"), "w") as f:
                f.write(f"{t:.6f}\n")

    def test_start_counted_from_the_first_pass_after_submission(self):
        self.run_record("a", {"1": stamp("01:23:46.550"), "2": stamp("01:23:47.095")},
                        {1: stamp("01:23:47.142"), 2: stamp("01:23:47.147")}, {"1": 11, "2": 12})
        after = main_queue.after_first_pass(self.out, "a", main_queue.slurmctld_log(self.log))
        self.assertAlmostEqual(after[1], 0.040, places=3)
        self.assertAlmostEqual(after[2], 0.020, places=3)

    def test_job_never_started_has_no_start(self):
        self.run_record("a", {"1": stamp("01:23:46.550")}, {}, {"1": 11})
        after = main_queue.after_first_pass(self.out, "a", main_queue.slurmctld_log(self.log))
        self.assertIsNone(after[1])

    def test_compare_prints_both_comparisons(self):
        self.run_record("a", {"1": stamp("01:23:46.550")}, {1: stamp("01:23:47.142")}, {"1": 11})
        # b's job arrives later in the tick: it waits less, but starts later after the pass.
        self.run_record("b", {"1": stamp("01:23:47.095")}, {1: stamp("01:23:47.227")}, {"1": 12})
        r = subprocess.run([sys.executable, SCRIPT, "compare", "--out", self.out, "--base", "a",
                            "--label", "b", "--slurmctld-log", self.log],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("wait -0.46 to -0.46 s", lines[0])  # 0.132 - 0.592
        self.assertIn("first scheduling pass: start +0.06 to +0.06 s", lines[1])  # 0.100 - 0.040
        self.assertIn("later in 1, earlier in 0", lines[1])
        self.assertIn("median 0.55 s after submission in a, 0.03 s in b", lines[2])

    def test_after_pass_of_one_job(self):
        r = subprocess.run([sys.executable, SCRIPT, "after-pass", "--slurmctld-log", self.log, "11",
                            f"{stamp('01:23:47.142'):.6f}"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "0.040\n"), r.stderr)
        r = subprocess.run([sys.executable, SCRIPT, "after-pass", "--slurmctld-log", self.log, "13",
                            f"{stamp('01:23:47.142'):.6f}"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{self.log}: no scheduling pass after job 13's submission", r.stderr)

    def test_log_without_passes_is_named(self):
        with open(self.log, "w") as f:
            f.write("[2026-11-29T01:23:46.556] _slurm_rpc_submit_batch_job: JobId=11 usec=5\n")
        self.run_record("a", {"1": stamp("01:23:46.550")}, {1: stamp("01:23:47.142")}, {"1": 11})
        r = subprocess.run([sys.executable, SCRIPT, "compare", "--out", self.out, "--base", "a",
                            "--label", "a", "--slurmctld-log", self.log],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{self.log}: no scheduling pass logged", r.stderr)

    def test_bad_stamp_names_the_line(self):
        self.run_record("a", {"1": stamp("01:23:46.550")}, {1: stamp("01:23:47.142")}, {"1": 11})
        with open(self.log, "a") as f:
            f.write("[2026-13-29T01:23:49.000] debug:  sched: Running job scheduler for "
                    "full queue.\n")
        r = subprocess.run([sys.executable, SCRIPT, "compare", "--out", self.out, "--base", "a",
                            "--label", "a", "--slurmctld-log", self.log],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{self.log}:8:", r.stderr)


# A holder's output file (<node>.out) as slurmstepd and elastic-holder wrote them on the box:
# preempted and released, preempted and not released, given back by the feed (--vacate-for), and
# the feed's cancel at the end of a run, which is neither.
HOLDER_OUT = """\
slurmstepd-h1: error: *** JOB 23 ON h1 CANCELLED AT 2026-11-29T02:06:46 DUE TO PREEMPTION ***
elastic-holder: h1 job 23 released after 0.08 s
slurmstepd-h1: error: *** JOB 28 ON h1 CANCELLED AT 2026-11-29T02:11:18 DUE TO PREEMPTION ***
elastic-holder: h1 job 28 not released within 4 s, leaving anyway
slurmstepd-h1: error: *** JOB 35 ON h1 CANCELLED AT 2026-11-29T02:13:01 ***
elastic-holder: h1 job 35 released after 0.00 s
slurmstepd-h1: error: *** JOB 61 ON h1 CANCELLED AT 2026-11-29T02:36:20 ***
elastic-holder: h1 job 61 not released within 4 s, leaving anyway
"""


class Holders(unittest.TestCase):
    def test_preempted_and_given_back_are_counted_apart(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "h1.out"), "w") as f:
                f.write(HOLDER_OUT)
            r = subprocess.run([sys.executable, SCRIPT, "holders", d], capture_output=True,
                               text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("preempted holders: 2, released in time: 1, not released in time: 1; "
                      "given back ahead of Slurm: 1", r.stdout)


if __name__ == "__main__":
    unittest.main()
