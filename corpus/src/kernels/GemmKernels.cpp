// Shared-memory tiled GEMM kernels: 1x1 convolution, implicit-GEMM convolution, dense layers.
#include "kernels/GemmShape.h"
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t Side = 16; // the block is Side x Side threads
constexpr uint32_t Threads = Side * Side;
constexpr uint32_t KStep = 16; // K advances KStep per shared-memory tile

/// The block's threads load the tile cooperatively, Rows * Cols / 256 elements each. Consecutive
/// threads walk the tile axis that is contiguous in global memory, so a warp's loads coalesce.
void loadTile(KernelBuilder &K, Value *Shared, const TileSource &T, Value *Linear) {
  IRBuilder<> &B = K.ir();
  const bool ColsContiguous = T.Im2col || T.UnitColStride || !T.UnitRowStride;
  for (uint32_t I = 0; I < T.Rows * T.Cols / Threads; ++I) {
    Value *L = B.CreateAdd(Linear, K.i32(I * Threads));
    Value *R = ColsContiguous ? B.CreateUDiv(L, K.i32(T.Cols)) : B.CreateURem(L, K.i32(T.Rows));
    Value *C = ColsContiguous ? B.CreateURem(L, K.i32(T.Cols)) : B.CreateUDiv(L, K.i32(T.Rows));
    Value *GR = B.CreateAdd(T.RowStart, R);
    Value *GC = B.CreateAdd(T.ColStart, C);
    Value *Slot = K.accumulator(0.0f);
    auto [Inside, Idx] = elementAt(K, T, GR, GC);
    K.ifThen(Inside, [&, Idx = Idx] { K.set(Slot, K.load(T.Role, Idx)); });
    K.storeShared(Shared, B.CreateAdd(B.CreateMul(R, K.i32(T.Cols + 1)), C), K.get(Slot));
  }
}

/// Stores the Micro x Micro outputs of thread (ty, tx): rows Row0 + ty + 16 i, columns
/// Col0 + tx + 16 j (consecutive threads write consecutive columns) of batch Img (index type).
void storeOutputs(KernelBuilder &K, const GemmShape &G, const Epilogue &E,
                  const std::vector<Value *> &Acc, Value *Row0, Value *Col0, Value *Img) {
  IRBuilder<> &B = K.ir();
  const uint32_t Mi = G.micro();
  for (uint32_t I = 0; I < Mi; ++I)
    for (uint32_t J = 0; J < Mi; ++J) {
      Value *Row = B.CreateAdd(Row0, K.i32(I * Side));
      Value *Col = B.CreateAdd(Col0, K.i32(J * Side));
      storeOutput(K, G, E, Acc[I * Mi + J], Row, Col, Img);
    }
}

/// The block's output tile of batch Img (index type): the K loop over shared-memory tiles, then
/// the stores.
void buildGemmTile(KernelBuilder &K, const GemmShape &G, const Epilogue &E, Value *Img) {
  IRBuilder<> &B = K.ir();
  const uint32_t Mi = G.micro(), Tile = G.tile();
  Value *Tx = K.tid(0), *Ty = K.tid(1);
  Value *Linear = B.CreateAdd(B.CreateMul(Ty, K.i32(Side)), Tx);
  Value *Col0 = B.CreateMul(K.ctaid(0), K.i32(Tile));
  Value *Row0 = B.CreateMul(K.ctaid(1), K.i32(Tile));
  if (!Img)
    Img = K.widen(K.ctaid(2));
  Value *As = K.sharedArray("a_tile", Tile * (KStep + 1));
  Value *Bs = K.sharedArray("b_tile", KStep * (Tile + 1));
  std::vector<Value *> Acc;
  for (uint32_t I = 0; I < Mi * Mi; ++I)
    Acc.push_back(K.accumulator(0.0f));
  Value *ABase = B.CreateMul(Img, G.V.ABatch);
  Value *BBase = B.CreateMul(Img, G.V.BBatch);
  K.forRange(K.i32(0), kTiles(K, G, KStep), 1, [&](Value *Kt) {
    Value *K0 = B.CreateMul(Kt, K.i32(KStep));
    loadTile(K, As, tileA(G, ABase, Row0, K0, Tile, KStep), Linear);
    loadTile(K, Bs, tileB(G, BBase, K0, Col0, KStep, Tile), Linear);
    K.barrier();
    K.forRange(0, KStep, [&](Value *Kk) {
      std::vector<Value *> A(Mi), Bv(Mi);
      for (uint32_t I = 0; I < Mi; ++I) {
        Value *Row = B.CreateAdd(Ty, K.i32(I * Side));
        A[I] = K.loadShared(As, B.CreateAdd(B.CreateMul(Row, K.i32(KStep + 1)), Kk));
        Value *Col = B.CreateAdd(Tx, K.i32(I * Side));
        Bv[I] = K.loadShared(Bs, B.CreateAdd(B.CreateMul(Kk, K.i32(Tile + 1)), Col));
      }
      for (uint32_t I = 0; I < Mi; ++I)
        for (uint32_t J = 0; J < Mi; ++J)
          K.set(Acc[I * Mi + J], K.fma(A[I], Bv[J], K.get(Acc[I * Mi + J])));
    });
    K.barrier();
  });
  storeOutputs(K, G, E, Acc, B.CreateAdd(Row0, Ty), B.CreateAdd(Col0, Tx), Img);
}

