// hardware/LaunchKinds.def against corpus/Strategies.def: every strategy the lowering can emit
// has exactly one family row, and every row is a strategy the lowering has.
#include "hardware/Skeleton.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace hardware;

namespace {

/// The strategy names of corpus/Strategies.def (a data table: nothing of corpus is linked).
const std::vector<std::string> CorpusStrategies = {
#define STRATEGY(Id, Name) Name,
#include "corpus/Strategies.def"
};

} // namespace

TEST_CASE("every corpus strategy has one family row and every row is a corpus strategy") {
  std::set<std::string> Rows;
  for (const LaunchKind &K : launchKinds()) {
    INFO("row " << K.strategy);
    CHECK(Rows.insert(std::string(K.strategy)).second); // no repeated row
    CHECK(std::count(CorpusStrategies.begin(), CorpusStrategies.end(), K.strategy) == 1);
  }
  for (const std::string &S : CorpusStrategies) {
    INFO("strategy " << S);
    CHECK(Rows.count(S) == 1);
    CHECK(findLaunchKind(S) != nullptr);
  }
  CHECK(Rows.size() == CorpusStrategies.size());
}

TEST_CASE("families by exact name, no prefixes") {
  CHECK(kindFamily("conv_gemm") == KindFamily::Gemm);
  CHECK(kindFamily("bmm_gemm_mma") == KindFamily::Gemm);
  CHECK(kindFamily("conv_gemm_mma") == KindFamily::Other); // what the shipped models learnt
  CHECK(kindFamily("eltwise_add_scalar") == KindFamily::Elementwise);
  CHECK(kindFamily("layernorm") == KindFamily::Softmax);
  CHECK(kindFamily("copy_strided") == KindFamily::Copy);
  CHECK(kindFamily("global_avg_pool") == KindFamily::Reduce);
  // An int8 engine's own strategies: the dp4a GEMV as dense_gemv, the reformats as copies.
  CHECK(kindFamily("conv_gemv") == KindFamily::Gemv);
  CHECK(kindFamily("copy_quantize") == KindFamily::Copy);
  CHECK(kindFamily("copy_dequantize") == KindFamily::Copy);
  // A name without a row (another version's manifest) is Other, a prefix of a row's too.
  CHECK(findLaunchKind("eltwise_frobnicate") == nullptr);
  CHECK(kindFamily("eltwise_frobnicate") == KindFamily::Other);
  CHECK(kindFamily("conv") == KindFamily::Other);
}

TEST_CASE("family names are the kind_ features, in order") {
  const std::vector<std::string> Want = {"gemm", "direct_conv", "depthwise", "gemv", "eltwise",
                                         "pool", "reduce",      "softmax",   "copy", "other"};
  REQUIRE(NumKindFamilies == Want.size());
  for (size_t K = 0; K < NumKindFamilies; ++K)
    CHECK(kindFamilyName(static_cast<KindFamily>(K)) == Want[K]);
}
