// The interpreter's private core types: decoded instructions (DInstr), functions, the program, and
// the per-warp / per-launch execution state the handlers work on.
#pragma once

#include "analyzer/Counts.h"
#include "analyzer/Device.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "ptx/Resources.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace analyzer {

struct Warp;
struct Exec;
struct DInstr;
class WarpLoopSkipper;

/// Executes one decoded instruction for the lanes in `Mask` (active and guard-true).
using Handler = void (*)(Exec &X, Warp &W, const DInstr &I, uint32_t Mask);

/// What the executor does around the handler.
enum class Flow : uint8_t {
  Next,  ///< run the handler, continue at pc + 1
  Bra,   ///< branch (target, reconv)
  Brx,   ///< brx.idx: lane i goes to ProgramImpl::branchLists[aux][op0]; reconv as for Bra
  Call,  ///< call of function `target` (IndirectCall: the function whose address op0 holds)
  Ret,   ///< return from a .func (exit in a kernel)
  Exit,  ///< exit
  Bar,   ///< bar.sync / barrier.sync / bar.arrive
  Wait,  ///< mbarrier.test_wait/try_wait: the handler runs; a wait not yet over yields the warp
  Trap,  ///< trap / brkpt instruction
  Unsup, ///< an instruction that cannot be executed (message in ProgramImpl::messages)
};

constexpr uint32_t NoPc = UINT32_MAX;
constexpr uint32_t IndirectCall = UINT32_MAX; ///< DInstr::target of `call %rd, ...`
constexpr unsigned MaxOps = 10;

/// Operand bases: where an operand's lane array lives.
enum : uint8_t { BaseRegs = 0, BaseConsts = 1 };

/// One decoded instruction. Operands are lane offsets (slot * 32) into the current frame's
/// registers or the function's constant pool: `W.base[I.base[k]] + I.op[k]`.
struct DInstr {
  Handler fn = nullptr;
  Flow flow = Flow::Next;
  ptx::InstrClass cls = ptx::InstrClass::Other;
  uint8_t nops = 0;
  bool guardNeg = false;
  bool readsClock = false;
  bool implicit = false; ///< the ret appended at a function's end: not counted
  /// setp/set: width in bits of the compared operands op1 and op2 (0: not a compare); traced
  /// by loop-trip extrapolation (LoopSkip.cpp).
  uint8_t cmpBits = 0;
  bool cmpFloat = false; ///< the compare is a floating-point one
  /// A backward branch whose loop body is straight-line code a warp-level jump can cover
  /// (WarpLoopSkip.cpp).
  bool loopLatch = false;
  /// add.cc/addc and kin: also read and write the function's carry flag (slot aux3 / 32).
  bool carry = false;
  /// An address operand's base is a 32-bit register: its shared, local, param or const offset
  /// `[%r+imm]` wraps modulo 2^32, as the hardware's 32-bit LDS, LDL and LDC addresses do.
  bool addr32 = false;
  uint16_t dstMask = 0; ///< bit K: operand K is a destination register
  /// Integer ring operations (mod 2^width), which keep affine sequences affine: 1 = any source
  /// may vary (add, sub, neg, mov, truncating or zero-extending cvt); 2 = sources 1 and 2 are
  /// factors, at most one may vary (mul.lo, mad.lo, unsigned mul/mad.wide); 3 = source 2 must
  /// not vary (shl). 0: anything else (WarpLoopSkip.cpp).
  uint8_t linear = 0;
  int32_t guard = -1; ///< lane offset of the guard predicate register, -1 if unguarded
  uint32_t op[MaxOps] = {};
  uint8_t base[MaxOps] = {};
  int64_t imm = 0;                      ///< address offset or handler-specific constant
  uint32_t target = 0;                  ///< branch target pc, callee function index, barrier id
  uint32_t reconv = NoPc;               ///< reconvergence pc of a branch
  uint32_t aux = 0, aux2 = 0, aux3 = 0; ///< handler-specific
  uint32_t line = 0, col = 0;
  uint32_t func = 0; ///< index of the owning function
  uint32_t msg = 0;  ///< index into ProgramImpl::messages (opcode text for diagnostics)
  /// An instruction with more operands than MaxOps (tensor-core fragments): its operands are
  /// ProgramImpl::wide[wide - 1] instead of op/base (nops 0); 0 when it has none.
  uint32_t wide = 0;

