// KernelEmitter: owns the LLVM modules of generated kernels (four to a module), deduplicates them
// by name, and runs the O3 pipeline plus the NVPTX backend on the modules in parallel; the PTX
// files are put together from per-kernel sections (PtxSections.h), some from a KernelCache.
#include "corpus/KernelGen.h"
#include "kernels/Int8Gemm.h"
#include "kernels/PtxSections.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"
#include "support/Parallel.h"

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
#include <cassert>
#include <map>
#include <mutex>
#include <optional>

using namespace llvm;

namespace corpus {

namespace {

constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";
constexpr size_t MaxModules = 4; ///< PTX modules a split emitter fills in turn
constexpr size_t CompileRun = 4; ///< consecutive kernels built (and compiled) in one LLVM module
constexpr const char *KnownArchs[] = {"sm_70", "sm_75", "sm_80", "sm_86",
                                      "sm_87", "sm_89", "sm_90"};

/// The PTX ISA version to write for Arch: LLVM's default for the architecture (sm_70: 6.0, sm_75:
/// 6.3, ...) except where the tensor-core kernels need a later one: mma.m8n8k4 needs PTX 6.4,
/// ldmatrix and mma.m16n8k8 f16 need 6.5 (PTX ISA 9.7.15.5, 9.7.15.5.15).
const char *ptxFeatures(const std::string &Arch) {
  return Arch == "sm_70" ? "+ptx64" : Arch == "sm_75" ? "+ptx65" : "";
}

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
                          "' (expected sm_70, sm_75, sm_80, sm_86, sm_87, sm_89 or sm_90)");
  std::string Msg;
  const Target *T = TargetRegistry::lookupTarget(NvptxTriple, Msg);
  if (!T)
    return support::Error("nvptx target unavailable: " + Msg);
  std::unique_ptr<TargetMachine> TM(
      T->createTargetMachine(NvptxTriple, Arch, ptxFeatures(Arch), TargetOptions(), std::nullopt,
                             std::nullopt, CodeGenOptLevel::Aggressive));
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

/// Kernels built into one LLVM module and context: runs of CompileRun consecutive kernels, so
/// LLVM's cost per module is shared by a few kernels, and runs compile on separate threads.
struct ModulePart {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::vector<std::string> Kernels; ///< in the order they are defined
  explicit ModulePart(const std::string &DataLayout) {
    // Local value names never reach the PTX (registers are numbered by the backend), and
    // keeping them costs every pass string work: drop them, as clang does in release builds.
    Ctx.setDiscardValueNames(true);
    M = std::make_unique<Module>("ptxcast_kernels", Ctx);
    M->setTargetTriple(NvptxTriple);
    M->setDataLayout(DataLayout);
  }
};

/// Drops from M every kernel not in Keep, with its annotations and the globals only it used.
void keepOnly(Module &M, const std::vector<std::string> &Keep) {
  auto Kept = [&](const Function *F) {
    return F && std::find(Keep.begin(), Keep.end(), F->getName()) != Keep.end();
  };
  if (NamedMDNode *A = M.getNamedMetadata("nvvm.annotations")) {
    std::vector<MDNode *> Ops;
    for (MDNode *Op : A->operands())
      if (Kept(mdconst::dyn_extract_or_null<Function>(Op->getOperand(0))))
        Ops.push_back(Op);
    A->clearOperands();
    for (MDNode *Op : Ops)
      A->addOperand(Op);
  }
  for (Function &F : make_early_inc_range(M.functions()))
    if (!F.isDeclaration() && !Kept(&F))
      F.eraseFromParent();
  for (GlobalVariable &G : make_early_inc_range(M.globals())) {
    G.removeDeadConstantUsers(); // e.g. a constant GEP left by an erased kernel
    if (G.use_empty())
      G.eraseFromParent();
  }
}

/// The PTX of a copy of Part's module reduced to the kernels `Keep` (in module order),
/// optimised with the O3 pipeline and emitted by TM.
support::Expected<std::string> emitModule(const ModulePart &Part,
                                          const std::vector<std::string> &Keep, TargetMachine &TM) {
  std::string Report;
  raw_string_ostream ReportOS(Report);
  if (verifyModule(*Part.M, &ReportOS))
    return support::Error("generated kernel module fails verification: " + ReportOS.str());
  std::unique_ptr<Module> Copy = CloneModule(*Part.M);
  if (Keep.size() < Part.Kernels.size())
    keepOnly(*Copy, Keep);
  Copy->setDataLayout(TM.createDataLayout());
  optimize(*Copy, TM);
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile))
    return support::Error("the nvptx backend cannot emit assembly for " + TM.getTargetCPU().str());
  PM.run(*Copy);
  return std::string(Buf.str());
}

