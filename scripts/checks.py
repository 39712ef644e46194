"""What the accuracy checks share (scripts/engine-check.py, scripts/compile-check.py,
scripts/eager-check.py, scripts/leave-family-out.py): their common options, the error of a list
of ratios predicted / measured, the spread of such ratios, network families, and every row with
its prediction as CSV."""
import argparse
import csv
import re
import statistics

# Network name patterns, first match wins: zoo, torchvision and timm spellings alike.
FAMILIES = [(r"efficientnet", "efficientnet"), (r"^mobilenet_?v2", "mobilenetv2"),
            (r"^mobilenet_?v3", "mobilenetv3"), (r"^(resnet|resnext|wide_resnet)", "resnet"),
            (r"^vgg", "vgg"), (r"^densenet", "densenet"), (r"^(inception|googlenet)", "inception"),
            (r"^mnasnet", "mnasnet"), (r"^regnet", "regnet"), (r"xception", "xception"),
            (r"^shufflenet", "shufflenet"), (r"^squeezenet", "squeezenet"),
            (r"^alexnet", "alexnet"), (r"^lenet", "lenet")]


def arguments(doc):
    """A parser for a check whose docstring is `doc`, with the options every check takes:
    --ptxcast (the binary), --model (the bundle to predict with) and --csv (where to write every
    row with its prediction)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--ptxcast", default="build/tools/ptxcast/ptxcast")
    ap.add_argument("--model", help="the bundle to predict with (default: the shipped one)")
    ap.add_argument("--csv", help="also write every row with its prediction here")
    return ap


def model_option(model):
    """ptxcast's arguments that pick the bundle `model` (none: the shipped one)."""
    return ["--model", model] if model else []


def family(network):
    """The family of a network name (ResNet, ResNeXt and Wide ResNet one; EfficientNet-B0..B7
    and timm's tf_ variants one; ...); a name of no known family is its own."""
    for pattern, name in FAMILIES:
        if re.search(pattern, network.lower()):
            return name
    return network


def spread(values, method="exclusive"):
    """The 10th and 90th percentiles of `values` (statistics.quantiles with `method`)."""
    deciles = statistics.quantiles(values, n=10, method=method)
    return deciles[0], deciles[-1]


def mape(ratios):
    """Mean absolute percentage error of predicted / measured ratios, in %."""
    return 100 * statistics.mean(abs(x - 1) for x in ratios)


def write_rows(path, rows):
    """Rows (dicts with the same keys) as a CSV file at `path`."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