  /// Operand K is a register the instruction reads (a source).
  bool readsReg(unsigned K) const {
    return K < nops && !((dstMask >> K) & 1) && base[K] == BaseRegs;
  }
  /// Operand K is a register the instruction writes (a destination).
  bool writesReg(unsigned K) const {
    return K < nops && ((dstMask >> K) & 1) && base[K] == BaseRegs;
  }
};

static_assert(sizeof(DInstr) <= 128, "the dispatch loop reads DInstr: keep it two cache lines");

/// Classes whose instructions only compute register values from register sources:
/// arithmetic, logic, compare and select, conversion and moves (no memory, no warp exchange).
inline bool registersOnly(ptx::InstrClass C) {
  using K = ptx::InstrClass;
  switch (C) {
  case K::IntArith:
  case K::IntMul:
  case K::Fp32:
  case K::Fp64:
  case K::Fp16:
  case K::SpecialFn:
  case K::DivSqrt:
  case K::Logic:
  case K::CompareSelect:
  case K::Convert:
  case K::Move:
    return true;
  default:
    return false;
  }
}

/// Values computed when a frame is created (per lane), stored in frame register slots.
enum class SpecialKind : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  Clock,
  Clock64,
  ClockHi, ///< the upper 32 bits of Clock64 (%globaltimer_hi)
  DynSmem,
  TotalSmem,
  Zero,
  One,
  GridId,
  LocalAddr,      ///< frame local base + value
  FrameParamAddr, ///< frame-param window + frame param base + value
};

/// The special registers that read the issue clock (%clock, %clock64, %globaltimer...).
inline bool isClock(SpecialKind K) {
  return K == SpecialKind::Clock || K == SpecialKind::Clock64 || K == SpecialKind::ClockHi;
}

struct SpecialSlot {
  uint32_t slot;
  SpecialKind kind;
  uint64_t value = 0;
};

/// A constant-pool entry: a plain value, or the address of module .global variable `globalVar`
/// plus `value` (known at launch).
struct ConstSpec {
  uint64_t value = 0;
  int32_t globalVar = -1;
};

/// One argument or return value a call moves, `size` bytes. Each side is frame-param memory
/// (offset `from`/`to` in its frame's param area: a .param variable or formal) or, when
/// `fromReg`/`toReg` is not NoReg, a register (lane offset in its frame; the source may also be
/// a constant of the caller, `fromBase` BaseConsts): `.reg` formals and register arguments.
struct ParamCopy {
  static constexpr uint32_t NoReg = UINT32_MAX;
  uint32_t from = 0, to = 0, size = 0;
  uint32_t fromReg = NoReg, toReg = NoReg;
  uint8_t fromBase = 0;
};
struct ParamSlot {
  std::string name;
  uint32_t offset = 0, size = 0;
  uint32_t reg = ParamCopy::NoReg; ///< a `.reg` formal: its lane offset in the frame's registers
};

