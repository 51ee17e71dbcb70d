#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "warpmind/core/thread_pool.h"

namespace warpmind {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(4);
  for (std::size_t n : {0u, 1u, 3u, 17u, 1000u, 100003u}) {
    std::vector<std::atomic<int>> hits(n);
    pool.parallel_for(n, [&](std::size_t b, std::size_t e, unsigned w) {
      ASSERT_LT(w, pool.size());
      for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, ManyCallsInARowAndSingleThread) {
  ThreadPool pool(3), single(1);
  EXPECT_EQ(single.size(), 1u);
  std::atomic<long> sum{0};
  for (int round = 0; round < 200; ++round)
    pool.parallel_for(64, [&](std::size_t b, std::size_t e, unsigned) {
      for (std::size_t i = b; i < e; ++i) sum += static_cast<long>(i);
    });
  EXPECT_EQ(sum.load(), 200L * (63 * 64 / 2));
  long s1 = 0;
  single.parallel_for(10, [&](std::size_t b, std::size_t e, unsigned w) {
    EXPECT_EQ(w, 0u);
    for (std::size_t i = b; i < e; ++i) s1 += static_cast<long>(i);
  });
  EXPECT_EQ(s1, 45);
}

TEST(ThreadPool, TakesConstAndMutableCallables) {
  ThreadPool pool(2);
  std::atomic<int> calls{0};
  const auto counted = [&](std::size_t b, std::size_t e, unsigned) { calls += static_cast<int>(e - b); };
  pool.parallel_for(100, counted);
  int sum = 0;  // a mutable lambda with its own state, run on one thread
  auto stateful = [&sum, seen = 0](std::size_t b, std::size_t e, unsigned) mutable {
    seen += static_cast<int>(e - b);
    sum = seen;
  };
  ThreadPool(1).parallel_for(7, stateful);
  EXPECT_EQ(calls.load(), 100);
  EXPECT_EQ(sum, 7);
}

}  // namespace
}  // namespace warpmind
