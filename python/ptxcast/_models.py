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


def default_input_shape(module):
    """(shape, why) for a module given no input_shape: the image size torchvision records on
    the module (VisionTransformer.image_size), Inception v3's 299 x 299 (torchvision's
    Inception3 documents it), else ImageNet's 224 x 224, all with 3 channels."""
    size = getattr(module, "image_size", None)
    if isinstance(size, int) and size > 0:
        return (3, size, size), f"the module's image_size attribute ({size})"
    if type(module).__name__ == "Inception3":
        return (3, 299, 299), "torchvision's Inception v3 input"
    return (3, 224, 224), "the ImageNet default"


def resolve(model, input_shape=None, name=None):
    """(name, onnx_bytes, note) for the C++ side: bytes are b"" for a zoo name or an ONNX path;
    note says which input shape a module got when none was given (else None)."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), b"", None
    if isinstance(model, (bytes, bytearray)):
        return name or "model", bytes(model), None
    if _is_torch_module(model):
        note = None
        if input_shape is None:
            input_shape, why = default_input_shape(model)
            note = (f"input_shape not given: {tuple(input_shape)}, {why}; pass "
                    f"input_shape=(C, H, W) to predict another")
        return name or type(model).__name__, export_onnx(model, input_shape), note
    raise Error(f"model must be a zoo name, an ONNX path or bytes, or a torch.nn.Module; "
                f"got {type(model).__name__}")
