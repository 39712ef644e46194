// Manifest validation: every field checked against docs/manifest.md, errors at the value's
// position.
#include "Manifest.h"

#include "Fill.h"
#include "Json.h"
#include "support/StructLayout.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <sstream>

namespace measure {

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

// Checks, with the manifest's file name for messages.
class Validator {
public:
  Validator(const std::string &File, std::vector<std::string> &Warnings)
      : File(File), Warnings(&Warnings) {}

  Error at(const JsonValue &V, std::string Message) const {
    return Error(File, V.line, V.col, std::move(Message));
  }

  MaybeError expectKind(const JsonValue &V, JsonKind K, const std::string &What) const {
    if (V.kind != K)
      return at(V, What + " must be " +
                       (K == JsonKind::Array    ? "an array"
                        : K == JsonKind::Object ? "an object"
                                                : jsonKindName(K)) +
                       ", got " + jsonKindName(V.kind));
    return std::nullopt;
  }

  // Keys of Obj outside Allowed are reported as warnings (`file:line:col: warning: ...`) and
  // ignored: newer manifest writers may add informational fields, and a typo still shows.
  void warnUnknownKeys(const JsonValue &Obj, std::initializer_list<const char *> Allowed,
                       const std::string &What) const {
    for (const auto &[Key, Value] : Obj.members) {
      bool Known = false;
      std::string List;
      for (const char *A : Allowed) {
        Known |= Key == A;
        List += std::string(List.empty() ? "" : ", ") + A;
      }
      if (!Known)
        Warnings->push_back(File + ":" + std::to_string(Value.line) + ":" +
                            std::to_string(Value.col) + ": warning: unknown key '" + Key + "' in " +
                            What + " ignored (expected " + List + ")");
    }
  }

  Expected<const JsonValue *> require(const JsonValue &Obj, const char *Key,
                                      const std::string &What) const {
    if (const JsonValue *V = Obj.find(Key))
      return V;
    return at(Obj, What + " has no '" + Key + "'");
  }

  Expected<uint64_t> uintIn(const JsonValue &V, uint64_t Lo, uint64_t Hi,
                            const std::string &What) const {
    auto U = jsonToUint64(V, File);
    if (!U)
      return at(V, What + ": " + U.error().message);
    if (*U < Lo || *U > Hi)
      return at(V, What + " must be in [" + std::to_string(Lo) + ", " + std::to_string(Hi) +
                       "], got " + V.text);
    return *U;
  }

  Expected<std::string> string(const JsonValue &V, const std::string &What) const {
    if (auto S = expectKind(V, JsonKind::String, What))
      return *S;
    if (V.text.empty())
      return at(V, What + " must not be empty");
    return V.text;
  }

