// runKernel: launch checks, memory setup, the CTA loop with barrier scheduling, and turning
// per-pc counters into a KernelProfile.
#include "LoopSkip.h"
#include "WarpRunner.h"

#include <algorithm>
#include <functional>

namespace analyzer {
namespace {

std::string dims(const Dim3 &D) {
  return std::to_string(D[0]) + "," + std::to_string(D[1]) + "," + std::to_string(D[2]);
}

/// A directive's dimensions, missing trailing ones 1.
Dim3 directiveDims(const std::vector<uint32_t> &V) {
  Dim3 D{1, 1, 1};
  for (size_t K = 0; K < std::min<size_t>(V.size(), 3); ++K)
    D[K] = V[K];
  return D;
}

/// Why launch L breaks the kernel's .maxntid, .reqntid or .reqnctapercluster, or "". Launches
/// are clusters of one CTA, so a kernel that requires more cannot be run as written.
std::string checkShapeDirectives(const DFunction &F, const LaunchConfig &L) {
  auto Product = [](const Dim3 &D) { return uint64_t(D[0]) * D[1] * D[2]; };
  const uint64_t Threads = Product(L.block), MaxThreads = Product(directiveDims(F.maxntid));
  const uint64_t ClusterCtas = Product(directiveDims(F.reqnctapercluster));
  if (!F.maxntid.empty() && Threads > MaxThreads)
    return "block " + dims(L.block) + " has " + std::to_string(Threads) +
           " threads; the kernel's .maxntid allows " + std::to_string(MaxThreads);
  if (!F.reqntid.empty() && L.block != directiveDims(F.reqntid))
    return "block " + dims(L.block) + " is not the kernel's .reqntid " +
           dims(directiveDims(F.reqntid));
  if (ClusterCtas > 1)
    return "the kernel requires clusters of " + std::to_string(ClusterCtas) +
           " CTAs (.reqnctapercluster); launches are modelled as clusters of one CTA";
  return {};
}

/// Checks the launch against the kernel; an error reason or empty.
std::string checkLaunch(const DFunction &F, const LaunchConfig &L, const RunSettings &S) {
  uint64_t Threads = uint64_t(L.block[0]) * L.block[1] * L.block[2];
  if (Threads == 0 || Threads > S.maxThreadsPerBlock)
    return "block " + dims(L.block) + " has " + std::to_string(Threads) +
           " threads; the limit is " + std::to_string(S.maxThreadsPerBlock);
  if (L.grid[0] == 0 || L.grid[1] == 0 || L.grid[2] == 0)
    return "grid " + dims(L.grid) + " is empty";
  if (std::string Why = checkShapeDirectives(F, L); !Why.empty())
    return Why;
  if (L.args.size() != F.kernelParams.size())
    return "kernel takes " + std::to_string(F.kernelParams.size()) + " arguments, " +
           std::to_string(L.args.size()) + " given";
  for (size_t A = 0; A < L.args.size(); ++A)
    if (L.args[A].bytes.size() != F.kernelParams[A].size)
      return "argument " + std::to_string(A) + " is " + std::to_string(L.args[A].bytes.size()) +
             " bytes; parameter '" + F.kernelParams[A].name + "' is " +
             std::to_string(F.kernelParams[A].size) + " bytes";
  // The kernel's own static shared memory (the variables it and its callees use: other kernels'
  // variables in the module are not part of its CTA's allocation, as with the CUDA driver).
  uint64_t Shared = uint64_t(F.resources.staticSharedBytes) + L.sharedBytes;
  if (Shared > S.maxSharedBytes)
    return std::to_string(Shared) + " bytes of shared memory exceed the limit of " +
           std::to_string(S.maxSharedBytes);
  uint64_t Linear = uint64_t(L.grid[0]) * L.grid[1] * L.grid[2];
  for (uint64_t C : L.ctaSubset)
    if (C >= Linear)
      return "CTA " + std::to_string(C) + " is outside the grid";
  return {};
}

/// Writes the launch-time addresses of `Relocs` (module .global variables) into `Bytes`.
void relocate(std::vector<uint8_t> &Bytes, const std::vector<Reloc> &Relocs,
              const std::vector<uint64_t> &GlobalAddr) {
  for (const Reloc &R : Relocs) {
    uint64_t V = GlobalAddr[R.target] + R.addend;
    std::memcpy(Bytes.data() + R.offset, &V, std::min<uint32_t>(R.bytes, 8));
  }
}

/// Module .global variables as Device buffers (created and initialised on first use), the
/// constant memory of the launch, and every function's constant pool.
std::string prepareMemory(Exec &X, const ProgramImpl &P, Device &D) {
  std::vector<uint64_t> GlobalAddr;
  std::vector<size_t> Fresh;
  for (const GlobalVar &G : P.globals) {
    Buffer *B = D.find(G.name);
    if (!B) {
      support::Expected<uint64_t> A = D.allocate(G.name, G.bytes);
      if (!A)
        return A.error().message;
      Fresh.push_back(GlobalAddr.size());
      B = D.find(G.name);
    } else if (B->bytes() != G.bytes) {
      return "module variable '" + G.name + "' clashes with a buffer of another size";
    }
    GlobalAddr.push_back(B->base);
  }
  for (size_t K : Fresh) { // initialised once every variable has its address
    const GlobalVar &G = P.globals[K];
    Buffer *B = D.find(G.name);
    std::copy(G.init.begin(), G.init.end(), B->data.begin());
    relocate(B->data, G.relocs, GlobalAddr);
  }
  X.constData = P.constImage.data();
  X.constSize = P.constImage.size();
  if (!P.constRelocs.empty()) {
    X.constCopy = P.constImage;
    relocate(X.constCopy, P.constRelocs, GlobalAddr);
    X.constData = X.constCopy.data();
  }
  X.consts.resize(P.funcs.size());
  for (size_t F = 0; F < P.funcs.size(); ++F) {
    // Only the functions the kernel may call (their pcs lie in the kernel's range).
    if (P.funcs[F].entry < X.pcLo || P.funcs[F].entry >= X.pcLo + X.warpCount.size())
      continue;
    const std::vector<ConstSpec> &C = P.funcs[F].consts;
    X.consts[F].assign(C.size() * 32, 0);
    for (size_t K = 0; K < C.size(); ++K) {
      uint64_t V = C[K].value + (C[K].globalVar >= 0 ? GlobalAddr[C[K].globalVar] : 0);
      std::fill_n(X.consts[F].begin() + K * 32, 32, V);
    }
  }
  return {};
}

/// A released warp that waited at a bar.red (the instruction before its resume pc) gets the
/// reduction of barrier B in its destination, in the lanes that arrived.
void deliverReduction(Exec &X, Warp &W, uint32_t B) {
  const StackEntry &T = W.stack.back();
  const DInstr &I = X.prog->code[T.pc - 1];
  if (I.aux3 == 0)
    return;
  uint64_t V = (I.aux3 & 3) == 1   ? X.barRedCount[B]
               : (I.aux3 & 3) == 2 ? uint64_t(X.barRedAll[B])
                                   : uint64_t(X.barRedAny[B]);
  uint64_t *D = opPtr(W, I, 3);
  forLanes(T.mask, [&](unsigned L) { D[L] = V; });
}

void resetReduction(Exec &X, uint32_t B) {
  X.barRedCount[B] = 0;
  X.barRedAll[B] = true;
  X.barRedAny[B] = false;
}

/// Releases every complete barrier; the pc the lowest released warp continues at, or NoPc.
uint32_t tryRelease(Exec &X, std::vector<Warp> &Warps, size_t N, uint32_t Threads) {
  uint32_t Pc = NoPc;
  for (uint32_t B = 0; B < 16; ++B) {
    if (X.barArrived[B] == 0 || X.barArrived[B] < X.barExpected[B])
      continue;
    for (size_t W = 0; W < N; ++W)
      if (Warps[W].state == WarpState::AtBarrier && Warps[W].barrierId == B) {
        Warps[W].state = WarpState::Ready;
        deliverReduction(X, Warps[W], B);
        if (Pc == NoPc)
          Pc = Warps[W].stack.back().pc;
      }
    X.barArrived[B] = 0;
    X.barExpected[B] = Threads;
    resetReduction(X, B);
    ++X.prof.barrierSyncs;
  }
  return Pc;
}

void deadlock(Exec &X, const Warp &W) {
  uint32_t B = W.barrierId;
  const StackEntry &T = W.stack.back();
  const DInstr &I = X.prog->code[T.pc - 1];
  std::string Why = "barrier deadlock: barrier " + std::to_string(B) + " waits for " +
                    std::to_string(X.barExpected[B]) + " threads, " +
                    std::to_string(X.barArrived[B]) + " arrived";
  if (T.mask != W.liveMask)
    Why += " (the barrier is in divergent code)";
  raiseTrap(X, W, I, TrapKind::BarrierDeadlock, Why,
            static_cast<uint32_t>(std::countr_zero(T.mask)));
}

/// Full scheduling rounds without progress after which a CTA is livelocked.
constexpr unsigned LivelockRounds = 2;

/// Every warp of the CTA still running is back in the state it yielded in a round before
/// (WarpRunner.h yieldedUnchanged): a deterministic machine that repeats its state loops forever.
void livelock(Exec &X, const std::vector<Warp> &Warps) {
  size_t W = 0;
  while (Warps[W].state != WarpState::Ready)
    ++W;
  const StackEntry &T = Warps[W].stack.back();
  const std::string Why =
      Warps[W].yieldedInWait
          ? "an mbarrier wait that no arrival or transaction of the CTA can end (fewer arrivals "
            "than the barrier expects?)"
          : "a lock between threads of one warp needs independent thread scheduling, which the "
            "interpreter does not model; a wait for another CTA never ends";
  raiseTrap(X, Warps[W], X.prog->code[T.pc], TrapKind::Livelock,
            "no progress: every running warp of the CTA loops back to the same state (" + Why + ")",
            static_cast<uint32_t>(std::countr_zero(T.mask)));
}

/// Runs the current CTA (X.ctaid) to completion; false on a trap. `Skip` (may be null) sees
/// every barrier release and may extrapolate loop iterations.
bool runCta(Exec &X, std::vector<Warp> &Warps, uint32_t Func, LoopSkipper *Skip) {
  uint32_t Threads = X.block[0] * X.block[1] * X.block[2];
  size_t N = (Threads + 31) / 32;
  X.shared.assign(size_t(X.prog->dynamicSharedOffset) + X.dynShared, 0);
  std::fill(std::begin(X.barArrived), std::end(X.barArrived), 0);
  std::fill(std::begin(X.barExpected), std::end(X.barExpected), Threads);
  for (uint32_t B = 0; B < 16; ++B)
    resetReduction(X, B);
  if (Warps.size() < N)
    Warps.resize(N);
  for (size_t W = 0; W < N; ++W)
    if (!initWarp(X, Warps[W], static_cast<uint32_t>(W), Func))
      return false;
  if (Skip)
    Skip->beginCta();
  size_t Pos = 0;
  for (;;) {
    uint32_t Pc = NoPc;
    CtaEvent E = advanceCta(X, Warps, N, Pos, Pc);
    if (E != CtaEvent::Released)
      return E == CtaEvent::Finished;
    if (Skip)
      Skip->onRelease(X, Warps, N, Pos, Pc);
    ++Pos;
  }
}

/// Per-pc counts into per-class counts, and tensor multiply-adds: a tensor-core instruction
/// runs with all 32 lanes or traps, so its executions are its thread count / 32.
/// Whether a pc of the kernel (and its callees) is a bar.red.
bool reducesAtBarriers(const ProgramImpl &P, PcRange Pcs) {
  for (uint32_t Pc = Pcs.lo; Pc < Pcs.hi; ++Pc)
    if (P.code[Pc].flow == Flow::Bar && P.code[Pc].aux3 != 0)
      return true;
  return false;
}

void aggregate(Exec &X, const ProgramImpl &P) {
  for (size_t K = 0; K < X.warpCount.size(); ++K) {
    const DInstr &I = P.code[X.pcLo + K];
    if (I.implicit)
      continue;
    size_t C = static_cast<size_t>(I.cls);
    X.prof.warpInstructions[C] += X.warpCount[K];
    X.prof.threadInstructions[C] += X.threadCount[K];
    if (I.wide) {
      const WideOperands &W = P.wide[I.wide - 1];
      X.prof.tensorMacs += W.macs * (X.threadCount[K] / 32);
      if (W.int8)
        X.prof.tensorMacsInt8 += W.macs * (X.threadCount[K] / 32);
    }
  }
}

} // namespace

CtaEvent advanceCta(Exec &X, std::vector<Warp> &Warps, size_t N, size_t &Pos, uint32_t &ReleasePc) {
  uint32_t Threads = X.block[0] * X.block[1] * X.block[2];
  // Rounds in a row in which every warp that ran yielded in the state it yielded in before.
  unsigned Stuck = 0;
  bool Progress = false;
  for (;;) {
    for (; Pos < N; ++Pos) {
      if (Warps[Pos].state != WarpState::Ready)
        continue;
      runWarp(X, Warps[Pos]);
      if (X.trap)
        return CtaEvent::Failed;
      if (Warps[Pos].state != WarpState::Ready || !yieldedUnchanged(X, Warps[Pos]))
        Progress = true;
      ReleasePc = tryRelease(X, Warps, N, Threads);
      if (ReleasePc != NoPc)
        return CtaEvent::Released;
    }
    Pos = 0;
    const Warp *Waiting = nullptr;
    bool AnyReady = false;
    for (size_t W = 0; W < N; ++W) {
      AnyReady |= Warps[W].state == WarpState::Ready;
      if (!Waiting && Warps[W].state == WarpState::AtBarrier)
        Waiting = &Warps[W];
    }
    if (!Waiting && !AnyReady)
      return CtaEvent::Finished;
    if (!AnyReady) {
      deadlock(X, *Waiting);
      return CtaEvent::Failed;
    }
    Stuck = Progress ? 0 : Stuck + 1;
    Progress = false;
    if (Stuck == LivelockRounds) {
      livelock(X, Warps);
      return CtaEvent::Failed;
    }
  }
}

void raiseTrap(Exec &X, const Warp &W, const DInstr &I, TrapKind Kind, std::string Reason,
               uint32_t Lane) {
  if (X.trap)
    return;
  Trap T;
  T.kind = Kind;
  T.kernel = X.kernel;
  T.file = X.prog->file;
  const DInstr *B = X.prog->code.data(), *E = B + X.prog->code.size();
  T.line = I.line;
  if (!std::less<const DInstr *>()(&I, B) && std::less<const DInstr *>()(&I, E))
    T.pc = static_cast<uint32_t>(&I - B);
  T.hasThread = true;
  T.ctaid = X.ctaid;
  Lane &= 31;
  T.tid = {W.tid[Lane][0], W.tid[Lane][1], W.tid[Lane][2]};
  T.reason = std::move(Reason);
  X.trap = std::move(T);
}

RunResult runKernel(const Program &Prog, std::string_view Kernel, const LaunchConfig &L, Device &D,
                    const RunSettings &S) {
  return runKernelSkipping(Prog, Kernel, L, D, S, nullptr);
}

RunResult runKernelSkipping(const Program &Prog, std::string_view Kernel, const LaunchConfig &L,
                            Device &D, const RunSettings &S, LoopSkipper *Skipper) {
  if (Skipper)
    Skipper->beginLaunch({}); // statistics of this launch only, also when it fails early
  const ProgramImpl &P = Prog.impl();
  RunResult R;
  R.profile.kernel = std::string(Kernel);
  R.profile.grid = L.grid;
  R.profile.block = L.block;
  R.profile.sharedBytes = L.sharedBytes;
  auto Fail = [&](TrapKind K, std::string Why, uint32_t Line = 0) {
    R.trap = Trap{K, std::string(Kernel), P.file, Line, 0, false, {}, {}, std::move(Why)};
    return R;
  };
  const DFunction *It = P.kernel(Kernel);
  if (!It)
    return Fail(TrapKind::BadLaunch, "no kernel named '" + std::string(Kernel) + "'");
  R.profile.registersPerThread = It->resources.registers;
  R.profile.staticSharedBytes = It->resources.staticSharedBytes;
  uint32_t Func = static_cast<uint32_t>(It - P.funcs.data());
  std::vector<support::Error> Unsup = Prog.unsupported(Kernel);
  if (!Unsup.empty())
    return Fail(TrapKind::Unsupported, Unsup[0].message, Unsup[0].line);
  if (std::string Why = checkLaunch(*It, L, S); !Why.empty())
    return Fail(TrapKind::BadLaunch, Why, It->line);
  Exec X;
  X.prog = &P;
  X.dev = &D;
  X.settings = &S;
  X.kernel = std::string(Kernel);
  X.grid = L.grid;
  X.block = L.block;
  X.dynShared = L.sharedBytes;
  X.warpsPerCta = (L.block[0] * L.block[1] * L.block[2] + 31) / 32;
  X.budget = X.budgetLeft = std::max<uint64_t>(S.maxWarpInstructions, 1);
  X.kernelParams.assign(It->kernelParamBytes, 0);
  for (size_t A = 0; A < L.args.size(); ++A)
    std::copy(L.args[A].bytes.begin(), L.args[A].bytes.end(),
              X.kernelParams.begin() + It->kernelParams[A].offset);
  PcRange Pcs = kernelPcRange(P, Func);
  X.pcLo = Pcs.lo;
  X.warpCount.assign(Pcs.hi - Pcs.lo, 0);
  X.threadCount.assign(Pcs.hi - Pcs.lo, 0);
  if (std::string Why = prepareMemory(X, P, D); !Why.empty())
    return Fail(TrapKind::BadLaunch, Why, It->line);
  X.prof = R.profile;
  std::vector<Warp> Own;
  std::vector<Warp> &Warps = Skipper ? Skipper->warpPool() : Own;
  LoopSkipper *Skip = nullptr;
  // Module .global variables are real memory the snapshots do not cover, nor are bar.red's
  // partial reductions.
  if (Skipper && Skipper->options().enabled && P.globals.empty() && !reducesAtBarriers(P, Pcs)) {
    Skip = Skipper;
    Skip->beginLaunch(Pcs);
    Skip->prepare(P, Func);
    X.warpSkip = Skip->warpSkipper();
  }
  uint64_t GX = L.grid[0], GY = L.grid[1];
  uint64_t Linear = GX * GY * L.grid[2];
  uint64_t Count = L.ctaSubset.empty() ? Linear : L.ctaSubset.size();
  for (uint64_t K = 0; K < Count && !X.trap; ++K) {
    uint64_t C = L.ctaSubset.empty() ? K : L.ctaSubset[K];
    X.ctaid = {static_cast<uint32_t>(C % GX), static_cast<uint32_t>(C / GX % GY),
               static_cast<uint32_t>(C / (GX * GY))};
    if (runCta(X, Warps, Func, Skip))
      ++X.prof.ctasRun;
    if (S.ctaProgress && ((K & 4095) == 4095 || K + 1 == Count))
      S.ctaProgress(K + 1, Count);
  }
  aggregate(X, P);
  R.profile = X.prof;
  R.trap = X.trap;
  return R;
}

} // namespace analyzer
