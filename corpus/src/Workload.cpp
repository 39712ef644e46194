// Workload serialisation: the launch manifest, per-launch metadata and the atomic directory write.
#include "corpus/Workload.h"

#include "corpus/KernelGen.h"
#include "corpus/Network.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace corpus {

namespace fs = std::filesystem;

std::vector<std::string> ptxFileNames(const Workload &W) {
  std::vector<std::string> Names;
  for (size_t I = 0; I < W.ptx.size(); ++I)
    Names.push_back(W.ptx.size() == 1 ? std::string("kernels.ptx")
                                      : "kernels_" + std::to_string(I) + ".ptx");
  return Names;
}

const std::string &outputBuffer(const WorkloadLaunch &L) {
  auto It = std::find_if(L.args.rbegin(), L.args.rend(),
                         [](const WorkloadArg &A) { return !A.buffer.empty(); });
  assert(It != L.args.rend() && "a launch without buffers");
  return It->buffer;
}

namespace {

/// The manifest's random-fill type of elements of T (docs/manifest.md).
const char *randomType(DType T) { return T == DType::F16 ? "f16" : T == DType::I8 ? "s8" : "f32"; }

} // namespace

std::string manifestJson(const Workload &W) {
  using nlohmann::ordered_json;
  ordered_json Buffers = ordered_json::array();
  for (const WorkloadBuffer &B : W.buffers) {
    ordered_json J = {{"name", B.name}, {"bytes", B.bytes}};
    if (B.random)
      J["init"] = {
          {"random", randomType(B.dtype)}, {"seed", B.seed}, {"min", B.min}, {"max", B.max}};
    else
      J["init"] = "zero";
    if (B.random && B.dtype == DType::I8) { // integer fills take integer bounds
      J["init"]["min"] = int64_t(B.min);
      J["init"]["max"] = int64_t(B.max);
    }
    if (!B.layout.empty())
      J["layout"] = B.layout;
    Buffers.push_back(J);
  }
  ordered_json Launches = ordered_json::array();
  for (const WorkloadLaunch &L : W.launches) {
    ordered_json Args = ordered_json::array();
    for (const WorkloadArg &A : L.args) {
      if (A.buffer.empty()) {
        Args.push_back({{"u32", A.value}});
        continue;
      }
      ordered_json J = {{"buffer", A.buffer}};
      if (A.offset)
        J["offset"] = A.offset;
      Args.push_back(J);
    }
    Launches.push_back({{"kernel", L.kernel},
                        {"grid", L.grid},
                        {"block", L.block},
                        {"shared_bytes", L.sharedBytes},
                        {"args", Args}});
  }
  ordered_json M = {{"ptx", ptxFileNames(W)}, {"buffers", Buffers}, {"launches", Launches}};
  if (W.math != MathMode::Simt) // absent: CUDA-core kernels (manifests from before --math)
    M["math"] = mathModeName(W.math);
  return M.dump(1) + "\n";
}

std::string workloadJson(const Workload &W) {
  using nlohmann::ordered_json;
  ordered_json Launches = ordered_json::array();
  int64_t Macs = 0;
  for (const WorkloadLaunch &L : W.launches) {
    ordered_json J = {{"kernel", L.kernel}, {"strategy", L.strategy}};
    if (L.math != MathMode::Simt)
      J["math"] = mathModeName(L.math);
    if (W.dtype == DType::I8) // an int8 engine's launches are int8 or f16
      J["dtype"] = dtypeString(L.dtype);
    J["layers"] = L.layers;
    J["macs"] = L.macs;
    ordered_json Shapes = ordered_json::object();
    for (const WorkloadArg &A : L.args)
      if (A.buffer.empty())
        Shapes[A.shape] = A.value;
    if (!Shapes.empty())
      J["shape_args"] = Shapes;
    Launches.push_back(J);
    Macs += L.macs;
  }
  uint64_t Bytes = 0;
  for (const WorkloadBuffer &B : W.buffers)
    Bytes += B.bytes;
  ordered_json J = {{"network", W.network},
                    {"arch", W.arch},
                    {"dtype", dtypeString(W.dtype)},
                    {"math", mathModeName(W.math)},
                    {"kernel_set", kernelSetName(W.kernels)},
                    {"kernels", W.kernelCount},
                    {"launches_count", W.launches.size()},
                    {"macs", Macs},
                    {"buffer_bytes", Bytes},
                    {"launches", Launches}};
  return J.dump(1) + "\n";
}

namespace {

support::MaybeError writeFile(const fs::path &P, const std::string &Text) {
  std::ofstream Out(P, std::ios::binary);
  Out << Text;
  Out.close();
  if (!Out)
    return support::Error(P.string(), 0, 0, "cannot write file");
  return std::nullopt;
}

/// Whether P may be deleted to make room for a lowering: absent, or a directory holding only what
/// writeWorkload writes (kernels_N.ptx, manifest.json, workload.json), complete or not.
bool lowerOutputOrAbsent(const fs::path &P) {
  std::error_code EC;
  if (!fs::exists(fs::symlink_status(P, EC)))
    return true;
  if (!fs::is_directory(fs::symlink_status(P, EC)))
    return false;
  for (const fs::directory_entry &E : fs::directory_iterator(P, EC)) {
    const std::string Name = E.path().filename().string();
    const bool Ours = Name == "manifest.json" || Name == "workload.json" ||
                      (Name.starts_with("kernels") && Name.ends_with(".ptx"));
    if (!Ours || !E.is_regular_file(EC))
      return false;
  }
  return !EC;
}

} // namespace

support::MaybeError writeWorkload(const Workload &W, const std::string &Dir) {
  fs::path Target = fs::absolute(fs::path(Dir)).lexically_normal();
  if (Target.filename().empty())
    Target = Target.parent_path();
  fs::path Tmp = Target;
  Tmp += ".partial";
  fs::path Old = Target;
  Old += ".old";
  // Only an earlier lowering is replaced: a directory of anything else, or a file, is the
  // user's, and deleting it to write here would lose it.
  for (const fs::path &P : {Target, Tmp, Old})
    if (!lowerOutputOrAbsent(P))
      return support::Error(
          P.string(), 0, 0,
          "exists and is not the output of an earlier lowering (only kernels*.ptx, "
          "manifest.json and workload.json): refusing to replace it; choose a new "
          "directory or remove it first");
  std::error_code EC;
  fs::remove_all(Tmp, EC);
  if (!fs::create_directories(Tmp, EC) || EC)
    return support::Error(Tmp.string(), 0, 0, "cannot create directory: " + EC.message());
  std::vector<std::string> Names = ptxFileNames(W);
  for (size_t I = 0; I < W.ptx.size(); ++I)
    if (auto E = writeFile(Tmp / Names[I], W.ptx[I]))
      return E;
  if (auto E = writeFile(Tmp / "manifest.json", manifestJson(W)))
    return E;
  if (auto E = writeFile(Tmp / "workload.json", workloadJson(W)))
    return E;
  fs::remove_all(Old, EC);
  bool Existed = fs::exists(Target);
  if (Existed)
    fs::rename(Target, Old, EC);
  if (!EC)
    fs::rename(Tmp, Target, EC);
  if (EC)
    return support::Error(Target.string(), 0, 0, "cannot replace directory: " + EC.message());
  if (Existed)
    fs::remove_all(Old, EC);
  return std::nullopt;
}

} // namespace corpus
