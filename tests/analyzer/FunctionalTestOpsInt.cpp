// Per-instruction cross-checks, integer and bit operations: each PTX instruction runs in the
// interpreter over edge-case and random operands and must match analyzer::scalar bit-for-bit.
#include "ReferenceOps.h"

#include "analyzer/ScalarOps.h"

using namespace reftest;
using namespace analyzer::scalar;
using RK = RegKind;

namespace {

std::vector<uint64_t> intEdges(RegKind K) {
  switch (K) {
  case RegKind::H:
    return {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 15, 16, 17, 31, 32};
  case RegKind::R:
    return {0,          1,          2,          7,          31,         32,
            33,         0x7f,       0x80,       0xff,       0x7fff,     0x8000,
            0xffff,     0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x12345678,
            0x00800000, 0x00ffffff, 0x80000001, 64,         255,        256};
  default:
    return {0,
            1,
            2,
            63,
            64,
            65,
            0xffffffffull,
            0x100000000ull,
            0x7fffffffffffffffull,
            0x8000000000000000ull,
            0x8000000000000001ull,
            ~0ull,
            ~1ull,
            0x0123456789abcdefull};
  }
}

/// Keeps operand `Src` small (0..Max) in most lanes: shift amounts, positions, lengths.
auto smallOperand(unsigned Src, uint64_t Max) {
  return [Src, Max](unsigned S, unsigned, uint64_t R, uint64_t Def) {
    return S == Src && (R & 3) != 0 ? R % (Max + 1) : Def;
  };
}
auto smallOperands(std::vector<unsigned> Srcs, uint64_t Max) {
  return [Srcs, Max](unsigned S, unsigned, uint64_t R, uint64_t Def) {
    for (unsigned X : Srcs)
      if (S == X && (R & 3) != 0)
        return R % (Max + 1);
    return Def;
  };
}

int32_t s32(uint64_t X) { return int32_t(uint32_t(X)); }
int64_t s64(uint64_t X) { return int64_t(X); }
uint32_t u32(uint64_t X) { return uint32_t(X); }

void run(const OpCase &C) { CHECK(checkOp(C, intEdges)); }

} // namespace

TEST_CASE("ops: integer add/sub/mul/mad families match ScalarOps") {
  run({"add.sat.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(addSatS32(s32(A), s32(B)));
       }});
  run({"sub.sat.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(subSatS32(s32(A), s32(B)));
       }});
  run({"mul.lo.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(mulLo(s32(A), s32(B)));
       }});
  run({"mul.hi.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(mulHi(s32(A), s32(B)));
       }});
  run({"mul.hi.u32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(mulHi(u32(A), u32(B)));
       }});
  run({"mul.wide.s32 {d}, {a}, {b};", RK::L, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(mulWide(s32(A), s32(B)));
       }});
  run({"mul.wide.u32 {d}, {a}, {b};", RK::L, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return mulWide(u32(A), u32(B));
       }});
  run({"mul.hi.s64 {d}, {a}, {b};", RK::L, {RK::L, RK::L}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(mulHi(s64(A), s64(B)));
       }});
  run({"mul.hi.u64 {d}, {a}, {b};", RK::L, {RK::L, RK::L}, [](uint64_t A, uint64_t B, uint64_t) {
         return mulHi(A, B);
       }});
  run({"mad.lo.s32 {d}, {a}, {b}, {c};",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return uint64_t(mulLo(u32(A), u32(B)) + u32(C));
       }});
  run({"mad.hi.sat.s32 {d}, {a}, {b}, {c};",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return uint32_t(madHiSatS32(s32(A), s32(B), s32(C)));
       }});
  run({"mad.wide.s32 {d}, {a}, {b}, {c};",
       RK::L,
       {RK::R, RK::R, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) { return uint64_t(mulWide(s32(A), s32(B))) + C; }});
  for (bool Hi : {false, true})
    for (bool Signed : {false, true}) {
      std::string T = std::string(Hi ? ".hi" : ".lo") + (Signed ? ".s32" : ".u32");
      run({"mul24" + T + " {d}, {a}, {b};",
           RK::R,
           {RK::R, RK::R},
           [=](uint64_t A, uint64_t B, uint64_t) { return mul24(u32(A), u32(B), Signed, Hi); }});
      run({"mad24" + T + " {d}, {a}, {b}, {c};",
           RK::R,
           {RK::R, RK::R, RK::R},
           [=](uint64_t A, uint64_t B, uint64_t C) {
             return uint64_t(uint32_t(mul24(u32(A), u32(B), Signed, Hi) + u32(C)));
           }});
    }
  run({"sad.s32 {d}, {a}, {b}, {c};",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) { return uint32_t(sad(s32(A), s32(B), s32(C))); }});
  run({"sad.u32 {d}, {a}, {b}, {c};",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) { return uint64_t(sad(u32(A), u32(B), u32(C))); }});
}

