// Internal: the zoo's per-family builders, called by the registry in Zoo.cpp with the image size
// already resolved.
#pragma once

#include "corpus/Zoo.h"

namespace corpus::zoo {

support::Expected<Network> buildLeNet5(const ZooOptions &O);
support::Expected<Network> buildAlexNet(const ZooOptions &O);
support::Expected<Network> buildVgg16(const ZooOptions &O);
support::Expected<Network> buildResNet50(const ZooOptions &O);
support::Expected<Network> buildMobileNetV2(const ZooOptions &O, double Width, std::string Name);
/// Variant 0..7 selects EfficientNet-B0..B7's width and depth coefficients.
support::Expected<Network> buildEfficientNet(const ZooOptions &O, int Variant, std::string Name);
support::Expected<Network> buildXception(const ZooOptions &O);
/// Width 0.5, 1.0, 1.5 or 2.0 (torchvision's shufflenet_v2_x0_5 ... x2_0).
support::Expected<Network> buildShuffleNetV2(const ZooOptions &O, double Width, std::string Name);

/// DeepLabV3 on a dilated ResNet-50 with torchvision's auxiliary head (image size a multiple of 8).
support::Expected<Network> buildDeepLabV3(const ZooOptions &O);

/// EfficientNet-B<Variant>'s default resolution (224 ... 600).
int64_t efficientNetResolution(int Variant);

} // namespace corpus::zoo
