// NetworkBuilder: a terse way to write networks layer by layer (used by the zoo and tests).
// The first error is kept; later calls become no-ops returning InvalidLayer, and finish()
// reports it, so a builder reads as straight-line code without error checks on every line.
#pragma once

#include "corpus/Network.h"

#include <optional>

namespace corpus {

class NetworkBuilder {
public:
  explicit NetworkBuilder(std::string Name, DType Type = DType::F32) : Net(std::move(Name), Type) {}

  /// An input of shape {N, C, H, W} (or any other shape).
  LayerId input(Shape S, std::string Name = "input");
  /// Adds any layer; an empty name becomes "<kind>_<index>".
  LayerId add(LayerKind Kind, std::vector<LayerId> Inputs, LayerAttrs Attrs, std::string Name = "");

  /// Square convolution with symmetric padding `Pad` (no bias unless asked), its taps `Dilation`
  /// apart.
  LayerId conv(LayerId X, int64_t OutChannels, int64_t Kernel, int64_t Stride, int64_t Pad,
               int64_t Groups = 1, bool Bias = false, int64_t Dilation = 1);
  /// Square convolution with TensorFlow "SAME" padding (odd pixel after).
  LayerId convSame(LayerId X, int64_t OutChannels, int64_t Kernel, int64_t Stride,
                   int64_t Groups = 1, bool Bias = false);
  LayerId dense(LayerId X, int64_t OutFeatures, bool Bias = true);
  LayerId batchNorm(LayerId X, float Epsilon = 1e-5f);
  LayerId activation(LayerId X, ActKind Kind, float Alpha = 0, float Beta = 0);
  LayerId relu(LayerId X) { return activation(X, ActKind::Relu); }
  LayerId relu6(LayerId X) { return activation(X, ActKind::Clip, 0.0f, 6.0f); }
  LayerId swish(LayerId X) { return activation(X, ActKind::Swish); }
  LayerId sigmoid(LayerId X) { return activation(X, ActKind::Sigmoid); }
  LayerId tanh(LayerId X) { return activation(X, ActKind::Tanh); }
  /// torch.nn.GELU() (the erf form).
  LayerId gelu(LayerId X) { return activation(X, ActKind::Gelu); }
  /// Elementwise ops on two layers (numpy broadcasting).
  LayerId addLayers(LayerId A, LayerId B);
  LayerId mulLayers(LayerId A, LayerId B);
  LayerId divLayers(LayerId A, LayerId B);
  LayerId powLayers(LayerId A, LayerId B);
  /// Elementwise ops of a layer and a number (torch.add(x, 0.5), x * 0.5, x / 0.5, x ** 0.5).
  LayerId addScalar(LayerId X, float Scalar);
  LayerId mulScalar(LayerId X, float Scalar);
  LayerId divScalar(LayerId X, float Scalar);
  LayerId powScalar(LayerId X, float Scalar);
  /// torch.bmm / torch.matmul of two layers: [b, m, n] x [b, n, k] -> [b, m, k] (any equal
  /// leading dimensions).
  LayerId batchMatMul(LayerId A, LayerId B);
  /// torch.nn.LayerNorm(last dimension) with learned scale and shift.
  LayerId layerNorm(LayerId X, float Epsilon = 1e-5f);
  /// Square pooling window with symmetric padding.
  LayerId maxPool(LayerId X, int64_t Kernel, int64_t Stride, int64_t Pad = 0);
  /// Max pooling with TensorFlow "SAME" padding.
  LayerId maxPoolSame(LayerId X, int64_t Kernel, int64_t Stride);
  LayerId avgPool(LayerId X, int64_t Kernel, int64_t Stride, int64_t Pad = 0);
  LayerId globalAvgPool(LayerId X);
  LayerId flatten(LayerId X, int64_t Axis = 1);
  LayerId softmax(LayerId X, int64_t Axis = -1);
  /// Permutes the dimensions (torch.permute(...).contiguous()).
  LayerId transpose(LayerId X, std::vector<int64_t> Perm);
  /// Elements Start, Start + Step, ... before End of one axis (x[:, Start:End:Step]).
  LayerId slice(LayerId X, int64_t Axis, int64_t Start, int64_t End, int64_t Step = 1);
  /// Upsampling by an integer factor (torch.nn.Upsample(scale_factor=Scale)): nearest
  /// neighbour, or bilinear with align_corners=False when `Bilinear`.
  LayerId upsample(LayerId X, int64_t Scale, bool Bilinear = false);
  /// ONNX Reshape (0 copies a dimension, -1 is inferred).
  LayerId reshape(LayerId X, Shape Target);

  /// Output shape of a layer (empty when Id is InvalidLayer).
  Shape shape(LayerId Id) const;
  /// Dimension 1 of a layer's output (0 when Id is InvalidLayer).
  int64_t channels(LayerId Id) const;
  bool failed() const { return Err.has_value(); }

  /// The network, or the first error met while building it.
  support::Expected<Network> finish();

private:
  Network Net;
  support::MaybeError Err;
};

} // namespace corpus
