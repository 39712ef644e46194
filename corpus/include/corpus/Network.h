// The CNN network IR: a DAG of layers with NCHW shapes, per-layer parameter and MAC counts.
//
// Conventions (docs/zoo.md):
// - Shapes are outermost first: {N, C, H, W} for images, {N, F} after Flatten.
// - MACs (multiply-accumulates) are counted for the whole batch: conv =
// N*Cout*Hout*Wout*(Cin/g)*kh*kw,
//   dense = rows*in*out (rows = N for {N, F}), matmul = batch*m*n*k. Batch-norm, layer norm,
//   activations, elementwise ops, pooling, softmax and padding count no MACs.
// - Parameters are the trainable ones (PyTorch's `sum(p.numel() for p in model.parameters())`):
//   conv/dense weights and biases, batch-norm gamma and beta (2 per channel; the running mean and
//   variance are statistics, not parameters), layer-norm scale and shift (2 per feature), and
//   constant tensor operands of Add/Mul/Div/Pow (a scalar operand is not a parameter).
#pragma once

#include "corpus/DType.h"
#include "support/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace corpus {

/// "f32", "f16" or "int8" (the `--dtype` spellings).
std::string_view dtypeString(DType Type);
/// The type `--dtype Name` names (as dtypeString spells it), or nullopt.
std::optional<DType> parseDType(std::string_view Name);
/// Every type's name as dtypeString spells it, joined: dtypeNames(", ", " or ") is "f32, f16 or
/// int8".
std::string dtypeNames(std::string_view Separator, std::string_view LastSeparator);
/// The type a user's spelling names: dtypeString's, or fp32, float, float32, fp16, half,
/// float16, i8; nullopt for anything else.
std::optional<DType> parseDTypeSpelling(std::string_view Name);
/// The other spellings parseDTypeSpelling takes, for messages: "fp32, float, ..., i8".
std::string dtypeAliases();

/// Tensor dimensions, outermost first.
using Shape = std::vector<int64_t>;
/// "[1,3,224,224]".
std::string shapeStr(const Shape &S);
/// Product of the dimensions (1 for a scalar; INT64_MAX where it overflows).
int64_t elementCount(const Shape &S);

/// Bounds on what a network may hold: a tensor of more elements than this (4 TiB of f32) or a
/// layer of more multiply-adds is bad input, not a workload (and would overflow the counts).
constexpr int64_t MaxTensorElements = int64_t(1) << 40;
constexpr int64_t MaxLayerMacs = int64_t(1) << 60;

/// What a layer computes: one enumerator per row of corpus/LayerKinds.def, which says what each
/// kind is, which ONNX operators import into it, and names its shape rule and lowering.
enum class LayerKind {
#define LAYER_KIND(Kind, Name, Attrs, Inputs) Kind,
#include "corpus/LayerKinds.def"
};
/// "conv", "dense", ... (lower case).
std::string_view layerKindName(LayerKind Kind);

/// Elementwise activation functions.
enum class ActKind {
  Relu,        ///< max(x, 0)
  Clip,        ///< min(max(x, alpha), beta); relu6 is Clip(0, 6)
  Sigmoid,     ///< 1 / (1 + exp(-x))
  HardSigmoid, ///< max(0, min(1, alpha*x + beta))
  HardSwish,   ///< x * relu6(x + 3) / 6
  Swish,       ///< x * sigmoid(x) (a.k.a. SiLU)
  Tanh,        ///< tanh(x)
  Gelu,        ///< x * 0.5 * (1 + erf(x / sqrt 2)) (PyTorch's default GELU)
  Sqrt,        ///< sqrt(x) (ONNX Sqrt outside a layer norm)
  LeakyRelu,   ///< x > 0 ? x : alpha * x
  Softplus,    ///< ln(1 + e^x) (Mish is x * tanh(softplus(x)))
  Exp,         ///< e^x (YOLOX's and FCOS's box sizes)
  GeluTanh,    ///< 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (GELU(approximate='tanh'))
  Elu,         ///< x > 0 ? x : alpha (e^x - 1)
  Selu,        ///< SeluScale (x > 0 ? x : SeluAlpha (e^x - 1)) (corpus/KernelGen.h)
  Celu,        ///< x > 0 ? x : alpha (e^(x / alpha) - 1)
};
/// "relu", "clip", "sigmoid", ...
std::string_view actKindName(ActKind Kind);
/// Whether `Kind` has an alpha of its own per layer (LeakyRelu, Elu, Celu): a constant of the
/// kernel the lowering runs it in (corpus::activationTakesAlpha).
bool actKindTakesAlpha(ActKind Kind);

