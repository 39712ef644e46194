"""Shared by the Python tests: the built CLI (PTXCAST_BIN, set by CTest) run on the same input."""

import json
import os
import subprocess
import tempfile
import unittest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def ptxcast_bin():
    path = os.environ.get("PTXCAST_BIN")
    if not path:
        raise unittest.SkipTest("PTXCAST_BIN is not set (CTest sets it)")
    return path


def cli(*args):
    """(exit status, stdout, stderr) of the ptxcast binary."""
    done = subprocess.run([ptxcast_bin(), *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def cli_json(*args):
    status, out, err = cli(*args, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def cli_error(*args):
    """The first line the CLI prints on stderr for a failing command."""
    status, _, err = cli(*args)
    assert status != 0, "the command succeeded"
    return err.strip().splitlines()[0]


def scratch():
    return tempfile.TemporaryDirectory(prefix="ptxcast-pytest-")
