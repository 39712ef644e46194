// `ptxcast dataset ... --cache DIR` end to end, and the schema every source shares: tiny SYNTHETIC
// inputs of each source (made-up times, real layouts); runs with a cold cache, a warm cache and no
// cache give the same bytes, the cache holds one file per distinct analysis and is really read
// back (a swapped entry changes the row; a corrupt, truncated, altered or stale one is analysed
// again, with a note, and rewritten; one of format 3, before int8 tensor MACs, is read as it is).
#include "RunPtxcast.h"

#include "support/Checksum.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using clitest::readAll;
using clitest::runPtxcast;
using clitest::RunResult;
using clitest::TempDir;
using clitest::writeFile;

/// The analysis cache's files in Dir (AnalysisCache.cpp: KEY.txt), sorted.
std::vector<fs::path> cacheFiles(const std::string &Dir) {
  std::vector<fs::path> Files;
  if (fs::exists(Dir))
    for (const auto &E : fs::directory_iterator(Dir))
      if (E.path().extension() == ".txt")
        Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::string firstLine(const std::string &Text) { return Text.substr(0, Text.find('\n')); }

/// A format-4 entry as format 3 wrote it (AnalysisCache.cpp): each line without its last field
/// (tensorMacsInt8), the header's format 3 and the checksum of the new lines.
std::string asFormat3(const std::string &Entry) {
  std::istringstream In(Entry);
  std::string Header, Magic, Format, Launches, Counting, Body;
  std::getline(In, Header);
  std::istringstream(Header) >> Magic >> Format >> Launches >> Counting;
  REQUIRE(Format == "4");
  for (std::string Line; std::getline(In, Line);)
    Body += Line.substr(0, Line.rfind(' ')) + '\n';
  return Magic + " 3 " + Launches + " " + Counting + " " + support::checksumHex(Body) + "\n" +
         Body;
}

/// Runs `ptxcast dataset SOURCE INPUTS -o Dir/NAME.csv` with any extra flags; returns the output.
std::string dataset(const TempDir &Dir, const std::string &Source, const std::string &Inputs,
                    const std::string &Name, const std::string &Flags = "") {
  RunResult R =
      runPtxcast("dataset " + Source + " " + Inputs + " " + Flags + " -o " + (Dir / Name));
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return readAll(Dir / Name);
}

const std::string NeusightHeader = "op,latency_ms,device,kernel_name,b,h\n";

} // namespace

TEST_CASE("dataset --cache: same bytes cold, warm and without, one file per distinct analysis") {
  TempDir Dir("dataset_cache_neusight");
  // Synthetic rows, for mechanics: two shapes, one of them on two GPUs.
  writeFile(Dir / "in.csv", NeusightHeader + "relu,0.01,Tesla T4,r,4,64\n"
                                             "relu,0.01,Tesla P4,r,4,64\n"
                                             "softmax,0.02,Tesla T4,s,8,100\n");
  const std::string In = Dir / "in.csv", Cache = "--cache " + (Dir / "cache");
  std::string Plain = dataset(Dir, "neusight", In, "plain.csv");
  std::string Cold = dataset(Dir, "neusight", In, "cold.csv", Cache);
  std::vector<fs::path> Files = cacheFiles(Dir / "cache");
  REQUIRE(Files.size() == 2);
  for (const fs::path &F : Files)
    CHECK(readAll(F).rfind("ptxcast-analysis-cache ", 0) == 0);
  std::string Warm = dataset(Dir, "neusight", In, "warm.csv", Cache);
  CHECK(!Plain.empty());
  CHECK(Cold == Plain);
  CHECK(Warm == Plain);
  CHECK(cacheFiles(Dir / "cache") == Files);
}

