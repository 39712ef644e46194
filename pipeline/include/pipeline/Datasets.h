// The `ptxcast dataset` sources, behind one settings struct (tools/ptxcast/Dataset.cpp parses the
// command's flags into it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pipeline::dataset {

struct JobResult;

/// What `ptxcast dataset neusight|timm|kernels|frameworks` reads and how.
struct DatasetOptions {
  std::vector<std::string> inputs; ///< source CSV files, read in order
  std::string output;              ///< OUT.csv, replaced atomically
  std::string arch = "sm_90";      ///< lowering target
  std::string gpu;                 ///< timm: catalog GPU overriding the file name's;
                                   ///< kernels: the measured GPU (default h100-sxm)
  std::string level = "launch";    ///< kernels: one row per launch, or per network ("network")
  std::string run;                 ///< kernels: only the rows of this run (empty: every run)
  std::string math = "simt";       ///< kernels: the lowering's --math; rows of another are skipped
  std::string kernelSet = "specialised"; ///< kernels: the lowering's --kernels, likewise
  unsigned threads = 0;            ///< 0 = all cores
  std::string mode = "graph";      ///< frameworks: the timing mode to take (graph or eager)
  std::string onnxDir;             ///< frameworks: folder of MODEL.onnx (default: onnx/ beside
                                   ///< each CSV); timm: torchvision graphs (default: none)
  size_t limit = 0;                ///< 0 = every row; else the first N rows of each file
                                   ///< (timm: rows of known models)
  std::string cacheDir;            ///< on-disk analysis cache (--cache), empty = none
  std::string shard;               ///< --shard K/N: analyse slice K of N only and write it to
                                   ///< `output` as a shard file (DatasetShard.h); empty = all
  const std::vector<JobResult> *merged = nullptr; ///< `dataset merge`: every job's result
};

/// `ptxcast dataset neusight`: exit status 0 on success, errors printed on stderr.
int runNeusight(const DatasetOptions &O);
/// `ptxcast dataset timm`.
int runTimm(const DatasetOptions &O);
/// `ptxcast dataset kernels`: ptxcast's own kernels timed with ptxcast-measure (kernels.csv).
int runKernels(const DatasetOptions &O);
/// `ptxcast dataset frameworks`.
int runFrameworks(const DatasetOptions &O);

/// `ptxcast dataset merge SHARD... -o OUT.csv`: the dataset the shards' command makes unsharded,
/// byte for byte, from the analyses in the shard files (DatasetShard.h).
int runMerge(const std::vector<std::string> &Shards, const std::string &Output, unsigned Threads);

} // namespace pipeline::dataset
