// Which convolutions cuDNN runs on tensor cores in NHWC, transposing PyTorch's NCHW operands
// around them (profiled on the H100, docs/cross-gpu.md): one rule for the framework passes of
// NetworkAnalysis (time) and the workspace of Memory (bytes).
#pragma once

#include "corpus/Network.h"

#include <cassert>
#include <variant>

namespace pipeline {

/// True for a convolution whose input, weights and output cuDNN copies between NCHW and NHWC
/// when it runs on tensor cores: every convolution but a plain GEMM (1x1, stride 1, no padding),
/// a grouped one, or an image's first layer (under 8 input channels: cuDNN runs those on CUDA
/// cores in NCHW whatever the math mode).
inline bool transposedForTensorCores(const corpus::Network &Net, const corpus::Layer &L) {
  if (L.kind != corpus::LayerKind::Conv)
    return false;
  assert(!L.inputs.empty() && "a convolution has an input");
  const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
  const corpus::Shape &In = Net.layer(L.inputs.front()).shape;
  if (In.size() != 4 || In[1] < 8)
    return false;
  const bool Gemm = A.kernelH == 1 && A.kernelW == 1 && A.strideH == 1 && A.strideW == 1 &&
                    A.padTop + A.padLeft + A.padBottom + A.padRight == 0;
  return !Gemm && A.groups == 1;
}

/// The weight elements of a convolution (its parameters less the bias).
inline uint64_t convWeightElements(const corpus::Layer &L) {
  const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
  return uint64_t(L.params) - (A.bias ? uint64_t(A.outChannels) : 0);
}

} // namespace pipeline
