// Launch manifests (docs/manifest.md): support's reader (the one ptxcast-measure uses too) turned
// into the interpreter's launch description, and the seeded buffer fills.
#include "analyzer/Manifest.h"

#include "ptx/Ir.h"
#include "support/BufferFill.h"
#include "support/LaunchManifest.h"

#include <cassert>
#include <cmath>

namespace analyzer {
namespace {

namespace sm = support::manifest;

/// The interpreter's form of an argument: PTX types, buffers by name.
ArgSpec argSpec(const sm::Arg &A, const std::vector<sm::Buffer> &Buffers) {
  ArgSpec Out;
  if (A.isStruct) {
    Out.isStruct = true;
    for (const sm::Arg &F : A.fields)
      Out.fields.push_back(argSpec(F, Buffers));
    return Out;
  }
  if (A.isBuffer) {
    Out.isBuffer = true;
    Out.buffer = Buffers[A.buffer].name;
    Out.offset = A.offset;
    return Out;
  }
  std::optional<ptx::Type> T = ptx::lookupType(sm::scalarTypeName(A.type));
  assert(T && "every manifest scalar type is a PTX type");
  Out.type = *T;
  Out.bits = A.bits;
  return Out;
}

BufferInit bufferInit(const sm::BufferInit &I) {
  BufferInit Out;
  switch (I.kind) {
  case sm::InitKind::Zero:
    break;
  case sm::InitKind::File:
    Out.kind = BufferInit::Kind::File;
    Out.file = I.file;
    break;
  case sm::InitKind::Random: {
    const sm::RandomTypeRow &Row = sm::randomTypeRow(I.type);
    Out.kind = BufferInit::Kind::Random;
    Out.dtype = Row.name;
    Out.seed = I.seed;
    Out.min = Row.isFloat() ? I.minReal : double(I.minInt);
    Out.max = Row.isFloat() ? I.maxReal : double(I.maxInt);
    break;
  }
  }
  return Out;
}

Manifest fromSupport(const sm::Manifest &M) {
  Manifest Out;
  Out.path = M.path;
  Out.ptx = M.ptxFiles;
  for (const sm::Buffer &B : M.buffers)
    Out.buffers.push_back(BufferSpec{B.name, B.bytes, bufferInit(B.init), B.output, B.layout});
  for (const sm::Launch &L : M.launches) {
    LaunchSpec S;
    S.kernel = L.kernel;
    S.grid = Dim3{L.grid.x, L.grid.y, L.grid.z};
    S.block = Dim3{L.block.x, L.block.y, L.block.z};
    S.sharedBytes = L.sharedBytes;
    for (const sm::Arg &A : L.args)
      S.args.push_back(argSpec(A, M.buffers));
    Out.launches.push_back(std::move(S));
  }
  return Out;
}

/// Whether an integer fill of Row may draw V: an integer the type holds.
bool holds(const sm::RandomTypeRow &Row, double V) {
  return double(Row.lo) <= V && V <= double(Row.hi) && std::trunc(V) == V;
}

} // namespace

support::Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path,
                                          const ManifestOptions &Options) {
  auto M = sm::parseManifest(Text, Path, Options);
  if (!M)
    return M.error();
  return fromSupport(*M);
}

support::Expected<Manifest> loadManifest(const std::string &Path, const ManifestOptions &Options) {
  auto M = sm::loadManifest(Path, Options);
  if (!M)
    return M.error();
  return fromSupport(*M);
}

support::Expected<std::vector<uint8_t>> randomBytes(const BufferInit &Init, uint64_t Bytes) {
  const std::string &T = Init.dtype;
  const sm::RandomTypeRow *Row = sm::randomTypeNamed(T);
  if (!Row)
    return support::Error("unknown random fill dtype '" + T + "'");
  if (Bytes % sm::randomTypeSize(Row->type))
    return support::Error(std::to_string(Bytes) + " bytes are not a whole number of " + T +
                          " elements");
  // Integers: min + draw mod (max - min + 1), both bounds integers the type holds.
  if (!Row->isFloat() && !(holds(*Row, Init.min) && holds(*Row, Init.max) && Init.min <= Init.max))
    return support::Error("random " + T + " fill: bounds must be integers the type holds");
  sm::BufferInit Fill;
  Fill.kind = sm::InitKind::Random;
  Fill.type = Row->type;
  Fill.seed = Init.seed;
  Fill.minReal = Init.min;
  Fill.maxReal = Init.max;
  if (!Row->isFloat()) {
    Fill.minInt = static_cast<int64_t>(Init.min);
    Fill.maxInt = static_cast<int64_t>(Init.max);
  }
  std::vector<uint8_t> Out(Bytes);
  sm::fillRandom(Fill, Out.data(), Bytes);
  return Out;
}

} // namespace analyzer
