// CPU references for the test kernels, following each kernel file's stated semantics and order.
#include "ReferenceKernels.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace reftest {
namespace {

/// Lane values after a shfl.down tree (offsets 16..1): lane l adds lane l+off's value, or its own
/// value when l+off >= 32 (shfl.down returns the caller's own value out of range).
float warpSumDown(std::vector<float> V) {
  for (int Off = 16; Off > 0; Off >>= 1) {
    std::vector<float> N(32);
    for (int L = 0; L < 32; ++L)
      N[L] = V[L] + (L + Off < 32 ? V[L + Off] : V[L]);
    V = N;
  }
  return V[0];
}

/// Butterfly (shfl.xor) reduction: every lane ends with the same value.
template <class Op> std::vector<float> butterfly(std::vector<float> V, Op O) {
  for (int Off = 16; Off > 0; Off >>= 1) {
    std::vector<float> N(32);
    for (int L = 0; L < 32; ++L)
      N[L] = O(V[L], V[L ^ Off]);
    V = N;
  }
  return V;
}

float bitsToFloat(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}
uint32_t floatToBits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

} // namespace

std::vector<float> matmul(const std::vector<float> &A, const std::vector<float> &B, int M, int N,
                          int K) {
  std::vector<float> C(size_t(M) * N);
  int Padded = (K + 15) / 16 * 16;
  for (int R = 0; R < M; ++R)
    for (int Col = 0; Col < N; ++Col) {
      float Acc = 0.0f;
      for (int I = 0; I < Padded; ++I) {
        float X = I < K ? A[size_t(R) * K + I] : 0.0f, Y = I < K ? B[size_t(I) * N + Col] : 0.0f;
        Acc = std::fmaf(X, Y, Acc);
      }
      C[size_t(R) * N + Col] = Acc;
    }
  return C;
}

std::vector<float> conv2d(const std::vector<float> &In, const std::vector<float> &W,
                          const std::vector<float> &Bias, const ConvShape &S) {
  int P = S.p(), Q = S.q();
  std::vector<float> Out(size_t(S.n) * S.k * P * Q);
  size_t G = 0;
  for (int N = 0; N < S.n; ++N)
    for (int K = 0; K < S.k; ++K)
      for (int Pp = 0; Pp < P; ++Pp)
        for (int Qq = 0; Qq < Q; ++Qq, ++G) {
          float Acc = Bias[K];
          for (int C = 0; C < S.c; ++C)
            for (int R = 0; R < S.r; ++R)
              for (int Ss = 0; Ss < S.s; ++Ss) {
                int H = Pp * S.strideH - S.padH + R, X = Qq * S.strideW - S.padW + Ss;
                if (H < 0 || H >= S.h || X < 0 || X >= S.w)
                  continue;
                float V = In[((size_t(N) * S.c + C) * S.h + H) * S.w + X];
                float Wt = W[((size_t(K) * S.c + C) * S.r + R) * S.s + Ss];
                Acc = std::fmaf(V, Wt, Acc);
              }
          Out[G] = Acc;
        }
  return Out;
}

std::vector<float> depthwise3x3(const std::vector<float> &In, const std::vector<float> &W, int N,
                                int C, int H, int Wd, int Pad, int Stride) {
  int P = (H + 2 * Pad - 3) / Stride + 1, Q = (Wd + 2 * Pad - 3) / Stride + 1;
  std::vector<float> Out(size_t(N) * C * P * Q);
  size_t G = 0;
  for (int Nn = 0; Nn < N; ++Nn)
    for (int Cc = 0; Cc < C; ++Cc)
      for (int Pp = 0; Pp < P; ++Pp)
        for (int Qq = 0; Qq < Q; ++Qq, ++G) {
          float Acc = 0.0f;
          for (int R = 0; R < 3; ++R)
            for (int S = 0; S < 3; ++S) {
              int Hh = Pp * Stride - Pad + R, X = Qq * Stride - Pad + S;
              if (Hh < 0 || Hh >= H || X < 0 || X >= Wd)
                continue;
              Acc = std::fmaf(In[((size_t(Nn) * C + Cc) * H + Hh) * Wd + X],
                              W[(size_t(Cc) * 3 + R) * 3 + S], Acc);
            }
          Out[G] = Acc;
        }
  return Out;
}

