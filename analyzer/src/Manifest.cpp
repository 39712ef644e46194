// Launch manifests (docs/manifest.md): JSON -> Manifest, seeded buffer fills, and running every
// launch with outputs written atomically.
#include "analyzer/Manifest.h"

#include "analyzer/ScalarOps.h"
#include "ptx/Parser.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace analyzer {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

/// Thrown inside this file only; parseManifest turns it into a support::Error.
struct FieldError {
  std::string message;
};

[[noreturn]] void bad(const std::string &Field, const std::string &Why) {
  throw FieldError{Field + ": " + Why};
}

const Json &need(const Json &Obj, const char *Key, const std::string &Field) {
  if (!Obj.is_object() || !Obj.contains(Key))
    bad(Field, std::string("missing field '") + Key + "'");
  return Obj.at(Key);
}

uint64_t toU64(const Json &V, const std::string &Field) {
  if (!V.is_number_unsigned())
    bad(Field, "expected a non-negative integer");
  return V.get<uint64_t>();
}

std::string toStr(const Json &V, const std::string &Field) {
  if (!V.is_string())
    bad(Field, "expected a string");
  return V.get<std::string>();
}

Dim3 toDim3(const Json &V, const std::string &Field) {
  if (!V.is_array() || V.empty() || V.size() > 3)
    bad(Field, "expected 1 to 3 positive integers");
  Dim3 D{1, 1, 1};
  for (size_t K = 0; K < V.size(); ++K) {
    if (!V[K].is_number_unsigned() || V[K].get<uint64_t>() == 0 ||
        V[K].get<uint64_t>() > UINT32_MAX)
      bad(Field, "expected 1 to 3 positive integers");
    D[K] = static_cast<uint32_t>(V[K].get<uint64_t>());
  }
  return D;
}

/// A random-fill dtype: its element size and, for the integer ones, the values it holds.
struct RandomDtype {
  std::string_view name;
  unsigned bytes;
  bool isFloat;
  double lo = 0, hi = 0; ///< integer types only
};
constexpr RandomDtype RandomDtypes[] = {{"f32", 4, true},
                                        {"f64", 8, true},
                                        {"f16", 2, true},
                                        {"bf16", 2, true},
                                        {"s32", 4, false, -2147483648.0, 2147483647.0},
                                        {"u32", 4, false, 0, 4294967295.0},
                                        {"s16", 2, false, -32768, 32767},
                                        {"u16", 2, false, 0, 65535},
                                        {"s8", 1, false, -128, 127},
                                        {"u8", 1, false, 0, 255}};

const RandomDtype *randomDtype(std::string_view Name) {
  for (const RandomDtype &D : RandomDtypes)
    if (D.name == Name)
      return &D;
  return nullptr;
}

/// Whether an integer fill of D may draw V: an integer D holds.
bool holds(const RandomDtype &D, double V) { return D.lo <= V && V <= D.hi && std::trunc(V) == V; }

BufferInit parseInit(const Json &V, const std::string &Field, const fs::path &Dir) {
  BufferInit I;
  if (V.is_string()) {
    if (V.get<std::string>() != "zero")
      bad(Field, "expected \"zero\", {\"random\": ...} or {\"file\": ...}");
    return I;
  }
  if (V.is_object() && V.contains("file")) {
    I.kind = BufferInit::Kind::File;
    I.file = (Dir / toStr(V.at("file"), Field + ".file")).string();
    return I;
  }
  if (!V.is_object() || !V.contains("random"))
    bad(Field, "expected \"zero\", {\"random\": ...} or {\"file\": ...}");
  I.kind = BufferInit::Kind::Random;
  I.dtype = toStr(V.at("random"), Field + ".random");
  const RandomDtype *D = randomDtype(I.dtype);
  if (!D)
    bad(Field + ".random", "unknown dtype '" + I.dtype +
                               "' (expected f32, f64, f16, bf16, s32, u32, s16, u16, s8 or u8)");
  I.seed = V.contains("seed") ? toU64(V.at("seed"), Field + ".seed") : 0;
  for (auto [Key, Dst] : {std::pair{"min", &I.min}, std::pair{"max", &I.max}})
    if (V.contains(Key)) {
      const Json &B = V.at(Key);
      if (!B.is_number())
        bad(Field + "." + Key, "expected a number");
      *Dst = B.get<double>();
      // Integer fills draw integers the type can hold (as ptxcast-measure checks them).
      if (!D->isFloat && (!B.is_number_integer() || !holds(*D, *Dst)))
        bad(Field + "." + Key, B.dump() + " is not an integer in the range of " + I.dtype);
    }
  if (!(I.min <= I.max))
    bad(Field, "min is greater than max");
  return I;
}

ArgSpec parseArg(const Json &V, const std::string &Field);

