// The names closest to one a user mistyped, for "unknown X 'Y' (closest: ...)" messages: by
// containment, then Levenshtein distance, ignoring case and everything but letters and digits.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace support {

/// Levenshtein distance between two short strings.
inline size_t editDistance(std::string_view A, std::string_view B) {
  std::vector<size_t> Row(B.size() + 1);
  for (size_t J = 0; J <= B.size(); ++J)
    Row[J] = J;
  for (size_t I = 1; I <= A.size(); ++I) {
    size_t Diagonal = Row[0];
    Row[0] = I;
    for (size_t J = 1; J <= B.size(); ++J) {
      size_t Up = Row[J];
      Row[J] = std::min({Row[J] + 1, Row[J - 1] + 1, Diagonal + (A[I - 1] != B[J - 1])});
      Diagonal = Up;
    }
  }
  return Row[B.size()];
}

/// Name in lower case with only its letters and digits ("EfficientNet-B0" -> "efficientnetb0").
inline std::string nameKey(std::string_view Name) {
  std::string Key;
  for (char C : Name)
    if (std::isalnum(static_cast<unsigned char>(C)))
      Key += char(std::tolower(static_cast<unsigned char>(C)));
  return Key;
}

/// Up to Count of Names closest to Typed, closest first, as "a, b, c". A name containing what
/// was typed counts as distance 0; ties keep the order of Names.
inline std::string closestNames(std::string_view Typed, const std::vector<std::string> &Names,
                                size_t Count) {
  const std::string Key = nameKey(Typed);
  std::vector<std::pair<size_t, const std::string *>> Near;
  for (const std::string &N : Names) {
    const std::string K = nameKey(N);
    Near.emplace_back(!Key.empty() && K.find(Key) != std::string::npos ? 0 : editDistance(Key, K),
                      &N);
  }
  std::stable_sort(Near.begin(), Near.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::string Out;
  for (size_t I = 0; I < Near.size() && I < Count; ++I)
    Out += (I ? ", " : "") + *Near[I].second;
  return Out;
}

} // namespace support
