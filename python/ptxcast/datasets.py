"""`ptxcast dataset` on a Dask cluster: the distinct analyses split into shards
(`ptxcast dataset CMD ... --shard K/N`), one task per shard, then merged on the client
(`ptxcast dataset merge`) into the dataset the one-process command writes, byte for byte.

    from distributed import Client, LocalCluster
    import ptxcast.datasets
    with Client(LocalCluster(n_workers=2, threads_per_worker=1)) as client:
        ptxcast.datasets.build(["neusight/add/t4.csv"], "out.csv", client=client)

Any Dask cluster works (dask-jobqueue for Slurm, dask-kubernetes); its workers need this
package importable and the source files readable at the paths the client gives."""

import os
import subprocess
import sys
import tempfile
import time

from ._errors import Error

COMMANDS = ("neusight", "timm", "kernels", "frameworks")


def _flags(options):
    """Command-line flags of keyword options: limit=20 -> ["--limit", "20"]."""
    flags = []
    for key, value in sorted(options.items()):
        if value is not None:
            flags += ["--" + key.replace("_", "-"), str(value)]
    return flags


def _ptxcast(args):
    """Runs `python3 -m ptxcast ARGS` with this package; raises Error with its stderr."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-m", "ptxcast", *args], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise Error(done.stderr.strip() or f"ptxcast {' '.join(args)}: exit status "
                    f"{done.returncode}")
    return done.stderr


def run_shard(command, sources, shard, shards, flags):
    """One Dask task: shard K of N of the command; returns the shard file's bytes."""
    with tempfile.TemporaryDirectory(prefix="ptxcast-shard-") as work:
        path = os.path.join(work, f"shard-{shard}.json")
        _ptxcast(["dataset", command, *sources, *flags, "--shard", f"{shard}/{shards}",
                  "-o", path])
        with open(path, "rb") as f:
            return f.read()


def merge(shard_files, output):
    """`ptxcast dataset merge SHARDS... -o OUTPUT`; returns the command's summary (stderr)."""
    return _ptxcast(["dataset", "merge", *map(os.fspath, shard_files), "-o", os.fspath(output)])


def build(sources, output, *, command="neusight", client=None, shards=None, threads=None,
          **options):
    """Builds the dataset of `ptxcast dataset COMMAND SOURCES... [--OPTION VALUE] -o OUTPUT`.

    With a Dask `client`, the distinct analyses go to `shards` tasks (default: one per worker
    thread), each analysing on `threads` threads (default 1); the shard files come back to the
    client and are merged there. Without one, the command runs here (default: on every core).
    Options are the command's flags (limit=20, arch="sm_90", gpu=..., level=..., mode=...,
    onnx_dir=..., cache=...). Returns a dict: output, shards, seconds."""
    if command not in COMMANDS:
        raise Error(f"unknown dataset command '{command}' (valid: {', '.join(COMMANDS)})")
    sources = [os.path.abspath(os.fspath(s)) for s in sources]
    if threads is None:
        threads = 0 if client is None else 1
    flags = _flags(dict(options, threads=threads))
    start = time.monotonic()
    if client is None:
        _ptxcast(["dataset", command, *sources, *flags, "-o", os.fspath(output)])
        return {"output": os.fspath(output), "shards": 1, "seconds": time.monotonic() - start}
    if shards is None:
        shards = max(1, sum(client.nthreads().values()))
    futures = client.map(run_shard, [command] * shards, [sources] * shards,
                         range(1, shards + 1), [shards] * shards, [flags] * shards, pure=False)
    with tempfile.TemporaryDirectory(prefix="ptxcast-merge-") as work:
        paths = []
        for k, data in enumerate(client.gather(futures), 1):
            paths.append(os.path.join(work, f"shard-{k}.json"))
            with open(paths[-1], "wb") as f:
                f.write(data)
        merge(paths, output)
    return {"output": os.fspath(output), "shards": shards, "seconds": time.monotonic() - start}
