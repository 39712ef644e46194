// Convolution layers (LayerKinds.def: Conv): the shape rule, the lowering (with a zero Pad folded
// in, Pad.cpp), ONNX Conv, and ONNX ConvTranspose as phase convolutions and a pixel shuffle.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>
#include <optional>

namespace corpus {

namespace layershapes {

LayerResult inferConv(const InShapes &In, const ConvAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.outChannels <= 0 || A.kernelH <= 0 || A.kernelW <= 0 || A.strideH <= 0 || A.strideW <= 0 ||
      A.dilationH <= 0 || A.dilationW <= 0 || A.groups <= 0)
    return fail("sizes, strides, dilations and groups must be positive");
  if (A.padTop < 0 || A.padLeft < 0 || A.padBottom < 0 || A.padRight < 0)
    return fail("negative padding");
  int64_t Cin = X[1];
  if (Cin % A.groups != 0)
    return fail("input has " + str(Cin) + " channels, not divisible by groups=" + str(A.groups));
  if (A.outChannels % A.groups != 0)
    return fail(str(A.outChannels) + " output channels, not divisible by groups=" + str(A.groups));
  int64_t Ho = windowOut(X[2], A.padTop, A.padBottom, A.kernelH, A.strideH, A.dilationH, false);
  int64_t Wo = windowOut(X[3], A.padLeft, A.padRight, A.kernelW, A.strideW, A.dilationW, false);
  if (Ho <= 0 || Wo <= 0)
    return fail(str(A.kernelH) + "x" + str(A.kernelW) + " kernel does not fit input " +
                shapeStr(X));
  LayerResult R;
  R.shape = {X[0], A.outChannels, Ho, Wo};
  // Counts saturate: past the limits (Network::add) they are errors, not wrapped values.
  int64_t PerOutput = saturatingMul(saturatingMul(Cin / A.groups, A.kernelH), A.kernelW);
  R.params = saturatingAdd(saturatingMul(A.outChannels, PerOutput), A.bias ? A.outChannels : 0);
  R.macs = saturatingMul(elementCount(R.shape), PerOutput);
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerConv(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &A = std::get<ConvAttrs>(L.attrs);
  LayerId In = L.inputs[0];
  Shape X = Net.layer(In).shape;
  ConvSpec S;
  if (auto P = PadInto.find(Id); P != PadInto.end()) { // input is the folded Pad's input
    X = Net.layer(Net.layer(In).inputs[0]).shape;
    S.padTop = u32(P->second.top), S.padLeft = u32(P->second.left);
    S.padBottom = u32(P->second.bottom), S.padRight = u32(P->second.right);
  }
  S.batch = u32(X[0]), S.inChannels = u32(X[1]), S.inHeight = u32(X[2]), S.inWidth = u32(X[3]);
  S.outChannels = u32(A.outChannels);
  S.kernelH = u32(A.kernelH), S.kernelW = u32(A.kernelW);
  S.strideH = u32(A.strideH), S.strideW = u32(A.strideW);
  S.padTop += u32(A.padTop), S.padLeft += u32(A.padLeft);
  S.padBottom += u32(A.padBottom), S.padRight += u32(A.padRight);
  S.dilationH = u32(A.dilationH), S.dilationW = u32(A.dilationW);
  S.groups = u32(A.groups);
  S.dtype = O.dtype;
  S.math = mathOf(LayerKind::Conv);
  S.mmaArch = mmaArchFor(O.arch);
  const bool Int8 = int8Layer(Id);
  Tail T = fuseTail(Id, TailRoom::Epilogue, Int8);
  S.epilogue = T.epilogue;
  S.epilogue.bias = A.bias;
  int64_t FanIn = X[1] / A.groups * A.kernelH * A.kernelW;
  if (Int8) // the input is the folded Pad's input
    return lowerInt8(Id, S, T, PadInto.count(Id) ? Net.layer(In).inputs[0] : In, FanIn);
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[In]}}, T, FanIn);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importConv(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  if (In.size() != 4)
    return nodeError(N, "only 2-d convolution is supported (input " + shapeStr(In) + ")");
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!W || W->size() != 4 || !allPositive(*W))
    return nodeError(N, "weight needs a known 4-d shape");
  std::vector<int64_t> K = attrInts(N, "kernel_shape", {(*W)[2], (*W)[3]});
  std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  std::vector<int64_t> D = attrInts(N, "dilations", {1, 1});
  if (K.size() != 2 || S.size() != 2 || D.size() != 2)
    return nodeError(N, "only 2-d convolution is supported");
  if (K[0] != (*W)[2] || K[1] != (*W)[3])
    return nodeError(N, "kernel_shape disagrees with weight shape " + shapeStr(*W));
  ConvAttrs A;
  A.outChannels = (*W)[0];
  A.kernelH = K[0], A.kernelW = K[1];
  A.strideH = S[0], A.strideW = S[1];
  A.dilationH = D[0], A.dilationW = D[1];
  A.groups = attrInt(N, "group", 1);
  A.bias = hasInput(N, 2);
  if (A.groups <= 0 || In[1] % A.groups != 0 || (*W)[1] != In[1] / A.groups)
    return nodeError(N, "weight " + shapeStr(*W) + " with group=" + std::to_string(A.groups) +
                            " does not match " + std::to_string(In[1]) + " input channels");
  int64_t Pads[4];
  if (auto E = windowPads(N, In, K.data(), S.data(), D.data(), Pads))
    return *E;
  A.padTop = Pads[0], A.padLeft = Pads[1], A.padBottom = Pads[2], A.padRight = Pads[3];
  if (auto B = A.bias ? staticShape(N.input(2)) : std::nullopt; B && *B != Shape{A.outChannels})
    return nodeError(N, "bias shape " + shapeStr(*B) + " does not match " +
                            std::to_string(A.outChannels) + " output channels");
  return addLayer(N, LayerKind::Conv, {*X}, A);
}