struct InputAttrs {};

/// 2-D convolution; weight shape {outChannels, Cin/groups, kernelH, kernelW}.
struct ConvAttrs {
  int64_t outChannels = 0;
  int64_t kernelH = 1, kernelW = 1;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1;
  int64_t groups = 1;
  bool bias = false;
};

/// Fully connected layer on the last dimension; weight shape {in, outFeatures}.
struct DenseAttrs {
  int64_t outFeatures = 0;
  bool bias = true;
};

struct BatchNormAttrs {
  float epsilon = 1e-5f;
};

struct ActivationAttrs {
  ActKind kind = ActKind::Relu;
  float alpha = 0; ///< Clip: lower bound; HardSigmoid: slope; LeakyRelu: negative slope;
                   ///< Elu, Celu: the scale of the negative part
  float beta = 0;  ///< Clip: upper bound; HardSigmoid: offset
};

/// Add / Mul / Div / Pow. With two inputs both operands are layers; with one input the second
/// operand is either a constant tensor of shape `constant` (counted as parameters) or the
/// number `scalar` (a Python float, as torch.add(x, 0.5); not a parameter).
struct EltwiseAttrs {
  std::optional<Shape> constant;
  std::optional<float> scalar = std::nullopt;
};

/// MaxPool / AvgPool over H and W.
struct PoolAttrs {
  int64_t kernelH = 1, kernelW = 1;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  bool ceilMode = false;
  bool countIncludePad = false; ///< AvgPool: divide by the full window, padding included
};

struct GlobalPoolAttrs {};

struct FlattenAttrs {
  int64_t axis = 1;
};

/// ONNX Reshape rules: 0 copies the input dimension at that index, one -1 is inferred.
struct ReshapeAttrs {
  Shape target;
};

struct ConcatAttrs {
  int64_t axis = 1; ///< negative counts from the end
};

struct SoftmaxAttrs {
  int64_t axis = -1; ///< negative counts from the end
};

enum class PadMode { Constant, Reflect, Edge };

/// Padding of H and W (N and C are never padded).
struct PadAttrs {
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  PadMode mode = PadMode::Constant;
  float value = 0;
};

struct IdentityAttrs {};

/// Batched matrix product (torch.matmul / ONNX MatMul of two activations): inputs of equal rank
/// >= 2 and equal leading dimensions, [..., m, n] x [..., n, k] -> [..., m, k].
struct MatMulAttrs {};

/// torch.nn.LayerNorm over the last dimension: a scale and a shift per feature (parameters).
struct LayerNormAttrs {
  float epsilon = 1e-5f;
  /// A learned scale and shift per feature (2 parameters each); without, the normalised values
  /// (an instance norm's rows, whose per-channel affine is a batch norm after them).
  bool affine = true;
};

/// ONNX Transpose: output dimension i is input dimension perm[i]; an empty perm reverses them.
struct TransposeAttrs {
  std::vector<int64_t> perm;
};

/// ONNX Slice with constant operands: for each listed axis (negative counts from the end), the
/// elements start, start + step, ... before end; a negative start or end counts from the end of
/// the axis, and both are clamped to it. Steps must be positive; unlisted axes are whole.
struct SliceAttrs {
  std::vector<int64_t> axes, starts, ends, steps; ///< equal lengths; steps empty = all 1
};

/// Where a linear resize's output coordinate o reads its input along an axis (ONNX
/// coordinate_transformation_mode): HalfPixel (o + 0.5) / scale - 0.5, PyTorch's
/// align_corners=False; AlignCorners o (in - 1) / (out - 1), align_corners=True; Asymmetric
/// o / scale, a linear Resize before opset 11 and Upsample.
enum class ResizeCoords : uint8_t { HalfPixel, AlignCorners, Asymmetric };

/// Upsampling of an NCHW tensor by integer factors (torch.nn.Upsample(scale_factor); ONNX
/// Resize/Upsample). Nearest: out[n, c, h, w] = in[n, c, h / scaleH, w / scaleW]. Bilinear
/// (`linear`): each output blends the 2 x 2 input elements around the source coordinate of
/// `coords` on each axis (corpus::UpsampleSpec).
struct UpsampleAttrs {
  int64_t scaleH = 1, scaleW = 1;
  bool linear = false;
  ResizeCoords coords = ResizeCoords::HalfPixel; ///< of a linear one
};

/// What a Reduce layer computes along its axes (ONNX ReduceSum, ReduceMean, ReduceMax,
/// ReduceMin, ReduceSumSquare, ReduceL1, ReduceL2).
enum class ReduceOp { Sum, Mean, Max, Min, SumSquare, L1, L2 };
/// "sum", "mean", "max", ...
std::string_view reduceOpName(ReduceOp Op);

