#!/usr/bin/env python3
"""Leave one network family out: the held-out figures of docs/accuracy.md, "torch.compile".

`ptxcast evaluate --cv group=workload` leaves one network out; its siblings (EfficientNet-B1
when B0 is out, ResNet-101 when ResNet-50 is) stay in training. This script names every network
row's workload by its family instead (ResNet, ResNeXt and Wide ResNet one family; EfficientNet-B0
to B7 one; MobileNetV2 at every width one; ...), writes those copies of the datasets to a
temporary folder, runs the same evaluation on them, and prints the MAPE of each runtime's rows
and of the compile rows per family. Operator rows (NeuSight) keep their workload, the operator.

Usage: scripts/leave-family-out.py [--ptxcast build/tools/ptxcast/ptxcast] DATASET.csv...
       (the training datasets of scripts/train-models.sh: build/data/{h100-kernels-launch,
       h100-kernels-network,h100-frameworks,timm,neusight,h100-library-network}.csv; about a
       minute on 2 cores)
"""
import argparse
import collections
import csv
import os
import statistics
import subprocess
import tempfile

from checks import family

def relabel(src, dst):
    """src with every workload replaced by its family, written to dst."""
    with open(src, newline="") as f, open(dst, "w", newline="") as g:
        rows = csv.reader(f)
        out = csv.writer(g, lineterminator="\n")
        header = next(rows)
        col = header.index("workload")
        out.writerow(header)
        for row in rows:
            row[col] = family(row[col])
            out.writerow(row)


def mape(errors):
    return 100 * statistics.mean(errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxcast", default="build/tools/ptxcast/ptxcast")
    ap.add_argument("datasets", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for path in a.datasets:
            dst = os.path.join(tmp, os.path.basename(path))
            relabel(path, dst)
            args += ["--data", dst]
        predictions = os.path.join(tmp, "predictions.csv")
        subprocess.run([a.ptxcast, "evaluate", *args, "--learners", "knn", "--param", "k=80",
                        "--param", "weighted=1", "--param", "max_rows=5000", "--param",
                        "samples=5", "--ignore", "share_latency", "--cv",
                        "group=workload", "--balance", "source,gpu,runtime", "--predictions",
                        predictions], check=True, capture_output=True)
        by_runtime, by_family = collections.defaultdict(list), collections.defaultdict(list)
        compile_ratios = []
        with open(predictions, newline="") as f:
            for r in csv.DictReader(f):
                ratio = float(r["predicted_knn"]) / float(r["measured_ms"])
                by_runtime[r["runtime"]].append(abs(ratio - 1))
                if r["runtime"] == "compile":
                    by_family[r["workload"]].append(abs(ratio - 1))
                    compile_ratios.append(ratio)
    print("leave one family out (kNN as shipped): MAPE % by runtime")
    for runtime, errors in sorted(by_runtime.items()):
        print(f"  {runtime:<10} {len(errors):>6} rows {mape(errors):6.1f}")
    print(f"compile rows: median predicted / measured {statistics.median(compile_ratios):.2f}")
    print("compile rows by family")
    for name, errors in sorted(by_family.items()):
        print(f"  {name:<14} {len(errors):>4} rows {mape(errors):6.1f}")


if __name__ == "__main__":
    main()
