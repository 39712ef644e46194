// Per-instruction cross-check harness: wraps one PTX instruction in a kernel that loads its
// operands from global arrays (one element per thread) and stores its result, runs it in the
// interpreter on edge-case and random inputs, and compares every lane bit-for-bit with the
// analyzer::scalar reference (itself verified independently in ScalarOps*Test.cpp).
#pragma once

#include "ReferenceRunner.h"

#include <cstdio>
#include <functional>
#include <string>

namespace reftest {

/// Register kinds of an operand: b16, b32, b64, f32, f64.
enum class RegKind : uint8_t { H, R, L, F, D };

/// One instruction under test. `body` is PTX with {d} {a} {b} {c} standing for the operand
/// registers (it may be several instructions, e.g. add.cc + addc). `ref` maps the raw operand
/// bits to the expected raw result bits.
struct OpCase {
  std::string body;
  RegKind d;
  std::vector<RegKind> srcs;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t)> ref;
  /// Optional operand override: given the source index (0..2), the lane, fresh random bits and
  /// the default choice, returns the operand (e.g. to keep shift amounts near the width).
  std::function<uint64_t(unsigned Src, unsigned Lane, uint64_t Random, uint64_t Default)> gen =
      nullptr;
};

inline unsigned regBytes(RegKind K) {
  switch (K) {
  case RegKind::H:
    return 2;
  case RegKind::R:
  case RegKind::F:
    return 4;
  default:
    return 8;
  }
}

inline std::string regName(RegKind K, char Role) {
  static const char *Prefix[] = {"%h", "%r", "%l", "%f", "%x"};
  return std::string(Prefix[int(K)]) + Role;
}

inline std::string ldType(RegKind K) {
  static const char *Names[] = {"b16", "b32", "b64", "f32", "f64"};
  return Names[int(K)];
}

/// The wrapper kernel `op_test(pd, pa, pb, pc, n)` around `C.body`.
inline std::string opKernelPtx(const OpCase &C) {
  std::string Body = C.body;
  auto Subst = [&](const std::string &Key, const std::string &Reg) {
    for (size_t P = Body.find(Key); P != std::string::npos; P = Body.find(Key, P + Reg.size()))
      Body.replace(P, Key.size(), Reg);
  };
  Subst("{d}", regName(C.d, 'd'));
  const char *Keys[] = {"{a}", "{b}", "{c}"};
  std::string Loads;
  for (size_t I = 0; I < C.srcs.size(); ++I) {
    char Role = char('a' + I);
    Subst(Keys[I], regName(C.srcs[I], Role));
    Loads += "  ld.param.u64 %ad, [p" + std::string(1, Role) + "];\n  mul.wide.u32 %off, %i, " +
             std::to_string(regBytes(C.srcs[I])) + ";\n  add.s64 %ad, %ad, %off;\n  ld.global." +
             ldType(C.srcs[I]) + " " + regName(C.srcs[I], Role) + ", [%ad];\n";
  }
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry op_test(.param .u64 pd, .param .u64 pa, .param .u64 pb, "
         ".param .u64 pc, .param .u32 pn)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b16 %hd, %ha, %hb, %hc, %ht;\n"
         "  .reg .b32 %rd, %ra, %rb, %rc, %rt, %i, %t1, %t2;\n"
         "  .reg .b64 %ld, %la, %lb, %lc, %lt, %ad, %off;\n"
         "  .reg .f32 %fd, %fa, %fb, %fc, %ft;\n  .reg .f64 %xd, %xa, %xb, %xc, %xt;\n"
         "  mov.u32 %t1, %ctaid.x;\n  mov.u32 %t2, %ntid.x;\n  mov.u32 %i, %tid.x;\n"
         "  mad.lo.s32 %i, %t1, %t2, %i;\n  ld.param.u32 %t1, [pn];\n"
         "  setp.ge.u32 %p1, %i, %t1;\n  @%p1 bra DONE;\n" +
         Loads + "  " + Body + "\n  ld.param.u64 %ad, [pd];\n  mul.wide.u32 %off, %i, " +
         std::to_string(regBytes(C.d)) + ";\n  add.s64 %ad, %ad, %off;\n  st.global." +
         ldType(C.d) + " [%ad], " + regName(C.d, 'd') + ";\nDONE:\n  ret;\n}\n";
}

/// Raw values to pack into a buffer of `Bytes`-wide elements.
inline std::vector<uint8_t> packElems(const std::vector<uint64_t> &V, unsigned Bytes) {
  std::vector<uint8_t> Out(V.size() * Bytes);
  for (size_t I = 0; I < V.size(); ++I)
    std::memcpy(&Out[I * Bytes], &V[I], Bytes); // little-endian host
  return Out;
}

inline std::string hex(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof Buf, "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

inline uint64_t maskBits(unsigned Bytes) {
  return Bytes == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * Bytes)) - 1;
}

