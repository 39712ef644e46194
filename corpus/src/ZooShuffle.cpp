// ShuffleNetV2 (Ma et al. 2018) as torchvision builds it: every width, its channel split and
// channel shuffle (the zoo's strided copies, docs/lowering.md).
#include "ZooModels.h"

namespace corpus::zoo {

namespace {

LayerId convBn(NetworkBuilder &B, LayerId X, int64_t Out, int64_t Kernel, int64_t Stride,
               int64_t Groups, bool Relu) {
  LayerId Y = B.batchNorm(B.conv(X, Out, Kernel, Stride, Kernel / 2, Groups));
  return Relu ? B.relu(Y) : Y;
}

/// channel_shuffle(x, 2): view(n, 2, c / 2, h, w), transpose(1, 2), contiguous, view(n, c, h, w).
LayerId channelShuffle(NetworkBuilder &B, LayerId X) {
  const Shape S = B.shape(X);
  LayerId Y = B.reshape(X, {S[0], 2, S[1] / 2, S[2], S[3]});
  return B.reshape(B.transpose(Y, {0, 2, 1, 3, 4}), S);
}

/// torchvision's InvertedResidual: stride 1 splits the channels in halves and transforms the
/// second; stride 2 transforms the whole input twice (branch1, branch2). Concat, then shuffle.
LayerId shuffleUnit(NetworkBuilder &B, LayerId X, int64_t Out, int64_t Stride) {
  const int64_t In = B.channels(X), Half = Out / 2;
  LayerId Left = X, Right = X;
  if (Stride == 1) {
    Left = B.slice(X, 1, 0, In / 2);
    Right = B.slice(X, 1, In / 2, In);
  } else {
    Left = convBn(B, convBn(B, X, In, 3, Stride, In, false), Half, 1, 1, 1, true);
  }
  Right = convBn(B, Right, Half, 1, 1, 1, true);
  Right = convBn(B, Right, Half, 3, Stride, Half, false);
  Right = convBn(B, Right, Half, 1, 1, 1, true);
  return channelShuffle(B, B.add(LayerKind::Concat, {Left, Right}, ConcatAttrs{1}));
}

} // namespace

support::Expected<Network> buildShuffleNetV2(const ZooOptions &O, double Width, std::string Name) {
  // torchvision's stages_out_channels per width; stages_repeats 4, 8, 4.
  const int64_t Channels[4][4] = {
      {48, 96, 192, 1024}, {116, 232, 464, 1024}, {176, 352, 704, 1024}, {244, 488, 976, 2048}};
  const int Row = Width == 0.5 ? 0 : Width == 1.0 ? 1 : Width == 1.5 ? 2 : 3;
  NetworkBuilder B(std::move(Name), O.dtype);
  LayerId X = B.input({O.batch, 3, O.imageSize, O.imageSize});
  X = B.maxPool(convBn(B, X, 24, 3, 2, 1, true), 3, 2, 1);
  const int Repeats[3] = {4, 8, 4};
  for (int S = 0; S < 3; ++S)
    for (int I = 0; I < Repeats[S]; ++I)
      X = shuffleUnit(B, X, Channels[Row][S], I == 0 ? 2 : 1);
  X = convBn(B, X, Channels[Row][3], 1, 1, 1, true);
  B.dense(B.flatten(B.globalAvgPool(X)), 1000); // x.mean([2, 3]), fc
  return B.finish();
}

} // namespace corpus::zoo
