// cp.async (PTX ISA 9.7.9.25.3): asynchronous copies from global to shared memory, the
// mainloop of every sm_80+ tensor-core GEMM. A sequential run completes each copy at once.
#include "Decoder.h"
#include "Memory.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace analyzer {
namespace {

/// The bytes lane L of a cp.async copies from global memory (the rest of cp-size is zeros).
unsigned cpAsyncBytes(const DInstr &I, const uint64_t *SrcSize, unsigned L) {
  const unsigned Size = I.aux;
  return (I.aux3 & 1) ? (((SrcSize[L] & 1) ^ (I.aux3 >> 1)) ? 0 : Size)
                      : static_cast<unsigned>(std::min<uint64_t>(SrcSize[L], Size));
}

/// cp.async whose lanes each copy a whole cp-size chunk from one global buffer or zero-fill it
/// (src-size 0: the padding of an implicit GEMM's border tiles), into shared memory (the
/// mainloop of every tensor-core GEMM): no lane needs a translation of its own, and each side is
/// counted as one request at once. False when the general path must run (a partial chunk, or
/// lanes outside one buffer or misaligned, where it traps or counts lane by lane).
bool cpAsyncWhole(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  const uint64_t *Dst = opPtr(W, I, 0), *Src = opPtr(W, I, 1), *SrcSize = opPtr(W, I, 2);
  const unsigned Size = I.aux;
  uint32_t Full = 0; // lanes that copy; the others zero-fill
  bool Whole = true;
  forLanes(M, [&](unsigned L) {
    const unsigned N = cpAsyncBytes(I, SrcSize, L);
    Whole &= N == 0 || N == Size;
    Full |= N ? uint32_t(1) << L : 0;
  });
  if (!Whole)
    return false;
  const int64_t SrcImm = int32_t(I.aux2);
  FastRange D = fastRangeIn(X, Space::Shared, I.imm, Dst, M, Size);
  FastRange S = Full ? fastRangeIn(X, Space::Global, SrcImm, Src, Full, Size) : FastRange{};
  if (!D.base || (Full && !S.base && !S.zero))
    return false;
  auto Copy = [&](auto Bytes) {
    forLanes(M, [&](unsigned L) {
      uint8_t *To = D.base + (Dst[L] + uint64_t(I.imm) - D.sub);
      if (!(Full >> L & 1) || S.zero)
        std::memset(To, 0, Bytes.value);
      else
        std::memcpy(To, S.base + (Src[L] + uint64_t(SrcImm) - S.sub), Bytes.value);
    });
  };
  if (Size == 16)
    Copy(std::integral_constant<unsigned, 16>());
  else if (Size == 8)
    Copy(std::integral_constant<unsigned, 8>());
  else
    Copy(std::integral_constant<unsigned, 4>());
  RequestCounter Loads, Stores;
  if (Full)
    addRequest(Loads, S, Src, SrcImm, Full, Size);
  addRequest(Stores, D, Dst, I.imm, M, Size);
  Loads.finish(X.prof, 0);
  Stores.finish(X.prof, 1);
  return true;
}

/// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src} (PTX ISA
/// 9.7.9.25.3): op0 = dst base (imm = its offset), op1 = src base (aux2 = its offset), op2 =
/// src-size, or with aux3 bit 0 the ignore-src predicate (bit 1: negated; true copies no byte);
/// aux = cp-size. The bytes past src-size are zero. A sequential run completes the copy at
/// once, so commit_group/wait_group/wait_all are no-ops.
void cpAsyncOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (cpAsyncWhole(X, W, I, M))
    return;
  const uint64_t *Dst = opPtr(W, I, 0), *Src = opPtr(W, I, 1), *SrcSize = opPtr(W, I, 2);
  unsigned Size = I.aux;
  RequestCounter Loads, Stores;
  bool Ok = true;
  forLanes(M, [&](unsigned L) {
    if (!Ok)
      return;
    unsigned N = cpAsyncBytes(I, SrcSize, L);
    uint64_t DA = Dst[L] + uint64_t(I.imm), SA = Src[L] + int64_t(int32_t(I.aux2));
    MemSpace HitD, HitS = MemSpace::Global;
    uint8_t *D = translate(X, W, I, Space::Shared, DA, Size, Size, L, true, "store", HitD);
    const uint8_t *S =
        D && N ? translate(X, W, I, Space::Global, SA, N, 1, L, false, "load", HitS) : D;
    if (!D || !S) {
      Ok = false;
      return;
    }
    std::memmove(D, S, N);
    std::memset(D + N, 0, Size - N);
    if (N)
      Loads.add(HitS, SA, N);
    Stores.add(HitD, DA, Size);
  });
  if (Ok) {
    Loads.finish(X.prof, 0);
    Stores.finish(X.prof, 1);
  }
}

} // namespace

bool selectCpAsync(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  if (In.hasModifier("commit_group") || In.hasModifier("wait_group") ||
      In.hasModifier("wait_all")) {
    I.fn = nopHandler;
    return true;
  }
  if (In.hasModifier("async") && In.hasModifier("bulk"))
    return selectBulkCopy(Ctx, In, I);
  if (In.hasModifier("async") && In.hasModifier("mbarrier") && In.hasModifier("arrive"))
    return selectCpAsyncMbarrier(Ctx, In, I);
  if (!In.hasModifier("async"))
    return Ctx.fail("only cp.async forms are supported");
  size_t N = In.operands.size();
  if (N < 3 || In.operands[2].kind != OK::Immediate)
    return Ctx.fail("cp.async operands");
  int64_t Size = In.operands[2].value;
  if (Size != 4 && Size != 8 && Size != 16)
    return Ctx.fail("cp.async size");
  I.aux = static_cast<uint32_t>(Size);
  int64_t SrcOffset = 0;
  if (!Ctx.address(I, 0, In.operands[0]) || !Ctx.addressAt(I, 1, In.operands[1], SrcOffset))
    return false;
  I.aux2 = static_cast<uint32_t>(static_cast<int32_t>(SrcOffset));
  size_t Hint = In.hasModifier("L2::cache_hint") ? 1 : 0;
  I.fn = cpAsyncOp;
  if (N >= 4 + Hint) { // the optional src-size operand, or the ignore-src predicate
    ptx::Operand Src = In.operands[3];
    I.aux3 = Src.negated ? 3 : 0;
    Src.negated = false;
    if (!Ctx.src(I, 2, Src, ptx::Type::U32))
      return false;
    if (I.base[2] == BaseRegs && Ctx.regBits(I, 2) == 1)
      I.aux3 |= 1;
    else if (I.aux3)
      return Ctx.fail("negated cp.async src-size");
    return true;
  }
  I.base[2] = BaseConsts;
  I.op[2] = Ctx.constant(static_cast<uint64_t>(Size));
  I.nops = 3;
  return true;
}

} // namespace analyzer
