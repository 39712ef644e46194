#!/usr/bin/env python3
"""Merge ptxcast-measure CSVs from run-plan.sh folders into one kernel table and one run table.

    python3 scripts/measure/collect.py --manifests ROOT [--manifests ROOT2 ...] --out DIR RESULT_DIR...
    python3 scripts/measure/collect.py --manifests ROOT ... --update DIR RESULT_DIR...

Each RESULT_DIR holds NAME.sms-SMS.TAG.csv files as scripts/measure/run-plan.sh writes them, where
NAME is `NETWORK-bBATCH`, a folder under ROOT with the manifest that was measured (one --manifests
for all RESULT_DIRs, or one per RESULT_DIR in order: lowerings of the same network and batch in
several math modes live in separate roots). Writes DIR/kernels.csv (every row of every file, with
network, batch, dtype, arch, math, kernel_set, sms and run columns in front; math and kernel_set as
the lowering's workload.json records them) and DIR/runs.csv (one row per file: its `# key: value`
metadata, notes joined by ' | ', and the SHA-256 of the manifest's PTX modules in order and of its
kernels' texts in name order whichever modules hold them, so a later lowering can be checked
against what was timed: scripts/measure/check-ptx.py). Rows are sorted, so the same inputs give
the same bytes. With --update, DIR's existing tables are merged: a run in the results replaces
the rows of the run with the same network, batch, dtype, arch, math, kernel_set, sms_requested and
run (a re-measurement after a kernel change); the other rows are kept.
"""
import argparse
import csv
import functools
import hashlib
import json
import os
import re
import sys

NAME = re.compile(r"^(?P<network>.+)-b(?P<batch>\d+)\.sms-(?P<sms>all|\d+)\.(?P<run>[\w-]+)\.csv$")
RUN_KEYS = ["date_utc", "device", "compute_capability", "sm_count", "sms_requested", "sms_used",
            "clock_rate_khz", "memory_clock_rate_khz", "memory_bus_width_bits", "l2_cache_bytes",
            "total_memory_bytes", "driver_version", "cuda_header_version", "repeat", "warmup",
            "hold", "l2_flush", "timer"]


def read_measure_csv(path):
    """(metadata dict with 'note' as a list, header, rows) of one ptxcast-measure CSV."""
    meta, lines = {"note": []}, []
    with open(path) as f:
        for line in f:
            if line.startswith("# "):
                key, _, value = line[2:].rstrip("\n").partition(": ")
                if key == "note":
                    meta["note"].append(value)
                else:
                    meta[key] = value
            else:
                lines.append(line)
    rows = list(csv.reader(lines))
    return meta, rows[0], rows[1:]


