"""Progress bars for long work: tqdm (python3-tqdm) where installed, else a plain line, and only
where someone watches: stderr on a terminal, or a Jupyter notebook."""

import sys


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def interactive():
    """True when a progress bar would be seen."""
    return _in_notebook() or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


class Progress:
    """A callback (done, total) that draws a bar; a context manager that closes it.

    `enabled=None` draws only when interactive(); False never; True always."""

    def __init__(self, desc, unit, enabled=None):
        self._desc, self._unit = desc, unit
        self._enabled = interactive() if enabled is None else bool(enabled)
        self._bar = None

    @property
    def callback(self):
        return self if self._enabled else None

    def __call__(self, done, total):
        if self._bar is None:
            self._bar = self._open(total)
        self._bar.update(done - self._bar.n)

    def _open(self, total):
        total = total or None  # 0: not known in advance (a max-batch search)
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return _Line(self._desc, self._unit, total)
        return tqdm(total=total, desc=self._desc, unit=self._unit, leave=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.close()
        return False


class _Line:
    """The bar without tqdm: one rewritten line on stderr."""

    def __init__(self, desc, unit, total):
        self.n, self._total = 0, total
        self._label = f"{desc}: {{}}/{total} {unit}" if total else f"{desc}: {{}} {unit}"

    def update(self, step):
        self.n += step
        sys.stderr.write("\r" + self._label.format(self.n))
        sys.stderr.flush()

    def close(self):
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
