"""scripts/measure/collect.py on SYNTHETIC ptxcast-measure CSVs (made-up times) of one network in
two lowerings: the math and kernel_set columns come from each lowering's workload.json (absent:
simt, specialised), one --manifests root per results folder, the PTX digest, and the errors."""

import csv
import hashlib
import json
import os
import subprocess
import sys
import unittest

from support import scratch

COLLECT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "measure", "collect.py")
META = """# tool: ptxcast-measure 0.1.0
# date_utc: 2026-11-26T06:16:25Z
# device: NVIDIA H200
# sms_requested: all
# sms_used: 132
# note: {note}
"""
HEAD = "scope,launch_index,kernel,median_ms,device,sms\n"


def lowering(root, workload, ptx):
    """ROOT/net-b8/: manifest.json naming one PTX file, the file, and workload.json."""
    folder = os.path.join(root, "net-b8")
    os.makedirs(folder)
    with open(os.path.join(folder, "k.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump({"ptx": ["k.ptx"]}, f)
    with open(os.path.join(folder, "workload.json"), "w") as f:
        json.dump(dict(workload, dtype="f32", arch="sm_90"), f)


def results(folder, kernel, median, note):
    os.makedirs(folder)
    with open(os.path.join(folder, "net-b8.sms-all.run1.csv"), "w") as f:
        f.write(META.format(note=note) + HEAD + f"graph,,,{median * 2},NVIDIA H200,132\n" +
                f"launch,0,{kernel},{median},NVIDIA H200,132\n")


def table(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class CollectTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch()
        w = self.work.name
        lowering(os.path.join(w, "tf32"), {"math": "auto", "kernel_set": "library"}, "// mma\n")
        lowering(os.path.join(w, "old"), {}, "// fma\n")  # a manifest from before --math
        results(os.path.join(w, "r-tf32"), "lib_conv_mma_tf32", 0.25, "tensor cores")
        results(os.path.join(w, "r-old"), "conv_igemm", 1.5, "cuda cores")

    def tearDown(self):
        self.work.cleanup()

    def run_collect(self, *args):
        return subprocess.run([sys.executable, COLLECT, *args], capture_output=True, text=True)

    def test_one_root_per_results_folder(self):
        w, out = self.work.name, os.path.join(self.work.name, "out")
        done = self.run_collect("--manifests", os.path.join(w, "tf32"), "--manifests",
                                os.path.join(w, "old"), "--out", out, os.path.join(w, "r-tf32"),
                                os.path.join(w, "r-old"))
        self.assertEqual(done.returncode, 0, done.stderr)
        kernels = table(os.path.join(out, "kernels.csv"))
        self.assertEqual(list(kernels[0])[:9], ["network", "batch", "dtype", "arch", "math",
                                                "kernel_set", "sms_requested", "run", "sms_used"])
        # Sorted by lowering (auto before simt), then launch before graph.
        self.assertEqual([(r["math"], r["kernel_set"], r["scope"], r["kernel"], r["median_ms"])
                          for r in kernels],
                         [("auto", "library", "launch", "lib_conv_mma_tf32", "0.25"),
                          ("auto", "library", "graph", "", "0.5"),
                          ("simt", "specialised", "launch", "conv_igemm", "1.5"),
                          ("simt", "specialised", "graph", "", "3.0")])
        runs = table(os.path.join(out, "runs.csv"))
        self.assertEqual([(r["math"], r["notes"], r["device"]) for r in runs],
                         [("auto", "tensor cores", "NVIDIA H200"),
                          ("simt", "cuda cores", "NVIDIA H200")])
        self.assertEqual(runs[0]["ptx_sha256"], hashlib.sha256(b"// mma\n").hexdigest())
        self.assertNotIn("sms_requested", list(runs[0])[8:])  # once, in front

    def test_roots_must_match_results(self):
        w = self.work.name
        done = self.run_collect("--manifests", "a", "--manifests", "b", "--manifests", "c",
                                "--out", os.path.join(w, "out"), os.path.join(w, "r-tf32"),
                                os.path.join(w, "r-old"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("give --manifests once, or once per result folder", done.stderr)


if __name__ == "__main__":
    unittest.main()
