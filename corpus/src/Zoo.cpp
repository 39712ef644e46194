// The zoo registry (lookup by name) and the classic plain/residual CNNs: LeNet-5, AlexNet,
// VGG-16, ResNet-50.
#include "corpus/Zoo.h"

#include "ZooModels.h"

#include <functional>

namespace corpus {
namespace {

using Builder = std::function<support::Expected<Network>(const ZooOptions &)>;

struct Entry {
  ZooModel model;
  Builder build;
};

std::string widthName(double Width) {
  std::string S = std::to_string(Width); // "0.350000"
  while (S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S += "0";
  return S;
}

std::vector<Entry> registry() {
  std::vector<Entry> R;
  R.push_back({{"lenet5", 1, 32,
                "LeCun et al. 1998, Gradient-based learning applied to document "
                "recognition (Proc. IEEE)"},
               zoo::buildLeNet5});
  R.push_back({{"alexnet", 3, 224,
                "Krizhevsky 2014, One weird trick for parallelizing CNNs "
                "(arXiv:1404.5997); torchvision variant"},
               zoo::buildAlexNet});
  R.push_back({{"vgg16", 3, 224,
                "Simonyan & Zisserman 2015, Very deep convolutional networks "
                "(ICLR), configuration D"},
               zoo::buildVgg16});
  R.push_back({{"resnet50", 3, 224,
                "He et al. 2016, Deep residual learning (CVPR); torchvision "
                "v1.5 (stride on the 3x3)"},
               zoo::buildResNet50});
  const std::string MobileRef = "Sandler et al. 2018, MobileNetV2: inverted residuals and linear "
                                "bottlenecks (CVPR)";
  R.push_back({{"mobilenetv2", 3, 224, MobileRef + ", width 1.0"},
               [](const ZooOptions &O) { return zoo::buildMobileNetV2(O, 1.0, "mobilenetv2"); }});
  for (double W : {0.35, 0.5, 0.75, 1.0, 1.3, 1.4}) {
    std::string Name = "mobilenetv2-" + widthName(W);
    R.push_back({{Name, 3, 224, MobileRef + ", width " + widthName(W)},
                 [W, Name](const ZooOptions &O) { return zoo::buildMobileNetV2(O, W, Name); }});
  }
  for (int V = 0; V <= 7; ++V) {
    std::string Name = "efficientnet-b" + std::to_string(V);
    R.push_back({{Name, 3, zoo::efficientNetResolution(V),
                  "Tan & Le 2019, EfficientNet: rethinking model scaling for CNNs (ICML)"},
                 [V, Name](const ZooOptions &O) { return zoo::buildEfficientNet(O, V, Name); }});
  }
  R.push_back({{"xception", 3, 299,
                "Chollet 2017, Xception: deep learning with depthwise "
                "separable convolutions (CVPR)"},
               zoo::buildXception});
  for (double W : {0.5, 1.0, 1.5, 2.0}) {
    std::string Name = "shufflenetv2-" + widthName(W);
    R.push_back({{Name, 3, 224,
                  "Ma et al. 2018, ShuffleNet V2: practical guidelines for efficient CNN "
                  "architecture design (ECCV); torchvision, width " +
                      widthName(W)},
                 [W, Name](const ZooOptions &O) { return zoo::buildShuffleNetV2(O, W, Name); }});
  }
  R.push_back({{"deeplabv3-resnet50", 3, 520,
                "Chen et al. 2017, Rethinking atrous convolution for semantic image "
                "segmentation (arXiv:1706.05587); torchvision deeplabv3_resnet50 with its "
                "auxiliary head, 21 classes"},
               zoo::buildDeepLabV3});
  return R;
}

} // namespace

std::vector<ZooModel> zooModels() {
  std::vector<ZooModel> Models;
  for (const Entry &E : registry())
    Models.push_back(E.model);
  return Models;
}

support::Expected<Network> buildZooModel(std::string_view Name, const ZooOptions &Options) {
  std::vector<Entry> R = registry();
  for (const Entry &E : R) {
    if (E.model.name != Name)
      continue;
    if (Options.batch <= 0 || Options.imageSize < 0)
      return support::Error("model '" + std::string(Name) +
                            "': batch and image size must be "
                            "positive");
    ZooOptions O = Options;
    if (O.imageSize == 0)
      O.imageSize = E.model.imageSize;
    return E.build(O);
  }
  std::string Valid;
  for (const Entry &E : R)
    Valid += (Valid.empty() ? "" : ", ") + E.model.name;
  return support::Error("unknown model '" + std::string(Name) + "' (valid: " + Valid + ")");
}

namespace zoo {

// LeNet-5 (LeCun et al. 1998) as commonly re-implemented: C3 fully connected to S2 (the paper
// uses a partial connection table), S2/S4 as plain 2x2 average pooling (the paper's have a
// trainable coefficient and bias), C5/F6 as dense layers, a dense 10-way output instead of the
// RBF layer; tanh activations. 61,706 parameters, 416,520 MACs at 32x32.
support::Expected<Network> buildLeNet5(const ZooOptions &O) {
  NetworkBuilder B("lenet5", O.dtype);
  LayerId X = B.input({O.batch, 1, O.imageSize, O.imageSize});
  X = B.activation(B.conv(X, 6, 5, 1, 0, 1, true), ActKind::Tanh);
  X = B.avgPool(X, 2, 2);
  X = B.activation(B.conv(X, 16, 5, 1, 0, 1, true), ActKind::Tanh);
  X = B.avgPool(X, 2, 2);
  X = B.flatten(X);
  X = B.activation(B.dense(X, 120), ActKind::Tanh);
  X = B.activation(B.dense(X, 84), ActKind::Tanh);
  B.dense(X, 10);
  return B.finish();
}

// AlexNet, torchvision's variant (Krizhevsky 2014 "one weird trick": 64/192/384/256/256 filters,
// single tower). torchvision's AdaptiveAvgPool2d(6x6) is the identity at 224 and is omitted, so
// at other sizes the first dense layer takes the whole flattened feature map.
support::Expected<Network> buildAlexNet(const ZooOptions &O) {
  NetworkBuilder B("alexnet", O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.maxPool(B.relu(B.conv(X, 64, 11, 4, 2, 1, true)), 3, 2);
  X = B.maxPool(B.relu(B.conv(X, 192, 5, 1, 2, 1, true)), 3, 2);
  X = B.relu(B.conv(X, 384, 3, 1, 1, 1, true));
  X = B.relu(B.conv(X, 256, 3, 1, 1, 1, true));
  X = B.maxPool(B.relu(B.conv(X, 256, 3, 1, 1, 1, true)), 3, 2);
  X = B.flatten(X);
  X = B.relu(B.dense(X, 4096));
  X = B.relu(B.dense(X, 4096));
  B.dense(X, 1000);
  return B.finish();
}

// VGG-16 (Simonyan & Zisserman 2015, configuration D): 13 3x3 convolutions with bias and relu,
// five 2x2 max pools, three dense layers.
support::Expected<Network> buildVgg16(const ZooOptions &O) {
  NetworkBuilder B("vgg16", O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  const int64_t Stages[5][2] = {{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}};
  for (const auto &S : Stages) {
    for (int64_t I = 0; I < S[1]; ++I)
      X = B.relu(B.conv(X, S[0], 3, 1, 1, 1, true));
    X = B.maxPool(X, 2, 2);
  }
  X = B.flatten(X);
  X = B.relu(B.dense(X, 4096));
  X = B.relu(B.dense(X, 4096));
  B.dense(X, 1000);
  return B.finish();
}

// ResNet-50 (He et al. 2016) as in torchvision (v1.5: the stride sits on the 3x3 convolution).
support::Expected<Network> buildResNet50(const ZooOptions &O) {
  NetworkBuilder B("resnet50", O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.relu(B.batchNorm(B.conv(X, 64, 7, 2, 3)));
  X = B.maxPool(X, 3, 2, 1);
  const int64_t Stages[4][3] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  for (const auto &S : Stages)
    for (int64_t I = 0; I < S[1]; ++I)
      X = resnetBottleneck(B, X, S[0], I == 0 ? S[2] : 1);
  X = B.flatten(B.globalAvgPool(X));
  B.dense(X, 1000);
  return B.finish();
}

} // namespace zoo

LayerId resnetBottleneck(NetworkBuilder &B, LayerId X, int64_t Width, int64_t Stride,
                         int64_t Dilation) {
  LayerId Y = B.relu(B.batchNorm(B.conv(X, Width, 1, 1, 0)));
  Y = B.relu(B.batchNorm(B.conv(Y, Width, 3, Stride, Dilation, 1, false, Dilation)));
  Y = B.batchNorm(B.conv(Y, 4 * Width, 1, 1, 0));
  LayerId Shortcut = X;
  if (Stride != 1 || B.channels(X) != 4 * Width)
    Shortcut = B.batchNorm(B.conv(X, 4 * Width, 1, Stride, 0));
  return B.relu(B.addLayers(Y, Shortcut));
}

} // namespace corpus
