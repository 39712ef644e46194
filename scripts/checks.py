"""What the accuracy checks share (scripts/engine-check.py, scripts/compile-check.py,
scripts/eager-check.py): their common options, the error of a list of ratios predicted /
measured, and every row with its prediction as CSV."""
import argparse
import csv
import statistics


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


def mape(ratios):
    """Mean absolute percentage error of predicted / measured ratios, in %."""
    return 100 * statistics.mean(abs(x - 1) for x in ratios)


def write_rows(path, rows):
    """Rows (dicts with the same keys) as a CSV file at `path`."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
