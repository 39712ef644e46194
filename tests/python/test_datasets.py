"""`ptxcast dataset --shard K/N` and `dataset merge`, and ptxcast.datasets.build on a Dask
LocalCluster with 2 workers: the merged dataset is byte-identical to the one-process command.
The sources are the first 12 rows of four NeuSight files (data/neusight/README.md): (b, h)
operators, cheap to analyse, with enough rows per GPU and operator for the call-overhead
estimate, which reads rows of every shard."""

import glob
import os
import unittest

import ptxcast.datasets
from support import DATA, cli, cli_error, scratch

SOURCES = sorted(glob.glob(os.path.join(DATA, "neusight", "*", "*.csv")))


def read(path):
    with open(path, "rb") as f:
        return f.read()


class ShardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch()
        cls.whole = os.path.join(cls.work.name, "whole.csv")
        status, _, err = cli("dataset", "neusight", *SOURCES, "--threads", "2", "-o", cls.whole)
        assert status == 0, err

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def shard(self, k, n):
        path = os.path.join(self.work.name, f"shard-{k}-of-{n}.json")
        status, _, err = cli("dataset", "neusight", *SOURCES, "--shard", f"{k}/{n}",
                             "--threads", "2", "-o", path)
        self.assertEqual(status, 0, err)
        return path

    def test_merged_shards_equal_the_whole_run_in_any_order(self):
        shards = [self.shard(k, 3) for k in (1, 2, 3)]
        out = os.path.join(self.work.name, "merged.csv")
        status, _, err = cli("dataset", "merge", shards[2], shards[0], shards[1], "-o", out)
        self.assertEqual(status, 0, err)
        self.assertEqual(read(out), read(self.whole))
        self.assertGreater(read(out).count(b"\n"), 40)

    def test_a_merge_keeps_pytorchs_passes(self):
        # A PyTorch source's rows depend on what PyTorch runs around the layers (bias adds,
        # casts), which a shard must carry: merged, the rows equal the one-process run's.
        measured = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "corpus", "data", "measured", "h100", "frameworks.csv")
        args = ("dataset", "frameworks", measured, "--limit", "2", "--threads", "2")
        whole = os.path.join(self.work.name, "frameworks-whole.csv")
        shard = os.path.join(self.work.name, "frameworks-shard.json")
        merged = os.path.join(self.work.name, "frameworks-merged.csv")
        for extra in (("-o", whole), ("--shard", "1/1", "-o", shard)):
            status, _, err = cli(*args, *extra)
            self.assertEqual(status, 0, err)
        status, _, err = cli("dataset", "merge", shard, "-o", merged)
        self.assertEqual(status, 0, err)
        self.assertEqual(read(merged), read(whole))

    def test_bad_shard_and_incomplete_merges_are_errors(self):
        out = os.path.join(self.work.name, "bad.csv")
        for text in ("0/3", "4/3", "x", "1/0", "2"):
            self.assertIn(f"expected K/N with 1 <= K <= N (e.g. 2/8), got '{text}'",
                          cli_error("dataset", "neusight", SOURCES[0], "--shard", text,
                                    "-o", out))
        one, two = self.shard(1, 2), self.shard(2, 2)
        self.assertEqual(cli_error("dataset", "merge", one, "-o", out),
                         "dataset merge: error: shard 2/2 is missing")
        self.assertIn("shard 1/2 is also", cli_error("dataset", "merge", one, one, two,
                                                     "-o", out))
        other = self.shard(1, 3)
        self.assertIn("shard of another run", cli_error("dataset", "merge", one, other,
                                                        "-o", out))
        self.assertFalse(os.path.exists(out))


class DaskTest(unittest.TestCase):
    def test_two_workers_build_the_bytes_of_one_process(self):
        from distributed import Client, LocalCluster

        with scratch() as work:
            whole, merged = os.path.join(work, "whole.csv"), os.path.join(work, "dask.csv")
            ptxcast.datasets.build(SOURCES, whole, threads=2)
            with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as lc, \
                    Client(lc) as client:
                report = ptxcast.datasets.build(SOURCES, merged, client=client)
            self.assertEqual(report["shards"], 2)
            self.assertEqual(read(merged), read(whole))


if __name__ == "__main__":
    unittest.main()
