// The test-kernel corpus (tests/kernels, compiled by nvcc 13 for sm_75/sm_80/sm_90 and by llc-19):
// every file is there, ptxas accepts it, it parses, it has the kernels its source defines, and
// the static instruction mix shows what each source exercises (facts read off the CUDA source).
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "ptx/Stats.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

/// Each source file and the functions with a body it defines (kernels and __device__ functions
/// marked __noinline__).
const std::map<std::string, std::vector<std::string>> &corpus() {
  static const std::map<std::string, std::vector<std::string>> Files = {
      {"atomics", {"atomics_global", "atomics_shared"}},
      {"conv2d", {"conv2d_nchw"}},
      {"counted", {"straight_line", "counted_loop", "grid_stride", "divergent_split"}},
      {"depthwise", {"depthwise3x3_nchw"}},
      {"devicecall", {"poly", "call_poly"}},
      {"divergence", {"divergent_branches"}},
      {"elementwise", {"saxpy", "bias_relu"}},
      {"half", {"half_ops", "bf16_convert"}},
      {"histogram", {"histogram256"}},
      {"matmul", {"matmul_tiled"}},
      {"pooling", {"maxpool2d_nchw", "avgpool2d_nchw"}},
      {"recursion", {"fib", "fib_kernel"}},
      {"reduction", {"reduce_sum"}},
      {"scan", {"inclusive_scan_block"}},
      {"softmax", {"softmax_rows"}},
      {"tensor_mma", {"mma_f16", "mma_bf16", "mma_tf32", "mma_s8"}},
      {"tensor_wmma",
       {"wmma_f16", "wmma_s8", "wmma_f16_acc16_m32n8", "wmma_u8_m8n32", "wmma_bf16", "wmma_tf32"}},
  };
  return Files;
}

const std::map<std::string, std::vector<std::string>> &llcCorpus() {
  static const std::map<std::string, std::vector<std::string>> Files = {
      {"loop_ll", {"loop_ll"}},
      {"saxpy_ll", {"saxpy_ll"}},
      {"shared_reduce_ll", {"shared_reduce_ll"}},
  };
  return Files;
}

bool haveNvcc() { return !std::string(PTXCAST_NVCC).empty(); }

std::string kernelPath(const std::string &Name) {
  return std::string(PTXCAST_KERNEL_DIR) + "/" + Name;
}

/// The architectures nvcc compiles every tests/kernels/*.cu for (tests/CMakeLists.txt).
constexpr const char *NvccArchs[] = {"sm_75", "sm_80", "sm_90"};

/// Every compiled file name: NAME.ARCH.ptx (nvcc) and NAME.llc.ptx (llc-19).
std::vector<std::string> allFiles() {
  std::vector<std::string> Names;
  if (haveNvcc())
    for (const auto &[Name, Fns] : corpus())
      for (const char *Arch : NvccArchs)
        Names.push_back(Name + "." + Arch + ".ptx");
  for (const auto &[Name, Fns] : llcCorpus())
    Names.push_back(Name + ".llc.ptx");
  return Names;
}

ptx::Module load(const std::string &File) {
  support::Expected<ptx::Module> M = ptx::parseFile(kernelPath(File));
  if (!M)
    FAIL(M.error().str());
  return std::move(*M);
}

uint64_t count(const ptx::Function &F, ptx::InstrClass C) {
  return ptx::staticCounts(F)[static_cast<size_t>(C)];
}

const ptx::Function &function(const ptx::Module &M, const std::string &Name) {
  const ptx::Function *F = M.findFunction(Name);
  if (!F)
    FAIL("no function " << Name << " in " << M.file);
  return *F;
}

/// Number of `call` instructions in F whose callee operand is `Callee`.
int callsTo(const ptx::Function &F, const std::string &Callee) {
  int N = 0;
  for (const ptx::BasicBlock &B : F.blocks)
    for (const ptx::Instruction &I : B.instrs)
      if (I.opcode == ptx::Opcode::Call)
        for (const ptx::Operand &O : I.operands)
          N += O.kind == ptx::Operand::Kind::Symbol && O.name == Callee;
  return N;
}

} // namespace

