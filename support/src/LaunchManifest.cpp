// Manifest validation: every field checked against docs/manifest.md, errors at the value's
// position (LaunchManifest.h). One routine per grammar rule.
#include "support/LaunchManifest.h"

#include "support/BufferFill.h"
#include "support/Json.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <sstream>

namespace support::manifest {

namespace {

// Checks, with the manifest's file name for messages.
class Validator {
public:
  Validator(const std::string &File, std::vector<std::string> &Warnings,
            const ManifestOptions &Options)
      : File(File), Warnings(&Warnings), Options(Options) {}

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

  // The path string V (`What` in type errors, the manifest's field `Field` in the other ones),
  // resolved against the manifest's folder. A path that is absolute or whose `..` leaves the
  // folder is refused (a manifest is a file people pass around), unless the options allow it.
  Expected<std::string> resolve(const JsonValue &V, const std::string &What,
                                const std::string &Field) const {
    auto Text = string(V, What);
    if (!Text)
      return Text.error();
    std::filesystem::path P(*Text);
    const std::filesystem::path Inside = P.lexically_normal();
    const bool Outside = P.is_absolute() || (!Inside.empty() && *Inside.begin() == "..");
    if (Outside && !Options.allowOutsidePaths)
      return at(V, Field + ": '" + *Text + "' is outside the manifest's folder (" +
                       (P.is_absolute() ? "an absolute path" : "'..' leaves it") +
                       "; --allow-outside-paths accepts it)");
    if (P.is_absolute())
      return *Text;
    return (std::filesystem::path(File).parent_path() / P).lexically_normal().string();
  }

private:
  const std::string &File;
  std::vector<std::string> *Warnings;
  const ManifestOptions &Options;
};

Expected<RandomType> randomTypeFromName(const Validator &C, const JsonValue &V) {
  if (V.kind == JsonKind::String)
    if (const RandomTypeRow *R = randomTypeNamed(V.text))
      return R->type;
  return C.at(V, "random fill type must be one of f32, f16, f64, bf16, s32, u32, s16, u16, s8, u8");
}

// The range of a random fill (absent bounds keep the defaults 0 and 1): doubles for the
// floating-point types, integers the type can hold for the integer types.
MaybeError parseRange(const Validator &C, BufferInit &Init, const JsonValue &InitV,
                      const std::string &TypeName) {
  const JsonValue *MinV = InitV.find("min"), *MaxV = InitV.find("max");
  const RandomTypeRow &Row = randomTypeRow(Init.type);
  bool Real = Row.isFloat();
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
    if (*I < Row.lo || *I > Row.hi)
      return C.at(*B, "bound " + B->text + " is outside the range of " + TypeName);
    (B == MinV ? Init.minInt : Init.maxInt) = *I;
  }
  const JsonValue &At = MaxV ? *MaxV : MinV ? *MinV : InitV;
  if (Real ? !(Init.minReal <= Init.maxReal) : Init.maxInt < Init.minInt)
    return C.at(At, "max must not be below min");
  return std::nullopt;
}

// init := "zero" | {"random": type, "seed": u64, "min": n, "max": n} | {"file": path}
Expected<BufferInit> parseInit(const Validator &C, const JsonValue &V, uint64_t Bytes,
                               const std::string &Field) {
  BufferInit Init;
  if (V.kind == JsonKind::String && V.text == "zero")
    return Init;
  if (V.kind != JsonKind::Object)
    return C.at(V, "buffer init must be \"zero\", {\"random\": ...} or {\"file\": ...}");
  if (const JsonValue *F = V.find("file")) {
    C.warnUnknownKeys(V, {"file"}, "a file init");
    auto Path = C.resolve(*F, "init file", Field + ".file");
    if (!Path)
      return Path.error();
    Init.kind = InitKind::File;
    Init.file = *Path;
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
Expected<Buffer> parseBuffer(const Validator &C, const JsonValue &V, size_t Index) {
  if (auto S = C.expectKind(V, JsonKind::Object, "a buffer"))
    return *S;
  // "layout" (the element order of a weight buffer) is informational: bytes are bytes.
  C.warnUnknownKeys(V, {"name", "bytes", "init", "output", "layout"}, "a buffer");
  const std::string Field = "buffers[" + std::to_string(Index) + "]";
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
    auto Init = parseInit(C, *I, B.bytes, Field + ".init");
    if (!Init)
      return Init.error();
    B.init = std::move(*Init);
  }
  if (const JsonValue *O = V.find("output")) {
    auto Out = C.resolve(*O, "buffer output", Field + ".output");
    if (!Out)
      return Out.error();
    B.output = *Out;
  }
  if (const JsonValue *L = V.find("layout")) {
    auto Layout = C.string(*L, "buffer layout");
    if (!Layout)
      return Layout.error();
    B.layout = *Layout;
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

// A floating-point scalar V as the bits of type T, rounded to nearest even (f16 and bf16
// directly from the double); a finite value that rounds to infinity is an error.
Expected<uint64_t> floatBits(const Validator &C, const JsonValue &V, ScalarType T) {
  const std::string Name = scalarTypeName(T);
  auto D = jsonToDouble(V, "");
  if (!D)
    return C.at(V, Name + " argument: " + D.error().message);
  uint64_t U = 0;
  bool Inf = false;
  if (T == ScalarType::F16 || T == ScalarType::BF16) {
    const bool Half = T == ScalarType::F16;
    U = Half ? doubleToHalfBits(*D) : doubleToBf16Bits(*D);
    Inf = (U & 0x7FFF) == (Half ? 0x7C00u : 0x7F80u);
  } else if (T == ScalarType::F32) {
    float F = static_cast<float>(*D);
    Inf = std::isinf(F);
    uint32_t Bits;
    std::memcpy(&Bits, &F, 4);
    U = Bits;
  } else {
    std::memcpy(&U, &*D, 8);
  }
  if (Inf)
    return C.at(V, Name + " argument " + V.text + " overflows " + Name);
  return U;
}

// Scalar value V as the bit pattern of type T (integers exact and range-checked; floats as
// floatBits).
Expected<uint64_t> scalarBits(const Validator &C, const JsonValue &V, ScalarType T) {
  const char *Name = scalarTypeName(T);
  uint32_t Bits = scalarTypeSize(T) * 8;
  if (T == ScalarType::F16 || T == ScalarType::BF16 || T == ScalarType::F32 || T == ScalarType::F64)
    return floatBits(C, V, T);
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
    auto Path = C.resolve(**PtxV, "ptx file", "ptx");
    if (!Path)
      return Path.error();
    M.ptxFiles.push_back(*Path);
    return std::nullopt;
  }
  if (auto S = C.expectKind(**PtxV, JsonKind::Array, "ptx"))
    return S;
  if ((**PtxV).items.empty())
    return C.at(**PtxV, "ptx must list at least one file");
  for (const JsonValue &P : (**PtxV).items) {
    auto Path = C.resolve(P, "ptx file", "ptx[" + std::to_string(M.ptxFiles.size()) + "]");
    if (!Path)
      return Path.error();
    M.ptxFiles.push_back(*Path);
  }
  return std::nullopt;
}

// A buffer's output must name a file of its own: not a folder, not what the manifest reads (a
// PTX file, an init file), not another buffer's output (the last write would win silently).
MaybeError checkOutput(const Validator &C, const JsonValue &BV, const Manifest &M,
                       const Buffer &B) {
  if (B.output.empty())
    return std::nullopt;
  const JsonValue &V = *BV.find("output");
  const std::string Field = "buffers[" + std::to_string(M.buffers.size()) + "].output";
  const std::string Name = std::filesystem::path(B.output).filename().string();
  if (Name.empty() || Name == "." || Name == "..")
    return C.at(V, Field + ": '" + V.text + "' names a folder, not a file");
  for (const std::string &Ptx : M.ptxFiles)
    if (Ptx == B.output)
      return C.at(V, Field + ": '" + V.text + "' is a PTX file the manifest reads");
  for (const Buffer &Other : M.buffers) {
    if (Other.output == B.output)
      return C.at(V, Field + ": '" + V.text + "' is also buffer '" + Other.name + "''s output");
    if (Other.init.file == B.output)
      return C.at(V, Field + ": '" + V.text + "' is buffer '" + Other.name + "''s init file");
  }
  if (B.init.file == B.output)
    return C.at(V, Field + ": '" + V.text + "' is the buffer's own init file");
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
    auto B = parseBuffer(C, BV, M.buffers.size());
    if (!B)
      return B.error();
    if (!Index.emplace(B->name, M.buffers.size()).second)
      return C.at(BV, "duplicate buffer name '" + B->name + "'");
    if (auto E = checkOutput(C, BV, M, *B))
      return E;
    M.buffers.push_back(std::move(*B));
  }
  return std::nullopt;
}

} // namespace

Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path,
                                 const ManifestOptions &Options) {
  auto Root = parseJson(Text, Path);
  if (!Root)
    return Root.error();
  Manifest M;
  M.path = Path;
  Validator C(Path, M.warnings, Options);
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

Expected<Manifest> loadManifest(const std::string &Path, const ManifestOptions &Options) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(Path, 0, 0, "cannot open the manifest");
  std::stringstream Ss;
  Ss << In.rdbuf();
  return parseManifest(Ss.str(), Path, Options);
}

} // namespace support::manifest
