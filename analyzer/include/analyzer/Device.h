// Device: the interpreter's global memory, a set of named, bounds-checked allocations.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace analyzer {

/// One global allocation. Addresses are 256-byte aligned and separated by unmapped gaps so that
/// running off the end of a buffer traps instead of reading its neighbour.
struct Buffer {
  std::string name;
  uint64_t base = 0;
  std::vector<uint8_t> data;
  /// Abstract buffers (fast mode, docs/fast-mode.md) have no backing store: `data` stays empty,
  /// loads yield the Device's abstract pattern and stores are dropped; bounds still hold.
  bool abstract = false;
  uint64_t abstractBytes = 0;
  uint64_t bytes() const { return abstract ? abstractBytes : data.size(); }
};

/// What loads from abstract buffers yield: zeros, or bytes hashed from their address (used to
/// detect control flow that depends on loaded data).
enum class AbstractPattern : uint8_t { Zero, AddressHash };

/// Global memory: named allocations in a 48-bit address space below the generic windows of
/// shared, local, param and const memory (docs/interpreter.md, "Address spaces").
class Device {
public:
  /// `MaxBytes` caps the sum of all allocations.
  explicit Device(uint64_t MaxBytes = uint64_t(16) << 30);

  /// Allocates `Bytes` zero-filled bytes named `Name`; an error when the name is taken or the
  /// cap would be exceeded. Returns the buffer's base address.
  support::Expected<uint64_t> allocate(const std::string &Name, uint64_t Bytes);
  /// Like allocate, but abstract (no backing store, not counted against the cap); the address
  /// layout is the same as allocate's, so addresses match an exact run allocating in that order.
  support::Expected<uint64_t> allocateAbstract(const std::string &Name, uint64_t Bytes);
  /// Fills `Out` with what a load of `Out.size()` bytes at `Addr` of an abstract buffer yields.
  void abstractBytes(uint64_t Addr, std::span<uint8_t> Out) const;
  AbstractPattern pattern = AbstractPattern::Zero;
  /// The buffer named `Name`, or nullptr.
  Buffer *find(const std::string &Name);
  const Buffer *find(const std::string &Name) const;
  /// The buffer containing address `Addr`, or nullptr (also for gaps between buffers).
  Buffer *findAt(uint64_t Addr);
  /// The buffer whose base is the closest at or below `Addr` (for diagnostics), or nullptr.
  const Buffer *nearest(uint64_t Addr) const;

  /// Copies host bytes into global memory / out of it; false when out of bounds.
  bool write(uint64_t Addr, std::span<const uint8_t> Bytes);
  bool read(uint64_t Addr, std::span<uint8_t> Bytes);

  uint64_t bytesAllocated() const { return Allocated; }
  /// The cap on the sum of all allocations.
  uint64_t capacity() const { return MaxBytes; }

private:
  support::Expected<uint64_t> place(const std::string &Name, uint64_t Bytes, bool Abstract);
  std::map<uint64_t, std::unique_ptr<Buffer>> ByBase;
  std::map<std::string, Buffer *> ByName;
  uint64_t Next;
  uint64_t Allocated = 0;
  uint64_t MaxBytes;
};

} // namespace analyzer
