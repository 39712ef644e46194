#!/usr/bin/python3
"""Regenerates docs/python.md from real output of the built package, as scripts/user-guide.sh
does docs/user-guide.md, so its figures cannot drift from what the build prints:

    scripts/python-guide.py > docs/python.md      # from the repository root, after a build

Each walk-through cell runs here as in a notebook; the value of its last expression is printed
under it as `# ...` lines. The heat map image (docs/images/python-compare.png) is written by
the walk-through's own `plot().save(...)`. BUILD=DIR picks another build folder."""

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, os.environ.get("BUILD", "build"), "python"))
os.chdir(ROOT)

import ptxcast  # noqa: E402  (after the path is set)

try:
    import pandas
    pandas.set_option("display.width", 140)
    pandas.set_option("display.max_columns", 20)
except ImportError:
    pass

NAMESPACE = {"ptxcast": ptxcast}


def cell(code):
    """The code, indented as a doc block, followed by the value of its last expression."""
    tree = ast.parse(code)
    *body, last = tree.body
    exec(compile(ast.Module(body, type_ignores=[]), "<doc>", "exec"), NAMESPACE)
    shown = ""
    if isinstance(last, ast.Expr):
        value = eval(compile(ast.Expression(last.value), "<doc>", "eval"), NAMESPACE)
        shown = "" if value is None else repr(value)
    else:
        exec(compile(ast.Module([last], type_ignores=[]), "<doc>", "exec"), NAMESPACE)
    lines = ["    " + line for line in code.strip("\n").splitlines()]
    lines += ["    # " + line for line in shown.splitlines()]
    return "\n".join(lines) + "\n"


def text(block):
    sys.stdout.write(block.lstrip("\n"))


