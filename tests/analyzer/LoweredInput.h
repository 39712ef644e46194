// A network lowered by corpus::lower as the analyzer's input (PTX in memory plus manifest), for
// the fast-mode and loop-skip tests.
#pragma once

#include "analyzer/FastMode.h"
#include "corpus/Lower.h"
#include "corpus/Workload.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

inline analyzer::AnalysisInput
loweredInput(const corpus::Network &Net, corpus::DType Type = corpus::DType::F32,
             corpus::MathMode Math = corpus::MathMode::Simt,
             corpus::KernelSet Set = corpus::KernelSet::Specialised) {
  corpus::LowerOptions O;
  O.dtype = Type;
  O.math = Math;
  O.kernels = Set;
  auto W = corpus::lower(Net, O);
  REQUIRE_MESSAGE(W, support::errorText(W));
  auto M = analyzer::parseManifest(corpus::manifestJson(*W), Net.name() + "/manifest.json");
  REQUIRE_MESSAGE(M, support::errorText(M));
  analyzer::AnalysisInput In;
  std::vector<std::string> Names = corpus::ptxFileNames(*W);
  for (size_t K = 0; K < W->ptx.size(); ++K)
    In.ptx.push_back({Names[K], W->ptx[K]});
  In.buffers = M->buffers;
  In.launches = M->launches;
  return In;
}
