// lower_bench: wall time to lower representative CNN layers to PTX (IR build, then O3 + NVPTX
// codegen), median over repeats per kernel, plus one module holding all of them, plus whole zoo
// networks (corpus::lower) on one thread and on every core.
// Usage: lower_bench [repeats=5] [arch=sm_90]
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <variant>
#include <vector>

using namespace corpus;
using Clock = std::chrono::steady_clock;

namespace {

using AnySpec =
    std::variant<ConvSpec, GemmSpec, PoolSpec, ReduceSpec, ElementwiseSpec, SoftmaxSpec>;

struct BenchLayer {
  const char *label;
  AnySpec spec;
};

ConvSpec conv(uint32_t Cin, uint32_t Cout, uint32_t H, uint32_t K, uint32_t Stride, uint32_t Groups,
              ActivationKind A, bool Bn = true) {
  ConvSpec S;
  S.inChannels = Cin;
  S.outChannels = Cout;
  S.inHeight = S.inWidth = H;
  S.kernelH = S.kernelW = K;
  S.strideH = S.strideW = Stride;
  S.padTop = S.padLeft = S.padBottom = S.padRight = K / 2;
  S.groups = Groups;
  S.epilogue.batchNorm = Bn;
  S.epilogue.activation = A;
  return S;
}

std::vector<BenchLayer> layers() {
  using AK = ActivationKind;
  ConvSpec Res = conv(64, 256, 56, 1, 1, 1, AK::Relu);
  Res.epilogue.residual = ResidualKind::BeforeActivation;
  ConvSpec Proj = conv(144, 24, 56, 1, 1, 1, AK::None);
  Proj.epilogue.seScale = true;
  ConvSpec Half = conv(32, 64, 112, 3, 1, 1, AK::HardSwish);
  Half.dtype = DType::F16;
  PoolSpec Max;
  Max.channels = 64;
  Max.inHeight = Max.inWidth = 112;
  Max.kernelH = Max.kernelW = 3;
  Max.strideH = Max.strideW = 2;
  Max.padTop = Max.padLeft = Max.padBottom = Max.padRight = 1;
  return {
      {"resnet stem 7x7/2 conv", conv(3, 64, 224, 7, 2, 1, AK::Relu)},
      {"resnet 3x3 conv", conv(64, 64, 56, 3, 1, 1, AK::Relu)},
      {"resnet 1x1 conv + residual", Res},
      {"mobilenet depthwise 3x3", conv(144, 144, 56, 3, 1, 144, AK::Relu6)},
      {"efficientnet depthwise 5x5/2", conv(240, 240, 28, 5, 2, 240, AK::Swish)},
      {"efficientnet 1x1 project + se", Proj},
      {"f16 3x3 conv hardswish", Half},
      {"dense 2048->1000", GemmSpec{1, 2048, 1000, DType::F32, {true}}},
      {"maxpool 3x3/2", Max},
      {"global avg pool 7x7", ReduceSpec{1, 2048, 49, DType::F32, {}}},
      {"elementwise add relu",
       ElementwiseSpec{ElementwiseOp::Add, 1, 256, 3136, AK::Relu, DType::F32}},
      {"softmax 1000", SoftmaxSpec{1, 1000, DType::F32}},
  };
}

double msSince(Clock::time_point T0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

support::Expected<KernelLaunch> addLayer(KernelEmitter &E, const BenchLayer &L) {
  return std::visit([&](const auto &S) { return E.add(S); }, L.spec);
}

/// Whole-network lowering (PTX included), median wall time on 1 thread and on every core.
int lowerNetworks(int Repeats, const std::string &Arch) {
  const unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  fmt::print("\n{:<18} {:>8} {:>8} {:>12} {:>12}\n", "network", "kernels", "modules", "1 thread s",
             fmt::format("{} threads s", Cores));
  for (const char *Name : {"resnet50", "efficientnet-b0", "efficientnet-b7", "vgg16"}) {
    auto N = buildZooModel(Name);
    if (!N)
      return 1;
    std::vector<double> Times[2];
    size_t Kernels = 0, Modules = 0;
    for (int R = 0; R < Repeats; ++R)
      for (int T = 0; T < 2; ++T) {
        LowerOptions O;
        O.arch = Arch;
        O.threads = T == 0 ? 1 : Cores;
        auto T0 = Clock::now();
        auto W = lower(*N, O);
        Times[T].push_back(msSince(T0) / 1e3);
        if (!W) {
          fmt::print(stderr, "{}: {}\n", Name, W.error().str());
          return 1;
        }
        Kernels = W->kernelCount;
        Modules = W->ptx.size();
      }
    fmt::print("{:<18} {:>8} {:>8} {:>12.3f} {:>12.3f}\n", Name, Kernels, Modules, median(Times[0]),
               median(Times[1]));
  }
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  int Repeats = Argc > 1 ? std::max(1, std::atoi(Argv[1])) : 5;
  std::string Arch = Argc > 2 ? Argv[2] : "sm_90";
  fmt::print("lower_bench: {} repeats, {}, median wall time per kernel\n", Repeats, Arch);
  fmt::print("{:<32} {:>9} {:>12} {:>10}  {}\n", "layer", "build ms", "O3+ptx ms", "ptx lines",
             "kernel");
  std::vector<double> Totals;
  for (const BenchLayer &L : layers()) {
    std::vector<double> Build, Emit;
    std::string Kernel;
    size_t Lines = 0;
    for (int R = 0; R < Repeats; ++R) {
      KernelEmitter E;
      auto T0 = Clock::now();
      auto Launch = addLayer(E, L);
      Build.push_back(msSince(T0));
      if (!Launch) {
        fmt::print(stderr, "{}: {}\n", L.label, Launch.error().str());
        return 1;
      }
      T0 = Clock::now();
      auto Ptx = E.emitPtx(Arch);
      Emit.push_back(msSince(T0));
      if (!Ptx) {
        fmt::print(stderr, "{}: {}\n", L.label, Ptx.error().str());
        return 1;
      }
      Kernel = Launch->kernel;
      Lines = static_cast<size_t>(std::count(Ptx->begin(), Ptx->end(), '\n'));
    }
    Totals.push_back(median(Build) + median(Emit));
    fmt::print("{:<32} {:>9.2f} {:>12.2f} {:>10}  {}\n", L.label, median(Build), median(Emit),
               Lines, Kernel);
  }
  fmt::print("median per-kernel lowering time: {:.2f} ms\n", median(Totals));

  std::vector<double> Whole;
  for (int R = 0; R < Repeats; ++R) {
    auto T0 = Clock::now();
    KernelEmitter E;
    for (const BenchLayer &L : layers())
      if (!addLayer(E, L))
        return 1;
    if (!E.emitPtx(Arch))
      return 1;
    Whole.push_back(msSince(T0));
  }
  fmt::print("all {} kernels in one module: {:.2f} ms (median)\n", layers().size(), median(Whole));
  return lowerNetworks(Repeats, Arch);
}
