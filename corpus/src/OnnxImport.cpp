// ONNX import: parsing, shape inference (libonnx), graph inputs, the node walk and cross-checks.
#include "OnnxImporter.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

namespace corpus {
namespace onnximport {
namespace {

/// Inputs that carry weights or constant operands rather than activations.
bool isWeightPosition(const std::string &Op, int Index) {
  if (Op == "Conv" || Op == "Gemm")
    return Index >= 1;
  if (Op == "MatMul")
    return Index == 1;
  if (Op == "BatchNormalization")
    return Index >= 1;
  if (Op == "Clip" || Op == "Reshape" || Op == "Pad" || Op.starts_with("Reduce") ||
      Op == "Expand" || Op == "LayerNormalization" || Op == "InstanceNormalization" ||
      Op == "GroupNormalization" || Op == "Slice" || Op == "Split" || Op == "QuantizeLinear" ||
      Op == "DequantizeLinear" || // a quantization's scale and zero point
      Op == "PRelu")              // the slopes
    return Index >= 1;
  return false;
}

/// Elementwise arithmetic, whose operands may be parameters as well as activations.
bool isArithmetic(const std::string &Op) {
  return Op == "Add" || Op == "Sub" || Op == "Mul" || Op == "Div" || Op == "Pow";
}

/// Dimensions of a tensor type; unknown or symbolic dimensions are -1. Empty when unranked.
std::optional<Shape> typeShape(const onnx::TypeProto &T) {
  if (!T.has_tensor_type() || !T.tensor_type().has_shape())
    return std::nullopt;
  Shape S;
  for (const auto &D : T.tensor_type().shape().dim())
    S.push_back(D.has_dim_value() ? D.dim_value() : -1);
  return S;
}

/// A network is named after its file ("resnet50.onnx" -> "resnet50"): exporters name graphs
/// "main_graph" or "torch_jit" whatever the model. Without a file name, the graph's name.
std::string networkName(const std::string &File, const std::string &Graph) {
  std::string Stem = std::filesystem::path(File).stem().string();
  return Stem.empty() ? Graph : Stem;
}

} // namespace

Importer::Importer(onnx::ModelProto &Model, std::string File, const OnnxImportOptions &Options)
    : Model(Model), Graph(Model.graph()), File(std::move(File)), Options(Options),
      Net(networkName(this->File, Model.graph().name()), Options.dtype) {}

support::Error Importer::nodeError(const onnx::NodeProto &N, const std::string &Message) const {
  std::string Label = N.name();
  if (Label.empty())
    Label = std::string("#").append(std::to_string(Current));
  return support::Error(File, 0, 0, "node '" + Label + "' (" + N.op_type() + "): " + Message);
}

std::string Importer::layerName(const onnx::NodeProto &N) const {
  if (!N.name().empty())
    return N.name();
  return N.output_size() > 0 ? N.output(0) : std::string("node_").append(std::to_string(Current));
}

bool Importer::hasInput(const onnx::NodeProto &N, int Input) const {
  return Input < N.input_size() && !N.input(Input).empty();
}

Importer::Result Importer::value(const onnx::NodeProto &N, int Input) {
  if (!hasInput(N, Input))
    return nodeError(N, "missing input " + std::to_string(Input));
  const std::string &Name = N.input(Input);
  auto It = Values.find(Name);
  if (It != Values.end())
    return It->second;
  if (constant(Name) || Inits.count(Name))
    return nodeError(N, "input '" + Name + "' is a constant; an activation is expected");
  return nodeError(N, "unknown input tensor '" + Name + "' (nodes must be topologically sorted)");
}

const onnx::TensorProto *Importer::constant(const std::string &Name) const {
  if (auto It = Constants.find(Name); It != Constants.end())
    return &It->second;
  if (auto It = Inits.find(Name); It != Inits.end())
    return It->second;
  return nullptr;
}

std::optional<Shape> Importer::staticShape(const std::string &Name) const {
  if (const onnx::TensorProto *T = constant(Name))
    return Shape(T->dims().begin(), T->dims().end());
  if (auto It = Known.find(Name); It != Known.end())
    return It->second;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Importer::constInts(const std::string &Name) const {
  const onnx::TensorProto *T = constant(Name);
  if (!T)
    return std::nullopt;
  std::vector<int64_t> V;
  if (T->data_type() == onnx::TensorProto::INT64) {
    if (T->has_raw_data()) {
      const std::string &Raw = T->raw_data();
      V.resize(Raw.size() / sizeof(int64_t));
      std::memcpy(V.data(), Raw.data(), V.size() * sizeof(int64_t));
    } else {
      V.assign(T->int64_data().begin(), T->int64_data().end());
    }
  } else if (T->data_type() == onnx::TensorProto::INT32) {
    V.assign(T->int32_data().begin(), T->int32_data().end());
  } else {
    return std::nullopt;
  }
  if (static_cast<int64_t>(V.size()) != elementCount(Shape(T->dims().begin(), T->dims().end())))
    return std::nullopt; // data stripped or truncated
  return V;
}

std::optional<float> Importer::constFloat(const std::string &Name) const {
  const onnx::TensorProto *T = constant(Name);
  if (!T || T->data_type() != onnx::TensorProto::FLOAT ||
      elementCount(Shape(T->dims().begin(), T->dims().end())) != 1)
    return std::nullopt; // a bound is one value
  if (T->has_raw_data() && T->raw_data().size() >= sizeof(float)) {
    float F;
    std::memcpy(&F, T->raw_data().data(), sizeof(float));
    return F;
  }
  if (T->float_data_size() > 0)
    return T->float_data(0);
  return std::nullopt;
}

std::optional<std::vector<float>> Importer::constFloats(const std::string &Name) const {
  const onnx::TensorProto *T = constant(Name);
  if (!T || T->data_type() != onnx::TensorProto::FLOAT)
    return std::nullopt;
  // Sized by the data the file holds, never by its dims alone (data may be stripped).
  const int64_t Count = elementCount(Shape(T->dims().begin(), T->dims().end()));
  const std::string &Raw = T->raw_data();
  if (T->has_raw_data() && Raw.size() % sizeof(float) == 0 &&
      int64_t(Raw.size() / sizeof(float)) == Count) {
    std::vector<float> V(Raw.size() / sizeof(float));
    std::memcpy(V.data(), Raw.data(), Raw.size());
    return V;
  }
  if (int64_t(T->float_data_size()) == Count)
    return std::vector<float>(T->float_data().begin(), T->float_data().end());
  return std::nullopt; // data stripped or truncated
}

Importer::Result Importer::addLayer(const onnx::NodeProto &N, LayerKind Kind,
                                    std::vector<LayerId> Inputs, LayerAttrs Attrs,
                                    std::string Name) {
  if (Name.empty())
    Name = layerName(N);
  auto Id = Net.add(Name, Kind, std::move(Inputs), std::move(Attrs));
  if (Id)
    return *Id;
  // Network errors read "layer 'NAME' (kind): message"; keep the message, name the node.
  std::string Prefix = "layer '" + Name + "' (" + std::string(layerKindName(Kind)) + "): ";
  std::string Message = Id.error().message;
  if (Message.rfind(Prefix, 0) == 0)
    Message = Message.substr(Prefix.size());
  return nodeError(N, Message);
}

const onnx::NodeProto *Importer::soleConsumer(const std::string &Tensor, size_t *Index) const {
  auto It = Consumers.find(Tensor);
  if (It == Consumers.end() || It->second.size() != 1 || GraphOutputs.count(Tensor))
    return nullptr;
  *Index = It->second[0];
  return &Graph.node(static_cast<int>(*Index));
}

const onnx::NodeProto *Importer::soleConsumerOp(const onnx::NodeProto *From, const char *Op,
                                                size_t &Index) const {
  const onnx::NodeProto *C = From ? soleConsumer(From->output(0), &Index) : nullptr;
  return C && C->op_type() == Op ? C : nullptr;
}

namespace {

/// libonnx's checker set up for Model's opsets, or null when an opset is newer than libonnx
/// knows: operators changed there (ReduceMean's axes became an input in 18), so their schemas
/// here would reject valid nodes.
std::unique_ptr<onnx::checker::CheckerContext> checkerFor(const onnx::ModelProto &Model) {
  const auto &Known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  std::unordered_map<std::string, int> Opsets;
  for (const auto &Op : Model.opset_import()) {
    auto Range = Known.find(Op.domain());
    if (Range != Known.end() && Op.version() > Range->second.second)
      return nullptr;
    Opsets[Op.domain()] = int(std::max<int64_t>(Op.version(), 1));
  }
  auto Ctx = std::make_unique<onnx::checker::CheckerContext>();
  // libonnx 1.12 knows IR versions up to 8; later ones add nothing a supported node uses.
  Ctx->set_ir_version(int(std::clamp<int64_t>(Model.ir_version(), 3, 8)));
  Ctx->set_opset_imports(Opsets);
  Ctx->set_schema_registry(onnx::OpSchemaRegistry::Instance());
  return Ctx;
}

/// Why node N is malformed, if it is: an attribute given twice, a flag the importer reads as a
/// boolean that is not 0 or 1, or (with a checker) what its operator's schema rejects (input
/// and output counts, attribute names and types, required attributes).
std::optional<std::string> schemaError(const onnx::NodeProto &N,
                                       const onnx::checker::CheckerContext *Checker) {
  static const std::set<std::string> Flags = {
      "ceil_mode", "count_include_pad", "keepdims", "allowzero", "transA", "transB"};
  std::set<std::string> Names;
  for (const auto &A : N.attribute()) {
    if (!Names.insert(A.name()).second)
      return "attribute '" + A.name() + "' appears twice";
    if (Flags.count(A.name()) && A.i() != 0 && A.i() != 1)
      return A.name() + " must be 0 or 1, got " + std::to_string(A.i());
  }
  if (!Checker)
    return std::nullopt;
  onnx::checker::LexicalScopeContext Lex;
  try {
    onnx::checker::check_node(N, *Checker, Lex);
  } catch (const std::exception &E) {
    std::string Why = E.what();
    return Why.substr(0, Why.find('\n'));
  }
  return std::nullopt;
}

} // namespace

support::MaybeError Importer::checkSchemas() {
  // Every node the importer reads (fused ones included), before libonnx's shape inference
  // reads them too.
  const std::unique_ptr<onnx::checker::CheckerContext> Checker = checkerFor(Model);
  for (int I = 0; I < Graph.node_size(); ++I) {
    const onnx::NodeProto &N = Graph.node(I);
    if (supported(N)) {
      Current = size_t(I);
      if (auto Bad = schemaError(N, Checker.get()))
        return nodeError(N, *Bad);
    }
  }
  return std::nullopt;
}

support::MaybeError Importer::prepare() {
  for (const auto &Op : Model.opset_import())
    if (Op.domain().empty() || Op.domain() == "ai.onnx")
      Opset = Op.version();
  if (Opset == 0)
    return support::Error(File, 0, 0, "model imports no default-domain opset");
  if (Opset < 0)
    return support::Error(File, 0, 0, "opset version " + std::to_string(Opset) + " is negative");
  for (const auto &T : Graph.initializer()) {
    if (auto Bad = checkTensorData(T))
      return support::Error(File, 0, 0, "initializer '" + T.name() + "': " + *Bad);
    Inits[T.name()] = &T;
  }
  for (const auto &O : Graph.output())
    GraphOutputs.insert(O.name());
  for (int I = 0; I < Graph.node_size(); ++I)
    for (const std::string &In : Graph.node(I).input())
      if (!In.empty())
        Consumers[In].push_back(static_cast<size_t>(I));
  if (auto E = setInputDimensions())
    return E;
  if (auto Bad = reassignedValue(Graph))
    return support::Error(File, 0, 0, *Bad);
  if (auto Bad = badDeclaredShape(Graph))
    return support::Error(File, 0, 0, *Bad);
  if (auto Bad = badWindowAttribute(Graph))
    return support::Error(File, 0, 0, *Bad);
  if (auto E = checkSchemas())
    return E;
  if (auto Failed = inferShapes(Model))
    return support::Error(File, 0, 0, *Failed);
  auto Record = [&](const onnx::ValueInfoProto &V) {
    if (auto S = typeShape(V.type()))
      Known[V.name()] = *S;
  };
  for (const auto &V : Graph.input())
    Record(V);
  for (const auto &V : Graph.value_info())
    Record(V);
  for (const auto &V : Graph.output())
    Record(V);
  return std::nullopt;
}

/// A symbolic first (batch) dimension of a graph input becomes Options.batch; with
/// Options.imageSize, such an input of rank 4 (NCHW images) gets that height and width, and the
/// shapes the exporter recorded for the old size are dropped. libonnx shape inference then runs
/// on the concrete shapes, and the importer's own shapes are checked against its.
support::MaybeError Importer::setInputDimensions() {
  auto *G = Model.mutable_graph();
  size_t Resized = 0;
  for (auto &In : *G->mutable_input()) {
    if (Inits.count(In.name()) || !In.type().has_tensor_type() ||
        In.type().tensor_type().shape().dim_size() == 0)
      continue;
    auto *S = In.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (S->dim(0).has_dim_value())
      continue;
    S->mutable_dim(0)->set_dim_value(Options.batch);
    BatchInputs.insert(In.name());
    if (Options.imageSize > 0 && S->dim_size() == 4) {
      // NCHW with H = W (or either unknown); [N, 224, 224, 3] is NHWC, and resizing its last two
      // dimensions would change its channels.
      const auto &H = S->dim(2), &W = S->dim(3);
      if (H.has_dim_value() && W.has_dim_value() && H.dim_value() != W.dim_value())
        return support::Error(File, 0, 0,
                              "graph input '" + In.name() + "' is " +
                                  std::to_string(H.dim_value()) + " x " +
                                  std::to_string(W.dim_value()) +
                                  " in dimensions 2 and 3: not a square NCHW image to give "
                                  "image size " +
                                  std::to_string(Options.imageSize));
      S->mutable_dim(2)->set_dim_value(Options.imageSize);
      S->mutable_dim(3)->set_dim_value(Options.imageSize);
      ++Resized;
    }
  }
  if (Options.imageSize <= 0)
    return std::nullopt;
  if (Resized == 0)
    return support::Error(File, 0, 0,
                          "no 4-D graph input with a dynamic batch dimension to give image size " +
                              std::to_string(Options.imageSize));
  G->clear_value_info();
  for (auto &Out : *G->mutable_output())
    if (Out.type().has_tensor_type())
      Out.mutable_type()->mutable_tensor_type()->clear_shape();
  return std::nullopt;
}

support::MaybeError Importer::addInputs() {
  std::set<std::string> Data;         // tensors used at some activation position
  std::map<std::string, size_t> Rank; // graph inputs' ranks
  for (const auto &In : Graph.input())
    if (auto S = typeShape(In.type()))
      Rank[In.name()] = S->size();
  for (const auto &O : Graph.output())
    Data.insert(O.name());
  // From the last node back (nodes are in topological order), so that an Identity's output is
  // classified before its input: Identity reads its input as what its output is read as (torch
  // writes parameters equal in value as Identity nodes of one of them), and so do a QDQ model's
  // QuantizeLinear and DequantizeLinear (of a weight, or of an activation).
  for (int K = Graph.node_size() - 1; K >= 0; --K) {
    const onnx::NodeProto &N = Graph.node(K);
    for (int I = 0; I < N.input_size(); ++I) {
      // A MatMul's second operand of rank 3 or more is a batch of matrices: an activation.
      auto R = Rank.find(N.input(I));
      bool BatchedMatMul = N.op_type() == "MatMul" && R != Rank.end() && R->second >= 3;
      // Beside inputs with a dynamic batch, one without is a parameter where it is an operand
      // of arithmetic (a layer scale, a layer norm's weight exported with export_params=False).
      bool Parameter =
          !BatchInputs.empty() && !BatchInputs.count(N.input(I)) && isArithmetic(N.op_type());
      const bool PassesOn = N.op_type() == "Identity" || N.op_type() == "QuantizeLinear" ||
                            N.op_type() == "DequantizeLinear";
      bool Passed = PassesOn && N.output_size() > 0 && !Data.count(N.output(0));
      if ((!isWeightPosition(N.op_type(), I) && !Parameter && !Passed) || BatchedMatMul)
        Data.insert(N.input(I));
    }
  }
  for (const auto &In : Graph.input()) {
    if (Inits.count(In.name()) || !Data.count(In.name()))
      continue; // a weight, with or without its data
    auto S = typeShape(In.type());
    if (!S || S->empty())
      return support::Error(File, 0, 0, "graph input '" + In.name() + "' has no shape");
    for (size_t D = 0; D < S->size(); ++D)
      if ((*S)[D] <= 0)
        return support::Error(File, 0, 0,
                              "graph input '" + In.name() + "' has unknown dimension " +
                                  std::to_string(D));
    auto Id = Net.addInput(In.name(), *S);
    if (!Id)
      return support::Error(File, 0, 0, Id.error().message);
    Values[In.name()] = *Id;
  }
  if (Values.empty())
    return support::Error(File, 0, 0, "model has no activation input");
  return std::nullopt;
}

support::MaybeError Importer::checkShape(const onnx::NodeProto &N, LayerId Id) {
  for (int I = 1; I < N.output_size(); ++I) {
    const std::string &Out = N.output(I);
    if (Out.empty())
      continue;
    if (auto V = Values.find(Out); V != Values.end()) { // a multi-output operator (Split)
      if (auto E = checkInferred(N, Out, V->second))
        return E;
    } else if (Consumers.count(Out) || GraphOutputs.count(Out)) {
      return nodeError(N, "output " + std::to_string(I) + " ('" + Out +
                              "') is used but not supported");
    }
  }
  return checkInferred(N, N.output(0), Id);
}

support::MaybeError Importer::checkInferred(const onnx::NodeProto &N,
                                            const std::string &Output, LayerId Id) {
  auto It = Known.find(Output);
  if (It == Known.end())
    return std::nullopt;
  const Shape &Theirs = It->second;
  const Shape &Ours = Net.layer(Id).shape;
  bool Match = Theirs.size() == Ours.size();
  for (size_t D = 0; Match && D < Ours.size(); ++D)
    Match = Theirs[D] < 0 || Theirs[D] == Ours[D];
  if (!Match)
    return nodeError(N, "output shape " + shapeStr(Ours) + " disagrees with onnx shape inference " +
                            shapeStr(Theirs));
  return std::nullopt;
}

support::MaybeError Importer::importNode(size_t Index) {
  Current = Index;
  const onnx::NodeProto &N = Graph.node(static_cast<int>(Index));
  if (Fused.count(Index))
    return std::nullopt;
  assert(supported(N) && "unsupportedOperators() refuses the model first");
  auto H = handlers().find(N.op_type());
  if (N.output_size() == 0 || N.output(0).empty())
    return nodeError(N, "node has no output");
  OutputNode = Index;
  Result Id = (this->*(H->second))(N);
  if (!Id)
    return Id.error();
  if (*Id == InvalidLayer) // Constant: no layer
    return std::nullopt;
  // A fused pair maps the last node's output; otherwise this node's first output.
  const onnx::NodeProto &Last = Graph.node(static_cast<int>(OutputNode));
  Values[Last.output(0)] = *Id;
  return checkShape(Last, *Id);
}

bool Importer::defaultDomain(const onnx::NodeProto &N) {
  return N.domain().empty() || N.domain() == "ai.onnx";
}

bool Importer::supported(const onnx::NodeProto &N) {
  return defaultDomain(N) && handlers().count(N.op_type()) != 0;
}

support::MaybeError Importer::unsupportedOperators() {
  std::map<std::string, size_t> Count; // "Op" or "domain:Op" -> nodes
  const onnx::NodeProto *First = nullptr;
  for (int I = 0; I < Graph.node_size(); ++I) {
    const onnx::NodeProto &N = Graph.node(I);
    if (supported(N))
      continue;
    ++Count[(defaultDomain(N) ? "" : N.domain() + ":") + N.op_type()];
    if (!First) {
      First = &N;
      Current = size_t(I); // names an unnamed node by its index
    }
  }
  if (!First)
    return std::nullopt;
  std::string Message = defaultDomain(*First)
                            ? "unsupported operator"
                            : "unsupported operator (domain '" + First->domain() + "')";
  size_t Nodes = 0;
  for (const auto &[Op, N] : Count)
    Nodes += N;
  if (Nodes == 1)
    return nodeError(*First, Message);
  std::vector<std::pair<std::string, size_t>> Ops(Count.begin(), Count.end());
  std::stable_sort(Ops.begin(), Ops.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  Message += "; the model has " + std::to_string(Nodes) + " nodes of " +
             std::to_string(Ops.size()) + " unsupported operator" + (Ops.size() > 1 ? "s" : "") +
             ":";
  for (size_t I = 0; I < Ops.size(); ++I)
    Message += (I ? ", " : " ") + Ops[I].first + " (" + std::to_string(Ops[I].second) + ")";
  return nodeError(*First, Message + " (supported operators: docs/onnx.md)");
}

support::Expected<Network> Importer::run() {
  if (!Model.has_graph() || Graph.node_size() == 0)
    return support::Error(File, 0, 0, "malformed file: model has no graph nodes");
  if (auto E = unsupportedOperators())
    return *E;
  if (auto E = prepare())
    return *E;
  if (auto E = addInputs())
    return *E;
  // Constant nodes' values are known before the walk: torch.onnx puts a pattern's constants (GELU's
  // 1 and 0.5, a layer norm's exponent and epsilon) just before the node reading them, after the
  // node that begins the pattern. A malformed one is left to its turn in the walk to report.
  for (const onnx::NodeProto &N : Graph.node())
    if (defaultDomain(N) && N.op_type() == "Constant" && N.output_size() > 0 &&
        !N.output(0).empty())
      (void)importConstant(N);
  for (size_t I = 0; I < static_cast<size_t>(Graph.node_size()); ++I)
    if (auto E = importNode(I))
      return *E;
  if (Graph.output_size() == 0)
    return support::Error(File, 0, 0, "malformed file: graph has no output");
  for (const auto &O : Graph.output())
    if (!Values.count(O.name()))
      return support::Error(File, 0, 0, "graph output '" + O.name() + "' is not computed");
  return std::move(Net);
}

std::string escapeControl(const std::string &S) {
  std::string Out;
  for (unsigned char C : S) {
    if (C >= 0x20 && C != 0x7f) {
      Out += char(C);
      continue;
    }
    constexpr char Hex[] = "0123456789abcdef";
    Out += {'\\', 'x', Hex[C >> 4], Hex[C & 15]};
  }
  return Out;
}

} // namespace onnximport

support::Expected<Network> importOnnx(std::string_view Bytes, const std::string &FileName,
                                      const OnnxImportOptions &Options) {
  onnx::ModelProto Model;
  if (Bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !Model.ParseFromArray(Bytes.data(), static_cast<int>(Bytes.size())))
    return support::Error(FileName, 0, 0, "malformed file: not an ONNX model protobuf");
  onnximport::Importer I(Model, FileName, Options);
  auto Net = I.run();
  if (Net)
    return Net;
  support::Error E = Net.error(); // names come from the file: control bytes escaped, not raw
  E.message = onnximport::escapeControl(E.message);
  return E;
}

support::Expected<Network> importOnnxFile(const std::string &Path,
                                          const OnnxImportOptions &Options) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return support::Error(Path, 0, 0, "cannot open file");
  std::ostringstream Buffer;
  Buffer << In.rdbuf();
  return importOnnx(Buffer.str(), Path, Options);
}

} // namespace corpus
