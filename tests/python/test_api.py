"""ptxcast.predict / compare / gpus / zoo / analyze against the CLI: same fields and values, and
the same error messages."""

import math
import os
import shutil
import unittest

import ptxcast
from support import cli_error, cli_json, scratch

# A small zoo model keeps the tests fast; the code path is the one of every model.
MODEL = "mobilenetv2"


def rows(table):
    return table.to_dict("records") if hasattr(table, "to_dict") else table


def column(table, key):
    return [r[key] for r in rows(table)]


class PredictTest(unittest.TestCase):
    def test_fields_and_values_equal_the_cli_json(self):
        got = ptxcast.predict(MODEL, gpu="h100", batch=2, progress=False)
        want = cli_json("predict", MODEL, "--gpu", "h100", "--batch", "2")
        self.assertEqual(got.json, want)
        self.assertEqual(list(got.json), list(want))  # the command's field order
        self.assertEqual(got.time_ms, want["time_ms"])
        self.assertEqual(rows(got.breakdown), want["breakdown"])
        self.assertTrue(math.isclose(sum(r["time_ms"] for r in want["breakdown"]), got.gpu_ms,
                                     rel_tol=1e-9))

    def test_eager_f16_options_reach_the_prediction(self):
        got = ptxcast.predict(MODEL, gpu="a100", dtype="float16", runtime="eager", math="f16",
                              progress=False)
        want = cli_json("predict", MODEL, "--gpu", "a100", "--dtype", "f16", "--runtime",
                        "eager", "--math", "f16")
        self.assertEqual(got.json, want)
        self.assertEqual((got.dtype, got.runtime, got.math), ("f16", "eager", "f16"))

    def test_calibrate_equals_the_cli(self):
        # Synthetic timing (twice the uncalibrated prediction), for the mechanics only.
        plain = ptxcast.predict(MODEL, gpu="t4", batch=2, progress=False)
        with scratch() as folder:
            path = os.path.join(folder, "timings.csv")
            with open(path, "w") as f:
                f.write("gpu,network,batch,dtype,runtime,measured_ms\n")
                f.write(f"t4,{MODEL},2,f32,graph,{2 * plain.time_ms!r}\n")
            got = ptxcast.predict(MODEL, gpu="t4", batch=2, calibrate=path, progress=False)
            want = cli_json("predict", MODEL, "--gpu", "t4", "--batch", "2", "--calibrate", path)
            both = ptxcast.compare(MODEL, ["t4", "h100"], [2], calibrate=path, progress=False)
        self.assertEqual(got.json, want)
        factor = 2 ** (1 / 3.06)  # one timing, drawn toward 1 (Calibration.h: 1 + 2.06)
        self.assertAlmostEqual(got.json["calibration"]["factor"], factor, places=9)
        self.assertAlmostEqual(got.time_ms, factor * plain.time_ms, places=9)
        factors = {r["gpu"]: r["calibration"] for r in both.json["results"]}
        self.assertAlmostEqual(factors["t4"]["factor"], factor, places=9)
        self.assertIsNone(factors["h100-sxm"])


class ErrorTest(unittest.TestCase):
    def check(self, call, *cli_args):
        with self.assertRaises(ptxcast.Error) as caught:
            call()
        self.assertEqual(str(caught.exception), cli_error(*cli_args))

    def test_unknown_gpu(self):
        self.check(lambda: ptxcast.predict(MODEL, gpu="h1000"), "predict", MODEL, "--gpu",
                   "h1000")

    def test_unknown_model(self):
        self.check(lambda: ptxcast.predict("resnet1000", gpu="h100"), "predict",
                   "resnet1000", "--gpu", "h100")

    def test_missing_onnx_file(self):
        self.check(lambda: ptxcast.predict("/nonexistent/m.onnx", gpu="h100"), "predict",
                   "/nonexistent/m.onnx", "--gpu", "h100")

    def test_bad_flags_read_as_the_command_line_parser_says(self):
        self.check(lambda: ptxcast.predict(MODEL, gpu="h100", dtype="f64"), "predict", MODEL,
                   "--gpu", "h100", "--dtype", "f64")
        self.check(lambda: ptxcast.predict(MODEL, gpu="h100", batch=0), "predict", MODEL,
                   "--gpu", "h100", "--batch", "0")
        self.check(lambda: ptxcast.predict(MODEL, gpu="h100", runtime="jit"), "predict", MODEL,
                   "--gpu", "h100", "--runtime", "jit")
        self.check(lambda: ptxcast.predict(MODEL, gpu="h100", image_size=8), "predict", MODEL,
                   "--gpu", "h100", "--image-size", "8")
        self.check(lambda: ptxcast.compare([MODEL], ["h100"], budget_ms=-1), "compare",
                   "--models", MODEL, "--gpus", "h100", "--budget-ms", "-1")
        self.check(lambda: ptxcast.compare([MODEL], ["h100"], target_ips=0), "compare",
                   "--models", MODEL, "--gpus", "h100", "--target-ips", "0")
        self.check(lambda: ptxcast.predict(MODEL, gpu="h100", batch="abc"), "predict", MODEL,
                   "--gpu", "h100", "--batch", "abc")

    def test_dtype_spellings_are_the_command_lines(self):
        got = ptxcast.predict("lenet5", gpu="t4", dtype="fp16", progress=False)
        self.assertEqual(got.json, cli_json("predict", "lenet5", "--gpu", "t4", "--dtype", "half"))
        self.assertEqual(got.dtype, "f16")

    def test_the_error_is_a_runtime_error(self):
        self.assertTrue(issubclass(ptxcast.Error, RuntimeError))


