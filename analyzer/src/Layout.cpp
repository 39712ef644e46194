// Static storage of a module: module and function-scope variables laid out (.global -> Device
// buffers, .const -> the const image, .shared -> one program-wide static layout) and their
// initialisers turned into bytes, symbols included (PTX ISA 5.4.4: an initialiser may name a
// variable, `generic(var)`, or a function, each with a `+offset`).
#include "Decoder.h"

#include <algorithm>

namespace analyzer {
namespace {

uint64_t alignUp(uint64_t V, uint64_t A) { return A <= 1 ? V : (V + A - 1) / A * A; }

/// Bytes of storage: an unsized array (`x[] = {1, 2, 3}`) takes its initialiser's size.
uint64_t storageBytes(const ptx::Variable &V) {
  uint64_t Elem = std::max(1u, ptx::typeBits(V.type) / 8);
  return V.sizeBytes() ? V.sizeBytes() : alignUp(V.init.size() * Elem, Elem * V.vectorWidth);
}

using SymbolMap = std::unordered_map<std::string, SymbolInfo>;

/// Where an initialised variable's bytes go: a module .global (index) or the const image.
struct Holder {
  int32_t global = -1;
  uint64_t base = 0; ///< offset of the variable in the const image
};

class Layouter {
public:
  Layouter(ProgramImpl &P, const ptx::Module &M, const std::vector<const ptx::Function *> &Bodies,
           const std::unordered_map<std::string, uint32_t> &FuncByName)
      : P(P), M(M), Bodies(Bodies), FuncByName(FuncByName) {}
  support::MaybeError run(ModuleLayout &L);

private:
  ProgramImpl &P;
  const ptx::Module &M;
  const std::vector<const ptx::Function *> &Bodies;
  const std::unordered_map<std::string, uint32_t> &FuncByName;
  uint64_t SharedOff = 0;
  std::vector<std::pair<SymbolMap *, std::string>> Extern;
  /// Initialisers to fill once every symbol is placed: variable, its holder, the symbols in
  /// scope (function scope first).
  struct Pending {
    const ptx::Variable *var;
    Holder holder;
    const SymbolMap *inner;
  };
  std::vector<Pending> Inits;

