#!/usr/bin/env python3
"""bench/replay/hole_predictors.py on a hand-made trace: the one-grant-per-hole reference of the
whole trace and of each join-batch group, worked out by hand, the hindsight skip row, and the
clear errors (file and line, exit code 2) on a bad trace."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "../../bench/replay/hole_predictors.py")

# n0's hole is open at the trace start (left out). n1 and n2 join together at 100 for 1,000 s;
# n3 joins alone at 200 for 100 s. With U = 18 s: the whole trace 1 - 3*18/2100 = 0.9743, the
# pair 1 - 2*18/2000 = 0.9820, the single hole 1 - 18/100 = 0.8200; skipping the single hole keeps
# 2*982 of the 2*982 + 82 usable node-seconds (0.960). Granting at age 100 skips the single hole
# and uses 900 s of each of the pair: 1 - 2*18/1800 = 0.9800, keeping 2*882/2046 = 0.862.
TRACE = """\
node,idle_start_unix,idle_end_unix
n0,0,5000
n1,100,1100
n2,100,1100
n3,200,300
"""


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def write(directory, text):
    path = os.path.join(directory, "trace.csv")
    with open(path, "w") as f:
        f.write(text)
    return path


class HolePredictors(unittest.TestCase):
    def test_reference_per_join_batch(self):
        with tempfile.TemporaryDirectory() as d:
            done = run("--trace", write(d, TRACE), "--stall", "18")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("4 holes, 3 start after the trace start", done.stdout)
        self.assertIn("elastic efficiency 0.9743", done.stdout)
        rows = [line.split("|")[1:-1] for line in done.stdout.splitlines()
                if line.startswith("| batch")]
        by_group = {row[1].strip(): [cell.strip() for cell in row[2:]] for row in rows}
        self.assertEqual(by_group["<2"][0], "1")
        self.assertEqual(by_group["<2"][4], "0.8200")
        self.assertEqual(by_group["<5"][0], "2")
        self.assertEqual(by_group["<5"][4], "0.9820")
        self.assertEqual(by_group["skip groups under 0.9743"][4], "**0.9820**")
        self.assertEqual(by_group["skip groups under 0.9743"][5], "**0.960**")

    def test_reference_when_granting_at_an_age(self):
        with tempfile.TemporaryDirectory() as d:
            done = run("--trace", write(d, TRACE), "--stall", "18", "--ages", "0,100")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [line.split("|")[1:-1] for line in done.stdout.splitlines()
                if line.startswith("| 0 |") or line.startswith("| 100 |")]
        self.assertEqual([[cell.strip() for cell in row] for row in rows],
                         [["0", "3", "0.9743", "1.000"], ["100", "2", "0.9800", "0.862"]])

    def test_hole_shorter_than_the_stall_loses_only_itself(self):
        # n1: 1,000 s, n3: 10 s. The 10 s hole loses its 10 s, not U = 18:
        # 1 - (18 + 10) / 1010 = 0.9723 (charging it 18 would give 0.9644).
        trace = "node,idle_start_unix,idle_end_unix\nn0,0,5000\nn1,100,1100\nn3,200,210\n"
        with tempfile.TemporaryDirectory() as d:
            done = run("--trace", write(d, trace), "--stall", "18")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("elastic efficiency 0.9723", done.stdout)

    def test_bad_ages_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            for ages, error in [("0,soon", "is not a comma-separated list"),
                                ("0,-5", "has an age below 0")]:
                with self.subTest(ages=ages):
                    done = run("--trace", write(d, TRACE), "--ages", ages)
                    self.assertEqual(done.returncode, 2)
                    self.assertIn(f"--ages: '{ages}' {error}", done.stderr)

    def test_bad_line_names_file_and_line(self):
        for line, error in [("n3,200,soon", "idle_start_unix and idle_end_unix must be integers"),
                            ("n3,300,200", "hole ends before it starts")]:
            with self.subTest(line=line), tempfile.TemporaryDirectory() as d:
                path = write(d, TRACE.replace("n3,200,300", line))
                done = run("--trace", path)
                self.assertEqual(done.returncode, 2)
                self.assertIn(f"{path}:5: {error}", done.stderr)

    def test_missing_columns_and_missing_file(self):
        with tempfile.TemporaryDirectory() as d:
            done = run("--trace", write(d, "node,start\nn0,1\n"))
            self.assertEqual(done.returncode, 2)
            self.assertIn("trace.csv:1: missing column(s) idle_end_unix, idle_start_unix",
                          done.stderr)
            done = run("--trace", os.path.join(d, "absent.csv"))
            self.assertEqual(done.returncode, 2)
            self.assertIn("absent.csv: No such file or directory", done.stderr)


if __name__ == "__main__":
    unittest.main()
