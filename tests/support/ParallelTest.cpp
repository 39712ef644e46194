// support/Parallel.h: parallelFor runs every index once on the threads asked for, and results
// written to an index's own slot do not depend on the thread count.
#include "support/Parallel.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace {

/// A value that takes some work per index, written to the index's slot.
std::vector<uint64_t> squares(size_t N, unsigned Threads) {
  std::vector<uint64_t> Out(N, 0);
  support::parallelFor(N, Threads, [&](size_t I, unsigned) {
    uint64_t H = I;
    for (int K = 0; K < 100; ++K)
      H = H * 6364136223846793005ULL + 1442695040888963407ULL;
    Out[I] = H;
  });
  return Out;
}

} // namespace

TEST_CASE("support parallel: the worker count is between 1 and the items") {
  CHECK(support::workerCount(0, 4) == 1);
  CHECK(support::workerCount(3, 8) == 3);
  CHECK(support::workerCount(100, 4) == 4);
  CHECK(support::workerCount(100, 0) >= 1); // all cores
}

TEST_CASE("support parallel: every index runs once, on a worker in range") {
  const size_t N = 1000;
  const unsigned Threads = 4;
  std::vector<std::atomic<int>> Seen(N);
  std::atomic<bool> WorkerInRange{true};
  const unsigned Workers = support::workerCount(N, Threads);
  support::parallelFor(N, Threads, [&](size_t I, unsigned W) {
    Seen[I].fetch_add(1);
    if (W >= Workers)
      WorkerInRange = false;
  });
  size_t Once = 0;
  for (const std::atomic<int> &S : Seen)
    Once += S.load() == 1;
  CHECK(Once == N);
  CHECK(WorkerInRange);
}

TEST_CASE("support parallel: results do not depend on the number of threads") {
  const std::vector<uint64_t> One = squares(777, 1);
  for (unsigned Threads : {2u, 3u, 8u, 0u})
    CHECK(squares(777, Threads) == One);
  support::parallelFor(0, 4, [](size_t, unsigned) { FAIL("no item to run"); });
}