struct DFunction {
  std::string name;
  bool isEntry = false;
  uint32_t entry = 0, end = 0; ///< pc range
  uint32_t line = 0;
  uint32_t numSlots = 0; ///< register slots of a frame
  uint32_t ccSlot = 0;   ///< lane offset of the hidden carry flag register
  std::vector<ConstSpec> consts;
  std::vector<SpecialSlot> specials;
  uint32_t localBytes = 0; ///< .local variables per thread
  uint32_t paramBytes = 0; ///< frame param area per thread: returns, formals, .param locals
  std::vector<ParamSlot> formals, returns; ///< .func parameters: frame param area or registers
  std::vector<ParamSlot> kernelParams;     ///< .entry parameters in the kernel param buffer
  uint32_t kernelParamBytes = 0;
  std::vector<uint32_t> callees;     ///< function indices called
  std::vector<uint32_t> unsupported; ///< pcs of Flow::Unsup instructions
  ptx::KernelResources resources;    ///< kernels only: ptx::estimateResources, once at decode
  /// Kernels only: the launch-shape directives' values (empty when absent).
  std::vector<uint32_t> maxntid, reqntid, reqnctapercluster;
};

struct CallSite {
  std::vector<ParamCopy> args; ///< caller value -> callee formal, at call
  std::vector<ParamCopy> rets; ///< callee return -> caller variable or register, at return
  /// An indirect call: the callee's sides (`to` of args, `from` of rets) are taken from the
  /// function actually called, at the call.
  bool indirect = false;
};

/// `C` (a caller's side) completed with the callee's formal or return `S` (Ret)
/// (DecodeCalls.cpp; at link time for direct calls, at the call for indirect ones).
ParamCopy calleeSide(ParamCopy C, const ParamSlot &S, bool Ret);
/// Why a call site does not fit `Callee`'s parameters, or empty.
std::string callArityError(const CallSite &S, const DFunction &Callee);

/// An initialiser element holding the address of a module .global variable (plus `addend`):
/// known only once that variable has its Device buffer, so written at launch.
struct Reloc {
  uint64_t offset = 0; ///< byte offset in the variable (or the const image) it initialises
  uint32_t bytes = 8;  ///< element size (4 or 8; an address truncated to 32 bits in a .u32)
  uint32_t target = 0; ///< index into ProgramImpl::globals
  uint64_t addend = 0;
};

struct GlobalVar {
  std::string name;
  uint64_t bytes = 0;
  std::vector<uint8_t> init;
  std::vector<Reloc> relocs; ///< symbol addresses in `init`
};

/// Address windows of the generic address space (docs/interpreter.md). Global memory lies below
/// WindowShared; every window is 2^48 bytes.
constexpr uint64_t WindowShift = 48;
constexpr uint64_t WindowShared = uint64_t(1) << WindowShift;
constexpr uint64_t WindowLocal = uint64_t(2) << WindowShift;
constexpr uint64_t WindowParam = uint64_t(3) << WindowShift;      ///< kernel parameters
constexpr uint64_t WindowFrameParam = uint64_t(4) << WindowShift; ///< .func call parameters
constexpr uint64_t WindowConst = uint64_t(5) << WindowShift;
/// Function "addresses" (`mov.u64 %rd, f`, function names in initialisers): the window plus the
/// function's index; indirect calls (`call %rd, ...`) map them back. Not memory.
constexpr uint64_t WindowFunc = uint64_t(6) << WindowShift;
constexpr uint64_t WindowMask = (uint64_t(1) << WindowShift) - 1;

/// The operands of an instruction with more than MaxOps of them (DInstr::wide): lane offsets and
/// bases as in DInstr::op/base, what each operand is, the multiply-adds one warp execution
/// performs (KernelProfile::tensorMacs; also tensorMacsInt8 when `int8`), and a handler-specific
/// table (fragment layouts).
struct WideOperands {
  enum Kind : uint8_t { Value, Dest, Address }; ///< a source value, a destination, an address
  std::vector<uint32_t> op;
  std::vector<uint8_t> base;
  std::vector<uint8_t> kind;
  uint64_t macs = 0;
  bool int8 = false; ///< the multiply-adds take .s8/.u8 operands
  std::vector<uint32_t> table;
};