TEST_CASE("corpus: every kernel file exists, parses, and has its functions") {
  for (const std::string &File : allFiles()) {
    CAPTURE(File);
    REQUIRE(std::filesystem::exists(kernelPath(File)));
    ptx::Module M = load(File);
    std::string Stem = File.substr(0, File.find('.'));
    const auto &Table = File.find(".llc.") != std::string::npos ? llcCorpus() : corpus();
    std::vector<std::string> Names;
    for (const ptx::Function &F : M.functions)
      if (F.hasBody)
        Names.push_back(F.name);
    std::vector<std::string> Expected = Table.at(Stem);
    std::sort(Names.begin(), Names.end());
    std::sort(Expected.begin(), Expected.end());
    CHECK(Names == Expected);
    for (const ptx::Function &F : M.functions)
      if (F.hasBody) {
        CAPTURE(F.name);
        CHECK(!F.blocks.empty());
        CHECK(F.isEntry == (F.name != "poly" && F.name != "fib"));
        uint64_t Total = 0, Instrs = 0;
        for (uint64_t C : ptx::staticCounts(F))
          Total += C;
        for (const ptx::BasicBlock &B : F.blocks)
          Instrs += B.instrs.size();
        CHECK(Total == Instrs);
      }
  }
}

TEST_CASE("corpus: printing and re-parsing gives the same module") {
  for (const std::string &File : allFiles()) {
    CAPTURE(File);
    ptx::Module M = load(File);
    support::Expected<ptx::Module> Again = ptx::parseModule(ptx::print(M), File);
    if (!Again)
      FAIL_CHECK(Again.error().str());
    else
      CHECK(*Again == M);
  }
}

TEST_CASE("corpus: ptxas accepts every kernel") {
  if (std::string(PTXCAST_PTXAS).empty()) {
    MESSAGE("skipped: no ptxas");
    return;
  }
  for (const std::string &File : allFiles()) {
    CAPTURE(File);
    std::string Arch = "sm_90"; // llc output targets sm_90; nvcc output is NAME.ARCH.ptx
    for (const char *A : NvccArchs)
      if (File.find(A) != std::string::npos)
        Arch = A;
    std::string Cmd = std::string(PTXCAST_PTXAS) + " -arch=" + Arch + " -o /dev/null " +
                      kernelPath(File) + " > /dev/null 2>&1";
    CHECK(std::system(Cmd.c_str()) == 0);
  }
}

