"""`python3 -m ptxcast ARGS`: the ptxcast command line, run in this process."""

import sys

from . import _core

sys.exit(_core.main(sys.argv[1:]))
