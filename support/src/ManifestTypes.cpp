// The manifest's scalar and random-fill types, one table row each, and the bytes of a kernel
// argument (LaunchManifest.h).
#include "support/LaunchManifest.h"

#include "support/StructLayout.h"

#include <cassert>
#include <limits>

namespace support::manifest {
namespace {

struct TypeRow {
  ScalarType type;
  const char *name;
  uint32_t size;
};

const TypeRow TypeTable[] = {
    {ScalarType::U8, "u8", 1},     {ScalarType::U16, "u16", 2}, {ScalarType::U32, "u32", 4},
    {ScalarType::U64, "u64", 8},   {ScalarType::S8, "s8", 1},   {ScalarType::S16, "s16", 2},
    {ScalarType::S32, "s32", 4},   {ScalarType::S64, "s64", 8}, {ScalarType::B8, "b8", 1},
    {ScalarType::B16, "b16", 2},   {ScalarType::B32, "b32", 4}, {ScalarType::B64, "b64", 8},
    {ScalarType::F16, "f16", 2},   {ScalarType::F32, "f32", 4}, {ScalarType::F64, "f64", 8},
    {ScalarType::BF16, "bf16", 2},
};

/// In RandomType's order.
const RandomTypeRow RandomTable[] = {
    {"f32", RandomType::F32, 0, 0},
    {"f16", RandomType::F16, 0, 0},
    {"f64", RandomType::F64, 0, 0},
    {"bf16", RandomType::BF16, 0, 0},
    {"s32", RandomType::S32, std::numeric_limits<int32_t>::min(),
     std::numeric_limits<int32_t>::max()},
    {"u32", RandomType::U32, 0, std::numeric_limits<uint32_t>::max()},
    {"s16", RandomType::S16, -32768, 32767},
    {"u16", RandomType::U16, 0, 65535},
    {"s8", RandomType::S8, -128, 127},
    {"u8", RandomType::U8, 0, 255},
};

StructLayout layoutOf(const Arg &A, const std::function<uint64_t(size_t)> &Address) {
  StructLayout Out;
  if (A.isStruct) {
    for (const Arg &F : A.fields)
      Out.add(layoutOf(F, Address));
    return Out;
  }
  const uint64_t Bits = A.isBuffer ? Address(A.buffer) + A.offset : A.bits;
  const size_t Size = A.isBuffer ? 8 : scalarTypeSize(A.type);
  uint8_t Bytes[8];
  for (size_t I = 0; I < 8; ++I)
    Bytes[I] = uint8_t(Bits >> (8 * I));
  Out.add(Bytes, Size, Size);
  return Out;
}

} // namespace

const char *scalarTypeName(ScalarType T) {
  assert(TypeTable[static_cast<int>(T)].type == T && "TypeTable is out of enum order");
  return TypeTable[static_cast<int>(T)].name;
}

uint32_t scalarTypeSize(ScalarType T) {
  assert(TypeTable[static_cast<int>(T)].type == T && "TypeTable is out of enum order");
  return TypeTable[static_cast<int>(T)].size;
}

std::optional<ScalarType> scalarTypeFromName(std::string_view Name) {
  for (const TypeRow &R : TypeTable)
    if (Name == R.name)
      return R.type;
  return std::nullopt;
}

const RandomTypeRow &randomTypeRow(RandomType T) {
  assert(RandomTable[static_cast<int>(T)].type == T && "RandomTable is out of enum order");
  return RandomTable[static_cast<int>(T)];
}

const RandomTypeRow *randomTypeNamed(std::string_view Name) {
  for (const RandomTypeRow &R : RandomTable)
    if (Name == R.name)
      return &R;
  return nullptr;
}

std::vector<uint8_t> argBytes(const Arg &A, const std::function<uint64_t(size_t)> &Address) {
  return layoutOf(A, Address).bytes();
}

} // namespace support::manifest
