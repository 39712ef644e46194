// The model zoo: CNNs from the literature built as Networks, looked up by name, plus the
// building blocks they share (exposed so ONNX tests can compare against the same blocks).
// Every builder cites the paper (and reference implementation) it follows; see docs/zoo.md.
#pragma once

#include "corpus/Builder.h"
#include "corpus/Network.h"

#include <string>
#include <string_view>
#include <vector>

namespace corpus {

/// How to instantiate a zoo model.
struct ZooOptions {
  int64_t batch = 1;
  int64_t imageSize = 0; ///< H = W; 0 means the model's own resolution
  DType dtype = DType::F32;
};

/// One zoo entry: its name, input channels and default resolution, and the paper it follows.
struct ZooModel {
  std::string name;
  int64_t channels = 3;
  int64_t imageSize = 224;
  std::string reference;
};

/// All zoo models, in a fixed order.
std::vector<ZooModel> zooModels();

/// Builds a zoo model by name. An unknown name is an Error listing the valid names; an image
/// size too small for the model is an Error from shape propagation.
support::Expected<Network> buildZooModel(std::string_view Name, const ZooOptions &Options = {});

// Building blocks (each returns the block's output layer).

/// ResNet v1.5 bottleneck (He et al. 2016; torchvision): 1x1 Width, 3x3 Width stride `Stride`
/// (dilated by `Dilation`, padding as much: a stage whose stride became dilation), 1x1 4*Width,
/// each with batch-norm; a 1x1 strided projection on the shortcut when the shape changes; relu
/// after the residual add.
LayerId resnetBottleneck(NetworkBuilder &B, LayerId X, int64_t Width, int64_t Stride,
                         int64_t Dilation = 1);

/// MobileNetV2 inverted residual (Sandler et al. 2018): 1x1 expansion (skipped when Expand = 1),
/// 3x3 depthwise stride `Stride`, 1x1 linear projection, batch-norm after each, relu6 after the
/// first two; residual add when Stride = 1 and channels match. Symmetric padding (torchvision).
LayerId invertedResidual(NetworkBuilder &B, LayerId X, int64_t OutChannels, int64_t Stride,
                         int64_t Expand);

/// EfficientNet MBConv block arguments (Tan & Le 2019, efficientnet_builder.py).
struct MBConvArgs {
  int64_t kernel = 3;
  int64_t stride = 1;
  int64_t expand = 6;
  int64_t outChannels = 0;
  double seRatio = 0.25; ///< squeeze channels = max(1, int(input channels * seRatio))
};

/// EfficientNet MBConv: expansion 1x1 (when expand != 1) + BN + swish, depthwise kxk with TF
/// "SAME" padding + BN + swish, squeeze-excitation (global pool, 1x1 reduce with bias + swish,
/// 1x1 expand with bias + sigmoid, multiply), 1x1 projection + BN, identity skip when stride 1 and
/// channels match.
LayerId mbconv(NetworkBuilder &B, LayerId X, const MBConvArgs &Args);

/// EfficientNet round_filters: channels * width, rounded to a multiple of 8 (never below 90%).
int64_t roundFilters(int64_t Channels, double Width);
/// EfficientNet round_repeats: ceil(repeats * depth).
int64_t roundRepeats(int64_t Repeats, double Depth);
/// MobileNetV2 _make_divisible(v, 8): nearest multiple of 8, at least 8, never below 90% of v.
int64_t makeDivisible(double Value, int64_t Divisor = 8);

} // namespace corpus
