"""ptxcast from Python: predict how long a CNN takes on an NVIDIA GPU without running it there.

The functions run what the `ptxcast` commands run, in this process, through the C++ extension
ptxcast._core; their results carry the fields of the commands' `--format json` documents and
bad input raises ptxcast.Error with the command's message (docs/python.md).

    import ptxcast
    ptxcast.predict("efficientnet-b0", gpu="h100").time_ms
"""

import json
import math
import operator

from . import _core
from ._errors import Error
from ._models import export_onnx, resolve
from ._progress import Progress
from ._results import Comparison, Prediction, table

__all__ = ["Error", "Prediction", "Comparison", "predict", "compare", "analyze", "gpus", "zoo",
           "export_onnx", "datasets"]

_DTYPES = {"f32": "f32", "float32": "f32", "fp32": "f32", "float": "f32",
           "f16": "f16", "float16": "f16", "fp16": "f16", "half": "f16",
           "int8": "int8", "i8": "int8"}


def _dtype(dtype):
    """'f32', 'f16' or 'int8' from a name or a torch dtype; others fail as `--dtype` does."""
    if dtype is None:
        return "f32"
    text = str(dtype).removeprefix("torch.")
    if text not in _DTYPES:
        raise Error(f"--dtype: {dtype} not in {{f32,f16,int8}} (also fp32, float, float32, fp16, "
                    f"half, float16, i8)")
    return _DTYPES[text]


def _check_range(flag, value, low, high):
    if not low <= value <= high:
        raise Error(f"{flag}: Value {value} not in range {low} to {high}")
    return value


def _check_integer(flag, value, low, high):
    """An integer (an int, or text of one) from low to high, with the command line's words."""
    try:
        number = operator.index(value)
    except TypeError:
        try:
            number = int(str(value), 10)
        except ValueError:
            raise Error(f"{flag}: '{value}' is not an integer (give one from {low} to "
                        f"{high})") from None
    return _check_range(flag, number, low, high)