class CompareTest(unittest.TestCase):
    def test_every_pair_once_and_equal_to_the_cli(self):
        gpus = ["h100-sxm", "a100-40gb-sxm", "t4"]  # catalog names, as the rows give them
        got = ptxcast.compare([MODEL, "lenet5"], gpus, batches=(1, 4), budget_ms=1.0,
                              progress=False)
        want = cli_json("compare", "--models", f"{MODEL},lenet5", "--gpus",
                        ",".join(gpus), "--batch", "1,4", "--budget-ms", "1")
        self.assertEqual(got.json, want)
        pairs = [(r["model"], r["batch"], r["gpu"]) for r in rows(got.table)]
        self.assertEqual(sorted(pairs), sorted((m, b, g) for m in (MODEL, "lenet5")
                                               for b in (1, 4) for g in gpus))
        labels, columns, values = got.matrix()
        self.assertEqual(columns, gpus)
        self.assertEqual(len(labels), 4)
        self.assertTrue(all(v is not None for row in values for v in row))

    def test_targets_and_max_batch_equal_the_cli(self):
        got = ptxcast.compare(["lenet5"], ["t4", "jetson-orin-nano-4gb"], budget_ms=1.0,
                              target_ips=100, max_batch=True, progress=False)
        want = cli_json("compare", "--models", "lenet5", "--gpus", "t4,jetson-orin-nano-4gb",
                        "--budget-ms", "1", "--target-ips", "100", "--max-batch")
        self.assertEqual(got.json, want)
        self.assertTrue(got.max_batch)
        self.assertEqual((got.budget_ms, got.target_ips), (1.0, 100))
        for row in got:
            self.assertEqual(row["max_batch"] == row["batch"], row["meets_targets"], row)
            self.assertTrue(row["memory"]["fits"])

    def test_plot_is_the_command_lines_svg(self):
        got = ptxcast.compare([MODEL, "lenet5"], ["h100-sxm", "t4"], budget_ms=1.0,
                              progress=False)
        plot = got.plot()
        with scratch() as work:
            svg, png = os.path.join(work, "cli.svg"), os.path.join(work, "py.png")
            cli_json("compare", "--models", f"{MODEL},lenet5", "--gpus", "h100-sxm,t4",
                     "--budget-ms", "1", "--plot", svg)
            with open(svg) as f:
                self.assertEqual(plot.svg, f.read())
            self.assertEqual(plot._repr_svg_(), plot.svg)  # what Jupyter shows
            if shutil.which("rsvg-convert"):
                self.assertEqual(plot.save(png), png)
                with open(png, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("Predicted images per second", got.plot("images-per-s").svg)
        with self.assertRaises(ptxcast.Error) as caught:
            plot.save("plot.pdf")
        self.assertEqual(str(caught.exception), "plot.pdf: error: plot files end in .svg or .png")


class CatalogTest(unittest.TestCase):
    def test_gpus_and_zoo_equal_the_cli(self):
        want = cli_json("gpus")["gpus"]
        for key in ("name", "full_name", "sm_count", "tdp_w"):
            self.assertEqual(column(ptxcast.gpus(), key), [g[key] for g in want])
        self.assertEqual(column(ptxcast.gpus("H100-SXM5-80GB", "t4"), "name"),
                         [g["name"] for g in cli_json("gpus", "H100-SXM5-80GB", "t4")["gpus"]])
        want = cli_json("zoo")["models"]
        for key in ("name", "params", "macs", "layers"):
            self.assertEqual(column(ptxcast.zoo(), key), [m[key] for m in want])

    def test_analyze_equals_the_cli(self):
        got = ptxcast.analyze("lenet5", mode="fast")
        want = cli_json("analyze", "lenet5", "--math", "simt", "--kernels", "specialised")
        self.assertEqual(got["total"], want["total"])
        self.assertEqual(column(got["launches"], "kernel"), [l["kernel"] for l in want["launches"]])
        self.assertEqual(column(got["launches"], "warp_instructions"),
                         [l["warp_instructions"] for l in want["launches"]])


if __name__ == "__main__":
    unittest.main()
