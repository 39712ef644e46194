// Layer specs: validation (malformed spec -> message) and stable kernel names (dedup keys).
#pragma once

#include "corpus/KernelGen.h"

#include <optional>
#include <string>

namespace corpus::kernels {

/// Dense layers with fewer rows use the warp-per-output GEMV kernel instead of the tiled GEMM.
constexpr uint32_t MinGemmRows = 8;

/// The strategy Auto picks for `S` (an explicit strategy is returned unchanged).
ConvStrategy resolveStrategy(const ConvSpec &S);

/// A lower-case message when the spec cannot be lowered, nullopt when it is fine.
std::optional<std::string> validate(const ConvSpec &S, ConvStrategy Resolved);
std::optional<std::string> validate(const GemmSpec &S);
std::optional<std::string> validate(const PoolSpec &S);
std::optional<std::string> validate(const ReduceSpec &S);
std::optional<std::string> validate(const ElementwiseSpec &S);
std::optional<std::string> validate(const ConcatSpec &S);
std::optional<std::string> validate(const SoftmaxSpec &S);

/// Stable kernel names: every field that changes the code appears in the name, so equal names
/// mean equal kernels. Names longer than 100 characters keep a prefix plus an FNV-1a hash.
std::string kernelName(const ConvSpec &S, ConvStrategy Resolved);
std::string kernelName(const GemmSpec &S);
std::string kernelName(const PoolSpec &S);
std::string kernelName(const ReduceSpec &S);
std::string kernelName(const ElementwiseSpec &S);
std::string kernelName(const ConcatSpec &S);
std::string kernelName(const SoftmaxSpec &S);

} // namespace corpus::kernels
