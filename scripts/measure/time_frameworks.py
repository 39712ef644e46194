#!/usr/bin/env python3
"""Time the zoo's framework counterparts (torchvision/timm) on a GPU; export their ONNX graphs.

For a GPU machine with PyTorch (+ torchvision, + timm for Xception). For every model, batch size
and precision it runs the model in eval mode under torch.inference_mode(), times each forward pass
with CUDA events after warm-up, and writes one CSV row with the median and the 10th/90th
percentiles. Each model's structure is exported to ONNX without weights (export_params=False: the
weights become graph inputs that keep their shapes), so `ptxcast` analyses exactly the graph that
was timed. Never changes device settings (clocks, MIG, persistence, compute mode).

    python3 scripts/measure/time_frameworks.py --out corpus/data/measured/frameworks/H100.csv \
        --onnx-dir corpus/data/measured/frameworks/onnx

Ran on an H100 with PyTorch 2.11 (corpus/data/measured/README.md). --cuda-graph times replays of
a CUDA graph of the forward pass instead of eager calls (GPU time without launch overhead).
"""
import argparse
import csv
import datetime
import os
import statistics
import sys

# name -> (library, constructor, input image size). Image sizes are the models' native ones.
MODELS = {
    "efficientnet_b0": ("torchvision", "efficientnet_b0", 224),
    "efficientnet_b1": ("torchvision", "efficientnet_b1", 240),
    "efficientnet_b2": ("torchvision", "efficientnet_b2", 260),
    "efficientnet_b3": ("torchvision", "efficientnet_b3", 300),
    "efficientnet_b4": ("torchvision", "efficientnet_b4", 380),
    "efficientnet_b5": ("torchvision", "efficientnet_b5", 456),
    "efficientnet_b6": ("torchvision", "efficientnet_b6", 528),
    "efficientnet_b7": ("torchvision", "efficientnet_b7", 600),
    "mobilenet_v2": ("torchvision", "mobilenet_v2", 224),
    "resnet50": ("torchvision", "resnet50", 224),
    "vgg16": ("torchvision", "vgg16", 224),
    "xception": ("timm", "legacy_xception", 299),  # timm < 0.9 calls it "xception"
}
# More torchvision CNNs that ptxcast's ONNX import covers (not in the zoo; for training rows).
EXTRA = {
    "alexnet": 224, "vgg11": 224, "vgg19": 224, "resnet18": 224, "resnet34": 224,
    "resnet101": 224, "resnet152": 224, "wide_resnet50_2": 224, "resnext50_32x4d": 224,
    "densenet121": 224, "mobilenet_v3_small": 224, "mobilenet_v3_large": 224, "mnasnet1_0": 224,
    "regnet_y_800mf": 224, "squeezenet1_1": 224, "googlenet": 224, "inception_v3": 299,
    "efficientnet_v2_s": 384,
}
MODELS.update({name: ("torchvision", name, size) for name, size in EXTRA.items()})
COLUMNS = ["model", "batch", "dtype", "image_size", "mode", "median_ms", "p10_ms", "p90_ms",
           "mean_ms",
           "repeats", "status", "device", "torch_version", "cuda_version", "cudnn_version",
           "library", "library_version", "cudnn_benchmark", "date_utc"]


def build_model(name):
    """The model without pretrained weights (timing does not depend on weight values)."""
    library, ctor, _ = MODELS[name]
    if library == "torchvision":
        import torchvision
        return getattr(torchvision.models, ctor)(weights=None), torchvision.__version__
    import timm
    try:
        return timm.create_model(ctor, pretrained=False), timm.__version__
    except Exception:  # older timm: the model is still called "xception"
        return timm.create_model("xception", pretrained=False), timm.__version__


