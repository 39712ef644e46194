// Internal: the lowering driver's state, shared by Lower.cpp (walk, buffers, fusion) and the
// layer files (src/layers/), which define each kind's lowering.
#pragma once

#include "corpus/KernelGen.h"
#include "corpus/Lower.h"

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
  std::vector<LayerId> layers; ///< the fused layers, in order (head excluded)
  LayerId last = InvalidLayer; ///< the layer whose output the kernel writes
};

/// The kernel form of an activation layer, nullopt when its parameters have none.
std::optional<ActivationKind> kernelActivation(const ActivationAttrs &A);

inline uint32_t u32(int64_t V) { return static_cast<uint32_t>(V); }

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

/// Lowers one network (corpus/Lower.h, lower): layers in order, each a launch, a fused tail of
/// an earlier launch, or a view of its input.
class Lowerer {
public:
  Lowerer(const Network &Net, const LowerOptions &O)
      : Net(Net), O(O), Consumers(Net.size()), BufferOf(Net.size()) {
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
  std::string newBuffer(const std::string &Base, uint64_t Bytes, bool Random, double Range);
  Tail fuseTail(LayerId Head, bool AllowBn, bool AllowResidual) const;
  /// Records the launch of kernel `K` for layer `Head` and its fused tail `T`. The output goes to
  /// a new buffer, or into `Into` when given (one slice of a concatenation).
  support::MaybeError emit(LayerId Head, support::Expected<KernelLaunch> K, RoleBuffers In,
                           const Tail &T, int64_t FanIn, const std::string &Into = {});
  /// emit() of a layer that fuses nothing, reading its first input.
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
  support::MaybeError lowerConstantOperand(LayerId Id, ElementwiseSpec S, const Shape &Constant);
  /// MaxPool, AvgPool: the windowed pool kernel.
  support::MaybeError lowerPool(LayerId Id);
  /// Transpose, Slice, Upsample: the strided copy S, or no kernel when S is nullopt (the layer
  /// is its input: a view).
  support::MaybeError lowerCopy(LayerId Id, const std::optional<CopySpec> &S);

  const Network &Net;
  LowerOptions O;
  KernelEmitter Emitter;
  Workload W;
  std::vector<std::vector<LayerId>> Consumers;
  std::vector<std::string> BufferOf;   ///< activation buffer holding each layer's output
  std::set<LayerId> Fused;             ///< layers computed inside an earlier kernel
  std::map<LayerId, PadAttrs> PadInto; ///< conv, avg pool -> zero padding folded in
  std::set<std::string> Names;
};

} // namespace corpus::lowering
