// Bundle choice and per-GPU prediction (Prediction.h); the runtimes themselves are Runtimes.cpp.
#include "pipeline/Prediction.h"

#include "HostTime.h"

#include "hardware/Features.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pipeline {
namespace {

using learners::Predictor;
using OJson = nlohmann::ordered_json;

bool endsWith(const std::string &S, std::string_view Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

} // namespace

support::Expected<Predictor> choosePredictor(const std::string &Model) {
  if (endsWith(Model, ".json"))
    return Predictor::load(Model);
  const std::string Want = Model.empty() ? std::string(DefaultModel) : Model;
  std::vector<std::string> Shipped;
  for (const EmbeddedFile &F : embeddedModels()) {
    auto P = Predictor::fromJson(F.text, "models/" + std::string(F.name));
    if (!P)
      return P.error();
    if (P->info().name == Want)
      return P;
    Shipped.push_back(P->info().name);
  }
  return support::Error(
      fmt::format("unknown model '{}' (shipped: {}); or pass a bundle file "
                  "--model FILE.json",
                  Want, Shipped.empty() ? "none" : fmt::format("{}", fmt::join(Shipped, ", "))));
}

namespace {

/// Appends one row: the group's features, its bound and no overhead (graph time).
void addRow(learners::Dataset &D, const hardware::GroupFeatures &F) {
  std::vector<double> Values;
  for (const auto &[Name, V] : F.features)
    Values.push_back(V);
  Values.push_back(F.boundMs);
  Values.push_back(0);
  D.addRow({}, Values, 0);
}

/// An empty table with the columns of a `ptxcast dataset` file, which the bundle reads by name.
learners::Dataset datasetColumns() {
  learners::Dataset D;
  D.featureNames = hardware::featureNames();
  D.featureNames.push_back(hardware::BoundColumn);
  D.featureNames.push_back("overhead_ms");
  D.targetName = "measured_ms";
  return D;
}

/// Row 0: the whole network; with Launches, row 1 + K: launch K alone (for the breakdown).
learners::Dataset featureTable(const std::vector<hardware::LaunchWork> &Work,
                               const hardware::GpuSpec &Gpu, const hardware::Execution &E,
                               hardware::GroupFeatures &Network, bool Launches) {
  learners::Dataset D = datasetColumns();
  Network = hardware::groupFeatures(Work, Gpu, E);
  addRow(D, Network);
  if (Launches)
    for (const hardware::LaunchWork &W : Work)
      addRow(D, hardware::groupFeatures({&W, 1}, Gpu, E, Network.clock));
  return D;
}

/// Warnings about the GPU, the math mode and a network outside the training ranges.
std::vector<std::string> dataWarnings(const Predictor &P, const hardware::GroupFeatures &Network,
                                      const hardware::GpuSpec &Gpu, const PredictSettings &S,
                                      hardware::MathMode Math) {
  std::vector<std::string> W;
  const auto &Trained = P.info().trainingGpus;
  if (!Trained.empty() && std::find(Trained.begin(), Trained.end(), Gpu.name) == Trained.end())
    W.push_back(fmt::format("gpu '{}' was not measured: its time comes from its physical skeleton "
                            "and the efficiency learned on {}; the band was measured the same "
                            "way, leaving each GPU out",
                            Gpu.name, fmt::join(Trained, ", ")));
  if (S.math && *S.math != hardware::MathMode::Simt && Math == hardware::MathMode::Simt)
    W.push_back(fmt::format("gpu '{}' has no {} tensor cores: CUDA-core math assumed", Gpu.name,
                            hardware::mathModeName(*S.math)));
  learners::NamedVector Row = Network.features;
  if (std::vector<std::string> Out = P.outsideRange(Row); !Out.empty())
    W.push_back(fmt::format("the network's features lie outside the training range: {}",
                            fmt::join(Out, ", ")));
  return W;
}

std::vector<KindTime> byKind(const NetworkAnalysis &N, const std::vector<double> &Ms) {
  std::map<std::string, KindTime> Kinds;
  for (size_t K = 0; K < N.launches.size(); ++K) {
    if (Ms[K] <= 0) // an engine's concatenation written in place: nothing is launched
      continue;
    KindTime &T = Kinds[N.launches[K].strategy];
    T.kind = N.launches[K].strategy;
    T.launches += 1;
    T.ms += Ms[K];
  }
  std::vector<KindTime> Out;
  for (auto &[Name, T] : Kinds)
    Out.push_back(T);
  std::stable_sort(Out.begin(), Out.end(),
                   [](const KindTime &A, const KindTime &B) { return A.ms > B.ms; });
  return Out;
}

/// The math mode the launches run in: the one asked for when the GPU has it, else PyTorch's.
hardware::MathMode mathFor(const NetworkAnalysis &N, const hardware::GpuSpec &Gpu,
                           const PredictSettings &S) {
  hardware::MathMode M =
      S.math ? *S.math : hardware::defaultMathMode(N.dtype, Gpu.computeCapability);
  return hardware::tensorPeak(Gpu, M) > 0 ? M : hardware::MathMode::Simt;
}

/// How the runtime runs the network's launches on Gpu: PyTorch's kernels (under autocast for
/// f16), or an engine's, which are ptxcast's own (their PTX says where tensor cores run).
hardware::Execution executionFor(const NetworkAnalysis &N, const hardware::GpuSpec &Gpu,
                                 const PredictSettings &S) {
  const bool Engine = S.runtime == Runtime::Engine;
  hardware::Execution E{mathFor(N, Gpu, S), hardware::Implementation::Framework,
                        N.dtype == "f16" && !Engine};
  E.int8 = Engine && N.dtype == "int8";
  E.engine = Engine;
  if (S.runtime == Runtime::Compile)
    E.passes = hardware::PassStructure::Inductor;
  return E;
}

/// The band of an engine prediction of TimeMs whose model band is Gpu: widened to the engine
/// timings' measured spread for its dtype (EngineTimeBandF32, EngineTimeBandF16).
std::pair<double, double> withEngine(std::pair<double, double> Gpu, double TimeMs,
                                     const std::string &Dtype) {
  const EngineTimeSpread S = Dtype == "f32" ? EngineTimeBandF32 : EngineTimeBandF16;
  return {std::min(Gpu.first, TimeMs * S.low), std::max(Gpu.second, TimeMs * S.high)};
}

/// A bundle's predictions, remembered by their feature rows (everything the bundle reads): a row
/// seen before gets its prediction back, the new rows of a table are predicted in one evaluation
/// (a kNN reads its rows once for many queries). Per network, so that `compare`'s GPUs and the
/// dominance rule's catalog GPUs, the same GPU under either name, are predicted once.
class RememberingModel {
public:
  explicit RememberingModel(const Predictor &P) : P(P) {}