TEST_CASE("ops: div/rem (zero divisors, INT_MIN / -1), abs/neg/min/max") {
  run({"div.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(divInt(s32(A), s32(B)));
       }});
  run({"div.u32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(divInt(u32(A), u32(B)));
       }});
  run({"rem.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(remInt(s32(A), s32(B)));
       }});
  run({"rem.u32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(remInt(u32(A), u32(B)));
       }});
  run({"div.s64 {d}, {a}, {b};", RK::L, {RK::L, RK::L}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(divInt(s64(A), s64(B)));
       }});
  run({"rem.u64 {d}, {a}, {b};", RK::L, {RK::L, RK::L}, [](uint64_t A, uint64_t B, uint64_t) {
         return remInt(A, B);
       }});
  run({"abs.s32 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint32_t(absInt(s32(A)));
       }});
  run({"neg.s64 {d}, {a};", RK::L, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(negInt(s64(A)));
       }});
  run({"min.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(std::min(s32(A), s32(B)));
       }});
  run({"max.u32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(std::max(u32(A), u32(B)));
       }});
}

TEST_CASE("ops: carry chains add.cc/addc, sub.cc/subc, mad.cc/madc") {
  run({"add.cc.u32 %rt, {a}, {b};\n  addc.u32 {d}, {c}, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return uint64_t(addCarry(u32(C), 0u, addCarry(u32(A), u32(B), false).carry).value);
       }});
  run({"add.cc.u32 %rt, {a}, {b};\n  addc.cc.u32 %rt, {c}, {c};\n  addc.u32 {d}, 0, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         bool C1 = addCarry(u32(A), u32(B), false).carry;
         return uint64_t(addCarry(u32(C), u32(C), C1).carry);
       }});
  run({"sub.cc.u32 %rt, {a}, {b};\n  subc.u32 {d}, {c}, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return uint64_t(subCarry(u32(C), 0u, subCarry(u32(A), u32(B), true).carry).value);
       }});
  // Mixed chains: CC.CF after a subtraction is NOT-borrow, consumed alike by addc and subc.
  run({"sub.cc.u32 %rt, {a}, {b};\n  addc.u32 {d}, {c}, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return uint64_t(addCarry(u32(C), 0u, subCarry(u32(A), u32(B), true).carry).value);
       }});
  run({"add.cc.u32 %rt, {a}, {b};\n  subc.cc.u32 %rt, {c}, {a};\n  addc.u32 {d}, 0, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         bool C1 = addCarry(u32(A), u32(B), false).carry;
         return uint64_t(subCarry(u32(C), u32(A), C1).carry);
       }});
  run({"sub.cc.u64 %lt, {a}, {b};\n  subc.u64 {d}, {c}, 0;",
       RK::L,
       {RK::L, RK::L, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return subCarry(C, uint64_t(0), subCarry(A, B, true).carry).value;
       }});
  run({"add.cc.u64 %lt, {a}, {b};\n  addc.u64 {d}, {c}, 0;",
       RK::L,
       {RK::L, RK::L, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) {
         return addCarry(C, uint64_t(0), addCarry(A, B, false).carry).value;
       }});
  run({"mad.lo.cc.u32 %rt, {a}, {b}, {c};\n  madc.hi.u32 {d}, {a}, {b}, 0;",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t B, uint64_t C) {
         bool Carry = madCarry(u32(A), u32(B), u32(C), false, false).carry;
         return uint64_t(madCarry(u32(A), u32(B), 0u, true, Carry).value);
       }});
}