text('''
# ptxcast from Python

The package `ptxcast` runs what the `ptxcast` commands run, in the Python process: a pybind11
extension (`ptxcast._core`, python/src/Module.cpp) over the engine library the executable is a
thin layer on (`pipeline`, pipeline/), and a few Python files (python/ptxcast/) that turn the
commands' `--format json` documents into result objects. Fields and values are those of the
command line by construction: both print or return the document of the same function
(pipeline/include/pipeline/Documents.h), called with the same library-level request
(`PredictRequest`, `CompareRequest`, `AnalyzeRequest`), and the heat map is the same SVG
(pipeline/include/pipeline/HeatMap.h). `scripts/python-guide.py > docs/python.md` regenerates
this page from the build: every output below is real.

## Setting up

    scripts/setup.sh                       # installs the Debian packages below, builds build/
    export PYTHONPATH=$PWD/build/python    # the package: build/python/ptxcast/
    python3 -c "import ptxcast; print(ptxcast.predict('efficientnet-b0', gpu='h100').time_ms)"

The build puts the extension (`_core.cpython-311-x86_64-linux-gnu.so`), copies of
python/ptxcast/*.py and a copy of the `ptxcast` executable (`bin/ptxcast`) into
`build/python/ptxcast/`; nothing is installed system-wide, so the module
is found through `PYTHONPATH` (or `sys.path.insert(0, "build/python")`). It is built for Debian's
`/usr/bin/python3` (3.11), whose Debian packages it uses; pass `-DPython3_EXECUTABLE=...` to CMake
for another CPython 3.11. The extension is skipped, with a message, when CMake finds no pybind11.

| Debian package | what for | needed by |
|---|---|---|
| pybind11-dev, python3-dev | building the extension | the build |
| python3-torch, python3-torchvision | exporting a `torch.nn.Module` to ONNX in memory (CPU) | `predict(module, ...)`; tests |
| python3-distributed (Dask) | running dataset shards on a cluster | `ptxcast.datasets.build(client=...)`; tests |
| python3-pandas | result tables as DataFrames (else lists of dicts) | optional |
| librsvg2-bin | `Comparison.plot().save("FILE.png")` (SVG needs nothing) | optional |
| python3-tqdm | progress bars (else a plain line) | optional |

Only the extension and the standard library are needed to import the package; torch, Dask,
pandas and tqdm are imported when a call needs them. Debian's torch 1.13 exports without the
`onnx` Python package. The command line is there too: `python3 -m ptxcast ARGS` runs the
package's `bin/ptxcast ARGS` in place of the Python process, so it behaves as `ptxcast ARGS`
(output and exit status are the command's).

## The functions

| function | command | returns |
|---|---|---|
| `predict(model, gpu, batch=1, dtype=None, image_size=None, runtime=None, *, math=None, host=None, input_shape=None, name=None, predictor=None, calibrate=None, threads=0, progress=None)` | `ptxcast predict --format json` (`calibrate`: `--calibrate`) | `Prediction`: every field of the document as an attribute (`time_ms`, `interval_ms`, `gpu_ms`, `host_ms`, `bound_ms`, `time_per_image_ms`, `images_per_s`, `images_per_s_per_w`, `memory`, `warnings`, `model`, ...), `breakdown` as a table, `.json` the document |
| `compare(models, gpus, batches=(1,), budget_ms=None, *, target_ips=None, max_batch=False, dtype, image_size, runtime, math, host, input_shape, predictor, calibrate, threads, progress)` | `ptxcast compare --format json` (`--target-ips`, `--max-batch`, `--calibrate`) | `Comparison`: `.rows` (the document's `results`), `.table`, `.matrix()`, `.plot(value=None)`, and `model`, `runtime`, `dtype`, `budget_ms`, `target_ips`, `max_batch`, `analyses` |
| `analyze(model, batch=1, dtype=None, image_size=None, *, mode="fast", input_shape, name, threads)` | `ptxcast analyze --math simt --kernels specialised --format json` (the CUDA-core kernels predict() counts) | dict: `launches` (a table), `total` |
| `gpus(*names)` | `ptxcast gpus [NAME...] --format json` | table, one row per GPU |
| `zoo()` | `ptxcast zoo --format json` | table, one row per model |
| `export_onnx(module, input_shape)` | — | the ONNX bytes `predict` would analyse |

- `model` is a zoo name (`ptxcast.zoo()`), an ONNX path, ONNX bytes, or a `torch.nn.Module`. A
  module is exported with `torch.onnx.export` (opset 13, eval mode, no gradients, its training
  mode restored after) into an `io.BytesIO` for an input of `input_shape` ((C, H, W)); the batch
  axis stays symbolic, so one export serves every batch size. Without `input_shape`, the module's
  own where torchvision records one (`VisionTransformer.image_size`; Inception v3's 299 x 299),
  else (3, 224, 224); the result's first warning says which. The network is named `name`, by
  default the module's class name (`ResNet`, `MobileNetV2`). Nothing is written to disk.
- `gpu(s)`: catalog names or aliases (`ptxcast.gpus()`), `MODULE@MODE`, or a GPU spec FILE.json;
  rows name GPUs by their catalog name (`h100` is `h100-sxm`).
- `dtype`: `'f32'` (also `'fp32'`, `'float'`, `'float32'`), `'f16'` (also `'fp16'`, `'half'`,
  `'float16'`: PyTorch autocast), `'int8'` (also `'i8'`; with `runtime='tensorrt'` only), or a
  torch dtype (`torch.float16`); `runtime`: `'graph'`, `'eager'`, `'compile'` or `'tensorrt'`; `math`: `simt`, `tf32`, `f16`, `bf16`; `predictor`: the command's `--model` (a
  shipped bundle name or a bundle FILE.json).
- `budget_ms`, `target_ips`, `max_batch`: compare's targets and the largest batch that fits in
  memory and meets them (docs/predict.md, "The largest batch").
- `Comparison.plot(value=None)`: a `Plot` holding the SVG `ptxcast compare --plot` writes for the
  same document, byte for byte (`value`: `"time"`, `"images-per-s"`, `"images-per-s-per-w"`, as
  `--plot-value`); a notebook shows it inline (`_repr_svg_`), `.svg` is its text and
  `.save("FILE.svg"|"FILE.png")` writes it as the command does.
- Tables are pandas DataFrames when pandas is installed, else lists of dicts.
- Errors: bad input raises `ptxcast.Error` (a `RuntimeError`) whose text is the line the command
  prints on stderr, e.g. `error: unknown gpu 'h1000' ...`, `--dtype: f64 not in {f32,f16} ...`,
  `--batch: Value 0 not in range 1 to 4096`, `--batch: 'abc' is not an integer ...`
  (tests/python/test_api.py compares them).
- Progress: `progress=None` shows a bar (tqdm, `tqdm.auto` in notebooks) of the launches analysed
  (`predict`) or networks analysed (`compare`) only when stderr is a terminal or the code runs in
  a Jupyter notebook; `True`/`False` force it. The GIL is released while C++ works, so other
  Python threads run meanwhile.

## Walk-through: EfficientNet-B0..B3 on a Jetson AGX Orin and an A100

In a notebook (or `python3`, with `PYTHONPATH=build/python`); the outputs are real, from this
build on the 2-core development machine.

''')
text(cell('''
import ptxcast
r = ptxcast.predict("efficientnet-b0", gpu="jetson-agx-orin")
r
'''))
text("\n")
text(cell('''
r.images_per_s, r.memory["total_bytes"] / 2**30, r.memory["fits"], r.warnings[0][:60]
'''))
text("\n")
text(cell('''
r.breakdown
'''))
text('''
The whole family at batch 1 and 8 against a 10 ms budget (each model and batch is analysed once,
whatever the number of GPUs; `meets_targets_band`: met at the slow end of the band too):

''')
text(cell('''
c = ptxcast.compare([f"efficientnet-b{i}" for i in range(4)],
                    ["jetson-agx-orin", "a100-80gb-sxm"], batches=(1, 8), budget_ms=10)
c.table[["model", "batch", "gpu", "time_ms", "images_per_s", "meets_targets", "meets_targets_band"]]
'''))
text("\n")
text(cell('''
c.plot().save("docs/images/python-compare.png")
'''))
text('''
![EfficientNet-B0..B3 on Orin and A100](images/python-compare.png)

The same heat map as `ptxcast compare ... --plot FILE.png`: dark cells are fast, red outlines
meet the budget (and fit in memory).

## Does it fit, and how many images per second?

"Is a 4 GB Orin Nano enough for EfficientNet-B3 at 30 images/s?": the largest batch that fits
in memory and stays within 100 ms, per GPU, and whether its images/s reach 30:

''')
text(cell('''
m = ptxcast.compare(["efficientnet-b3"], ["jetson-orin-nano-4gb", "jetson-orin-nano"],
                    budget_ms=100, target_ips=30, max_batch=True)
m.table[["gpu", "max_batch", "time_ms", "images_per_s", "meets_targets"]]
'''))
text("\n")
text(cell('''
[round(r["memory"]["total_bytes"] / 2**30, 2) for r in m.rows], m.analyses
'''))
text('''
`max_batch` is the batch found (0: none meets the targets); `analyses` counts the networks
analysed by the search (doubling, then bisection; memory needs none).

## A PyTorch model object, with no file written

''')
text(cell('''
import torchvision
p = ptxcast.predict(torchvision.models.resnet18(), gpu="t4", batch=8)
p.image_size, p.warnings[0]
'''))
text('''
tests/python/test_torch.py predicts torchvision's `resnet18()` and `mobilenet_v2()` this way and
checks that the time equals `ptxcast predict` on the same export written to a file (to 0.1 %).

## Datasets on a Dask cluster

`ptxcast.datasets.build(sources, output, command="neusight", client=None, shards=None,
threads=None, **flags)` runs `ptxcast dataset COMMAND SOURCES... --shard K/N` (docs/datasets.md)
as one Dask task per shard (default: one per worker thread, each analysing on `threads` threads,
default 1),
brings the shard files back to the client and merges them there with `ptxcast dataset merge`:
the output is byte-identical to the one-process command. Flags are the command's
(`limit=20`, `arch="sm_90"`, `gpu=...`, `level=...`, `mode=...`, `onnx_dir=...`,
`cache=...`). Without a client the command runs in one process (on every core unless `threads`
says otherwise). A failed shard raises
`ptxcast.Error` with the command's message.

One machine, two worker processes (in a script, keep the cluster under
`if __name__ == "__main__":`: Dask starts its workers by importing the main module again):

    from distributed import Client, LocalCluster
    import ptxcast.datasets

    if __name__ == "__main__":
        ops = ("conv", "linear", "add", "relu", "softmax")
        sources = [f"/data/neusight/{op}/t4.csv" for op in ops]
        with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
            report = ptxcast.datasets.build(sources, "neusight-t4.csv", client=client, limit=100)
        print(report)   # {'output': 'neusight-t4.csv', 'shards': 2, 'seconds': 84.2}

Measured once on the 2-core development machine (load average 9-10 from other work, so the
times are long and noisy; this table is not regenerated), 500 rows, 500 distinct analyses,
with the script above (the shared NeuSight files, `limit=100`), against
`ptxcast.datasets.build(sources, out, threads=2, limit=100)` (the one-process command on 2
threads):

| run | wall time |
|---|---|
| one process, 2 threads | 89.4 s |
| Dask LocalCluster, 2 workers x 1 thread, 2 shards | 84.2 s (+ 4.4 s to start the cluster) |

The outputs are byte-identical. On one machine two workers use the same two cores as two
threads, so the point is that sharding costs nothing; the time falls with the number of
machines, since shards share no state (each reads the sources, analyses about 1/N of the
distinct analyses, and the merge analyses nothing).

Any Dask cluster works the same way: `dask_jobqueue.SLURMCluster` on Slurm or
`dask_kubernetes` on Kubernetes, where the lab has them. The workers need this package importable
(the same build, on a shared file system or in the image) and the sources readable at the
absolute paths the client gives; shard files travel back as task results, so the client needs no
shared scratch space. The shards are a deterministic slice of the distinct analyses each, so a
failed task can be rerun alone.

tests/python/test_datasets.py builds 48 NeuSight rows (tests/python/data/neusight: the first 12
rows of four files) on a LocalCluster with 2 workers and checks the bytes against the
one-process command, and shards 1..3 of 3 merged in another order against the unsharded run.

## Tests

`scripts/test.sh` runs them with the rest (CTest tests `python.api`, `python.torch`,
`python.datasets`, from tests/python/CMakeLists.txt: `python3 -m unittest` with `PYTHONPATH`
set to the build's package and `PTXCAST_BIN` to the built executable, which they compare with).
''')
