// Kernel sets: the fast-division constants of library kernels, library kernel names (shared by
// layers of different shapes, never by different code), and whole-zoo lowering with them.
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

using namespace corpus;

namespace {

/// What a library kernel computes for x / d: (umulhi(x, multiplier) + x) >> shift.
uint32_t fastQuotient(uint32_t X, FastDivisor F) {
  const uint32_t Hi = static_cast<uint32_t>((uint64_t(X) * F.multiplier) >> 32);
  return (Hi + X) >> F.shift;
}

/// Dividends near every multiple boundary that matters for D, plus the extremes.
std::vector<uint32_t> dividends(uint32_t D, std::mt19937 &Rng) {
  std::vector<uint32_t> X = {0, 1, D - 1, D, D + 1, (1u << 31) - 1, (1u << 31) - 2};
  const uint32_t Top = ((1u << 31) - 1) / D; // the largest quotient below 2^31
  for (uint32_t Q : {Top, Top - 1, Top / 2, 2u, 3u})
    if (Q >= 1 && uint64_t(Q) * D < (1u << 31)) {
      X.push_back(Q * D);
      X.push_back(Q * D - 1);
    }
  std::uniform_int_distribution<uint32_t> Any(0, (1u << 31) - 1);
  for (int I = 0; I < 64; ++I)
    X.push_back(Any(Rng));
  return X;
}

} // namespace

TEST_CASE("fast division: exact for every dividend below 2^31, divisors small to 2^31 - 1") {
  std::mt19937 Rng(11);
  std::vector<uint32_t> Divisors;
  for (uint32_t D = 1; D <= 4096; ++D)
    Divisors.push_back(D);
  for (uint32_t K = 12; K < 31; ++K)
    for (uint32_t D : {(1u << K) - 1, 1u << K, (1u << K) + 1, 3u << (K - 1)})
      Divisors.push_back(D);
  Divisors.push_back((1u << 31) - 1);
  std::uniform_int_distribution<uint32_t> AnyDivisor(1, (1u << 31) - 1);
  for (int I = 0; I < 2000; ++I)
    Divisors.push_back(AnyDivisor(Rng));
  size_t Wrong = 0;
  for (uint32_t D : Divisors) {
    const FastDivisor F = fastDivisor(D);
    for (uint32_t X : dividends(D, Rng))
      if (X < (1u << 31) && fastQuotient(X, F) != X / D && Wrong++ < 5)
        FAIL_CHECK("x = " << X << ", d = " << D);
  }
  CHECK(Wrong == 0);
  // Exhaustive over every dividend for a few divisors with awkward multipliers.
  for (uint32_t D : {7u, 641u, 6700417u}) {
    const FastDivisor F = fastDivisor(D);
    uint32_t Bad = 0;
    for (uint32_t X = 0; X < (1u << 31); X += 1 + (X >> 20))
      Bad += fastQuotient(X, F) != X / D;
    CHECK(Bad == 0);
  }
  CHECK(fastDivisor(1).shift == 0);
  CHECK(fastDivisor(1).multiplier == 1);
}

TEST_CASE("kernel sets: names and parsing") {
  CHECK(std::string(kernelSetName(KernelSet::Library)) == "library");
  CHECK(parseKernelSet("specialised") == KernelSet::Specialised);
  CHECK(parseKernelSet("library") == KernelSet::Library);
  CHECK_FALSE(parseKernelSet("generic"));
}