std::vector<float> pool2d(const std::vector<float> &In, bool Max, const ConvShape &S) {
  int P = S.p(), Q = S.q();
  std::vector<float> Out(size_t(S.n) * S.c * P * Q);
  size_t G = 0;
  for (int N = 0; N < S.n; ++N)
    for (int C = 0; C < S.c; ++C)
      for (int Pp = 0; Pp < P; ++Pp)
        for (int Qq = 0; Qq < Q; ++Qq, ++G) {
          float M = -INFINITY, Sum = 0.0f;
          int Count = 0;
          for (int R = 0; R < S.r; ++R)
            for (int Ss = 0; Ss < S.s; ++Ss) {
              int H = Pp * S.strideH - S.padH + R, X = Qq * S.strideW - S.padW + Ss;
              if (H < 0 || H >= S.h || X < 0 || X >= S.w)
                continue;
              float V = In[((size_t(N) * S.c + C) * S.h + H) * S.w + X];
              M = std::fmax(M, V);
              Sum += V;
              ++Count;
            }
          Out[G] = Max ? M : (Count > 0 ? Sum / float(Count) : 0.0f);
        }
  return Out;
}

std::vector<float> softmaxRows(const std::vector<float> &In, int Rows, int Cols) {
  std::vector<float> Out(In.size());
  for (int Row = 0; Row < Rows; ++Row) {
    const float *X = &In[size_t(Row) * Cols];
    float *Y = &Out[size_t(Row) * Cols];
    std::vector<float> M(32, -INFINITY), S(32, 0.0f);
    for (int L = 0; L < 32; ++L)
      for (int J = L; J < Cols; J += 32)
        M[L] = std::fmax(M[L], X[J]);
    float Mx = butterfly(M, [](float A, float B) { return std::fmax(A, B); })[0];
    for (int L = 0; L < 32; ++L)
      for (int J = L; J < Cols; J += 32) {
        float E = float(std::exp(double(X[J] - Mx)));
        Y[J] = E;
        S[L] += E;
      }
    std::vector<float> Sums = butterfly(S, [](float A, float B) { return A + B; });
    for (int L = 0; L < 32; ++L) { // each lane uses its own (bitwise equal) butterfly sum
      float Inv = 1.0f / Sums[L];
      for (int J = L; J < Cols; J += 32)
        Y[J] = Y[J] * Inv;
    }
  }
  return Out;
}

std::vector<float> reduceSum(const std::vector<float> &In, int Grid, int Block) {
  int N = int(In.size()), Stride = Grid * Block;
  std::vector<float> Partial(Grid);
  for (int B = 0; B < Grid; ++B) {
    std::vector<float> WarpSums;
    for (int W = 0; W < Block / 32; ++W) {
      std::vector<float> Lanes(32, 0.0f);
      for (int L = 0; L < 32; ++L)
        for (int I = B * Block + W * 32 + L; I < N; I += Stride)
          Lanes[L] += In[I];
      WarpSums.push_back(warpSumDown(Lanes));
    }
    std::vector<float> V(32, 0.0f);
    for (size_t L = 0; L < WarpSums.size(); ++L)
      V[L] = WarpSums[L];
    Partial[B] = warpSumDown(V);
  }
  return Partial;
}

void histogram256(const std::vector<uint8_t> &Data, std::vector<uint32_t> &Bins) {
  for (uint8_t V : Data)
    ++Bins[V];
}

std::vector<int32_t> blockScan(const std::vector<int32_t> &In, int Block) {
  std::vector<int32_t> Out(In.size());
  uint32_t Acc = 0;
  for (size_t I = 0; I < In.size(); ++I) {
    if (I % size_t(Block) == 0)
      Acc = 0;
    Acc += uint32_t(In[I]);
    Out[I] = int32_t(Acc);
  }
  return Out;
}