  support::MaybeError place(const ptx::Variable &V, SymbolMap &To,
                            const std::string &BufferName, const SymbolMap *Inner);
  support::Error tooLarge(const ptx::Variable &V, uint64_t Offset, uint64_t Limit) const;
  support::MaybeError fill(const Pending &Pd, const SymbolMap &Module);
};

/// The constant bank a module's .const variables share (PTX ISA 5.1.3: 64 KB).
constexpr uint64_t MaxConstBytes = 64 * 1024;
/// The interpreter lays out every .shared variable of a module once, for all its kernels, and
/// gives each CTA that layout: far more than any kernel may use (228 KB), less than would
/// exhaust host memory (launches check each kernel's own variables against the real limit).
constexpr uint64_t MaxSharedLayoutBytes = uint64_t(16) << 20;

/// `.const variable 'c' of 70000 bytes at offset 0 does not fit in the 65536 bytes of ...`
support::Error Layouter::tooLarge(const ptx::Variable &V, uint64_t Offset, uint64_t Limit) const {
  const bool Const = V.space == ptx::StateSpace::Const;
  return support::Error(P.file, V.loc.line, V.loc.col,
                        std::string(Const ? ".const" : ".shared") + " variable '" + V.name +
                            "' of " + std::to_string(storageBytes(V)) + " bytes at offset " +
                            std::to_string(Offset) + " does not fit in the " +
                            std::to_string(Limit) +
                            (Const ? " bytes of constant memory"
                                   : " bytes the interpreter lays out for a module's .shared "
                                     "variables"));
}

// A .global variable's initial bytes cover its initialiser only (the Device buffer is zero
// beyond them), so a large uninitialised array costs nothing before it is launched.
support::MaybeError Layouter::place(const ptx::Variable &V, SymbolMap &To,
                                    const std::string &BufferName,
                                    const SymbolMap *Inner) {
  const uint64_t Bytes = storageBytes(V);
  if (V.space == ptx::StateSpace::Global) {
    const uint64_t Elem = std::max(1u, ptx::typeBits(V.type) / 8);
    const uint64_t InitBytes = std::min<uint64_t>(Bytes, V.init.size() * Elem);
    To[V.name] = {SymbolInfo::Kind::GlobalVar, P.globals.size(), ptx::StateSpace::Global, Bytes};
    Inits.push_back({&V, {static_cast<int32_t>(P.globals.size()), 0}, Inner});
    P.globals.push_back({BufferName, Bytes, std::vector<uint8_t>(InitBytes, 0), {}});
  } else if (V.space == ptx::StateSpace::Const) {
    uint64_t Off = alignUp(P.constImage.size(), naturalAlign(V));
    if (Bytes > MaxConstBytes || Off + Bytes > MaxConstBytes)
      return tooLarge(V, Off, MaxConstBytes);
    P.constImage.resize(Off + Bytes, 0);
    To[V.name] = {SymbolInfo::Kind::Value, Off, ptx::StateSpace::Const, Bytes};
    Inits.push_back({&V, {-1, Off}, Inner});
  } else if (V.space == ptx::StateSpace::Shared) {
    if (V.sizeBytes() == 0) {
      Extern.push_back({&To, V.name});
      return std::nullopt;
    }
    SharedOff = alignUp(SharedOff, naturalAlign(V));
    if (V.sizeBytes() > MaxSharedLayoutBytes || SharedOff + V.sizeBytes() > MaxSharedLayoutBytes)
      return tooLarge(V, SharedOff, MaxSharedLayoutBytes);
    To[V.name] = {SymbolInfo::Kind::Value, SharedOff, ptx::StateSpace::Shared, V.sizeBytes()};
    SharedOff += V.sizeBytes();
  }
  return std::nullopt;
}

// Numbers become their bits; a symbol becomes its address: a .global variable's (patched at
// launch), a .const or .shared variable's offset in its space (or its generic address inside
// generic()), a function's WindowFunc address, or WARP_SZ's 32.
support::MaybeError Layouter::fill(const Pending &Pd, const SymbolMap &Module) {
  const ptx::Variable &V = *Pd.var;
  std::vector<uint8_t> &Bytes =
      Pd.holder.global >= 0 ? P.globals[Pd.holder.global].init : P.constImage;
  const uint64_t Base = Pd.holder.global >= 0 ? 0 : Pd.holder.base;
  const unsigned Elem = std::max(1u, ptx::typeBits(V.type) / 8);
  for (size_t I = 0; I < V.init.size() && (I + 1) * Elem <= storageBytes(V); ++I) {
    const ptx::Operand &O = V.init[I];
    const uint64_t At = Base + I * Elem;
    uint64_t Bits = 0;
    if (O.kind != ptx::Operand::Kind::Symbol) {
      Bits = immediateBits(O, V.type);
    } else {
      auto Lookup = [&](const SymbolMap *Map) -> const SymbolInfo * {
        auto It = Map ? Map->find(O.name) : Module.end();
        return Map && It != Map->end() ? &It->second : nullptr;
      };
      const SymbolInfo *S = Lookup(Pd.inner) ? Lookup(Pd.inner) : Lookup(&Module);
      auto F = FuncByName.find(O.name);
      uint64_t Add = static_cast<uint64_t>(O.value);
      if (S && S->kind == SymbolInfo::Kind::GlobalVar) {
        std::vector<Reloc> &To =
            Pd.holder.global >= 0 ? P.globals[Pd.holder.global].relocs : P.constRelocs;
        To.push_back({At, Elem, static_cast<uint32_t>(S->value), Add});
        continue;
      }
      if (S && S->kind == SymbolInfo::Kind::Value)
        Bits = S->value + Add +
               (O.generic ? (S->space == ptx::StateSpace::Const    ? WindowConst
                             : S->space == ptx::StateSpace::Shared ? WindowShared
                                                                   : 0)
                          : 0);
      else if (!S && F != FuncByName.end())
        Bits = WindowFunc + F->second + Add;
      else if (!S && O.name == "WARP_SZ")
        Bits = 32 + Add;
      else
        return support::Error(P.file, V.loc.line, V.loc.col,
                              "unknown symbol '" + O.name + "' in the initializer of '" + V.name +
                                  "'");
    }
    std::memcpy(Bytes.data() + At, &Bits, std::min<unsigned>(Elem, 8));
  }
  return std::nullopt;
}

support::MaybeError Layouter::run(ModuleLayout &L) {
  for (const ptx::Variable &V : M.globals)
    if (std::optional<support::Error> E = place(V, L.syms, V.name, nullptr))
      return E;
  L.funcSyms.resize(Bodies.size());
  for (size_t F = 0; F < Bodies.size(); ++F)
    for (const ptx::Variable &V : Bodies[F]->locals)
      if (std::optional<support::Error> E =
              place(V, L.funcSyms[F], Bodies[F]->name + "::" + V.name, &L.funcSyms[F]))
        return E;
  P.staticShared = static_cast<uint32_t>(SharedOff);
  P.dynamicSharedOffset = static_cast<uint32_t>(alignUp(SharedOff, 16));
  for (auto &[Map, Name] : Extern)
    (*Map)[Name] = {SymbolInfo::Kind::Value, P.dynamicSharedOffset, ptx::StateSpace::Shared, 0};
  for (const Pending &Pd : Inits)
    if (std::optional<support::Error> E = fill(Pd, L.syms))
      return E;
  return std::nullopt;
}

} // namespace

uint64_t naturalAlign(const ptx::Variable &V) {
  if (V.align)
    return V.align;
  return std::max(1u, ptx::typeBits(V.type) / 8) * V.vectorWidth;
}

support::Expected<ModuleLayout>
layoutModule(ProgramImpl &P, const ptx::Module &M, const std::vector<const ptx::Function *> &Bodies,
             const std::unordered_map<std::string, uint32_t> &FuncByName) {
  ModuleLayout L;
  if (std::optional<support::Error> E = Layouter(P, M, Bodies, FuncByName).run(L))
    return *E;
  return L;
}

} // namespace analyzer
