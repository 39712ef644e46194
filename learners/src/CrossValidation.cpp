// Seeded k-fold and leave-one-group-out splits, cross-validation, feature importance ranking.
#include "learners/CrossValidation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>

namespace learners {

using support::Error;
using support::Expected;

namespace {

/// Uniform integer in [0, Bound) by rejection, written out so that the shuffle is the same with
/// every standard library (std::uniform_int_distribution is implementation-defined).
uint64_t uniformBelow(std::mt19937_64 &Rng, uint64_t Bound) {
  assert(Bound > 0 && "empty range");
  const uint64_t Max = std::numeric_limits<uint64_t>::max();
  uint64_t Limit = Max - Max % Bound;
  uint64_t V;
  do
    V = Rng();
  while (V >= Limit);
  return V % Bound;
}

/// Fisher-Yates shuffle driven by uniformBelow.
template <class T> void shuffle(std::vector<T> &V, std::mt19937_64 &Rng) {
  for (size_t I = V.size(); I > 1; --I)
    std::swap(V[I - 1], V[uniformBelow(Rng, I)]);
}

std::string formatNumber(double V) {
  char Buf[64];
  auto [Ptr, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  assert(Ec == std::errc() && "to_chars buffer too small");
  return std::string(Buf, Ptr);
}

/// Rows per group, groups in order: identifier values sorted as strings, feature values sorted
/// numerically.
Expected<std::vector<std::pair<std::string, std::vector<size_t>>>>
groupRows(const Dataset &D, std::string_view Column) {
  std::vector<std::pair<std::string, std::vector<size_t>>> Out;
  if (auto I = D.idIndex(Column)) {
    std::map<std::string, std::vector<size_t>> Groups;
    for (size_t R = 0; R < D.size(); ++R)
      Groups[D.ids[R][*I]].push_back(R);
    Out.assign(Groups.begin(), Groups.end());
    return Out;
  }
  if (auto F = D.featureIndex(Column)) {
    std::map<double, std::vector<size_t>> Groups;
    for (size_t R = 0; R < D.size(); ++R)
      Groups[D.features(R, *F)].push_back(R);
    for (auto &[Key, Rows] : Groups)
      Out.emplace_back(formatNumber(Key), std::move(Rows));
    return Out;
  }
  return Error("no column named '" + std::string(Column) + "' to group by");
}

double rmseOf(std::span<const double> A, std::span<const double> B) {
  double S = 0;
  for (size_t I = 0; I < A.size(); ++I)
    S += (A[I] - B[I]) * (A[I] - B[I]);
  return std::sqrt(S / double(A.size()));
}

void sortRanking(Ranking &R) {
  std::stable_sort(R.begin(), R.end(), [](const auto &A, const auto &B) {
    return A.second != B.second ? A.second > B.second : A.first < B.first;
  });
}

} // namespace

Expected<std::vector<Fold>> kFoldSplit(size_t N, size_t K, uint64_t Seed) {
  if (K < 2 || K > N)
    return Error("k-fold needs 2 <= k <= rows; got k = " + std::to_string(K) + " with " +
                 std::to_string(N) + " rows");
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), size_t(0));
  std::mt19937_64 Rng(Seed);
  shuffle(Order, Rng);
  std::vector<Fold> Folds(K);
  for (size_t F = 0; F < K; ++F) {
    Folds[F].name = "fold " + std::to_string(F + 1);
    size_t Begin = F * N / K, End = (F + 1) * N / K;
    Folds[F].test.assign(Order.begin() + std::ptrdiff_t(Begin),
                         Order.begin() + std::ptrdiff_t(End));
    std::sort(Folds[F].test.begin(), Folds[F].test.end());
  }
  for (size_t F = 0; F < K; ++F)
    for (size_t G = 0; G < K; ++G)
      if (G != F)
        Folds[F].train.insert(Folds[F].train.end(), Folds[G].test.begin(), Folds[G].test.end());
  for (auto &Fd : Folds)
    std::sort(Fd.train.begin(), Fd.train.end());
  return Folds;
}

Expected<std::vector<Fold>> groupSplit(const Dataset &D, std::string_view Column) {
  auto Groups = groupRows(D, Column);
  if (!Groups)
    return Groups.error();
  if (Groups->size() < 2)
    return Error("leave-one-group-out by '" + std::string(Column) + "' needs at least two " +
                 "groups, found " + std::to_string(Groups->size()));
  std::vector<Fold> Folds;
  for (size_t G = 0; G < Groups->size(); ++G) {
    Fold F;
    F.name = (*Groups)[G].first;
    F.test = (*Groups)[G].second;
    for (size_t H = 0; H < Groups->size(); ++H)
      if (H != G)
        F.train.insert(F.train.end(), (*Groups)[H].second.begin(), (*Groups)[H].second.end());
    std::sort(F.train.begin(), F.train.end());
    Folds.push_back(std::move(F));
  }
  return Folds;
}

