// Device: named global allocations with gaps between them, looked up by address.
#include "analyzer/Device.h"

#include <algorithm>
#include <cstring>

namespace analyzer {
namespace {
constexpr uint64_t FirstAddress = uint64_t(1) << 32; ///< looks like a real device pointer
constexpr uint64_t Gap = 256;                        ///< unmapped bytes between buffers
constexpr uint64_t AddressLimit = uint64_t(1) << 48; ///< generic windows start here
} // namespace

Device::Device(uint64_t Max) : Next(FirstAddress), MaxBytes(Max) {}

support::Expected<uint64_t> Device::allocate(const std::string &Name, uint64_t Bytes) {
  return place(Name, Bytes, false);
}

support::Expected<uint64_t> Device::allocateAbstract(const std::string &Name, uint64_t Bytes) {
  return place(Name, Bytes, true);
}

void Device::abstractBytes(uint64_t Addr, std::span<uint8_t> Out) const {
  if (pattern == AbstractPattern::Zero) {
    std::fill(Out.begin(), Out.end(), uint8_t(0));
    return;
  }
  for (size_t K = 0; K < Out.size(); ++K) {
    uint64_t Z = (Addr + K) * 0x9e3779b97f4a7c15ull;
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Out[K] = static_cast<uint8_t>(Z >> 56);
  }
}

support::Expected<uint64_t> Device::place(const std::string &Name, uint64_t Bytes, bool Abstract) {
  if (ByName.count(Name))
    return support::Error("buffer '" + Name + "' is allocated twice");
  if (!Abstract && (Bytes > MaxBytes || Allocated + Bytes > MaxBytes))
    return support::Error("buffer '" + Name + "' of " + std::to_string(Bytes) +
                          " bytes exceeds the device memory cap of " + std::to_string(MaxBytes) +
                          " bytes");
  uint64_t Base = Next;
  uint64_t End = Base + (Bytes + 255) / 256 * 256 + Gap;
  if (End >= AddressLimit)
    return support::Error("device address space exhausted");
  auto B = std::make_unique<Buffer>();
  B->name = Name;
  B->base = Base;
  B->abstract = Abstract;
  if (Abstract)
    B->abstractBytes = Bytes;
  else
    B->data.assign(Bytes, 0);
  ByName[Name] = B.get();
  ByBase[Base] = std::move(B);
  Next = End;
  Allocated += Abstract ? 0 : Bytes;
  return Base;
}

Buffer *Device::find(const std::string &Name) {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

const Buffer *Device::find(const std::string &Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

Buffer *Device::findAt(uint64_t Addr) {
  auto It = ByBase.upper_bound(Addr);
  if (It == ByBase.begin())
    return nullptr;
  --It;
  Buffer *B = It->second.get();
  return Addr - B->base < B->bytes() ? B : nullptr;
}

const Buffer *Device::nearest(uint64_t Addr) const {
  auto It = ByBase.upper_bound(Addr);
  if (It == ByBase.begin())
    return nullptr;
  return std::prev(It)->second.get();
}

bool Device::write(uint64_t Addr, std::span<const uint8_t> Bytes) {
  Buffer *B = findAt(Addr);
  if (!B || Bytes.size() > B->bytes() - (Addr - B->base))
    return false;
  if (!Bytes.empty() && !B->abstract)
    std::memcpy(B->data.data() + (Addr - B->base), Bytes.data(), Bytes.size());
  return true;
}

bool Device::read(uint64_t Addr, std::span<uint8_t> Bytes) {
  Buffer *B = findAt(Addr);
  if (!B || Bytes.size() > B->bytes() - (Addr - B->base))
    return false;
  if (B->abstract)
    abstractBytes(Addr, Bytes);
  else if (!Bytes.empty())
    std::memcpy(Bytes.data(), B->data.data() + (Addr - B->base), Bytes.size());
  return true;
}

} // namespace analyzer
