// mma.sync shapes and types on hand-written PTX: each lane loads its fragment registers from a
// buffer the test fills by the PTX ISA's fragment tables (9.7.15.4, transcribed here shape by
// shape as the ISA writes them, independently of the interpreter's one rule), runs one mma and
// stores D; the test maps D back by the same tables and compares with a CPU product (an f32
// fma chain over k for 16-bit, tf32 and fp8 inputs, f64 fma for f64, exact sums for integers).
#include "InterpTestUtil.h"
#include "analyzer/ScalarOps.h"

#include <cmath>
#include <functional>
#include <random>

using namespace interp_test;
namespace S = analyzer::scalar;

namespace {

/// Where element i of lane L's fragment lies: matrix (m8n8k4 .f16 has four), row, column.
struct Place {
  unsigned batch = 0, row = 0, col = 0;
};
enum class Mat { A, B, C };
using Layout = std::function<Place(Mat, unsigned Lane, unsigned I)>;

struct Case {
  std::string instr; ///< the mma with {D}, {A}, {B}, {C} placeholders
  unsigned m, n, k, batches;
  ptx::Type d, a, b, c;
  Layout at;
};

unsigned bitsOf(ptx::Type T) {
  return T == ptx::Type::TF32 ? 32 : std::max(1u, ptx::typeBits(T));
}
/// Elements per register (64-bit registers hold one f64).
unsigned perReg(ptx::Type T) { return T == ptx::Type::F64 ? 1 : 32 / bitsOf(T); }

double valueOf(ptx::Type T, uint64_t V) {
  switch (T) {
  case ptx::Type::F16:
    return S::f16ToF32(uint16_t(V));
  case ptx::Type::BF16:
    return S::bf16ToF32(uint16_t(V));
  case ptx::Type::TF32:
  case ptx::Type::F32:
    return S::f32FromBits(uint32_t(V));
  case ptx::Type::F64:
    return S::f64FromBits(V);
  case ptx::Type::E4M3:
    return S::e4m3ToF32(uint8_t(V));
  case ptx::Type::S8:
    return int8_t(V);
  case ptx::Type::S4:
    return int64_t(V << 60) >> 60;
  case ptx::Type::S32:
    return int32_t(V);
  default:
    return double(V);
  }
}

/// A random element of type T: exact small floats (tf32 values have 10 fraction bits), any
/// integer of the type.
uint64_t randomElement(ptx::Type T, std::mt19937 &G) {
  std::uniform_real_distribution<float> U(-2, 2);
  switch (T) {
  case ptx::Type::F16:
    return S::f32ToF16(U(G));
  case ptx::Type::BF16:
    return S::f32ToBf16(U(G));
  case ptx::Type::TF32:
    return S::f32ToTf32(U(G));
  case ptx::Type::F32:
    return S::f32Bits(U(G));
  case ptx::Type::F64:
    return S::f64Bits(double(U(G)) / 3);
  case ptx::Type::E4M3:
    return S::f32ToE4m3(U(G));
  case ptx::Type::S32:
    return uint32_t(int32_t(G()) >> 8);
  default:
    return G() & ((uint64_t(1) << bitsOf(T)) - 1);
  }
}

/// Runs case C: returns nothing, checks D element by element.
void runCase(const Case &C) {
  CAPTURE(C.instr);
  std::mt19937 G(42);
  const unsigned Per[4] = {perReg(C.d), perReg(C.a), perReg(C.b), perReg(C.c)};
  const unsigned Size[3] = {C.m * C.k, C.k * C.n, C.m * C.n};
  const Mat Of[4] = {Mat::C, Mat::A, Mat::B, Mat::C};
  const ptx::Type Ty[4] = {C.d, C.a, C.b, C.c};
  unsigned Regs[4];
  for (unsigned Gr = 0; Gr < 4; ++Gr)
    Regs[Gr] = C.batches * Size[unsigned(Of[Gr])] / (32 * Per[Gr]);
  // Matrices (all batches) and the registers that hold them, by the ISA tables.
  std::vector<std::vector<double>> Value(3);
  for (unsigned X = 0; X < 3; ++X)
    Value[X].assign(C.batches * Size[X], 0);
  std::vector<uint64_t> In; // operand registers a, b, c: 32 lanes of 8 bytes each
  for (unsigned Gr = 1; Gr < 4; ++Gr)
    for (unsigned R = 0; R < Regs[Gr]; ++R)
      for (unsigned L = 0; L < 32; ++L) {
        uint64_t Word = 0;
        for (unsigned J = 0; J < Per[Gr]; ++J) {
          uint64_t E = randomElement(Ty[Gr], G);
          Word |= E << (J * bitsOf(Ty[Gr]));
          Place P = C.at(Of[Gr], L, R * Per[Gr] + J);
          const unsigned Cols = Of[Gr] == Mat::A ? C.k : C.n;
          Value[unsigned(Of[Gr])][P.batch * Size[unsigned(Of[Gr])] + P.row * Cols + P.col] =
              valueOf(Ty[Gr], E);
        }
        In.push_back(Word);
      }
  // The kernel: load a, b, c registers, one mma, store d.
  const bool Wide = C.a == ptx::Type::F64; // .f64 fragments are .b64 registers
  std::string Body = ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                     "  .reg .b64 %rd<8>;\n  .reg .b32 %lane;\n  .reg .b32 %r<80>;\n"
                     "  .reg .b64 %x<80>;\n"
                     "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
                     "  mov.u32 %lane, %laneid;\n  mul.wide.u32 %rd3, %lane, 8;\n"
                     "  add.s64 %rd1, %rd1, %rd3;\n  add.s64 %rd2, %rd2, %rd3;\n";
  const char *Reg = Wide ? "%x" : "%r";
  std::string Ops[4];
  unsigned Next = 0;
  for (unsigned Gr : {1u, 2u, 3u, 0u}) {
    Ops[Gr] = "{";
    for (unsigned R = 0; R < Regs[Gr]; ++R, ++Next) {
      Ops[Gr] += (R ? ", " : "") + std::string(Reg) + std::to_string(Next);
      if (Gr != 0)
        Body += "  ld.global.b" + std::string(Wide ? "64 " : "32 ") + Reg + std::to_string(Next) +
                ", [%rd1+" + std::to_string((Next) * 256) + "];\n";
    }
    Ops[Gr] += "}";
  }
  std::string Mma = C.instr;
  for (unsigned Gr = 0; Gr < 4; ++Gr)
    Mma.replace(Mma.find(std::string("{") + "DABC"[Gr] + "}"), 3, Ops[Gr]);
  Body += "  " + Mma + ";\n";
  for (unsigned R = 0; R < Regs[0]; ++R)
    Body += "  st.global.b" + std::string(Wide ? "64 " : "32 ") + "[%rd2+" +
            std::to_string(R * 256) + "], " + Reg + std::to_string(Next - Regs[0] + R) + ";\n";
  Body += "  ret;\n}\n";
  analyzer::Program P = decode(module(Body));
  analyzer::Device D;
  uint64_t InBuf = makeBuffer(D, "in", In);
  uint64_t OutBuf = makeBuffer(D, "out", std::vector<uint64_t>(Regs[0] * 32, 0));
  analyzer::LaunchConfig L;
  L.block = {32, 1, 1};
  L.args = {analyzer::KernelArg::pointer(InBuf), analyzer::KernelArg::pointer(OutBuf)};
  analyzer::RunResult Res = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(Res.ok(), Res.trap->str());
  CHECK(Res.profile.tensorMacs == uint64_t(C.batches) * C.m * C.n * C.k);
  // The CPU product, element by element, compared through D's table.
  const bool IsFloat = ptx::typeKind(C.a) == ptx::TypeKind::Float;
  const std::vector<uint64_t> Out = readBuffer<uint64_t>(D, "out");
  unsigned Bad = 0;
  for (unsigned R = 0; R < Regs[0]; ++R)
    for (unsigned Ln = 0; Ln < 32; ++Ln)
      for (unsigned J = 0; J < Per[0]; ++J) {
        Place Pl = C.at(Mat::C, Ln, R * Per[0] + J);
        const double *A = &Value[0][Pl.batch * Size[0] + Pl.row * C.k];
        const double *B = &Value[1][Pl.batch * Size[1] + Pl.col];
        double Want = Value[2][Pl.batch * Size[2] + Pl.row * C.n + Pl.col];
        float WantF = float(Want);
        for (unsigned Kk = 0; Kk < C.k; ++Kk) {
          if (C.a == ptx::Type::F64)
            Want = std::fma(A[Kk], B[Kk * C.n], Want);
          else if (IsFloat)
            WantF = std::fma(float(A[Kk]), float(B[Kk * C.n]), WantF);
          else if (C.a == ptx::Type::B1)
            Want += double(A[Kk] != B[Kk * C.n]); // .xor.popc
          else
            Want += A[Kk] * B[Kk * C.n];
        }
        if (IsFloat && C.a != ptx::Type::F64)
          Want = C.d == ptx::Type::F16 ? S::f16ToF32(S::f32ToF16(WantF)) : WantF;
        double Got = valueOf(C.d, (Out[R * 32 + Ln] >> (J * bitsOf(C.d))) &
                                     (bitsOf(C.d) >= 64 ? ~0ull : (1ull << bitsOf(C.d)) - 1));
        if (Got != Want && ++Bad <= 3)
          FAIL_CHECK("lane " << Ln << " d" << R * Per[0] + J << ": got " << Got << ", want "
                             << Want);
      }
  CHECK(Bad == 0);
}

/// groupID and threadID_in_group (PTX ISA 9.7.15.4).
unsigned gid(unsigned L) { return L >> 2; }
unsigned tig(unsigned L) { return L % 4; }

/// The m16n8 accumulator table, common to every m16n8kK shape: c0..c3.
Place accumulator16(unsigned L, unsigned I) {
  return {0, gid(L) + (I < 2 ? 0 : 8), tig(L) * 2 + (I & 1)};
}

} // namespace

