"""`python3 -m ptxcast ARGS`: the ptxcast command line. The build puts the `ptxcast` executable
in this package (bin/ptxcast); it replaces this process, so output and exit status are its own."""

import os
import sys

_TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "ptxcast")

if not os.access(_TOOL, os.X_OK):
    sys.exit(f"ptxcast: error: the command line is not in the package ({_TOOL}); build the "
             "`ptxcast` target")
sys.stdout.flush()
sys.stderr.flush()
os.execv(_TOOL, ["ptxcast", *sys.argv[1:]])