struct ProgramImpl {
  std::string file;
  std::vector<DInstr> code;
  std::vector<DFunction> funcs;
  std::vector<GlobalVar> globals;
  std::vector<uint8_t> constImage;  ///< module .const variables, initialised
  std::vector<Reloc> constRelocs;   ///< .global addresses in constImage (written per launch)
  uint32_t staticShared = 0;        ///< all .shared variables, laid out program-wide
  uint32_t dynamicSharedOffset = 0; ///< where extern .shared arrays start
  std::vector<std::string> messages;
  std::vector<CallSite> calls;
  std::vector<WideOperands> wide;
  std::vector<std::vector<uint32_t>> branchLists; ///< brx.idx target pcs, by DInstr::aux

  /// The kernel (.entry function) named Name, or nullptr.
  const DFunction *kernel(std::string_view Name) const {
    for (const DFunction &F : funcs)
      if (F.isEntry && F.name == Name)
        return &F;
    return nullptr;
  }
};

/// Calls Fn(lane offset, writes) for every register operand of `I` (its wide operands included),
/// in operand order. The guard and the carry flag are not operands.
template <class F> void forEachRegOperand(const ProgramImpl &P, const DInstr &I, F &&Fn) {
  for (unsigned K = 0; K < I.nops; ++K)
    if (I.base[K] == BaseRegs)
      Fn(I.op[K], ((I.dstMask >> K) & 1) != 0);
  if (I.wide == 0)
    return;
  const WideOperands &W = P.wide[I.wide - 1];
  for (size_t K = 0; K < W.op.size(); ++K)
    if (W.base[K] == BaseRegs)
      Fn(W.op[K], W.kind[K] == WideOperands::Dest);
}

/// SIMT reconvergence stack entry (IPDOM).
struct StackEntry {
  uint32_t pc;
  uint32_t rpc;
  uint32_t mask;
  bool callBoundary; ///< popping this entry returns from the innermost frame
};

struct Frame {
  uint32_t func;
  uint32_t callMask;  ///< lanes that made the call
  uint32_t regBase;   ///< offset into Warp::regs
  uint32_t localBase; ///< per-lane local stack offset
  uint32_t paramBase; ///< per-lane frame-param stack offset
  uint32_t callPc;    ///< the call instruction (NoPc for the kernel frame)
};

enum class WarpState : uint8_t { Ready, AtBarrier, Done };

/// One executed compare (setp/set) recorded while loop-trip extrapolation traces an iteration:
/// the operand values of the lanes in `mask`, truncated to the compare's width.
struct CmpRecord {
  uint32_t pc = 0;
  uint32_t warp = 0;
  uint32_t mask = 0;
  uint64_t a[32] = {}, b[32] = {};
};

struct Warp {
  uint64_t *base[2] = {nullptr, nullptr}; ///< current frame registers, function constants
  std::vector<uint64_t> regs;
  std::vector<StackEntry> stack;
  std::vector<Frame> frames;
  std::vector<uint8_t> local[32];  ///< per-lane local stack
  std::vector<uint8_t> fparam[32]; ///< per-lane frame-param stack
  uint32_t localTop = 0, paramTop = 0;
  uint32_t liveMask = 0; ///< lanes that have not exited
  uint32_t index = 0;    ///< warp index within the CTA
  uint32_t tid[32][3];
  WarpState state = WarpState::Ready;
  uint32_t barrierId = 0;
  uint64_t yieldState = 0; ///< hash of the warp's state when it last yielded (0: never)
  /// Set by a Flow::Wait handler when some lane's wait is not over: the warp yields there, and
  /// the livelock check (yieldedUnchanged) sees that it did. Cleared when the warp runs again.
  bool yieldedInWait = false;
};