TEST_CASE("mma.sync m16n8k8 and m16n8k16 with f16, bf16 and tf32 inputs") {
  // PTX ISA 9.7.15.4.7 (m16n8k8) and 9.7.15.4.8 (m16n8k16), as the ISA writes them.
  Layout K8F16 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + (I < 2 ? 0 : 8), tig(L) * 2 + (I & 1)};
    if (X == Mat::B)
      return {0, tig(L) * 2 + I, gid(L)};
    return accumulator16(L, I);
  };
  Layout K8Tf32 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + (I == 1 || I == 3 ? 8 : 0), tig(L) + (I >= 2 ? 4 : 0)};
    if (X == Mat::B)
      return {0, tig(L) + (I == 1 ? 4 : 0), gid(L)};
    return accumulator16(L, I);
  };
  Layout K16F16 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + ((I < 2 || (I >= 4 && I < 6)) ? 0 : 8),
              tig(L) * 2 + (I & 1) + (I >= 4 ? 8 : 0)};
    if (X == Mat::B)
      return {0, tig(L) * 2 + (I & 1) + (I >= 2 ? 8 : 0), gid(L)};
    return accumulator16(L, I);
  };
  Layout K4Tf32 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + 8 * I, tig(L)};
    if (X == Mat::B)
      return {0, tig(L), gid(L)};
    return accumulator16(L, I);
  };
  using T = ptx::Type;
  runCase({"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {D}, {A}, {B}, {C}", 16, 8, 8, 1,
           T::F32, T::F16, T::F16, T::F32, K8F16});
  runCase({"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {D}, {A}, {B}, {C}", 16, 8, 8, 1,
           T::F16, T::F16, T::F16, T::F16, K8F16});
  runCase({"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {D}, {A}, {B}, {C}", 16, 8, 8, 1,
           T::F32, T::BF16, T::BF16, T::F32, K8F16});
  runCase({"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {D}, {A}, {B}, {C}", 16, 8, 8, 1,
           T::F32, T::TF32, T::TF32, T::F32, K8Tf32});
  runCase({"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {D}, {A}, {B}, {C}", 16, 8, 4, 1,
           T::F32, T::TF32, T::TF32, T::F32, K4Tf32});
  runCase({"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {D}, {A}, {B}, {C}", 16, 8, 16, 1,
           T::F32, T::F16, T::F16, T::F16, K16F16});
  runCase({"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {D}, {A}, {B}, {C}", 16, 8, 16,
           1, T::F32, T::BF16, T::BF16, T::F32, K16F16});
}

