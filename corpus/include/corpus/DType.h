// The element type shared by the network IR (Network.h) and the kernel generators (KernelGen.h).
#pragma once

#include <cstdint>

namespace corpus {

/// Storage type of activations and weights. F16 kernels load and store half precision and
/// accumulate in f32.
enum class DType : uint8_t { F32, F16 };

} // namespace corpus
