// KernelEmitter: owns the LLVM module of generated kernels, deduplicates them by name, and runs
// the O3 pipeline plus the NVPTX backend to produce PTX.
#include "corpus/KernelGen.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

using namespace llvm;

namespace corpus {

namespace {

constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";
constexpr size_t MaxModules = 4; ///< parts a split emitter fills in turn
constexpr const char *KnownArchs[] = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"};

void initNvptx() {
  // LLVM's target registry is process-wide; register the NVPTX target once, even when emitters
  // are created on several threads.
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

support::Expected<std::unique_ptr<TargetMachine>> createTargetMachine(const std::string &Arch) {
  bool Known = false;
  for (const char *A : KnownArchs)
    Known |= Arch == A;
  if (!Known)
    return support::Error("unknown gpu architecture '" + Arch +
                          "' (expected sm_75, sm_80, sm_86, sm_87, sm_89 or sm_90)");
  std::string Msg;
  const Target *T = TargetRegistry::lookupTarget(NvptxTriple, Msg);
  if (!T)
    return support::Error("nvptx target unavailable: " + Msg);
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(NvptxTriple, Arch, "", TargetOptions(),
                                                           std::nullopt, std::nullopt,
                                                           CodeGenOptLevel::Aggressive));
  if (!TM)
    return support::Error("cannot create the nvptx target machine for " + Arch);
  return TM;
}

/// LLVM's standard O3 module pipeline, with the NVPTX target's analyses and callbacks.
void optimize(Module &M, TargetMachine &TM) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  MPM.run(M, MAM);
}

/// One LLVM module with its own context, so parts can be optimised on separate threads.
struct ModulePart {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  ModulePart() {
    M = std::make_unique<Module>("ptxcast_kernels", Ctx);
    M->setTargetTriple(NvptxTriple);
    if (auto TM = createTargetMachine("sm_90"))
      M->setDataLayout((*TM)->createDataLayout());
  }
};

/// Optimises a copy of Part's module for Arch and returns its PTX.
support::Expected<std::string> emitPart(const ModulePart &Part, const std::string &Arch) {
  auto TM = createTargetMachine(Arch);
  if (!TM)
    return TM.error();
  std::string Report;
  raw_string_ostream ReportOS(Report);
  if (verifyModule(*Part.M, &ReportOS))
    return support::Error("generated kernel module fails verification: " + ReportOS.str());
  std::unique_ptr<Module> Copy = CloneModule(*Part.M);
  Copy->setDataLayout((*TM)->createDataLayout());
  optimize(*Copy, **TM);
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  legacy::PassManager PM;
  if ((*TM)->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile))
    return support::Error("the nvptx backend cannot emit assembly for " + Arch);
  PM.run(*Copy);
  return std::string(Buf.str());
}

} // namespace

struct KernelEmitter::Impl {
  size_t KernelsPerModule = 0; ///< 0: one module
  std::vector<std::unique_ptr<ModulePart>> Parts;
  std::map<std::string, KernelLaunch> Launches;

  Impl() {
    initNvptx();
    Parts.push_back(std::make_unique<ModulePart>());
  }

  /// The module the next new kernel goes to: runs of KernelsPerModule kernels fill MaxModules
  /// parts in turn (a fixed rule, so the split never depends on the machine).
  Module &nextModule() {
    if (KernelsPerModule == 0)
      return *Parts.front()->M;
    size_t Part = (Launches.size() / KernelsPerModule) % MaxModules;
    while (Parts.size() <= Part)
      Parts.push_back(std::make_unique<ModulePart>());
    return *Parts[Part]->M;
  }

  template <class BuildFn>
  support::Expected<KernelLaunch> addKernel(std::optional<std::string> Invalid,
                                            const std::string &Name, BuildFn &&Build) {
    if (Invalid)
      return support::Error(*Invalid);
    if (auto It = Launches.find(Name); It != Launches.end())
      return It->second;
    KernelLaunch L = Build(nextModule(), Name);
    Launches.emplace(Name, L);
    return L;
  }
};

KernelEmitter::KernelEmitter() : P(std::make_unique<Impl>()) {}
KernelEmitter::~KernelEmitter() = default;
KernelEmitter::KernelEmitter(KernelEmitter &&) noexcept = default;
KernelEmitter &KernelEmitter::operator=(KernelEmitter &&) noexcept = default;

