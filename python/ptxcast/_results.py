"""Result objects over the JSON documents of `ptxcast predict|compare --format json`: every field
of the document is an attribute of the same name; tables are pandas DataFrames where pandas is
installed, else lists of dicts."""


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
    `plot()` (the heat map), and the document's other fields (model, runtime, dtype, budget_ms)
    as attributes."""

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

    def plot(self, ax=None):
        """The heat map of predicted ms per batch (log colour scale; cells over the budget are
        marked), as `ptxcast compare --plot` draws it; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm

        labels, gpus, values = self.matrix()
        if ax is None:
            _, ax = plt.subplots(figsize=(1.2 + 1.1 * len(gpus), 0.8 + 0.45 * len(labels)))
        image = ax.imshow(values, cmap="viridis_r", norm=LogNorm(), aspect="auto")
        ax.set_xticks(range(len(gpus)), gpus, rotation=30, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        for i, row in enumerate(values):
            for j, ms in enumerate(row):
                over = self.budget_ms is not None and ms > self.budget_ms
                ax.text(j, i, f"{ms:.3g}" + (" ✗" if over else ""), ha="center", va="center",
                        color="white" if over else "black", fontsize=8)
        title = "Predicted time per batch (ms)"
        if self.budget_ms is not None:
            title += f", budget {self.budget_ms:g} ms"
        ax.set_title(title)
        ax.figure.colorbar(image, ax=ax, label="ms")
        return ax
