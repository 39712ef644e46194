// tree, forest and xgboost: three configurations of XGBoost's gbtree booster through its C API.
// tree = one round, one tree, learning rate 1, no leaf shrinkage (a CART-style regression tree);
// forest = one round of num_parallel_tree trees on row and per-node feature subsamples;
// xgboost = gradient boosting. Fixed seed and nthread give byte-identical models.
#include "Learners.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <cstdio>

namespace learners {
namespace {

using support::Error;

struct DMatrixDeleter {
  void operator()(void *H) const { XGDMatrixFree(H); }
};
struct BoosterDeleter {
  void operator()(void *H) const { XGBoosterFree(H); }
};
using DMatrixPtr = std::unique_ptr<void, DMatrixDeleter>;
using BoosterPtr = std::unique_ptr<void, BoosterDeleter>;

Error xgbError(const std::string &What) {
  return Error("xgboost " + What + " failed: " + XGBGetLastError());
}

support::Expected<DMatrixPtr> toDMatrix(const Matrix &X) {
  std::vector<float> Values(X.values().begin(), X.values().end());
  DMatrixHandle H = nullptr;
  if (XGDMatrixCreateFromMat(Values.data(), X.rows(), X.cols(), std::nanf(""), &H) != 0)
    return xgbError("creating a matrix");
  return DMatrixPtr(H);
}

std::string paramText(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

class XgbRegressor final : public Regressor {
public:
  XgbRegressor(std::string Name, Params P) : Name(std::move(Name)), Prm(std::move(P)) {}

  std::string_view name() const override { return Name; }
  const Params &params() const override { return Prm; }

  support::MaybeError fit(const Matrix &X, std::span<const double> Y,
                          std::span<const double> W) override {
    if (auto E = checkFitData(X, Y, W, 1))
      return E;
    auto D = toDMatrix(X);
    if (!D)
      return D.error();
    std::vector<float> Labels(Y.begin(), Y.end());
    if (XGDMatrixSetFloatInfo(D->get(), "label", Labels.data(), Labels.size()) != 0)
      return xgbError("setting labels");
    std::vector<double> Weight = weightsOr1(W, Y.size());
    if (!W.empty()) {
      std::vector<float> Wf(Weight.begin(), Weight.end());
      if (XGDMatrixSetFloatInfo(D->get(), "weight", Wf.data(), Wf.size()) != 0)
        return xgbError("setting weights");
    }
    BoosterHandle B = nullptr;
    DMatrixHandle Train = D->get();
    if (XGBoosterCreate(&Train, 1, &B) != 0)
      return xgbError("creating a booster");
    Booster.reset(B);
    double Mean = 0, WeightSum = 0;
    for (size_t I = 0; I < Y.size(); ++I) {
      Mean += Weight[I] * Y[I];
      WeightSum += Weight[I];
    }
    Mean /= WeightSum;
    if (auto E = setParams(Mean))
      return E;
    int Rounds = int(Prm.at("num_round"));
    for (int I = 0; I < Rounds; ++I)
      if (XGBoosterUpdateOneIter(B, I, Train) != 0)
        return xgbError("training round " + std::to_string(I));
    Width = X.cols();
    return std::nullopt;
  }

  std::vector<double> predict(const Matrix &X) const override {
    assert(Booster && "predict before fit");
    assert(X.cols() == Width && "predict width differs from the fitted width");
    if (X.rows() == 0)
      return {};
    auto D = toDMatrix(X);
    assert(D && "xgboost could not wrap a dense matrix");
    bst_ulong Len = 0;
    const float *Out = nullptr;
    int Rc = XGBoosterPredict(Booster.get(), D->get(), 0, 0, 0, &Len, &Out);
    assert(Rc == 0 && Len == X.rows() && "xgboost prediction failed");
    (void)Rc;
    return std::vector<double>(Out, Out + Len);
  }

  std::vector<double> featureImportance() const override {
    std::vector<double> Out(Width, 0.0);
    if (!Booster)
      return Out;
    bst_ulong NFeatures = 0, Dim = 0;
    const char **Names = nullptr;
    const bst_ulong *Shape = nullptr;
    const float *Scores = nullptr;
    if (XGBoosterFeatureScore(Booster.get(), R"({"importance_type": "total_gain"})", &NFeatures,
                              &Names, &Dim, &Shape, &Scores) != 0)
      return Out; // no splits at all: every importance is 0
    for (bst_ulong I = 0; I < NFeatures; ++I) {
      size_t Index = std::strtoul(Names[I] + 1, nullptr, 10); // names are "f<index>"
      if (Names[I][0] == 'f' && Index < Width)
        Out[Index] = Scores[I];
    }
    return Out;
  }

  nlohmann::json saveState() const override {
    bst_ulong Len = 0;
    const char *Buf = nullptr;
    int Rc = XGBoosterSaveModelToBuffer(Booster.get(), R"({"format": "json"})", &Len, &Buf);
    assert(Rc == 0 && "xgboost could not save a fitted booster");
    (void)Rc;
    nlohmann::json J = {{"width", Width}};
    // Embedded as a JSON object when nlohmann can read it, else kept verbatim as a string.
    auto Parsed = nlohmann::json::parse(Buf, Buf + Len, nullptr, /*allow_exceptions=*/false);
    if (Parsed.is_discarded())
      J["booster_text"] = std::string(Buf, Len);
    else
      J["booster"] = std::move(Parsed);
    return J;
  }

  size_t inputWidth() const override { return Width; }

  support::MaybeError loadState(const nlohmann::json &J) override {
    std::string Model;
    try {
      Width = J.at("width").get<size_t>();
      Model = J.contains("booster_text") ? J.at("booster_text").get<std::string>()
                                         : J.at("booster").dump();
    } catch (const nlohmann::json::exception &E) {
      return Error(std::string("bad xgboost model state: ") + E.what());
    }
    BoosterHandle B = nullptr;
    if (XGBoosterCreate(nullptr, 0, &B) != 0)
      return xgbError("creating a booster");
    Booster.reset(B);
    if (XGBoosterLoadModelFromBuffer(B, Model.data(), Model.size()) != 0)
      return xgbError("loading a model");
    bst_ulong Features = 0;
    if (XGBoosterGetNumFeature(B, &Features) != 0)
      return xgbError("reading the model's feature count");
    if (Features != Width)
      return Error("xgboost model state has inconsistent sizes (width " + std::to_string(Width) +
                   ", booster " + std::to_string(Features) + " features)");
    if (XGBoosterSetParam(B, "nthread", paramText(Prm.at("nthread")).c_str()) != 0)
      return xgbError("setting nthread");
    return std::nullopt;
  }

private:
  support::MaybeError setParams(double BaseScore) {
    static const std::pair<const char *, const char *> Mapped[] = {
        {"eta", "eta"},
        {"max_depth", "max_depth"},
        {"lambda", "lambda"},
        {"alpha", "alpha"},
        {"gamma", "gamma"},
        {"min_child_weight", "min_child_weight"},
        {"subsample", "subsample"},
        {"colsample_bynode", "colsample_bynode"},
        {"num_parallel_tree", "num_parallel_tree"},
        {"seed", "seed"},
        {"nthread", "nthread"}};
    std::vector<std::pair<std::string, std::string>> Kv = {
        {"booster", "gbtree"},
        {"objective", "reg:squarederror"},
        {"verbosity", "0"},
        {"tree_method", Prm.at("hist") != 0 ? "hist" : "exact"},
        {"base_score", paramText(BaseScore)}};
    for (const auto &[Ours, Theirs] : Mapped)
      Kv.emplace_back(Theirs, paramText(Prm.at(Ours)));
    for (const auto &[K, V] : Kv)
      if (XGBoosterSetParam(Booster.get(), K.c_str(), V.c_str()) != 0)
        return xgbError("setting " + K);
    return std::nullopt;
  }

  std::string Name;
  Params Prm;
  BoosterPtr Booster;
  size_t Width = 0;
};

/// The parameter table of one configuration: shared ranges, per-configuration defaults.
std::map<std::string, ParamRange> xgbSpec(std::string_view Name) {
  bool Tree = Name == "tree", Forest = Name == "forest";
  double Big = 1e9;
  return {
      {"num_round", {Tree || Forest ? 1.0 : 200.0, 1, 100000, true}},
      {"eta", {Tree || Forest ? 1.0 : 0.1, 1e-6, 1}},
      {"max_depth", {Tree || Forest ? 12.0 : 6.0, 1, 64, true}},
      {"lambda", {Tree || Forest ? 0.0 : 1.0, 0, Big}},
      {"alpha", {0, 0, Big}},
      {"gamma", {0, 0, Big}},
      {"min_child_weight", {1, 0, Big}},
      {"subsample", {Forest ? 0.8 : 1.0, 1e-6, 1}},
      {"colsample_bynode", {Forest ? 0.8 : 1.0, 1e-6, 1}},
      {"num_parallel_tree", {Forest ? 100.0 : 1.0, 1, 100000, true}},
      {"seed", {0, 0, 2147483647, true}},
      {"nthread", {1, 1, 1024, true}},
      {"hist", {Tree ? 0.0 : 1.0, 0, 1, true}},
  };
}

} // namespace

support::Expected<std::unique_ptr<Regressor>> createXgb(std::string_view Name, const Params &P) {
  auto Resolved = resolveParams(Name, xgbSpec(Name), P);
  if (!Resolved)
    return Resolved.error();
  if (Name == "tree" && ((*Resolved)["num_round"] != 1 || (*Resolved)["num_parallel_tree"] != 1))
    return Error("learner 'tree' is one tree: num_round and num_parallel_tree must be 1");
  return std::unique_ptr<Regressor>(new XgbRegressor(std::string(Name), std::move(*Resolved)));
}

} // namespace learners
