// DeepLabV3 (Chen et al. 2017) on a dilated ResNet-50, as torchvision's deeplabv3_resnet50 with
// its shipped weights' auxiliary FCN head: semantic segmentation, output stride 8.
#include "ZooModels.h"

namespace corpus::zoo {
namespace {

/// A convolution without bias, square kernel K, dilation D and padding D x (K - 1) / 2 (the
/// output keeps its size at stride 1), then batch norm and relu.
LayerId convBnRelu(NetworkBuilder &B, LayerId X, int64_t Out, int64_t K, int64_t D = 1) {
  return B.relu(B.batchNorm(B.conv(X, Out, K, 1, D * (K - 1) / 2, 1, false, D)));
}

/// ASPP (atrous spatial pyramid pooling, torchvision's DeepLabHead): a 1x1 branch, 3x3 branches
/// at dilations 12, 24 and 36, and image pooling (global average, 1x1 conv, bilinear back to
/// the map's size), 256 channels each, concatenated and projected to 256.
LayerId aspp(NetworkBuilder &B, LayerId X, int64_t Size) {
  std::vector<LayerId> Branches = {convBnRelu(B, X, 256, 1)};
  for (int64_t D : {12, 24, 36})
    Branches.push_back(convBnRelu(B, X, 256, 3, D));
  LayerId Pooled = convBnRelu(B, B.globalAvgPool(X), 256, 1);
  Branches.push_back(B.upsample(Pooled, Size, /*Bilinear=*/true));
  return convBnRelu(B, B.add(LayerKind::Concat, Branches, ConcatAttrs{1}), 256, 1);
}

} // namespace

// DeepLabV3-ResNet50 (Chen et al. 2017, Rethinking atrous convolution for semantic image
// segmentation) as torchvision's deeplabv3_resnet50 with its shipped weights (21 classes, the
// auxiliary FCN head on layer3, which runs at inference too): ResNet-50 whose last two stages
// keep stride 8 and dilate instead (the first block of a stage at the previous dilation), the
// ASPP head, a 3x3 conv and the 1x1 classifier, each head upsampled 8x bilinearly to the input.
// Dropout is omitted (inference).
support::Expected<Network> buildDeepLabV3(const ZooOptions &O) {
  if (O.imageSize % 8 != 0)
    return support::Error("model 'deeplabv3-resnet50': the image size must be a multiple of 8 "
                          "(output stride 8), got " +
                          std::to_string(O.imageSize));
  NetworkBuilder B("deeplabv3-resnet50", O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.relu(B.batchNorm(B.conv(X, 64, 7, 2, 3)));
  X = B.maxPool(X, 3, 2, 1);
  for (int64_t I = 0; I < 3; ++I)
    X = resnetBottleneck(B, X, 64, 1);
  for (int64_t I = 0; I < 4; ++I)
    X = resnetBottleneck(B, X, 128, I == 0 ? 2 : 1);
  for (int64_t I = 0; I < 6; ++I) // layer3: dilation 2 (the first block at 1)
    X = resnetBottleneck(B, X, 256, 1, I == 0 ? 1 : 2);
  const LayerId Layer3 = X;
  for (int64_t I = 0; I < 3; ++I) // layer4: dilation 4 (the first block at 2)
    X = resnetBottleneck(B, X, 512, 1, I == 0 ? 2 : 4);
  const int64_t Size = O.imageSize / 8;
  X = convBnRelu(B, aspp(B, X, Size), 256, 3);
  B.upsample(B.conv(X, 21, 1, 1, 0, 1, true), 8, /*Bilinear=*/true);
  // The auxiliary FCN head (torchvision's FCNHead(1024, 21)).
  LayerId Aux = convBnRelu(B, Layer3, 256, 3);
  B.upsample(B.conv(Aux, 21, 1, 1, 0, 1, true), 8, /*Bilinear=*/true);
  return B.finish();
}

} // namespace corpus::zoo
