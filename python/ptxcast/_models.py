"""What a `model` argument names: a zoo model, an ONNX file, ONNX bytes, or a torch.nn.Module
exported to ONNX in memory (torch is imported only then)."""

import io
import os

from ._errors import Error

# ONNX operator set of the export: the importer's (docs/onnx.md) and Debian's torch 1.13 agree.
OPSET = 13


def _is_torch_module(obj):
    return any(c.__module__.startswith("torch.nn") and c.__name__ == "Module"
               for c in type(obj).__mro__)


def export_onnx(module, input_shape):
    """The ONNX bytes of a torch.nn.Module, exported in eval mode for an input of `input_shape`
    ((C, H, W), or (N, C, H, W) whose N is only an example: the batch stays symbolic, so one
    export serves every batch size). Nothing is written to disk."""
    import torch  # optional dependency: only for torch models

    shape = tuple(int(d) for d in input_shape)
    if len(shape) == 3:
        shape = (1,) + shape
    example = torch.randn(*shape)
    buffer = io.BytesIO()
    training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, example, buffer, opset_version=OPSET,
                              input_names=["input"], output_names=["output"],
                              dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    finally:
        module.train(training)
    return buffer.getvalue()


def resolve(model, input_shape=None, name=None):
    """(name, onnx_bytes) for the C++ side: bytes are b"" for a zoo name or an ONNX path."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), b""
    if isinstance(model, (bytes, bytearray)):
        return name or "model", bytes(model)
    if _is_torch_module(model):
        if input_shape is None:
            raise Error("a torch.nn.Module needs input_shape, e.g. input_shape=(3, 224, 224)")
        return name or type(model).__name__, export_onnx(model, input_shape)
    raise Error(f"model must be a zoo name, an ONNX path or bytes, or a torch.nn.Module; "
                f"got {type(model).__name__}")