namespace {

/// One output phase a (outputs s j + a) of a transposed convolution along one axis, as a stride-1
/// convolution of the input: out[s j + a] = sum_m x[j + c - m] w[r + s m] with r = (a + pad) mod s,
/// c = (a + pad) div s, m < taps = ceil((k - r) / s); the window [j + c - taps + 1, j + c] is the
/// padded input's, padBefore = taps - 1 - c, padAfter what gives J outputs.
struct Phase {
  int64_t taps = 0, padBefore = 0, padAfter = 0;
  bool operator==(const Phase &) const = default;
};

/// The s phases of an axis of In elements (kernel K, stride S, pads and output padding), and the
/// output length; nullopt unless the output is a whole number of stride blocks and every phase
/// has taps and non-negative padding (the forms this import covers).
std::optional<std::vector<Phase>> phasesOf(int64_t In, int64_t K, int64_t S, int64_t PadBegin,
                                           int64_t PadEnd, int64_t Extra, int64_t &Out) {
  Out = S * (In - 1) + Extra + K - PadBegin - PadEnd;
  if (Out <= 0 || Out % S != 0)
    return std::nullopt;
  const int64_t J = Out / S;
  std::vector<Phase> P;
  for (int64_t A = 0; A < S; ++A) {
    const int64_t R = (A + PadBegin) % S, C = (A + PadBegin) / S;
    Phase Ph{R < K ? (K - R + S - 1) / S : 0, 0, 0};
    Ph.padBefore = Ph.taps - 1 - C;
    Ph.padAfter = J - In + C;
    if (Ph.taps == 0 || Ph.padBefore < 0 || Ph.padAfter < 0)
      return std::nullopt;
    P.push_back(Ph);
  }
  return P;
}

/// A transposed convolution's phases along H and W, at equal strides.
struct PhasePlan {
  std::vector<Phase> rows, cols;
  int64_t stride = 1;
};

/// The phases of ConvTranspose node N on input In with weight shape W ([C_in, C_out, kH, kW],
/// checked), or why N is not a form the import covers.
support::Expected<PhasePlan> planPhases(const onnx::NodeProto &N, const Shape &In, const Shape &W) {
  const std::vector<int64_t> K = attrInts(N, "kernel_shape", {W[2], W[3]});
  const std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  const std::vector<int64_t> Pads = attrInts(N, "pads", {0, 0, 0, 0});
  const std::vector<int64_t> Extra = attrInts(N, "output_padding", {0, 0});
  const std::string AutoPad = attrString(N, "auto_pad", "NOTSET");
  const int64_t Limit = int64_t(1) << 20; // keeps the output-size arithmetic in range
  auto InRange = [&](const std::vector<int64_t> &V, size_t Size, int64_t Lo) {
    return V.size() == Size &&
           std::all_of(V.begin(), V.end(), [&](int64_t E) { return E >= Lo && E <= Limit; });
  };
  if (K != std::vector<int64_t>{W[2], W[3]} || !InRange(K, 2, 1) || !InRange(S, 2, 1) ||
      S[0] != S[1] || !InRange(Pads, 4, 0) || !InRange(Extra, 2, 0) || In[2] > Limit ||
      In[3] > Limit || attrInts(N, "dilations", {1, 1}) != std::vector<int64_t>{1, 1} ||
      attrInt(N, "group", 1) != 1 || (AutoPad != "NOTSET" && AutoPad != "VALID") ||
      attr(N, "output_shape"))
    return support::Error("only a transposed convolution with equal strides, explicit pads and "
                          "no dilation, groups or output_shape is supported");
  int64_t OutH = 0, OutW = 0;
  auto Rows = phasesOf(In[2], K[0], S[0], Pads[0], Pads[2], Extra[0], OutH);
  auto Cols = phasesOf(In[3], K[1], S[1], Pads[1], Pads[3], Extra[1], OutW);
  if (!Rows || !Cols)
    return support::Error("the output must be a whole number of stride blocks, each output "
                          "phase reading at least one kernel tap within its padding (out " +
                          std::to_string(OutH) + "x" + std::to_string(OutW) + ", stride " +
                          std::to_string(S[0]) + ")");
  if (W[1] > MaxTensorElements / (S[0] * S[0]))
    return support::Error("weight " + shapeStr(W) + " is too large");
  return PhasePlan{std::move(*Rows), std::move(*Cols), S[0]};
}

} // namespace

