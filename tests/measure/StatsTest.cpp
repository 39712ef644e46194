// Tests for timing summaries on samples whose order statistics are worked out by hand.
#include "Stats.h"

#include <doctest/doctest.h>

using namespace measure;

TEST_CASE("measure stats: odd sample") {
  // Sorted {1, 3, 5}: median 3; q1 at h = 0.5 -> 1 + 0.5 * 2 = 2; q3 at h = 1.5 -> 4.
  Summary S = summarize({5, 1, 3});
  CHECK(S.count == 3);
  CHECK(S.median == 3.0);
  CHECK(S.min == 1.0);
  CHECK(S.max == 5.0);
  CHECK(S.q1 == 2.0);
  CHECK(S.q3 == 4.0);
  CHECK(S.iqr() == 2.0);
  CHECK(S.mean == 3.0);
}

TEST_CASE("measure stats: even sample interpolates") {
  // Sorted {1, 2, 3, 4}: median at h = 1.5 -> 2.5; q1 at h = 0.75 -> 1.75; q3 at h = 2.25 -> 3.25.
  Summary S = summarize({4, 3, 2, 1});
  CHECK(S.median == 2.5);
  CHECK(S.q1 == 1.75);
  CHECK(S.q3 == 3.25);
  CHECK(S.iqr() == 1.5);
  CHECK(S.mean == 2.5);
}

TEST_CASE("measure stats: an outlier moves the mean, not the median") {
  Summary S = summarize({1, 1, 1, 1, 96});
  CHECK(S.median == 1.0);
  CHECK(S.q3 == 1.0);
  CHECK(S.max == 96.0);
  CHECK(S.mean == 20.0);
}

TEST_CASE("measure stats: single and empty samples") {
  Summary One = summarize({7});
  CHECK(One.count == 1);
  CHECK(One.median == 7.0);
  CHECK(One.q1 == 7.0);
  CHECK(One.q3 == 7.0);
  Summary None = summarize({});
  CHECK(None.count == 0);
  CHECK(None.median == 0.0);
  CHECK(quantileSorted({10, 20}, 0.0) == 10.0);
  CHECK(quantileSorted({10, 20}, 1.0) == 20.0);
  CHECK(quantileSorted({10, 20}, 0.1) == doctest::Approx(11.0));
}
