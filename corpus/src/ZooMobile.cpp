// Mobile CNNs of the zoo: MobileNetV2 (all widths) and EfficientNet-B0..B7, with their blocks and
// channel-rounding rules.
#include "corpus/Zoo.h"

#include "ZooModels.h"

#include <algorithm>
#include <cmath>

namespace corpus {

// MobileNetV2 reference implementation (TF-slim / torchvision `_make_divisible`).
int64_t makeDivisible(double Value, int64_t Divisor) {
  int64_t New =
      std::max<int64_t>(Divisor, static_cast<int64_t>(Value + Divisor / 2.0) / Divisor * Divisor);
  if (static_cast<double>(New) < 0.9 * Value)
    New += Divisor;
  return New;
}

// EfficientNet reference implementation (efficientnet_model.py `round_filters`, divisor 8).
int64_t roundFilters(int64_t Channels, double Width) {
  return makeDivisible(static_cast<double>(Channels) * Width, 8);
}

// efficientnet_model.py `round_repeats`.
int64_t roundRepeats(int64_t Repeats, double Depth) {
  return static_cast<int64_t>(std::ceil(Depth * static_cast<double>(Repeats)));
}

LayerId invertedResidual(NetworkBuilder &B, LayerId X, int64_t OutChannels, int64_t Stride,
                         int64_t Expand) {
  int64_t In = B.channels(X);
  int64_t Hidden = In * Expand;
  LayerId Y = X;
  if (Expand != 1)
    Y = B.relu6(B.batchNorm(B.conv(Y, Hidden, 1, 1, 0)));
  Y = B.relu6(B.batchNorm(B.conv(Y, Hidden, 3, Stride, 1, Hidden)));
  Y = B.batchNorm(B.conv(Y, OutChannels, 1, 1, 0));
  if (Stride == 1 && In == OutChannels)
    Y = B.addLayers(X, Y);
  return Y;
}

LayerId mbconv(NetworkBuilder &B, LayerId X, const MBConvArgs &A) {
  int64_t In = B.channels(X);
  int64_t Hidden = In * A.expand;
  LayerId Y = X;
  if (A.expand != 1)
    Y = B.swish(B.batchNorm(B.conv(Y, Hidden, 1, 1, 0), 1e-3f));
  Y = B.swish(B.batchNorm(B.convSame(Y, Hidden, A.kernel, A.stride, Hidden), 1e-3f));
  int64_t Squeeze = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(In) * A.seRatio));
  LayerId S = B.globalAvgPool(Y);
  S = B.swish(B.conv(S, Squeeze, 1, 1, 0, 1, true));
  S = B.sigmoid(B.conv(S, Hidden, 1, 1, 0, 1, true));
  Y = B.mulLayers(Y, S);
  Y = B.batchNorm(B.conv(Y, A.outChannels, 1, 1, 0), 1e-3f);
  if (A.stride == 1 && In == A.outChannels)
    Y = B.addLayers(Y, X);
  return Y;
}

namespace zoo {

// MobileNetV2 (Sandler et al. 2018, Table 2) following the reference implementations (TF-slim,
// Keras, torchvision): every layer's channels are width * c rounded by makeDivisible, except the
// last 1x1 convolution, which stays at 1280 for widths below 1 (paper, section 6.1).
support::Expected<Network> buildMobileNetV2(const ZooOptions &O, double Width, std::string Name) {
  NetworkBuilder B(std::move(Name), O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.relu6(B.batchNorm(B.conv(X, makeDivisible(32 * Width), 3, 2, 1)));
  // t (expansion), c (channels), n (repeats), s (stride of the first repeat): paper Table 2.
  const int64_t Settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto &S : Settings) {
    int64_t Out = makeDivisible(static_cast<double>(S[1]) * Width);
    for (int64_t I = 0; I < S[2]; ++I)
      X = invertedResidual(B, X, Out, I == 0 ? S[3] : 1, S[0]);
  }
  X = B.relu6(B.batchNorm(B.conv(X, makeDivisible(1280 * std::max(1.0, Width)), 1, 1, 0)));
  X = B.flatten(B.globalAvgPool(X));
  B.dense(X, 1000);
  return B.finish();
}

namespace {

struct Scaling {
  double width, depth;
  int64_t resolution;
};

// EfficientNet paper (Tan & Le 2019) / efficientnet_builder.py efficientnet_params().
constexpr Scaling Coefficients[8] = {{1.0, 1.0, 224}, {1.0, 1.1, 240}, {1.1, 1.2, 260},
                                     {1.2, 1.4, 300}, {1.4, 1.8, 380}, {1.6, 2.2, 456},
                                     {1.8, 2.6, 528}, {2.0, 3.1, 600}};

} // namespace

int64_t efficientNetResolution(int Variant) {
  assert(Variant >= 0 && Variant < 8 && "EfficientNet variant out of range");
  return Coefficients[Variant].resolution;
}

// EfficientNet-B0 (paper Table 1; efficientnet_builder.py _DEFAULT_BLOCKS_ARGS) scaled by the
// variant's width and depth coefficients with round_filters / round_repeats. Batch-norm epsilon
// 1e-3 as in the reference; TF "SAME" padding; drop-connect and dropout vanish at inference.
support::Expected<Network> buildEfficientNet(const ZooOptions &O, int Variant, std::string Name) {
  const Scaling &C = Coefficients[Variant];
  NetworkBuilder B(std::move(Name), O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.swish(B.batchNorm(B.convSame(X, roundFilters(32, C.width), 3, 2), 1e-3f));
  // repeats, kernel, stride, expansion, output channels ("r1_k3_s11_e1_i32_o16_se0.25", ...).
  const int64_t Blocks[7][5] = {{1, 3, 1, 1, 16}, {2, 3, 2, 6, 24},  {2, 5, 2, 6, 40},
                                {3, 3, 2, 6, 80}, {3, 5, 1, 6, 112}, {4, 5, 2, 6, 192},
                                {1, 3, 1, 6, 320}};
  for (const auto &Blk : Blocks) {
    int64_t Repeats = roundRepeats(Blk[0], C.depth);
    for (int64_t I = 0; I < Repeats; ++I) {
      MBConvArgs A;
      A.kernel = Blk[1];
      A.stride = I == 0 ? Blk[2] : 1;
      A.expand = Blk[3];
      A.outChannels = roundFilters(Blk[4], C.width);
      X = mbconv(B, X, A);
    }
  }
  X = B.swish(B.batchNorm(B.conv(X, roundFilters(1280, C.width), 1, 1, 0), 1e-3f));
  X = B.flatten(B.globalAvgPool(X));
  B.dense(X, 1000);
  return B.finish();
}

} // namespace zoo
} // namespace corpus
