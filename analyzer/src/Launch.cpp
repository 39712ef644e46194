// Kernel argument encoding and trap messages.
#include "analyzer/Interpreter.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace analyzer {

KernelArg KernelArg::raw(uint64_t V, unsigned Bits) {
  KernelArg A;
  A.bytes.assign(Bits / 8, 0);
  std::memcpy(A.bytes.data(), &V, std::min<size_t>(A.bytes.size(), sizeof V));
  return A;
}
KernelArg KernelArg::u32(uint32_t V) { return raw(V, 32); }
KernelArg KernelArg::s32(int32_t V) { return raw(static_cast<uint32_t>(V), 32); }
KernelArg KernelArg::u64(uint64_t V) { return raw(V, 64); }
KernelArg KernelArg::f32(float V) { return raw(std::bit_cast<uint32_t>(V), 32); }
KernelArg KernelArg::f64(double V) { return raw(std::bit_cast<uint64_t>(V), 64); }

std::string Trap::str() const {
  std::string S;
  if (!file.empty())
    S += file + ":";
  if (line)
    S += std::to_string(line) + ":";
  if (!S.empty())
    S += " ";
  S += "trap in kernel '" + kernel + "'";
  if (hasThread) {
    auto D = [](const Dim3 &V) {
      return std::to_string(V[0]) + "," + std::to_string(V[1]) + "," + std::to_string(V[2]);
    };
    S += " (ctaid " + D(ctaid) + " tid " + D(tid) + ")";
  }
  return S + ": " + reason;
}

} // namespace analyzer
