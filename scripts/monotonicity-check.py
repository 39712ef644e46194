#!/usr/bin/env python3
"""Where a prediction falls as the work grows: batch 1 -> 2, a larger image, a larger sibling.

A network's time should not fall when its batch or its input grows, nor from one member of a
scaled family to the next larger (MobileNetV2 and ShuffleNetV2 widths, EfficientNet-B0..B7). This
runs `ptxcast compare` (graph runtime, fp32 and fp16) over eight GPUs (server, inference, desktop
and Jetson parts): eight networks at batch 1 and 2, and at batch 1 at 128, 160, 192, 224 and
256 px; the three families at batch 1. It prints per dtype how many steps predict less time for
more work, and the worst ratio.

Usage: scripts/monotonicity-check.py [--ptxcast BIN] [--model FILE.json] [--gpus LIST|all]
"""
import argparse
import csv
import io
import subprocess
import sys

GPUS = "h100-sxm,a100-80gb-sxm,v100-sxm2,t4,l4,rtx-4090,rtx-3090,jetson-agx-orin@15w"
NETS = ("alexnet,vgg16,resnet50,mobilenetv2,efficientnet-b0,efficientnet-b3,xception,"
        "shufflenetv2-1.0")
SIZES = (128, 160, 192, 224, 256)
FAMILIES = (
    ["mobilenetv2-0.35", "mobilenetv2-0.5", "mobilenetv2-0.75", "mobilenetv2-1.0",
     "mobilenetv2-1.3", "mobilenetv2-1.4"],
    ["shufflenetv2-0.5", "shufflenetv2-1.0", "shufflenetv2-1.5", "shufflenetv2-2.0"],
    [f"efficientnet-b{i}" for i in range(8)],
)


def times(args, extra, nets=NETS):
    """{(model, gpu): time_ms} of one compare run."""
    cmd = [args.ptxcast, "compare", "--models", nets, "--gpus", args.gpus, "--format", "csv"] + extra
    if args.model:
        cmd += ["--model", args.model]
    if sys.stderr.isatty():
        print("running " + " ".join(extra), file=sys.stderr, end="\r")
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    rows = csv.DictReader(io.StringIO(out.stdout))
    return {(r["model"], r["gpu"]): float(r["time_ms"]) for r in rows}


def falls(steps):
    """Count, total and the worst (ratio, key) of (smaller, larger) time pairs."""
    drops = [(big / small, where(key)) for key, small, big in steps if big < small]
    return len(drops), len(steps), min(drops) if drops else (1.0, "-")


def where(key):
    """(model, gpu[, image size]) as words."""
    return f"{key[0]} on {key[1]}" + (f", {key[2]} px" if len(key) > 2 else "")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptxcast", default="build/tools/ptxcast/ptxcast")
    p.add_argument("--model", help="a bundle FILE.json (default: the shipped model)")
    p.add_argument("--gpus", default=GPUS, help="compare's --gpus (default: eight; all: the catalog)")
    args = p.parse_args()
    print("| dtype | step | falls | worst ratio | where |")
    print("|---|---|---|---|---|")
    for dtype in ("f32", "f16"):
        one = times(args, ["--batch", "1", "--dtype", dtype])
        two = times(args, ["--batch", "2", "--dtype", dtype])
        n, total, (worst, place) = falls([(k, one[k], two[k]) for k in one])
        print(f"| {dtype} | batch 1 -> 2 | {n} of {total} | {worst:.3f} | {place} |")
        by_size = [times(args, ["--batch", "1", "--dtype", dtype, "--image-size", str(s)])
                   for s in SIZES]
        steps = [(k + (SIZES[i + 1],), a[k], b[k])
                 for i, (a, b) in enumerate(zip(by_size, by_size[1:])) for k in a]
        n, total, (worst, place) = falls(steps)
        print(f"| {dtype} | batch 1, image {SIZES[0]} -> {SIZES[-1]} px in steps of 32 | "
              f"{n} of {total} | {worst:.3f} | {place} |")
        family = times(args, ["--batch", "1", "--dtype", dtype],
                       ",".join(m for f in FAMILIES for m in f))
        gpus = sorted({g for _, g in family})
        steps = [((big, g), family[(small, g)], family[(big, g)])
                 for f in FAMILIES for small, big in zip(f, f[1:]) for g in gpus]
        n, total, (worst, place) = falls(steps)
        print(f"| {dtype} | batch 1, the next larger of a family | {n} of {total} | "
              f"{worst:.3f} | {place} |")


if __name__ == "__main__":
    main()
