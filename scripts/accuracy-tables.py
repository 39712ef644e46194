#!/usr/bin/env python3
"""Markdown tables of docs/accuracy.md from out-of-fold predictions.

Usage: scripts/accuracy-tables.py networks|operators|sms OOF.csv...
       scripts/accuracy-tables.py operators --host-from-others DATASET.csv OOF.csv...

OOF.csv is what `ptxcast evaluate --predictions OOF.csv` writes: the identifier columns of a
`ptxcast dataset` file, `measured_ms`, then a `predicted_LEARNER` column of out-of-fold
predictions per learner. Several files of the same rows (one evaluate run per learner) are
joined column-wise.

  networks   whole networks (runtime graph or eager) per GPU, source and dtype
  operators  NeuSight operators per GPU and operator family (linear, elementwise, softmax, ...)
  sms        ptxcast's own kernels per launch, per SM configuration

Each line: rows, MAPE % of every learner (the best in bold), and the median measured/predicted
ratio of the best learner (above 1: the model predicts too little).

A prediction of an op-call row is the predicted kernel time plus the row's `overhead_ms`, the
timing host's dispatch time, which `ptxcast dataset` estimates per (GPU, operator) from that
GPU's own smallest operators: held-out rows included. `--host-from-others DATASET.csv` (the
dataset the predictions were made from) adds a column that scores each held-out GPU with the
median of the other GPUs' estimates for the operator instead, as if its host were unmeasured too:
the best learner's MAPE with that overhead.
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


def other_host_shifts(dataset):
    """(gpu, workload) -> the median of the other GPUs' op-call overhead estimates for the
    workload (of all their workloads where none has it) minus the GPU's own estimate."""
    own = {}
    with open(dataset, newline="") as f:
        for r in csv.DictReader(f):
            if r["runtime"] == "op-call":
                own[(r["gpu"], r["workload"])] = float(r["overhead_ms"])
    shifts = {}
    for (gpu, workload), overhead in own.items():
        others = [o for (g, w), o in own.items() if g != gpu and w == workload] or \
                 [o for (g, _), o in own.items() if g != gpu]
        if not others:
            sys.exit(f"{dataset}: error: no op-call row of a GPU other than {gpu}")
        shifts[(gpu, workload)] = statistics.median(others) - overhead
    return shifts


def with_other_host(rows, shifts, dataset):
    """The rows with every prediction moved by its (gpu, workload) shift."""
    out = []
    for r in rows:
        key = (r["gpu"], r["workload"])
        if key not in shifts:
            sys.exit(f"{dataset}: error: no op-call row of gpu {key[0]}, workload {key[1]}")
        out.append({**r, **{k: str(float(v) + shifts[key]) for k, v in r.items()
                            if k.startswith("predicted_")}})
    return out


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
    args = sys.argv[1:]
    dataset = None
    if len(args) > 2 and args[0] == "operators" and args[1] == "--host-from-others":
        dataset = args[2]
        del args[1:3]
    if len(args) < 2 or args[0] not in ("networks", "operators", "sms"):
        sys.exit(__doc__)
    mode = args[0]
    rows = read(args[1:])
    if not rows:
        sys.exit(f"{args[1]}: error: no rows")
    learners = [k for k in rows[0] if k.startswith("predicted_")]
    keys = {"networks": ["gpu", "source", "dtype", "runtime"],
            "operators": ["gpu", "source", "operator"], "sms": ["gpu", "sms"]}[mode]
    names = [l[len("predicted_"):] for l in learners]
    extra = ["best, other GPUs' host"] if dataset else []
    print("| " + " | ".join(keys + ["rows"] + names + ["median ratio (best)"] + extra) + " |")
    print("|" + "---|" * (len(keys) + len(learners) + 2 + len(extra)))
    shifts = other_host_shifts(dataset) if dataset else None
    for key, rs in sorted(groups(rows, mode).items()):
        m = {l: mape(rs, l) for l in learners}
        best = min(m, key=m.get)
        ratio = statistics.median(float(r["measured_ms"]) / float(r[best]) for r in rs)
        cells = [f"**{m[l]:.1f}**" if l == best else f"{m[l]:.1f}" for l in learners]
        other = []
        if shifts is not None:
            moved = with_other_host(rs, shifts, dataset)
            other = [f"{min(mape(moved, l) for l in learners):.1f}"]
        print("| " + " | ".join(list(key) + [str(len(rs))] + cells + [f"{ratio:.2f}"] + other) +
              " |")


if __name__ == "__main__":
    main()