  const Predictor &bundle() const { return P; }

  support::Expected<std::vector<double>> predict(const learners::Dataset &Rows) {
    std::vector<double> Out(Rows.size());
    std::vector<size_t> New;
    for (size_t R = 0; R < Rows.size(); ++R)
      if (auto It = Seen.find(key(Rows, R)); It != Seen.end())
        Out[R] = It->second;
      else
        New.push_back(R);
    if (New.empty())
      return Out;
    auto Pred = P.predict(Rows.subset(New));
    if (!Pred)
      return Pred.error();
    for (size_t I = 0; I < New.size(); ++I)
      Seen[key(Rows, New[I])] = Out[New[I]] = (*Pred)[I];
    return Out;
  }

private:
  static std::vector<double> key(const learners::Dataset &Rows, size_t R) {
    auto Row = Rows.features.row(R);
    return {Row.begin(), Row.end()};
  }

  const Predictor &P;
  std::map<std::vector<double>, double> Seen;
};

/// What predictWork warns of under the runtime: how far an engine's or compile's prediction was
/// validated, int8's missing timings, a host-bound time, a --host that changes nothing.
void runtimeWarnings(GpuPrediction &G, const PredictSettings &S, const hardware::Execution &E) {
  std::vector<std::string> &W = G.warnings;
  if (S.runtime == Runtime::Engine)
    W.push_back(
        "the tensorrt runtime is experimental: its model was learnt from PyTorch's and ptxcast's "
        "kernels, not from an engine's; against published TensorRT timings on a T4 at batch 4 and "
        "8 it is 13 % off in fp32 and 48 % in fp16, where it predicts 0.45x the measured time, so "
        "the band reaches to those timings' spread (docs/accuracy.md, \"Inference engines\")");
  if (S.runtime == Runtime::Compile)
    W.push_back(
        "the compile runtime is learnt from one GPU's torch.compile timings (timm, RTX 4090): "
        "there it is 6 % off for a network whose family it has timings of and 18 % for one it "
        "has none of (each left out); on other GPUs it carries the RTX 4090's compiled "
        "efficiency, untested (docs/accuracy.md, \"torch.compile\")");
  if (E.int8)
    W.push_back(fmt::format(
        "int8 is unmeasured: no int8 timing is in the training data; convolutions and dense "
        "layers are bound at {} and timed at the efficiency learnt from fp32 and fp16 kernels",
        E.math == hardware::MathMode::Int8
            ? fmt::format("the {}'s int8 tensor peak ({:.4g} TOPS)", G.gpu.name, G.gpu.tensor.int8)
            : fmt::format("dp4a's rate on the {}'s CUDA cores (no int8 tensor cores)",
                          G.gpu.name)));
  if (G.hostMs > G.gpuMs)
    W.push_back(hostBoundWarning(G));
  if (S.host && S.runtime == Runtime::Graph)
    W.push_back(fmt::format(
        "--host {} has no effect under the graph runtime: a graph replay has no host time per "
        "kernel (--runtime eager, compile or tensorrt charges one)",
        S.host->name));
}

/// The bundle applied to the network's launch work on one GPU, as learned (no dominance rule).
/// The work is built once per network, not per GPU.
support::Expected<GpuPrediction> predictWork(const std::vector<hardware::LaunchWork> &Work,
                                             const NetworkAnalysis &N, RememberingModel &Model,
                                             const hardware::GpuSpec &Gpu,
                                             const PredictSettings &S) {
  const Predictor &P = Model.bundle();
  GpuPrediction Out;
  Out.gpu = Gpu;
  Out.batch = size_t(N.batch);
  Out.runtime = S.runtime;
  Out.engineDtype = S.runtime == Runtime::Engine ? N.dtype : "";
  const hardware::Execution E = executionFor(N, Gpu, S);
  Out.math = E.math;
  hardware::GroupFeatures Network;
  learners::Dataset Rows = featureTable(Work, Gpu, E, Network, S.breakdown);
  auto Pred = Model.predict(Rows);
  if (!Pred)
    return Pred.error();
  Out.gpuMs = Pred->front();
  Out.boundMs = Network.boundMs;
  Out.clock = Network.clock;
  for (const hardware::LaunchBound &B : Network.launches)
    Out.launchLatencyMs += B.latencyMs;
  Out.launches = N.launches.size();
  if (S.breakdown) {
    // The network's time split over its launches in proportion to each launch's own prediction.
    std::vector<double> LaunchMs(Pred->begin() + 1, Pred->end());
    double Sum = 0;
    for (double V : LaunchMs)
      Sum += V;
    for (double &V : LaunchMs)
      V = Sum > 0 ? V / Sum * Out.gpuMs : 0;
    Out.breakdown = byKind(N, LaunchMs);
  }
  Out.host = S.host ? *S.host : Gpu.host;
  Out.kernels = hostKernels(S.runtime, Network.launches);
  Out.hostMs = runtimeHostMs(S.runtime, Out.kernels, Out.host);
  Out.timeMs = std::max(Out.gpuMs, Out.hostMs);
  if (auto I = P.interval(Out.gpuMs)) {
    Out.gpuIntervalMs = S.runtime == Runtime::Engine ? withEngine(*I, Out.gpuMs, N.dtype) : *I;
    Out.intervalMs = withHost(*Out.gpuIntervalMs, Out.hostMs, S.runtime);
  }
  Out.warnings = dataWarnings(P, Network, Gpu, S, Out.math);
  Out.memory = deviceMemory(N.memory, Gpu, Out.math != hardware::MathMode::Simt);
  if (std::string W = memoryWarning(Out.memory, Gpu); !W.empty())
    Out.warnings.push_back(W);
  runtimeWarnings(Out, S, E);
  return Out;
}

/// A network's learned GPU time on one GPU, its bound there and the clock the power model runs
/// it at.
struct Learned {
  double gpuMs = 0;
  double boundMs = 0;
  double clockMhz = 0;
};

/// The network's GPU time on each of Gpus as learned (no per-launch breakdown), in one
/// evaluation of the model.
support::Expected<std::vector<Learned>>
learnedOn(const std::vector<hardware::LaunchWork> &Work, const NetworkAnalysis &N,
          RememberingModel &P, const std::vector<const hardware::GpuSpec *> &Gpus,
          const PredictSettings &S) {
  learners::Dataset Rows = datasetColumns();
  std::vector<hardware::GroupFeatures> Networks(Gpus.size());
  for (size_t I = 0; I < Gpus.size(); ++I)
    if (auto E = Rows.append(
            featureTable(Work, *Gpus[I], executionFor(N, *Gpus[I], S), Networks[I], false)))
      return *E;
  auto Pred = P.predict(Rows);
  if (!Pred)
    return Pred.error();
  std::vector<Learned> Out;
  for (size_t I = 0; I < Gpus.size(); ++I)
    Out.push_back({(*Pred)[I], Networks[I].boundMs, Networks[I].clock.mhz});
  return Out;
}

/// G's GPU time set to Ms, its breakdown and band scaled alike, the host time kept (rescale).
void scaleGpuTime(GpuPrediction &G, double Ms) {
  const double Scale = Ms / G.gpuMs;
  rescale(G, {Ms, Scale, 1, Scale});
}

/// Lowers G's GPU time to Floor (its own bound at the efficiency of Dominated, a GPU it matches
/// or beats on every figure), scaling its breakdown and band alike.
void lowerTo(GpuPrediction &G, double Floor, const std::string &Dominated) {
  G.dominanceFloor = Dominated;
  G.warnings.push_back(fmt::format(
      "the learned efficiency put {} at {:.4g} ms, slower than {}, which it matches or beats on "
      "every figure the skeleton reads: predicted {:.4g} ms, its own bound at {}'s efficiency",
      G.gpu.name, G.gpuMs, Dominated, Floor, Dominated));
  scaleGpuTime(G, Floor);
}

/// G given batch 1's GPU time One (the batch floor, predictOnGpus), its parts scaled alike: the
/// time is batch 1's, not the dominance rule's.
void raiseToBatchOne(GpuPrediction &G, double One) {
  G.warnings.push_back(
      fmt::format("batch floor: batch {} was learned at {:.4g} ms on the GPU, under batch "
                  "1's {:.4g} ms; a batch does all of one image's work and more, so it "
                  "is given batch 1's time",
                  G.batch, G.gpuMs, One));
  scaleGpuTime(G, One);
  G.dominanceFloor.clear();
}

} // namespace

namespace {

/// The dominance rule over the catalog for one network: each GPU's time after the rule, computed
/// once per GPU. A GPU's time is its learned time, or, where that is longer than the time (after
/// the rule) of a GPU it dominates, that GPU's efficiency (time over bound) on its own bound: by
/// dominance its bound is no longer, so it is faster by as much as the bounds differ, and no
/// dominated GPU, however far down, is faster than it.
class DominanceRule {
public:
  DominanceRule(const std::vector<hardware::LaunchWork> &Work, const NetworkAnalysis &N,
                RememberingModel &P, const PredictSettings &S, const hardware::GpuCatalog &C)
      : Work(Work), N(N), P(P), S(S), Catalog(C) {}