TEST_CASE("dataset --cache: entries are read back, a corrupt one is analysed again") {
  TempDir Dir("dataset_cache_reads");
  // Synthetic rows, for mechanics: two relu shapes of one launch each, cached apart.
  writeFile(Dir / "small.csv", NeusightHeader + "relu,0.01,Tesla T4,r,4,64\n");
  writeFile(Dir / "large.csv", NeusightHeader + "relu,0.2,Tesla T4,r,512,1024\n");
  const std::string Small = "--cache " + (Dir / "small"), Large = "--cache " + (Dir / "large");
  std::string Plain = dataset(Dir, "neusight", Dir / "small.csv", "plain.csv", Small);
  dataset(Dir, "neusight", Dir / "large.csv", "large.csv", Large);
  std::vector<fs::path> SmallFiles = cacheFiles(Dir / "small"),
                        LargeFiles = cacheFiles(Dir / "large");
  REQUIRE(SmallFiles.size() == 1);
  REQUIRE(LargeFiles.size() == 1);
  const std::string Entry = readAll(SmallFiles[0]);

  // The large shape's counts under the small shape's key: the row now describes them.
  writeFile(SmallFiles[0], readAll(LargeFiles[0]));
  CHECK(dataset(Dir, "neusight", Dir / "small.csv", "swapped.csv", Small) != Plain);

  // An unreadable entry is a miss: analysed again, the same row, the entry written anew.
  writeFile(SmallFiles[0], "ptxcast-analysis-cache garbage\n");
  CHECK(dataset(Dir, "neusight", Dir / "small.csv", "again.csv", Small) == Plain);
  CHECK(readAll(SmallFiles[0]) == Entry);
}

TEST_CASE("dataset --cache: a truncated, altered or stale entry is analysed again, with a note") {
  TempDir Dir("dataset_cache_damaged");
  // Synthetic rows, for mechanics: one relu shape, one cached analysis.
  writeFile(Dir / "in.csv", NeusightHeader + "relu,0.01,Tesla T4,r,4,64\n");
  const std::string Flags = "--cache " + (Dir / "cache");
  const std::string Plain = dataset(Dir, "neusight", Dir / "in.csv", "plain.csv", Flags);
  std::vector<fs::path> Files = cacheFiles(Dir / "cache");
  REQUIRE(Files.size() == 1);
  const std::string Entry = readAll(Files[0]);
  REQUIRE(Entry.size() > 120);
  std::string Altered = Entry;
  Altered[Altered.size() - 3] = Altered[Altered.size() - 3] == '1' ? '2' : '1'; // one digit
  std::string Stale = Entry;
  Stale.replace(0, firstLine(Entry).size(), "ptxcast-analysis-cache 2 1"); // an older format
  for (const std::string &Damaged : {Entry.substr(0, 100), Altered, Stale}) {
    writeFile(Files[0], Damaged);
    RunResult R = runPtxcast("dataset neusight " + (Dir / "in.csv") + " " + Flags + " -o " +
                             (Dir / "again.csv"));
    REQUIRE_MESSAGE(R.status == 0, R.err);
    CHECK(readAll(Dir / "again.csv") == Plain);
    CHECK(R.err.find("ptxcast: note: analysis cache entry " + Files[0].string() +
                     " is not used (") != std::string::npos);
    CHECK(readAll(Files[0]) == Entry); // rewritten whole
  }
}