/// Kernel `Name` of M as IR text (tests of kernel names).
std::string functionIr(const Module &M, const std::string &Name) {
  std::string S;
  raw_string_ostream OS(S);
  if (const Function *F = M.getFunction(Name))
    F->print(OS);
  return OS.str();
}

} // namespace

struct KernelEmitter::Impl {
  size_t KernelsPerModule = 0;                    ///< 0: one PTX module
  std::vector<std::unique_ptr<ModulePart>> Parts; ///< kernel K is in Parts[K / CompileRun]
  std::map<std::string, KernelLaunch> Launches;
  std::string DataLayout; ///< NVPTX's (the same for every architecture)

  Impl() {
    initNvptx();
    if (auto TM = createTargetMachine("sm_90"))
      DataLayout = (*TM)->createDataLayout().getStringRepresentation();
  }

  /// The PTX module kernel `K` goes to: runs of KernelsPerModule kernels fill MaxModules modules
  /// in turn (a fixed rule, so the split never depends on the machine).
  size_t moduleOf(size_t K) const {
    return KernelsPerModule == 0 ? 0 : (K / KernelsPerModule) % MaxModules;
  }

  KernelSet Set = KernelSet::Specialised; ///< useKernelSet
  bool CheckNames = false;
  std::map<std::string, std::string> IrOf; ///< CheckNames: each kernel's IR

  /// The set a kernel comes from: kernels with 64-bit index arithmetic stay specialised (their
  /// shapes can pass 32 bits).
  KernelSet setFor(bool Wide) const { return Wide ? KernelSet::Specialised : Set; }

  /// Adds kernel `Name` of set `Kind` (once): Build(M, Name, Kind) plans the launch and, with a
  /// module, adds the kernel to it. A library kernel's launch is planned for every layer.
  template <class BuildFn>
  support::Expected<KernelLaunch> addKernel(std::optional<std::string> Invalid, KernelSet Kind,
                                            const std::string &Name, BuildFn &&Build) {
    if (Invalid)
      return support::Error(*Invalid);
    if (auto It = Launches.find(Name); It != Launches.end()) {
      if (CheckNames) {
        ModulePart Scratch(DataLayout);
        Build(Scratch.M.get(), Name, Kind);
        if (functionIr(*Scratch.M, Name) != IrOf[Name])
          return support::Error("kernel name " + Name + " stands for two different kernels");
      }
      return Kind == KernelSet::Specialised ? It->second : Build(nullptr, Name, Kind);
    }
    if (Launches.size() % CompileRun == 0)
      Parts.push_back(std::make_unique<ModulePart>(DataLayout));
    Parts.back()->Kernels.push_back(Name);
    KernelLaunch L = Build(Parts.back()->M.get(), Name, Kind);
    if (CheckNames)
      IrOf[Name] = functionIr(*Parts.back()->M, Name);
    Launches.emplace(Name, L);
    return L;
  }

  /// addKernel for a layer spec whose kernel set, validity and name follow from the spec alone:
  /// Build(M, S, Name, Set) plans the launch and, with a module, adds the kernel.
  template <class Spec, class BuildFn>
  support::Expected<KernelLaunch> addSpec(const Spec &S, BuildFn &&Build) {
    if constexpr (requires { S.dtype; })
      if (S.dtype == DType::I8)
        return support::Error("int8 data is for convolutions and dense layers only (docs/"
                              "lowering.md, \"Int8 engines\"): other layers run in f16");
    const KernelSet K = setFor(kernels::wideIndex(S));
    return addKernel(
        kernels::validate(S), K, kernels::kernelName(S, K),
        [&](Module *M, const std::string &Name, KernelSet Set) { return Build(M, S, Name, Set); });
  }

  /// addKernel for an int8 convolution or dense layer (Int8Gemm.h): 32-bit indices always.
  template <class Spec> support::Expected<KernelLaunch> addInt8(const Spec &S) {
    return addKernel(kernels::validateInt8(S), Set, kernels::int8KernelName(S, Set),
                     [&](Module *M, const std::string &Name, KernelSet K) {
                       return kernels::buildInt8(M, S, Name, K);
                     });
  }

  using Compiled = std::vector<std::shared_ptr<const CompiledKernel>>;
  /// Compiles the kernels of Parts[I] that Cache lacks into Out (indexed by kernel).
  support::Expected<bool> compilePart(size_t I, const std::string &Arch, TargetMachine &TM,
                                      KernelCache *Cache, Compiled &Out) const;
  /// Every kernel compiled (or found in Cache) for Arch, on up to Threads threads, in order.
  support::Expected<Compiled> compileAll(const std::string &Arch, unsigned Threads,
                                         KernelCache *Cache) const;
};

