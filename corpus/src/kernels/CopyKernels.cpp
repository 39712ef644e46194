// Strided copies (Transpose, Slice, Split): the plan that merges dimensions, the spec's checks
// and names, and the kernel, one thread per output element as PyTorch's elementwise copy of a
// non-contiguous view (its OffsetCalculator divides the linear index by each dimension).
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <algorithm>
#include <cassert>

using namespace llvm;

namespace corpus {

namespace {

constexpr uint32_t CopyBlock = 256;

uint64_t copyCount(const CopySpec &S) {
  uint64_t N = 1;
  for (uint64_t D : S.dims)
    N *= D;
  return N;
}

/// Shape argument names: "d0", "s0", ... (appended: GCC 12 warns on "d" + std::to_string).
std::string argName(char Prefix, size_t K) {
  std::string N(1, Prefix);
  return N.append(std::to_string(K));
}
/// Grid x covers the innermost dimension in blocks of 256 threads; y, and z past 65535, the rows
/// (every index of the outer dimensions). A row's CTAs differ from another row's only by base
/// address, which is what fast mode's sampling classes and residue strata expect.
struct CopyGrid {
  uint64_t inner, rows;
  uint32_t gx, gy, gz;
};

CopyGrid copyGrid(const CopySpec &S) {
  CopyGrid G;
  G.inner = S.dims.back();
  G.rows = copyCount(S) / G.inner;
  G.gx = uint32_t(std::min<uint64_t>((G.inner + CopyBlock - 1) / CopyBlock, kernels::MaxGridX));
  G.gy = uint32_t(std::min<uint64_t>(G.rows, kernels::MaxGridYZ));
  G.gz = uint32_t(std::min<uint64_t>((G.rows + G.gy - 1) / G.gy, kernels::MaxGridYZ));
  return G;
}

std::string dimName(size_t K) { return argName('d', K); }
std::string strideName(size_t K) { return argName('s', K); }

} // namespace

namespace {

/// S with `Dims` / `Strides` (outermost first) after dropping dimensions of one element and
/// merging neighbours where the outer stride is the inner one's span; nullopt when the copy is
/// the whole input in its own order (a view).
std::optional<CopySpec> mergeCopy(CopySpec S, const std::vector<uint64_t> &Dims,
                                  const std::vector<uint64_t> &Strides) {
  std::vector<uint64_t> D, St; // innermost first while merging
  for (size_t K = Dims.size(); K-- > 0;) {
    if (Dims[K] == 1)
      continue;
    if (!D.empty() && Strides[K] == St.back() * D.back()) {
      D.back() *= Dims[K];
      continue;
    }
    D.push_back(Dims[K]);
    St.push_back(Strides[K]);
  }
  if (D.empty()) {
    D = {1};
    St = {1};
  }
  S.dims.assign(D.rbegin(), D.rend());
  S.strides.assign(St.rbegin(), St.rend());
  if (S.dims.size() == 1 && S.strides[0] == 1 && S.offset == 0 && S.dims[0] == S.inputElements)
    return std::nullopt;
  return S;
}

} // namespace

std::optional<CopySpec> planCopy(const std::vector<uint64_t> &In, const std::vector<CopyAxis> &Axes,
                                 const std::vector<size_t> &Perm, DType T) {
  assert(Axes.size() == In.size() && Perm.size() == In.size() && "one axis per dimension");
  std::vector<uint64_t> Contiguous(In.size(), 1); // the input's own strides
  for (size_t D = In.size(); D-- > 1;)
    Contiguous[D - 1] = Contiguous[D] * In[D];
  CopySpec S;
  S.dtype = T;
  S.inputElements = In.empty() ? 1 : Contiguous[0] * In[0];
  for (size_t D = 0; D < In.size(); ++D)
    S.offset += Axes[D].start * Contiguous[D];
  std::vector<uint64_t> Dims, Strides;
  for (size_t P : Perm) {
    Dims.push_back(Axes[P].count);
    Strides.push_back(Axes[P].step * Contiguous[P]);
  }
  return mergeCopy(S, Dims, Strides);
}

std::optional<CopySpec> planUpsample(uint64_t Planes, uint64_t H, uint64_t W, uint64_t ScaleH,
                                     uint64_t ScaleW, DType T) {
  CopySpec S;
  S.dtype = T;
  S.inputElements = Planes * H * W;
  // [planes, H, scaleH, W, scaleW]: the repeats read the same element (stride 0).
  return mergeCopy(S, {Planes, H, ScaleH, W, ScaleW}, {H * W, W, 0, 1, 0});
}

namespace kernels {

std::optional<std::string> validate(const CopySpec &S) {
  if (S.dims.empty() || S.dims.size() > MaxCopyRank)
    return "copy: " + std::to_string(S.dims.size()) + " dimensions after merging (1 to " +
           std::to_string(MaxCopyRank) + " are supported)";
  if (S.strides.size() != S.dims.size())
    return std::string("copy: one stride per dimension");
  uint64_t Last = S.offset; // the input element of the last output element
  for (size_t K = 0; K < S.dims.size(); ++K) {
    if (!S.dims[K])
      return std::string("copy: zero-sized dimension");
    Last += (S.dims[K] - 1) * S.strides[K];
  }
  if (Last >= S.inputElements)
    return "copy: reads element " + std::to_string(Last) + " of an input of " +
           std::to_string(S.inputElements);
  if ((S.dims.back() + CopyBlock - 1) / CopyBlock > MaxGridX)
    return std::string("copy: more than 2^31 - 1 blocks of 256 threads (grid x)");
  if (copyCount(S) / S.dims.back() > uint64_t(MaxGridYZ) * MaxGridYZ)
    return std::string("copy: more than 65535 x 65535 rows (grid y and z)");
  return std::nullopt;
}

bool wideIndex(const CopySpec &S) {
  return S.index64 || std::max(copyCount(S), S.inputElements) >= WideIndexElements;
}

std::string libraryName(const CopySpec &S) {
  std::string Body = "copy_r";
  return libraryKernelName(Body.append(std::to_string(S.dims.size())), S.dtype, {}, wideIndex(S));
}

std::string kernelName(const CopySpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  std::string N = "copy";
  for (size_t K = 0; K < S.dims.size(); ++K)
    N.append("_").append(std::to_string(S.dims[K])).append("s").append(std::to_string(S.strides[K]));
  N.append("_at").append(std::to_string(S.offset)).append("_of");
  N.append(std::to_string(S.inputElements)).append(S.dtype == DType::F16 ? "_f16" : "_f32");
  return shorten(N.append(wideIndex(S) ? "_i64" : ""));
}

KernelLaunch buildCopy(Module *M, const CopySpec &S, const std::string &Name, KernelSet Set) {
  const CopyGrid G = copyGrid(S);
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelLaunch L = makeLaunch(
      Name, LaunchStrategy::CopyStrided, S.dtype, {G.gx, G.gy, G.gz}, {CopyBlock, 1, 1}, Roles,
      [&](ParamRole R) { return R == ParamRole::Input ? S.inputElements : copyCount(S); });
  const size_t Rank = S.dims.size();
  ShapeDims Dims = {{"inner", G.inner}, {"rows", G.rows}, {"gy", G.gy}, {"offset", S.offset}};
  for (size_t K = 0; K < Rank; ++K) {
    if (K > 0 && K + 1 < Rank) // the dimensions a row index is divided by
      Dims.push_back({dimName(K), S.dims[K], true});
    Dims.push_back({strideName(K), S.strides[K]});
  }
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Value *X = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(0)), K.ix(CopyBlock)), K.widen(K.tid(0)), "x");
  Value *Row = K.widen(B.CreateAdd(B.CreateMul(K.ctaid(2), K.dim("gy")), K.ctaid(1)));
  Value *In =
      B.CreateAnd(B.CreateICmpULT(X, K.dimIx("inner")), B.CreateICmpULT(Row, K.dimIx("rows")));
  K.ifThen(In, [&] {
    // The row's coordinates, innermost first, then the element's own.
    Value *From = B.CreateAdd(K.dimIx("offset"), B.CreateMul(X, K.dimIx(strideName(Rank - 1))));
    Value *Rest = Row;
    for (size_t D = Rank - 1; D-- > 1;) {
      Value *Q = K.udiv(Rest, dimName(D));
      Value *Coord = B.CreateSub(Rest, B.CreateMul(Q, K.dimIx(dimName(D))));
      From = B.CreateAdd(From, B.CreateMul(Coord, K.dimIx(strideName(D))));
      Rest = Q;
    }
    if (Rank > 1)
      From = B.CreateAdd(From, B.CreateMul(Rest, K.dimIx(strideName(0))));
    // The bytes as they are: no conversion through f32.
    const Align A(K.storageType()->getPrimitiveSizeInBits() / 8);
    Value *V = B.CreateAlignedLoad(K.storageType(), K.elementPtr(ParamRole::Input, From), A);
    Value *To = B.CreateAdd(B.CreateMul(Row, K.dimIx("inner")), X);
    B.CreateAlignedStore(V, K.elementPtr(ParamRole::Output, To), A);
  });
  K.finish();
  return L;
}

} // namespace kernels
} // namespace corpus