Expected<std::vector<Fold>> splitUnseen(const std::vector<Fold> &Folds, const Dataset &D,
                                        std::string_view Column,
                                        const std::function<std::string(std::string_view)> &Key) {
  auto I = D.idIndex(Column);
  if (!I)
    return Error("no identifier column named '" + std::string(Column) + "'");
  std::vector<std::string> Keys(D.size());
  for (size_t R = 0; R < D.size(); ++R)
    Keys[R] = Key ? Key(D.ids[R][*I]) : D.ids[R][*I];
  std::vector<Fold> Out;
  for (const Fold &F : Folds) {
    std::map<std::string_view, std::vector<size_t>> ByKey;
    for (size_t R : F.test)
      ByKey[Keys[R]].push_back(R);
    for (auto &[K, Rows] : ByKey) {
      Fold &G = Out.emplace_back();
      G.name = F.name + " / " + std::string(K);
      G.test = std::move(Rows);
      std::copy_if(F.train.begin(), F.train.end(), std::back_inserter(G.train),
                   [&, K = K](size_t R) { return Keys[R] != K; });
      if (G.train.empty())
        return Error("fold '" + G.name + "' has no training rows left");
    }
  }
  return Out;
}

Expected<Ranking> permutationImportance(const Model &M, const Dataset &D, uint64_t Seed) {
  auto All = D.selectFeatures(M.featureNames());
  if (!All)
    return All.error();
  if (All->size() == 0)
    return Error("permutation importance needs at least one row");
  std::mt19937_64 Rng(Seed);
  std::vector<size_t> Rows(All->size());
  std::iota(Rows.begin(), Rows.end(), size_t(0));
  if (Rows.size() > PermutationRows) { // a seeded sample keeps knn affordable on big datasets
    shuffle(Rows, Rng);
    Rows.resize(PermutationRows);
    std::sort(Rows.begin(), Rows.end());
  }
  Dataset Sample = All->subset(Rows);
  const Dataset *Base = &Sample;
  double BaseRmse = rmseOf(Base->target, M.predict(Base->features));
  Ranking Out;
  for (size_t C = 0; C < Base->featureNames.size(); ++C) {
    Matrix X = Base->features;
    std::vector<double> Column(X.rows());
    for (size_t R = 0; R < X.rows(); ++R)
      Column[R] = X(R, C);
    shuffle(Column, Rng);
    for (size_t R = 0; R < X.rows(); ++R)
      X(R, C) = Column[R];
    Out.emplace_back(Base->featureNames[C], rmseOf(Base->target, M.predict(X)) - BaseRmse);
  }
  sortRanking(Out);
  return Out;
}

Expected<Ranking> rankImportance(const Model &M, const Dataset &D, uint64_t Seed) {
  auto Native = M.featureImportance();
  double Sum = 0;
  for (const auto &[Name, V] : Native)
    Sum += V;
  if (Native.empty() || !(Sum > 0))
    return permutationImportance(M, D, Seed);
  Ranking Out;
  for (const auto &[Name, V] : Native)
    Out.emplace_back(Name, V / Sum);
  sortRanking(Out);
  return Out;
}

Expected<CvReport> crossValidate(const Dataset &D, const ModelSpec &Spec,
                                 const std::vector<Fold> &Folds, std::string Protocol,
                                 uint64_t Seed, const CvProgress &Progress) {
  CvReport R;
  R.learner = Spec.learner;
  R.transform =
      std::string(transformName(Spec.transform)) + (Spec.logFeatures ? ", log1p features" : "");
  R.protocol = std::move(Protocol);
  const double NaN = std::numeric_limits<double>::quiet_NaN();
  R.predictions.assign(D.size(), NaN);
  std::vector<char> Seen(D.size(), 0);
  size_t Inputs = 0; // learner inputs (the same in every fold)
  std::vector<double> PooledY, PooledP;
  for (const Fold &F : Folds) {
    if (F.test.empty() || F.train.empty())
      return Error("fold '" + F.name + "' has an empty train or test set");
    auto M = Model::fit(D.subset(F.train), Spec);
    if (!M)
      return Error("fold '" + F.name + "': " + M.error().message);
    Dataset Test = D.subset(F.test);
    auto Predicted = M->predict(Test);
    if (!Predicted)
      return Predicted.error();
    const std::vector<double> &P = *Predicted;
    for (size_t I = 0; I < F.test.size(); ++I) {
      if (Seen[F.test[I]]++)
        return Error("row " + std::to_string(F.test[I] + 1) + " is in more than one test fold");
      R.predictions[F.test[I]] = P[I];
      PooledY.push_back(Test.target[I]);
      PooledP.push_back(P[I]);
    }
    R.folds.emplace_back(F.name, computeMetrics(Test.target, P, M->inputCount()));
    Inputs = M->inputCount();
    if (Progress)
      Progress(R.folds.size(), Folds.size() + 1, F.name);
  }
  if (PooledY.empty())
    return Error("cross-validation with no folds");
  R.pooled = computeMetrics(PooledY, PooledP, Inputs);
  auto Full = Model::fit(D, Spec);
  if (!Full)
    return Full.error();
  auto Rank = rankImportance(*Full, D, Seed);
  if (!Rank)
    return Rank.error();
  R.importance = std::move(*Rank);
  if (Progress)
    Progress(Folds.size() + 1, Folds.size() + 1, "all rows");
  return R;
}

} // namespace learners