/// {"struct": [FIELD, ...]}: each field an argument, or {"<ptx type>": [v, ...]} for an array.
ArgSpec parseStruct(const Json &V, const std::string &Field) {
  const Json &L = V.at("struct");
  if (V.size() != 1)
    bad(Field, "a struct argument has exactly one key, \"struct\"");
  if (!L.is_array() || L.empty())
    bad(Field + ".struct", "expected a non-empty array of fields");
  ArgSpec A;
  A.isStruct = true;
  for (size_t K = 0; K < L.size(); ++K) {
    const std::string F = Field + ".struct[" + std::to_string(K) + "]";
    const Json &E = L[K];
    if (!E.is_object() || E.size() != 1 || !E.begin().value().is_array() || E.contains("struct")) {
      A.fields.push_back(parseArg(E, F));
      continue;
    }
    const Json &Values = E.begin().value();
    if (Values.empty())
      bad(F, "expected a non-empty array of values");
    for (size_t I = 0; I < Values.size(); ++I)
      A.fields.push_back(
          parseArg(Json{{E.begin().key(), Values[I]}}, F + "[" + std::to_string(I) + "]"));
  }
  return A;
}

ArgSpec parseArg(const Json &V, const std::string &Field) {
  ArgSpec A;
  if (!V.is_object() || V.size() == 0)
    bad(Field, "expected {\"buffer\": NAME}, {\"<ptx type>\": value} or {\"struct\": [...]}");
  if (V.contains("struct"))
    return parseStruct(V, Field);
  if (V.contains("buffer")) {
    A.isBuffer = true;
    A.buffer = toStr(V.at("buffer"), Field + ".buffer");
    A.offset = V.contains("offset") ? toU64(V.at("offset"), Field + ".offset") : 0;
    return A;
  }
  if (V.size() != 1)
    bad(Field, "a scalar argument has exactly one key, its PTX type");
  const std::string Name = V.begin().key();
  std::optional<ptx::Type> T = ptx::lookupType(Name);
  unsigned Bits = T ? ptx::typeBits(*T) : 0;
  if (!T || (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64) ||
      ptx::typeKind(*T) == ptx::TypeKind::Pred || *T == ptx::Type::F16x2 ||
      *T == ptx::Type::BF16x2 || *T == ptx::Type::E4M3x2 || *T == ptx::Type::E5M2x2)
    bad(Field, "unknown scalar type '" + Name + "'");
  const Json &X = V.begin().value();
  A.type = *T;
  std::string F = Field + "." + Name;
  if (ptx::typeKind(*T) == ptx::TypeKind::Float) {
    if (!X.is_number())
      bad(F, "expected a number");
    double D = X.get<double>();
    if (*T == ptx::Type::F64)
      A.bits = std::bit_cast<uint64_t>(D);
    else if (*T == ptx::Type::F16)
      A.bits = scalar::f64ToF16(D);
    else if (*T == ptx::Type::BF16)
      A.bits = scalar::f64ToBf16(D);
    else
      A.bits = std::bit_cast<uint32_t>(scalar::f64ToF32(D));
    // A finite value must stay finite: rounding 1e300 to f32 gives infinity, not the number.
    const bool Inf = *T == ptx::Type::F16    ? (A.bits & 0x7FFF) == 0x7C00
                     : *T == ptx::Type::BF16 ? (A.bits & 0x7FFF) == 0x7F80
                     : *T == ptx::Type::F32  ? std::isinf(std::bit_cast<float>(uint32_t(A.bits)))
                                             : false;
    if (Inf && std::isfinite(D))
      bad(F, X.dump() + " does not fit (it rounds to infinity)");
    return A;
  }
  if (!X.is_number_integer())
    bad(F, "expected an integer");
  bool Signed = ptx::typeKind(*T) == ptx::TypeKind::Signed;
  if (X.is_number_unsigned()) {
    uint64_t U = X.get<uint64_t>();
    uint64_t Max = Bits == 64 ? UINT64_MAX >> (Signed ? 1 : 0)
                              : (uint64_t(1) << (Bits - (Signed ? 1 : 0))) - 1;
    if (U > Max)
      bad(F, std::to_string(U) + " does not fit");
    A.bits = U;
  } else {
    int64_t S = X.get<int64_t>();
    int64_t Min = Bits == 64 ? INT64_MIN : -(int64_t(1) << (Bits - 1));
    if (!Signed || S < Min)
      bad(F, std::to_string(S) + " does not fit");
    A.bits = static_cast<uint64_t>(S) & (Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1);
  }
  return A;
}

LaunchSpec parseLaunch(const Json &V, const std::string &Field) {
  LaunchSpec L;
  L.kernel = toStr(need(V, "kernel", Field), Field + ".kernel");
  L.grid = toDim3(need(V, "grid", Field), Field + ".grid");
  L.block = toDim3(need(V, "block", Field), Field + ".block");
  if (V.contains("shared_bytes")) {
    uint64_t S = toU64(V.at("shared_bytes"), Field + ".shared_bytes");
    if (S > UINT32_MAX)
      bad(Field + ".shared_bytes", "too large");
    L.sharedBytes = static_cast<uint32_t>(S);
  }
  if (V.contains("args")) {
    const Json &A = V.at("args");
    if (!A.is_array())
      bad(Field + ".args", "expected an array");
    for (size_t K = 0; K < A.size(); ++K)
      L.args.push_back(parseArg(A[K], Field + ".args[" + std::to_string(K) + "]"));
  }
  return L;
}