TEST_CASE("ops: popc/clz/brev/bfind/fns/bfe/bfi") {
  run({"popc.b32 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(popc(u32(A)));
       }});
  run({"popc.b64 {d}, {a};", RK::R, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(popc(A));
       }});
  run({"clz.b32 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(clz32(u32(A)));
       }});
  run({"clz.b64 {d}, {a};", RK::R, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(clz64(A));
       }});
  run({"brev.b32 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(brev32(u32(A)));
       }});
  run({"brev.b64 {d}, {a};", RK::L, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return brev64(A);
       }});
  for (const char *T : {"u32", "s32", "shiftamt.u32", "shiftamt.s32"}) {
    bool Signed = std::string(T).find('s', std::string(T).size() - 3) != std::string::npos;
    bool Shift = std::string(T).find("shiftamt") == 0;
    run({std::string("bfind.") + T + " {d}, {a};",
         RK::R,
         {RK::R},
         [=](uint64_t A, uint64_t, uint64_t) { return uint64_t(bfind(A, 32, Signed, Shift)); }});
  }
  run({"bfind.s64 {d}, {a};", RK::R, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(bfind(A, 64, true, false));
       }});
  for (const char *T : {"u32", "s32"}) {
    bool Signed = T[0] == 's';
    OpCase C{
        std::string("bfe.") + T + " {d}, {a}, {b}, {c};",
        RK::R,
        {RK::R, RK::R, RK::R},
        [=](uint64_t A, uint64_t B, uint64_t C) { return bfe(A, u32(B), u32(C), 32, Signed); }};
    C.gen = smallOperands({1, 2}, 300);
    run(C);
  }
  for (const char *T : {"u64", "s64"}) {
    bool Signed = T[0] == 's';
    OpCase C{
        std::string("bfe.") + T + " {d}, {a}, {b}, {c};",
        RK::L,
        {RK::L, RK::R, RK::R},
        [=](uint64_t A, uint64_t B, uint64_t C) { return bfe(A, u32(B), u32(C), 64, Signed); }};
    C.gen = smallOperands({1, 2}, 300);
    run(C);
  }
  OpCase Bfi{"bfi.b32 {d}, {a}, {b}, {c}, 5;",
             RK::R,
             {RK::R, RK::R, RK::R},
             [](uint64_t A, uint64_t B, uint64_t C) { return bfi(A, B, u32(C), 5, 32); }};
  Bfi.gen = smallOperand(2, 300);
  run(Bfi);
  OpCase Bfi2{"bfi.b64 {d}, {a}, {b}, 3, {c};",
              RK::L,
              {RK::L, RK::L, RK::R},
              [](uint64_t A, uint64_t B, uint64_t C) { return bfi(A, B, 3, u32(C), 64); }};
  Bfi2.gen = smallOperand(2, 300);
  run(Bfi2);
}

