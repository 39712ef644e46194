// analyze(): decode the PTX once, then run every launch in fast mode (abstract memory, one
// Device per launch, launches spread over threads) or exactly (real data, in order).
#include "DataTaint.h"
#include "FastSample.h"
#include "LaunchArgs.h"
#include "LoopSkip.h"

#include "ptx/Parser.h"
#include "support/Parallel.h"

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace analyzer {
namespace {

struct Decoded {
  std::vector<std::unique_ptr<Program>> programs;
  std::vector<const Program *> byLaunch; ///< the module holding each launch's kernel
};

/// Some module declares .global variables (real memory, allocated per launch by the executor).
bool hasModuleVariables(const Decoded &D) {
  for (const std::unique_ptr<Program> &P : D.programs)
    if (!P->impl().globals.empty())
      return true;
  return false;
}

/// Parses and decodes every PTX module, on up to Threads threads (modules are independent;
/// the first failing module's error is returned, as in order).
support::Expected<Decoded> decodeAll(const AnalysisInput &In, unsigned Threads) {
  Decoded D;
  std::vector<std::optional<support::Error>> Errors(In.ptx.size());
  D.programs.resize(In.ptx.size());
  support::parallelFor(In.ptx.size(), Threads, [&](size_t K, unsigned) {
    support::Expected<ptx::Module> M = ptx::parseModule(In.ptx[K].text, In.ptx[K].file);
    if (!M) {
      Errors[K] = M.error();
      return;
    }
    support::Expected<Program> P = decodeProgram(*M);
    if (!P)
      Errors[K] = P.error();
    else
      D.programs[K] = std::make_unique<Program>(std::move(*P));
  });
  for (std::optional<support::Error> &E : Errors)
    if (E)
      return std::move(*E);
  for (size_t K = 0; K < In.launches.size(); ++K) {
    const Program *Found = nullptr;
    for (const auto &P : D.programs)
      if (!Found && P->hasKernel(In.launches[K].kernel))
        Found = P.get();
    if (!Found)
      return support::Error("launches[" + std::to_string(K) + "].kernel: no kernel named '" +
                            In.launches[K].kernel + "' in the PTX");
    D.byLaunch.push_back(Found);
  }
  return D;
}

support::MaybeError fill(const BufferSpec &B, Buffer &Dst) {
  if (B.init.kind == BufferInit::Kind::Random) {
    support::Expected<std::vector<uint8_t>> R = randomBytes(B.init, B.bytes);
    if (!R)
      return support::Error("buffer '" + B.name + "': " + R.error().message);
    Dst.data = std::move(*R);
  } else if (B.init.kind == BufferInit::Kind::File) {
    std::ifstream F(B.init.file, std::ios::binary);
    F.read(reinterpret_cast<char *>(Dst.data.data()), static_cast<std::streamsize>(B.bytes));
    if (!F)
      return support::Error("buffer '" + B.name + "': cannot read '" + B.init.file + "'");
  }
  return std::nullopt;
}

/// All buffers on a fresh Device, abstract or real (filled), in manifest order.
support::MaybeError allocateAll(const AnalysisInput &In, Device &D, bool Abstract) {
  for (const BufferSpec &B : In.buffers) {
    support::Expected<uint64_t> A =
        Abstract ? D.allocateAbstract(B.name, B.bytes) : D.allocate(B.name, B.bytes);
    if (!A)
      return A.error();
    if (!Abstract)
      if (std::optional<support::Error> E = fill(B, *D.find(B.name)))
        return E;
  }
  return std::nullopt;
}

support::MaybeError trapError(size_t K, const Trap &T) {
  return support::Error("launches[" + std::to_string(K) + "]: " + T.str());
}

/// One launch on device `D`: sampled or whole, per the mode.
support::MaybeError runOne(const AnalysisInput &In, const Decoded &Dec, size_t K,
                           Device &D, AnalysisMode Mode, const FastSettings &S,
                           LoopSkipper &Skipper, LaunchAnalysis &Out) {
  const LaunchSpec &Spec = In.launches[K];
  support::Expected<LaunchConfig> L = makeLaunch(Spec, K, D, "");
  if (!L)
    return L.error();
  FastSettings Local = S;
  if (Mode == AnalysisMode::Exact)
    Local.sampleCtas = false;
  // Loop-trip extrapolation relies on loads that yield the abstract pattern.
  Local.skipLoops = S.skipLoops && Mode == AnalysisMode::Fast && S.abstractMemory;
  Skipper.forgetLaunch();
  const bool Check =
      Mode == AnalysisMode::Fast && S.abstractMemory && S.checkDataDependence && Local.sampleCtas;
  const bool Rerun = Check && dataMaySteer(Dec.byLaunch[K]->impl(), Spec.kernel);
  Local.run.valuesUnused = Check && !Rerun; // loaded data (abstract) reaches no count
  SampleJob J{*Dec.byLaunch[K], Spec.kernel, std::move(*L), D, Local, Rerun, Skipper};
  if (std::optional<Trap> T = sampleLaunch(J, Out))
    return trapError(K, *T);
  Out.dataCheck = !Check ? DataCheck::Off : Rerun ? DataCheck::Rerun : DataCheck::Proven;
  return std::nullopt;
}

/// What of argument A decides a launch's counts under abstract memory (equivalentLaunches).
std::string argKey(const ArgSpec &A, std::map<std::string, uint64_t> &Size) {
  if (A.isStruct) {
    std::string Key = ";{";
    for (const ArgSpec &F : A.fields)
      Key += argKey(F, Size);
    return Key + "}";
  }
  if (A.isBuffer)
    return ";b" + std::to_string(A.offset % 256) + ":" +
           std::to_string(Size[A.buffer] - std::min(Size[A.buffer], A.offset));
  return ";s" + std::to_string(int(A.type)) + ":" + std::to_string(A.bits);
}

/// Launches that must count alike under abstract memory: same module, kernel, geometry and
/// scalars, buffer arguments with the same offset within a 256-byte line (buffer bases are
/// 256-aligned) and the same bytes after it. Returns, per launch, the first equivalent launch.
std::vector<size_t> equivalentLaunches(const AnalysisInput &In, const Decoded &Dec) {
  std::map<std::string, uint64_t> Size;
  for (const BufferSpec &B : In.buffers)
    Size[B.name] = B.bytes;
  std::map<std::string, size_t> First;
  std::vector<size_t> Rep(In.launches.size());
  for (size_t K = 0; K < In.launches.size(); ++K) {
    const LaunchSpec &L = In.launches[K];
    std::string Key = L.kernel + '\n' + std::to_string(uintptr_t(Dec.byLaunch[K]));
    for (uint32_t V :
         {L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2], L.sharedBytes})
      Key += ',' + std::to_string(V);
    for (const ArgSpec &A : L.args)
      Key += argKey(A, Size);
    Rep[K] = First.emplace(Key, K).first->second;
  }
  return Rep;
}

} // namespace

