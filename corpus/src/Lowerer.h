// Internal: the lowering driver's state, shared by Lower.cpp (walk, buffers, fusion) and the
// layer files (src/layers/), which define each kind's lowering.
#pragma once

#include "corpus/KernelGen.h"
#include "corpus/Lower.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace corpus::lowering {

/// Buffers a launch reads, by parameter role (the output is created by emit()).
using RoleBuffers = std::map<ParamRole, std::string>;

/// A layer's elementwise tail fused into its kernel.
struct Tail {
  Epilogue epilogue;
  std::string residual;        ///< residual buffer, when epilogue.residual != None
  TensorForm residualForm = TensorForm::F16Nchw; ///< an int8 engine's: the residual's form
  std::vector<LayerId> layers; ///< the fused layers, in order (head excluded)
  LayerId last = InvalidLayer; ///< the layer whose output the kernel writes
};

/// What a head's kernel can fuse after it (Lowerer::fuseTail).
enum class TailRoom : uint8_t {
  /// An elementwise kernel: an activation without an alpha (its one scalar may be its own).
  Activation,
  /// A kernel with an Epilogue (a global pool): any activation, an alpha in Epilogue::alpha.
  AnyActivation,
  /// A convolution's or dense layer's epilogue: a batch norm, residual adds, any activation.
  Epilogue,
};

/// The kernel form of an activation layer, nullopt when its parameters have none.
std::optional<ActivationKind> kernelActivation(const ActivationAttrs &A);

inline uint32_t u32(int64_t V) { return static_cast<uint32_t>(V); }
/// Whether every value fits u32 (a kernel spec's sizes) unchanged.
inline bool fitU32(std::initializer_list<int64_t> Values) {
  return std::all_of(Values.begin(), Values.end(),
                     [](int64_t V) { return V >= 0 && V <= int64_t(UINT32_MAX); });
}

/// A library kernel's shape arguments, after its buffers.
void appendShapeArgs(const KernelLaunch &K, WorkloadLaunch &L);

/// A shape as [outer, axis, inner] around one axis (negative counts from the end; the network
/// checked the range), as PyTorch's cat and softmax kernels see any axis.
struct AxisSplit {
  uint32_t outer, axis, inner;
  size_t at; ///< the axis, resolved
};
/// S split around Axis; nullopt when a part does not fit the kernels' 32-bit sizes.
std::optional<AxisSplit> splitAround(const Shape &S, int64_t Axis);
/// S as [outer, axis, inner] around the run of dimensions [First, Last) (0 <= First <= Last <=
/// rank; `axis` is the run's product); nullopt when a part does not fit 32 bits.
std::optional<AxisSplit> splitRun(const Shape &S, size_t First, size_t Last);
/// S with leading 1s to Rank dimensions (numpy's alignment of a broadcast operand; Rank >= its
/// rank).
Shape alignedTo(const Shape &S, size_t Rank);

/// Lowers one network (corpus/Lower.h, lower): layers in order, each a launch, a fused tail of
/// an earlier launch, or a view of its input.
///
/// An int8 engine (dtype I8, LowerInt8.cpp) lowers as an f16 network (O.dtype is F16 inside)
/// whose convolutions and dense layers run int8 kernels: a tensor then has an f16 NCHW buffer
/// (BufferOf), an int8 NHWC one (Int8Of), or both once a reformat made the other.
class Lowerer {
public:
  Lowerer(const Network &Net, const LowerOptions &Options)
      : Net(Net), Requested(Options), O(f16Options(Options)), Consumers(Net.size()),
        BufferOf(Net.size()), Int8Of(Net.size()) {
    for (const Layer &L : Net.layers())
      for (LayerId In : L.inputs)
        Consumers[In].push_back(static_cast<LayerId>(&L - Net.layers().data()));
    Emitter.splitModules(KernelsPerModule);
    Emitter.useKernelSet(O.kernels);
    Emitter.checkNames(O.checkKernelNames);
  }

