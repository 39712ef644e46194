// The documents of the two catalogs (Documents.h): the GPU catalog (`ptxcast gpus`: every field,
// the source note of each figure, the per-SM limits of its architecture; docs/gpu-catalog.md)
// and the model zoo (`ptxcast zoo`: parameters and MACs, or one network's layers).
#include "pipeline/Documents.h"
#include "pipeline/GpuSelection.h"

#include "corpus/Zoo.h"
#include "hardware/GpuCatalog.h"

#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

/// A figure as JSON: whole numbers without a fraction (132, not 132.0).
OJson number(double V) {
  return V == std::floor(V) && std::fabs(V) < 1e15 ? OJson(int64_t(V)) : OJson(V);
}

OJson archJson(const hardware::ArchLimits &A) {
  OJson J = {{"compute_capability", A.computeCapability}};
  for (const auto &[Key, Value] : hardware::catalogFields(A))
    J[Key] = number(Value);
  J["int32_shares_fp32"] = A.int32SharesFp32;
  J["dual_issue"] = A.dualIssue;
  J["process"] = A.process;
  J["source"] = A.source;
  return J;
}

OJson gpuJson(const hardware::GpuSpec &G) {
  OJson J = {{"name", G.name},
             {"full_name", G.fullName},
             {"aliases", G.aliases},
             {"architecture", G.architecture},
             {"form_factor", G.formFactor},
             {"memory_type", G.memoryType},
             {"compute_capability", G.limits.computeCapability}};
  for (const auto &[Key, Value] : hardware::catalogFields(G))
    J[Key] = number(Value);
  OJson Sources = OJson::object();
  for (const auto &[Keys, Note] : G.sources)
    Sources[Keys] = Note;
  J["sources"] = Sources;
  // What the power model (hardware/Power.h) reads besides the figures above: the catalog's
  // processes, memory_types and boost_headroom tables give each its source.
  J["energy"] = {{"process", G.limits.process},
                 {"process_relative_energy", G.limits.relativeEnergy},
                 {"memory_pj_per_bit", G.memoryPjPerBit},
                 {"max_clock_mhz", number(G.maxClockMhz)}}; // GPU Boost's top clock
  J["host"] = {{"name", G.host.name},
               {"cpu", G.host.cpu},
               {"relative_speed", G.host.relativeSpeed},
               {"speed_basis", G.host.speedFromPyTorch ? "pytorch" : "estimate"},
               {"source", G.host.source}};
  J["limits"] = archJson(G.limits);
  return J;
}

OJson modelJson(const corpus::Network &N) {
  const corpus::Shape &In = N.layer(N.inputs().front()).shape;
  return {{"name", N.name()},
          {"input", corpus::Shape(In.begin() + 1, In.end())},
          {"params", N.params()},
          {"macs", N.macs()},
          {"layers", N.computeLayerCount()}};
}

} // namespace

support::Expected<OJson> gpusDocument(const std::vector<std::string> &Names) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  auto Gpus = selectGpus(*Catalog, Names);
  if (!Gpus)
    return Gpus.error();
  OJson List = OJson::array(), Archs = OJson::array();
  std::set<std::string> Seen;
  for (const hardware::GpuSpec &G : *Gpus)
    List.push_back(gpuJson(G));
  for (const hardware::ArchLimits &A : Catalog->architectures())
    for (const hardware::GpuSpec &G : *Gpus)
      if (G.limits.computeCapability == A.computeCapability && Seen.insert(A.computeCapability).second)
        Archs.push_back(archJson(A));
  return OJson{{"gpus", List}, {"architectures", Archs}};
}

support::Expected<OJson> zooDocument() {
  OJson Models = OJson::array();
  for (const corpus::ZooModel &M : corpus::zooModels()) {
    auto N = corpus::buildZooModel(M.name);
    if (!N)
      return N.error();
    Models.push_back(modelJson(*N));
  }
  return OJson{{"models", Models}};
}

std::string layerDetail(const corpus::Layer &L) {
  if (auto *A = std::get_if<corpus::ActivationAttrs>(&L.attrs)) // "relu", "elu 0.5"
    return fmt::format("{}{}", corpus::actKindName(A->kind),
                       corpus::actKindTakesAlpha(A->kind) ? fmt::format(" {:g}", A->alpha) : "");
  if (auto *C = std::get_if<corpus::ConvAttrs>(&L.attrs))
    return fmt::format("{}x{}/{}{}", C->kernelH, C->kernelW, C->strideH,
                       C->groups > 1 ? fmt::format(" g{}", C->groups) : "");
  if (auto *P = std::get_if<corpus::PoolAttrs>(&L.attrs)) // "3x3/2", an LRN's window "5x1/1"
    return fmt::format("{}x{}/{}", P->kernelH, P->kernelW, P->strideH);
  if (auto *U = std::get_if<corpus::UpsampleAttrs>(&L.attrs)) { // "x2x2"; bilinear "x2x2 lin-ac"
    const char *Mode = !U->linear                                        ? ""
                       : U->coords == corpus::ResizeCoords::AlignCorners ? " lin-ac"
                       : U->coords == corpus::ResizeCoords::Asymmetric   ? " lin-as"
                                                                         : " lin";
    return fmt::format("x{}x{}{}", U->scaleH, U->scaleW, Mode);
  }
  if (auto *E = std::get_if<corpus::EltwiseAttrs>(&L.attrs); E && E->scalar) // pow "0.75"
    return fmt::format("{:g}", *E->scalar);
  if (auto *R = std::get_if<corpus::ReduceAttrs>(&L.attrs)) // "max axis 1", "l2 axes 2-3"
    return R->last - R->first == 1
               ? fmt::format("{} axis {}", corpus::reduceOpName(R->op), R->first)
               : fmt::format("{} axes {}-{}", corpus::reduceOpName(R->op), R->first, R->last - 1);
  return "";
}

OJson networkDocument(const corpus::Network &N) {
  OJson Layers = OJson::array();
  for (const corpus::Layer &L : N.layers())
    Layers.push_back({{"name", L.name},
                      {"kind", corpus::layerKindName(L.kind)},
                      {"detail", layerDetail(L)},
                      {"inputs", L.inputs},
                      {"shape", L.shape},
                      {"params", L.params},
                      {"macs", L.macs}});
  OJson J = modelJson(N);
  J["layers"] = Layers;
  return J;
}

} // namespace pipeline
