// Per-instruction cross-checks, floating point: every rounding mode, .ftz/.sat/.relu, NaN and
// signed-zero edge cases, conversions and approximate functions, interpreter vs analyzer::scalar.
#include "ReferenceOps.h"

#include "analyzer/ScalarOps.h"

using namespace reftest;
using namespace analyzer::scalar;
using RK = RegKind;

namespace {

std::vector<uint64_t> floatEdges(RegKind K) {
  switch (K) {
  case RegKind::H: // f16 / bf16 patterns
    return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001, 0x8001,
            0x03ff, 0x0400, 0x7bff, 0x3800, 0x4000, 0x3f80, 0xbf80, 0x7f80, 0x7fc0, 0x0080};
  case RegKind::F:
    return {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
            0x7fc00000, 0x7f800001, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff,
            0x3f000000, 0xbfc00000, 0x40400000, 0x4b000000, 0x4f000000, 0xcf000000,
            0x5f800000, 0x40490fdb, 0x33800000, 0x477ff000, 0x3f7fffff, 0x3f800001};
  case RegKind::D:
    return {0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
            0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x0000000000000001,
            0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff, 0x3fe0000000000000,
            0x4008000000000000, 0x41e0000000000000, 0xc1e0000000000000, 0x3ff0000000000001,
            0x47efffffe0000000, 0x36a0000000000000, 0x3fefffffffffffff, 0x400921fb54442d18};
  case RegKind::R:
    return {0,          1,          0xffffffff, 0x7fffffff, 0x80000000, 0x00ffffff,
            0x01000001, 0x12345678, 65519,      65520,      0xfffffffe, 3};
  case RegKind::L:
    return {0,
            1,
            ~0ull,
            0x7fffffffffffffffull,
            0x8000000000000000ull,
            0x0020000000000001ull,
            0xfffffffffffff801ull,
            0x0123456789abcdefull};
  }
  return {};
}

float F(uint64_t X) { return f32FromBits(uint32_t(X)); }
double D(uint64_t X) { return f64FromBits(X); }
uint64_t B(float X) { return f32Bits(X); }
uint64_t B(double X) { return f64Bits(X); }
uint16_t H(uint64_t X) { return uint16_t(X); }

void run(const OpCase &C) { CHECK(checkOp(C, floatEdges)); }

struct ModeName {
  const char *name;
  Round rnd;
};
constexpr ModeName Modes[] = {
    {"rn", Round::Rn}, {"rz", Round::Rz}, {"rm", Round::Rm}, {"rp", Round::Rp}};

} // namespace

TEST_CASE("ops: f32 add/sub/mul/fma/div/sqrt/rcp in every rounding mode, .ftz, .sat") {
  for (const ModeName &Mo : Modes)
    for (int Flags = 0; Flags < 4; ++Flags) {
      FpMode M{Mo.rnd, (Flags & 1) != 0, (Flags & 2) != 0};
      std::string Mods = std::string(".") + Mo.name + (M.ftz ? ".ftz" : "") + (M.sat ? ".sat" : "");
      run({"add" + Mods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [M](uint64_t A, uint64_t Bv, uint64_t) { return B(addF32(F(A), F(Bv), M)); }});
      run({"sub" + Mods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [M](uint64_t A, uint64_t Bv, uint64_t) { return B(subF32(F(A), F(Bv), M)); }});
      run({"mul" + Mods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [M](uint64_t A, uint64_t Bv, uint64_t) { return B(mulF32(F(A), F(Bv), M)); }});
      run({"fma" + Mods + ".f32 {d}, {a}, {b}, {c};",
           RK::F,
           {RK::F, RK::F, RK::F},
           [M](uint64_t A, uint64_t Bv, uint64_t C) { return B(fmaF32(F(A), F(Bv), F(C), M)); }});
      if (M.sat)
        continue; // div/sqrt/rcp have no .sat
      std::string DMods = std::string(".") + Mo.name + (M.ftz ? ".ftz" : "");
      run({"div" + DMods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [M](uint64_t A, uint64_t Bv, uint64_t) { return B(divF32(F(A), F(Bv), M)); }});
      run({"sqrt" + DMods + ".f32 {d}, {a};", RK::F, {RK::F}, [M](uint64_t A, uint64_t, uint64_t) {
             return B(sqrtF32(F(A), M));
           }});
      run({"rcp" + DMods + ".f32 {d}, {a};", RK::F, {RK::F}, [M](uint64_t A, uint64_t, uint64_t) {
             return B(rcpF32(F(A), M));
           }});
    }
}