std::vector<int32_t> divergentBranches(const std::vector<int32_t> &In, int Block) {
  std::vector<int32_t> Out(In.size());
  for (size_t G = 0; G < In.size(); ++G) {
    int Tid = int(G % size_t(Block));
    int32_t V = In[G];
    V = Tid % 2 == 0 ? int32_t(uint32_t(V) * 3u + 1u) : int32_t(uint32_t(V / 2) - 7u);
    if (Tid % 4 == 0)
      V ^= 0x55;
    uint32_t Acc = 0;
    int Outer = In[G] & 7, Inner = Tid % 5;
    for (int I = 0; I < Outer; ++I)
      for (int J = 0; J < Inner; ++J)
        Acc += uint32_t(((I + 1) * (J + 2)) ^ V);
    Out[G] = int32_t(uint32_t(V) + Acc);
  }
  return Out;
}

std::vector<int32_t> fibOf(const std::vector<int32_t> &In) {
  std::vector<int32_t> Fib(16);
  Fib[0] = 0;
  Fib[1] = 1;
  for (int I = 2; I < 16; ++I)
    Fib[I] = Fib[I - 1] + Fib[I - 2];
  std::vector<int32_t> Out;
  for (int32_t V : In)
    Out.push_back(Fib[V & 15]);
  return Out;
}

std::vector<float> callPoly(const std::vector<float> &X, int K) {
  auto Poly = [K](float V) {
    float R = float(K + 1);
    for (int I = K - 1; I >= 0; --I)
      R = std::fmaf(R, V, float(I + 1));
    return R;
  };
  std::vector<float> Y;
  for (float V : X)
    Y.push_back(Poly(V) + Poly(-V));
  return Y;
}

std::vector<float> saxpy(float A, const std::vector<float> &X, const std::vector<float> &Y) {
  std::vector<float> Out(Y.size());
  for (size_t I = 0; I < Y.size(); ++I)
    Out[I] = std::fmaf(A, X[I], Y[I]);
  return Out;
}

std::vector<float> biasRelu(const std::vector<float> &X, const std::vector<float> &Bias, int C,
                            int Inner) {
  std::vector<float> Out(X.size());
  for (size_t I = 0; I < X.size(); ++I)
    Out[I] = std::fmax(X[I] + Bias[(I / size_t(Inner)) % size_t(C)], 0.0f);
  return Out;
}

std::vector<float> halfOps(const std::vector<float> &X, const std::vector<float> &Y) {
  std::vector<float> Out;
  for (size_t G = 0; G < X.size(); ++G) {
    _Float16 A = _Float16(X[G]), B = _Float16(Y[G]); // round to nearest even
    double Da = double(A), Db = double(B);
    _Float16 H1 = _Float16(Da * Db + Da); // exact in double, then one rounding
    _Float16 M = _Float16(Da * Db);
    _Float16 H2 = _Float16(double(M) + Db);
    _Float16 Lo = _Float16(double(M) + 1.0), Hi = _Float16(double(_Float16(Db * Da)) + 1.0);
    _Float16 Hm = Da >= Db ? A : B;
    Out.push_back(float(H1));
    Out.push_back(float(H2));
    Out.push_back(float(Lo) + float(Hi));
    Out.push_back(float(Hm));
  }
  return Out;
}

std::vector<float> bf16Convert(const std::vector<float> &X) {
  std::vector<float> Out;
  for (float V : X) {
    uint32_t B = floatToBits(V);
    uint32_t Rn = (B + 0x7fffu + ((B >> 16) & 1u)) & 0xffff0000u; // round to nearest even
    Out.push_back(bitsToFloat(Rn));
    Out.push_back(bitsToFloat(B & 0xffff0000u)); // toward zero: truncate
  }
  return Out;
}