void buildGemmBody(KernelBuilder &K, GemmShape &G, const Epilogue &E) {
  bindGemm(K, G);
  if (G.BatchPerCta == 1) {
    buildGemmTile(K, G, E, nullptr); // batch = %ctaid.z
  } else {
    // Batches z * BatchPerCta + j, j < BatchPerCta (the last CTA stops at the batch's end);
    // the condition is uniform over the block, so the barriers inside stay block-wide.
    IRBuilder<> &B = K.ir();
    Value *First = B.CreateMul(K.widen(K.ctaid(2)), K.dimIx("batch_per_cta"));
    K.forRange(K.i32(0), K.dim("batch_per_cta"), 1, [&](Value *J) {
      Value *Img = B.CreateAdd(First, K.widen(J));
      K.ifThen(B.CreateICmpULT(Img, G.V.Batch), [&] { buildGemmTile(K, G, E, Img); });
    });
  }
  K.finish();
}

/// The CUDA-core GEMM's specialisations: the micro tile, and whether CTAs loop over batches.
std::string simtGemmKeys(const GemmShape &G) {
  return "_t" + std::to_string(G.tile()) + (G.BatchPerCta > 1 ? "_zloop" : "");
}

/// The launch of GEMM G (grid from its tile), and with a module its kernel.
KernelLaunch buildSimtGemm(Module *M, GemmShape G, const std::string &Name, KernelSet Set,
                           LaunchStrategy Strategy, DType T, const Epilogue &E,
                           const std::vector<ParamRole> &Roles, bool Wide, uint32_t GridZ,
                           const std::function<uint64_t(ParamRole)> &Count) {
  KernelLaunch L =
      makeLaunch(Name, Strategy, T, {ceilDiv(G.N, G.tile()), ceilDiv(G.M, G.tile()), GridZ},
                 {Side, Side, 1}, Roles, Count);
  const ShapeDims Dims = gemmDims(G);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, T, L, Wide, Dims);
  buildGemmBody(K, G, E);
  return L;
}

} // namespace

std::string libraryName(const GemmSpec &S) {
  if (S.rows < MinGemmRows)
    return libraryKernelName("gemv", S.dtype, S.epilogue, wideIndex(S));
  if (usesTensorCores(S))
    return libraryMmaName("dense", denseGemmShape(S), S.math, S.mmaArch, S.dtype, S.epilogue,
                          wideIndex(S));
  return libraryKernelName("dense" + simtGemmKeys(denseGemmShape(S)), S.dtype, S.epilogue,
                           wideIndex(S));
}

std::string libraryName(const BatchMatMulSpec &S) {
  if (usesTensorCores(S))
    return libraryMmaName("bmm", bmmGemmShape(S), S.math, S.mmaArch, S.dtype, {}, wideIndex(S));
  GemmShape G = bmmGemmShape(S);
  G.BatchPerCta = ceilDiv(S.batch, MaxGridYZ);
  return libraryKernelName("bmm" + simtGemmKeys(G), S.dtype, {}, wideIndex(S));
}

std::string libraryGemmName(const ConvSpec &S, ConvStrategy Resolved) {
  const bool Pointwise = Resolved == ConvStrategy::Gemm;
  GemmShape G = Pointwise ? convGemmShape(S) : implicitGemmShape(S);
  G.Blocked = blockedFilters(S, Resolved); // as buildMmaConv builds it (the tile rule reads it)
  const std::string Body =
      Pointwise ? "conv_gemm" : "conv_igemm" + convWindowKeys(S) + (G.Blocked ? "_oihw16i" : "");
  if (usesTensorCores(S, Resolved))
    return libraryMmaName(Body, G, S.math, S.mmaArch, S.dtype, S.epilogue, wideIndex(S));
  return libraryKernelName(Body + simtGemmKeys(G), S.dtype, S.epilogue, wideIndex(S));
}