TEST_CASE("ops: f64 arithmetic in every rounding mode") {
  for (const ModeName &Mo : Modes) {
    Round R = Mo.rnd;
    std::string S = std::string(".") + Mo.name + ".f64";
    run({"add" + S + " {d}, {a}, {b};",
         RK::D,
         {RK::D, RK::D},
         [R](uint64_t A, uint64_t Bv, uint64_t) { return B(addF64(D(A), D(Bv), R)); }});
    run({"sub" + S + " {d}, {a}, {b};",
         RK::D,
         {RK::D, RK::D},
         [R](uint64_t A, uint64_t Bv, uint64_t) { return B(subF64(D(A), D(Bv), R)); }});
    run({"mul" + S + " {d}, {a}, {b};",
         RK::D,
         {RK::D, RK::D},
         [R](uint64_t A, uint64_t Bv, uint64_t) { return B(mulF64(D(A), D(Bv), R)); }});
    run({"fma" + S + " {d}, {a}, {b}, {c};",
         RK::D,
         {RK::D, RK::D, RK::D},
         [R](uint64_t A, uint64_t Bv, uint64_t C) { return B(fmaF64(D(A), D(Bv), D(C), R)); }});
    run({"div" + S + " {d}, {a}, {b};",
         RK::D,
         {RK::D, RK::D},
         [R](uint64_t A, uint64_t Bv, uint64_t) { return B(divF64(D(A), D(Bv), R)); }});
    run({"sqrt" + S + " {d}, {a};", RK::D, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(sqrtF64(D(A), R));
         }});
    run({"rcp" + S + " {d}, {a};", RK::D, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(rcpF64(D(A), R));
         }});
  }
  run({"min.f64 {d}, {a}, {b};", RK::D, {RK::D, RK::D}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return B(minF64(D(A), D(Bv)));
       }});
  run({"max.f64 {d}, {a}, {b};", RK::D, {RK::D, RK::D}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return B(maxF64(D(A), D(Bv)));
       }});
  run({"abs.f64 {d}, {a};", RK::D, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return B(absF64(D(A)));
       }});
  run({"neg.f64 {d}, {a};", RK::D, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return B(negF64(D(A)));
       }});
  run({"rcp.approx.ftz.f64 {d}, {a};", RK::D, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return B(rcpApproxF64(D(A)));
       }});
}

