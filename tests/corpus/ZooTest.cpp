// Zoo acceptance test: every model's parameters within 1% and MACs within 3% of published figures.
//
// Sources of the reference figures (docs/zoo.md has the same table):
// [TV]   torchvision model metadata (torchvision/models/*.py, `num_params` and `_ops` in GFLOPS,
//        which torchvision counts as multiply-accumulates), e.g. efficientnet.py, resnet.py.
// [SLIM] TF-slim MobileNetV2 table (tensorflow/models research/slim/nets/mobilenet/README.md):
//        MACs (M) and parameters (M). Its parameter column leaves out batch-norm gamma/beta (for
//        width 1.0, 3.47 M = 3,504,872 - 34,112 BN parameters), so it is compared with our
//        count minus batch-norm parameters.
// [MV2]  Sandler et al. 2018, MobileNetV2, Table 4: 3.4 M / 300 M MAdds for width 1.0.
// [EFF]  Tan & Le 2019, EfficientNet, Table 2: params and FLOPs (= multiply-adds), rounded to
//        2 significant digits; parameters are compared with [TV]'s exact counts instead.
// [VGG]  Simonyan & Zisserman 2015, Table 2: 138 M parameters for configuration D.
// [XC]   Chollet 2017, Xception, Table 3: 22,855,952 parameters (Keras: 22,910,480 with BN
//        statistics); 8.4 G MACs from osmr/imgclsmob's model table (8,403.63 M).
// [SHUF] Ma et al. 2018, ShuffleNet V2, Table 5: 41 M, 146 M, 299 M and 591 M FLOPs (= MACs)
//        for widths 0.5, 1, 1.5 and 2; parameters from [TV] (shufflenetv2.py `num_params`).
// [TV] also gives deeplabv3_resnet50's 42,004,074 parameters and 178.722 GFLOPS at 520x520
//        (segmentation.deeplabv3, the COCO_WITH_VOC_LABELS_V1 weights, auxiliary head included).
// [LENET] LeNet-5 as re-implemented with full C3 connections: 61,706 parameters and 416,520 MACs,
//        derived by hand below.
#include "corpus/Zoo.h"

#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace corpus;

namespace {

struct Published {
  const char *name;
  int64_t image; ///< resolution the figures are for
  double params; ///< parameters (with BN gamma/beta unless noted)
  double macs;   ///< multiply-accumulates per image
  const char *source;
};

double relErr(double Measured, double Expected) {
  return std::fabs(Measured - Expected) / Expected;
}

Network build(const std::string &Name, int64_t Image = 0, int64_t Batch = 1) {
  ZooOptions O;
  O.batch = Batch;
  O.imageSize = Image;
  auto N = buildZooModel(Name, O);
  REQUIRE_MESSAGE(bool(N), support::errorText(N));
  return std::move(*N);
}

int64_t paramsWithoutBatchNorm(const Network &N) {
  int64_t P = 0;
  for (const Layer &L : N.layers())
    if (L.kind != LayerKind::BatchNorm)
      P += L.params;
  return P;
}

} // namespace