  support::Expected<Workload> run();

private:
  support::Error error(LayerId Id, const std::string &Message) const {
    const Layer &L = Net.layer(Id);
    return support::Error("layer '" + L.name + "' (" + std::string(layerKindName(L.kind)) +
                          "): " + Message);
  }
  /// Whether this is an int8 engine's lowering.
  bool int8() const { return Requested.dtype == DType::I8; }
  /// The math of a layer of kind K: the option, or autoMath's choice.
  MathMode mathOf(LayerKind K) const {
    return O.math == MathMode::Auto ? autoMath(K, O.dtype, O.arch) : O.math;
  }
  /// Standalone elementwise kernels compute in f16x2 where the op allows (F16) when an f16
  /// network's GEMM layers run on f16 tensor cores, else in f32 (Simt).
  MathMode elementwiseMath() const {
    const bool Half = O.dtype == DType::F16 && mathOf(LayerKind::Conv) == MathMode::F16;
    return Half ? MathMode::F16 : MathMode::Simt;
  }
  /// The only consumer of a layer that is not a network output, else InvalidLayer.
  LayerId sole(LayerId Id) const {
    return Consumers[Id].size() == 1 ? Consumers[Id][0] : InvalidLayer;
  }
  /// A new buffer (a unique name from Base) of elements of Type (for its random fill); without
  /// Type, of the lowering's element type.
  std::string newBuffer(const std::string &Base, uint64_t Bytes, bool Random, double Range,
                        DType Type);
  std::string newBuffer(const std::string &Base, uint64_t Bytes, bool Random, double Range) {
    return newBuffer(Base, Bytes, Random, Range, O.dtype);
  }
  /// The tail fused into Head, as much as its kernel has room for (TailRoom). An int8 head
  /// (Int8Head) takes a residual in either form, int8 first.
  Tail fuseTail(LayerId Head, TailRoom Room, bool Int8Head = false) const;
  /// Records the launch of kernel `K` for layer `Head` and its fused tail `T`. The output goes to
  /// a new buffer, or into `Into` when given (one slice of a concatenation); an int8 output is
  /// the layers' Int8Of.
  support::MaybeError emit(LayerId Head, support::Expected<KernelLaunch> K, RoleBuffers In,
                           const Tail &T, int64_t FanIn, const std::string &Into = {});
  /// A seeded random buffer for parameter P of kernel K (weights, scales, epilogue parameters).
  std::string paramBuffer(const std::string &Head, const KernelLaunch &K, const KernelParam &P,
                          int64_t FanIn);
  /// emit() of a layer that fuses nothing, reading its first input.
  /// A Pad that no convolution or pool takes: the padding kernel (PadSpec).
  support::MaybeError lowerPadKernel(LayerId Id);
  support::MaybeError emitAlone(LayerId Id, support::Expected<KernelLaunch> K, int64_t FanIn = 0);
  /// Layer Id's launches through its kind's lower<Kind>.
  support::MaybeError lowerLayer(LayerId Id);
  /// Each kind's lowering (corpus/LayerKinds.def), defined in its layer file (src/layers/).
#define LAYER_KIND(Kind, Name, Attrs, Inputs) support::MaybeError lower##Kind(LayerId Id);
#include "corpus/LayerKinds.def"

  // Lowerings shared by several kinds (src/layers/).
  /// Flatten, Reshape, Identity: the same bytes under a new shape, no kernel.
  support::MaybeError lowerView(LayerId Id);
  /// Activation, Add, Mul, Div, Pow: a standalone elementwise kernel.
  support::MaybeError lowerElementwise(LayerId Id);
  support::MaybeError lowerBinary(LayerId Id, ElementwiseSpec S);
  /// Whether the Expand layer Id needs no copy: every consumer is an add, mul, div or pow of two
  /// layers that reads it as its broadcast second operand (div and pow: in second place), of
  /// the consumer's shape, the other operand full-size (not an Expand).
  bool expandsInPlace(LayerId Id) const;
  support::MaybeError lowerConstantOperand(LayerId Id, ElementwiseSpec S, const Shape &Constant);
  /// MaxPool, AvgPool: the windowed pool kernel.
  support::MaybeError lowerPool(LayerId Id);
  /// Transpose, Slice, Upsample: the strided copy S, or no kernel when S is nullopt (the layer
  /// is its input: a view).
  support::MaybeError lowerCopy(LayerId Id, const std::optional<CopySpec> &S);

  // Int8 engines (LowerInt8.cpp).
  /// The options an int8 engine lowers its f16 layers with (others: Options unchanged).
  static LowerOptions f16Options(const LowerOptions &Options);
  /// The int8 kernels' math: Int8 (tensor cores) or Simt (dp4a).
  MathMode int8Math() const;
  /// Whether layer C runs an int8 kernel (a dense layer, or a convolution hasInt8Kernel takes).
  bool int8Layer(LayerId C) const;
  /// Whether the view V (flatten, reshape, identity) leaves NHWC int8 bytes where they are.
  bool int8View(LayerId V) const;
  /// The form an int8 kernel writes the tensor of layer Id in: int8 when an int8 layer reads it
  /// (through pads and int8 views), else f16.
  TensorForm outputForm(LayerId Id) const;
  /// The tensor of layer Id in int8 (quantized now when it has only its f16 buffer), or in f16
  /// (dequantized now); the name of the buffer.
  support::Expected<std::string> int8Input(LayerId Id);
  support::Expected<std::string> f16Input(LayerId Id);
  /// The launch that quantizes (or dequantizes) the tensor of layer Id into its other form.
  support::Expected<std::string> reformat(LayerId Id, bool Quantize);
  /// Runs before a layer of an int8 engine: f16 buffers for the inputs of f16 layers, both
  /// forms carried through views and pads.
  support::MaybeError prepareInt8(LayerId Id);
  /// A convolution (ConvSpec) or dense layer (GemmSpec) on int8 kernels, reading the tensor of
  /// layer Src (a folded pad's input) in int8.
  template <class Spec>
  support::MaybeError lowerInt8(LayerId Id, Spec S, const Tail &T, LayerId Src, int64_t FanIn);

  const Network &Net;
  LowerOptions Requested; ///< as given (an int8 engine: dtype I8)
  LowerOptions O;         ///< what f16 and f32 layers are lowered with
  KernelEmitter Emitter;
  Workload W;
  std::vector<std::vector<LayerId>> Consumers;
  std::vector<std::string> BufferOf;   ///< activation buffer holding each layer's output
  std::vector<std::string> Int8Of;     ///< an int8 engine: its NHWC int8 buffer, if any
  std::set<LayerId> Fused;             ///< layers computed inside an earlier kernel
  /// Expand layers no kernel materialises: their buffer is their input's, which every consumer
  /// (an elementwise op of two layers) reads broadcast in place (expandsInPlace).
  std::set<LayerId> ReadInPlace;
  std::map<LayerId, PadAttrs> PadInto; ///< conv, avg pool -> zero padding folded in
  std::set<std::string> Names;
};

} // namespace corpus::lowering