support::Expected<bool> KernelEmitter::Impl::compilePart(size_t I, const std::string &Arch,
                                                         TargetMachine &TM, KernelCache *Cache,
                                                         Compiled &Out) const {
  const ModulePart &Part = *Parts[I];
  std::vector<std::string> Want;
  std::vector<size_t> At;
  for (size_t K = 0; K < Part.Kernels.size(); ++K) {
    size_t Kernel = I * CompileRun + K;
    if (!Cache || !(Out[Kernel] = Cache->find(Arch, Part.Kernels[K]))) {
      Want.push_back(Part.Kernels[K]);
      At.push_back(Kernel);
    }
  }
  if (Want.empty())
    return true;
  auto Ptx = emitModule(Part, Want, TM);
  if (!Ptx)
    return Ptx.error();
  auto C = kernels::splitPtx(*Ptx, Want.size());
  if (!C)
    return support::Error("the nvptx backend did not print " + std::to_string(Want.size()) +
                          " kernels for " + Want.front() + " and the kernels after it");
  for (size_t K = 0; K < Want.size(); ++K) {
    Out[At[K]] = std::make_shared<const CompiledKernel>(std::move((*C)[K]));
    if (Cache)
      Cache->insert(Arch, Want[K], Out[At[K]]);
  }
  return true;
}

support::Expected<KernelEmitter::Impl::Compiled>
KernelEmitter::Impl::compileAll(const std::string &Arch, unsigned Threads,
                                KernelCache *Cache) const {
  auto First = createTargetMachine(Arch);
  if (!First)
    return First.error();
  // one per thread: codegen mutates it
  std::vector<std::unique_ptr<TargetMachine>> TMs(support::workerCount(Parts.size(), Threads));
  TMs[0] = std::move(*First);
  Compiled Out(Launches.size());
  std::vector<support::MaybeError> Failed(Parts.size());
  support::parallelFor(Parts.size(), Threads, [&](size_t I, unsigned W) {
    if (!TMs[W])
      TMs[W] = std::move(*createTargetMachine(Arch));
    if (auto R = compilePart(I, Arch, *TMs[W], Cache, Out); !R)
      Failed[I] = R.error();
  });
  for (support::MaybeError &E : Failed)
    if (E)
      return std::move(*E);
  return Out;
}

KernelEmitter::KernelEmitter() : P(std::make_unique<Impl>()) {}
KernelEmitter::~KernelEmitter() = default;
KernelEmitter::KernelEmitter(KernelEmitter &&) noexcept = default;
KernelEmitter &KernelEmitter::operator=(KernelEmitter &&) noexcept = default;

support::Expected<KernelLaunch> KernelEmitter::add(const ConvSpec &S) {
  if (S.dtype == DType::I8)
    return P->addInt8(S);
  ConvStrategy R = kernels::resolveStrategy(S);
  const KernelSet K = P->setFor(kernels::wideIndex(S));
  return P->addKernel(kernels::validate(S, R), K, kernels::kernelName(S, R, K),
                      [&](Module *M, const std::string &Name, KernelSet Set) {
                        if (kernels::usesTensorCores(S, R))
                          return kernels::buildMmaConv(M, S, Name, Set, R);
                        if (R == ConvStrategy::Gemm)
                          return kernels::buildConvGemm(M, S, Name, Set);
                        if (R == ConvStrategy::ImplicitGemm)
                          return kernels::buildImplicitGemmConv(M, S, Name, Set);
                        return kernels::buildDirectConv(M, S, Name, Set,
                                                        R == ConvStrategy::Depthwise);
                      });
}

support::Expected<KernelLaunch> KernelEmitter::add(const GemmSpec &S) {
  if (S.dtype == DType::I8)
    return P->addInt8(S);
  return P->addSpec(S, [](Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set) {
    if (S.rows < kernels::MinGemmRows)
      return kernels::buildDenseGemv(M, S, Name, Set);
    if (kernels::usesTensorCores(S))
      return kernels::buildMmaDense(M, S, Name, Set);
    return kernels::buildDenseGemm(M, S, Name, Set);
  });
}

support::Expected<KernelLaunch> KernelEmitter::add(const BatchMatMulSpec &S) {
  return P->addSpec(
      S, [](Module *M, const BatchMatMulSpec &S, const std::string &Name, KernelSet Set) {
        if (kernels::usesTensorCores(S))
          return kernels::buildMmaBatchMatMul(M, S, Name, Set);
        return kernels::buildBatchMatMul(M, S, Name, Set);
      });
}