TEST_CASE("ops: prmt (all modes), lop3, shf, shl/shr, bmsk, szext") {
  const std::pair<const char *, PrmtMode> Modes[] = {
      {"", PrmtMode::Default},  {".f4e", PrmtMode::F4e}, {".b4e", PrmtMode::B4e},
      {".rc8", PrmtMode::Rc8},  {".ecl", PrmtMode::Ecl}, {".ecr", PrmtMode::Ecr},
      {".rc16", PrmtMode::Rc16}};
  for (auto [Suffix, Mode] : Modes)
    run({std::string("prmt.b32") + Suffix + " {d}, {a}, {b}, {c};",
         RK::R,
         {RK::R, RK::R, RK::R},
         [Mode](uint64_t A, uint64_t B, uint64_t C) {
           return uint64_t(prmt(u32(A), u32(B), u32(C), Mode));
         }});
  for (int Lut : {0x96, 0xe8, 0x1e, 0x00, 0xff, 0x6a})
    run({"lop3.b32 {d}, {a}, {b}, {c}, " + std::to_string(Lut) + ";",
         RK::R,
         {RK::R, RK::R, RK::R},
         [Lut](uint64_t A, uint64_t B, uint64_t C) {
           return uint64_t(lop3(u32(A), u32(B), u32(C), uint8_t(Lut)));
         }});
  for (bool Left : {false, true})
    for (bool Clamp : {false, true}) {
      std::string Name = std::string("shf.") + (Left ? "l" : "r") + (Clamp ? ".clamp" : ".wrap");
      OpCase C{Name + ".b32 {d}, {a}, {b}, {c};",
               RK::R,
               {RK::R, RK::R, RK::R},
               [=](uint64_t A, uint64_t B, uint64_t Cv) {
                 return uint64_t(shf(u32(A), u32(B), u32(Cv), Left, Clamp));
               }};
      C.gen = smallOperand(2, 70);
      run(C);
    }
  OpCase Shl{"shl.b32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
               return uint64_t(shl(u32(A), u32(B)));
             }};
  OpCase ShrU{"shr.u32 {d}, {a}, {b};",
              RK::R,
              {RK::R, RK::R},
              [](uint64_t A, uint64_t B, uint64_t) { return uint64_t(shr(u32(A), u32(B))); }};
  OpCase ShrS{"shr.s32 {d}, {a}, {b};",
              RK::R,
              {RK::R, RK::R},
              [](uint64_t A, uint64_t B, uint64_t) { return uint32_t(shr(s32(A), u32(B))); }};
  OpCase Shl64{"shl.b64 {d}, {a}, {b};",
               RK::L,
               {RK::L, RK::R},
               [](uint64_t A, uint64_t B, uint64_t) { return shl(A, u32(B)); }};
  OpCase Shr64{"shr.s64 {d}, {a}, {b};",
               RK::L,
               {RK::L, RK::R},
               [](uint64_t A, uint64_t B, uint64_t) { return uint64_t(shr(s64(A), u32(B))); }};
  for (OpCase *C : {&Shl, &ShrU, &ShrS, &Shl64, &Shr64}) {
    C->gen = smallOperand(1, 70);
    run(*C);
  }
  for (bool Clamp : {false, true}) {
    OpCase B{
        std::string("bmsk.") + (Clamp ? "clamp" : "wrap") + ".b32 {d}, {a}, {b};",
        RK::R,
        {RK::R, RK::R},
        [=](uint64_t A, uint64_t Bv, uint64_t) { return uint64_t(bmsk(u32(A), u32(Bv), Clamp)); }};
    B.gen = smallOperands({0, 1}, 40);
    run(B);
    for (bool Signed : {false, true}) {
      OpCase S{std::string("szext.") + (Clamp ? "clamp" : "wrap") + (Signed ? ".s32" : ".u32") +
                   " {d}, {a}, {b};",
               RK::R,
               {RK::R, RK::R},
               [=](uint64_t A, uint64_t Bv, uint64_t) {
                 return uint64_t(szext(u32(A), u32(Bv), Clamp, Signed));
               }};
      S.gen = smallOperand(1, 40);
      run(S);
    }
  }
}