TEST_CASE("corpus: the instruction mix shows what each source exercises") {
  using C = ptx::InstrClass;
  if (!haveNvcc()) {
    MESSAGE("skipped: no nvcc");
    return;
  }
  for (const char *Arch : NvccArchs) {
    CAPTURE(Arch);
    auto Mod = [&](const char *Name) { return load(std::string(Name) + "." + Arch + ".ptx"); };
    ptx::Module M = Mod("tensor_wmma");
    CHECK(count(function(M, "wmma_f16"), C::Tensor) > 0); // wmma.load/mma/store
    CHECK(count(function(M, "wmma_s8"), C::Tensor) > 0);
    if (std::string(Arch) != "sm_75") { // mma.sync on bf16/tf32, ldmatrix and cp.async: sm_80+
      CHECK(count(function(M, "wmma_tf32"), C::Convert) > 0); // cvt.rna.tf32.f32
      M = Mod("tensor_mma"); // per mma.sync (nvcc unrolls the k loop):
      const ptx::Function &F16 = function(M, "mma_f16");
      CHECK(count(F16, C::Tensor) > 0);
      CHECK(count(F16, C::LdShared) == 2 * count(F16, C::Tensor)); // ldmatrix .x4, .x2.trans
      CHECK(count(F16, C::LdGlobal) == 3 * count(F16, C::Tensor)); // three cp.async copies
    }
    M = Mod("reduction");
    CHECK(count(function(M, "reduce_sum"), C::Warp) > 0); // __shfl_down_sync
    CHECK(count(function(M, "reduce_sum"), C::Barrier) == 1);
    CHECK(count(function(M, "reduce_sum"), C::StShared) > 0);
    M = Mod("matmul");
    CHECK(count(function(M, "matmul_tiled"), C::Barrier) == 2); // two __syncthreads
    CHECK(count(function(M, "matmul_tiled"), C::LdShared) > 0);
    CHECK(count(function(M, "matmul_tiled"), C::Fp32) >= 16); // the unrolled k loop's fmas
    M = Mod("softmax");
    CHECK(count(function(M, "softmax_rows"), C::SpecialFn) > 0); // expf -> ex2.approx
    CHECK(count(function(M, "softmax_rows"), C::Warp) > 0);
    M = Mod("histogram");
    CHECK(count(function(M, "histogram256"), C::Atomic) == 2); // shared, then global
    M = Mod("atomics");
    CHECK(count(function(M, "atomics_global"), C::Atomic) == 12);
    CHECK(count(function(M, "atomics_shared"), C::Atomic) == 11);
    M = Mod("half");
    CHECK(count(function(M, "half_ops"), C::Fp16) > 0);
    CHECK(count(function(M, "bf16_convert"), C::Convert) > 0);
    M = Mod("recursion");
    CHECK(callsTo(function(M, "fib"), "fib") == 2);
    CHECK(callsTo(function(M, "fib_kernel"), "fib") == 1);
    M = Mod("devicecall");
    CHECK(callsTo(function(M, "call_poly"), "poly") == 2);
    M = Mod("counted");
    const ptx::Function &Straight = function(M, "straight_line");
    CHECK(count(Straight, C::Control) == 1); // only the ret
    CHECK(count(Straight, C::StGlobal) == 1);
  }
  ptx::Module M = load("shared_reduce_ll.llc.ptx");
  CHECK(count(function(M, "shared_reduce_ll"), C::Barrier) == 2); // before and inside the loop
  CHECK(count(function(M, "shared_reduce_ll"), C::LdShared) == 3);
}

TEST_CASE("corpus: counted.cu's hand-derived static counts") {
  using C = ptx::InstrClass;
  if (!haveNvcc()) {
    MESSAGE("skipped: no nvcc");
    return;
  }
  // Counts read off nvcc 13.0's sm_90 output by hand (documented in counted.cu).
  ptx::Module M = load("counted.sm_90.ptx");
  const ptx::Function &Straight = function(M, "straight_line");
  ptx::ClassCounts Expected{};
  Expected[static_cast<size_t>(C::LdParam)] = 1;
  Expected[static_cast<size_t>(C::Convert)] = 2;  // cvta.to.global, cvt.rn.f32.s32
  Expected[static_cast<size_t>(C::Move)] = 6;     // 3 special registers, 3 float constants
  Expected[static_cast<size_t>(C::IntMul)] = 2;   // mad.lo.s32, mul.wide.s32
  Expected[static_cast<size_t>(C::Fp32)] = 3;     // fma, mul, sub
  Expected[static_cast<size_t>(C::IntArith)] = 1; // add.s64
  Expected[static_cast<size_t>(C::StGlobal)] = 1;
  Expected[static_cast<size_t>(C::Control)] = 1; // ret
  CHECK(ptx::staticCounts(Straight) == Expected);
  const ptx::Function &Loop = function(M, "counted_loop");
  REQUIRE(Loop.blocks.size() == 3);
  CHECK(Loop.blocks[0].instrs.size() == 8);
  CHECK(Loop.blocks[1].instrs.size() == 5); // cvt, fma, add, setp, bra
  CHECK(Loop.blocks[2].instrs.size() == 6);
}