TEST_CASE("library kernels: layers of other shapes share a kernel, other code does not") {
  auto Conv = [](uint32_t C, uint32_t K, uint32_t H, uint32_t Pad) {
    ConvSpec S;
    S.inChannels = C;
    S.outChannels = K;
    S.inHeight = S.inWidth = H;
    S.kernelH = S.kernelW = 3;
    S.padTop = S.padLeft = S.padBottom = S.padRight = Pad;
    return S;
  };
  KernelEmitter Spec, Lib;
  Lib.useKernelSet(KernelSet::Library);
  Lib.checkNames(true);
  for (KernelEmitter *E : {&Spec, &Lib})
    for (const ConvSpec &S : {Conv(32, 64, 56, 1), Conv(48, 96, 28, 1), Conv(64, 128, 30, 1)})
      REQUIRE(E->add(S));
  CHECK(Spec.kernelCount() == 3);
  CHECK(Lib.kernelCount() == 1);
  auto L = Lib.add(Conv(48, 96, 28, 1));
  REQUIRE(L);
  CHECK(L->kernel.rfind("lib_conv_igemm_k3_s1_pad", 0) == 0);
  CHECK(L->grid == Spec.add(Conv(48, 96, 28, 1))->grid);
  // The shapes travel as arguments, each divisor with its fast-division constants.
  std::set<std::string> Names;
  for (const ShapeArg &A : L->shapeArgs)
    Names.insert(A.name);
  for (const char *N : {"m", "n", "k", "h", "w", "wo", "wo_mul", "wo_shr", "pad_t", "pad_l"})
    CHECK_MESSAGE(Names.count(N), N);
  // An unpadded convolution needs no bounds checks on the input: another kernel.
  REQUIRE(Lib.add(Conv(48, 96, 28, 0)));
  CHECK(Lib.kernelCount() == 2);
  // Kernels with 64-bit index arithmetic stay specialised.
  ConvSpec Wide = Conv(48, 96, 28, 1);
  Wide.index64 = true;
  auto W = Lib.add(Wide);
  REQUIRE(W);
  CHECK(W->shapeArgs.empty());
  CHECK(W->kernel.rfind("lib_", 0) == std::string::npos);
}

TEST_CASE("library lowering of the whole zoo: one name never stands for two kernels") {
  struct Config {
    DType dtype;
    const char *arch;
    MathMode math;
  };
  size_t Specialised = 0, Library = 0; // distinct kernels of the zoo per configuration
  for (const Config &C :
       {Config{DType::F32, "sm_90", MathMode::Simt}, Config{DType::F32, "sm_80", MathMode::Auto},
        Config{DType::F16, "sm_90", MathMode::Auto}, Config{DType::F16, "sm_75", MathMode::F16},
        Config{DType::F16, "sm_70", MathMode::F16}}) {
    std::set<std::string> Lib, Spec;
    for (const ZooModel &M : zooModels()) {
      const std::string &Name = M.name;
      CAPTURE(Name);
      CAPTURE(C.arch);
      auto Net = buildZooModel(Name, ZooOptions{2, 0, C.dtype});
      REQUIRE(Net);
      LowerOptions O;
      O.dtype = C.dtype;
      O.arch = C.arch;
      O.math = C.math;
      O.emitPtx = false;
      O.kernels = KernelSet::Library;
      O.checkKernelNames = true;
      auto W = lower(*Net, O);
      REQUIRE_MESSAGE(W, support::errorText(W));
      for (const WorkloadLaunch &L : W->launches)
        Lib.insert(L.kernel);
      O.kernels = KernelSet::Specialised;
      O.checkKernelNames = false;
      auto S = lower(*Net, O);
      REQUIRE(S);
      for (const WorkloadLaunch &L : S->launches)
        Spec.insert(L.kernel);
      CHECK(W->launches.size() == S->launches.size());
    }
    Library += Lib.size();
    Specialised += Spec.size();
  }
  MESSAGE("distinct kernels of the zoo at batch 2, summed over 5 configurations: specialised "
          << Specialised << ", library " << Library);
  CHECK(Library * 5 < Specialised);
}