  /// The floor the rule puts under a GPU learned at L: (time, the dominated GPU whose efficiency
  /// set it); the GPU's own time and "" when no dominated GPU is faster.
  support::Expected<std::pair<double, std::string>> floorOf(const hardware::GpuSpec &Gpu,
                                                            const Learned &L) {
    std::pair<double, std::string> Floor{L.gpuMs, ""};
    if (auto E = learnAll(candidates(Gpu, L))) // their learned times in one evaluation
      return *E;
    for (const hardware::GpuSpec &Y : Catalog.gpus()) {
      if (!comparable(Gpu, Y))
        continue;
      auto Dominated = dominatesHere(Gpu, L, Y);
      if (!Dominated)
        return Dominated.error();
      // Down the dominance order, which has no cycles on exact figures; peaks a datasheet's
      // rounding apart could in principle close one, so a GPU already being ruled is skipped.
      if (!*Dominated || Active.count(Y.name))
        continue;
      auto Y_ = ruled(Y);
      if (!Y_)
        return Y_.error();
      const double Candidate = Y_->boundMs > 0 ? L.boundMs * Y_->gpuMs / Y_->boundMs : Y_->gpuMs;
      if (Y_->gpuMs < L.gpuMs && Candidate < Floor.first)
        Floor = {Candidate, Y.name};
    }
    return Floor;
  }

private:
  /// Whether Gpu (learned at L) dominates catalog GPU Y on this network: on every figure at
  /// any clock, or at the clocks the power model runs the network at on each (every other figure
  /// checked first, so that only candidates are predicted).
  support::Expected<bool> dominatesHere(const hardware::GpuSpec &Gpu, const Learned &L,
                                        const hardware::GpuSpec &Y) {
    if (!mayDominate(Gpu, L, Y))
      return false;
    if (hardware::dominates(Gpu, Y))
      return true;
    auto Y_ = learned(Y);
    if (!Y_)
      return Y_.error();
    return hardware::dominatesAt(Gpu, L.clockMhz, Y, Y_->clockMhz);
  }