TEST_CASE("ops: f32 min/max/abs/neg/copysign/testp and approximate functions") {
  for (bool Ftz : {false, true})
    for (bool Nan : {false, true}) {
      std::string Mods = std::string(Ftz ? ".ftz" : "") + (Nan ? ".NaN" : "");
      run({"min" + Mods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [=](uint64_t A, uint64_t Bv, uint64_t) { return B(minF32(F(A), F(Bv), Ftz, Nan)); }});
      run({"max" + Mods + ".f32 {d}, {a}, {b};",
           RK::F,
           {RK::F, RK::F},
           [=](uint64_t A, uint64_t Bv, uint64_t) { return B(maxF32(F(A), F(Bv), Ftz, Nan)); }});
    }
  run({"abs.ftz.f32 {d}, {a};", RK::F, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(absF32(F(A), true));
       }});
  run({"neg.f32 {d}, {a};", RK::F, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(negF32(F(A)));
       }});
  run({"copysign.f32 {d}, {a}, {b};", RK::F, {RK::F, RK::F}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return B(copysignF32(F(A), F(Bv)));
       }});
  const std::pair<const char *, TestKind> Tests[] = {
      {"finite", TestKind::Finite}, {"infinite", TestKind::Infinite},
      {"number", TestKind::Number}, {"notanumber", TestKind::NotANumber},
      {"normal", TestKind::Normal}, {"subnormal", TestKind::Subnormal}};
  for (auto [Name, K] : Tests)
    run({std::string("testp.") + Name + ".f32 %p2, {a};\n  selp.u32 {d}, 1, 0, %p2;",
         RK::R,
         {RK::F},
         [K](uint64_t A, uint64_t, uint64_t) { return uint64_t(testpF32(F(A), K)); }});
  for (bool Ftz : {false, true}) {
    std::string Z = Ftz ? ".ftz" : "";
    auto Unary = [&](const std::string &Op, float (*Fn)(float, bool)) {
      run({Op + ".approx" + Z + ".f32 {d}, {a};",
           RK::F,
           {RK::F},
           [=](uint64_t A, uint64_t, uint64_t) { return B(Fn(F(A), Ftz)); }});
    };
    Unary("ex2", ex2ApproxF32);
    Unary("lg2", lg2ApproxF32);
    Unary("sin", sinApproxF32);
    Unary("cos", cosApproxF32);
    Unary("rsqrt", rsqrtApproxF32);
    Unary("rcp", rcpApproxF32);
    Unary("sqrt", sqrtApproxF32);
    run({"div.approx" + Z + ".f32 {d}, {a}, {b};",
         RK::F,
         {RK::F, RK::F},
         [=](uint64_t A, uint64_t Bv, uint64_t) { return B(divApproxF32(F(A), F(Bv), Ftz)); }});
    run({"div.full" + Z + ".f32 {d}, {a}, {b};",
         RK::F,
         {RK::F, RK::F},
         [=](uint64_t A, uint64_t Bv, uint64_t) { return B(divFullF32(F(A), F(Bv), Ftz)); }});
  }
  run({"tanh.approx.f32 {d}, {a};", RK::F, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(tanhApproxF32(F(A)));
       }});
}