/// Per-launch execution state shared by all handlers.
struct Exec {
  const ProgramImpl *prog = nullptr;
  Device *dev = nullptr;
  const RunSettings *settings = nullptr;
  std::string kernel;
  Dim3 grid{}, block{}, ctaid{};
  uint32_t dynShared = 0;
  uint32_t warpsPerCta = 0;
  std::vector<uint8_t> shared;               ///< current CTA
  std::vector<uint8_t> kernelParams;         ///< the kernel parameter buffer
  /// Constant memory: the program's const image, or constCopy when it holds .global addresses.
  const uint8_t *constData = nullptr;
  size_t constSize = 0;
  std::vector<uint8_t> constCopy;
  std::vector<std::vector<uint64_t>> consts; ///< per function: 32 lanes per constant
  uint64_t clock = 0;                        ///< warp instructions issued so far (%clock)
  uint64_t budgetLeft = 0;
  /// Per pc of the kernel and the functions it calls: index pc - pcLo.
  std::vector<uint64_t> warpCount, threadCount;
  uint32_t pcLo = 0;
  KernelProfile prof;
  std::optional<Trap> trap;
  /// The buffer holding global address Addr, or nullptr; the last two found are cached (a
  /// kernel's loads often alternate between two buffers, e.g. input and weights).
  Buffer *bufferAt(uint64_t Addr) {
    for (Buffer *B : recentBuffers)
      if (B && Addr - B->base < B->bytes())
        return B;
    Buffer *B = dev->findAt(Addr);
    if (B) {
      recentBuffers[1] = recentBuffers[0];
      recentBuffers[0] = B;
    }
    return B;
  }
  Buffer *recentBuffers[2] = {nullptr, nullptr};
  /// Stand-in for one lane's access to an abstract buffer (fast mode): loads find the Device's
  /// abstract pattern here, stores land here and are dropped.
  alignas(16) uint8_t abstractScratch[256] = {};
  uint64_t budget = 0; ///< maxWarpInstructions of this launch
  /// mbarrier objects changed in the launch so far (init, arrivals, transactions): a warp
  /// waiting on one can only get further once this or a store count moves.
  uint64_t mbarrierUpdates = 0;
  /// Barrier bookkeeping for the current CTA (16 named barriers).
  uint32_t barArrived[16] = {};
  uint32_t barExpected[16] = {};
  /// bar.red: popc count, and, or of the predicates arrived so far (reset at each release).
  uint32_t barRedCount[16] = {};
  bool barRedAll[16] = {}, barRedAny[16] = {};
  /// When set, every executed compare is appended here (loop-trip extrapolation).
  std::vector<CmpRecord> *cmpTrace = nullptr;
  /// When set, sees every loop latch of a straight-line body (WarpLoopSkip.cpp).
  WarpLoopSkipper *warpSkip = nullptr;
};

// --- lane helpers ------------------------------------------------------------------------------

inline uint64_t *opPtr(Warp &W, const DInstr &I, unsigned K) { return W.base[I.base[K]] + I.op[K]; }

/// Calls F(lane) for every lane in Mask; the full-mask case is a plain loop the compiler can
/// vectorise.
template <class F> inline void forLanes(uint32_t Mask, F &&Fn) {
  if (Mask == ~0u) {
    for (unsigned L = 0; L < 32; ++L)
      Fn(L);
  } else {
    while (Mask) {
      unsigned L = static_cast<unsigned>(std::countr_zero(Mask));
      Mask &= Mask - 1;
      Fn(L);
    }
  }
}

template <class T> inline T getAs(uint64_t V) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<T>(V);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(static_cast<uint32_t>(V));
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<T>(static_cast<uint16_t>(V));
  } else {
    return static_cast<T>(V);
  }
}

/// Register storage is zero-extended: the low N bits hold an N-bit value, the rest are 0.
template <class T> inline uint64_t putAs(T V) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<uint64_t>(V);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<uint32_t>(V);
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<uint16_t>(V);
  } else {
    return static_cast<uint8_t>(V);
  }
}

// --- shared by executor and handlers -----------------------------------------------------------

/// Records a trap raised by instruction `I` of warp `W` in lane `Lane`.
void raiseTrap(Exec &X, const Warp &W, const DInstr &I, TrapKind Kind, std::string Reason,
               uint32_t Lane);

} // namespace analyzer