/// ConvTranspose (no groups or dilation, equal strides s): output pixel (s j + a, s i + b) of
/// phase (a, b) is a stride-1 convolution of the input with the kernel taps of that phase
/// (Phase), so the layer is its s^2 phase convolutions (one, with s^2 x the channels, where the
/// phases' windows agree, as for a kernel equal to the stride: U-Net's 2x2 / 2), concatenated
/// along channels in (a, b) order and interleaved by DepthToSpace in DCR mode. The taps add up
/// to the transposed convolution's MACs and weights; each phase carries the bias ((s^2 - 1) x
/// C_out parameters more than the model has). Libraries run it as one kernel: the concat and
/// the shuffle are two passes over the output that they do not make.
Importer::Result Importer::importConvTranspose(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (In.size() != 4 || !W || W->size() != 4 || !allPositive(*W) || (*W)[0] != In[1])
    return nodeError(N, "needs a 4-d NCHW input and a known weight [C_in, C_out, kH, kW] "
                        "matching its channels");
  auto Plan = planPhases(N, In, *W);
  if (!Plan)
    return nodeError(N, Plan.error().message);
  const std::vector<Phase> &Rows = Plan->rows, &Cols = Plan->cols;
  const int64_t Co = (*W)[1], S = Plan->stride;
  if (auto B = hasInput(N, 2) ? staticShape(N.input(2)) : std::nullopt; B && *B != Shape{Co})
    return nodeError(N, "bias shape " + shapeStr(*B) + " does not match " + std::to_string(Co) +
                            " output channels");
  auto PhaseConv = [&](const Phase &R, const Phase &C, int64_t Channels, const std::string &Name) {
    ConvAttrs A;
    A.outChannels = Channels;
    A.kernelH = R.taps, A.kernelW = C.taps;
    A.padTop = R.padBefore, A.padBottom = R.padAfter;
    A.padLeft = C.padBefore, A.padRight = C.padAfter;
    A.bias = hasInput(N, 2);
    return addLayer(N, LayerKind::Conv, {*X}, A, Name);
  };
  const std::string Name = layerName(N);
  if (S == 1) // one phase: a convolution with the kernel flipped
    return PhaseConv(Rows.front(), Cols.front(), Co, "");
  Result Taps = InvalidLayer;
  auto Same = [](const std::vector<Phase> &P) {
    return std::all_of(P.begin(), P.end(), [&](const Phase &E) { return E == P.front(); });
  };
  if (Same(Rows) && Same(Cols)) { // every phase's window is the same: one convolution for all
    Taps = PhaseConv(Rows.front(), Cols.front(), Co * S * S, Name + "/taps");
  } else {
    std::vector<LayerId> Phases;
    for (int64_t A = 0; A < S; ++A)
      for (int64_t B = 0; B < S; ++B) {
        Result P = PhaseConv(Rows[size_t(A)], Cols[size_t(B)], Co,
                             Name + "/phase" + std::to_string(A) + "_" + std::to_string(B));
        if (!P)
          return P;
        Phases.push_back(*P);
      }
    Taps = addLayer(N, LayerKind::Concat, Phases, ConcatAttrs{1}, Name + "/phases");
  }
  return Taps ? depthToSpace(N, *Taps, S, /*Crd=*/false) : Taps;
}

} // namespace onnximport

} // namespace corpus
