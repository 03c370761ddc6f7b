// WorkerPool::ParallelFor covers every index once, stops on request, and can
// be called from inside the pool without deadlocking.
#include "server/worker_pool.h"

#include <atomic>
#include <future>
#include <vector>

#include "gtest/gtest.h"

namespace collision::server {
namespace {

TEST(WorkerPool, ParallelForCoversEveryIndexExactlyOnce) {
  WorkerPool pool(3);
  for (std::size_t n : {0u, 1u, 7u, 8u, 1000u, 100003u}) {
    std::vector<std::atomic<int>> seen(n);
    const bool done = pool.ParallelFor(
        n, 64,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) seen[i]++;
        },
        [] { return false; });
    EXPECT_TRUE(done);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  }
}

TEST(WorkerPool, StopsHandingOutChunksWhenAsked) {
  WorkerPool pool(2);
  std::atomic<int> chunks{0};
  const bool done = pool.ParallelFor(
      1000, 10, [&](std::size_t, std::size_t) { chunks++; },
      [&] { return chunks.load() >= 5; });
  EXPECT_FALSE(done);
  EXPECT_LT(chunks.load(), 100);
}

TEST(WorkerPool, NestedParallelForFromEveryWorkerDoesNotDeadlock) {
  WorkerPool pool(2);
  std::vector<std::future<long>> results;
  for (int t = 0; t < 8; ++t) {
    auto p = std::make_shared<std::promise<long>>();
    results.push_back(p->get_future());
    pool.Submit([&pool, p] {
      std::atomic<long> sum{0};
      pool.ParallelFor(
          10000, 100,
          [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) sum += static_cast<long>(i);
          },
          [] { return false; });
      p->set_value(sum.load());
    });
  }
  for (auto& f : results) EXPECT_EQ(f.get(), 10000L * 9999 / 2);
}

}  // namespace
}  // namespace collision::server