Manifest parseJson(const Json &J, const std::string &Path) {
  Manifest M;
  M.path = Path;
  fs::path Dir = fs::path(Path).parent_path();
  if (!J.is_object())
    bad("manifest", "expected a JSON object");
  const Json &Ptx = need(J, "ptx", "manifest");
  if (Ptx.is_string())
    M.ptx.push_back((Dir / Ptx.get<std::string>()).string());
  else if (Ptx.is_array() && !Ptx.empty())
    for (size_t K = 0; K < Ptx.size(); ++K)
      M.ptx.push_back((Dir / toStr(Ptx[K], "ptx[" + std::to_string(K) + "]")).string());
  else
    bad("ptx", "expected a file name or a non-empty array of them");
  if (J.contains("buffers")) {
    const Json &B = J.at("buffers");
    if (!B.is_array())
      bad("buffers", "expected an array");
    for (size_t K = 0; K < B.size(); ++K) {
      std::string F = "buffers[" + std::to_string(K) + "]";
      BufferSpec S;
      S.name = toStr(need(B[K], "name", F), F + ".name");
      S.bytes = toU64(need(B[K], "bytes", F), F + ".bytes");
      if (B[K].contains("init"))
        S.init = parseInit(B[K].at("init"), F + ".init", Dir);
      if (B[K].contains("output"))
        S.output = (Dir / toStr(B[K].at("output"), F + ".output")).string();
      if (B[K].contains("layout"))
        S.layout = toStr(B[K].at("layout"), F + ".layout");
      for (const BufferSpec &O : M.buffers)
        if (O.name == S.name)
          bad(F + ".name", "buffer '" + S.name + "' is declared twice");
      M.buffers.push_back(std::move(S));
    }
  }
  const Json &L = need(J, "launches", "manifest");
  if (!L.is_array())
    bad("launches", "expected an array");
  for (size_t K = 0; K < L.size(); ++K)
    M.launches.push_back(parseLaunch(L[K], "launches[" + std::to_string(K) + "]"));
  return M;
}

/// splitmix64 (Steele, Lea, Flood 2014): the generator docs/manifest.md specifies.
uint64_t splitmix64(uint64_t &State) {
  uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}

} // namespace

support::Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path) {
  Json J = Json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded())
    return support::Error(Path, 0, 0, "invalid JSON");
  try {
    return parseJson(J, Path);
  } catch (const FieldError &E) {
    return support::Error(Path, 0, 0, E.message);
  }
}

support::Expected<Manifest> loadManifest(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return support::Error(Path, 0, 0, "cannot read the manifest");
  std::stringstream SS;
  SS << In.rdbuf();
  return parseManifest(SS.str(), Path);
}

support::Expected<std::vector<uint8_t>> randomBytes(const BufferInit &Init, uint64_t Bytes) {
  const std::string &T = Init.dtype;
  const RandomDtype *D = randomDtype(T);
  if (!D)
    return support::Error("unknown random fill dtype '" + T + "'");
  const unsigned Size = D->bytes;
  if (Bytes % Size)
    return support::Error(std::to_string(Bytes) + " bytes are not a whole number of " + T +
                          " elements");
  std::vector<uint8_t> Out(Bytes);
  uint64_t State = Init.seed;
  const bool IsFloat = D->isFloat;
  // Integers: min + draw mod (max - min + 1), both bounds integers the type holds.
  if (!IsFloat && !(holds(*D, Init.min) && holds(*D, Init.max) && Init.min <= Init.max))
    return support::Error("random " + T + " fill: bounds must be integers the type holds");
  int64_t Lo = static_cast<int64_t>(Init.min), Hi = static_cast<int64_t>(Init.max);
  uint64_t Span = static_cast<uint64_t>(Hi - Lo) + 1;
  for (uint64_t E = 0; E < Bytes / Size; ++E) {
    uint64_t R = splitmix64(State), V;
    if (IsFloat) {
      double U = static_cast<double>(R >> 40) * 0x1.0p-24; // shared with ptxcast-measure
      double X = Init.min + (Init.max - Init.min) * U;
      V = T == "f64"   ? std::bit_cast<uint64_t>(X)
          : T == "f32" ? std::bit_cast<uint32_t>(scalar::f64ToF32(X))
          : T == "f16" ? scalar::f64ToF16(X)
                       : scalar::f64ToBf16(X);
    } else {
      V = static_cast<uint64_t>(Lo + static_cast<int64_t>(Span == 0 ? R : R % Span));
    }
    std::memcpy(Out.data() + E * Size, &V, Size);
  }
  return Out;
}

} // namespace analyzer