KernelLaunch buildConvGemm(Module *M, const ConvSpec &S, const std::string &Name, KernelSet Set) {
  // Out[b][cout][pix] = sum_cin W[cout][cin] * In[b][cin][pix]: A = weights, B = the image.
  return buildSimtGemm(M, convGemmShape(S), Name, Set, LaunchStrategy::ConvGemm, S.dtype,
                       S.epilogue, gemmRoles(S.epilogue), wideIndex(S), S.batch,
                       [&](ParamRole R) { return convParamElements(S, R); });
}

KernelLaunch buildImplicitGemmConv(Module *M, const ConvSpec &S, const std::string &Name,
                                   KernelSet Set) {
  // Out[b][cout][pix] = sum_k W[cout][k] * im2col(In[b])[k][pix], k = (cin, kh, kw).
  return buildSimtGemm(M, implicitGemmShape(S), Name, Set, LaunchStrategy::ConvImplicitGemm,
                       S.dtype, S.epilogue, gemmRoles(S.epilogue), wideIndex(S), S.batch,
                       [&](ParamRole R) { return convParamElements(S, R); });
}

KernelLaunch buildDenseGemv(Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set) {
  constexpr uint32_t WarpsPerBlock = 8;
  std::vector<ParamRole> Roles = gemmRoles(S.epilogue);
  KernelLaunch L = makeLaunch(
      Name, LaunchStrategy::DenseGemv, S.dtype, {ceilDiv(S.outFeatures, WarpsPerBlock), S.rows, 1},
      {32 * WarpsPerBlock, 1, 1}, Roles, [&](ParamRole R) { return denseParamElements(S, R); });
  const ShapeDims Dims = {{"k", S.inFeatures}, {"n", S.outFeatures}};
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0), *Row = K.ctaid(1);
  Value *Lane = B.CreateAnd(Tid, K.i32(31));
  Value *O =
      B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(WarpsPerBlock)), B.CreateLShr(Tid, K.i32(5)));
  // One warp per output feature; the whole warp exits together, so shuffles stay full-warp.
  K.ifThen(B.CreateICmpULT(O, K.dim("n")), [&] {
    Value *XBase = B.CreateMul(K.widen(Row), K.dimIx("k"));
    Value *Ow = K.widen(O);
    Value *WBase = B.CreateMul(Ow, K.dimIx("k"));
    Value *Acc = K.accumulator(0.0f);
    K.forRange(Lane, K.dim("k"), 32, [&](Value *I) {
      Value *X = K.load(ParamRole::Input, B.CreateAdd(XBase, K.widen(I)));
      Value *W = K.load(ParamRole::Weight, B.CreateAdd(WBase, K.widen(I)));
      K.set(Acc, K.fma(X, W, K.get(Acc)));
    });
    Value *Sum = K.warpSum(K.get(Acc));
    K.ifThen(B.CreateICmpEQ(Lane, K.i32(0)), [&] {
      Value *Out = B.CreateAdd(B.CreateMul(K.widen(Row), K.dimIx("n")), Ow);
      K.store(ParamRole::Output, Out, K.epilogue(S.epilogue, Sum, Ow, Ow, Out));
    });
  });
  K.finish();
  return L;
}

KernelLaunch buildDenseGemm(Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set) {
  // Y[r][o] = sum_i X[r][i] * W[o][i]: A = activations, B(k = i, n = o) = W[o][i].
  return buildSimtGemm(M, denseGemmShape(S), Name, Set, LaunchStrategy::DenseGemm, S.dtype,
                       S.epilogue, gemmRoles(S.epilogue), wideIndex(S), 1,
                       [&](ParamRole R) { return denseParamElements(S, R); });
}

KernelLaunch buildBatchMatMul(Module *M, const BatchMatMulSpec &S, const std::string &Name,
                              KernelSet Set) {
  // torch.bmm: C[b] (m x k) = A[b] (m x n) x B[b] (n x k), row-major; GEMM M = m, N = k, K = n.
  GemmShape G = bmmGemmShape(S);
  G.BatchPerCta = ceilDiv(S.batch, MaxGridYZ);
  return buildSimtGemm(M, G, Name, Set, LaunchStrategy::BmmGemm, S.dtype, {},
                       {ParamRole::Input, ParamRole::Input2, ParamRole::Output}, wideIndex(S),
                       ceilDiv(S.batch, G.BatchPerCta),
                       [&](ParamRole R) { return bmmParamElements(S, R); });
}

} // namespace corpus::kernels