TEST_CASE("ops: dp4a/dp2a and integer cvt") {
  for (const char *A : {"u32", "s32"})
    for (const char *B : {"u32", "s32"}) {
      bool As = A[0] == 's', Bs = B[0] == 's';
      run({std::string("dp4a.") + A + "." + B + " {d}, {a}, {b}, {c};",
           RK::R,
           {RK::R, RK::R, RK::R},
           [=](uint64_t X, uint64_t Y, uint64_t Z) {
             return uint64_t(dp4a(u32(X), u32(Y), u32(Z), As, Bs));
           }});
      for (bool Hi : {false, true})
        run({std::string("dp2a.") + (Hi ? "hi." : "lo.") + A + "." + B + " {d}, {a}, {b}, {c};",
             RK::R,
             {RK::R, RK::R, RK::R},
             [=](uint64_t X, uint64_t Y, uint64_t Z) {
               return uint64_t(dp2a(u32(X), u32(Y), u32(Z), As, Bs, Hi));
             }});
    }
  struct Cvt {
    const char *Name;
    RegKind D, S;
    unsigned DBits, SBits;
    bool DSigned, SSigned, Sat;
  };
  const Cvt Cvts[] = {
      {"cvt.s32.s16", RK::R, RK::H, 32, 16, true, true, false},
      {"cvt.u32.s16", RK::R, RK::H, 32, 16, false, true, false},
      {"cvt.u16.u32", RK::H, RK::R, 16, 32, false, false, false},
      {"cvt.sat.s16.s32", RK::H, RK::R, 16, 32, true, true, true},
      {"cvt.sat.u16.s32", RK::H, RK::R, 16, 32, false, true, true},
      {"cvt.s64.s32", RK::L, RK::R, 64, 32, true, true, false},
      {"cvt.u64.u32", RK::L, RK::R, 64, 32, false, false, false},
      {"cvt.u32.u64", RK::R, RK::L, 32, 64, false, false, false},
      {"cvt.sat.s32.s64", RK::R, RK::L, 32, 64, true, true, true},
      {"cvt.sat.u32.s64", RK::R, RK::L, 32, 64, false, true, true},
  };
  for (const Cvt &C : Cvts)
    run({std::string(C.Name) + " {d}, {a};", C.D, {C.S}, [C](uint64_t A, uint64_t, uint64_t) {
           return convertInt(A, C.SBits, C.SSigned, C.DBits, C.DSigned, C.Sat);
         }});
}

// Every integer-to-integer cvt without .sat, also into a register wider than the destination
// type (a signed result is then sign-extended to the register's width).
TEST_CASE("ops: every integer cvt type pair") {
  struct T {
    const char *name;
    unsigned bits;
    bool isSigned;
  };
  const T Types[] = {{"s8", 8, true},   {"u8", 8, false},   {"s16", 16, true}, {"u16", 16, false},
                     {"s32", 32, true}, {"u32", 32, false}, {"s64", 64, true}, {"u64", 64, false}};
  auto Reg = [](unsigned Bits) { return Bits <= 16 ? RK::H : Bits == 32 ? RK::R : RK::L; };
  for (const T &D : Types)
    for (const T &Sr : Types)
      for (unsigned RegBits : {D.bits, 32u}) {
        if (RegBits < D.bits || (RegBits == 32 && D.bits >= 32))
          continue;
        std::string Name = std::string("cvt.") + D.name + "." + Sr.name;
        CAPTURE(Name);
        CAPTURE(RegBits);
        run({Name + " {d}, {a};",
             Reg(RegBits),
             {Reg(Sr.bits)},
             [=](uint64_t A, uint64_t, uint64_t) {
               return convertInt(A, Sr.bits, Sr.isSigned, D.bits, D.isSigned, false);
             }});
      }
}

TEST_CASE("ops: more forms (16/64-bit multiply, sad.u64, bfind.u64)") {
  run({"mul.lo.u16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(mulLo(uint16_t(A), uint16_t(B)));
       }});
  run({"mul.hi.s16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(uint16_t(mulHi(int16_t(A), int16_t(B))));
       }});
  run({"mul.wide.u16 {d}, {a}, {b};", RK::R, {RK::H, RK::H}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(mulWide(uint16_t(A), uint16_t(B)));
       }});
  run({"mad.lo.u64 {d}, {a}, {b}, {c};",
       RK::L,
       {RK::L, RK::L, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) { return mulLo(A, B) + C; }});
  run({"mad.hi.u64 {d}, {a}, {b}, {c};",
       RK::L,
       {RK::L, RK::L, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) { return mulHi(A, B) + C; }});
  run({"sad.u64 {d}, {a}, {b}, {c};",
       RK::L,
       {RK::L, RK::L, RK::L},
       [](uint64_t A, uint64_t B, uint64_t C) { return sad(A, B, C); }});
  run({"bfind.shiftamt.u64 {d}, {a};", RK::R, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(bfind(A, 64, false, true));
       }});
  run({"div.u16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(divInt(uint16_t(A), uint16_t(B)));
       }});
  run({"rem.s64 {d}, {a}, {b};", RK::L, {RK::L, RK::L}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint64_t(remInt(s64(A), s64(B)));
       }});
  run({"abs.s16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(uint16_t(absInt(int16_t(A))));
       }});
}

