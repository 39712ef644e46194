#!/usr/bin/env python3
"""The tensorrt runtime against published TensorRT timings on a T4 (PaddleClas' tables,
../shared/datasets/paddleclas/t4-tensorrt.csv, SOURCES.md there).

Predicts every row whose network the zoo has (EfficientNet-B0..B7, ResNet-50, VGG-16,
MobileNetV2; PaddleClas' Xception41/65/71 are DeepLab-style variants the zoo lacks) with
`ptxcast predict --runtime tensorrt --gpu t4`, and prints per precision and batch the mean
absolute percentage error and the median ratio predicted / measured; at batch 4 and 8 also the
10th and 90th percentiles of measured / predicted (the engine band's source,
pipeline/Prediction.h EngineTimeBandF32/F16) and how many measured times fall inside the band
`predict` prints. Batch 1 carries Paddle Inference's own per-call overhead (about 2 ms on these
pages: MobileNetV2 takes 2.6-2.8 ms at batch 1 and 3.5-3.7 at batch 4), which ptxcast does not
model; the acceptance figures are at batch 4 and 8.

Usage: scripts/engine-check.py [--ptxcast build/tools/ptxcast/ptxcast]
        [--model BUNDLE.json]
        [--data ../shared/datasets/paddleclas/t4-tensorrt.csv] [--csv OUT.csv]
"""
import csv
import json
import statistics
import subprocess

from checks import arguments, mape, model_option, spread, write_rows

ZOO = {"ResNet50": "resnet50", "VGG16": "vgg16", "MobileNetV2": "mobilenetv2",
       **{f"EfficientNetB{i}": f"efficientnet-b{i}" for i in range(8)}}


def predict(ptxcast, bundle, model, precision, batch):
    dtype = "f16" if precision == "FP16" else "f32"
    out = subprocess.run([ptxcast, "predict", model, "--gpu", "t4", "--runtime", "tensorrt",
                          "--dtype", dtype, "--batch", str(batch), "--format", "json"]
                         + model_option(bundle),
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    return doc["time_ms"], doc["interval_ms"]


def main():
    ap = arguments(__doc__)
    ap.add_argument("--data", default="../shared/datasets/paddleclas/t4-tensorrt.csv")
    a = ap.parse_args()
    rows = []
    for r in csv.DictReader(open(a.data)):
        if r["model"] not in ZOO:
            continue
        p, (low, high) = predict(a.ptxcast, a.model, ZOO[r["model"]], r["precision"],
                                 int(r["batch"]))
        rows.append({**r, "predicted_ms": p, "band_low_ms": low, "band_high_ms": high,
                     "ratio": p / float(r["latency_ms"])})
    groups = {}
    for r in rows:
        groups.setdefault((r["precision"], int(r["batch"])), []).append(r["ratio"])
    print(f"{'precision':<10} {'batch':>5} {'rows':>4} {'MAPE %':>7} {'median pred/meas':>17}")
    for (prec, batch), ratios in sorted(groups.items()):
        print(f"{prec:<10} {batch:>5} {len(ratios):>4} {mape(ratios):>7.1f} "
              f"{statistics.median(ratios):>17.2f}")
    for prec in ("FP32", "FP16"):
        sel = [r for r in rows if r["precision"] == prec and int(r["batch"]) in (4, 8)]
        if not sel:
            continue
        ratios = [r["ratio"] for r in sel]
        low, high = spread([1 / x for x in ratios])
        inside = sum(r["band_low_ms"] <= float(r["latency_ms"]) <= r["band_high_ms"] for r in sel)
        print(f"{prec} at batch 4 and 8: {mape(ratios):.1f} % MAPE over {len(ratios)} rows; "
              f"measured / predicted 10th-90th percentile {low:.3f}-{high:.3f} "
              f"(pipeline/Prediction.h EngineTimeBandF{prec[2:]}); "
              f"{inside} of {len(sel)} measured times inside the printed band")
    if a.csv:
        write_rows(a.csv, rows)


if __name__ == "__main__":
    main()