  /// Whether Gpu (learned at L) may dominate Y on this network: on every figure at any clock, or
  /// on every figure but Y's clock, which only Y's learned time gives (dominatesHere). The rule
  /// needs the learned time of exactly these GPUs.
  static bool mayDominate(const hardware::GpuSpec &Gpu, const Learned &L,
                          const hardware::GpuSpec &Y) {
    return hardware::dominates(Gpu, Y) || hardware::dominatesAt(Gpu, L.clockMhz, Y, 0);
  }

  /// Whether the rule compares Gpu with Y: an int8 network also reads the int8 tensor rate, and
  /// needs a GPU that runs int8 at all.
  bool comparable(const hardware::GpuSpec &Gpu, const hardware::GpuSpec &Y) const {
    return N.dtype != "int8" ||
           (Gpu.tensor.int8 >= Y.tensor.int8 && !checkDtype(N.dtype, S.runtime, &Y));
  }

  /// The GPUs floorOf(Gpu, L) will need the learned time of (those it may dominate), not yet known.
  std::vector<const hardware::GpuSpec *> candidates(const hardware::GpuSpec &Gpu,
                                                    const Learned &L) const {
    std::vector<const hardware::GpuSpec *> Out;
    for (const hardware::GpuSpec &Y : Catalog.gpus())
      if (comparable(Gpu, Y) && !Raw.count(Y.name) && mayDominate(Gpu, L, Y))
        Out.push_back(&Y);
    return Out;
  }