TEST_CASE("dataset: every source writes one header, and --cache re-runs are byte-identical") {
  TempDir Dir("dataset_cache_sources");
  // Synthetic rows, for mechanics, in each source's layout.
  writeFile(Dir / "neusight.csv", NeusightHeader + "relu,0.01,Tesla T4,r,4,64\n");
  const std::string Timm = Dir / "benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv";
  writeFile(Timm, "model,infer_img_size,infer_step_time,infer_batch_size\n"
                  "mobilenetv2_035,32,1.5,1\n");
  writeFile(Dir / "kernels.csv",
            "network,batch,dtype,arch,sms_requested,run,sms_used,scope,launch_index,kernel,"
            "median_ms\n"
            "lenet5,1,f32,sm_90,all,run1,132,launch,0,"
            "conv_direct_n1_c1x6_h32w32_k5_s1_p0_f32_bias_tanh,0.004\n"
            "lenet5,1,f32,sm_90,16,run1,16,launch,0,"
            "conv_direct_n1_c1x6_h32w32_k5_s1_p0_f32_bias_tanh,0.005\n");
  writeFile(Dir / "frameworks.csv", "model,batch,dtype,image_size,mode,median_ms,status,device\n"
                                    "mobilenet_v2,1,fp16,224,graph,0.4,ok,NVIDIA H100 80GB HBM3\n");
  struct Source {
    std::string name, inputs, flags;
  } Sources[] = {
      {"neusight", Dir / "neusight.csv", ""},
      {"timm", Timm, ""},
      {"kernels", Dir / "kernels.csv", ""},
      {"frameworks", Dir / "frameworks.csv",
       "--onnx-dir " + std::string(PTXCAST_SOURCE_DIR) + "/corpus/data/measured/h100/onnx"},
  };
  std::string Header;
  for (const Source &S : Sources) {
    CAPTURE(S.name);
    const std::string Cache = " --cache " + (Dir / (S.name + "-cache"));
    std::string Cold = dataset(Dir, S.name, S.inputs, S.name + "-cold.csv", S.flags + Cache);
    CHECK(cacheFiles(Dir / (S.name + "-cache")).size() == 1);
    CHECK(dataset(Dir, S.name, S.inputs, S.name + "-warm.csv", S.flags + Cache) == Cold);
    // Files of every source concatenate: the same header line, ids first, the target last.
    if (Header.empty())
      Header = firstLine(Cold);
    CHECK(firstLine(Cold) == Header);
    CHECK(Header.rfind("source,gpu,sms,runtime,math,dtype,workload,config,note,", 0) == 0);
    CHECK(Header.ends_with(",bound_ms,overhead_ms,measured_ms"));
  }
  // Without the cache, the kernels rows are the same bytes too.
  CHECK(dataset(Dir, "kernels", Dir / "kernels.csv", "kernels-plain.csv") ==
        readAll(Dir / "kernels-cold.csv"));
}

TEST_CASE("dataset --cache: a format-3 entry (before int8 tensor MACs) is read, not redone") {
  TempDir Dir("dataset_cache_format3");
  // Synthetic rows, for mechanics: two relu shapes of one launch each, cached apart.
  writeFile(Dir / "small.csv", NeusightHeader + "relu,0.01,Tesla T4,r,4,64\n");
  writeFile(Dir / "large.csv", NeusightHeader + "relu,0.2,Tesla T4,r,512,1024\n");
  const std::string Small = "--cache " + (Dir / "small"), Large = "--cache " + (Dir / "large");
  const std::string Plain = dataset(Dir, "neusight", Dir / "small.csv", "plain.csv", Small);
  dataset(Dir, "neusight", Dir / "large.csv", "large.csv", Large);
  std::vector<fs::path> SmallFiles = cacheFiles(Dir / "small"),
                        LargeFiles = cacheFiles(Dir / "large");
  REQUIRE(SmallFiles.size() == 1);
  REQUIRE(LargeFiles.size() == 1);
  const std::string Own = asFormat3(readAll(SmallFiles[0]));
  const std::string Swapped = asFormat3(readAll(LargeFiles[0]));

  // The entry's own counts in format 3: the same row, no note, the entry left as it was.
  // The large shape's counts in format 3 under the small key: the row describes them (read).
  for (bool Same : {true, false}) {
    const std::string &Entry = Same ? Own : Swapped;
    writeFile(SmallFiles[0], Entry);
    RunResult R = runPtxcast("dataset neusight " + (Dir / "small.csv") + " " + Small + " -o " +
                             (Dir / "again.csv"));
    REQUIRE_MESSAGE(R.status == 0, R.err);
    CHECK((readAll(Dir / "again.csv") == Plain) == Same);
    CHECK(R.err.find("analysis cache entry") == std::string::npos);
    CHECK(readAll(SmallFiles[0]) == Entry);
  }
}
