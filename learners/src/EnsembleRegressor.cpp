// Ensemble "a+b[+c...]": the members fitted on the same rows, the prediction their mean. Under the
// log target of ptxcast's models that is the geometric mean of the members' times. Averaging
// learners that err differently lowers the variance that dominates on unseen groups (a GPU left
// out), which is where single learners disagree most.
#include "Learners.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace learners {
namespace {

using support::Error;

class EnsembleRegressor final : public Regressor {
public:
  EnsembleRegressor(std::string Name, std::vector<std::unique_ptr<Regressor>> Members, Params P)
      : Name(std::move(Name)), Members(std::move(Members)), Prm(std::move(P)) {}

  std::string_view name() const override { return Name; }
  const Params &params() const override { return Prm; }

  support::MaybeError fit(const Matrix &X, std::span<const double> Y,
                          std::span<const double> W) override {
    for (auto &M : Members)
      if (auto E = M->fit(X, Y, W))
        return Error(std::string(M->name()) + " in " + Name + ": " + E->message);
    return std::nullopt;
  }

  std::vector<double> predict(const Matrix &X) const override {
    std::vector<double> Sum(X.rows(), 0.0);
    for (const auto &M : Members) {
      std::vector<double> P = M->predict(X);
      assert(P.size() == Sum.size() && "a member predicted a different row count");
      for (size_t I = 0; I < P.size(); ++I)
        Sum[I] += P[I];
    }
    for (double &V : Sum)
      V /= double(Members.size());
    return Sum;
  }

  /// The members' width (loadState checks that they agree).
  size_t inputWidth() const override { return Members.front()->inputWidth(); }

  /// The mean of the members' importances, each scaled to sum 1; empty when a member has none.
  std::vector<double> featureImportance() const override {
    std::vector<double> Mean;
    for (const auto &M : Members) {
      std::vector<double> I = M->featureImportance();
      if (I.empty())
        return {};
      double Total = 0;
      for (double V : I)
        Total += V;
      Mean.resize(I.size(), 0.0);
      for (size_t C = 0; C < I.size(); ++C)
        Mean[C] += Total > 0 ? I[C] / Total / double(Members.size()) : 0;
    }
    return Mean;
  }

  nlohmann::json saveState() const override {
    nlohmann::json States = nlohmann::json::array();
    for (const auto &M : Members)
      States.push_back({{"learner", M->name()}, {"state", M->saveState()}});
    return {{"members", States}};
  }

  support::MaybeError loadState(const nlohmann::json &J) override {
    try {
      const auto &States = J.at("members");
      if (States.size() != Members.size())
        return Error("ensemble state has " + std::to_string(States.size()) + " members, '" + Name +
                     "' needs " + std::to_string(Members.size()));
      for (size_t I = 0; I < Members.size(); ++I) {
        if (States[I].at("learner").get<std::string>() != Members[I]->name())
          return Error("ensemble state lists its members in another order than '" + Name + "'");
        if (auto E = Members[I]->loadState(States[I].at("state")))
          return E;
        if (Members[I]->inputWidth() != Members[0]->inputWidth())
          return Error("ensemble members take different numbers of inputs");
      }
    } catch (const nlohmann::json::exception &E) {
      return Error(std::string("bad ensemble model state: ") + E.what());
    }
    return std::nullopt;
  }

private:
  std::string Name;
  std::vector<std::unique_ptr<Regressor>> Members;
  Params Prm;
};

/// The member names of "a+b+c" (each non-empty, none repeated, none itself an ensemble).
support::Expected<std::vector<std::string>> memberNames(std::string_view Name) {
  std::vector<std::string> Names;
  size_t Start = 0;
  while (Start <= Name.size()) {
    size_t End = std::min(Name.find('+', Start), Name.size());
    Names.emplace_back(Name.substr(Start, End - Start));
    Start = End + 1;
  }
  std::set<std::string> Seen;
  for (const std::string &N : Names)
    if (N.empty() || !Seen.insert(N).second)
      return Error("ensemble '" + std::string(Name) +
                   "' needs distinct learner names joined by '+', e.g. knn+forest");
  return Names;
}

} // namespace

support::Expected<std::unique_ptr<Regressor>> createEnsemble(std::string_view Name,
                                                             const Params &P) {
  auto Names = memberNames(Name);
  if (!Names)
    return Names.error();
  // "key=v" goes to every member that takes `key` (nthread to each XGBoost member, k to knn),
  // "member.key=v" to that member only, after the unprefixed ones; params() lists every member's
  // parameters prefixed, so a saved ensemble re-creates each member exactly.
  std::vector<std::unique_ptr<Regressor>> Members;
  Params All;
  std::set<std::string> Used;
  for (const std::string &N : *Names) {
    auto Defaults = createRegressor(N);
    if (!Defaults)
      return Defaults.error();
    Params Mine;
    for (const auto &[K, V] : P) {
      bool Prefixed = K.starts_with(N + ".");
      std::string Key = Prefixed ? K.substr(N.size() + 1) : K;
      if ((Prefixed || !Mine.contains(Key)) && (*Defaults)->params().contains(Key)) {
        Mine[Key] = V;
        Used.insert(K);
      }
    }
    auto M = createRegressor(N, Mine);
    if (!M)
      return M.error();
    for (const auto &[K, V] : (*M)->params())
      All[N + "." + K] = V;
    Members.push_back(std::move(*M));
  }
  for (const auto &[K, V] : P)
    if (!Used.contains(K))
      return Error("no member of ensemble '" + std::string(Name) + "' takes a parameter '" + K +
                   "'");
  return std::unique_ptr<Regressor>(
      new EnsembleRegressor(std::string(Name), std::move(Members), std::move(All)));
}

} // namespace learners