TEST_CASE("mma.sync with integer, fp8, f64 and .b1 inputs") {
  using T = ptx::Type;
  // PTX ISA 9.7.15.4.4 (m8n8k16), .9 (m16n8k16 integer), .10 (m16n8k32), .11 (m16n8k64),
  // .5 (m8n8k128), .2 (m8n8k4 .f64), .7 (m16n8k8 .f64).
  Layout M8K16 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L), tig(L) * 4 + I};
    if (X == Mat::B)
      return {0, tig(L) * 4 + I, gid(L)};
    return {0, gid(L), tig(L) * 2 + I};
  };
  Layout K16S8 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + (I < 4 ? 0 : 8), tig(L) * 4 + (I & 3)};
    if (X == Mat::B)
      return {0, tig(L) * 4 + I, gid(L)};
    return accumulator16(L, I);
  };
  Layout K32S8 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + ((I < 4 || (I >= 8 && I < 12)) ? 0 : 8),
              tig(L) * 4 + (I & 3) + (I >= 8 ? 16 : 0)};
    if (X == Mat::B)
      return {0, tig(L) * 4 + (I & 3) + (I >= 4 ? 16 : 0), gid(L)};
    return accumulator16(L, I);
  };
  Layout K64S4 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + ((I < 8 || (I >= 16 && I < 24)) ? 0 : 8),
              tig(L) * 8 + (I & 7) + (I >= 16 ? 32 : 0)};
    if (X == Mat::B)
      return {0, tig(L) * 8 + (I & 7) + (I >= 8 ? 32 : 0), gid(L)};
    return accumulator16(L, I);
  };
  Layout K128B1 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L), tig(L) * 32 + I};
    if (X == Mat::B)
      return {0, tig(L) * 32 + I, gid(L)};
    return {0, gid(L), tig(L) * 2 + I};
  };
  Layout K4F64 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L), tig(L)};
    if (X == Mat::B)
      return {0, tig(L), gid(L)};
    return {0, gid(L), tig(L) * 2 + I};
  };
  Layout K8F64 = [](Mat X, unsigned L, unsigned I) -> Place {
    if (X == Mat::A)
      return {0, gid(L) + (I % 2) * 8, tig(L) + (I / 2) * 4};
    if (X == Mat::B)
      return {0, tig(L) + 4 * I, gid(L)};
    return accumulator16(L, I);
  };
  runCase({"mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {D}, {A}, {B}, {C}", 8, 8, 16, 1,
           T::S32, T::S8, T::U8, T::S32, M8K16});
  runCase({"mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {D}, {A}, {B}, {C}", 16, 8, 16, 1,
           T::S32, T::U8, T::S8, T::S32, K16S8});
  runCase({"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {D}, {A}, {B}, {C}", 16, 8, 32, 1,
           T::S32, T::S8, T::S8, T::S32, K32S8});
  runCase({"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {D}, {A}, {B}, {C}", 16, 8, 32,
           1, T::F32, T::E4M3, T::E4M3, T::F32, K32S8});
  runCase({"mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 {D}, {A}, {B}, {C}", 16, 8, 64, 1,
           T::S32, T::S4, T::U4, T::S32, K64S4});
  runCase({"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {D}, {A}, {B}, {C}", 8, 8,
           128, 1, T::S32, T::B1, T::B1, T::S32, K128B1});
  runCase({"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {D}, {A}, {B}, {C}", 8, 8, 4, 1,
           T::F64, T::F64, T::F64, T::F64, K4F64});
  runCase({"mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {D}, {A}, {B}, {C}", 16, 8, 8, 1,
           T::F64, T::F64, T::F64, T::F64, K8F64});
}

