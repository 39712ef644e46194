// Network IR: adding layers with shape propagation, parameter and MAC counting.
#include "corpus/Network.h"

#include "LayerShapes.h"

#include <algorithm>
#include <iterator>

namespace corpus {

using layershapes::saturatingMul;

std::string_view dtypeString(DType Type) {
  return Type == DType::F16 ? "f16" : Type == DType::I8 ? "int8" : "f32";
}

namespace {

/// Every element type, in the order messages list them.
constexpr DType DTypes[] = {DType::F32, DType::F16, DType::I8};

} // namespace

std::optional<DType> parseDType(std::string_view Name) {
  for (DType T : DTypes)
    if (Name == dtypeString(T))
      return T;
  return std::nullopt;
}

std::string dtypeNames(std::string_view Separator, std::string_view LastSeparator) {
  std::string Out(dtypeString(DTypes[0]));
  for (size_t I = 1; I < std::size(DTypes); ++I)
    Out.append(I + 1 < std::size(DTypes) ? Separator : LastSeparator)
        .append(dtypeString(DTypes[I]));
  return Out;
}

namespace {

/// The other spellings of each type that users write.
constexpr std::pair<std::string_view, DType> DTypeAliases[] = {
    {"fp32", DType::F32}, {"float", DType::F32},   {"float32", DType::F32}, {"fp16", DType::F16},
    {"half", DType::F16}, {"float16", DType::F16}, {"i8", DType::I8}};

} // namespace

std::optional<DType> parseDTypeSpelling(std::string_view Name) {
  for (const auto &[Alias, T] : DTypeAliases)
    if (Name == Alias)
      return T;
  return parseDType(Name);
}

std::string dtypeAliases() {
  std::string Out;
  for (const auto &[Alias, T] : DTypeAliases)
    Out.append(Out.empty() ? "" : ", ").append(Alias);
  return Out;
}

std::string shapeStr(const Shape &S) {
  std::string R = "[";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      R += ',';
    R += std::to_string(S[I]);
  }
  return R + "]";
}

int64_t elementCount(const Shape &S) {
  int64_t N = 1;
  for (int64_t D : S)
    N = saturatingMul(N, D);
  return N;
}

std::string_view layerKindName(LayerKind Kind) {
  static constexpr std::string_view Names[] = {
#define LAYER_KIND(Kind, Name, Attrs, Inputs) Name,
#include "corpus/LayerKinds.def"
  };
  assert(static_cast<size_t>(Kind) < std::size(Names) && "layer kind out of range");
  return Names[static_cast<size_t>(Kind)];
}

std::string_view reduceOpName(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Mean:
    return "mean";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  case ReduceOp::SumSquare:
    return "sumsquare";
  case ReduceOp::L1:
    return "l1";
  case ReduceOp::L2:
    return "l2";
  }
  assert(false && "unknown reduction");
  return "sum";
}

bool actKindTakesAlpha(ActKind Kind) {
  return Kind == ActKind::LeakyRelu || Kind == ActKind::Elu || Kind == ActKind::Celu;
}

std::string_view actKindName(ActKind Kind) {
  switch (Kind) {
  case ActKind::Relu:
    return "relu";
  case ActKind::Clip:
    return "clip";
  case ActKind::Sigmoid:
    return "sigmoid";
  case ActKind::HardSigmoid:
    return "hardsigmoid";
  case ActKind::HardSwish:
    return "hardswish";
  case ActKind::Swish:
    return "swish";
  case ActKind::Tanh:
    return "tanh";
  case ActKind::Gelu:
    return "gelu";
  case ActKind::Sqrt:
    return "sqrt";
  case ActKind::LeakyRelu:
    return "leakyrelu";
  case ActKind::Softplus:
    return "softplus";
  case ActKind::Exp:
    return "exp";
  case ActKind::GeluTanh:
    return "gelutanh";
  case ActKind::Elu:
    return "elu";
  case ActKind::Selu:
    return "selu";
  case ActKind::Celu:
    return "celu";
  }
  return "?";
}

std::pair<int64_t, int64_t> samePadding(int64_t In, int64_t Kernel, int64_t Stride,
                                        int64_t Dilation) {
  int64_t Out = (In + Stride - 1) / Stride;
  int64_t Effective = Dilation * (Kernel - 1) + 1;
  int64_t Total = std::max<int64_t>((Out - 1) * Stride + Effective - In, 0);
  return {Total / 2, Total - Total / 2};
}

std::vector<int64_t> resolvePerm(const TransposeAttrs &A, size_t Rank) {
  if (!A.perm.empty())
    return A.perm;
  std::vector<int64_t> Perm(Rank);
  for (size_t I = 0; I < Rank; ++I)
    Perm[I] = int64_t(Rank - 1 - I);
  return Perm;
}

