#!/usr/bin/env python3
"""Markdown tables of docs/accuracy.md from out-of-fold predictions.

Usage: scripts/accuracy-tables.py networks|operators|sms OOF.csv...

OOF.csv is what `ptxcast evaluate --predictions OOF.csv` writes: the identifier columns of a
`ptxcast dataset` file, `measured_ms`, then a `predicted_LEARNER` column of out-of-fold
predictions per learner. Several files of the same rows (one evaluate run per learner) are
joined column-wise.

  networks   whole networks (runtime graph or eager) per GPU, source and dtype
  operators  NeuSight operators per GPU and operator family (linear, elementwise, softmax, ...)
  sms        ptxcast's own kernels per launch, per SM configuration

Each line: rows, MAPE % of every learner (the best in bold), and the median measured/predicted
ratio of the best learner (above 1: the model predicts too little).
"""
import csv
import statistics
import sys
from collections import defaultdict

FAMILIES = {
    "linear": "linear", "bmm": "bmm", "conv": "conv", "softmax": "softmax", "ln": "layernorm",
    "relu": "elementwise", "gelu": "elementwise", "tanh": "elementwise", "add": "elementwise",
    "mul": "elementwise", "div": "elementwise", "pow": "elementwise", "addu": "elementwise",
    "mulu": "elementwise", "divu": "elementwise", "powu": "elementwise",
}


def groups(rows, mode):
    out = defaultdict(list)
    for r in rows:
        if mode == "networks" and r["runtime"] in ("graph", "eager"):
            out[(r["gpu"], r["source"], r["dtype"], r["runtime"])].append(r)
        elif mode == "operators" and r["runtime"] == "op-call":
            out[(r["gpu"], r["source"], FAMILIES.get(r["workload"], r["workload"]))].append(r)
        elif mode == "sms" and r["runtime"] == "launch":
            out[(r["gpu"], r["sms"])].append(r)
    return out


def mape(rows, learner):
    return 100 * statistics.fmean(abs(float(r[learner]) - float(r["measured_ms"])) /
                                  float(r["measured_ms"]) for r in rows)


def read(paths):
    """The rows of the first file, with the prediction columns of every file."""
    merged = None
    for path in paths:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if merged is None:
            merged = rows
        elif len(rows) != len(merged):
            sys.exit(f"{path}: error: {len(rows)} rows, {paths[0]} has {len(merged)}")
        else:
            for m, r in zip(merged, rows):
                if m["config"] != r["config"] or m["gpu"] != r["gpu"]:
                    sys.exit(f"{path}: error: rows differ from {paths[0]}'s")
                m.update({k: v for k, v in r.items() if k.startswith("predicted_")})
    return merged


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("networks", "operators", "sms"):
        sys.exit(__doc__)
    mode = sys.argv[1]
    rows = read(sys.argv[2:])
    if not rows:
        sys.exit(f"{sys.argv[2]}: error: no rows")
    learners = [k for k in rows[0] if k.startswith("predicted_")]
    keys = {"networks": ["gpu", "source", "dtype", "runtime"],
            "operators": ["gpu", "source", "operator"], "sms": ["gpu", "sms"]}[mode]
    names = [l[len("predicted_"):] for l in learners]
    print("| " + " | ".join(keys + ["rows"] + names + ["median ratio (best)"]) + " |")
    print("|" + "---|" * (len(keys) + len(learners) + 2))
    for key, rs in sorted(groups(rows, mode).items()):
        m = {l: mape(rs, l) for l in learners}
        best = min(m, key=m.get)
        ratio = statistics.median(float(r["measured_ms"]) / float(r[best]) for r in rs)
        cells = [f"**{m[l]:.1f}**" if l == best else f"{m[l]:.1f}" for l in learners]
        print("| " + " | ".join(list(key) + [str(len(rs))] + cells + [f"{ratio:.2f}"]) + " |")


if __name__ == "__main__":
    main()