TEST_CASE("zoo: published parameter and MAC counts") {
  const Published Table[] = {
      {"resnet50", 224, 25557032, 4.089e9, "TV resnet50 (4.1 G)"},
      {"mobilenetv2", 224, 3504872, 0.300e9, "TV mobilenet_v2 params; MV2 Table 4 300 M"},
      {"vgg16", 224, 138357544, 15.47e9, "TV vgg16; VGG 138 M"},
      {"alexnet", 224, 61100840, 0.714e9, "TV alexnet (torchvision variant)"},
      {"xception", 299, 22855952, 8.4e9, "XC"},
      {"lenet5", 32, 61706, 416520, "LENET, by hand"},
      // EfficientNet: parameters from TV (exact), MACs from EFF Table 2 where it agrees with the
      // reference implementation within 3%.
      {"efficientnet-b0", 224, 5288548, 0.39e9, "TV params, EFF 0.39 B"},
      {"efficientnet-b1", 240, 7794184, 0.70e9, "TV params, EFF 0.70 B"},
      {"efficientnet-b2", 260, 9109994, 1.0e9, "TV params, EFF 1.0 B"},
      {"efficientnet-b3", 300, 12233232, 1.8e9, "TV params, EFF 1.8 B"},
      // EFF Table 2 says 4.2 B and 9.9 B; the reference architecture gives 4.394 G and 10.266 G
      // ([TV] `_ops`; also thop counts in Lyken17/pytorch-OpCounter#69), 4.6% and 3.7% above the
      // paper. We compare with [TV] and record the paper gap in docs/zoo.md.
      {"efficientnet-b4", 380, 19341616, 4.394e9, "TV (EFF 4.2 B is 4.6% lower)"},
      {"efficientnet-b5", 456, 30389784, 10.266e9, "TV (EFF 9.9 B is 3.7% lower)"},
      {"efficientnet-b6", 528, 43040704, 19e9, "TV params, EFF 19 B"},
      {"efficientnet-b7", 600, 66347960, 37e9, "TV params, EFF 37 B"},
      {"shufflenetv2-0.5", 224, 1366792, 41e6, "TV params, SHUF 41 M"},
      {"shufflenetv2-1.0", 224, 2278604, 146e6, "TV params, SHUF 146 M"},
      {"shufflenetv2-1.5", 224, 3503624, 299e6, "TV params, SHUF 299 M"},
      {"shufflenetv2-2.0", 224, 7393996, 591e6, "TV params, SHUF 591 M"},
      {"deeplabv3-resnet50", 520, 42004074, 178.722e9, "TV deeplabv3_resnet50 (with aux head)"},
  };
  for (const Published &P : Table) {
    CAPTURE(P.name);
    CAPTURE(P.source);
    Network N = build(P.name);
    CHECK(N.layer(0).shape[2] == P.image);
    CHECK(relErr(static_cast<double>(N.params()), P.params) < 0.01);
    CHECK(relErr(static_cast<double>(N.macs()), P.macs) < 0.03);
  }
}

TEST_CASE("zoo: mobilenetv2 widths match the TF-slim table") {
  // [SLIM]: width, MACs (M), parameters (M, without batch-norm).
  const struct {
    const char *name;
    double macs, params;
  } Table[] = {{"mobilenetv2-0.35", 59, 1.66},  {"mobilenetv2-0.5", 97, 1.95},
               {"mobilenetv2-0.75", 209, 2.61}, {"mobilenetv2-1.0", 300, 3.47},
               {"mobilenetv2-1.3", 509, 5.34},  {"mobilenetv2-1.4", 582, 6.06}};
  for (const auto &Row : Table) {
    CAPTURE(Row.name);
    Network N = build(Row.name);
    CHECK(relErr(static_cast<double>(N.macs()), Row.macs * 1e6) < 0.03);
    CHECK(relErr(static_cast<double>(paramsWithoutBatchNorm(N)), Row.params * 1e6) < 0.01);
  }
  // [MV2] Table 4 gives 585 M MAdds for width 1.4 (its 6.9 M parameters disagree with the
  // reference implementation's 6.06 M and are not checked).
  CHECK(relErr(static_cast<double>(build("mobilenetv2-1.4").macs()), 585e6) < 0.03);
}

TEST_CASE("zoo: efficientnet-b2 at torchvision's 288x288 matches its _ops") {
  CHECK(relErr(static_cast<double>(build("efficientnet-b2", 288).macs()), 1.088e9) < 0.01);
}

TEST_CASE("zoo: lenet5 layer by layer (hand-derived)") {
  Network N = build("lenet5");
  // conv1 6@5x5 on 1x32x32 -> 28x28: 6*25+6 params, 6*28*28*25 MACs.
  // conv2 16@5x5x6 on 14x14 -> 10x10: 16*150+16 params, 16*10*10*150 MACs.
  // dense 400->120, 120->84, 84->10.
  int64_t ConvParams = (6 * 25 + 6) + (16 * 150 + 16);
  int64_t DenseParams = (400 * 120 + 120) + (120 * 84 + 84) + (84 * 10 + 10);
  CHECK(N.params() == ConvParams + DenseParams);
  CHECK(N.macs() == 6 * 28 * 28 * 25 + 16 * 10 * 10 * 150 + 400 * 120 + 120 * 84 + 84 * 10);
}

TEST_CASE("zoo: batch scales MACs, not parameters, image size changes shapes") {
  Network One = build("resnet50", 224, 1), Four = build("resnet50", 224, 4);
  CHECK(Four.macs() == 4 * One.macs());
  CHECK(Four.params() == One.params());
  CHECK(Four.layer(Four.outputs()[0]).shape == Shape{4, 1000});
  Network Small = build("mobilenetv2", 160);
  CHECK(relErr(static_cast<double>(Small.macs()), 154e6) < 0.03); // [SLIM] 1.0_160: 154 M
  Network Half = build("efficientnet-b0", 112);
  CHECK(Half.layer(0).shape == Shape{1, 3, 112, 112});
}