/// One thread's atomics in atomics.cu (both kernels): add, sub, min, max, exch 42, add on the
/// signed counters S[0..5]; and, or, xor, inc 9, dec 9 on the unsigned ones U[0..4]. G is the
/// thread's global index.
static void atomicStep(int32_t *S, uint32_t *U, int32_t V, size_t G) {
  S[0] = int32_t(uint32_t(S[0]) + uint32_t(V));
  S[1] = int32_t(uint32_t(S[1]) - uint32_t(V));
  S[2] = std::min(S[2], V);
  S[3] = std::max(S[3], V);
  S[4] = 42;
  S[5] = int32_t(uint32_t(S[5]) + uint32_t(V));
  U[0] &= ~(1u << (G & 31));
  U[1] |= 1u << (G & 31);
  U[2] ^= uint32_t(V);
  U[3] = U[3] >= 9u ? 0u : U[3] + 1;
  U[4] = (U[4] == 0 || U[4] > 9u) ? 9u : U[4] - 1;
}

AtomicsGlobal atomicsGlobal(const std::vector<int32_t> &Vals, std::vector<int32_t> C,
                            std::vector<uint32_t> U) {
  for (size_t G = 0; G < Vals.size(); ++G) {
    atomicStep(C.data(), U.data(), Vals[G], G);
    ++U[5]; // the ticket counter (atomicAdd whose return value is used)
  }
  return {C, U};
}

std::vector<int32_t> atomicsShared(const std::vector<int32_t> &Vals, int Grid, int Block) {
  std::vector<int32_t> Out;
  for (int B = 0; B < Grid; ++B) {
    size_t Lo = size_t(B) * Block, Hi = std::min(Vals.size(), Lo + size_t(Block));
    std::vector<int32_t> S = {0, 0, INT_MAX, INT_MIN, 0, 0}; // thread 0's initial values
    std::vector<uint32_t> Su = {~0u, 0, 0, 0, 0};
    for (size_t G = Lo; G < Hi; ++G)
      atomicStep(S.data(), Su.data(), Vals[G], G);
    for (int J = 0; J < 6; ++J)
      Out.push_back(S[J]);
    for (int J = 0; J < 5; ++J)
      Out.push_back(int32_t(Su[J]));
  }
  return Out;
}

std::vector<float> straightLine(int Threads) {
  std::vector<float> Out;
  for (int G = 0; G < Threads; ++G) {
    float F = float(G);
    Out.push_back(std::fmaf(F, 0.5f, 2.0f) * F - 1.0f);
  }
  return Out;
}

std::vector<float> countedLoop(int Threads, float A) {
  std::vector<float> Out;
  for (int G = 0; G < Threads; ++G) {
    float Acc = 1.0f;
    for (int I = 0; I < 10; ++I)
      Acc = std::fmaf(Acc, A, float(I));
    Out.push_back(Acc);
  }
  return Out;
}

std::vector<float> gridStride(const std::vector<float> &X, int Threads) {
  std::vector<float> Out = X;
  for (int G = 0; G < Threads; ++G)
    for (size_t I = size_t(G); I < Out.size(); I += size_t(Threads))
      Out[I] = Out[I] * 2.0f;
  return Out;
}

std::vector<int32_t> loopLl(int N, int Grid, int Block) {
  std::vector<int32_t> Out;
  for (int B = 0; B < Grid; ++B)
    for (int T = 0; T < Block; ++T) {
      uint32_t S = 0;
      for (int K = 0; K < N; ++K)
        S += uint32_t(K) * uint32_t(T) + 1u;
      Out.push_back(int32_t(S));
    }
  return Out;
}

std::vector<float> sharedReduceLl(const std::vector<float> &In, int Grid) {
  std::vector<float> Out;
  for (int B = 0; B < Grid; ++B) {
    std::vector<float> Buf(In.begin() + size_t(B) * 256, In.begin() + size_t(B + 1) * 256);
    for (int Stride = 128; Stride >= 1; Stride >>= 1)
      for (int T = 0; T < Stride; ++T)
        Buf[T] = Buf[T] + Buf[T + Stride];
    Out.push_back(Buf[0]);
  }
  return Out;
}

} // namespace reftest
