// Video instructions (PTX ISA 9.7.17 scalar, 9.7.18 SIMD) on hand-picked operands, each result
// derived by hand from the ISA's pseudo-code (comments give the arithmetic).
#include "InterpTestUtil.h"

using namespace interp_test;

TEST_CASE("video instructions: selectors, .sat, secondary operations, merges, vmad, SIMD") {
  // a = 0x80FF7F01 (bytes 01 7F FF 80), b = 0x01020304 (bytes 04 03 02 01), c = 0x11223344.
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0x80FF7F01;
  mov.u32 %r2, 0x01020304;
  mov.u32 %r3, 0x11223344;
  vadd.u32.u32.u32 %r4, %r1.b0, %r2.b1;
  vadd.s32.s32.s32.sat %r5, %r1.b1, %r2.b0;
  vadd.s32.s32.s32.sat %r6.b0, %r1.b1, %r2.b0, %r3;
  vsub.s32.s32.s32 %r7, %r1.b3, %r2.b3;
  vabsdiff.u32.u32.u32.add %r8, %r1.h0, %r2.h1, %r3;
  vmin.s32.s32.s32.max %r9, %r1.h1, %r2.h0, %r3;
  vmax.u32.u32.u32 %r10, %r1, %r2;
  vshl.u32.u32.u32.clamp %r11, %r2.b0, %r1.b0;
  vshr.s32.s32.u32.wrap %r12, %r1.h1, %r2.b3;
  vset.u32.u32.lt %r13, %r1.b0, %r2.b0;
  vmad.s32.s32.s32 %r14, %r1.b1, %r2.b0, %r3;
  vmad.s32.s32.s32.shr7 %r15, -%r1.b1, %r2.b0, %r3;
  vadd2.u32.u32.u32 %r16, %r1, %r2, %r3;
  vadd2.s32.s32.s32.sat %r17, %r1, %r2, %r3;
  vavrg4.u32.u32.u32 %r18, %r1, %r2, %r3;
  vmax4.s32.s32.s32 %r19.b20, %r1, %r2, %r3;
  vset2.u32.u32.ne.add %r20, %r1, %r2, %r3;
  vabsdiff4.u32.u32.u32.add %r21, %r1, %r2, %r3;
  vsub4.s32.s32.s32 %r22, %r1.b7654, %r2.b3210, %r3;
  st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%rd1+16], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd1+32], {%r12, %r13, %r14, %r15};
  st.global.v4.u32 [%rd1+48], {%r16, %r17, %r18, %r19};
  st.global.v4.u32 [%rd1+64], {%r20, %r21, %r22, %r3};
  ret;
}
)";
  const std::vector<uint32_t> Want = {
      4,          // 0x01 + 0x03
      131,        // 127 + 4, within s32
      0x1122337F, // 131 saturated to the s8 byte it merges into c's byte 0
      0xFFFFFF7F, // -128 - 1
      0x1122B143, // |0x7F01 - 0x0102| + c
      0x11223344, // max(min(-32513, 772), c)
      0x80FF7F01, // unsigned max
      8,          // 4 << 1
      0xFFFFC07F, // -32513 >> 1, arithmetic
      1,          // 1 < 4
      0x11223540, // 127 * 4 + c
      0x00224462, // (-(127 * 4) + c) >> 7
      0x82018205, // 0x7F01 + 0x0304, 0x80FF + 0x0102
      0x82017FFF, // 32513 + 772 saturated to 32767; -32513 + 258
      0x41814103, // byte averages (1+4+1)>>1, (127+3+1)>>1, (255+2+1)>>1, (128+1+1)>>1
      0x11023304, // signed byte maxima 4, 127, 2, 1 into bytes 0 and 2, c's bytes 1 and 3
      0x11223346, // two unequal halves: 1 + 1 + c
      0x1122353F, // |1-4| + |127-3| + |255-2| + |128-1| + c
      0x81038403, // b's bytes minus a's (signed): 3, -124, 3, 129
      0x11223344};
  CHECK(runOut(Body, "k", 20) == Want);
}
