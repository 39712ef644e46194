// Internal: the ONNX importer's state, shared by OnnxImport.cpp (graph walk, inputs, checks),
// OnnxOps.cpp (attributes, windows, the handler table), OnnxShapeOps.cpp (constants) and the
// layer files (src/layers/), which define one handler per operator.
#pragma once

#include "corpus/Onnx.h"

#include <onnx/onnx_pb.h>

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace corpus::onnximport {

class Importer {
public:
  Importer(onnx::ModelProto &Model, std::string File, const OnnxImportOptions &Options);
  support::Expected<Network> run();

private:
  using Result = support::Expected<LayerId>;
  using Handler = Result (Importer::*)(const onnx::NodeProto &);

  // Graph setup (OnnxImport.cpp).
  support::MaybeError prepare();
  /// Every supported node against its operator's schema (OnnxImport.cpp schemaError).
  support::MaybeError checkSchemas();
  /// The first node of an operator the importer lacks, with every such operator of the model
  /// and its node count, so a user sees at once what a model needs.
  support::MaybeError unsupportedOperators();
  support::MaybeError setInputDimensions();
  support::MaybeError addInputs();
  support::MaybeError importNode(size_t Index);
  /// Output 0 is layer Id and agrees with libonnx's inferred shape; every other used output is a
  /// layer too (Split) and agrees likewise.
  support::MaybeError checkShape(const onnx::NodeProto &N, LayerId Id);
  support::MaybeError checkInferred(const onnx::NodeProto &N, const std::string &Output,
                                    LayerId Id);
  static const std::map<std::string, Handler> &handlers();
  static bool defaultDomain(const onnx::NodeProto &N); ///< "" or "ai.onnx"
  /// A default-domain node of an operator with a handler.
  static bool supported(const onnx::NodeProto &N);

  // Lookups.
  support::Error nodeError(const onnx::NodeProto &N, const std::string &Message) const;
  std::string layerName(const onnx::NodeProto &N) const;
  /// The layer producing tensor `Name`, or an error naming the node.
  Result value(const onnx::NodeProto &N, int Input);
  bool isLayer(const std::string &Name) const { return Values.count(Name) != 0; }
  bool hasInput(const onnx::NodeProto &N, int Input) const;
  /// A constant tensor (initializer or Constant node output) with data, or null.
  const onnx::TensorProto *constant(const std::string &Name) const;
  /// Shape of a weight or constant: initializer dims, else value_info / graph input shape.
  std::optional<Shape> staticShape(const std::string &Name) const;
  std::optional<std::vector<int64_t>> constInts(const std::string &Name) const;
  std::optional<float> constFloat(const std::string &Name) const;
  /// Every element of a float constant with data.
  std::optional<std::vector<float>> constFloats(const std::string &Name) const;
  /// Adds a layer named after the node (or `Name`); shape errors name the node.
  Result addLayer(const onnx::NodeProto &N, LayerKind Kind, std::vector<LayerId> Inputs,
                  LayerAttrs Attrs, std::string Name = "");
  /// The only node consuming `Tensor`, when exactly one does and it is not a graph output.
  const onnx::NodeProto *soleConsumer(const std::string &Tensor, size_t *Index) const;
  /// soleConsumer of `From`'s output 0 (null From: null) when it is an `Op` node, else null.
  const onnx::NodeProto *soleConsumerOp(const onnx::NodeProto *From, const char *Op,
                                        size_t &Index) const;

  // Operator handlers (corpus/LayerKinds.def): import<Op> for each ONNX_OP row, defined in the
  // layer file of the kind it makes (src/layers/) or, for constants, OnnxShapeOps.cpp.
#define ONNX_OP(Op, Kind) Result import##Op(const onnx::NodeProto &N);
#include "corpus/LayerKinds.def"

  // Handlers shared by several operators (src/layers/).
  /// Add, Mul, Sub (an add layer: the same kernel), Div and Pow; a Div that starts PyTorch's erf
  /// GELU, x * 0.5 * (1 + erf(x / sqrt 2)) over five nodes, becomes one gelu activation.
  Result importEltwise(const onnx::NodeProto &N);
  /// InstanceNormalization and GroupNormalization: X as [N, Groups, rest] rows (named after N
  /// with RowsSuffix), a layer norm of each without affine, and the affine as a batch norm on the
  /// rows (one value per group) or after the view back (PerChannel); the last layer takes N's
  /// name.
  Result normaliseGroups(const onnx::NodeProto &N, LayerId X, int64_t Groups, bool PerChannel,
                         const std::string &RowsSuffix);
  /// LeakyRelu, Elu and Celu: an activation of Kind with the node's finite `alpha` (Default when
  /// absent); Celu's must be normal and nonzero, as it divides by it.
  Result importAlphaActivation(const onnx::NodeProto &N, ActKind Kind, float Default);
  /// MaxPool and AveragePool.
  Result importPool(const onnx::NodeProto &N);
  /// DepthToSpace of X by Block in ONNX's mode "DCR" or "CRD" (the mode PyTorch's PixelShuffle
  /// exports, and ConvTranspose's rearrangement): a reshape to 6-d, a transpose, a reshape back.
  Result depthToSpace(const onnx::NodeProto &N, LayerId X, int64_t Block, bool Crd);
  /// A reduction's axes (the attribute before opset InputFrom, a constant input from it; empty:
  /// every axis), negative ones resolved against Rank, sorted; nullopt when the input is no
  /// constant.
  std::optional<std::vector<int64_t>> reduceAxes(const onnx::NodeProto &N, int64_t Rank,
                                                 int64_t InputFrom = 18) const;
  /// ReduceSum, ReduceMax, ...: a Reduce layer over contiguous axes after the batch axis.
  Result importReduce(const onnx::NodeProto &N);
  /// The nodes after a ReduceMean that begins F.layer_norm over the last axis as PyTorch exports
  /// it below opset 17 (Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), and its epsilon.
  struct LayerNormNodes {
    std::array<size_t, 8> nodes;
    float epsilon;
  };
  std::optional<LayerNormNodes> layerNormPattern(const onnx::NodeProto &N) const;
  /// Whether Div's output is scaled by a weight and shifted by a bias of C elements each (a Mul,
  /// then an Add, each the only consumer before it), and their node indices.
  bool layerNormAffine(const onnx::NodeProto &Div, int64_t C, size_t &Mul, size_t &Add) const;
  /// The layer norm of such a pattern: one layer named after the ReduceMean.
  Result fuseLayerNorm(const onnx::NodeProto &N, const LayerNormNodes &P);

  // Shape arithmetic folded to integer constants (OnnxShapeOps.cpp).
  /// Concat of 1-d integer constants; Add/Sub/Mul/Div of integer constants (one may be a
  /// single number).
  support::MaybeError foldConcat(const onnx::NodeProto &N);
  support::MaybeError foldArithmetic(const onnx::NodeProto &N);
  /// An integer constant that is not an activation, or nullopt.
  std::optional<std::vector<int64_t>> foldableInts(const std::string &Name) const;
  void setConstInts(const std::string &Name, const std::vector<int64_t> &V, const Shape &Dims);
  /// The indices of the nodes after Div in a GELU pattern (Erf, Add, Mul, Mul), if N starts one.
  std::optional<std::array<size_t, 4>> geluPattern(const onnx::NodeProto &N) const;
  /// Sigmoid / HardSigmoid followed by a Mul with its own input: one fused activation.
  Result fuseGatedActivation(const onnx::NodeProto &N, ActivationAttrs Plain,
                             ActivationAttrs Fused);
  /// Spatial padding from `pads` / `auto_pad` for a window op on input `In`.
  support::MaybeError windowPads(const onnx::NodeProto &N, const Shape &In,
                                 const int64_t Kernel[2], const int64_t Stride[2],
                                 const int64_t Dilation[2], int64_t Pads[4]);

  onnx::ModelProto &Model;
  const onnx::GraphProto &Graph;
  std::string File;
  OnnxImportOptions Options;
  int64_t Opset = 0;
  Network Net;
  std::map<std::string, LayerId> Values;                  ///< tensor -> producing layer
  std::map<std::string, const onnx::TensorProto *> Inits; ///< initializers
  std::map<std::string, onnx::TensorProto> Constants;     ///< Constant node outputs
  std::map<std::string, Shape> Known;                     ///< shapes from the file + inference
  std::map<std::string, std::vector<size_t>> Consumers;   ///< tensor -> consuming node indices
  std::set<std::string> GraphOutputs;
  std::set<std::string> BatchInputs; ///< graph inputs whose dynamic batch the import fixed
  std::set<size_t> Fused; ///< nodes already folded into an earlier layer
  size_t Current = 0;     ///< index of the node being imported
  size_t OutputNode = 0;  ///< node whose output the current layer produces (after fusion)
};

/// A node's attribute `Name`, or null; its value, or Default when absent.
const onnx::AttributeProto *attr(const onnx::NodeProto &N, std::string_view Name);
int64_t attrInt(const onnx::NodeProto &N, std::string_view Name, int64_t Default);
float attrFloat(const onnx::NodeProto &N, std::string_view Name, float Default);
std::string attrString(const onnx::NodeProto &N, std::string_view Name, std::string Default);
std::vector<int64_t> attrInts(const onnx::NodeProto &N, std::string_view Name,
                              std::vector<int64_t> Default);
/// True when every element is positive.
bool allPositive(const std::vector<int64_t> &V);
/// The operand of a two-input node that is not `Tensor`, or "" when `Tensor` is not an operand.
std::string otherOperand(const onnx::NodeProto &N, const std::string &Tensor);

// Checks before libonnx's shape inference (OnnxChecks.cpp); each says why, naming the tensor or
// node, or is nullopt.
/// Why tensor T's dims or data cannot be, if they cannot: a negative dimension, more than
/// MaxTensorElements elements, an unknown data type, or data that do not hold exactly the dims'
/// elements. Data may be absent (a weights-stripped model) or external.
std::optional<std::string> checkTensorData(const onnx::TensorProto &T);
/// The first graph input or value_info entry whose known dimensions are negative or hold more
/// than MaxTensorElements elements: they give weights their shapes (the network's own inputs are
/// checked again when added).
std::optional<std::string> badDeclaredShape(const onnx::GraphProto &Graph);
/// The first node whose strides, dilations or kernel_shape are not in 1..2^31-1, or whose pads
/// exceed 2^31-1: libonnx's shape inference divides by the first three without checking, the
/// kernels take all four as 32 bits, and larger pads would overflow the output extent. Negative
/// pads are the network's error.
std::optional<std::string> badWindowAttribute(const onnx::GraphProto &Graph);
/// A value that two nodes write, or that a node writes over a graph input or initializer (ONNX
/// assigns each value once; which writer a reader meant would be a guess).
std::optional<std::string> reassignedValue(const onnx::GraphProto &Graph);
/// libonnx's shape inference over Model (shapes land in its value_info), with Conv and
/// LayerNormalization nodes checked first where libonnx 1.12 would read out of bounds; why it
/// failed, if it threw.
std::optional<std::string> inferShapes(onnx::ModelProto &Model);

/// S with bytes below 0x20 and 0x7f written as \xNN (names in error messages come from files).
std::string escapeControl(const std::string &S);

} // namespace corpus::onnximport
