#!/usr/bin/env python3
"""The compile runtime against timm's torch.compile timings on an RTX 4090 (../shared/datasets/
timm/*-dynamo.csv, SOURCES.md in ../shared/datasets), with the eager twins for comparison.

Predicts every row of the dynamo files whose network ptxcast has (the zoo's, and with
--onnx-dir timm's torchvision architectures; the name maps are pipeline/src/DatasetTimm.cpp's,
repeated below) with `ptxcast compare --runtime compile --dtype f16` at the row's batch and image
size, and every row of the same networks in the eager twin (the file without `-dynamo`) with
`--runtime eager`; prints per file the mean absolute percentage error and the median ratio
predicted / measured, and per network family the same for the dynamo rows.

The shipped model is trained on these dynamo rows (runtime compile, scripts/train-models.sh) and
on the pt291 eager twin, so these figures are in sample: they check that `compare --runtime
compile` predicts what the learner was fitted to. The out-of-sample figures (each network, each
family, the whole GPU left out) come from `ptxcast evaluate --cv group=workload` over the
training datasets (docs/accuracy.md, "torch.compile"). The pt240 eager twin is not trained on.

Usage: scripts/compile-check.py [--ptxcast build/tools/ptxcast/ptxcast]
        [--data ../shared/datasets/timm] [--onnx-dir corpus/data/measured/h100/onnx]
        [--threads N] [--csv OUT.csv]
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys

from checks import arguments, family, mape, model_option, write_rows

DYNAMO = ["benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo.csv",
          "benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv"]

# timm name -> zoo name, and -> torchvision ONNX graph: DatasetTimm.cpp's zooModelFor and
# onnxModelFor (the source of truth; keep the two in step).
ZOO = {"resnet50": "resnet50", "vgg16": "vgg16", "legacy_xception": "xception",
       "mobilenetv2_035": "mobilenetv2-0.35", "mobilenetv2_050": "mobilenetv2-0.5",
       "mobilenetv2_075": "mobilenetv2-0.75", "mobilenetv2_100": "mobilenetv2-1.0",
       "mobilenetv2_140": "mobilenetv2-1.4",
       **{f"{p}efficientnet_b{i}": f"efficientnet-b{i}" for p in ("", "tf_") for i in range(8)}}
ONNX = {"densenet121": "densenet121", "inception_v3": "inception_v3",
        "mnasnet_100": "mnasnet1_0", "mobilenetv3_large_100": "mobilenet_v3_large",
        "mobilenetv3_small_100": "mobilenet_v3_small", "regnety_008_tv": "regnet_y_800mf",
        "resnet18": "resnet18", "resnet34": "resnet34", "resnet101": "resnet101",
        "resnet152": "resnet152", "resnext50_32x4d": "resnext50_32x4d", "vgg11": "vgg11",
        "vgg19": "vgg19", "wide_resnet50_2": "wide_resnet50_2"}


def network(timm, onnx_dir):
    if timm in ZOO:
        return ZOO[timm]
    if onnx_dir and timm in ONNX:
        path = os.path.join(onnx_dir, ONNX[timm] + ".onnx")
        return path if os.path.exists(path) else None
    return None


def read_rows(path, runtime, onnx_dir):
    rows = []
    for r in csv.DictReader(open(path)):
        net = network(r["model"], onnx_dir)
        if net:
            rows.append({"file": os.path.basename(path), "model": r["model"], "network": net,
                         "runtime": runtime, "batch": int(r["infer_batch_size"]),
                         "image_size": int(r["infer_img_size"]),
                         "measured_ms": float(r["infer_step_time"])})
    return rows


def predict_all(ptxcast, model, rows, threads):
    """Predicted ms per row; one `compare` per (network, batch, size) for all its runtimes."""
    wanted = {}
    for r in rows:
        wanted.setdefault((r["network"], r["batch"], r["image_size"]), set()).add(r["runtime"])
    got = {}
    tty = sys.stderr.isatty()  # progress on a terminal only, never in the printed tables
    for n, ((net, batch, size), runtimes) in enumerate(sorted(wanted.items())):
        if tty:
            print(f"\r[{n + 1}/{len(wanted)}] {os.path.basename(net)} batch {batch} size {size}",
                  end="", flush=True, file=sys.stderr)
        out = subprocess.run([ptxcast, "compare", "--models", net, "--gpus", "rtx4090",
                              "--batch", str(batch), "--image-size", str(size), "--dtype", "f16",
                              "--runtime", ",".join(sorted(runtimes)), "--threads", str(threads),
                              "--format", "json"] + model_option(model),
                             check=True, capture_output=True, text=True).stdout
        for res in json.loads(out)["results"]:
            got[(net, batch, size, res["runtime"])] = res["time_ms"]
    if tty:
        print("\r\033[K", end="", file=sys.stderr)
    for r in rows:
        r["predicted_ms"] = got[(r["network"], r["batch"], r["image_size"], r["runtime"])]
        r["ratio"] = r["predicted_ms"] / r["measured_ms"]


def summary(label, ratios):
    return f"{label:<58} {len(ratios):>4} {mape(ratios):>7.1f} {statistics.median(ratios):>8.2f}"


def main():
    ap = arguments(__doc__)
    ap.add_argument("--data", default="../shared/datasets/timm")
    ap.add_argument("--onnx-dir", default="corpus/data/measured/h100/onnx",
                    help="torchvision ONNX graphs for timm's torchvision architectures ('' = none)")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    rows = []
    for name in DYNAMO:
        rows += read_rows(os.path.join(a.data, name), "compile", a.onnx_dir)
        rows += read_rows(os.path.join(a.data, re.sub("-dynamo", "", name)), "eager", a.onnx_dir)
    predict_all(a.ptxcast, a.model, rows, a.threads)
    print(f"{'file (runtime)':<58} {'rows':>4} {'MAPE %':>7} {'median':>8}  (median: predicted / "
          "measured)")
    for f in dict.fromkeys(r["file"] for r in rows):
        part = [r for r in rows if r["file"] == f]
        print(summary(f"{f} ({part[0]['runtime']})", [r["ratio"] for r in part]))
    compiled = [r for r in rows if r["runtime"] == "compile"]
    print(summary("all dynamo rows (compile)", [r["ratio"] for r in compiled]))
    print("\nper family, dynamo rows of both files:")
    for fam in sorted(dict.fromkeys(family(r["model"]) for r in compiled)):
        print(summary(f"  {fam}", [r["ratio"] for r in compiled if family(r["model"]) == fam]))
    if a.csv:
        write_rows(a.csv, rows)


if __name__ == "__main__":
    main()