  /// Learns the time of every catalog GPU in Ys, memoised, in one evaluation of the model.
  support::MaybeError learnAll(const std::vector<const hardware::GpuSpec *> &Ys) {
    if (Ys.empty())
      return std::nullopt;
    auto L = learnedOn(Work, N, P, Ys, S);
    if (!L)
      return L.error();
    for (size_t I = 0; I < Ys.size(); ++I)
      Raw.emplace(Ys[I]->name, (*L)[I]);
    return std::nullopt;
  }

  /// Catalog GPU Y's time as learned (and its bound and clock), memoised.
  support::Expected<Learned> learned(const hardware::GpuSpec &Y) {
    if (!Raw.count(Y.name))
      if (auto E = learnAll({&Y}))
        return *E;
    return Raw.at(Y.name);
  }

  /// Catalog GPU Y's time after the rule (and its bound and clock), memoised.
  support::Expected<Learned> ruled(const hardware::GpuSpec &Y) {
    if (auto It = Done.find(Y.name); It != Done.end())
      return It->second;
    auto L = learned(Y);
    if (!L)
      return L.error();
    Active.insert(Y.name);
    auto Floor = floorOf(Y, *L);
    Active.erase(Y.name);
    if (!Floor)
      return Floor.error();
    return Done.emplace(Y.name, Learned{Floor->first, L->boundMs, L->clockMhz}).first->second;
  }

