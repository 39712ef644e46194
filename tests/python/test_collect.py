"""scripts/measure/collect.py on SYNTHETIC ptxcast-measure CSVs (made-up times) of one network in
two lowerings: the math and kernel_set columns come from each lowering's workload.json (absent:
simt, specialised), one --manifests root per results folder, the PTX digests, and the errors.
scripts/measure/check-ptx.py on the measured H100 and H200 runs: ptxcast still lowers the
kernels they timed."""

import csv
import hashlib
import json
import os
import subprocess
import sys
import unittest

from support import ptxcast_bin, scratch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPTS = os.path.join(ROOT, "scripts", "measure")
COLLECT = os.path.join(SCRIPTS, "collect.py")
sys.path.insert(0, SCRIPTS)
import collect  # noqa: E402
META = """# tool: ptxcast-measure 0.1.0
# date_utc: 2026-11-26T06:16:25Z
# device: NVIDIA H200
# sms_requested: all
# sms_used: 132
# note: {note}
"""
HEAD = "scope,launch_index,kernel,median_ms,device,sms\n"


KERNEL = ".visible .entry {name}(\n\t.param .u64 p\n)\n{{\n\t{body};\n\t{{ nested }}\n\tret;\n}}\n"


def module(*kernels):
    return ".version 7.8\n.target sm_90\n.address_size 64\n\n" + "".join(
        KERNEL.format(name=n, body=b) for n, b in kernels)


def lowering(root, workload, *ptx):
    """ROOT/net-b8/: manifest.json naming the PTX files, the files, and workload.json."""
    folder = os.path.join(root, "net-b8")
    os.makedirs(folder)
    for i, text in enumerate(ptx):
        with open(os.path.join(folder, f"k{i}.ptx"), "w") as f:
            f.write(text)
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump({"ptx": [f"k{i}.ptx" for i in range(len(ptx))]}, f)
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
        lowering(os.path.join(w, "tf32"), {"math": "auto", "kernel_set": "library"},
                 module(("a", "mma.sync"), ("b", "cp.async")))
        lowering(os.path.join(w, "old"), {}, module(("a", "fma.rn.f32")))  # from before --math
        results(os.path.join(w, "r-tf32"), "lib_conv_mma_tf32", 0.25, "tensor cores")
        results(os.path.join(w, "r-old"), "conv_igemm", 1.5, "cuda cores")

    def tearDown(self):
        self.work.cleanup()

    def run_collect(self, *args):
        return subprocess.run([sys.executable, COLLECT, *args], capture_output=True, text=True)

    def collect_both(self, out):
        """Both lowerings' results into new tables in `out`, one root per results folder."""
        w = self.work.name
        done = self.run_collect("--manifests", os.path.join(w, "tf32"), "--manifests",
                                os.path.join(w, "old"), "--out", out, os.path.join(w, "r-tf32"),
                                os.path.join(w, "r-old"))
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_one_root_per_results_folder(self):
        out = os.path.join(self.work.name, "out")
        self.collect_both(out)
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
        tf32 = module(("a", "mma.sync"), ("b", "cp.async")).encode()
        self.assertEqual(runs[0]["ptx_sha256"], hashlib.sha256(tf32).hexdigest())
        self.assertEqual(runs[0]["kernels_sha256"], collect.kernels_digest([tf32]))
        self.assertNotEqual(runs[0]["kernels_sha256"], runs[1]["kernels_sha256"])
        self.assertNotIn("sms_requested", list(runs[0])[8:])  # once, in front

    def test_kernels_digest_ignores_the_split_into_modules(self):
        one = module(("a", "mma.sync"), ("b", "cp.async")).encode()
        two = [module(("b", "cp.async")).encode(), module(("a", "mma.sync")).encode()]
        self.assertEqual(collect.kernels_digest([one]), collect.kernels_digest(two))
        self.assertNotEqual(hashlib.sha256(one).hexdigest(),
                            hashlib.sha256(b"".join(two)).hexdigest())
        # One instruction more in one kernel, or another target, is another digest.
        changed = module(("a", "mma.sync;\n\tmma.sync"), ("b", "cp.async")).encode()
        self.assertNotEqual(collect.kernels_digest([one]), collect.kernels_digest([changed]))
        self.assertNotEqual(collect.kernels_digest([one]),
                            collect.kernels_digest([one.replace(b"sm_90", b"sm_80")]))
        # LLVM numbers block labels by the function's place in its module: not part of it.
        first = module(("a", "bra $L__BB0_1;\n$L__BB0_1:")).encode()
        fifth = module(("a", "bra $L__BB4_1;\n$L__BB4_1:")).encode()
        other = module(("a", "bra $L__BB0_2;\n$L__BB0_2:")).encode()
        self.assertEqual(collect.kernels_digest([first]), collect.kernels_digest([fifth]))
        self.assertNotEqual(collect.kernels_digest([first]), collect.kernels_digest([other]))

    def test_update_replaces_the_remeasured_runs(self):
        w, out = self.work.name, os.path.join(self.work.name, "out")
        self.collect_both(out)
        results(os.path.join(w, "r-again"), "lib_conv_mma_tf32", 0.2, "after a kernel change")
        done = self.run_collect("--manifests", os.path.join(w, "tf32"), "--update", out,
                                os.path.join(w, "r-again"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual([(r["math"], r["scope"], r["median_ms"])
                          for r in table(os.path.join(out, "kernels.csv"))],
                         [("auto", "launch", "0.2"), ("auto", "graph", "0.4"),
                          ("simt", "launch", "1.5"), ("simt", "graph", "3.0")])
        self.assertEqual([(r["math"], r["notes"]) for r in table(os.path.join(out, "runs.csv"))],
                         [("auto", "after a kernel change"), ("simt", "cuda cores")])
        # A row that is not one of the table's, or a table of other columns, is not merged into.
        for mode, text, error in [("a", "net,eight,f32\n", "kernels.csv:6: not a row of"),
                                  ("w", "network,batch\nnet,8\n", "columns differ")]:
            with open(os.path.join(out, "kernels.csv"), mode) as f:
                f.write(text)
            done = self.run_collect("--manifests", os.path.join(w, "tf32"), "--update", out,
                                    os.path.join(w, "r-again"))
            self.assertNotEqual(done.returncode, 0)
            self.assertIn(error, done.stderr)

    def test_roots_must_match_results(self):
        w = self.work.name
        done = self.run_collect("--manifests", "a", "--manifests", "b", "--manifests", "c",
                                "--out", os.path.join(w, "out"), os.path.join(w, "r-tf32"),
                                os.path.join(w, "r-old"))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("give --manifests once, or once per result folder", done.stderr)


class MeasuredPtxTest(unittest.TestCase):
    """The measured runs still describe the kernels ptxcast lowers: a generator change that alters
    a measured kernel fails here (re-measure, or keep the measured strategy reachable)."""

    def run_check(self, runs, *select):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "check-ptx.py"),
                               ptxcast_bin(), runs, *select], capture_output=True, text=True)

    def check(self, runs, *select):
        done = self.run_check(os.path.join(ROOT, runs), *select)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("(compared: kernels_sha256)", done.stdout)

    def test_bad_input_is_an_error_line(self):
        done = self.run_check("/nonexistent/runs.csv")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.strip(),
                         "check-ptx.py: error: /nonexistent/runs.csv: No such file or directory")

    def test_h200_library_kernels(self):
        self.check("corpus/data/measured/h200/runs.csv", "--network", "resnet50", "--network",
                   "vgg16", "--network", "mobilenetv2")

    def test_h100_library_kernels(self):
        self.check("corpus/data/measured/h100-library/runs.csv")

    def test_h100_specialised_kernels(self):
        self.check("corpus/data/measured/h100/runs.csv", "--network", "resnet50", "--network",
                   "efficientnet-b0", "--batch", "8")


