#!/usr/bin/env python3
"""How evenly the power model's clocks explain NeuSight's large operators across GPUs.

Samples (fixed seed) 50 operators over 2^35 FLOP per operator and GPU from NeuSight's linear,
bmm and conv training files, joins them with ptxcast's analysis (`ptxcast dataset neusight`)
and prints each GPU's median efficiency (measured time over the physical bound at the clock the
power model gives it) and, per operator, the spread across GPUs (standard deviation of the log
efficiency). FlopEnergyPj16nm (hardware/Power.h) is the energy where that spread is smallest
(docs/cross-gpu.md, "Clocks under a power limit").

Usage: scripts/power-calibration.py [--ptxcast build/tools/ptxcast/ptxcast]
        [--datasets ../shared/datasets] [--work /tmp/power-calibration] [--cache DIR]
"""
import argparse
import os
import subprocess

import numpy as np
import pandas as pd

GPUS = ["p4", "p100", "t4", "v100", "a100", "h100"]


def flop(op, d):
    if op == "conv":
        return 2 * d.b * d.input_channel * d.output_channel * d.kernel_size ** 2 * \
            (d.input_size / d.stride) ** 2
    return 2 * d.b * d.m * d.n * d.k


def sample(datasets, work):
    files = []
    for op in ["linear", "bmm", "conv"]:
        os.makedirs(os.path.join(work, op), exist_ok=True)
        for gpu in GPUS:
            path = os.path.join(datasets, "neusight", op, gpu + ".csv")
            if not os.path.exists(path):
                continue
            d = pd.read_csv(path)
            big = d[flop(op, d) > 2 ** 35]
            out = os.path.join(work, op, gpu + ".csv")
            big.sample(min(len(big), 50), random_state=1).to_csv(out, index=False)
            files.append(out)
    return files


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--ptxcast", default="build/tools/ptxcast/ptxcast")
    a.add_argument("--datasets", default="../shared/datasets")
    a.add_argument("--work", default="/tmp/power-calibration")
    a.add_argument("--cache", default="build/analysis-cache")
    o = a.parse_args()
    files = sample(o.datasets, o.work)
    out = os.path.join(o.work, "large-operators.csv")
    subprocess.run([o.ptxcast, "dataset", "neusight", *files, "--cache", o.cache, "-o", out],
                   check=True)
    d = pd.read_csv(out)
    d["efficiency"] = d.measured_ms / d.bound_ms
    table = d.groupby(["workload", "gpu"]).efficiency.median().unstack()
    print(table.round(2).to_string())
    for op, row in table.iterrows():
        print(f"{op}: spread across GPUs (std of log efficiency) "
              f"{np.log(row.dropna()).std():.3f}")


if __name__ == "__main__":
    main()
