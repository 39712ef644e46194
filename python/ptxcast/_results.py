"""Result objects over the JSON documents of `ptxcast predict|compare --format json`: every field
of the document is an attribute of the same name; tables are pandas DataFrames where pandas is
installed, else lists of dicts."""

import json
import os

from . import _core


def table(rows):
    """A pandas DataFrame of the rows (dicts) where pandas is installed, else the list itself."""
    try:
        import pandas
    except ImportError:
        return list(rows)
    return pandas.DataFrame(list(rows))


class Prediction:
    """One network on one GPU: the fields of `ptxcast predict --format json` (time_ms,
    interval_ms, gpu_ms, host_ms, bound_ms, images_per_s, warnings, ...) as attributes, with
    `breakdown` as a table (kind, launches, time_ms, share)."""

    def __init__(self, document):
        self.json = document  # the document as parsed, in the command's field order
        for key, value in document.items():
            setattr(self, key, value)
        self.breakdown = table(document["breakdown"])

    def __repr__(self):
        band = ""
        if self.interval_ms:
            band = f", band {self.interval_ms[0]:.4g}..{self.interval_ms[1]:.4g} ms"
        return (f"<Prediction {self.network} batch {self.batch} {self.dtype} on {self.gpu}: "
                f"{self.time_ms:.4g} ms{band}>")


class Comparison:
    """Every model x GPU x batch of `ptxcast compare --format json`: `rows` (one dict per pair,
    the document's `results`), `table` (the same as a DataFrame where pandas is installed),
    `plot()` (the heat map), and the document's other fields (model, runtime, dtype, budget_ms,
    target_ips, max_batch, analyses, left_out, left_out_why) as attributes."""

    def __init__(self, document):
        self.json = document
        for key, value in document.items():
            if key != "results":
                setattr(self, key, value)
        self.rows = document["results"]
        self.table = table(self.rows)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __repr__(self):
        return f"<Comparison of {len(self.rows)} predictions>"

    def matrix(self):
        """(row labels, GPU names, times in ms): one row per model (and batch when several)."""
        gpus = list(dict.fromkeys(r["gpu"] for r in self.rows))
        several = len({r["batch"] for r in self.rows}) > 1
        labels, values = [], {}
        for r in self.rows:
            label = f"{r['model']} (batch {r['batch']})" if several else r["model"]
            if label not in values:
                labels.append(label)
                values[label] = {}
            values[label][r["gpu"]] = r["time_ms"]
        return labels, gpus, [[values[l].get(g) for g in gpus] for l in labels]

    def plot(self, value=None):
        """The heat map `ptxcast compare --plot` draws, the same SVG (pipeline/HeatMap.h): a
        Plot, shown inline in a notebook, written by .save("FILE.svg" or "FILE.png"). value:
        "time" (ms per batch), "images-per-s" or "images-per-s-per-w" (`--plot-value`; default
        time, or images-per-s with a target_ips or max_batch)."""
        if value is None:
            value = "images-per-s" if self.target_ips or self.max_batch else "time"
        return Plot(_core.heatmap_svg(json.dumps(self.json), value))


class Plot:
    """A heat map as SVG text (`.svg`); Jupyter shows it inline (`_repr_svg_`); `.save(path)`
    writes FILE.svg, or FILE.png through rsvg-convert, as `ptxcast compare --plot` does."""

    def __init__(self, svg):
        self.svg = svg

    def _repr_svg_(self):
        return self.svg

    def save(self, path):
        """Writes the plot to path (FILE.svg or FILE.png) and returns path."""
        _core.write_plot(self.svg, os.fspath(path))
        return path

    def __repr__(self):
        return f"<Plot: {len(self.svg)} bytes of SVG; .save('FILE.png') writes it>"