/// Runs `C` over `Lanes` threads (edge cases first, then seeded random bits) and checks every
/// lane against `C.ref`. `Edges` lists interesting raw values per operand kind. True when every
/// lane matched (a caller's CHECK of it names the test's own instruction).
inline bool checkOp(const OpCase &C, const std::function<std::vector<uint64_t>(RegKind)> &Edges,
                    unsigned Lanes = 512, uint64_t Seed = 1) {
  INFO("instruction: " << C.body);
  std::string Text = opKernelPtx(C);
  auto M = ptx::parseModule(Text, "op_test.ptx");
  REQUIRE_MESSAGE(bool(M), support::errorText(M));
  auto P = analyzer::decodeProgram(*M);
  REQUIRE_MESSAGE(bool(P), support::errorText(P));
  auto Unsupported = P->unsupported("op_test");
  for (const support::Error &E : Unsupported)
    FAIL_CHECK(E.str());
  if (!Unsupported.empty())
    return false;
  std::mt19937_64 G(Seed);
  std::vector<std::vector<uint64_t>> In(3, std::vector<uint64_t>(Lanes, 0));
  for (size_t S = 0; S < C.srcs.size(); ++S) {
    std::vector<uint64_t> E = Edges(C.srcs[S]);
    uint64_t Mask = maskBits(regBytes(C.srcs[S]));
    for (unsigned L = 0; L < Lanes; ++L) {
      uint64_t R = G();
      // First half: operand S cycles through the edge list at its own rate, so every pair of
      // edge values of operands a and b meets; second half: random bits, a quarter edges.
      size_t Stride = S == 0 ? 1 : S == 1 ? E.size() : E.size() * E.size();
      uint64_t V = L < Lanes / 2    ? E[(L / Stride) % E.size()]
                   : (R >> 62) == 0 ? E[(R >> 8) % E.size()]
                                    : R;
      In[S][L] = (C.gen ? C.gen(unsigned(S), L, G(), V) : V) & Mask;
    }
  }
  analyzer::Device D;
  std::vector<analyzer::KernelArg> Args;
  Args.push_back(upload(D, "d", std::vector<uint8_t>(Lanes * regBytes(C.d))));
  const char *Names[] = {"a", "b", "c"};
  for (size_t S = 0; S < 3; ++S) {
    unsigned Bytes = S < C.srcs.size() ? regBytes(C.srcs[S]) : 4;
    Args.push_back(upload(D, Names[S], packElems(In[S], Bytes)));
  }
  Args.push_back(analyzer::KernelArg::u32(Lanes));
  if (!launch(*P, "op_test", {Lanes / 128, 1, 1}, {128, 1, 1}, Args, D))
    return false;
  std::vector<uint8_t> Out = download<uint8_t>(D, "d");
  unsigned DB = regBytes(C.d);
  size_t Bad = 0;
  for (unsigned L = 0; L < Lanes; ++L) {
    uint64_t Got = 0;
    std::memcpy(&Got, &Out[L * DB], DB);
    uint64_t Want = C.ref(In[0][L], In[1][L], In[2][L]) & maskBits(DB);
    if (Got != Want && ++Bad <= 4)
      FAIL_CHECK("lane " << L << ": a=" << hex(In[0][L]) << " b=" << hex(In[1][L])
                         << " c=" << hex(In[2][L]) << " got " << hex(Got) << " want " << hex(Want));
  }
  CHECK_MESSAGE(Bad == 0, Bad << " of " << Lanes << " lanes differ");
  return Bad == 0;
}

} // namespace reftest