  std::string resolve(const std::string &Rel) const {
    std::filesystem::path P(Rel);
    if (P.is_absolute())
      return Rel;
    return (std::filesystem::path(File).parent_path() / P).lexically_normal().string();
  }

private:
  const std::string &File;
  std::vector<std::string> *Warnings;
};

struct RandomRow {
  const char *name;
  RandomType type;
  int64_t lo, hi; ///< integer types: the values the type holds
};

const RandomRow RandomTable[] = {
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

const RandomRow *randomRow(RandomType T) {
  for (const RandomRow &R : RandomTable)
    if (R.type == T)
      return &R;
  return nullptr;
}

Expected<RandomType> randomTypeFromName(const Validator &C, const JsonValue &V) {
  if (V.kind == JsonKind::String)
    for (const RandomRow &R : RandomTable)
      if (V.text == R.name)
        return R.type;
  return C.at(V, "random fill type must be one of f32, f16, f64, bf16, s32, u32, s16, u16, s8, u8");
}

// The range of a random fill (absent bounds keep the defaults 0 and 1): doubles for the
// floating-point types, integers the type can hold for the integer types.
MaybeError parseRange(const Validator &C, BufferInit &Init, const JsonValue &InitV,
                  const std::string &TypeName) {
  const JsonValue *MinV = InitV.find("min"), *MaxV = InitV.find("max");
  const RandomRow *Row = randomRow(Init.type);
  bool Real = Row->lo == Row->hi;
  for (const JsonValue *B : {MinV, MaxV}) {
    if (!B)
      continue;
    std::string Which = B == MinV ? "min" : "max";
    if (Real) {
      auto D = jsonToDouble(*B, "");
      if (!D)
        return C.at(*B, Which + ": " + D.error().message);
      (B == MinV ? Init.minReal : Init.maxReal) = *D;
      continue;
    }
    auto I = jsonToInt64(*B, "");
    if (!I)
      return C.at(*B, Which + ": " + I.error().message);
    if (*I < Row->lo || *I > Row->hi)
      return C.at(*B, "bound " + B->text + " is outside the range of " + TypeName);
    (B == MinV ? Init.minInt : Init.maxInt) = *I;
  }
  const JsonValue &At = MaxV ? *MaxV : MinV ? *MinV : InitV;
  if (Real ? !(Init.minReal <= Init.maxReal) : Init.maxInt < Init.minInt)
    return C.at(At, "max must not be below min");
  return std::nullopt;
}

// init := "zero" | {"random": type, "seed": u64, "min": n, "max": n} | {"file": path}
Expected<BufferInit> parseInit(const Validator &C, const JsonValue &V, uint64_t Bytes) {
  BufferInit Init;
  if (V.kind == JsonKind::String && V.text == "zero")
    return Init;
  if (V.kind != JsonKind::Object)
    return C.at(V, "buffer init must be \"zero\", {\"random\": ...} or {\"file\": ...}");
  if (const JsonValue *F = V.find("file")) {
    C.warnUnknownKeys(V, {"file"}, "a file init");
    auto Path = C.string(*F, "init file");
    if (!Path)
      return Path.error();
    Init.kind = InitKind::File;
    Init.file = C.resolve(*Path);
    return Init;
  }
  C.warnUnknownKeys(V, {"random", "seed", "min", "max"}, "a random init");
  auto TypeV = C.require(V, "random", "buffer init");
  if (!TypeV)
    return TypeV.error();
  auto Type = randomTypeFromName(C, **TypeV);
  if (!Type)
    return Type.error();
  Init.kind = InitKind::Random;
  Init.type = *Type;
  if (const JsonValue *SeedV = V.find("seed")) {
    auto Seed = C.uintIn(*SeedV, 0, std::numeric_limits<uint64_t>::max(), "seed");
    if (!Seed)
      return Seed.error();
    Init.seed = *Seed;
  }
  if (Bytes % randomTypeSize(*Type) != 0)
    return C.at(**TypeV, "buffer of " + std::to_string(Bytes) + " bytes is not a whole number of " +
                             (**TypeV).text + " elements");
  if (auto R = parseRange(C, Init, V, (**TypeV).text))
    return *R;
  return Init;
}

// buffer := {"name": str, "bytes": n, "init"?: init, "output"?: str, "layout"?: str}
Expected<Buffer> parseBuffer(const Validator &C, const JsonValue &V) {
  if (auto S = C.expectKind(V, JsonKind::Object, "a buffer"))
    return *S;
  // "layout" (the element order of a weight buffer) does not change what is timed.
  C.warnUnknownKeys(V, {"name", "bytes", "init", "output", "layout"}, "a buffer");
  Buffer B;
  auto NameV = C.require(V, "name", "buffer");
  if (!NameV)
    return NameV.error();
  auto Name = C.string(**NameV, "buffer name");
  if (!Name)
    return Name.error();
  B.name = *Name;
  auto BytesV = C.require(V, "bytes", "buffer '" + B.name + "'");
  if (!BytesV)
    return BytesV.error();
  auto Bytes = C.uintIn(**BytesV, 1, uint64_t(1) << 40, "buffer bytes");
  if (!Bytes)
    return Bytes.error();
  B.bytes = *Bytes;
  if (const JsonValue *I = V.find("init")) {
    auto Init = parseInit(C, *I, B.bytes);
    if (!Init)
      return Init.error();
    B.init = std::move(*Init);
  }
  if (const JsonValue *O = V.find("output")) {
    auto Out = C.string(*O, "buffer output");
    if (!Out)
      return Out.error();
    B.output = C.resolve(*Out);
  }
  return B;
}

// Reads N in [1, 3] unsigned integers (missing trailing ones are 1).
Expected<Dim3> parseDim3(const Validator &C, const JsonValue &V, const std::string &What) {
  if (auto S = C.expectKind(V, JsonKind::Array, What))
    return *S;
  if (V.items.empty() || V.items.size() > 3)
    return C.at(V, What + " must have 1 to 3 elements");
  uint32_t D[3] = {1, 1, 1};
  for (size_t I = 0; I < V.items.size(); ++I) {
    auto U = C.uintIn(V.items[I], 1, std::numeric_limits<uint32_t>::max(), What + " element");
    if (!U)
      return U.error();
    D[I] = static_cast<uint32_t>(*U);
  }
  return Dim3{D[0], D[1], D[2]};
}

// Scalar value V as the bit pattern of type T (integers exact and range-checked; floats rounded
// to nearest even; f16 and bf16 directly from the double).
Expected<uint64_t> scalarBits(const Validator &C, const JsonValue &V, ScalarType T) {
  const char *Name = scalarTypeName(T);
  uint32_t Bits = scalarTypeSize(T) * 8;
  if (T == ScalarType::F16 || T == ScalarType::BF16 || T == ScalarType::F32 ||
      T == ScalarType::F64) {
    auto D = jsonToDouble(V, "");
    if (!D)
      return C.at(V, std::string(Name) + " argument: " + D.error().message);
    if (T == ScalarType::F16)
      return uint64_t(doubleToHalfBits(*D));
    if (T == ScalarType::BF16)
      return uint64_t(doubleToBf16Bits(*D));
    if (T == ScalarType::F32) {
      float F = static_cast<float>(*D);
      if (std::isinf(F))
        return C.at(V, "f32 argument " + V.text + " overflows f32");
      uint32_t U;
      std::memcpy(&U, &F, 4);
      return uint64_t(U);
    }
    uint64_t U;
    std::memcpy(&U, &*D, 8);
    return U;
  }
  bool Signed = Name[0] == 's';
  if (Signed) {
    int64_t Lo = Bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (Bits - 1));
    int64_t Hi = Bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (Bits - 1)) - 1;
    auto I = jsonToInt64(V, "");
    if (!I)
      return C.at(V, std::string(Name) + " argument: " + I.error().message);
    if (*I < Lo || *I > Hi)
      return C.at(V, std::string(Name) + " argument " + V.text + " is out of range");
    return static_cast<uint64_t>(*I) & (Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1);
  }
  uint64_t Hi = Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
  return C.uintIn(V, 0, Hi, std::string(Name) + " argument");
}