ENTRY = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(", re.M)
LABEL = re.compile(r"\$L__BB\d+_")


def ptx_files(manifest_dir):
    """The manifest's PTX texts (bytes), in manifest order."""
    with open(os.path.join(manifest_dir, "manifest.json")) as f:
        manifest = json.load(f)
    ptx = manifest["ptx"] if isinstance(manifest["ptx"], list) else [manifest["ptx"]]
    texts = []
    for name in ptx:
        with open(os.path.join(manifest_dir, name), "rb") as f:
            texts.append(f.read())
    return texts


def kernels_digest(texts):
    """SHA-256 over every kernel's text (its .entry line to the closing brace of its body, with
    the module's .target line), in name order: the same whichever modules hold the kernels. LLVM
    numbers block labels by the function's place in its module ($L__BB4_2 in the fifth), so
    that number is dropped."""
    kernels = {}
    for raw in texts:
        text = raw.decode()
        target = re.search(r"^\.target\s+\S+", text, re.M)
        for match in ENTRY.finditer(text):
            end = text.find("\n}", match.start())
            assert end >= 0, f"kernel {match[1]}: no closing brace"
            body = LABEL.sub("$L__BB_", text[match.start():end + 2])
            kernels[match[1]] = (target[0] if target else "") + "\n" + body
    digest = hashlib.sha256()
    for name in sorted(kernels):
        digest.update(kernels[name].encode())
    return digest.hexdigest()


# What a lowering from before --math and --kernels used: CUDA-core kernels, one per layer shape.
LOWERING_DEFAULTS = {"math": "simt", "kernel_set": "specialised"}


@functools.lru_cache(maxsize=None)  # the runs of one manifest (SM counts, repeats) share it
def ptx_digest(manifest_dir):
    """(SHA-256 over the PTX files in manifest order, kernels_digest, dtype, arch, math,
    kernel_set) of a lowering."""
    texts = ptx_files(manifest_dir)
    with open(os.path.join(manifest_dir, "workload.json")) as f:
        workload = dict(LOWERING_DEFAULTS, **json.load(f))
    return (hashlib.sha256(b"".join(texts)).hexdigest(), kernels_digest(texts), workload["dtype"],
            workload["arch"], workload["math"], workload["kernel_set"])


def kept(folder, name, heads, new_runs):
    """The rows of FOLDER/NAME (a table collect.py wrote) whose run is not among new_runs."""
    path = os.path.join(folder, name)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != heads[name]:
        sys.exit(f"collect.py: error: {path}: columns differ from the results'")
    old = []
    for line, r in enumerate(rows[1:], start=2):
        if len(r) != len(rows[0]) or not r[1].isdigit():
            sys.exit(f"collect.py: error: {path}:{line}: not a row of {len(rows[0])} fields "
                     "with a batch size second")
        old.append([r[0], int(r[1])] + r[2:])
    replaced = {tuple(r[:8]) for r in new_runs}
    return [r for r in old if tuple(r[:8]) not in replaced]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", required=True, action="append",
                        help="folder of NETWORK-bBATCH manifests (once, or once per RESULT_DIR)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="write new tables into this folder")
    where.add_argument("--update",
                       help="merge into this folder's tables, replacing re-measured runs")
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    if len(args.manifests) not in (1, len(args.results)):
        sys.exit("collect.py: error: give --manifests once, or once per result folder")
    roots = args.manifests * len(args.results) if len(args.manifests) == 1 else args.manifests
    kernel_rows, run_rows, header = [], [], None
    for result_dir, root in zip(args.results, roots):
        for file in sorted(os.listdir(result_dir)):
            match = NAME.match(file)
            if not match:
                continue
            meta, head, rows = read_measure_csv(os.path.join(result_dir, file))
            if header is None:
                header = head
            elif head != header:
                sys.exit(f"collect.py: error: {file}: columns differ from the first file")
            name = f"{match['network']}-b{match['batch']}"
            sha, kernels_sha, dtype, arch, math, kernel_set = ptx_digest(os.path.join(root, name))
            key = [match["network"], int(match["batch"]), dtype, arch, math, kernel_set,
                   match["sms"], match["run"]]
            run_rows.append(key + [meta.get(k, "") for k in RUN_KEYS] +
                            [" | ".join(meta["note"]), sha, kernels_sha])
            for row in rows:
                kernel_rows.append(key + [meta["sms_used"]] + row[:-2])  # device, sms: in runs
    if header is None:
        sys.exit("collect.py: error: no ptxcast-measure CSVs (NETWORK-bBATCH.sms-SMS.RUN.csv) in "
                 + ", ".join(args.results))
    front = ["network", "batch", "dtype", "arch", "math", "kernel_set", "sms_requested", "run"]
    heads = {"kernels.csv": front + ["sms_used"] + header[:-2],
             "runs.csv": front + [k for k in RUN_KEYS if k != "sms_requested"] +
             ["notes", "ptx_sha256", "kernels_sha256"]}
    run_rows = [r[:8] + r[8:12] + r[13:] for r in run_rows]
    if args.update:
        kernel_rows = kept(args.update, "kernels.csv", heads, run_rows) + kernel_rows
        run_rows = kept(args.update, "runs.csv", heads, run_rows) + run_rows
    order = {"launch": 0, "workload": 1, "graph": 2}
    sms = lambda r: (r[6] != "all", int(r[6]) if r[6] != "all" else 0)  # noqa: E731
    kernel_rows.sort(key=lambda r: (r[0], r[1], r[2], r[4], r[5], sms(r), r[7], order[r[9]],
                                    int(r[10]) if r[10] else 0))
    run_rows.sort(key=lambda r: (r[0], r[1], r[2], r[4], r[5], sms(r), r[7]))
    out = args.out or args.update
    os.makedirs(out, exist_ok=True)
    for name, rows in [("kernels.csv", kernel_rows), ("runs.csv", run_rows)]:
        head = heads[name]
        tmp = os.path.join(out, name + ".tmp")
        with open(tmp, "w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(head)
            writer.writerows(rows)
        os.replace(tmp, os.path.join(out, name))
    print(f"{len(run_rows)} runs, {len(kernel_rows)} rows -> {out}", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # a missing or unreadable file or folder
        sys.exit(f"collect.py: error: {e.filename}: {e.strerror}")
