// PTX approximate instructions (PTX ISA 9.7.3): ex2/lg2/sin/cos/rsqrt/rcp/sqrt/tanh
// .approx and div.approx/div.full. Each is evaluated in double precision with the C library and
// rounded once to the destination type, which is far inside the ISA's stated error bounds; the
// bounds and our measured error are in docs/semantics.md.
#include "analyzer/ScalarOps.h"

#include "ScalarOpsCore.h"

#include <cmath>

namespace analyzer::scalar {
namespace {

/// Applies the approximate function F in double to an f32 input with .ftz on input and result.
template <class Fn> float approxF32(float A, bool Ftz, Fn F) {
  if (Ftz)
    A = flushF32(A);
  float R = float(F(double(A)));
  return canonF32(Ftz ? flushF32(R) : R);
}

double flushF64(double X) { return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0, X) : X; }

} // namespace

float ex2ApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return std::exp2(X); });
}
float lg2ApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return std::log2(X); });
}
float sinApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return std::sin(X); });
}
float cosApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return std::cos(X); });
}
float rsqrtApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return 1.0 / std::sqrt(X); });
}
float rcpApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return 1.0 / X; });
}
float sqrtApproxF32(float A, bool Ftz) {
  return approxF32(A, Ftz, [](double X) { return std::sqrt(X); });
}
float tanhApproxF32(float A) {
  return approxF32(A, false, [](double X) { return std::tanh(X); });
}

float divApproxF32(float A, float B, bool Ftz) {
  if (Ftz) {
    A = flushF32(A);
    B = flushF32(B);
  }
  float AbsB = std::fabs(B);
  if (AbsB > 8.507059173023462e37f && AbsB <= 3.4028234663852886e38f) // 2^126 < |b| < 2^128
    return std::isinf(A) ? f32FromBits(CanonicalNanF32)
                         : f32FromBits((f32Bits(A) ^ f32Bits(B)) & 0x80000000u);
  float R = float(double(A) / double(B));
  return canonF32(Ftz ? flushF32(R) : R);
}

float divFullF32(float A, float B, bool Ftz) { return divF32(A, B, FpMode{Round::Rn, Ftz, false}); }

double rcpApproxF64(double A) { return canonF64(flushF64(1.0 / flushF64(A))); }
double rsqrtApproxF64(double A) { return canonF64(1.0 / std::sqrt(A)); }

uint16_t ex2ApproxF16(uint16_t A) { return f64ToF16(std::exp2(double(f16ToF32(A))), Round::Rn); }
uint16_t ex2ApproxBF16(uint16_t A) { return f64ToBf16(std::exp2(double(bf16ToF32(A))), Round::Rn); }

} // namespace analyzer::scalar