TEST_CASE("ops: cvt between float types, to and from integers, f16/bf16/tf32 packing") {
  for (const ModeName &Mo : Modes) {
    Round R = Mo.rnd;
    std::string Rn = std::string(".") + Mo.name, Ri = Rn + "i";
    run({"cvt" + Ri + ".s32.f32 {d}, {a};", RK::R, {RK::F}, [R](uint64_t A, uint64_t, uint64_t) {
           return floatToInt(F(A), R, 32, true);
         }});
    run({"cvt" + Ri + ".ftz.u32.f32 {d}, {a};",
         RK::R,
         {RK::F},
         [R](uint64_t A, uint64_t, uint64_t) { return floatToInt(flushF32(F(A)), R, 32, false); }});
    run({"cvt" + Ri + ".s64.f64 {d}, {a};", RK::L, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return floatToInt(D(A), R, 64, true);
         }});
    run({"cvt" + Ri + ".u16.f32 {d}, {a};", RK::H, {RK::F}, [R](uint64_t A, uint64_t, uint64_t) {
           return floatToInt(F(A), R, 16, false);
         }});
    run({"cvt" + Ri + ".f32.f32 {d}, {a};", RK::F, {RK::F}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(roundToIntegralF32(F(A), R));
         }});
    run({"cvt" + Ri + ".f64.f64 {d}, {a};", RK::D, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(roundToIntegralF64(D(A), R));
         }});
    run({"cvt" + Rn + ".f32.s32 {d}, {a};", RK::F, {RK::R}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(s64ToF32(int32_t(A), R));
         }});
    run({"cvt" + Rn + ".f32.u64 {d}, {a};", RK::F, {RK::L}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(u64ToF32(A, R));
         }});
    run({"cvt" + Rn + ".f64.s64 {d}, {a};", RK::D, {RK::L}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(s64ToF64(int64_t(A), R));
         }});
    run({"cvt" + Rn + ".f16.s32 {d}, {a};", RK::H, {RK::R}, [R](uint64_t A, uint64_t, uint64_t) {
           return uint64_t(s64ToF16(int32_t(A), R));
         }});
    run({"cvt" + Rn + ".f32.f64 {d}, {a};", RK::F, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return B(f64ToF32(D(A), FpMode{R}));
         }});
    run({"cvt" + Rn + ".f16.f32 {d}, {a};", RK::H, {RK::F}, [R](uint64_t A, uint64_t, uint64_t) {
           return uint64_t(f32ToF16(F(A), R));
         }});
    run({"cvt" + Rn + ".f16.f64 {d}, {a};", RK::H, {RK::D}, [R](uint64_t A, uint64_t, uint64_t) {
           return uint64_t(f64ToF16(D(A), R));
         }});
  }
  run({"cvt.rz.ftz.sat.f32.f64 {d}, {a};", RK::F, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return B(f64ToF32(D(A), FpMode{Round::Rz, true, true}));
       }});
  run({"cvt.f64.f32 {d}, {a};", RK::D, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(f32ToF64(F(A)));
       }});
  run({"cvt.ftz.f64.f32 {d}, {a};", RK::D, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(f32ToF64(F(A), true));
       }});
  run({"cvt.f32.f16 {d}, {a};", RK::F, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return B(f16ToF32(H(A)));
       }});
  run({"cvt.f32.bf16 {d}, {a};", RK::F, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return B(bf16ToF32(H(A)));
       }});
  for (const char *R : {"rn", "rz"}) {
    Round Rd = R[1] == 'n' ? Round::Rn : Round::Rz;
    for (int Flags = 0; Flags < 4; ++Flags) {
      bool Relu = Flags & 1, Sat = Flags & 2;
      std::string Mods = std::string(".") + R + (Relu ? ".relu" : "") + (Sat ? ".satfinite" : "");
      run({"cvt" + Mods + ".f16.f32 {d}, {a};",
           RK::H,
           {RK::F},
           [=](uint64_t A, uint64_t, uint64_t) {
             return uint64_t(f32ToF16(F(A), Rd, Sat, Relu));
           }});
      run({"cvt" + Mods + ".bf16.f32 {d}, {a};",
           RK::H,
           {RK::F},
           [=](uint64_t A, uint64_t, uint64_t) {
             return uint64_t(f32ToBf16(F(A), Rd, Sat, Relu));
           }});
      run({"cvt" + Mods + ".f16x2.f32 {d}, {a}, {b};",
           RK::R,
           {RK::F, RK::F},
           [=](uint64_t A, uint64_t Bv, uint64_t) {
             return uint64_t(packF16x2(F(A), F(Bv), Rd, Sat, Relu));
           }});
      run({"cvt" + Mods + ".bf16x2.f32 {d}, {a}, {b};",
           RK::R,
           {RK::F, RK::F},
           [=](uint64_t A, uint64_t Bv, uint64_t) {
             return uint64_t(packBf16x2(F(A), F(Bv), Rd, Sat, Relu));
           }});
    }
  }
  OpCase Tf32{"cvt.rna.tf32.f32 {d}, {a};", RK::R, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
                return uint64_t(f32ToTf32(F(A), Round::Rna));
              }};
  run(Tf32);
  // The bit-level fast path: exact ties (away from zero), one below and above them, normal and
  // subnormal, and the last values below and at the rounding to infinity.
  CHECK(checkOp(Tf32, [](RegKind K) {
    std::vector<uint64_t> V = floatEdges(K);
    for (uint64_t X : {0x3f801000u, 0xbf801000u, 0x3f800fffu, 0x3f801001u, 0x3f803000u, 0x00001000u,
                       0x80001000u, 0x00000fffu, 0x007ff000u, 0x7f7fefffu, 0x7f7ff000u, 0xff7ff000u,
                       0x7f7fe000u, 0x3fffffffu})
      V.push_back(X);
    return V;
  }));
}

