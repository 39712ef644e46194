// Operand resolution while decoding one function: registers to frame slots, special registers to
// slots filled at frame creation, immediates and symbol addresses to constant-pool entries.
#include "Decoder.h"

#include <algorithm>

namespace analyzer {
namespace {

struct SpecialName {
  std::string_view name;
  SpecialKind kind;
};

constexpr SpecialName SpecialNames[] = {
    {"%tid.x", SpecialKind::TidX},
    {"%tid.y", SpecialKind::TidY},
    {"%tid.z", SpecialKind::TidZ},
    {"%ntid.x", SpecialKind::NtidX},
    {"%ntid.y", SpecialKind::NtidY},
    {"%ntid.z", SpecialKind::NtidZ},
    {"%ctaid.x", SpecialKind::CtaidX},
    {"%ctaid.y", SpecialKind::CtaidY},
    {"%ctaid.z", SpecialKind::CtaidZ},
    {"%nctaid.x", SpecialKind::NctaidX},
    {"%nctaid.y", SpecialKind::NctaidY},
    {"%nctaid.z", SpecialKind::NctaidZ},
    {"%laneid", SpecialKind::LaneId},
    {"%warpid", SpecialKind::WarpId},
    {"%nwarpid", SpecialKind::NWarpId},
    {"%lanemask_eq", SpecialKind::LanemaskEq},
    {"%lanemask_le", SpecialKind::LanemaskLe},
    {"%lanemask_lt", SpecialKind::LanemaskLt},
    {"%lanemask_ge", SpecialKind::LanemaskGe},
    {"%lanemask_gt", SpecialKind::LanemaskGt},
    {"%clock", SpecialKind::Clock},
    {"%clock64", SpecialKind::Clock64},
    // A nanosecond timer: one nanosecond per warp instruction issued, as %clock64 counts them
    // (deterministic; what a kernel's timeout or back-off reads).
    {"%globaltimer", SpecialKind::Clock64},
    {"%globaltimer_lo", SpecialKind::Clock},
    {"%globaltimer_hi", SpecialKind::ClockHi},
    {"%dynamic_smem_size", SpecialKind::DynSmem},
    {"%total_smem_size", SpecialKind::TotalSmem},
    {"%smid", SpecialKind::Zero},
    // Launches are clusters of one CTA (checkLaunch refuses kernels that require more).
    {"%clusterid.x", SpecialKind::CtaidX},
    {"%clusterid.y", SpecialKind::CtaidY},
    {"%clusterid.z", SpecialKind::CtaidZ},
    {"%nclusterid.x", SpecialKind::NctaidX},
    {"%nclusterid.y", SpecialKind::NctaidY},
    {"%nclusterid.z", SpecialKind::NctaidZ},
    {"%cluster_ctaid.x", SpecialKind::Zero},
    {"%cluster_ctaid.y", SpecialKind::Zero},
    {"%cluster_ctaid.z", SpecialKind::Zero},
    {"%cluster_nctaid.x", SpecialKind::One},
    {"%cluster_nctaid.y", SpecialKind::One},
    {"%cluster_nctaid.z", SpecialKind::One},
    {"%cluster_ctarank", SpecialKind::Zero},
    {"%cluster_nctarank", SpecialKind::One},
    {"%is_explicit_cluster", SpecialKind::Zero},
    {"%gridid", SpecialKind::GridId},
    {"%nsmid", SpecialKind::GridId},
};

uint64_t alignUp(uint64_t V, uint64_t A) { return A <= 1 ? V : (V + A - 1) / A * A; }

/// A parameter or stack size as the 32 bits a frame keeps: a size past 4 GiB saturates (and
/// then fails the launch's argument sizes or the stack limit) instead of wrapping to a small one.
uint32_t saturate32(uint64_t V) { return static_cast<uint32_t>(std::min<uint64_t>(V, UINT32_MAX)); }
/// A variable's bytes as a running offset adds them: at most 2^40, so no sum of them wraps.
uint64_t stackBytes(const ptx::Variable &V) {
  return std::min<uint64_t>(V.sizeBytes(), 1ull << 40);
}

} // namespace

bool isFloatType(ptx::Type T) { return ptx::typeKind(T) == ptx::TypeKind::Float; }

uint64_t immediateBits(const ptx::Operand &O, ptx::Type T) {
  using K = ptx::Operand::Kind;
  unsigned Bits = T == ptx::Type::None ? 64 : ptx::typeBits(T);
  uint64_t Mask = Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
  if (T == ptx::Type::F32 || T == ptx::Type::F64) {
    double D;
    if (O.kind == K::F32Imm)
      D = std::bit_cast<float>(static_cast<uint32_t>(O.value));
    else if (O.kind == K::F64Imm)
      D = std::bit_cast<double>(static_cast<uint64_t>(O.value));
    else
      D = static_cast<double>(O.value);
    if (T == ptx::Type::F32)
      return std::bit_cast<uint32_t>(static_cast<float>(D));
    return std::bit_cast<uint64_t>(D);
  }
  if (O.kind == K::F64Imm && Bits == 32) // a double literal written for a 32-bit bit type
    return std::bit_cast<uint32_t>(
        static_cast<float>(std::bit_cast<double>(static_cast<uint64_t>(O.value))));
  return static_cast<uint64_t>(O.value) & Mask;
}

DecodeCtx::DecodeCtx(ProgramImpl &Prog, uint32_t FuncIndex, const ptx::Function &Func,
                     const std::unordered_map<std::string, SymbolInfo> &ModuleSyms,
                     const std::unordered_map<std::string, SymbolInfo> &FuncStatics,
                     const std::unordered_map<std::string, uint32_t> &FuncIndexByName)
    : P(Prog), F(Prog.funcs[FuncIndex]), funcIndex(FuncIndex), Fn(Func),
      funcByName(FuncIndexByName), syms(ModuleSyms) {
  for (const auto &[Name, Info] : FuncStatics)
    syms[Name] = Info;
  for (const ptx::RegDecl &R : Fn.regs) {
    if (R.count == 0)
      declareRegister(R.name, R.type, R.vectorWidth);
    for (uint32_t I = 0; I < R.count; ++I)
      declareRegister(R.name + std::to_string(I), R.type, R.vectorWidth);
  }
  SinkSlot = newSlot(64);
  F.ccSlot = newSlot(32) * 32;
  // Kernel parameters live in the kernel param buffer; .func parameters in the frame param area,
  // or in registers when declared `.reg`.
  uint64_t Off = 0;
  auto Place = [&](const ptx::Variable &V, std::vector<ParamSlot> &Out, bool Kernel) {
    if (!Kernel && V.space == ptx::StateSpace::Reg) { // a vector: one formal per component
      declareRegister(V.name, V.type, V.vectorWidth);
      auto Parts = VectorRegs.find(V.name);
      const uint32_t Elem = std::max(1u, ptx::typeBits(V.type) / 8);
      if (Parts == VectorRegs.end())
        Out.push_back({V.name, 0, Elem, RegSlot[V.name] * 32});
      else
        for (const std::string &Part : Parts->second)
          Out.push_back({Part, 0, Elem, RegSlot[Part] * 32});
      return;
    }
    Off = alignUp(Off, naturalAlign(V));
    Out.push_back({V.name, saturate32(Off), saturate32(V.sizeBytes())});
    syms[V.name] = Kernel ? SymbolInfo{SymbolInfo::Kind::Value, WindowParam + Off,
                                       ptx::StateSpace::Param, V.sizeBytes()}
                          : SymbolInfo{SymbolInfo::Kind::FrameParam, Off, ptx::StateSpace::Param,
                                       V.sizeBytes()};
    Off += stackBytes(V);
  };
  if (Fn.isEntry) {
    for (const ptx::Variable &V : Fn.params)
      Place(V, F.kernelParams, true);
    F.kernelParamBytes = saturate32(Off);
    Off = 0;
  }
  for (const ptx::Variable &V : Fn.returns)
    Place(V, F.returns, false);
  if (!Fn.isEntry)
    for (const ptx::Variable &V : Fn.params)
      Place(V, F.formals, false);
  // Scoped blocks may declare the same name more than once (nvcc's `param0` per call
  // sequence): one slot per name, as large and as aligned as its largest declaration.
  std::vector<ptx::Variable> Merged;
  std::unordered_map<std::string, size_t> MergedIndex;
  for (const ptx::Variable &V : Fn.locals) {
    if (V.space != ptx::StateSpace::Param && V.space != ptx::StateSpace::Local)
      continue;
    auto [It, New] = MergedIndex.emplace(V.name, Merged.size());
    if (New) {
      Merged.push_back(V);
      continue;
    }
    ptx::Variable &M = Merged[It->second];
    if (V.sizeBytes() > M.sizeBytes())
      M = V;
  }
  uint64_t LocalOff = 0;
  for (const ptx::Variable &V : Merged) {
    if (V.space == ptx::StateSpace::Param) {
      std::vector<ParamSlot> Scratch;
      Place(V, Scratch, false);
    } else {
      LocalOff = alignUp(LocalOff, std::max<uint64_t>(naturalAlign(V), 8));
      syms[V.name] = {SymbolInfo::Kind::LocalAddr, LocalOff, ptx::StateSpace::Local, V.sizeBytes()};
      LocalOff += stackBytes(V);
    }
  }
  F.paramBytes = saturate32(alignUp(Off, 16));
  F.localBytes = saturate32(alignUp(LocalOff, 16));
}

// A vector register (PTX ISA 5.4.2) gets a slot per component, `%v.x` .. `%v.w` (also named
// .r .g .b .a); the whole vector is an operand only through expandVectors. A .b128 register
// (PTX ISA 5.2.1) is a vector of two .b64 halves, low half first.
void DecodeCtx::declareRegister(const std::string &Name, ptx::Type T, unsigned Width) {
  if (T == ptx::Type::B128) {
    T = ptx::Type::B64;
    Width *= 2;
  }
  unsigned Bits = T == ptx::Type::Pred ? 1 : ptx::typeBits(T);
  if (Width <= 1) {
    RegSlot.emplace(Name, newSlot(Bits));
    return;
  }
  std::vector<std::string> &Parts = VectorRegs[Name];
  for (unsigned K = 0; K < Width; ++K) {
    std::string Part = Name + "." + (K < 4 ? std::string(1, "xyzw"[K]) : std::to_string(K));
    uint32_t Slot = newSlot(Bits);
    RegSlot.emplace(Part, Slot);
    if (K < 4)
      RegSlot.emplace(Name + "." + "rgba"[K], Slot);
    Parts.push_back(std::move(Part));
  }
}

bool DecodeCtx::expandVectors(const ptx::Instruction &In, ptx::Instruction &Out) const {
  if (VectorRegs.empty())
    return false;
  bool Changed = false;
  auto Expand = [&](auto &Self, ptx::Operand &O) -> void {
    auto It = O.kind == ptx::Operand::Kind::Register ? VectorRegs.find(O.name) : VectorRegs.end();
    if (It != VectorRegs.end()) {
      O.kind = ptx::Operand::Kind::Vector;
      for (const std::string &Part : It->second) {
        ptx::Operand E;
        E.kind = ptx::Operand::Kind::Register;
        E.name = Part;
        O.elems.push_back(std::move(E));
      }
      O.name.clear();
      Changed = true;
      return;
    }
    for (ptx::Operand &E : O.elems)
      Self(Self, E);
  };
  Out = In;
  for (ptx::Operand &O : Out.operands)
    Expand(Expand, O);
  return Changed;
}

uint32_t DecodeCtx::newSlot(unsigned Bits) {
  SlotBits.push_back(static_cast<uint8_t>(std::min(Bits, 64u)));
  return F.numSlots++;
}

uint32_t DecodeCtx::special(SpecialKind K, uint64_t Value) {
  auto Key = std::make_pair(static_cast<int>(K), Value);
  auto It = SpecialSlots.find(Key);
  if (It != SpecialSlots.end())
    return It->second;
  uint32_t Slot = newSlot(64);
  F.specials.push_back({Slot, K, Value});
  SpecialSlots.emplace(Key, Slot * 32);
  return Slot * 32;
}

uint32_t DecodeCtx::constant(uint64_t V) {
  auto It = ConstSlots.find(V);
  if (It != ConstSlots.end())
    return It->second;
  uint32_t Off = static_cast<uint32_t>(F.consts.size()) * 32;
  F.consts.push_back({V, -1});
  ConstSlots.emplace(V, Off);
  return Off;
}

bool DecodeCtx::fail(std::string Reason) {
  if (unsupported.empty())
    unsupported = std::move(Reason);
  return false;
}

bool DecodeCtx::symbolValue(DInstr &I, unsigned K, const std::string &Name, int64_t Addend) {
  const uint64_t Add = static_cast<uint64_t>(Addend);
  auto It = syms.find(Name);
  if (It == syms.end()) {
    I.base[K] = BaseConsts;
    if (auto Fn = funcByName.find(Name); Fn != funcByName.end()) {
      I.op[K] = constant(WindowFunc + Fn->second + Add); // a function's address
      return true;
    }
    if (Name == "WARP_SZ") { // the warp size as a run-time constant (PTX ISA 10.1)
      I.op[K] = constant(32 + Add);
      return true;
    }
    fatal = support::Error(P.file, I.line, I.col, "unknown symbol '" + Name + "'");
    return false;
  }
  const SymbolInfo &S = It->second;
  switch (S.kind) {
  case SymbolInfo::Kind::Value:
    I.base[K] = BaseConsts;
    I.op[K] = constant(S.value + Add);
    return true;
  case SymbolInfo::Kind::GlobalVar: {
    auto Key = std::make_pair(static_cast<int32_t>(S.value), Add);
    auto G = GlobalVarSlots.find(Key);
    if (G == GlobalVarSlots.end()) {
      G = GlobalVarSlots.emplace(Key, static_cast<uint32_t>(F.consts.size()) * 32).first;
      F.consts.push_back({Add, Key.first});
    }
    I.base[K] = BaseConsts;
    I.op[K] = G->second;
    return true;
  }
  case SymbolInfo::Kind::LocalAddr:
    I.base[K] = BaseRegs;
    I.op[K] = special(SpecialKind::LocalAddr, S.value + Add);
    return true;
  case SymbolInfo::Kind::FrameParam:
    I.base[K] = BaseRegs;
    I.op[K] = special(SpecialKind::FrameParamAddr, S.value + Add);
    return true;
  }
  return false;
}

bool DecodeCtx::src(DInstr &I, unsigned K, const ptx::Operand &O, ptx::Type T) {
  using OK = ptx::Operand::Kind;
  assert(K < MaxOps && "operand index out of range");
  I.nops = static_cast<uint8_t>(std::max<unsigned>(I.nops, K + 1));
  switch (O.kind) {
  case OK::Register: {
    if (O.negated || O.minus)
      return fail(std::string("negated register operand '") + (O.minus ? "-" : "!") + O.name +
                  "'");
    if (O.value != 0)
      return fail("register plus offset '" + O.name + "+" + std::to_string(O.value) +
                  "' outside mov");
    auto It = RegSlot.find(O.name);
    if (It != RegSlot.end()) {
      I.base[K] = BaseRegs;
      I.op[K] = It->second * 32;
      return true;
    }
    for (const SpecialName &S : SpecialNames)
      if (S.name == O.name) {
        I.base[K] = BaseRegs;
        // A kernel declared .explicitcluster is launched with cluster dimensions (of 1 CTA).
        const bool Explicit = O.name == "%is_explicit_cluster" && Fn.directive("explicitcluster");
        I.op[K] = special(Explicit ? SpecialKind::One : S.kind, 0);
        if (isClock(S.kind))
          I.readsClock = true;
        return true;
      }
    if (O.name.starts_with("%envreg") || O.name.starts_with("%pm"))
      return fail("special register '" + O.name + "'");
    if (size_t Dot = O.name.rfind('.'); Dot != std::string::npos && RegSlot.count(O.name.substr(0, Dot)))
      return fail("selector '" + O.name.substr(Dot) + "' outside a video instruction");
    fatal = support::Error(P.file, I.line, I.col, "undeclared register '" + O.name + "'");
    return false;
  }
  case OK::Immediate:
  case OK::F32Imm:
  case OK::F64Imm:
    I.base[K] = BaseConsts;
    I.op[K] = constant(immediateBits(O, T));
    return true;
  case OK::Symbol:
    return symbolValue(I, K, O.name, O.value);
  default:
    return fail("operand form not supported here");
  }
}

bool DecodeCtx::dst(DInstr &I, unsigned K, const ptx::Operand &O) {
  using OK = ptx::Operand::Kind;
  I.nops = static_cast<uint8_t>(std::max<unsigned>(I.nops, K + 1));
  I.base[K] = BaseRegs;
  I.dstMask |= static_cast<uint16_t>(1u << K);
  if (O.kind == OK::Sink) {
    I.op[K] = SinkSlot * 32;
    return true;
  }
  if (O.kind != OK::Register || O.value != 0)
    return fail("destination is not a register");
  auto It = RegSlot.find(O.name);
  if (It == RegSlot.end()) {
    if (O.name.starts_with("%"))
      fatal = support::Error(P.file, I.line, I.col,
                             "destination '" + O.name + "' is not a declared register");
    return fail("destination '" + O.name + "' is not a register");
  }
  I.op[K] = It->second * 32;
  return true;
}

bool DecodeCtx::address(DInstr &I, unsigned K, const ptx::Operand &O, ptx::StateSpace *SymSpace) {
  using OK = ptx::Operand::Kind;
  if (SymSpace)
    *SymSpace = ptx::StateSpace::Generic;
  I.nops = static_cast<uint8_t>(std::max<unsigned>(I.nops, K + 1));
  if (O.kind != OK::Address)
    return fail("expected an address operand");
  I.imm = O.value;
  if (O.name.empty()) {
    I.base[K] = BaseConsts;
    I.op[K] = constant(0);
    return true;
  }
  if (auto It = RegSlot.find(O.name); It != RegSlot.end()) {
    ptx::Operand R;
    R.kind = OK::Register;
    R.name = O.name;
    I.addr32 |= SlotBits[It->second] == 32;
    return src(I, K, R, ptx::Type::U64);
  }
  auto It = syms.find(O.name);
  if (SymSpace && It != syms.end())
    *SymSpace = It->second.space;
  return symbolValue(I, K, O.name, 0);
}

bool DecodeCtx::addressAt(DInstr &I, unsigned K, const ptx::Operand &O, int64_t &Offset) {
  DInstr Tmp;
  Tmp.line = I.line;
  Tmp.col = I.col;
  if (!address(Tmp, 0, O))
    return false;
  I.op[K] = Tmp.op[0];
  I.base[K] = Tmp.base[0];
  I.nops = static_cast<uint8_t>(std::max<unsigned>(I.nops, K + 1));
  I.addr32 |= Tmp.addr32;
  Offset = Tmp.imm;
  return true;
}

WideOperands &DecodeCtx::wideOf(DInstr &I) {
  if (I.wide == 0) {
    P.wide.emplace_back();
    I.wide = static_cast<uint32_t>(P.wide.size());
  }
  return P.wide[I.wide - 1];
}

bool DecodeCtx::wideOperand(DInstr &I, const ptx::Operand &O, WideOperands::Kind K, ptx::Type T) {
  DInstr Tmp;
  Tmp.line = I.line;
  Tmp.col = I.col;
  const bool IsAddress = O.kind == ptx::Operand::Kind::Address;
  bool Ok = IsAddress                   ? address(Tmp, 0, O)
            : K == WideOperands::Dest ? dst(Tmp, 0, O)
                                      : src(Tmp, 0, O, T);
  if (!Ok)
    return false;
  WideOperands &W = wideOf(I);
  W.op.push_back(Tmp.op[0]);
  W.base.push_back(Tmp.base[0]);
  W.kind.push_back(K);
  if (IsAddress) {
    I.imm = Tmp.imm;
    I.addr32 |= Tmp.addr32;
  }
  return true;
}

unsigned DecodeCtx::regBits(const DInstr &I, unsigned K) const {
  if (I.base[K] != BaseRegs)
    return 64;
  return SlotBits[I.op[K] / 32];
}

} // namespace analyzer
