// `--math auto`: the math PyTorch runs a layer with on the target architecture (Lower.h).
#include "corpus/Lower.h"
#include "kernels/Specs.h"

namespace corpus {

MathMode autoMath(LayerKind Kind, DType T, std::string_view Arch) {
  const bool Gemm =
      Kind == LayerKind::Conv || Kind == LayerKind::Dense || Kind == LayerKind::MatMul;
  const unsigned Sm = kernels::smVersion(Arch);
  // int8 engines: convolutions and dense layers on int8 tensor cores from sm_75 (dp4a before),
  // every other layer in f16 (docs/lowering.md, "Int8 engines").
  if (T == DType::I8 && (Kind == LayerKind::Conv || Kind == LayerKind::Dense))
    return Sm >= 75 ? MathMode::Int8 : MathMode::Simt;
  if (T == DType::I8)
    return autoMath(Kind, DType::F16, Arch);
  // f16 networks (autocast or .half()): cuDNN and cuBLAS pick f16 tensor-core kernels on sm_70+.
  if (T == DType::F16)
    return Gemm && Sm >= 70 ? MathMode::F16 : MathMode::Simt;
  // f32: torch.backends.cudnn.allow_tf32 defaults to True (convolutions on tf32 tensor cores from
  // sm_80), torch.backends.cuda.matmul.allow_tf32 to False since PyTorch 1.12 (dense, bmm: fp32).
  return Kind == LayerKind::Conv && Sm >= 80 ? MathMode::Tf32 : MathMode::Simt;
}

} // namespace corpus