Expected<Arg> parseArg(const Validator &C, const JsonValue &V,
                       const std::map<std::string, size_t> &BufferIndex,
                       const std::vector<Buffer> &Buffers);

// struct := {"struct": [arg | {TYPE: [value, ...]}, ...]} (an array field is one field per value)
Expected<Arg> parseStruct(const Validator &C, const JsonValue &V,
                          const std::map<std::string, size_t> &BufferIndex,
                          const std::vector<Buffer> &Buffers) {
  const JsonValue &L = *V.find("struct");
  C.warnUnknownKeys(V, {"struct"}, "a struct argument");
  if (auto S = C.expectKind(L, JsonKind::Array, "struct"))
    return *S;
  if (L.items.empty())
    return C.at(L, "a struct needs at least one field");
  Arg A;
  A.isStruct = true;
  for (const JsonValue &E : L.items) {
    const bool Array = E.kind == JsonKind::Object && E.members.size() == 1 &&
                       E.members.front().key != "struct" &&
                       E.members.front().value.kind == JsonKind::Array;
    if (!Array) {
      auto F = parseArg(C, E, BufferIndex, Buffers);
      if (!F)
        return F.error();
      A.fields.push_back(std::move(*F));
      continue;
    }
    const auto &[Key, Values] = E.members.front();
    if (Values.items.empty())
      return C.at(Values, "an array field needs at least one value");
    for (const JsonValue &X : Values.items) {
      JsonValue One;
      One.kind = JsonKind::Object;
      One.line = X.line;
      One.col = X.col;
      One.members.push_back({Key, X});
      auto F = parseArg(C, One, BufferIndex, Buffers);
      if (!F)
        return F.error();
      A.fields.push_back(std::move(*F));
    }
  }
  return A;
}