def _check_positive(flag, value):
    """None, or a finite positive number (the CLI's check, word for word)."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise Error(f"{flag}: Value {value:g} is not a positive finite number")
    return float(value or 0)


def _check_member(flag, value, choices):
    if value not in choices:
        raise Error(f"{flag}: {value} not in {{{','.join(choices)}}}")
    return value


def _image_size(image_size):
    return 0 if image_size is None else _check_range("--image-size", int(image_size), 16, 1024)


def _common(dtype, image_size, runtime, math):
    runtime = _check_member("--runtime", runtime or "graph", ("graph", "eager", "tensorrt",
                                                                 "compile"))
    math = "" if math is None else _check_member("--math", math, ("simt", "tf32", "f16", "bf16"))
    return _dtype(dtype), _image_size(image_size), runtime, math


def predict(model, gpu, batch=1, dtype=None, image_size=None, runtime=None, *, math=None,
            host=None, input_shape=None, name=None, predictor=None, calibrate=None, threads=0,
            progress=None):
    """Predicts `model` on `gpu` (`ptxcast predict MODEL --gpu GPU --format json`).

    model: a zoo name (ptxcast.zoo()), an ONNX path or ONNX bytes, or a torch.nn.Module, which
    is exported to ONNX in memory for `input_shape` ((C, H, W); default: the module's own where
    torchvision records one, else (3, 224, 224), said in the warnings) and named `name` (default:
    its class name). gpu: a catalog name (ptxcast.gpus()) or a GPU spec FILE.json. dtype: 'f32',
    'f16' (or a torch dtype) or 'int8' (runtime='tensorrt' only). runtime: 'graph', 'eager',
    'tensorrt' or 'compile'. math: simt, tf32, f16 or bf16 (default: PyTorch's). host: the CPU
    that launches the kernels under runtime='eager', 'compile' or 'tensorrt' (`ptxcast gpus
    --hosts`; default: the GPU's own). predictor: the command's --model, a
    shipped bundle name or FILE.json. calibrate: a CSV of your own timings on the GPU
    (`--calibrate`: columns gpu, network, batch, dtype, runtime, measured_ms).
    progress: None (a bar on a terminal or in a notebook), True or False."""
    batch = _check_integer("--batch", batch, 1, 4096)
    dtype, image_size, runtime, math = _common(dtype, image_size, runtime, math)
    network, onnx, note = resolve(model, input_shape, name)
    with Progress("analysing " + network, "launches", progress) as bar:
        text = _core.predict(network, onnx, str(gpu), batch, dtype, image_size, runtime, math,
                             host or "", predictor or "", str(calibrate or ""), int(threads),
                             bar.callback)
    document = json.loads(text)
    if note:
        document["warnings"].insert(0, note)
    return Prediction(document)


def compare(models, gpus, batches=(1,), budget_ms=None, *, target_ips=None, max_batch=False,
            dtype=None, image_size=None, runtime=None, math=None, host=None, input_shape=None,
            predictor=None, calibrate=None, threads=0, progress=None):
    """Predicts every model on every GPU at every batch size (`ptxcast compare --format json`).

    models: zoo names, ONNX paths or torch.nn.Modules (exported for `input_shape`), or "all";
    gpus: catalog names or spec files, or "all". budget_ms: time per batch to stay within;
    target_ips: images per second to reach; max_batch=True: instead of `batches`, per model and
    GPU the largest batch that fits in memory and meets both (`--max-batch`). calibrate: a CSV
    of your own timings; each GPU it names is calibrated by its own (`--calibrate`). Returns a
    Comparison: .rows / .table with one row per (model, batch, GPU) and .plot() for the heat
    map."""
    models = [models] if isinstance(models, str) else list(models)
    gpus = [gpus] if isinstance(gpus, str) else [str(g) for g in gpus]
    batches = [_check_integer("--batch", b, 1, 4096) for b in batches]
    budget_ms = _check_positive("--budget-ms", budget_ms)
    target_ips = _check_positive("--target-ips", target_ips)
    dtype, image_size, runtime, math = _common(dtype, image_size, runtime, math)
    resolved = [resolve(m, input_shape) for m in models]
    names, onnx = [n for n, _, _ in resolved], [b for _, b, _ in resolved]
    with Progress("analysing networks", "networks", progress) as bar:
        text = _core.compare(names, onnx, gpus, batches, bool(max_batch), budget_ms, target_ips,
                             dtype, image_size, runtime, math, host or "", predictor or "",
                             str(calibrate or ""), int(threads), bar.callback)
    document = json.loads(text)
    notes = {i: note for i, (_, _, note) in enumerate(resolved) if note}
    for row in document["results"]:
        for i, note in notes.items():
            if row["model"] == names[i]:
                row["warnings"].insert(0, note)
    return Comparison(document)


def analyze(model, batch=1, dtype=None, image_size=None, *, mode="fast", input_shape=None,
            name=None, threads=0):
    """The counts per launch and network totals of `ptxcast analyze MODEL --math simt --kernels
    specialised --format json` (CUDA-core kernels, as predict() counts them), as a dict
    ("launches": a table, "total": a dict). model: as for predict()."""
    dtype, image_size = _dtype(dtype), _image_size(image_size)
    mode = _check_member("--mode", mode, ("fast", "exact"))
    network, onnx, _ = resolve(model, input_shape, name)
    document = json.loads(_core.analyze(network, onnx, int(batch), dtype, image_size, mode,
                                        int(threads)))
    document["launches"] = table(document["launches"])
    return document


def gpus(*names):
    """The GPU catalog (`ptxcast gpus --format json`): a table with one row per GPU, all of them
    or the named ones (names, aliases or spec FILE.json)."""
    return table(json.loads(_core.gpus([str(n) for n in names]))["gpus"])


def zoo():
    """The model zoo (`ptxcast zoo --format json`): a table of name, input, params, macs,
    layers."""
    return table(json.loads(_core.zoo())["models"])


def __getattr__(attr):
    # ptxcast.datasets imports on first use (it needs nothing but the standard library until
    # it meets a Dask client).
    if attr == "datasets":
        from . import datasets
        return datasets
    raise AttributeError(f"module 'ptxcast' has no attribute {attr!r}")
