// Synthetic data for the learner mechanics tests (labelled as such: not measurements).
#pragma once

#include "learners/Dataset.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace synthetic {

/// Deterministic uniform values in [0, 1) (64-bit LCG, top 53 bits), independent of the code
/// under test.
class Uniform {
public:
  explicit Uniform(uint64_t Seed) : State(Seed * 2862933555777941757ULL + 3037000493ULL) {}
  double next() {
    State = State * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(State >> 11) * (1.0 / 9007199254740992.0);
  }

private:
  uint64_t State;
};

/// N rows of P features uniform in [Lo, Hi), target F(x), id column "group" = "g<row % Groups>".
inline learners::Dataset make(size_t N, size_t P, uint64_t Seed,
                              const std::function<double(const std::vector<double> &)> &F,
                              double Lo = 0, double Hi = 1, size_t Groups = 4) {
  learners::Dataset D;
  D.idNames = {"group"};
  for (size_t J = 0; J < P; ++J)
    D.featureNames.push_back(std::string("x").append(std::to_string(J + 1)));
  D.targetName = std::string("y");
  Uniform U(Seed);
  std::vector<double> X(P);
  for (size_t I = 0; I < N; ++I) {
    for (double &V : X)
      V = Lo + (Hi - Lo) * U.next();
    D.addRow({std::string("g").append(std::to_string(I % Groups))}, X, F(X));
  }
  return D;
}

} // namespace synthetic
