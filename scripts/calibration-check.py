#!/usr/bin/env python3
"""What few-shot calibration (`ptxcast predict --calibrate`) buys on a GPU the model never saw.

Reads the out-of-fold predictions of a leave-one-GPU-out run (`ptxcast evaluate --cv group=gpu
--predictions FILE`, docs/accuracy.md) and, for every whole-network group (GPU, source, dtype),
draws k of its rows as the user's own timings (seeded, 50 draws), scales the group's other
predictions by the geometric mean of measured / predicted over those k, as Calibration.cpp does,
and prints the mean absolute percentage error of the other rows: uncalibrated and for k = 1, 3, 5.

Usage: scripts/calibration-check.py PREDICTIONS.csv [--draws 50] [--seed 7]
"""
import argparse
import collections
import csv
import math
import random
import statistics

from checks import mape


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("predictions")
    ap.add_argument("--draws", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.predictions)))
    column = next(c for c in rows[0] if c.startswith("predicted_"))
    groups = collections.defaultdict(list)  # (gpu, source, dtype) -> [predicted / measured]
    for r in rows:
        if r["runtime"] in ("graph", "eager"):
            groups[(r["gpu"], r["source"], r["dtype"])].append(
                float(r[column]) / float(r["measured_ms"]))
    ks = (1, 3, 5)
    print(f"{'gpu':<16} {'source':<13} {'dtype':<5} {'rows':>4} {'raw':>6}"
          + "".join(f" {'k=' + str(k):>6}" for k in ks))
    pooled = collections.defaultdict(list)
    for (gpu, source, dtype), ratios in sorted(groups.items()):
        line = [mape(ratios)]
        pooled["raw"].append(line[0])
        rng = random.Random(a.seed)
        for k in ks:
            errors = []
            for _ in range(a.draws):
                chosen = set(rng.sample(range(len(ratios)), k))
                # the timings' measured / predicted, as the calibration factor
                factor = math.exp(statistics.mean(-math.log(ratios[i]) for i in chosen))
                errors.append(mape([x * factor for i, x in enumerate(ratios) if i not in chosen]))
            line.append(statistics.mean(errors))
            pooled[k].append(line[-1])
        print(f"{gpu:<16} {source:<13} {dtype:<5} {len(ratios):>4}"
              + "".join(f" {e:>6.1f}" for e in line))
    print(f"{'mean of groups':<40} {statistics.mean(pooled['raw']):>6.1f}"
          + "".join(f" {statistics.mean(pooled[k]):>6.1f}" for k in ks))


if __name__ == "__main__":
    main()