  const std::vector<hardware::LaunchWork> &Work;
  const NetworkAnalysis &N;
  RememberingModel &P;
  const PredictSettings &S;
  const hardware::GpuCatalog &Catalog;
  std::map<std::string, Learned> Raw, Done;
  std::set<std::string> Active; ///< GPUs whose floor is being computed (ruled)
};

/// How people name an engine's precision: int8, fp16, fp32.
std::string precisionName(const std::string &Dtype) {
  return Dtype == "f16" ? "fp16" : Dtype == "f32" ? "fp32" : Dtype;
}

/// Why the GPU's engine of the dtype asked for (G) gives way to the engine one precision wider
/// (Wider), or "" where it does not: TensorRT builds no fp16 on a GPU without fast FP16, and an
/// int8 engine keeps fp16 tactics where they are faster (NetworkAnalysis::widerEngine).
std::string widerReason(const GpuPrediction &G, const GpuPrediction &Wider) {
  const hardware::GpuSpec &Gpu = G.gpu;
  const std::string Kept = precisionName(Wider.engineDtype);
  if (G.engineDtype == "f16" && !hardware::fastFp16(Gpu))
    return fmt::format("TensorRT builds no fp16 engine for the {}: it has no fp16 tensor cores "
                       "and runs FP16 at {:.3g} TFLOPS against {:.3g} in FP32 (TensorRT's support "
                       "matrix: no FP16 on compute capability {:.1f}); the time given is its {} "
                       "engine's",
                       Gpu.name, Gpu.fp16Tflops, Gpu.fp32Tflops, Gpu.computeCapability, Kept);
  // By the whole time: where the host's enqueue sets it, the engine with fewer kernels (ptxcast's
  // int8 engines launch reformats TensorRT fuses into their neighbours).
  if (G.engineDtype != "int8" || Wider.timeMs >= G.timeMs)
    return "";
  return fmt::format("an int8 engine keeps {} tactics where they are faster, and here they are: "
                     "ptxcast's int8 engine is predicted {:.4g} ms on the {} ({}), its {} "
                     "engine {:.4g} ms, whose prediction is given (math, memory and breakdown are "
                     "the {} engine's)",
                     Kept, G.timeMs, Gpu.name,
                     G.math == hardware::MathMode::Int8 ? "int8 tensor cores"
                                                        : "dp4a on the CUDA cores: no int8 "
                                                          "tensor cores",
                     Kept, Wider.timeMs, Kept);
}

/// Each GPU's engine prediction replaced by the wider engine's (N.widerEngine) where widerReason
/// says so, with that reason as a warning. The wider engine is predicted only on the GPUs that
/// may take it (an fp16 engine's fp32 one on those without fast FP16).
support::MaybeError keepWiderEngine(std::vector<GpuPrediction> &Own, const NetworkAnalysis &N,
                                    const Predictor &P, const std::vector<hardware::GpuSpec> &Gpus,
                                    const PredictSettings &S, const hardware::GpuCatalog &Catalog) {
  std::vector<size_t> Which;
  std::vector<hardware::GpuSpec> May;
  for (size_t I = 0; I < Gpus.size(); ++I)
    if (mayTakeWiderEngine(N.dtype, Gpus[I])) {
      Which.push_back(I);
      May.push_back(Gpus[I]);
    }
  auto F = predictOnGpus(*N.widerEngine, P, May, S, Catalog);
  if (!F)
    return F.error();
  for (size_t K = 0; K < Which.size(); ++K) {
    GpuPrediction &G = Own[Which[K]], &H = (*F)[K];
    std::string Why = widerReason(G, H);
    if (Why.empty())
      continue;
    H.warnings.push_back(std::move(Why));
    G = std::move(H);
  }
  return std::nullopt;
}

} // namespace

support::Expected<std::vector<GpuPrediction>>
predictOnGpus(const NetworkAnalysis &N, const Predictor &P,
              const std::vector<hardware::GpuSpec> &Gpus, const PredictSettings &S,
              const hardware::GpuCatalog &Catalog) {
  for (const hardware::GpuSpec &Gpu : Gpus)
    if (auto E = checkDtype(N.dtype, S.runtime, &Gpu, S.math))
      return *E;
  const std::vector<hardware::LaunchWork> Work = N.work();
  RememberingModel Model(P);
  DominanceRule Rule(Work, N, Model, S, Catalog);
  if (!S.breakdown && Gpus.size() > 1) { // every GPU's network row in one evaluation
    std::vector<const hardware::GpuSpec *> All;
    for (const hardware::GpuSpec &Gpu : Gpus)
      All.push_back(&Gpu);
    if (auto L = learnedOn(Work, N, Model, All, S); !L)
      return L.error();
  }
  std::vector<GpuPrediction> Out;
  for (const hardware::GpuSpec &Gpu : Gpus) {
    auto G = predictWork(Work, N, Model, Gpu, S);
    if (!G)
      return G.error();
    auto Floor = Rule.floorOf(Gpu, Learned{G->gpuMs, G->boundMs, G->clock.mhz});
    if (!Floor)
      return Floor.error();
    if (!Floor->second.empty())
      lowerTo(*G, Floor->first, Floor->second);
    Out.push_back(std::move(*G));
  }
  if (N.widerEngine && S.runtime == Runtime::Engine)
    if (auto E = keepWiderEngine(Out, N, P, Gpus, S, Catalog))
      return *E;
  if (N.batchOne) {
    auto One = predictOnGpus(*N.batchOne, P, Gpus, S, Catalog);
    if (!One)
      return One.error();
    for (size_t K = 0; K < Out.size(); ++K)
      if (Out[K].gpuMs < (*One)[K].gpuMs)
        raiseToBatchOne(Out[K], (*One)[K].gpuMs);
  }
  for (const GpuPrediction &G : Out) // else the fp16 engine's time, one TensorRT does not build
    if (!N.widerEngine && G.engineDtype == "f16" && mayTakeWiderEngine(N.dtype, G.gpu))
      return support::Error(fmt::format(
          "the fp16 engine of {} was analysed without the fp32 engine the {} runs instead (no "
          "fast FP16): analyse it for the GPUs it is predicted on (analyseFor)",
          N.network, G.gpu.name));
  return Out;
}

} // namespace pipeline
