// Running one generated kernel launch in the exact PTX interpreter on seeded data, for the
// functional kernel tests (KernelGenRunTest.cpp, KernelGenMmaTest.cpp).
#pragma once

#include "KernelRef.h"

#include "analyzer/Device.h"
#include "analyzer/FastMode.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "corpus/KernelGen.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kernelrun {

using namespace corpus;

/// Value range of the seeded data per parameter role (positive BN scale, SE scale in [0, 1]).
inline std::pair<float, float> rangeOf(ParamRole R) {
  switch (R) {
  case ParamRole::BnScale:
    return {0.5f, 1.5f};
  case ParamRole::SeScale:
    return {0.0f, 1.0f};
  case ParamRole::Bias:
  case ParamRole::BnShift:
    return {-0.5f, 0.5f};
  default:
    return {-2.0f, 2.0f};
  }
}

inline std::vector<uint8_t> toBytes(const std::vector<float> &V, DType T) {
  std::vector<uint8_t> Bytes(V.size() * dtypeBytes(T));
  for (size_t I = 0; I < V.size(); ++I) {
    if (T == DType::F16) {
      uint16_t H = kernelref::floatToHalf(V[I]);
      std::memcpy(&Bytes[I * 2], &H, 2);
    } else {
      std::memcpy(&Bytes[I * 4], &V[I], 4);
    }
  }
  return Bytes;
}

inline std::vector<float> fromBytes(const std::vector<uint8_t> &Bytes, DType T) {
  std::vector<float> V(Bytes.size() / dtypeBytes(T));
  for (size_t I = 0; I < V.size(); ++I) {
    if (T == DType::F16) {
      uint16_t H;
      std::memcpy(&H, &Bytes[I * 2], 2);
      V[I] = kernelref::halfToFloat(H);
    } else {
      std::memcpy(&V[I], &Bytes[I * 4], 4);
    }
  }
  return V;
}

using RangeFn = std::function<std::pair<float, float>(ParamRole)>;

/// Runs `L` on seeded data; returns the output, or an empty vector after reporting a failure.
/// `Profile`, when given, receives the launch's counts.
inline std::vector<float> runCase(const analyzer::Program &Prog, const KernelLaunch &L,
                                  uint32_t Seed, kernelref::Buffers &Data,
                                  const RangeFn &Range = rangeOf,
                                  analyzer::KernelProfile *Profile = nullptr) {
  analyzer::Device D;
  analyzer::LaunchConfig Cfg;
  Cfg.grid = L.grid;
  Cfg.block = L.block;
  Cfg.sharedBytes = L.sharedBytes;
  for (const KernelParam &P : L.params) {
    std::string Name = paramRoleName(P.role);
    auto Base = D.allocate(Name, P.elements * dtypeBytes(L.dtype));
    REQUIRE_MESSAGE(Base, Name);
    Cfg.args.push_back(analyzer::KernelArg::pointer(*Base));
    if (P.role == ParamRole::Output)
      continue;
    auto [Lo, Hi] = Range(P.role);
    Data[P.role] = kernelref::randomData(P.elements, Seed++, Lo, Hi, L.dtype);
    REQUIRE(D.write(*Base, toBytes(Data[P.role], L.dtype)));
  }
  for (const ShapeArg &A : L.shapeArgs) // a library kernel's shapes
    Cfg.args.push_back(analyzer::KernelArg::u32(A.value));
  analyzer::RunResult R = analyzer::runKernel(Prog, L.kernel, Cfg, D);
  if (Profile)
    *Profile = R.profile;
  if (!R.ok()) {
    FAIL_CHECK(L.kernel << ": " << R.trap->str());
    return {};
  }
  const analyzer::Buffer *Out = D.find("output");
  REQUIRE(Out != nullptr);
  return fromBytes(Out->data, L.dtype);
}

/// Analysis of one launch on abstract buffers of the launch's sizes, in fast or exact mode.
inline analyzer::LaunchAnalysis analyseLaunch(const KernelLaunch &L, const std::string &Ptx,
                                              analyzer::AnalysisMode Mode) {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"kernel.ptx", Ptx});
  analyzer::LaunchSpec Launch;
  Launch.kernel = L.kernel;
  Launch.grid = L.grid;
  Launch.block = L.block;
  for (size_t I = 0; I < L.params.size(); ++I) {
    analyzer::BufferSpec B;
    B.name = paramRoleName(L.params[I].role) + std::to_string(I);
    B.bytes = paramBytes(L.params[I]);
    In.buffers.push_back(B);
    analyzer::ArgSpec A;
    A.isBuffer = true;
    A.buffer = B.name;
    Launch.args.push_back(A);
  }
  for (const ShapeArg &Shape : L.shapeArgs) {
    analyzer::ArgSpec A;
    A.type = ptx::Type::U32;
    A.bits = Shape.value;
    Launch.args.push_back(A);
  }
  In.launches.push_back(Launch);
  analyzer::FastSettings S;
  S.threads = 2;
  auto R = analyzer::analyze(In, Mode, S);
  REQUIRE_MESSAGE(R, support::errorText(R));
  REQUIRE(R->launches.size() == 1);
  return R->launches.front();
}

inline uint64_t total(const analyzer::ClassArray &A) {
  uint64_t S = 0;
  for (uint64_t V : A)
    S += V;
  return S;
}

/// Fast mode (default settings) counts `L` within 1 % of exact mode: thread and warp
/// instructions, and tensor-core multiply-adds (all and int8) exactly.
inline void checkFastMatchesExact(const KernelLaunch &L, const std::string &Ptx) {
  analyzer::KernelProfile Fast = analyseLaunch(L, Ptx, analyzer::AnalysisMode::Fast).profile;
  analyzer::KernelProfile Exact = analyseLaunch(L, Ptx, analyzer::AnalysisMode::Exact).profile;
  CHECK(Fast.tensorMacs == Exact.tensorMacs);
  CHECK(Fast.tensorMacsInt8 == Exact.tensorMacsInt8);
  const double Want = double(total(Exact.threadInstructions));
  CHECK(std::fabs(double(total(Fast.threadInstructions)) - Want) <= 0.01 * Want);
  const double WantWarp = double(total(Exact.warpInstructions));
  CHECK(std::fabs(double(total(Fast.warpInstructions)) - WantWarp) <= 0.01 * WantWarp);
}

} // namespace kernelrun
