// Xception (Chollet 2017): entry, middle and exit flows of depthwise separable convolutions.
#include "ZooModels.h"

namespace corpus::zoo {
namespace {

/// Keras SeparableConv2D (no bias): 3x3 depthwise with "same" padding, then a 1x1 pointwise.
LayerId separable(NetworkBuilder &B, LayerId X, int64_t Out) {
  int64_t In = B.channels(X);
  return B.conv(B.convSame(X, In, 3, 1, In), Out, 1, 1, 0);
}

/// Entry/exit-flow block: [relu] sep(Mid) BN relu sep(Out) BN, 3x3/2 max pool, plus a strided 1x1
/// projection of the input.
LayerId downBlock(NetworkBuilder &B, LayerId X, int64_t Mid, int64_t Out, bool LeadingRelu) {
  LayerId Residual = B.batchNorm(B.convSame(X, Out, 1, 2), 1e-3f);
  LayerId Y = LeadingRelu ? B.relu(X) : X;
  Y = B.relu(B.batchNorm(separable(B, Y, Mid), 1e-3f));
  Y = B.batchNorm(separable(B, Y, Out), 1e-3f);
  Y = B.maxPoolSame(Y, 3, 2);
  return B.addLayers(Y, Residual);
}

} // namespace

// Xception (Chollet 2017, Figure 5) as in Keras applications/xception.py: 299x299 input, batch
// norm after every convolution, no convolution biases, a dense 1000-way classifier.
support::Expected<Network> buildXception(const ZooOptions &O) {
  NetworkBuilder B("xception", O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  // Entry flow.
  X = B.relu(B.batchNorm(B.conv(X, 32, 3, 2, 0), 1e-3f));
  X = B.relu(B.batchNorm(B.conv(X, 64, 3, 1, 0), 1e-3f));
  X = downBlock(B, X, 128, 128, false);
  X = downBlock(B, X, 256, 256, true);
  X = downBlock(B, X, 728, 728, true);
  // Middle flow: 8 residual blocks of three relu-separable-BN units.
  for (int I = 0; I < 8; ++I) {
    LayerId Y = X;
    for (int J = 0; J < 3; ++J)
      Y = B.batchNorm(separable(B, B.relu(Y), 728), 1e-3f);
    X = B.addLayers(Y, X);
  }
  // Exit flow.
  X = downBlock(B, X, 728, 1024, true);
  X = B.relu(B.batchNorm(separable(B, X, 1536), 1e-3f));
  X = B.relu(B.batchNorm(separable(B, X, 2048), 1e-3f));
  X = B.flatten(B.globalAvgPool(X));
  B.dense(X, 1000);
  return B.finish();
}

} // namespace corpus::zoo