support::Expected<std::vector<SliceRange>> resolveSlice(const Shape &In, const SliceAttrs &A) {
  const size_t N = A.axes.size();
  if (A.starts.size() != N || A.ends.size() != N || (!A.steps.empty() && A.steps.size() != N))
    return support::Error("axes, starts, ends and steps differ in length");
  const int64_t Rank = int64_t(In.size());
  std::vector<SliceRange> R(In.size());
  for (size_t D = 0; D < In.size(); ++D)
    R[D] = {0, In[D], 1};
  std::vector<bool> Seen(In.size(), false);
  for (size_t I = 0; I < N; ++I) {
    const int64_t Axis = A.axes[I] < 0 ? A.axes[I] + Rank : A.axes[I];
    if (Axis < 0 || Axis >= Rank || Seen[size_t(Axis)])
      return support::Error("axis " + std::to_string(A.axes[I]) +
                            " is out of range or repeated for " + shapeStr(In));
    Seen[size_t(Axis)] = true;
    const int64_t Step = A.steps.empty() ? 1 : A.steps[I];
    if (Step <= 0)
      return support::Error("step " + std::to_string(Step) + " on axis " + std::to_string(Axis) +
                            ": only positive steps are supported");
    const int64_t Dim = In[size_t(Axis)];
    // ONNX: negative positions count from the end; both are clamped to [0, Dim] (INT64_MAX and
    // INT64_MIN are the exporters' "to the end" and "from the start").
    auto Clamp = [Dim](int64_t P) {
      return std::clamp(P < 0 ? std::max(P, -Dim) + Dim : P, int64_t(0), Dim);
    };
    const int64_t Start = Clamp(A.starts[I]), End = Clamp(A.ends[I]);
    const int64_t Count = End > Start ? (End - Start - 1) / Step + 1 : 0;
    if (Count == 0)
      return support::Error("slice [" + std::to_string(A.starts[I]) + ", " +
                            std::to_string(A.ends[I]) + ") of axis " + std::to_string(Axis) +
                            " of " + shapeStr(In) + " is empty");
    R[size_t(Axis)] = {Start, Count, Step};
  }
  return R;
}

Network::Network(std::string Name, DType Type) : Name(std::move(Name)), Type(Type) {}

support::Expected<LayerId> Network::addInput(std::string LayerName, Shape S) {
  if (S.empty() || std::any_of(S.begin(), S.end(), [](int64_t D) { return D <= 0; }))
    return support::Error("input '" + LayerName + "': invalid shape " + shapeStr(S));
  if (elementCount(S) > MaxTensorElements)
    return support::Error("input '" + LayerName + "': shape " + shapeStr(S) +
                          " has more than 2^40 elements");
  Layer L;
  L.name = std::move(LayerName);
  L.kind = LayerKind::Input;
  L.attrs = InputAttrs{};
  L.shape = std::move(S);
  Layers.push_back(std::move(L));
  return static_cast<LayerId>(Layers.size() - 1);
}

support::Expected<LayerId> Network::add(std::string LayerName, LayerKind Kind,
                                        std::vector<LayerId> Inputs, LayerAttrs Attrs) {
  assert(Kind != LayerKind::Input && "use addInput for inputs");
  assert(layershapes::attrsMatch(Kind, Attrs) && "attributes do not match the layer kind");
  layershapes::InShapes In;
  for (LayerId Id : Inputs) {
    assert(Id < Layers.size() && "layer input must be added before its consumer");
    In.push_back(&Layers[Id].shape);
  }
  layershapes::LayerResult R = layershapes::infer(Kind, In, Attrs);
  if (R.error.empty() && elementCount(R.shape) > MaxTensorElements)
    R.error = "output " + shapeStr(R.shape) + " has more than 2^40 elements";
  else if (R.error.empty() && (R.params > MaxTensorElements || R.macs > MaxLayerMacs))
    R.error = "more than 2^40 parameters or 2^60 multiply-adds";
  if (!R.error.empty())
    return support::Error("layer '" + LayerName + "' (" + std::string(layerKindName(Kind)) +
                          "): " + R.error);
  Layer L;
  L.name = std::move(LayerName);
  L.kind = Kind;
  L.inputs = std::move(Inputs);
  L.attrs = std::move(Attrs);
  L.shape = std::move(R.shape);
  L.params = R.params;
  L.macs = R.macs;
  Layers.push_back(std::move(L));
  return static_cast<LayerId>(Layers.size() - 1);
}

std::vector<LayerId> Network::outputs() const {
  std::vector<bool> Used(Layers.size(), false);
  for (const Layer &L : Layers)
    for (LayerId Id : L.inputs)
      Used[Id] = true;
  std::vector<LayerId> Out;
  for (size_t I = 0; I < Layers.size(); ++I)
    if (!Used[I])
      Out.push_back(static_cast<LayerId>(I));
  return Out;
}

std::vector<LayerId> Network::inputs() const {
  std::vector<LayerId> Out;
  for (size_t I = 0; I < Layers.size(); ++I)
    if (Layers[I].kind == LayerKind::Input)
      Out.push_back(static_cast<LayerId>(I));
  return Out;
}

int64_t Network::params() const {
  int64_t N = 0;
  for (const Layer &L : Layers)
    N += L.params;
  return N;
}

int64_t Network::macs() const {
  int64_t N = 0;
  for (const Layer &L : Layers)
    N += L.macs;
  return N;
}

size_t Network::computeLayerCount() const {
  return static_cast<size_t>(std::count_if(
      Layers.begin(), Layers.end(), [](const Layer &L) { return L.kind != LayerKind::Input; }));
}

} // namespace corpus
