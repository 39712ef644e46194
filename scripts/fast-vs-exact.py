#!/usr/bin/env python3
"""Fast mode against exact mode for lowered networks (docs/fast-mode.md, "Fidelity").

    scripts/fast-vs-exact.py [--ptxcast PATH] [--size S] MODEL... -- [ptxcast analyze options]

Runs `ptxcast analyze MODEL OPTIONS --format json` with and without `--mode exact` and prints,
per model, the launches, the worst launch (the largest relative difference over every
instruction class at warp and thread level and the global load and store sectors, with its
kernel), the same for the network totals, and whether the tensor-core multiply-adds (all, and
int8) are equal. --size S adds `--image-size S` (not for lenet5, which keeps its 32x32). Example,
the int8 engines on sm_80 at 128x128:

    scripts/fast-vs-exact.py --size 128 $(build/tools/ptxcast/ptxcast zoo --format json |
      python3 -c 'import json,sys; print(*[m["name"] for m in json.load(sys.stdin)["models"]])') \\
      -- --dtype int8 --arch sm_80
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def analyse(ptxcast, model, options, exact):
    cmd = [ptxcast, "analyze", model, *options, "--format", "json"]
    if exact:
        cmd += ["--mode", "exact"]
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - start


def counters(record):
    """Every compared counter of a launch or total record, by name."""
    out = {}
    for level in ("warp_instructions", "thread_instructions"):
        for cls, value in record[level].items():
            if cls != "total":
                out[f"{level}.{cls}"] = value
    for key in ("load_sectors", "store_sectors"):
        out[f"global.{key}"] = record["global"][key]
    return out


def rel(a, b):
    return 0.0 if a == b else abs(a - b) / max(a, b)


def worst(fast, exact):
    f, e = counters(fast), counters(exact)
    return max((rel(f[k], e[k]), k) for k in e)


def compare(ptxcast, model, options):
    fast, fast_s = analyse(ptxcast, model, options, False)
    exact, exact_s = analyse(ptxcast, model, options, True)
    launch = max((worst(f, e) + (e["kernel"],) for f, e in zip(fast["launches"], exact["launches"])),
                 default=(0.0, "-", "-"))
    total = worst(fast["total"], exact["total"])
    macs = all(fast["total"].get(k, 0) == exact["total"].get(k, 0)
               for k in ("tensor_macs", "tensor_macs_int8"))
    return (f"{model:18} {len(exact['launches']):8} {100 * launch[0]:9.4f}% {launch[2][:44]:44} "
            f"{100 * total[0]:9.4f}% {'yes' if macs else 'NO':>5} {exact_s:8.1f} {fast_s:7.1f}")


def main():
    args = sys.argv[1:]
    options = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ptxcast", default=str(ROOT / "build/tools/ptxcast/ptxcast"))
    parser.add_argument("--size", type=int, default=0)
    parser.add_argument("models", nargs="+")
    ns = parser.parse_args(args)
    print(f"{'model':18} {'launches':>8} {'worst':>10} {'worst launch kernel':44} "
          f"{'total':>10} {'macs=':>5} {'exact_s':>8} {'fast_s':>7}")
    for model in ns.models:
        size = ["--image-size", str(ns.size)] if ns.size and model != "lenet5" else []
        print(compare(ns.ptxcast, model, size + options), flush=True)


if __name__ == "__main__":
    main()
