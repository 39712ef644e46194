"""The exception every ptxcast function raises for bad input, with the command line's message."""


class Error(RuntimeError):
    """A ptxcast error: the text is what `ptxcast` prints on stderr for the same input."""