// arg := {"buffer": name, "offset"?: n} | {TYPE: value} | struct
Expected<Arg> parseArg(const Validator &C, const JsonValue &V,
                       const std::map<std::string, size_t> &BufferIndex,
                       const std::vector<Buffer> &Buffers) {
  if (auto S = C.expectKind(V, JsonKind::Object, "a kernel argument"))
    return *S;
  if (V.find("struct"))
    return parseStruct(C, V, BufferIndex, Buffers);
  Arg A;
  if (const JsonValue *B = V.find("buffer")) {
    C.warnUnknownKeys(V, {"buffer", "offset"}, "a buffer argument");
    auto Name = C.string(*B, "buffer argument");
    if (!Name)
      return Name.error();
    auto It = BufferIndex.find(*Name);
    if (It == BufferIndex.end())
      return C.at(*B, "unknown buffer '" + *Name + "'");
    A.isBuffer = true;
    A.buffer = It->second;
    if (const JsonValue *O = V.find("offset")) {
      auto Off = C.uintIn(*O, 0, Buffers[A.buffer].bytes, "buffer offset");
      if (!Off)
        return Off.error();
      A.offset = *Off;
    }
    return A;
  }
  if (V.members.size() != 1)
    return C.at(V, "a scalar argument must have exactly one key, its type (u8..u64, s8..s64, "
                   "b8..b64, f16, bf16, f32, f64)");
  const auto &[Key, Value] = V.members.front();
  auto T = scalarTypeFromName(Key);
  if (!T)
    return C.at(V, "unknown argument type '" + Key +
                       "' (expected buffer, u8..u64, s8..s64, b8..b64, f16, bf16, f32, f64)");
  auto Bits = scalarBits(C, Value, *T);
  if (!Bits)
    return Bits.error();
  A.type = *T;
  A.bits = *Bits;
  return A;
}

// launch := {"kernel": str, "grid": dims, "block": dims, "shared_bytes"?: n, "args"?: [arg*]}
Expected<Launch> parseLaunch(const Validator &C, const JsonValue &V,
                             const std::map<std::string, size_t> &BufferIndex,
                             const std::vector<Buffer> &Buffers) {
  if (auto S = C.expectKind(V, JsonKind::Object, "a launch"))
    return *S;
  C.warnUnknownKeys(V, {"kernel", "grid", "block", "shared_bytes", "args"}, "a launch");
  Launch L;
  auto KernelV = C.require(V, "kernel", "launch");
  if (!KernelV)
    return KernelV.error();
  auto Kernel = C.string(**KernelV, "kernel name");
  if (!Kernel)
    return Kernel.error();
  L.kernel = *Kernel;
  for (auto [Key, Dst] : {std::pair{"grid", &L.grid}, std::pair{"block", &L.block}}) {
    auto DV = C.require(V, Key, "launch of '" + L.kernel + "'");
    if (!DV)
      return DV.error();
    auto D = parseDim3(C, **DV, Key);
    if (!D)
      return D.error();
    *Dst = *D;
  }
  if (const JsonValue *S = V.find("shared_bytes")) {
    auto Shared = C.uintIn(*S, 0, std::numeric_limits<uint32_t>::max(), "shared_bytes");
    if (!Shared)
      return Shared.error();
    L.sharedBytes = static_cast<uint32_t>(*Shared);
  }
  const JsonValue *ArgsV = V.find("args"); // optional: a kernel without parameters
  if (!ArgsV)
    return L;
  if (auto S = C.expectKind(*ArgsV, JsonKind::Array, "args"))
    return *S;
  for (const JsonValue &AV : ArgsV->items) {
    auto A = parseArg(C, AV, BufferIndex, Buffers);
    if (!A)
      return A.error();
    L.args.push_back(*A);
  }
  return L;
}