/// A reduction over the contiguous axes [first, last) of the input, never the batch axis
/// (0 < first < last <= rank): CBAM's channel mean and max, ConvNeXt V2's spatial L2 norm,
/// SKNet's sum over branches. keepDims leaves the reduced axes as 1s, else they are dropped.
struct ReduceAttrs {
  ReduceOp op = ReduceOp::Sum;
  int64_t first = 1, last = 2;
  bool keepDims = true;
};

/// ONNX Expand: the input broadcast (numpy rules, both ways) with `shape`; torch's expand_as
/// (SE blocks' `x * y.expand_as(x)`).
struct ExpandAttrs {
  Shape shape;
};

/// One axis of a resolved slice: elements start, start + step, ... (count of them).
struct SliceRange {
  int64_t start = 0, count = 0, step = 1;
};
/// The slice of every axis of `In` (ONNX clamping applied), or an error message (no layer name)
/// for a repeated or out-of-range axis, a step <= 0 or an empty result.
support::Expected<std::vector<SliceRange>> resolveSlice(const Shape &In, const SliceAttrs &A);
/// The permutation of a Transpose of a rank-`Rank` input (the default reversal filled in).
std::vector<int64_t> resolvePerm(const TransposeAttrs &A, size_t Rank);

/// Attributes of a layer; the alternative must match the layer's kind (Add/Mul/Div/Pow:
/// EltwiseAttrs, MaxPool/AvgPool: PoolAttrs, GlobalAvgPool: GlobalPoolAttrs).
using LayerAttrs =
    std::variant<InputAttrs, ConvAttrs, DenseAttrs, BatchNormAttrs, ActivationAttrs, EltwiseAttrs,
                 PoolAttrs, GlobalPoolAttrs, FlattenAttrs, ReshapeAttrs, ConcatAttrs, SoftmaxAttrs,
                 PadAttrs, IdentityAttrs, MatMulAttrs, LayerNormAttrs, TransposeAttrs, SliceAttrs,
                 UpsampleAttrs, ReduceAttrs, ExpandAttrs>;

/// Index of a layer in its Network (layers are stored in topological order).
using LayerId = uint32_t;
inline constexpr LayerId InvalidLayer = ~LayerId(0);

/// One node of the DAG. `shape`, `params` and `macs` are computed by Network::add.
struct Layer {
  std::string name;
  LayerKind kind = LayerKind::Input;
  std::vector<LayerId> inputs;
  LayerAttrs attrs;
  Shape shape;        ///< output shape
  int64_t params = 0; ///< trainable parameters
  int64_t macs = 0;   ///< multiply-accumulates for the whole batch
};

/// A CNN as a DAG of layers in topological order (a layer's inputs precede it).
class Network {
public:
  explicit Network(std::string Name = "", DType Type = DType::F32);

  const std::string &name() const { return Name; }
  DType dtype() const { return Type; }
  void setDType(DType T) { Type = T; }

  /// Adds a layer after checking its inputs and attributes and computing its output shape,
  /// parameters and MACs. An inconsistent shape is an Error naming the layer, e.g.
  /// `layer 'conv_3' (conv): input has 16 channels, not divisible by groups=3`.
  support::Expected<LayerId> add(std::string LayerName, LayerKind Kind, std::vector<LayerId> Inputs,
                                 LayerAttrs Attrs);
  /// Adds an Input layer of the given shape (every dimension must be positive).
  support::Expected<LayerId> addInput(std::string LayerName, Shape S);

  const std::vector<Layer> &layers() const { return Layers; }
  const Layer &layer(LayerId Id) const {
    assert(Id < Layers.size() && "layer id out of range");
    return Layers[Id];
  }
  size_t size() const { return Layers.size(); }
  /// Layers that no other layer consumes, in order.
  std::vector<LayerId> outputs() const;
  /// Input layers, in order.
  std::vector<LayerId> inputs() const;
  /// Sums over all layers.
  int64_t params() const;
  int64_t macs() const;
  /// Layers other than inputs (the "layers" figure `ptxcast zoo` reports).
  size_t computeLayerCount() const;

private:
  std::string Name;
  DType Type;
  std::vector<Layer> Layers;
};

/// TensorFlow "SAME" padding for one spatial dimension: {before, after} such that
/// out = ceil(In / Stride); the odd pixel goes after.
std::pair<int64_t, int64_t> samePadding(int64_t In, int64_t Kernel, int64_t Stride,
                                        int64_t Dilation = 1);

} // namespace corpus