support::Expected<KernelLaunch> KernelEmitter::add(const PoolSpec &S) {
  return P->addSpec(S, kernels::buildPool);
}

support::Expected<KernelLaunch> KernelEmitter::add(const UpsampleSpec &S) {
  return P->addSpec(S, kernels::buildUpsample);
}

support::Expected<KernelLaunch> KernelEmitter::add(const PadSpec &S) {
  return P->addSpec(S, kernels::buildPad);
}

support::Expected<KernelLaunch> KernelEmitter::add(const ReduceSpec &S) {
  return P->addSpec(S, kernels::buildGlobalAvgPool);
}

support::Expected<KernelLaunch> KernelEmitter::add(const ElementwiseSpec &S) {
  return P->addSpec(S, kernels::buildElementwise);
}

support::Expected<KernelLaunch> KernelEmitter::add(const ConcatSpec &S) {
  return P->addSpec(S, kernels::buildConcat);
}

support::Expected<KernelLaunch> KernelEmitter::add(const SoftmaxSpec &S) {
  return P->addSpec(S, kernels::buildSoftmax);
}

support::Expected<KernelLaunch> KernelEmitter::add(const AxisReduceSpec &S) {
  return P->addSpec(S, kernels::buildAxisReduce);
}

support::Expected<KernelLaunch> KernelEmitter::add(const LayerNormSpec &S) {
  return P->addSpec(S, kernels::buildLayerNorm);
}

support::Expected<KernelLaunch> KernelEmitter::add(const CopySpec &S) {
  return P->addSpec(S, kernels::buildCopy);
}

support::Expected<KernelLaunch> KernelEmitter::add(const ReformatSpec &S) {
  return P->addSpec(S, kernels::buildReformat);
}

void KernelEmitter::useKernelSet(KernelSet K) {
  assert(P->Launches.empty() && "choose the kernel set before adding kernels");
  P->Set = K;
}

void KernelEmitter::checkNames(bool On) { P->CheckNames = On; }

size_t KernelEmitter::kernelCount() const { return P->Launches.size(); }

void KernelEmitter::splitModules(size_t KernelsPerModule) {
  assert(P->Launches.empty() && "split before adding kernels");
  P->KernelsPerModule = KernelsPerModule;
}

size_t KernelEmitter::moduleCount() const {
  const size_t N = P->Launches.size(), Run = P->KernelsPerModule;
  return Run == 0 || N == 0 ? 1 : std::min(MaxModules, (N + Run - 1) / Run);
}

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
  assert(moduleCount() == 1 && "emitPtx needs a single module; use emitPtxModules");
  auto Ptx = emitPtxModules(Arch, 1);
  if (!Ptx)
    return Ptx.error();
  return std::move(Ptx->front());
}

support::Expected<std::vector<std::string>>
KernelEmitter::emitPtxModules(const std::string &Arch, unsigned Threads, KernelCache *Cache) const {
  // Tensor-core kernels use instructions that the NVPTX backend cannot select for older targets
  // (it would abort): refuse them here, by name.
  for (const auto &[Name, L] : P->Launches) {
    if (auto E = mathModeError(L.math, L.dtype, Arch))
      return support::Error("kernel " + Name + ": " + *E);
    if (auto E = kernels::mmaArchError(L.math, L.mmaArch, Arch))
      return support::Error("kernel " + Name + ": " + *E);
  }
  auto Kernels = P->compileAll(Arch, Threads, Cache);
  if (!Kernels)
    return Kernels.error();
  std::vector<std::string> Ptx(moduleCount());
  std::vector<size_t> InModule(Ptx.size(), 0);
  for (size_t K = 0; K < Kernels->size(); ++K) {
    const CompiledKernel &C = *(*Kernels)[K];
    size_t Mod = P->moduleOf(K);
    if (InModule[Mod] == 0)
      Ptx[Mod] = C.header;
    assert(C.header == Ptx[Mod].substr(0, C.header.size()) && "kernels with different headers");
    Ptx[Mod] += kernels::renumberLabels(C.body, 0, InModule[Mod]++);
  }
  if (Kernels->empty()) { // a module without kernels is its header alone
    auto Empty = emitModule(ModulePart(P->DataLayout), {}, **createTargetMachine(Arch));
    if (!Empty)
      return Empty.error();
    Ptx.front() = std::move(*Empty);
  }
  return Ptx;
}

} // namespace corpus