TEST_CASE("mma.sync m8n8k4 with .f16: four products, one per quad pair, row and column layouts") {
  using T = ptx::Type;
  // PTX ISA 9.7.15.4.1: lanes 0-3 with 16-19 compute product 0, 4-7 with 20-23 product 1, ...
  for (bool ACol : {false, true})
    for (bool BCol : {false, true})
      for (bool F32 : {false, true}) {
        Layout Volta = [=](Mat X, unsigned L, unsigned I) -> Place {
          const unsigned Batch = (L % 16) / 4, Hi = L >= 16 ? 4 : 0, Q = L % 4;
          if (X == Mat::A)
            return ACol ? Place{Batch, I % 4 + Hi, Q} : Place{Batch, Q + Hi, I};
          if (X == Mat::B)
            return BCol ? Place{Batch, I, Q + Hi} : Place{Batch, Q, I + Hi};
          if (!F32)
            return {Batch, Q + Hi, I};
          return {Batch, (Q & 1) + (I & 2) + Hi, (I & 4) + (Q & 2) + (I & 1)};
        };
        std::string Instr = std::string("mma.sync.aligned.m8n8k4.") + (ACol ? "col." : "row.") +
                            (BCol ? "col." : "row.") + (F32 ? "f32" : "f16") +
                            ".f16.f16." + (F32 ? "f32" : "f16") + " {D}, {A}, {B}, {C}";
        runCase({Instr, 8, 8, 4, 4, F32 ? T::F32 : T::F16, T::F16, T::F16, F32 ? T::F32 : T::F16,
                 Volta});
      }
}

