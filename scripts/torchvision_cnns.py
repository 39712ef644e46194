#!/usr/bin/env python3
"""Every torchvision classification CNN (torch 1.13, torchvision 0.14), exported to ONNX at batch 1
and predicted by ptxcast: import, lowering, fast analysis and the prediction (docs/onnx.md,
"torchvision"). tests/python/test_torchvision.py checks the list and predicts the FAST subset
under CTest; this script predicts any or all of them:

    PYTHONPATH=build/python /usr/bin/python3 scripts/torchvision_cnns.py [--gpu h100] [MODEL ...]

It prints one line per model (launches, predicted ms at batch 1, seconds taken) and exits 1
when a model does not predict. Weights are neither initialised nor exported: only shapes
count, and the 644M-parameter RegNetY-128GF exports in seconds."""

import argparse
import contextlib
import io
import sys
import time

# Every classification CNN of torchvision 0.14 (torchvision.models.list_models(module=
# torchvision.models) less the vision transformers vit_*, swin_* and maxvit_t), by family.
CNNS = [
    "alexnet",
    "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn",
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
    "wide_resnet50_2", "wide_resnet101_2",
    "squeezenet1_0", "squeezenet1_1",
    "densenet121", "densenet161", "densenet169", "densenet201",
    "inception_v3", "googlenet",
    "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
    "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small",
    "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
    "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
    "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l",
    "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf",
    "regnet_x_16gf", "regnet_x_32gf",
    "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf",
    "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf",
    "convnext_tiny", "convnext_small", "convnext_base", "convnext_large",
]
# Not CNNs: the test checks that these and CNNS are all of torchvision's classification models.
TRANSFORMER_PREFIXES = ("vit_", "swin_", "maxvit_")
# For CTest (tests/python/test_torchvision.py, about 30 s on an idle 2-core machine): the
# three models whose exports needed rules of their own (DenseNet's and Inception's Pad ->
# AveragePool, ConvNeXt's decomposed layer norm and parameters shared through Identity) and
# three quick ones of other families.
FAST = ["squeezenet1_1", "mobilenet_v3_small", "regnet_x_400mf", "densenet121", "inception_v3",
        "convnext_tiny"]

# The image size each model is trained at (torchvision's weights' transforms); 224 otherwise.
IMAGE_SIZE = {"inception_v3": 299}
OPSET = 13  # the Python package's export (python/ptxcast/_models.py)


@contextlib.contextmanager
def uninitialised_weights(torch):
    """Module construction without weight initialisation (torch.nn.init.* do nothing)."""
    names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    saved = {n: getattr(torch.nn.init, n) for n in names}
    try:
        for n in names:
            setattr(torch.nn.init, n, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for n, f in saved.items():
            setattr(torch.nn.init, n, f)


def export(name, opset=OPSET):
    """The ONNX bytes of torchvision model `name` in eval mode at batch 1 (a dynamic batch axis),
    without weights."""
    import torch
    import torchvision

    with uninitialised_weights(torch):
        model = torchvision.models.get_model(name).eval()
    size = IMAGE_SIZE.get(name, 224)
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, torch.zeros(1, 3, size, size), buffer, opset_version=opset,
                          export_params=False, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    return buffer.getvalue()


def predict(name, gpu="h100", opset=OPSET):
    """ptxcast's prediction of torchvision model `name` on `gpu` at batch 1."""
    import ptxcast

    return ptxcast.predict(export(name, opset), gpu, name=name, progress=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="default: all of CNNS")
    parser.add_argument("--gpu", default="h100")
    parser.add_argument("--opset", type=int, default=OPSET)
    args = parser.parse_args()
    import warnings
    warnings.filterwarnings("ignore")  # the exporter's notes on constants and traced shapes
    failed = []
    for name in args.models or CNNS:
        start = time.time()
        try:
            p = predict(name, args.gpu, args.opset)
            print(f"{name:20} {p.launches:5d} launches {p.time_ms:10.4f} ms "
                  f"({time.time() - start:5.1f} s)", flush=True)
        except Exception as e:  # a model that does not predict: say why, go on
            failed.append(name)
            print(f"{name:20} FAILED: {e}", flush=True)
    if failed:
        print(f"{len(failed)} of {len(args.models or CNNS)} failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