// Regression: these were once unsupported (min/max/add/sub .s16x2/.u16x2, fns.b32) or wrong
// (max.relu.s32 ran without its clamp). Expected values are ScalarOps', verified independently in
// its tests.
TEST_CASE("ops: relu and packed min/max, fns") {
  run({"max.relu.s32 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return uint32_t(reluS32(std::max(s32(A), s32(B))));
       }});
  run({"min.s16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return minMax16x2(u32(A), u32(B), true, false);
       }});
  run({"max.u16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t B, uint64_t) {
         return minMax16x2(u32(A), u32(B), false, true);
       }});
  // add/sub .s16x2/.u16x2 (sm_90, nvcc's __vadd2/__vsub2): each half wraps on its own.
  auto Halves = [](uint64_t A, uint64_t B, int Sign) {
    uint32_t Lo = (uint32_t(A) + uint32_t(Sign * int32_t(B & 0xFFFF))) & 0xFFFF;
    uint32_t Hi = ((uint32_t(A) >> 16) + uint32_t(Sign * int32_t((B >> 16) & 0xFFFF))) & 0xFFFF;
    return uint64_t(Hi << 16 | Lo);
  };
  run({"add.s16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [&](uint64_t A, uint64_t B, uint64_t) {
         return Halves(A, B, 1);
       }});
  run({"sub.u16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [&](uint64_t A, uint64_t B, uint64_t) {
         return Halves(A, B, -1);
       }});
  OpCase Fns{
      "fns.b32 {d}, {a}, {b}, {c};",
      RK::R,
      {RK::R, RK::R, RK::R},
      [](uint64_t A, uint64_t B, uint64_t C) { return uint64_t(fns(u32(A), u32(B), s32(C))); }};
  Fns.gen = [](unsigned S, unsigned, uint64_t R, uint64_t Def) {
    if (S == 1)
      return R % 32; // base > 31 is undefined in PTX
    if (S == 2 && (R & 3) != 0)
      return uint64_t(uint32_t(int32_t(R % 81) - 40)); // offsets -40..40
    return Def;
  };
  run(Fns);
}

TEST_CASE("ops: cvt.pack.sat packs two clamped s32 values (and c's low bits for 8 bits and less)") {
  // PTX ISA 9.7.9.21 cvt.pack: ta, tb = a, b clamped to the type; d = tb | ta << size, and for
  // .u8 and narrower the bits from 2 * size up come from c.
  struct Pack {
    const char *type;
    unsigned size;
    bool sign;
  };
  for (Pack P : {Pack{"u16", 16, false}, Pack{"s16", 16, true}, Pack{"u8", 8, false},
                 Pack{"s8", 8, true}, Pack{"s4", 4, true}, Pack{"u2", 2, false}}) {
    CAPTURE(P.type);
    const int64_t Lo = P.sign ? -(int64_t(1) << (P.size - 1)) : 0;
    const int64_t Hi = P.sign ? (int64_t(1) << (P.size - 1)) - 1 : (int64_t(1) << P.size) - 1;
    auto Ref = [=](uint64_t A, uint64_t Bv, uint64_t C) {
      auto Clamp = [&](uint64_t V) {
        return uint64_t(std::clamp<int64_t>(int32_t(V), Lo, Hi)) & ((1ull << P.size) - 1);
      };
      uint64_t D = Clamp(Bv) | Clamp(A) << P.size;
      if (P.size < 16)
        D |= C << (2 * P.size);
      return uint64_t(uint32_t(D));
    };
    std::string Body = std::string("cvt.pack.sat.") + P.type + ".s32.b32 {d}, {a}, {b}" +
                       (P.size < 16 ? ", {c};" : ";");
    run({Body, RK::R, P.size < 16 ? std::vector{RK::R, RK::R, RK::R} : std::vector{RK::R, RK::R},
         Ref});
  }
}
