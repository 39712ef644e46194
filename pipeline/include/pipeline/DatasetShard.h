// Scale-out of `ptxcast dataset`: `--shard K/N` analyses a deterministic slice of a command's
// distinct analyses and writes them to a shard file; `ptxcast dataset merge` turns the N shard
// files back into the dataset the unsharded command writes, byte for byte (docs/datasets.md).
//
// Jobs (distinct analyses) are numbered in the order the command meets them in its sources; job
// J belongs to shard J mod N + 1, so every shard gets a spread of the sources' workloads. A shard
// file is JSON: the command and the flags that decide its rows, K/N, the number of jobs, and per
// job of the slice its analysis or skip reason. Merge reads the sources again with those flags
// and takes each job's result from its shard instead of analysing it.
#pragma once

#include "pipeline/Datasets.h"
#include "pipeline/DatasetCommon.h"

#include "support/Expected.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipeline::dataset {

/// Slice `index` (1-based) of `count`.
struct ShardSpec {
  size_t index = 1;
  size_t count = 1;
  bool contains(size_t Job) const { return Job % count == index - 1; }
};

/// Parses "K/N" (1 <= K <= N); the error says what was expected (without the flag's name).
support::Expected<ShardSpec> parseShard(std::string_view Text);

/// The results of a command's jobs: run here (all of them, or with O.shard the shard's slice,
/// written to O.output), or taken from O.merged. `done` is set when the command must stop with
/// that exit status: the shard file is written, or something failed (printed on stderr).
/// With O.cacheDir the jobs read and fill that analysis cache (S.cache is set here).
struct JobOutcome {
  std::vector<JobResult> results;
  std::optional<int> done;
};
JobOutcome runOrShardJobs(std::string_view Command, const DatasetOptions &O,
                          const std::vector<NetworkFactory> &Jobs, const JobSettings &S);

} // namespace pipeline::dataset
