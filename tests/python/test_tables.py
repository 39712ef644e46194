"""scripts/accuracy-tables.py on SYNTHETIC out-of-fold predictions (made-up times, two GPUs and
two operators): the operator lines, and `--host-from-others`, which scores each held-out GPU
with the other GPUs' op-call overhead instead of its own."""

import csv
import os
import subprocess
import sys
import unittest

from support import scratch

TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "accuracy-tables.py")
IDS = ["source", "gpu", "sms", "runtime", "math", "dtype", "workload", "config", "note"]
# (gpu, workload, own overhead ms): the dataset's per-(GPU, operator) estimates.
OVERHEAD = [("g1", "relu", 0.05), ("g2", "relu", 0.02), ("g1", "linear", 0.04),
            ("g2", "linear", 0.01)]


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def run(*args):
    done = subprocess.run([sys.executable, TABLES, *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def line(out, gpu, op):
    """The cells of the table line of (gpu, neusight, op), bold marks removed."""
    for row in out.splitlines():
        cells = [c.strip().strip("*") for c in row.strip().strip("|").split("|")]
        if cells[:3] == [gpu, "neusight", op]:
            return cells
    raise AssertionError(f"no line for {gpu} {op} in\n{out}")


class HostFromOthers(unittest.TestCase):
    def setUp(self):
        self.dir = scratch()
        d = self.dir.name
        self.dataset = os.path.join(d, "neusight.csv")
        write(self.dataset, IDS + ["overhead_ms", "measured_ms"],
              [["neusight", g, "all", "op-call", "simt", "f32", w, "n=1", "", o, 1.0]
               for g, w, o in OVERHEAD])
        # One row per (gpu, operator): measured 0.2 ms, predicted 0.1 ms of kernel time plus the
        # row's own overhead.
        self.oof = os.path.join(d, "oof.csv")
        write(self.oof, IDS + ["measured_ms", "predicted_knn"],
              [["neusight", g, "all", "op-call", "simt", "f32", w, "n=1", "", 0.2, 0.1 + o]
               for g, w, o in OVERHEAD])

    def tearDown(self):
        self.dir.cleanup()

    def test_own_overhead_lines(self):
        status, out, err = run("operators", self.oof)
        self.assertEqual(status, 0, err)
        # g1 elementwise: |0.15 - 0.2| / 0.2 = 25 %.
        self.assertEqual(line(out, "g1", "elementwise")[4], "25.0")
        self.assertNotIn("other GPUs' host", out)

    def test_other_gpus_overhead_replaces_own(self):
        status, out, err = run("operators", "--host-from-others", self.dataset, self.oof)
        self.assertEqual(status, 0, err)
        self.assertIn("best, other GPUs' host", out.splitlines()[0])
        g1 = line(out, "g1", "elementwise")
        # Own: 0.15 ms (25 %); with g2's 0.02 ms overhead: 0.12 ms, 40 %.
        self.assertEqual((g1[4], g1[-1]), ("25.0", "40.0"))
        g2 = line(out, "g2", "linear")
        # Own: 0.11 ms (45 %); with g1's 0.04 ms: 0.14 ms, 30 %.
        self.assertEqual((g2[4], g2[-1]), ("45.0", "30.0"))

    def test_one_gpu_is_an_error(self):
        write(self.dataset, IDS + ["overhead_ms", "measured_ms"],
              [["neusight", "g1", "all", "op-call", "simt", "f32", w, "n=1", "", 0.05, 1.0]
               for w in ("relu", "linear")])
        status, _, err = run("operators", "--host-from-others", self.dataset, self.oof)
        self.assertNotEqual(status, 0)
        self.assertIn("error: no op-call row of a GPU other than g1", err)

    def test_row_without_an_estimate_is_an_error(self):
        write(self.dataset, IDS + ["overhead_ms", "measured_ms"],
              [["neusight", g, "all", "op-call", "simt", "f32", w, "n=1", "", o, 1.0]
               for g, w, o in OVERHEAD if (g, w) != ("g1", "linear")])
        status, _, err = run("operators", "--host-from-others", self.dataset, self.oof)
        self.assertNotEqual(status, 0)
        self.assertIn("error: no op-call row of gpu g1, workload linear", err)


if __name__ == "__main__":
    unittest.main()