// ptx := path | [path+]
MaybeError parsePtxList(const Validator &C, const JsonValue &Root, Manifest &M) {
  auto PtxV = C.require(Root, "ptx", "the manifest");
  if (!PtxV)
    return PtxV.error();
  if ((**PtxV).kind == JsonKind::String) {
    auto Path = C.string(**PtxV, "ptx file");
    if (!Path)
      return Path.error();
    M.ptxFiles.push_back(C.resolve(*Path));
    return std::nullopt;
  }
  if (auto S = C.expectKind(**PtxV, JsonKind::Array, "ptx"))
    return S;
  if ((**PtxV).items.empty())
    return C.at(**PtxV, "ptx must list at least one file");
  for (const JsonValue &P : (**PtxV).items) {
    auto Path = C.string(P, "ptx file");
    if (!Path)
      return Path.error();
    M.ptxFiles.push_back(C.resolve(*Path));
  }
  return std::nullopt;
}

MaybeError parseBuffers(const Validator &C, const JsonValue &Root, Manifest &M,
                    std::map<std::string, size_t> &Index) {
  const JsonValue *BuffersV = Root.find("buffers");
  if (!BuffersV)
    return std::nullopt;
  if (auto S = C.expectKind(*BuffersV, JsonKind::Array, "buffers"))
    return S;
  for (const JsonValue &BV : BuffersV->items) {
    auto B = parseBuffer(C, BV);
    if (!B)
      return B.error();
    if (!Index.emplace(B->name, M.buffers.size()).second)
      return C.at(BV, "duplicate buffer name '" + B->name + "'");
    M.buffers.push_back(std::move(*B));
  }
  return std::nullopt;
}

} // namespace

const char *scalarTypeName(ScalarType T) {
  assert(TypeTable[static_cast<int>(T)].type == T && "TypeTable is out of enum order");
  return TypeTable[static_cast<int>(T)].name;
}

namespace {

support::StructLayout layoutOf(const Arg &A, const std::function<uint64_t(size_t)> &Address) {
  support::StructLayout Out;
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

std::vector<uint8_t> argBytes(const Arg &A, const std::function<uint64_t(size_t)> &Address) {
  return layoutOf(A, Address).bytes();
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

Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path) {
  auto Root = parseJson(Text, Path);
  if (!Root)
    return Root.error();
  Manifest M;
  M.path = Path;
  Validator C(Path, M.warnings);
  if (auto S = C.expectKind(*Root, JsonKind::Object, "the manifest"))
    return *S;
  // "math": the lowering's --math, for people (workload.json and collect.py carry it on).
  C.warnUnknownKeys(*Root, {"ptx", "buffers", "launches", "math"}, "the manifest");
  if (auto S = parsePtxList(C, *Root, M))
    return *S;
  std::map<std::string, size_t> BufferIndex;
  if (auto S = parseBuffers(C, *Root, M, BufferIndex))
    return *S;
  auto LaunchesV = C.require(*Root, "launches", "the manifest");
  if (!LaunchesV)
    return LaunchesV.error();
  if (auto S = C.expectKind(**LaunchesV, JsonKind::Array, "launches"))
    return *S;
  if ((**LaunchesV).items.empty())
    return C.at(**LaunchesV, "launches must list at least one launch");
  for (const JsonValue &LV : (**LaunchesV).items) {
    auto L = parseLaunch(C, LV, BufferIndex, M.buffers);
    if (!L)
      return L.error();
    M.launches.push_back(std::move(*L));
  }
  return M;
}

Expected<Manifest> loadManifest(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(Path, 0, 0, "cannot open the manifest");
  std::stringstream Ss;
  Ss << In.rdbuf();
  return parseManifest(Ss.str(), Path);
}

} // namespace measure