support::Expected<KernelLaunch> KernelEmitter::add(const ConvSpec &S) {
  ConvStrategy R = kernels::resolveStrategy(S);
  return P->addKernel(kernels::validate(S, R), kernels::kernelName(S, R),
                      [&](Module &M, const std::string &Name) {
                        if (R == ConvStrategy::Gemm)
                          return kernels::buildConvGemm(M, S, Name);
                        if (R == ConvStrategy::ImplicitGemm)
                          return kernels::buildImplicitGemmConv(M, S, Name);
                        return kernels::buildDirectConv(M, S, Name, R == ConvStrategy::Depthwise);
                      });
}

support::Expected<KernelLaunch> KernelEmitter::add(const GemmSpec &S) {
  return P->addKernel(kernels::validate(S), kernels::kernelName(S),
                      [&](Module &M, const std::string &Name) {
                        if (S.rows < kernels::MinGemmRows)
                          return kernels::buildDenseGemv(M, S, Name);
                        return kernels::buildDenseGemm(M, S, Name);
                      });
}

support::Expected<KernelLaunch> KernelEmitter::add(const PoolSpec &S) {
  return P->addKernel(
      kernels::validate(S), kernels::kernelName(S),
      [&](Module &M, const std::string &Name) { return kernels::buildPool(M, S, Name); });
}

support::Expected<KernelLaunch> KernelEmitter::add(const ReduceSpec &S) {
  return P->addKernel(
      kernels::validate(S), kernels::kernelName(S),
      [&](Module &M, const std::string &Name) { return kernels::buildGlobalAvgPool(M, S, Name); });
}

support::Expected<KernelLaunch> KernelEmitter::add(const ElementwiseSpec &S) {
  return P->addKernel(
      kernels::validate(S), kernels::kernelName(S),
      [&](Module &M, const std::string &Name) { return kernels::buildElementwise(M, S, Name); });
}

support::Expected<KernelLaunch> KernelEmitter::add(const ConcatSpec &S) {
  return P->addKernel(
      kernels::validate(S), kernels::kernelName(S),
      [&](Module &M, const std::string &Name) { return kernels::buildConcat(M, S, Name); });
}

support::Expected<KernelLaunch> KernelEmitter::add(const SoftmaxSpec &S) {
  return P->addKernel(
      kernels::validate(S), kernels::kernelName(S),
      [&](Module &M, const std::string &Name) { return kernels::buildSoftmax(M, S, Name); });
}

size_t KernelEmitter::kernelCount() const { return P->Launches.size(); }

void KernelEmitter::splitModules(size_t KernelsPerModule) {
  assert(P->Launches.empty() && "split before adding kernels");
  P->KernelsPerModule = KernelsPerModule;
}

size_t KernelEmitter::moduleCount() const { return P->Parts.size(); }

std::string KernelEmitter::irText() const {
  std::string S;
  raw_string_ostream OS(S);
  for (const auto &Part : P->Parts)
    Part->M->print(OS, nullptr);
  return OS.str();
}

std::string KernelEmitter::verify() const {
  std::string S;
  raw_string_ostream OS(S);
  for (const auto &Part : P->Parts)
    verifyModule(*Part->M, &OS);
  return OS.str();
}

support::Expected<std::string> KernelEmitter::emitPtx(const std::string &Arch) const {
  assert(P->Parts.size() == 1 && "emitPtx needs a single module; use emitPtxModules");
  return emitPart(*P->Parts.front(), Arch);
}

support::Expected<std::vector<std::string>> KernelEmitter::emitPtxModules(const std::string &Arch,
                                                                          unsigned Threads) const {
  const size_t N = P->Parts.size();
  std::vector<std::optional<support::Expected<std::string>>> Out(N);
  std::atomic<size_t> Next = 0;
  auto Work = [&] {
    for (size_t I = Next++; I < N; I = Next++)
      Out[I].emplace(emitPart(*P->Parts[I], Arch));
  };
  Threads = std::max(1u, std::min<unsigned>(Threads, unsigned(N)));
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Work);
  Work();
  for (std::thread &T : Pool)
    T.join();
  std::vector<std::string> Ptx;
  for (auto &R : Out) {
    if (!*R)
      return R->error();
    Ptx.push_back(std::move(**R));
  }
  return Ptx;
}

} // namespace corpus