def percentile(sorted_values, p):
    """Linear interpolation between order statistics (numpy's default, type 7)."""
    h = p * (len(sorted_values) - 1)
    lo = int(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def time_forward(torch, model, x, dtype, warmup, repeat, graph=False):
    """Milliseconds per forward pass, one CUDA-event pair per repeat.

    With graph=True the forward pass is captured once in a CUDA graph and the replays are timed:
    GPU time without the eager launch overhead of Python and the dispatcher.
    """
    def forward():
        if dtype == "fp16":
            with torch.autocast("cuda", dtype=torch.float16, cache_enabled=not graph):
                return model(x)
        return model(x)

    with torch.inference_mode():
        run = forward
        if graph:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    forward()
            torch.cuda.current_stream().wait_stream(side)
            cuda_graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(cuda_graph):
                forward()
            run = cuda_graph.replay
        for _ in range(warmup):
            run()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return sorted(times)


def export_onnx(torch, model, name, image_size, onnx_dir):
    """The fp32 graph with a dynamic batch axis and no weight data (weights are inputs)."""
    os.makedirs(onnx_dir, exist_ok=True)
    path = os.path.join(onnx_dir, name + ".onnx")
    x = torch.zeros(1, 3, image_size, image_size)
    kwargs = dict(export_params=False, do_constant_folding=False, opset_version=17,
                  input_names=["input"], output_names=["output"],
                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    cpu_model = model.to("cpu").float()
    try:
        torch.onnx.export(cpu_model, (x,), path, dynamo=False, **kwargs)
    except TypeError:  # torch without the dynamo switch: the TorchScript exporter is the default
        torch.onnx.export(cpu_model, (x,), path, **kwargs)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated subset")
    parser.add_argument("--batches", default="1,2,4,8,16,32,64")
    parser.add_argument("--dtypes", default="fp32,fp16")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--cuda-graph", action="store_true",
                        help="time replays of a CUDA graph of the forward pass (mode 'graph') "
                             "instead of eager calls (mode 'eager')")
    parser.add_argument("--cudnn-benchmark", action="store_true",
                        help="let cuDNN pick algorithms by trial (a library setting, not a device one)")
    parser.add_argument("--out", required=True, help="CSV to write")
    parser.add_argument("--onnx-dir", default="", help="export each model's graph here")
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        sys.exit("time_frameworks.py: error: no CUDA device visible to PyTorch")
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    device = torch.device(args.device)
    torch.cuda.set_device(device)
    common = {
        "device": torch.cuda.get_device_name(device),
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cudnn_version": torch.backends.cudnn.version(),
        "cudnn_benchmark": int(args.cudnn_benchmark),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        sys.exit("time_frameworks.py: error: unknown model(s) %s; known: %s"
                 % (", ".join(unknown), ", ".join(MODELS)))
    batches = [int(b) for b in args.batches.split(",")]
    dtypes = args.dtypes.split(",")
    tmp = args.out + ".tmp"
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for name in names:
            library, _, size = MODELS[name]
            model, library_version = build_model(name)
            model.eval()
            if args.onnx_dir:
                print("exported", export_onnx(torch, model, name, size, args.onnx_dir),
                      file=sys.stderr)
            model = model.to(device)
            for dtype in dtypes:
                for batch in batches:
                    row = dict(common, model=name, batch=batch, dtype=dtype, image_size=size,
                               mode="graph" if args.cuda_graph else "eager",
                               library=library, library_version=library_version,
                               repeats=args.repeat, status="ok")
                    try:
                        x = torch.randn(batch, 3, size, size, device=device,
                                        generator=torch.Generator(device).manual_seed(0))
                        t = time_forward(torch, model, x, dtype, args.warmup, args.repeat,
                                         args.cuda_graph)
                        row.update(median_ms="%.6f" % statistics.median(t),
                                   p10_ms="%.6f" % percentile(t, 0.10),
                                   p90_ms="%.6f" % percentile(t, 0.90),
                                   mean_ms="%.6f" % statistics.fmean(t))
                    except torch.cuda.OutOfMemoryError:
                        row.update(status="out_of_memory", repeats=0)
                        torch.cuda.empty_cache()
                    except RuntimeError as e:  # e.g. an op that cannot be graph-captured
                        row.update(status="error", repeats=0)
                        print(name, dtype, batch, "error:", str(e).splitlines()[0],
                              file=sys.stderr)
                        torch.cuda.synchronize()
                    writer.writerow(row)
                    f.flush()
                    print(name, dtype, batch, row.get("median_ms", row["status"]), file=sys.stderr)
            del model
            torch.cuda.empty_cache()
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
