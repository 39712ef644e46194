#!/usr/bin/env python3
"""What few-shot calibration (`ptxcast predict --calibrate`) buys on a GPU the model never saw.

Reads the out-of-fold predictions of a leave-one-GPU-out run (`ptxcast evaluate --cv group=gpu
--predictions FILE`, docs/accuracy.md) and, for every whole-network group (GPU, source, dtype) of
the rows the bundle's band was measured on (its protocol's `rows COLUMN=VALUES`),
draws k of its rows as the user's own timings (seeded, 50 draws), scales the group's other
predictions by the calibration factor of those k, and prints the mean absolute percentage error of
the other rows: uncalibrated, and for k = 1, 3, 5 with the plain geometric mean of measured /
predicted and with it drawn toward 1 as Calibration.cpp does, exp(w mean(log ratio)),
w = k / (k + sigma^2 / tau^2). sigma^2 is the variance of the log ratio within a group, tau^2 the
mean square of the groups' mean log ratios; for each held-out group both come from the other
groups only. The last line prints them over all groups: the source of TimingNoiseToSpread in
pipeline/Calibration.h.

It also prints how often the other rows fall in the bundle's band (--model, its error_band) as
Calibration.cpp moves it: scaled by the factor and divided by the band's median ratio to the
power w.

Usage: scripts/calibration-check.py PREDICTIONS.csv [--model models/cross-gpu.json]
        [--draws 50] [--seed 7]
"""
import argparse
import collections
import csv
import json
import math
import random
import statistics



def spread(groups):
    """(sigma^2, tau^2) of lists of log ratios: within-group variance, mean square of the means."""
    sigma2 = statistics.mean(statistics.pvariance(g) for g in groups)
    tau2 = statistics.mean(statistics.mean(g) ** 2 for g in groups)
    return sigma2, tau2


def band_rows(protocol):
    """The rows the model's band was measured on, from its protocol ("leave-one-group-out by
    'gpu', rows runtime=graph|eager, rows source=h100-kernels|frameworks|timm"): column ->
    the values it takes."""
    selected = {}
    for part in protocol.split(", rows ")[1:]:
        name, values = part.split("=", 1)
        selected[name] = set(values.split("|"))
    return selected


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("predictions")
    ap.add_argument("--model", default="models/cross-gpu.json")
    ap.add_argument("--draws", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.predictions)))
    column = next(c for c in rows[0] if c.startswith("predicted_"))
    band = json.load(open(a.model))["error_band"]
    selected = band_rows(band["protocol"])
    groups = collections.defaultdict(list)  # (gpu, source, dtype) -> [log(measured / predicted)]
    for r in rows:
        if all(r[column_name] in values for column_name, values in selected.items()):
            groups[(r["gpu"], r["source"], r["dtype"])].append(
                math.log(float(r["measured_ms"]) / float(r[column])))
    low, median, high = (math.log(band[k]) for k in ("ratio_low", "ratio_median", "ratio_high"))
    inside = collections.defaultdict(list)  # k -> [row in the moved band]
    ks = (1, 3, 5)
    print(f"{'gpu':<16} {'source':<13} {'dtype':<5} {'rows':>4} {'raw':>6}"
          + "".join(f" {'k=' + str(k):>6} {'plain':>6}" for k in ks))
    pooled = collections.defaultdict(list)
    for key, logs in sorted(groups.items()):
        sigma2, tau2 = spread([g for k, g in groups.items() if k != key])
        line = [100 * statistics.mean(abs(math.exp(-x) - 1) for x in logs)]
        inside[0] += [low <= x <= high for x in logs]
        rng = random.Random(a.seed)
        for k in ks:
            shrunk, plain = [], []
            for _ in range(a.draws):
                chosen = set(rng.sample(range(len(logs)), k))
                mean = statistics.mean(logs[i] for i in chosen)
                rest = [x for i, x in enumerate(logs) if i not in chosen]
                w = k / (k + sigma2 / tau2)
                shrunk.append(100 * statistics.mean(abs(math.exp(w * mean - x) - 1) for x in rest))
                shift = w * mean - w * median  # the band: times the factor, over median^w
                inside[k] += [low + shift <= x <= high + shift for x in rest]
                plain.append(100 * statistics.mean(abs(math.exp(mean - x) - 1) for x in rest))
            line += [statistics.mean(shrunk), statistics.mean(plain)]
        for i, e in enumerate(line):
            pooled[i].append(e)
        print(f"{key[0]:<16} {key[1]:<13} {key[2]:<5} {len(logs):>4}"
              + "".join(f" {e:>6.1f}" for e in line))
    print(f"{'mean of groups':<40}" + "".join(f" {statistics.mean(pooled[i]):>6.1f}"
                                              for i in range(len(pooled))))
    print(f"rows in the {100 * band['coverage']:.0f} % band: uncalibrated "
          f"{100 * statistics.mean(inside[0]):.0f} %, "
          + ", ".join(f"k={k} {100 * statistics.mean(inside[k]):.0f} %" for k in ks))
    sigma2, tau2 = spread(list(groups.values()))
    print(f"all groups: sigma^2 {sigma2:.4f}, tau^2 {tau2:.4f}, sigma^2 / tau^2 {sigma2 / tau2:.2f}")


if __name__ == "__main__":
    main()
