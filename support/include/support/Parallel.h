// A work queue over [0, N) on a few threads: the one parallel loop the modules share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace support {

/// The threads parallelFor runs N items on: `Threads` (0 = all cores), at most N, at least 1.
inline unsigned workerCount(size_t N, unsigned Threads) {
  if (Threads == 0)
    Threads = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(Threads, N)));
}

/// Calls Body(i, worker) for every i < N, each once, on up to `Threads` threads (0 = all cores),
/// the calling thread included; `worker` (< workerCount(N, Threads)) names the thread, for state a
/// body keeps per thread. Indices are handed out in order but finish in any: Body must write only
/// to slot i of its outputs, so results do not depend on the threads.
template <class Fn> void parallelFor(size_t N, unsigned Threads, Fn &&Body) {
  Threads = workerCount(N, Threads);
  std::atomic<size_t> Next{0};
  auto Worker = [&](unsigned W) {
    for (size_t I; (I = Next.fetch_add(1)) < N;)
      Body(I, W);
  };
  std::vector<std::thread> Pool;
  for (unsigned W = 1; W < Threads; ++W)
    Pool.emplace_back(Worker, W);
  Worker(0);
  for (std::thread &T : Pool)
    T.join();
}

} // namespace support