TEST_CASE("ops: f16/f16x2/bf16/bf16x2 arithmetic") {
  for (int Flags = 0; Flags < 4; ++Flags) {
    FpMode M{Round::Rn, (Flags & 1) != 0, (Flags & 2) != 0};
    std::string Mods = std::string(".rn") + (M.ftz ? ".ftz" : "") + (M.sat ? ".sat" : "");
    run({"add" + Mods + ".f16 {d}, {a}, {b};",
         RK::H,
         {RK::H, RK::H},
         [M](uint64_t A, uint64_t Bv, uint64_t) { return uint64_t(addF16(H(A), H(Bv), M)); }});
    run({"sub" + Mods + ".f16 {d}, {a}, {b};",
         RK::H,
         {RK::H, RK::H},
         [M](uint64_t A, uint64_t Bv, uint64_t) { return uint64_t(subF16(H(A), H(Bv), M)); }});
    run({"mul" + Mods + ".f16 {d}, {a}, {b};",
         RK::H,
         {RK::H, RK::H},
         [M](uint64_t A, uint64_t Bv, uint64_t) { return uint64_t(mulF16(H(A), H(Bv), M)); }});
    run({"fma" + Mods + ".f16 {d}, {a}, {b}, {c};",
         RK::H,
         {RK::H, RK::H, RK::H},
         [M](uint64_t A, uint64_t Bv, uint64_t C) {
           return uint64_t(fmaF16(H(A), H(Bv), H(C), M));
         }});
    run({"fma" + Mods + ".f16x2 {d}, {a}, {b}, {c};",
         RK::R,
         {RK::R, RK::R, RK::R},
         [M](uint64_t A, uint64_t Bv, uint64_t C) {
           return uint64_t(fmaF16x2(uint32_t(A), uint32_t(Bv), uint32_t(C), M));
         }});
    run({"add" + Mods + ".f16x2 {d}, {a}, {b};",
         RK::R,
         {RK::R, RK::R},
         [M](uint64_t A, uint64_t Bv, uint64_t) {
           return uint64_t(addF16x2(uint32_t(A), uint32_t(Bv), M));
         }});
  }
  run({"fma.rn.relu.f16 {d}, {a}, {b}, {c};",
       RK::H,
       {RK::H, RK::H, RK::H},
       [](uint64_t A, uint64_t Bv, uint64_t C) {
         return uint64_t(fmaF16(H(A), H(Bv), H(C), FpMode{}, true));
       }});
  run({"fma.rn.relu.bf16 {d}, {a}, {b}, {c};",
       RK::H,
       {RK::H, RK::H, RK::H},
       [](uint64_t A, uint64_t Bv, uint64_t C) {
         return uint64_t(fmaBF16(H(A), H(Bv), H(C), Round::Rn, true));
       }});
  run({"fma.rn.bf16x2 {d}, {a}, {b}, {c};",
       RK::R,
       {RK::R, RK::R, RK::R},
       [](uint64_t A, uint64_t Bv, uint64_t C) {
         return uint64_t(fmaBF16x2(uint32_t(A), uint32_t(Bv), uint32_t(C)));
       }});
  run({"add.rn.bf16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(addBF16(H(A), H(Bv)));
       }});
  run({"mul.rn.bf16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(mulBF16(H(A), H(Bv)));
       }});
  for (bool Nan : {false, true}) {
    std::string N = Nan ? ".NaN" : "";
    run({"min" + N + ".f16 {d}, {a}, {b};",
         RK::H,
         {RK::H, RK::H},
         [=](uint64_t A, uint64_t Bv, uint64_t) {
           return uint64_t(minF16(H(A), H(Bv), false, Nan));
         }});
    run({"max" + N + ".bf16 {d}, {a}, {b};",
         RK::H,
         {RK::H, RK::H},
         [=](uint64_t A, uint64_t Bv, uint64_t) { return uint64_t(maxBF16(H(A), H(Bv), Nan)); }});
  }
  run({"neg.f16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(negF16(H(A)));
       }});
  run({"abs.bf16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(absBF16(H(A)));
       }});
  run({"ex2.approx.f16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(ex2ApproxF16(H(A)));
       }});
}

