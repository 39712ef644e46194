// pipeline/Calibration.h: timings read with their errors, the geometric-mean factor, and a
// calibrated prediction scaled by it. The timings here are synthetic (multiples of ptxcast's own
// predictions), for the mechanics only.
#include "pipeline/Calibration.h"
#include "pipeline/Documents.h"

#include "support/Files.h"

#include <doctest/doctest.h>
#include <fmt/core.h>

#include <cmath>
#include <string>

namespace {

const hardware::GpuCatalog &catalog() {
  static const hardware::GpuCatalog C = *hardware::GpuCatalog::builtin();
  return C;
}

/// Text written to a file of the test's own; returns its path.
std::string file(const std::string &Name, const std::string &Text) {
  REQUIRE(!support::writeFileAtomically(Name, Text));
  return Name;
}

std::string readError(const std::string &Text) {
  auto M = pipeline::readMeasurements(file("calibration_test.csv", Text), catalog());
  REQUIRE(!M);
  return M.error().str();
}

pipeline::PredictRequest request(const std::string &Network, const std::string &Calibrate = "") {
  pipeline::PredictRequest R;
  R.network.input = Network;
  R.network.batch = 8;
  R.network.progress = [](size_t, size_t) {};
  R.gpu = "t4";
  R.calibrate = Calibrate;
  return R;
}

} // namespace

TEST_CASE("calibration: timings are read by column name, and bad rows name their line") {
  auto M = pipeline::readMeasurements(
      file("calibration_test.csv", "network,gpu,batch,dtype,runtime,measured_ms,image_size\n"
                                   "resnet50,T4,8,f16,eager,12.5,\n"
                                   "vgg16,rtx4090,64,f32,graph,3,192\n"),
      catalog());
  REQUIRE_MESSAGE(M, support::errorText(M));
  REQUIRE(M->size() == 2);
  CHECK((*M)[0].gpu == "t4"); // canonical catalog names
  CHECK((*M)[0].imageSize == 0);
  CHECK((*M)[0].ms == 12.5);
  CHECK((*M)[0].line == 2);
  CHECK((*M)[1].gpu == "rtx-4090");
  CHECK((*M)[1].imageSize == 192);
  CHECK(readError("gpu,network,batch,dtype,runtime\nt4,resnet50,8,f32,graph\n")
            .find("calibration_test.csv:1: error: missing column 'measured_ms'") == 0);
  CHECK(readError("gpu,network,batch,dtype,runtime,measured_ms\nt5,resnet50,8,f32,graph,1\n")
            .find("calibration_test.csv:2: error: unknown gpu 't5'") == 0);
  CHECK(readError("gpu,network,batch,dtype,runtime,measured_ms\nt4,resnet50,0,f32,graph,1\n") ==
        "calibration_test.csv:2: error: column 'batch': 0 is not in 1..4096");
  CHECK(readError("gpu,network,batch,dtype,runtime,measured_ms\nt4,resnet50,8,f32,graph,0\n") ==
        "calibration_test.csv:2: error: column 'measured_ms': a measured time must be above 0, "
        "got '0'");
  CHECK(readError("gpu,network,batch,dtype,runtime,measured_ms\n") ==
        "calibration_test.csv:1: error: no timings: expected one row per measured network");
  // A dtype is read as `--dtype` reads it: its other spellings, and nothing else (an unknown one
  // was read as f32).
  auto Half = pipeline::readMeasurements(
      file("calibration_test.csv", "gpu,network,batch,dtype,runtime,measured_ms\n"
                                   "t4,resnet50,8,half,graph,1\nt4,resnet50,8,fp32,graph,1\n"),
      catalog());
  REQUIRE_MESSAGE(Half, support::errorText(Half));
  CHECK((*Half)[0].dtype == "f16");
  CHECK((*Half)[1].dtype == "f32");
  CHECK(readError("gpu,network,batch,dtype,runtime,measured_ms\nt4,resnet50,8,F16,graph,1\n") ==
        "calibration_test.csv:2: error: column 'dtype': 'F16' is not f32, f16 or int8 (also "
        "fp32, float, float32, fp16, half, float16, i8)");
}

