#!/usr/bin/env python3
"""Check that ptxcast still lowers the PTX a measurement timed.

    python3 scripts/measure/check-ptx.py PTXCAST_BIN RUNS.csv [--network NAME ...] [--batch N ...]

`ptxcast dataset kernels` joins measured launches with a fresh lowering by kernel name. A change
to the kernel generator that keeps the names would join the old times with new counts. This
script lowers every distinct run of RUNS.csv (scripts/measure/collect.py's run table: network,
batch, dtype, arch, math, kernel_set) again and compares its digest with the run's, as
collect.py computed them: `kernels_sha256` (the kernels' texts, whichever modules hold them)
where the table has it, else `ptx_sha256` (the PTX files as they were split). It prints one line
per lowering and exits 1 when any differs (or with `error: ...` on bad input). Needs no GPU.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collect  # noqa: E402  (the digests, computed as when the runs were collected)

KEY = ["network", "batch", "dtype", "arch", "math", "kernel_set"]


def lowerings(path, networks, batches):
    """{lowering key: the digests its runs recorded} of the rows selected."""
    wanted = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in KEY[:4] + ["ptx_sha256"] if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"{path}:1: error: missing column(s) {', '.join(missing)}")
        column = "kernels_sha256" if "kernels_sha256" in reader.fieldnames else "ptx_sha256"
        for row in reader:
            if networks and row["network"] not in networks:
                continue
            if batches and row["batch"] not in batches:
                continue
            # Run tables from before collect.py recorded the lowering lack math and kernel_set.
            key = tuple(row.get(c) or collect.LOWERING_DEFAULTS.get(c, "") for c in KEY)
            wanted.setdefault(key, set()).add(row[column])
    return wanted, column


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ptxcast")
    parser.add_argument("runs")
    parser.add_argument("--network", action="append", default=[], help="only these networks")
    parser.add_argument("--batch", action="append", default=[], help="only these batch sizes")
    args = parser.parse_args()
    wanted, column = lowerings(args.runs, set(args.network), set(args.batch))
    if not wanted:
        sys.exit(f"{args.runs}: error: no run selected")
    changed = 0
    with tempfile.TemporaryDirectory(prefix="ptxcast-check-") as work:
        for i, key in enumerate(sorted(wanted)):
            network, batch, dtype, arch, math, kernel_set = key
            out = os.path.join(work, str(i))
            done = subprocess.run([args.ptxcast, "lower", network, "--batch", batch, "--dtype",
                                   dtype, "--arch", arch, "--math", math, "--kernels",
                                   kernel_set, "-o", out], capture_output=True, text=True)
            label = f"{network} batch {batch} {dtype} {arch} {math} {kernel_set}"
            if done.returncode != 0:
                print(f"{label}: lowering failed: {done.stderr.strip()}")
                changed += 1
                continue
            ptx_sha, kernels_sha = collect.ptx_digest(out)[:2]
            same = wanted[key] == {kernels_sha if column == "kernels_sha256" else ptx_sha}
            changed += not same
            print(f"{label}: {'same PTX' if same else 'PTX CHANGED since measurement'}")
    print(f"{len(wanted) - changed} of {len(wanted)} lowerings produce the PTX that was timed "
          f"(compared: {column})")
    return 1 if changed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except OSError as e:  # a missing or unreadable file, or a binary that does not run
        sys.exit(f"check-ptx.py: error: {e.filename}: {e.strerror}")