TEST_CASE("ops: more forms (packed min/max/neg/abs, f64 testp/copysign, 16-bit conversions)") {
  run({"min.f16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(mapHalves(uint32_t(A), uint32_t(Bv),
                                   [](uint16_t X, uint16_t Y) { return minF16(X, Y); }));
       }});
  run({"max.NaN.bf16x2 {d}, {a}, {b};",
       RK::R,
       {RK::R, RK::R},
       [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(mapHalves(uint32_t(A), uint32_t(Bv),
                                   [](uint16_t X, uint16_t Y) { return maxBF16(X, Y, true); }));
       }});
  run({"neg.f16x2 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(mapHalves(uint32_t(A), [](uint16_t X) { return negF16(X); }));
       }});
  run({"abs.ftz.f16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(absF16(H(A), true));
       }});
  run({"ex2.approx.f16x2 {d}, {a};", RK::R, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(mapHalves(uint32_t(A), [](uint16_t X) { return ex2ApproxF16(X); }));
       }});
  run({"ex2.approx.ftz.bf16 {d}, {a};", RK::H, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(ex2ApproxBF16(H(A)));
       }});
  run({"mul.rn.f16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(mulF16x2(uint32_t(A), uint32_t(Bv)));
       }});
  run({"sub.rn.f16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(subF16x2(uint32_t(A), uint32_t(Bv)));
       }});
  run({"sub.rn.bf16 {d}, {a}, {b};", RK::H, {RK::H, RK::H}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(subBF16(H(A), H(Bv)));
       }});
  run({"testp.subnormal.f64 %p2, {a};\n  selp.u32 {d}, 1, 0, %p2;",
       RK::R,
       {RK::D},
       [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(testpF64(D(A), TestKind::Subnormal));
       }});
  run({"copysign.f64 {d}, {a}, {b};", RK::D, {RK::D, RK::D}, [](uint64_t A, uint64_t Bv, uint64_t) {
         return B(copysignF64(D(A), D(Bv)));
       }});
  run({"rsqrt.approx.f64 {d}, {a};", RK::D, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return B(rsqrtApproxF64(D(A)));
       }});
  run({"cvt.f64.f16 {d}, {a};", RK::D, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return B(canonF64(double(f16ToF32(H(A)))));
       }});
  run({"cvt.rn.bf16.f64 {d}, {a};", RK::H, {RK::D}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(f64ToBf16(D(A)));
       }});
  run({"cvt.rzi.s32.f16 {d}, {a};", RK::R, {RK::H}, [](uint64_t A, uint64_t, uint64_t) {
         return floatToInt(f16ToF32(H(A)), Round::Rz, 32, true);
       }});
  run({"cvt.rn.f16.u64 {d}, {a};", RK::H, {RK::L}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(u64ToF16(A));
       }});
  run({"cvt.rn.bf16.s32 {d}, {a};", RK::H, {RK::R}, [](uint64_t A, uint64_t, uint64_t) {
         return uint64_t(s64ToBf16(int32_t(A)));
       }});
  run({"cvt.sat.f32.f32 {d}, {a};", RK::F, {RK::F}, [](uint64_t A, uint64_t, uint64_t) {
         return B(saturateF32(F(A)));
       }});
}