support::Expected<AnalysisInput> analysisInput(const Manifest &M) {
  AnalysisInput In;
  for (const std::string &Path : M.ptx) {
    std::ifstream F(Path, std::ios::binary);
    if (!F)
      return support::Error(M.path, 0, 0, "cannot read '" + Path + "'");
    std::ostringstream SS;
    SS << F.rdbuf();
    In.ptx.push_back({Path, SS.str()});
  }
  In.buffers = M.buffers;
  In.launches = M.launches;
  return In;
}

namespace {

/// Reports launches done to S.progress (thread-safe).
class ProgressReport {
public:
  ProgressReport(const FastSettings &S, size_t Total) : S(S), Total(Total) {}
  void done() {
    if (!S.progress)
      return;
    std::lock_guard<std::mutex> G(Lock);
    S.progress(++Done, Total);
  }

private:
  const FastSettings &S;
  size_t Total, Done = 0;
  std::mutex Lock;
};

/// Exact mode, or fast mode on real memory: data flows from launch to launch, so one real
/// Device runs them in order.
support::MaybeError analyzeInOrder(const AnalysisInput &In, const Decoded &Dec,
                                   AnalysisMode Mode, const FastSettings &S,
                                   AnalysisResult &Res, ProgressReport &Progress) {
  Device D(S.deviceBytes);
  if (std::optional<support::Error> E = allocateAll(In, D, false))
    return E;
  LoopSkipper Skipper;
  for (size_t K = 0; K < In.launches.size(); ++K) {
    if (std::optional<support::Error> E = runOne(In, Dec, K, D, Mode, S, Skipper, Res.launches[K]))
      return E;
    Progress.done();
  }
  return std::nullopt;
}

/// Fast mode on abstract memory: the launches that are not equivalent to an earlier one, over
/// the worker threads; the others copy their representative's result.
support::MaybeError analyzeParallel(const AnalysisInput &In, const Decoded &Dec,
                                    const FastSettings &S, AnalysisResult &Res,
                                    ProgressReport &Progress) {
  const size_t N = In.launches.size();
  std::vector<size_t> Rep(N), Todo;
  for (size_t K = 0; K < N; ++K)
    Rep[K] = K;
  if (S.dedupeLaunches)
    Rep = equivalentLaunches(In, Dec);
  for (size_t K = 0; K < N; ++K)
    if (Rep[K] == K)
      Todo.push_back(K);
  // One skipper per worker: its buffers (warps, snapshots) outlive the launch, so they are
  // allocated once per worker rather than once per launch and CTA. So is the device, when no
  // module has .global variables (real memory a launch would leave to the next): its buffers
  // are abstract, and a launch only reads them (stores to them are dropped).
  const bool Share = !hasModuleVariables(Dec);
  std::vector<LoopSkipper> Skippers(support::workerCount(Todo.size(), S.threads));
  std::vector<Device> Devices;
  for (size_t K = 0; Share && K < Skippers.size(); ++K)
    Devices.emplace_back(S.deviceBytes);
  for (Device &D : Devices) // allocation errors do not depend on the launch: reported once
    if (std::optional<support::Error> E = allocateAll(In, D, true))
      return E;
  std::vector<std::optional<support::Error>> Errors(N);
  support::parallelFor(Todo.size(), S.threads, [&](size_t I, unsigned Worker) {
    const size_t K = Todo[I];
    Device Own(S.deviceBytes);
    if (!Share)
      Errors[K] = allocateAll(In, Own, true);
    if (!Errors[K])
      Errors[K] = runOne(In, Dec, K, Share ? Devices[Worker] : Own, AnalysisMode::Fast, S,
                         Skippers[Worker], Res.launches[K]);
    Progress.done();
  });
  for (std::optional<support::Error> &E : Errors)
    if (E)
      return E;
  for (size_t K = 0; K < N; ++K)
    if (Rep[K] != K) {
      Res.launches[K] = Res.launches[Rep[K]];
      Res.launches[K].interpreted = 0;
      Res.launches[K].loopIterationsSkipped = 0;
      Res.launches[K].reusedFrom = Rep[K];
    }
  return std::nullopt;
}

} // namespace

support::Expected<AnalysisResult> analyze(const AnalysisInput &In, AnalysisMode Mode,
                                          const FastSettings &S) {
  support::Expected<Decoded> Dec = decodeAll(In, S.threads);
  if (!Dec)
    return Dec.error();
  AnalysisResult Res;
  Res.launches.resize(In.launches.size());
  ProgressReport Progress(S, In.launches.size());
  std::optional<support::Error> E = Mode == AnalysisMode::Fast && S.abstractMemory
                                        ? analyzeParallel(In, *Dec, S, Res, Progress)
                                        : analyzeInOrder(In, *Dec, Mode, S, Res, Progress);
  if (E)
    return *E;
  for (const LaunchAnalysis &L : Res.launches)
    Res.total.accumulate(L.profile);
  Res.total.kernel = "total";
  return Res;
}

FastSettings quickSettings() {
  FastSettings S;
  S.interiorSamples = 2;
  S.maxInteriorSamples = 8;
  S.residueStrata = false; // per-launch sector alignment is finer than a learner needs
  return S;
}

} // namespace analyzer
