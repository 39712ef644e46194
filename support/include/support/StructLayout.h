// How C lays out a struct passed by value to a kernel (one rule for ptxcast's interpreter and
// ptxcast-measure): each field at the next multiple of its alignment, the struct's alignment the
// largest of its fields', its size padded to a multiple of that.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace support {

/// The fields of a struct argument: bytes placed at offsets, the rest zero.
class StructLayout {
public:
  /// Places `Size` bytes from `Bytes` (little-endian) at the next multiple of `Align`.
  void add(const uint8_t *Bytes, size_t Size, size_t Align) {
    size_t At = (Data.size() + Align - 1) / Align * Align;
    Data.resize(At + Size, 0);
    std::copy(Bytes, Bytes + Size, Data.begin() + std::ptrdiff_t(At));
    MaxAlign = std::max(MaxAlign, Align);
  }
  /// Places a nested struct (its own padding done).
  void add(const StructLayout &Inner) {
    std::vector<uint8_t> B = Inner.bytes();
    add(B.data(), B.size(), Inner.MaxAlign);
  }
  size_t align() const { return MaxAlign; }
  /// The struct's bytes, padded to a multiple of its alignment.
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> Out = Data;
    Out.resize((Out.size() + MaxAlign - 1) / MaxAlign * MaxAlign, 0);
    return Out;
  }

private:
  std::vector<uint8_t> Data;
  size_t MaxAlign = 1;
};

} // namespace support