TEST_CASE("calibration: the geometric mean of measured / predicted, drawn toward 1") {
  // Three timings: log 4 / 3 on average, weighed 3 / (3 + TimingNoiseToSpread).
  pipeline::Calibration C{"t4", {2.0, 0.5, 4.0}};
  CHECK(C.factor() == doctest::Approx(std::pow(4.0, 1 / (3 + pipeline::TimingNoiseToSpread))));
  CHECK(C.factor() > 1);
  CHECK(C.factor() < std::cbrt(4.0));
  // The more timings agree, the closer the factor comes to them.
  pipeline::Calibration Many{"t4", std::vector<double>(50, 2.0)};
  CHECK(Many.factor() == doctest::Approx(2.0).epsilon(0.02));
  CHECK(pipeline::Calibration{"t4", {}}.factor() == 1);
  pipeline::GpuPrediction G;
  G.gpu.name = "t4";
  G.timeMs = 10, G.gpuMs = 9, G.hostMs = 1;
  G.intervalMs = std::make_pair(9.0, 13.0);
  G.breakdown = {{"conv", 3, 9}};
  const pipeline::Calibration Two{"t4", {4.0, 4.0}};
  const double F = Two.factor(); // 4^(2 / (2 + TimingNoiseToSpread))
  CHECK(F == doctest::Approx(std::pow(4.0, 2 / (2 + pipeline::TimingNoiseToSpread))));
  pipeline::applyCalibration(G, Two);
  CHECK(G.timeMs == doctest::Approx(10 * F));
  CHECK(G.gpuMs == doctest::Approx(9 * F));
  CHECK(G.hostMs == doctest::Approx(F));
  CHECK(G.intervalMs->first == doctest::Approx(9 * F)); // a band without a median bias
  CHECK(G.intervalMs->second == doctest::Approx(13 * F));
  // With one (the band's median ratio 1.2), the timings took the share w of it out.
  pipeline::GpuPrediction H;
  H.timeMs = 10;
  H.intervalMs = std::make_pair(9.0, 13.0);
  pipeline::Calibration Biased = Two;
  Biased.bandMedian = 1.2;
  pipeline::applyCalibration(H, Biased);
  const double Shift = F / std::pow(1.2, Two.weight());
  CHECK(H.timeMs == doctest::Approx(10 * F));
  CHECK(H.intervalMs->first == doctest::Approx(9 * Shift));
  CHECK(H.intervalMs->second == doctest::Approx(13 * Shift));
  CHECK(G.breakdown[0].ms == doctest::Approx(9 * F));
  CHECK(G.calibrationFactor == F);
  CHECK(G.calibrationTimings == 2);
  REQUIRE(G.warnings.size() == 1);
  // 4^(2 / 4.06) with TimingNoiseToSpread 2.06.
  CHECK(G.warnings[0].find("scaled by 1.98 from 2 timings on t4") != std::string::npos);
  // A host-bound engine: its GPU band moves, and the host time's spread is laid on anew, so the
  // band still starts at the host time (an engine's host time is a floor).
  pipeline::GpuPrediction E;
  E.gpu.name = "t4";
  E.runtime = pipeline::Runtime::Engine;
  E.gpuMs = 1, E.hostMs = 2, E.timeMs = 2;
  E.gpuIntervalMs = std::make_pair(0.9, 1.4);
  E.intervalMs = std::make_pair(2.0, 2 * hardware::HostTimeBand.high);
  pipeline::applyCalibration(E, Biased);
  REQUIRE(E.intervalMs);
  CHECK(E.hostMs == doctest::Approx(2 * F));
  CHECK(E.gpuIntervalMs->second == doctest::Approx(1.4 * Shift));
  CHECK(E.intervalMs->first == doctest::Approx(E.hostMs));
  CHECK(E.intervalMs->second ==
        doctest::Approx(std::max(1.4 * Shift, E.hostMs * hardware::HostTimeBand.high)));
}

TEST_CASE("calibration: predict scales by the timings on its GPU and says so") {
  auto Plain = pipeline::predictNetwork(request("mobilenetv2"));
  REQUIRE_MESSAGE(Plain, support::errorText(Plain));
  auto Resnet = pipeline::predictNetwork(request("resnet50"));
  REQUIRE_MESSAGE(Resnet, support::errorText(Resnet));
  // Synthetic: ResNet-50 "measured" at 1.5x its prediction on the T4, and a timing on another
  // GPU that must not count.
  const std::string Csv =
      file("calibration_predict.csv",
           fmt::format("gpu,network,batch,dtype,runtime,measured_ms\nt4,resnet50,8,f32,graph,{}\n"
                       "h100,resnet50,8,f32,graph,100\n",
                       1.5 * Resnet->prediction.timeMs));
  auto Calibrated = pipeline::predictNetwork(request("mobilenetv2", Csv));
  REQUIRE_MESSAGE(Calibrated, support::errorText(Calibrated));
  const pipeline::GpuPrediction &G = Calibrated->prediction;
  const double F = std::pow(1.5, 1 / (1 + pipeline::TimingNoiseToSpread));
  CHECK(G.timeMs == doctest::Approx(F * Plain->prediction.timeMs).epsilon(1e-9));
  CHECK(G.calibrationTimings == 1);
  auto J = pipeline::predictionJson(Calibrated->network, Calibrated->predictor, G);
  CHECK(J["calibration"]["factor"].get<double>() == doctest::Approx(F).epsilon(1e-9));
  CHECK(pipeline::predictionJson(Plain->network, Plain->predictor, Plain->prediction)["calibration"]
            .is_null());

  pipeline::PredictRequest OnH100 = request(
      "mobilenetv2", file("calibration_none.csv", "gpu,network,batch,dtype,runtime,measured_ms\n"
                                                  "rtx4090,resnet50,8,f32,graph,1\n"));
  OnH100.gpu = "h100";
  auto None = pipeline::predictNetwork(OnH100);
  REQUIRE(!None);
  CHECK(None.error().str() == "calibration_none.csv: error: no timing on h100-sxm to calibrate by");

  // A timing 100x its prediction is in another unit or of another setup: refused, not a factor.
  const std::string Far =
      file("calibration_far.csv", fmt::format("gpu,network,batch,dtype,runtime,measured_ms\n"
                                              "t4,resnet50,8,f32,graph,{}\n",
                                              100 * Resnet->prediction.timeMs));
  auto Refused = pipeline::predictNetwork(request("mobilenetv2", Far));
  REQUIRE(!Refused);
  CHECK(Refused.error().str().starts_with("calibration_far.csv:2: error: measured "));
  CHECK(Refused.error().message.find("is 100x the predicted") != std::string::npos);
}
