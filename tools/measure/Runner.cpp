// Timing with CUDA events: warm-ups, repeats in batches queued behind a hold kernel, summaries.
#include "Runner.h"

#include "Csv.h"
#include "Session.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <functional>

#define PTXCAST_CU_TRY(call, what)                                                                 \
  if (auto S_ = D.check((call), (what)))                                                           \
  return *S_

namespace measure {

namespace {

// A launch ready for cuLaunchKernel. Params point into Storage, whose heap buffer survives moves.
struct PreparedLaunch {
  CUfunction function = nullptr;
  const Launch *launch = nullptr;
  std::vector<std::vector<uint8_t>> storage; ///< each argument's bytes
  std::vector<void *> params;
};

// Commands (event records, launches) one hold may have queued behind it; well below the
// driver's queue depth so the CPU never blocks while the GPU waits for the release.
constexpr size_t MaxCommandsPerHold = 192;
constexpr uint32_t DefaultDynamicSharedLimit = 48 * 1024;

std::string launchName(size_t I, const Launch &L) {
  return "launch " + std::to_string(I) + " ('" + L.kernel + "')";
}

// Compares the manifest's arguments with the kernel's parameter sizes (CUDA 12.4+ drivers).
MaybeError checkParams(const Driver &D, CUfunction F, const Launch &L, size_t Index) {
#if CUDA_VERSION >= 12040
  if (!D.api().cuFuncGetParamInfo)
    return std::nullopt;
  size_t Count = 0;
  while (true) {
    size_t Offset = 0, Size = 0;
    CUresult R = D.api().cuFuncGetParamInfo(F, Count, &Offset, &Size);
    if (R == CUDA_ERROR_INVALID_VALUE) // past the last parameter
      break;
    if (R != CUDA_SUCCESS) // introspection unavailable for this kernel: nothing to check
      return std::nullopt;
    if (Count < L.args.size()) {
      const Arg &A = L.args[Count];
      size_t Want = argBytes(A, [](size_t) { return uint64_t(0); }).size();
      if (Want != Size)
        return Error("ptxcast-measure", 0, 0,
                     launchName(Index, L) + ": argument " + std::to_string(Count) + " has " +
                         std::to_string(Want) + " bytes, the kernel parameter has " +
                         std::to_string(Size));
    }
    ++Count;
  }
  if (Count != L.args.size())
    return Error("ptxcast-measure", 0, 0,
                 launchName(Index, L) + " passes " + std::to_string(L.args.size()) +
                     " arguments, the kernel has " + std::to_string(Count) + " parameters");
#else
  (void)D, (void)F, (void)L, (void)Index;
#endif
  return std::nullopt;
}

Expected<std::vector<PreparedLaunch>>
prepareLaunches(const Driver &D, Session &S, const Manifest &M, std::vector<KernelFacts> &Facts) {
  std::vector<PreparedLaunch> Out;
  for (size_t I = 0; I < M.launches.size(); ++I) {
    const Launch &L = M.launches[I];
    auto F = S.findKernel(L.kernel);
    if (!F)
      return F.error();
    Facts.push_back(S.kernelFacts(*F));
    if (auto C = checkParams(D, *F, L, I))
      return *C;
    if (L.sharedBytes > DefaultDynamicSharedLimit)
      PTXCAST_CU_TRY(D.api().cuFuncSetAttribute(*F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                static_cast<int>(L.sharedBytes)),
                     launchName(I, L) + ": allowing " + std::to_string(L.sharedBytes) +
                         " bytes of dynamic shared memory");
    PreparedLaunch P;
    P.function = *F;
    P.launch = &L;
    for (const Arg &A : L.args)
      P.storage.push_back(argBytes(A, [&](size_t B) { return uint64_t(S.address(B)); }));
    for (std::vector<uint8_t> &Bytes : P.storage)
      P.params.push_back(Bytes.data());
    Out.push_back(std::move(P));
  }
  return Out;
}

MaybeError enqueue(const Driver &D, CUstream Stream, const PreparedLaunch &P, size_t Index) {
  const Launch &L = *P.launch;
  void **Params = const_cast<void **>(P.params.data());
  PTXCAST_CU_TRY(D.api().cuLaunchKernel(P.function, L.grid.x, L.grid.y, L.grid.z, L.block.x,
                                        L.block.y, L.block.z, L.sharedBytes, Stream, Params,
                                        nullptr),
                 "cuLaunchKernel for " + launchName(Index, L));
  return std::nullopt;
}

MaybeError enqueueAll(const Driver &D, CUstream Stream,
                      const std::vector<PreparedLaunch> &Launches) {
  for (size_t I = 0; I < Launches.size(); ++I)
    if (auto S = enqueue(D, Stream, Launches[I], I))
      return S;
  return std::nullopt;
}

// Destroys its events on every path out.
struct EventPool {
  const DriverApi &Api;
  std::vector<CUevent> Events;
  ~EventPool() {
    for (CUevent E : Events)
      Api.cuEventDestroy(E);
  }
};

// Queues N timed runs of Work between event pairs (behind a hold kernel if Hold; each after an
// L2 flush if Flush), waits, and appends the N elapsed times to Samples.
MaybeError timeBatch(const Driver &D, Session &S, const std::vector<CUevent> &Events, size_t N,
                     bool Hold, bool Flush, const std::function<MaybeError()> &Work,
                     std::vector<double> &Samples) {
  if (Hold)
    if (auto H = S.hold())
      return H;
  MaybeError Failed; // what stopped the queueing, if anything
  for (size_t K = 0; K < N && !Failed; ++K) {
    if (Flush) // before the start event: the flush is not timed
      Failed = S.flushL2();
    if (!Failed)
      Failed = D.check(D.api().cuEventRecord(Events[2 * K], S.stream()), "cuEventRecord");
    if (!Failed)
      Failed = Work();
    if (!Failed)
      Failed = D.check(D.api().cuEventRecord(Events[2 * K + 1], S.stream()), "cuEventRecord");
  }
  if (Hold)
    S.release(); // before any return: the hold kernel must not spin until its timeout
  if (Failed)
    return Failed;
  if (auto Sync = S.synchronize())
    return Sync;
  for (size_t K = 0; K < N; ++K) {
    float Ms = 0;
    PTXCAST_CU_TRY(D.api().cuEventElapsedTime(&Ms, Events[2 * K], Events[2 * K + 1]),
                   "cuEventElapsedTime");
    Samples.push_back(Ms);
  }
  return std::nullopt;
}

// Times Work (which queues CommandsPerRepeat commands) Repeat times after Warmup untimed runs.
Expected<Summary> timeWork(const Driver &D, Session &S, const RunSettings &Set,
                           size_t CommandsPerRepeat, const std::function<MaybeError()> &Work,
                           std::vector<std::string> &Notes, const std::string &What) {
  for (uint32_t I = 0; I < Set.warmup; ++I)
    if (auto W = Work())
      return *W;
  if (auto Sync = S.synchronize())
    return *Sync;
  size_t PerRepeat = CommandsPerRepeat + 2 + (Set.flushL2 ? 1 : 0); // + events, flush
  bool Hold = Set.hold && PerRepeat <= MaxCommandsPerHold;
  size_t Batch = Hold ? std::max<size_t>(1, MaxCommandsPerHold / PerRepeat) : 32;
  Batch = std::min<size_t>(Batch, Set.repeat);
  EventPool Pool{D.api(), {}};
  for (size_t I = 0; I < 2 * Batch; ++I) {
    CUevent E = nullptr;
    PTXCAST_CU_TRY(D.api().cuEventCreate(&E, CU_EVENT_DEFAULT), "cuEventCreate");
    Pool.Events.push_back(E);
  }
  std::vector<double> Samples;
  bool TimedOut = false;
  while (Samples.size() < Set.repeat) {
    size_t N = std::min<size_t>(Batch, Set.repeat - Samples.size());
    if (auto B = timeBatch(D, S, Pool.Events, N, Hold, Set.flushL2, Work, Samples))
      return *B;
    TimedOut |= Hold && S.lastHoldTimedOut();
  }
  if (TimedOut)
    Notes.push_back(What + ": a hold kernel timed out before its batch was queued; some samples "
                           "may include launch gaps");
  if (Set.hold && !Hold)
    Notes.push_back(What + ": too many launches to queue behind a hold kernel; timed without");
  return summarize(std::move(Samples));
}

// One in-order run from the initial contents, synchronised after every launch so a fault names
// its launch; then the output buffers are written.
MaybeError checkedRun(const Driver &D, Session &S, const Manifest &M,
                      const std::vector<PreparedLaunch> &Launches) {
  for (size_t I = 0; I < Launches.size(); ++I) {
    if (auto E = enqueue(D, S.stream(), Launches[I], I))
      return E;
    if (auto Sync = S.synchronize())
      return Error("ptxcast-measure", 0, 0,
                   launchName(I, M.launches[I]) + " failed: " + Sync->message);
  }
  for (size_t I = 0; I < M.buffers.size(); ++I) {
    if (M.buffers[I].output.empty())
      continue;
    auto Bytes = S.download(I, M.buffers[I].bytes);
    if (!Bytes)
      return Bytes.error();
    std::string Data(Bytes->begin(), Bytes->end());
    if (auto W = writeFileAtomic(M.buffers[I].output, Data))
      return W;
  }
  return std::nullopt;
}

// Captures all launches into a graph once and times its replay; failures become notes.
Summary timeGraph(const Driver &D, Session &S, const RunSettings &Set,
                  const std::vector<PreparedLaunch> &Launches, std::vector<std::string> &Notes) {
  CUgraph Graph = nullptr;
  CUgraphExec Exec = nullptr;
  Summary Result;
  MaybeError Failed = D.check(
      D.api().cuStreamBeginCapture(S.stream(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
      "cuStreamBeginCapture");
  if (!Failed) {
    MaybeError Queued = enqueueAll(D, S.stream(), Launches);
    Failed = D.check(D.api().cuStreamEndCapture(S.stream(), &Graph), "cuStreamEndCapture");
    if (Queued)
      Failed = Queued;
  }
  if (!Failed)
    Failed = D.check(D.api().cuGraphInstantiate(&Exec, Graph, 0), "cuGraphInstantiate");
  if (!Failed) {
    auto T = timeWork(
        D, S, Set, 1,
        [&]() { return D.check(D.api().cuGraphLaunch(Exec, S.stream()), "cuGraphLaunch"); }, Notes,
        "graph");
    if (T)
      Result = *T;
    else
      Failed = T.error();
  }
  if (Failed)
    Notes.push_back("graph replay not timed: " + Failed->message);
  if (Exec)
    D.api().cuGraphExecDestroy(Exec);
  if (Graph)
    D.api().cuGraphDestroy(Graph);
  return Result;
}

std::string nowUtc() {
  std::time_t T = std::time(nullptr);
  std::tm Tm{};
  gmtime_r(&T, &Tm);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &Tm);
  return Buf;
}

} // namespace

Expected<Measurement> runMeasurement(const Driver &D, const Manifest &M,
                                     const std::vector<std::vector<uint8_t>> &Initial,
                                     const RunSettings &Set) {
  Measurement R;
  R.repeat = Set.repeat;
  R.warmup = Set.warmup;
  R.hold = Set.hold;
  R.flushL2 = Set.flushL2;
  R.dateUtc = nowUtc();
  Session S(D);
  if (auto O = S.open(Set.device, Set.sms, R.device))
    return *O;
  if (Set.sms && R.device.smsUsed != static_cast<int>(Set.sms))
    R.notes.push_back("--sms " + std::to_string(Set.sms) + ": the driver granted " +
                      std::to_string(R.device.smsUsed) + " SMs");
  if (auto L = S.loadPtx(M.ptxFiles))
    return *L;
  if (auto A = S.allocate(M))
    return *A;
  if (auto U = S.upload(M, Initial))
    return *U;
  auto Launches = prepareLaunches(D, S, M, R.kernels);
  if (!Launches)
    return Launches.error();
  if (auto C = checkedRun(D, S, M, *Launches))
    return *C;
  for (size_t I = 0; I < Launches->size(); ++I) {
    const PreparedLaunch &P = (*Launches)[I];
    auto T = timeWork(
        D, S, Set, 1, [&]() { return enqueue(D, S.stream(), P, I); }, R.notes,
        launchName(I, M.launches[I]));
    if (!T)
      return T.error();
    R.launches.push_back(*T);
  }
  auto W = timeWork(
      D, S, Set, Launches->size(), [&]() { return enqueueAll(D, S.stream(), *Launches); }, R.notes,
      "workload");
  if (!W)
    return W.error();
  R.workload = *W;
  R.graph = timeGraph(D, S, Set, *Launches, R.notes);
  return R;
}

} // namespace measure
