// NetworkBuilder: straight-line network construction that keeps the first error.
#include "corpus/Builder.h"

#include <algorithm>
#include <tuple>

namespace corpus {

LayerId NetworkBuilder::input(Shape S, std::string Name) {
  if (Err)
    return InvalidLayer;
  auto Id = Net.addInput(std::move(Name), std::move(S));
  if (!Id) {
    Err = Id.error();
    return InvalidLayer;
  }
  return *Id;
}

LayerId NetworkBuilder::add(LayerKind Kind, std::vector<LayerId> Inputs, LayerAttrs Attrs,
                            std::string Name) {
  if (Err || std::find(Inputs.begin(), Inputs.end(), InvalidLayer) != Inputs.end())
    return InvalidLayer;
  if (Name.empty())
    Name = std::string(layerKindName(Kind)) + "_" + std::to_string(Net.size());
  auto Id = Net.add(std::move(Name), Kind, std::move(Inputs), std::move(Attrs));
  if (!Id) {
    Err = Id.error();
    return InvalidLayer;
  }
  return *Id;
}

LayerId NetworkBuilder::conv(LayerId X, int64_t OutChannels, int64_t Kernel, int64_t Stride,
                             int64_t Pad, int64_t Groups, bool Bias, int64_t Dilation) {
  ConvAttrs A;
  A.outChannels = OutChannels;
  A.kernelH = A.kernelW = Kernel;
  A.strideH = A.strideW = Stride;
  A.dilationH = A.dilationW = Dilation;
  A.padTop = A.padLeft = A.padBottom = A.padRight = Pad;
  A.groups = Groups;
  A.bias = Bias;
  return add(LayerKind::Conv, {X}, A);
}

LayerId NetworkBuilder::convSame(LayerId X, int64_t OutChannels, int64_t Kernel, int64_t Stride,
                                 int64_t Groups, bool Bias) {
  Shape S = shape(X);
  if (S.size() != 4)
    return conv(X, OutChannels, Kernel, Stride, 0, Groups, Bias); // reports the rank error
  ConvAttrs A;
  A.outChannels = OutChannels;
  A.kernelH = A.kernelW = Kernel;
  A.strideH = A.strideW = Stride;
  std::tie(A.padTop, A.padBottom) = samePadding(S[2], Kernel, Stride);
  std::tie(A.padLeft, A.padRight) = samePadding(S[3], Kernel, Stride);
  A.groups = Groups;
  A.bias = Bias;
  return add(LayerKind::Conv, {X}, A);
}

LayerId NetworkBuilder::dense(LayerId X, int64_t OutFeatures, bool Bias) {
  return add(LayerKind::Dense, {X}, DenseAttrs{OutFeatures, Bias});
}

LayerId NetworkBuilder::batchNorm(LayerId X, float Epsilon) {
  return add(LayerKind::BatchNorm, {X}, BatchNormAttrs{Epsilon});
}

LayerId NetworkBuilder::activation(LayerId X, ActKind Kind, float Alpha, float Beta) {
  return add(LayerKind::Activation, {X}, ActivationAttrs{Kind, Alpha, Beta});
}

LayerId NetworkBuilder::addLayers(LayerId A, LayerId B) {
  return add(LayerKind::Add, {A, B}, EltwiseAttrs{});
}

LayerId NetworkBuilder::mulLayers(LayerId A, LayerId B) {
  return add(LayerKind::Mul, {A, B}, EltwiseAttrs{});
}

LayerId NetworkBuilder::divLayers(LayerId A, LayerId B) {
  return add(LayerKind::Div, {A, B}, EltwiseAttrs{});
}

LayerId NetworkBuilder::powLayers(LayerId A, LayerId B) {
  return add(LayerKind::Pow, {A, B}, EltwiseAttrs{});
}

LayerId NetworkBuilder::addScalar(LayerId X, float Scalar) {
  return add(LayerKind::Add, {X}, EltwiseAttrs{std::nullopt, Scalar});
}

LayerId NetworkBuilder::mulScalar(LayerId X, float Scalar) {
  return add(LayerKind::Mul, {X}, EltwiseAttrs{std::nullopt, Scalar});
}

LayerId NetworkBuilder::divScalar(LayerId X, float Scalar) {
  return add(LayerKind::Div, {X}, EltwiseAttrs{std::nullopt, Scalar});
}

LayerId NetworkBuilder::powScalar(LayerId X, float Scalar) {
  return add(LayerKind::Pow, {X}, EltwiseAttrs{std::nullopt, Scalar});
}

LayerId NetworkBuilder::batchMatMul(LayerId A, LayerId B) {
  return add(LayerKind::MatMul, {A, B}, MatMulAttrs{});
}

LayerId NetworkBuilder::transpose(LayerId X, std::vector<int64_t> Perm) {
  return add(LayerKind::Transpose, {X}, TransposeAttrs{std::move(Perm)});
}

LayerId NetworkBuilder::slice(LayerId X, int64_t Axis, int64_t Start, int64_t End, int64_t Step) {
  return add(LayerKind::Slice, {X}, SliceAttrs{{Axis}, {Start}, {End}, {Step}});
}

LayerId NetworkBuilder::upsample(LayerId X, int64_t Scale, bool Bilinear) {
  return add(LayerKind::Upsample, {X}, UpsampleAttrs{Scale, Scale, Bilinear});
}

LayerId NetworkBuilder::reshape(LayerId X, Shape Target) {
  return add(LayerKind::Reshape, {X}, ReshapeAttrs{std::move(Target)});
}

LayerId NetworkBuilder::layerNorm(LayerId X, float Epsilon) {
  return add(LayerKind::LayerNorm, {X}, LayerNormAttrs{Epsilon});
}

static PoolAttrs squarePool(int64_t Kernel, int64_t Stride, int64_t Pad) {
  PoolAttrs A;
  A.kernelH = A.kernelW = Kernel;
  A.strideH = A.strideW = Stride;
  A.padTop = A.padLeft = A.padBottom = A.padRight = Pad;
  return A;
}

LayerId NetworkBuilder::maxPool(LayerId X, int64_t Kernel, int64_t Stride, int64_t Pad) {
  return add(LayerKind::MaxPool, {X}, squarePool(Kernel, Stride, Pad));
}

LayerId NetworkBuilder::maxPoolSame(LayerId X, int64_t Kernel, int64_t Stride) {
  Shape S = shape(X);
  if (S.size() != 4)
    return maxPool(X, Kernel, Stride); // reports the rank error
  PoolAttrs A = squarePool(Kernel, Stride, 0);
  std::tie(A.padTop, A.padBottom) = samePadding(S[2], Kernel, Stride);
  std::tie(A.padLeft, A.padRight) = samePadding(S[3], Kernel, Stride);
  return add(LayerKind::MaxPool, {X}, A);
}

LayerId NetworkBuilder::avgPool(LayerId X, int64_t Kernel, int64_t Stride, int64_t Pad) {
  return add(LayerKind::AvgPool, {X}, squarePool(Kernel, Stride, Pad));
}

LayerId NetworkBuilder::globalAvgPool(LayerId X) {
  return add(LayerKind::GlobalAvgPool, {X}, GlobalPoolAttrs{});
}

LayerId NetworkBuilder::flatten(LayerId X, int64_t Axis) {
  return add(LayerKind::Flatten, {X}, FlattenAttrs{Axis});
}

LayerId NetworkBuilder::softmax(LayerId X, int64_t Axis) {
  return add(LayerKind::Softmax, {X}, SoftmaxAttrs{Axis});
}

Shape NetworkBuilder::shape(LayerId Id) const {
  return Id == InvalidLayer ? Shape{} : Net.layer(Id).shape;
}

int64_t NetworkBuilder::channels(LayerId Id) const {
  Shape S = shape(Id);
  return S.size() >= 2 ? S[1] : 0;
}

support::Expected<Network> NetworkBuilder::finish() {
  if (Err)
    return *Err;
  return std::move(Net);
}

} // namespace corpus