FAKE_MEASURE = """#!/bin/sh
# Stand-in for ptxcast-measure (SYNTHETIC: a made-up time): MANIFEST -o CSV ...
printf '%s' '""" + META.format(note="stand-in") + HEAD + """' > "$3"
echo "launch,0,k,1.0,NVIDIA H200,132" >> "$3"
"""


class LibrarySessionTest(unittest.TestCase):
    """scripts/measure/library-session.sh: `prepare` for real (ptxcast lower), then `run` with
    stand-ins for nvidia-smi, cmake and ptxcast-measure and without PyTorch, so the plumbing a
    device session relies on (plans, folders, collect.py's two roots) is checked without a GPU."""

    def test_prepare_then_run_with_stand_ins(self):
        script = os.path.join(SCRIPTS, "library-session.sh")
        with scratch() as tmp:
            root, out, stubs = (os.path.join(tmp, n) for n in ("lib", "out", "bin"))
            env = dict(os.environ, PTXCAST=ptxcast_bin())
            done = subprocess.run(["bash", script, "prepare", root], env=env, cwd=ROOT,
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            with open(os.path.join(root, "plan.txt")) as f:
                names = [line.split()[0] for line in f]
            self.assertEqual(names, ["resnet50-b32", "resnet50-b64", "vgg16-b32", "vgg16-b64"])
            for math, dtype in (("tf32", "f32"), ("f16", "f16")):
                for name in names:
                    with open(os.path.join(root, math, name, "workload.json")) as f:
                        w = json.load(f)
                    self.assertEqual((w["math"], w["dtype"], w["kernel_set"]),
                                     ("auto", dtype, "library"))
            os.makedirs(stubs)
            for name, text in {
                    "nvidia-smi": "#!/bin/sh\necho stand-in nvidia-smi\n",
                    "cmake": "#!/bin/sh\n[ \"$1\" = --build ] && cp \"$FAKE\" \"$2/ptxcast-measure\""
                             " || mkdir -p \"$4\"\n"}.items():
                with open(os.path.join(stubs, name), "w") as f:
                    f.write(text)
                os.chmod(os.path.join(stubs, name), 0o755)
            fake = os.path.join(stubs, "fake-measure")
            with open(fake, "w") as f:
                f.write(FAKE_MEASURE)
            os.chmod(fake, 0o755)
            env.update(PATH=stubs + os.pathsep + env["PATH"], FAKE=fake,
                       MEASURE_BUILD=os.path.join(tmp, "measure"))
            done = subprocess.run(["bash", script, "run", root, out, "40"], env=env, cwd=ROOT,
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            rows = table(os.path.join(out, "merged", "kernels.csv"))
            self.assertEqual(sorted({(r["network"], r["batch"], r["dtype"]) for r in rows}),
                             sorted((n, b, d) for n in ("resnet50", "vgg16") for b in ("32", "64")
                                    for d in ("f16", "f32")))
            with open(os.path.join(out, "system.txt")) as f:
                self.assertIn("stand-in nvidia-smi", f.read())


if __name__ == "__main__":
    unittest.main()
