// The element type shared by the network IR (Network.h) and the kernel generators (KernelGen.h).
#pragma once

#include <cstdint>

namespace corpus {

/// Storage type of activations and weights. F16 kernels load and store half precision and
/// accumulate in f32. I8 is an int8 inference-engine lowering (`--dtype int8`, docs/lowering.md,
/// "Int8 engines"): convolutions and dense layers on signed 8-bit integers with int32
/// accumulation, every other layer in f16; as the type of one kernel parameter or buffer, signed
/// 8-bit integers.
enum class DType : uint8_t { F32, F16, I8 };

/// How convolutions and dense layers multiply (`--math`): Simt is CUDA-core FMAs (every
/// strategy); Tf32, F16 and Bf16 run dense and 1x1 convolutions and dense layers on tensor cores
/// (mma.sync with tf32, f16 or bf16 operands, f32 accumulation); other layers stay on CUDA cores.
/// Auto is a lowering option only (LowerOptions::math): each layer gets what PyTorch runs on the
/// target (corpus::autoMath); a kernel spec or launch is never Auto. Int8 is for int8 data only:
/// s8 tensor cores (mma.sync m16n8k32, m8n8k16 on sm_75) with int32 accumulation; int8 data under
/// Simt multiplies with dp4a on the CUDA cores.
enum class MathMode : uint8_t { Simt, Tf32, F16, Bf16, Auto, Int8 };

/// Which kernels a lowering uses (docs/lowering.md, "Kernel library").
/// - Specialised: every shape, stride and padding folded into the kernel as constants, one kernel
///   per layer shape. The shipped predictor and the measured H100 kernels describe these.
/// - Library: shapes, strides and padding are u32 kernel parameters (KernelLaunch::shapeArgs),
///   divisions by them use precomputed multipliers (fastDivisor), and a kernel is specialised
///   only by what cuDNN, cuBLAS and CUTLASS specialise: strategy, tile and block shape, filter
///   size and stride, which bounds checks it needs, epilogue, data type, math mode and
///   architecture. Layers of different shapes share kernels, so lowering is mostly a lookup.
enum class KernelSet : uint8_t { Specialised, Library };

} // namespace corpus
