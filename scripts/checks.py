"""What the accuracy checks share (scripts/engine-check.py, scripts/compile-check.py): the error
of a list of ratios predicted / measured, and every row with its prediction as CSV."""
import csv
import statistics


def mape(ratios):
    """Mean absolute percentage error of predicted / measured ratios, in %."""
    return 100 * statistics.mean(abs(x - 1) for x in ratios)


def write_rows(path, rows):
    """Rows (dicts with the same keys) as a CSV file at `path`."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