TEST_CASE("kernel cache directory: kernels persist across processes, a damaged one is compiled again") {
  namespace fs = std::filesystem;
  const fs::path Dir = fs::temp_directory_path() / ("ptxcast_kcache_" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  auto Net = buildZooModel("mobilenetv2-0.35", ZooOptions{1, 32, DType::F32});
  REQUIRE(Net);
  auto Lower = [&](KernelSet Set, KernelCache &Cache) {
    LowerOptions O;
    O.kernels = Set;
    O.cache = &Cache;
    auto W = lower(*Net, O);
    REQUIRE_MESSAGE(W, support::errorText(W));
    return std::move(*W);
  };
  KernelCache First(Dir.string());
  const Workload A = Lower(KernelSet::Library, First);
  size_t Files = 0;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    Files += E.is_regular_file() && E.path().extension() == ".ptx";
  CHECK(Files == A.kernelCount);
  // A later process (a fresh cache on the same directory) compiles nothing, and gets the same PTX.
  KernelCache Second(Dir.string());
  const Workload B = Lower(KernelSet::Library, Second);
  CHECK(Second.hits() == B.kernelCount);
  CHECK(B.ptx == A.ptx);
  // A damaged file is a miss (a note on stderr names it): compiled again and rewritten.
  const fs::path Some = fs::directory_iterator(Dir / "sm_90")->path();
  std::ofstream(Some, std::ios::trunc) << "garbage";
  KernelCache Third(Dir.string());
  CHECK(Lower(KernelSet::Library, Third).ptx == A.ptx);
  CHECK(Third.hits() == B.kernelCount - 1);
  CHECK(fs::file_size(Some) > 100);
  // So is one cut short (its checksum no longer matches), however much of it is left.
  const uintmax_t Whole = fs::file_size(Some);
  fs::resize_file(Some, 300);
  KernelCache Truncated(Dir.string());
  CHECK(Lower(KernelSet::Library, Truncated).ptx == A.ptx);
  CHECK(Truncated.hits() == B.kernelCount - 1);
  CHECK(fs::file_size(Some) == Whole);
  // Specialised kernels persist too (a later process compiles none of them); the directory's
  // entry limit bounds them (support/CacheDir.h).
  KernelCache Fourth(Dir.string());
  const Workload S = Lower(KernelSet::Specialised, Fourth);
  size_t After = 0;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    After += E.is_regular_file();
  CHECK(After == Files + S.kernelCount);
  KernelCache Fifth(Dir.string());
  CHECK(Lower(KernelSet::Specialised, Fifth).ptx == S.ptx);
  CHECK(Fifth.hits() == S.kernelCount);
  fs::remove_all(Dir);
}

TEST_CASE("library lowering of the measured ONNX networks: names stand for one kernel each") {
  namespace fs = std::filesystem;
  const fs::path Dir = fs::path(PTXCAST_SOURCE_DIR) / "corpus/data/measured/h100/onnx";
  std::vector<fs::path> Files;
  for (const auto &E : fs::directory_iterator(Dir))
    if (E.path().extension() == ".onnx")
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  REQUIRE(Files.size() >= 20);
  for (const fs::path &F : Files)
    for (DType T : {DType::F32, DType::F16}) {
      CAPTURE(F.filename().string());
      OnnxImportOptions Import;
      Import.batch = 2;
      Import.dtype = T;
      auto Net = importOnnxFile(F.string(), Import);
      REQUIRE_MESSAGE(Net, support::errorText(Net));
      LowerOptions O;
      O.dtype = T;
      O.math = MathMode::Auto;
      O.emitPtx = false;
      O.kernels = KernelSet::Library;
      O.checkKernelNames = true;
      auto W = lower(*Net, O);
      CHECK_MESSAGE(W, support::errorText(W));
    }
}

TEST_CASE("kernel cache directory: a new kernel version keeps the two most recent older ones") {
  namespace fs = std::filesystem;
  const fs::path Root = fs::temp_directory_path() / ("ptxcast_kroot_" + std::to_string(::getpid()));
  fs::remove_all(Root);
  const auto Now = fs::file_time_type::clock::now();
  int Age = 10;
  for (const char *Old : {"kernels-a", "kernels-b", "kernels-c", "kernels-d"}) {
    fs::create_directories(Root / Old / "sm_90");
    fs::last_write_time(Root / Old, Now - std::chrono::hours(Age--));
  }
  fs::create_directories(Root / "other"); // not a kernel version: left alone
  auto Net = buildZooModel("lenet5", ZooOptions{1, 0, DType::F32});
  REQUIRE(Net);
  KernelCache Cache((Root / "kernels-new").string());
  LowerOptions O;
  O.kernels = KernelSet::Library;
  O.cache = &Cache;
  REQUIRE(lower(*Net, O));
  std::set<std::string> Left;
  for (const auto &E : fs::directory_iterator(Root))
    Left.insert(E.path().filename().string());
  CHECK(Left == std::set<std::string>{"kernels-c", "kernels-d", "kernels-new", "other"});
  fs::remove_all(Root);
}
