#!/usr/bin/env python3
"""Where a framework network's GPU time goes: its kernels, timed one by one with torch.profiler.

For a GPU machine with PyTorch (the models of time_frameworks.py). For every model, precision and
batch it runs the forward pass eagerly (the same kernels a CUDA graph of it replays) under
torch.profiler after warm-up, and writes one CSV row per distinct kernel: how many launches, their
summed and median GPU time, and the grid, block, registers and shared memory of its first launch.
A second CSV gets one row per configuration with the summed kernel time. Also times a copy and an
fp16 add of 1 GiB tensors (the GPU's achievable DRAM bandwidth). Never changes device settings.

    python3 scripts/measure/profile_frameworks.py --models resnet50 --batches 1,64 \
        --out-kernels kernels.csv --out-summary summary.csv
"""
import argparse
import csv
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import time_frameworks  # noqa: E402  (MODELS, build_model)

KERNEL_COLUMNS = ["model", "batch", "dtype", "kernel", "launches", "total_us", "median_us",
                  "grid", "block", "registers", "shared_bytes"]
SUMMARY_COLUMNS = ["model", "batch", "dtype", "kernels", "launches", "kernel_ms", "device",
                   "torch_version", "cudnn_version"]


def kernel_events(torch, model, x, dtype, warmup):
    """The profiler trace's kernel events of one forward pass."""
    from torch.profiler import ProfilerActivity, profile

    def forward():
        if dtype == "fp16":
            with torch.autocast("cuda", dtype=torch.float16):
                return model(x)
        return model(x)

    with torch.inference_mode():
        for _ in range(warmup):
            forward()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            forward()
            torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]


def aggregate(events):
    """Per kernel name: launches, times and the first launch's shape, sorted by total time."""
    by_name = {}
    for e in events:
        a = e.get("args", {})
        k = by_name.setdefault(e["name"], {
            "times": [], "grid": a.get("grid"), "block": a.get("block"),
            "registers": a.get("registers per thread"), "shared_bytes": a.get("shared memory")})
        k["times"].append(float(e.get("dur", 0)))
    rows = []
    for name, k in by_name.items():
        rows.append({"kernel": name[:200], "launches": len(k["times"]),
                     "total_us": "%.3f" % sum(k["times"]),
                     "median_us": "%.3f" % statistics.median(k["times"]),
                     "grid": "x".join(map(str, k["grid"] or [])),
                     "block": "x".join(map(str, k["block"] or [])),
                     "registers": k["registers"], "shared_bytes": k["shared_bytes"]})
    rows.sort(key=lambda r: -float(r["total_us"]))
    return rows


def bandwidth(torch, out):
    """GB/s of a 1 GiB copy and an fp16 add (CUDA events, median of 20)."""
    n = 1 << 29  # fp16 elements: 1 GiB
    a = torch.ones(n, dtype=torch.float16, device="cuda")
    b = torch.ones(n, dtype=torch.float16, device="cuda")
    c = torch.empty_like(a)
    for name, fn, moved in (("copy", lambda: c.copy_(a), 2 * 2 * n),
                            ("add_f16", lambda: torch.add(a, b, out=c), 3 * 2 * n)):
        for _ in range(3):
            fn()
        ts = []
        for _ in range(20):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
        ms = statistics.median(ts)
        print("%s: %.3f ms, %.0f GB/s" % (name, ms, moved / ms / 1e6), file=out, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet50")
    p.add_argument("--batches", default="1,64")
    p.add_argument("--dtypes", default="fp16,fp32")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--out-kernels", required=True)
    p.add_argument("--out-summary", required=True)
    p.add_argument("--out-bandwidth", default="")
    args = p.parse_args()

    import torch
    if not torch.cuda.is_available():
        sys.exit("profile_frameworks.py: error: no CUDA device visible to PyTorch")
    common = {"device": torch.cuda.get_device_name(0), "torch_version": torch.__version__,
              "cudnn_version": torch.backends.cudnn.version()}
    if args.out_bandwidth:
        with open(args.out_bandwidth, "w") as f:
            bandwidth(torch, f)
    with open(args.out_kernels, "w", newline="") as fk, \
            open(args.out_summary, "w", newline="") as fs:
        wk = csv.DictWriter(fk, fieldnames=KERNEL_COLUMNS)
        ws = csv.DictWriter(fs, fieldnames=SUMMARY_COLUMNS)
        wk.writeheader()
        ws.writeheader()
        for name in args.models.split(","):
            _, _, size = time_frameworks.MODELS[name]
            model, _ = time_frameworks.build_model(name)
            model = model.eval().to("cuda")
            for dtype in args.dtypes.split(","):
                for batch in map(int, args.batches.split(",")):
                    x = torch.randn(batch, 3, size, size, device="cuda")
                    rows = aggregate(kernel_events(torch, model, x, dtype, args.warmup))
                    key = {"model": name, "batch": batch, "dtype": dtype}
                    for r in rows:
                        wk.writerow(dict(key, **r))
                    ws.writerow(dict(key, **common, kernels=len(rows),
                                     launches=sum(r["launches"] for r in rows),
                                     kernel_ms="%.4f" % (sum(float(r["total_us"])
                                                             for r in rows) / 1e3)))
                    fk.flush()
                    fs.flush()
                    print(name, dtype, batch, "done", file=sys.stderr, flush=True)
            del model
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