TEST_CASE("ldmatrix x1/x2/x4 (.trans), stmatrix and movmatrix move 8x8 b16 matrices") {
  // Four 8x8 matrices of 16-bit values, rows of 16 bytes, copied to shared memory lane by lane
  // (lane L: row L % 8 of matrix L / 8). ldmatrix.x4 (and .trans), ldmatrix.x2 and .x1 (lanes
  // past 16 / 8 point out of bounds: their addresses are not used), movmatrix of the x1 fragment,
  // stmatrix.x4 back to shared memory and out.
  const char *Body = R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .pred %p1;
  .shared .align 16 .b8 sm[512];
  .shared .align 16 .b8 back[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 4;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd4];
  mov.u32 %r7, sm;
  add.u32 %r8, %r7, %r2;
  st.shared.v4.u32 [%r8], {%r3, %r4, %r5, %r6};
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r8];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r14, %r15, %r16, %r17}, [%r8];
  setp.lt.u32 %p1, %r1, 16;
  selp.u32 %r9, %r8, 100000, %p1;
  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r18, %r19}, [%r9];
  setp.lt.u32 %p1, %r1, 8;
  selp.u32 %r9, %r8, 100000, %p1;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r20}, [%r9];
  movmatrix.sync.aligned.m8n8.trans.b16 %r21, %r20;
  mov.u32 %r22, back;
  add.u32 %r23, %r22, %r2;
  stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r23], {%r14, %r15, %r16, %r17};
  bar.sync 0;
  ld.shared.v4.u32 {%r24, %r25, %r26, %r27}, [%r23];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r10;
  st.global.u32 [%rd6+128], %r11;
  st.global.u32 [%rd6+256], %r12;
  st.global.u32 [%rd6+384], %r13;
  st.global.u32 [%rd6+512], %r14;
  st.global.u32 [%rd6+640], %r17;
  st.global.u32 [%rd6+768], %r18;
  st.global.u32 [%rd6+896], %r19;
  st.global.u32 [%rd6+1024], %r20;
  st.global.u32 [%rd6+1152], %r21;
  add.s64 %rd7, %rd2, %rd3;
  st.global.v4.u32 [%rd7+1280], {%r24, %r25, %r26, %r27};
  ret;
}
)";
  std::vector<uint16_t> In(4 * 64);
  for (size_t E = 0; E < In.size(); ++E)
    In[E] = uint16_t(E * 7 + 3);
  auto At = [&](unsigned Mi, unsigned R, unsigned C) { return uint32_t(In[Mi * 64 + R * 8 + C]); };
  analyzer::Program P = decode(module(Body));
  analyzer::Device D;
  uint64_t InBuf = makeBuffer(D, "in", In);
  uint64_t OutBuf = makeBuffer(D, "out", std::vector<uint32_t>(320 + 128, 0));
  analyzer::LaunchConfig L;
  L.block = {32, 1, 1};
  L.args = {analyzer::KernelArg::pointer(InBuf), analyzer::KernelArg::pointer(OutBuf)};
  analyzer::RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> Out = readBuffer<uint32_t>(D, "out");
  for (unsigned Ln = 0; Ln < 32; ++Ln) {
    CAPTURE(Ln);
    const unsigned Row = Ln / 4, Col = 2 * (Ln % 4);
    for (unsigned Mi = 0; Mi < 4; ++Mi) // plain: row Ln / 4, two columns
      CHECK(Out[Mi * 32 + Ln] == (At(Mi, Row, Col) | At(Mi, Row, Col + 1) << 16));
    // .trans: column Ln / 4, two rows (matrices 0 and 3 stored)
    CHECK(Out[128 + Ln] == (At(0, Col, Row) | At(0, Col + 1, Row) << 16));
    CHECK(Out[160 + Ln] == (At(3, Col, Row) | At(3, Col + 1, Row) << 16));
    CHECK(Out[192 + Ln] == Out[Ln]);      // x2 = the first two matrices of x4
    CHECK(Out[224 + Ln] == Out[32 + Ln]);
    CHECK(Out[256 + Ln] == Out[Ln]);      // x1
    CHECK(Out[288 + Ln] == Out[128 + Ln]); // movmatrix = ldmatrix.trans
  }
  // stmatrix.trans of the .trans fragments gives the matrices back.
  for (size_t E = 0; E < 128; ++E)
    CHECK(Out[320 + E] == (uint32_t(In[2 * E]) | uint32_t(In[2 * E + 1]) << 16));
  CHECK(R.profile.sharedLoadRequests == 4 + 1); // four ldmatrix, one ld.shared
  CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Shared)] == 512 * 2 + 256 + 128 + 512);
}

