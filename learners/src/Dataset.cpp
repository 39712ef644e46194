// Dataset rows, column lookup, row subsets and feature selection.
#include "learners/Dataset.h"

#include <algorithm>

namespace learners {

void Dataset::addRow(std::vector<std::string> Ids, std::span<const double> Features,
                     double Target) {
  assert(Ids.size() == idNames.size() && "identifier count differs from the schema");
  assert(Features.size() == featureNames.size() && "feature count differs from the schema");
  if (features.rows() == 0)
    features = Matrix(0, featureNames.size());
  ids.push_back(std::move(Ids));
  features.appendRow(Features);
  target.push_back(Target);
}

static std::optional<size_t> indexOf(const std::vector<std::string> &Names, std::string_view N) {
  auto It = std::find(Names.begin(), Names.end(), N);
  if (It == Names.end())
    return std::nullopt;
  return static_cast<size_t>(It - Names.begin());
}

std::optional<size_t> Dataset::idIndex(std::string_view Name) const {
  return indexOf(idNames, Name);
}

std::optional<size_t> Dataset::featureIndex(std::string_view Name) const {
  return indexOf(featureNames, Name);
}

Dataset Dataset::subset(std::span<const size_t> Rows) const {
  Dataset Out;
  Out.idNames = idNames;
  Out.featureNames = featureNames;
  Out.targetName = targetName;
  Out.features = Matrix(0, featureNames.size());
  for (size_t R : Rows) {
    assert(R < size() && "subset row out of range");
    Out.addRow(ids[R], features.row(R), target[R]);
  }
  return Out;
}

support::MaybeError Dataset::append(const Dataset &Other) {
  if (Other.idNames != idNames || Other.featureNames != featureNames ||
      Other.targetName != targetName)
    return support::Error("datasets differ in their columns");
  for (size_t R = 0; R < Other.size(); ++R)
    addRow(Other.ids[R], Other.features.row(R), Other.target[R]);
  return std::nullopt;
}

support::Expected<Dataset> Dataset::selectFeatures(std::span<const std::string> Names) const {
  std::vector<size_t> Cols;
  for (const auto &N : Names) {
    auto C = featureIndex(N);
    if (!C)
      return support::Error("dataset has no feature named '" + N + "'");
    Cols.push_back(*C);
  }
  Dataset Out;
  Out.idNames = idNames;
  Out.featureNames.assign(Names.begin(), Names.end());
  Out.targetName = targetName;
  Out.features = Matrix(0, Cols.size());
  std::vector<double> Row(Cols.size());
  for (size_t R = 0; R < size(); ++R) {
    for (size_t I = 0; I < Cols.size(); ++I)
      Row[I] = features(R, Cols[I]);
    Out.addRow(ids[R], Row, target[R]);
  }
  return Out;
}

} // namespace learners
