#!/usr/bin/env python3
"""The eager runtime against the project's own eager PyTorch timings on the H100 host
(corpus/data/measured/h100/frameworks.csv, mode eager: 12 networks at batch 1-64, fp32 and fp16
autocast), and the spread of its host time.

Predicts every eager row with `ptxcast compare --runtime eager,graph --gpus h100`, from the ONNX
graph the same PyTorch run exported (corpus/data/measured/h100/onnx), and prints per precision
and batch range the mean absolute percentage error and the median ratio predicted / measured.
Then, over the rows the prediction calls host-bound (the host time at least HOST_MARGIN times the
GPU time), the 10th and 90th percentiles of measured / predicted: the spread of the host time per
kernel between networks and between runs of the VM, which hardware/Host.h's HostTimeBand
carries into every host-bound band. The graph rows of these networks are in the shipped model's
training data; the host time per kernel (Host.h, EagerHostMsPerKernel) is the median of these
networks at batch 1, so the figures describe the spread, not a held-out error.

Usage: scripts/eager-check.py [--ptxcast build/tools/ptxcast/ptxcast] [--model BUNDLE.json]
        [--measured corpus/data/measured/h100] [--csv OUT.csv]
"""
import csv
import json
import os
import statistics
import subprocess

from checks import arguments, mape, model_option, spread, write_rows

HOST_MARGIN = 1.2


def predictions(ptxcast, model, onnx, dtype, batches):
    """(network, batch, runtime) -> time_ms for every network at every batch."""
    cmd = [ptxcast, "compare", "--models", ",".join(onnx.values()), "--gpus", "h100",
           "--runtime", "eager,graph", "--dtype", dtype, "--batch",
           ",".join(str(b) for b in batches), "--format", "json"]
    out = subprocess.run(cmd + model_option(model), check=True,
                         capture_output=True, text=True).stdout
    network = {path: name for name, path in onnx.items()}
    return {(network[r["model"]], r["batch"], r["runtime"]): r["time_ms"]
            for r in json.loads(out)["results"]}


def main():
    ap = arguments(__doc__)
    ap.add_argument("--measured", default="corpus/data/measured/h100")
    args = ap.parse_args()
    with open(os.path.join(args.measured, "frameworks.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["mode"] == "eager" and r["status"] == "ok"]
    onnx = {r["model"]: os.path.join(args.measured, "onnx", r["model"] + ".onnx") for r in rows}
    batches = sorted({int(r["batch"]) for r in rows})
    out = []
    for dtype in ("fp32", "fp16"):
        pred = predictions(args.ptxcast, args.model, onnx, "f16" if dtype == "fp16" else "f32",
                           batches)
        for r in (r for r in rows if r["dtype"] == dtype):
            key = (r["model"], int(r["batch"]))
            eager, graph = pred[key + ("eager",)], pred[key + ("graph",)]
            out.append({"network": r["model"], "dtype": dtype, "batch": int(r["batch"]),
                        "measured_ms": float(r["median_ms"]), "predicted_ms": eager,
                        "gpu_ms": graph, "host_bound": eager >= HOST_MARGIN * graph})
    print("| precision | batch | rows | host-bound | MAPE % | median predicted / measured |")
    print("|---|---|---|---|---|---|")
    for dtype in ("fp32", "fp16"):
        for name, lo, hi in (("1-8", 1, 8), ("16-64", 16, 64)):
            sel = [o for o in out if o["dtype"] == dtype and lo <= o["batch"] <= hi]
            ratios = [o["predicted_ms"] / o["measured_ms"] for o in sel]
            print(f"| {dtype} | {name} | {len(sel)} | {sum(o['host_bound'] for o in sel)} | "
                  f"{mape(ratios):.1f} | {statistics.median(ratios):.2f} |")
    bound = [o["measured_ms"] / o["predicted_ms"] for o in out if o["host_bound"]]
    low, high = spread(bound, method="inclusive")
    print(f"\nhost-bound rows (host >= {HOST_MARGIN} x GPU time): {len(bound)}; measured / "
          f"predicted: median {statistics.median(bound):.3f}, 10th percentile "
          f"{low:.3f}, 90th {high:.3f}, MAPE {mape([1 / x for x in bound]):.1f} %")
    if args.csv:
        write_rows(args.csv, out)


if __name__ == "__main__":
    main()