TEST_CASE("ldmatrix bank conflicts over rows spread wider than 1 KB") {
  // ldmatrix.x4: lane L gives row L's address, sm + (L mod Rows) * Pitch. 32 rows of 16 bytes
  // are 128 words, 4 wavefronts when the rows spread over the banks. A 16-byte row covers banks
  // 4 (c mod 8) .. + 3 of its chunk c = address / 16, so the busiest bank holds as many distinct
  // rows as the busiest chunk group c mod 8: pitch 80 (f32 tiles of 16 + 4): 4 per group, no
  // conflict; pitch 64: groups 0 and 4, 16 each; pitch 128: all in group 0; lanes 16-31 repeating
  // rows 0-15 (64 distinct words, ideal 2): 16 rows in group 0.
  struct Case {
    unsigned pitch, rows;
    uint64_t conflicts;
  };
  for (Case C : {Case{80, 32, 0}, Case{64, 32, 12}, Case{128, 32, 28}, Case{128, 16, 14}}) {
    CAPTURE(C.pitch);
    CAPTURE(C.rows);
    const std::string Body = R"(
.visible .entry k()
{
  .reg .b32 %r<20>;
  .shared .align 16 .b8 sm[4096];
  mov.u32 %r1, %laneid;
  rem.u32 %r2, %r1, )" + std::to_string(C.rows) +
                             R"(;
  mul.lo.u32 %r3, %r2, )" + std::to_string(C.pitch) +
                             R"(;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r5];
  ret;
}
)";
    analyzer::Program P = decode(module(Body));
    analyzer::Device D;
    analyzer::LaunchConfig L;
    L.block = {32, 1, 1};
    analyzer::RunResult R = analyzer::runKernel(P, "k", L, D);
    REQUIRE_MESSAGE(R.ok(), R.trap->str());
    CHECK(R.profile.sharedLoadRequests == 1);
    CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Shared)] == 512);
    CHECK(R.profile.sharedBankConflicts == C.conflicts);
  }
}

TEST_CASE("tensor-core instructions need the whole warp, unsupported forms name opcode and line") {
  const char *Partial = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .pred %p;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p, %r1, 16;
  @%p mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r8}, {%r2, %r3, %r4, %r5};
  ret;
}
)";
  analyzer::Program P = decode(module(Partial));
  analyzer::Device D;
  analyzer::LaunchConfig L;
  L.block = {32, 1, 1};
  L.args = {analyzer::KernelArg::pointer(0)};
  analyzer::RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE(R.trap);
  CHECK(R.trap->str().find("needs all 32 lanes of the warp; 16 run it") != std::string::npos);
  const char *Unsup = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r8, %r9}, {%r2, %r3, %r4, %r5}, %r10, 0x0;
  mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7, %r11, %r12}, {%r8, %r9}, {%r2, %r3, %r4, %r5};
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r8, %r9}, {%r2, %r3, %r4, %r5};
  ret;
}
)";
  analyzer::Program Q = decode(module(Unsup));
  std::vector<support::Error> E = Q.unsupported("k");
  REQUIRE(E.size() == 3);
  CHECK(E[0].str() == "k.ptx:9:3: error: unsupported instruction "
                      "'mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' (only dense "
                      "mma.sync is supported)");
  CHECK(E[1].str().find("k.ptx:10:3: error: unsupported instruction") == 0);
  CHECK(E[1].str().find("(shape, types or layouts)") != std::string::npos);
  CHECK(E[2].str().find("(a has 2 registers; the fragment takes 4)") != std::string::npos);
}