TEST_CASE("zoo: names, defaults and errors") {
  std::set<std::string> Names;
  for (const ZooModel &M : zooModels()) {
    CHECK(Names.insert(M.name).second);
    CHECK(!M.reference.empty());
  }
  for (const char *Expected :
       {"lenet5", "alexnet", "vgg16", "resnet50", "mobilenetv2", "mobilenetv2-0.35",
        "mobilenetv2-0.5", "mobilenetv2-0.75", "mobilenetv2-1.0", "mobilenetv2-1.3",
        "mobilenetv2-1.4", "efficientnet-b0", "efficientnet-b7", "xception"})
    CHECK(Names.count(Expected) == 1);
  CHECK(build("efficientnet-b7").layer(0).shape == Shape{1, 3, 600, 600});

  auto Unknown = buildZooModel("resnet51");
  REQUIRE(!Unknown);
  std::string Msg = Unknown.error().str();
  CHECK(Msg.find("error: unknown model 'resnet51' (valid: lenet5, alexnet,") == 0);
  CHECK(Msg.find("xception, shufflenetv2-0.5,") != std::string::npos);
  CHECK(Msg.find("shufflenetv2-2.0, deeplabv3-resnet50)") != std::string::npos);
  ZooOptions Odd;
  Odd.imageSize = 225; // DeepLabV3 upsamples its stride-8 maps 8x back to the input
  auto NotEight = buildZooModel("deeplabv3-resnet50", Odd);
  REQUIRE(!NotEight);
  CHECK(NotEight.error().message == "model 'deeplabv3-resnet50': the image size must be a "
                                    "multiple of 8 (output stride 8), got 225");

  ZooOptions Tiny;
  Tiny.imageSize = 8; // too small for LeNet-5's two 5x5 convolutions
  auto TooSmall = buildZooModel("lenet5", Tiny);
  REQUIRE(!TooSmall);
  CHECK(TooSmall.error().str().find("does not fit input") != std::string::npos);
}

TEST_CASE("zoo: blocks are well-formed DAGs") {
  for (const ZooModel &M : zooModels()) {
    CAPTURE(M.name);
    Network N = build(M.name);
    CHECK(N.inputs().size() == 1);
    // DeepLabV3's shipped weights also run its auxiliary head: torchvision returns both maps.
    CHECK(N.outputs().size() == (M.name == "deeplabv3-resnet50" ? 2u : 1u));
    for (size_t I = 0; I < N.size(); ++I)
      for (LayerId In : N.layer(static_cast<LayerId>(I)).inputs)
        CHECK(In < I);
  }
}

namespace {

int64_t parseCount(std::string S) {
  std::string Digits;
  for (char C : S)
    if (C != ',' && C != ' ')
      Digits += C;
  return std::stoll(Digits);
}

std::vector<std::string> cells(const std::string &Line) {
  std::vector<std::string> Out;
  size_t Start = 1;
  for (size_t Bar = Line.find('|', Start); Bar != std::string::npos;
       Start = Bar + 1, Bar = Line.find('|', Start)) {
    std::string C = Line.substr(Start, Bar - Start);
    C.erase(0, C.find_first_not_of(' '));
    C.erase(C.find_last_not_of(' ') + 1);
    Out.push_back(C);
  }
  return Out;
}

} // namespace

TEST_CASE("zoo: docs/zoo.md's measured columns match the zoo") {
  std::ifstream In(std::string(PTXCAST_SOURCE_DIR) + "/docs/zoo.md");
  REQUIRE(In);
  std::set<std::string> Names;
  for (const ZooModel &M : zooModels())
    Names.insert(M.name);
  std::set<std::string> Seen;
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind("| ", 0) != 0)
      continue;
    std::vector<std::string> C = cells(Line);
    // | model | input | params (measured) | MACs (measured) | layers | ...
    if (C.size() < 5 || !Names.count(C[0]) || C[2].empty() || !std::isdigit(C[2][0]))
      continue;
    CAPTURE(C[0]);
    Network N = build(C[0]);
    const Shape &S = N.layer(0).shape;
    CHECK(C[1] == std::to_string(S[1]) + "x" + std::to_string(S[2]) + "x" + std::to_string(S[3]));
    CHECK(parseCount(C[2]) == N.params());
    CHECK(parseCount(C[3]) == N.macs());
    CHECK(parseCount(C[4]) == static_cast<int64_t>(N.computeLayerCount()));
    Seen.insert(C[0]);
  }
  CHECK(Seen == Names); // every model has a row
}