TEST_CASE("ops: setp/set on .f16x2/.bf16x2, fp8 conversions e4m3x2/e5m2x2 both ways") {
  // Half comparisons (PTX ISA 9.7.4.x): per half, p the lower half's outcome, q the upper's.
  auto Lt16 = [](uint64_t A, uint64_t Bv, unsigned Half, bool Bf) {
    auto V = [&](uint64_t X) {
      uint16_t H16 = uint16_t(X >> (16 * Half));
      return Bf ? bf16ToF32(H16) : f16ToF32(H16);
    };
    return V(A) < V(Bv);
  };
  for (bool Bf : {false, true}) {
    std::string T = Bf ? "bf16x2" : "f16x2";
    run({"setp.lt." + T + " %p1|%p2, {a}, {b};\n  selp.b32 %t1, 1, 0, %p1;\n"
                          "  selp.b32 %t2, 2, 0, %p2;\n  or.b32 {d}, %t1, %t2;",
         RK::R,
         {RK::R, RK::R},
         [=](uint64_t A, uint64_t Bv, uint64_t) {
           return uint64_t(Lt16(A, Bv, 0, Bf)) | uint64_t(Lt16(A, Bv, 1, Bf)) << 1;
         }});
    uint32_t One = Bf ? 0x3f80 : 0x3c00;
    run({"set.ltu." + T + "." + T + " {d}, {a}, {b};", RK::R, {RK::R, RK::R},
         [=](uint64_t A, uint64_t Bv, uint64_t) {
           auto Ltu = [&](unsigned Half) { // unordered: NaN compares true
             uint16_t X = uint16_t(A >> (16 * Half)), Y = uint16_t(Bv >> (16 * Half));
             float Fx = Bf ? bf16ToF32(X) : f16ToF32(X), Fy = Bf ? bf16ToF32(Y) : f16ToF32(Y);
             return Fx != Fx || Fy != Fy || Fx < Fy;
           };
           return uint64_t(Ltu(0) ? One : 0) | uint64_t(Ltu(1) ? One : 0) << 16;
         }});
  }
  run({"set.ge.u32.f16x2 {d}, {a}, {b};", RK::R, {RK::R, RK::R},
       [=](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(!Lt16(A, Bv, 0, false) && (A & 0x7fff) <= 0x7c00 &&
                                 (Bv & 0x7fff) <= 0x7c00
                             ? 0xffff
                             : 0) |
                uint64_t(!Lt16(A, Bv, 1, false) && ((A >> 16) & 0x7fff) <= 0x7c00 &&
                                 ((Bv >> 16) & 0x7fff) <= 0x7c00
                             ? 0xffff
                             : 0)
                    << 16;
       }});
  run({"set.eq.f16.f16 {d}, {a}, {b};\n  cvt.u32.u16 {d}, {d};", RK::R, {RK::H, RK::H},
       [](uint64_t A, uint64_t Bv, uint64_t) {
         return uint64_t(f16ToF32(H(A)) == f16ToF32(H(Bv)) ? 0x3c00 : 0);
       }});
  // fp8 (PTX ISA 9.7.9.21): from f32 pairs, a to the upper byte; from and to f16x2 per half.
  for (bool E5 : {false, true}) {
    std::string T = E5 ? "e5m2x2" : "e4m3x2";
    auto To8 = [E5](float X, bool Relu = false) {
      return uint64_t(E5 ? f32ToE5m2(X, true, Relu) : f32ToE4m3(X, true, Relu));
    };
    auto From8 = [E5](uint64_t B8) {
      return uint64_t(f32ToF16(E5 ? e5m2ToF32(uint8_t(B8)) : e4m3ToF32(uint8_t(B8))));
    };
    run({"cvt.rn.satfinite." + T + ".f32 %ht, {a}, {b};\n  cvt.u32.u16 {d}, %ht;", RK::R,
         {RK::F, RK::F},
         [=](uint64_t A, uint64_t Bv, uint64_t) { return To8(F(Bv)) | To8(F(A)) << 8; }});
    run({"cvt.rn.satfinite.relu." + T + ".f16x2 %ht, {a};\n  cvt.u32.u16 {d}, %ht;", RK::R,
         {RK::R}, [=](uint64_t A, uint64_t, uint64_t) {
           return To8(f16ToF32(H(A)), true) | To8(f16ToF32(H(A >> 16)), true) << 8;
         }});
    run({"cvt.rn.f16x2." + T + " {d}, {a};", RK::R, {RK::H},
         [=](uint64_t A, uint64_t, uint64_t) { return From8(A & 0xff) | From8(A >> 8) << 16; }});
  }
}
