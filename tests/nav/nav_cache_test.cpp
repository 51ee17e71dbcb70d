// FieldCache (warpmind/nav/field_cache.h): fields computed only in the sectors where units stand, cached
// per target — every steering, distance and direction bit-equal to the whole field's (distance_fields and
// steer on the whole map) on random maps of every shape, through interleaved updates (against a full
// computation on the changed map) and evictions; a group near its goal on a big map costs a band of
// cells, not the map; bad arguments refused with nothing changed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "nav/random_maps.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/field_cache.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Whole {
  std::vector<float> dist;
  std::vector<std::int8_t> dir;
};
Whole whole_field(const Grid& g, Cell goal) {
  Whole w{std::vector<float>(g.cells()), std::vector<std::int8_t>(g.cells())};
  EXPECT_TRUE(
      distance_fields(test::cpu_context(), g, std::vector<Cell>{goal}, w.dist, w.dir, nullptr, NavVariant::Cpu).ok());
  return w;
}

// The cache's steering of `pos` and every sector it reports equal the whole field's, bit for bit.
void expect_equal(FieldCache& cache, const Grid& g, Cell goal, const std::vector<Vec2>& pos, const std::string& what) {
  const Whole w = whole_field(g, goal);
  std::vector<Vec2> st(pos.size()), want_st(pos.size());
  std::vector<float> d(pos.size()), want_d(pos.size());
  ASSERT_TRUE(cache.steer(goal, pos, st, d).ok()) << what;
  ASSERT_TRUE(steer(g, w.dist, w.dir, pos, want_st, want_d).ok()) << what;
  ASSERT_EQ(std::memcmp(st.data(), want_st.data(), st.size() * sizeof(Vec2)), 0) << what;
  ASSERT_EQ(std::memcmp(d.data(), want_d.data(), d.size() * sizeof(float)), 0) << what;
  const int s = cache.sector_side();
  std::vector<float> sd(static_cast<std::size_t>(s * s));
  std::vector<std::int8_t> sr(sd.size());
  for (int sy = 0; sy * s < g.height; ++sy)
    for (int sx = 0; sx * s < g.width; ++sx) {
      ASSERT_TRUE(cache.sector(goal, sx, sy, sd, sr).ok()) << what;
      for (int y = 0; y < s; ++y)
        for (int x = 0; x < s; ++x) {
          const int cx = sx * s + x, cy = sy * s + y;
          const std::size_t i = static_cast<std::size_t>(y * s + x);
          const float want = g.inside(cx, cy) ? w.dist[g.index(cx, cy)] : kInf;
          const std::int8_t want_dir = g.inside(cx, cy) ? w.dir[g.index(cx, cy)] : kNoDirection;
          ASSERT_EQ(std::memcmp(&sd[i], &want, sizeof want), 0) << what << " cell (" << cx << ", " << cy << ")";
          ASSERT_EQ(sr[i], want_dir) << what << " cell (" << cx << ", " << cy << ")";
        }
    }
}

Grid random_map(SplitMix64& rng, int max_side) {
  const int blocked = static_cast<int>(rng.next() % 40);
  return test_maps::random_grid(rng, max_side, blocked, rng.next() % 2 != 0);
}
using test_maps::random_passable;

// A group of units around a point (some outside the map, one not finite).
std::vector<Vec2> group(SplitMix64& rng, const Grid& g, int n) {
  const float cx = rng.uniform(0.0f, static_cast<float>(g.width)), cy = rng.uniform(0.0f, static_cast<float>(g.height));
  std::vector<Vec2> out;
  for (int i = 0; i < n; ++i) out.push_back({cx + rng.uniform(-6.0f, 6.0f), cy + rng.uniform(-6.0f, 6.0f)});
  out.push_back({std::nanf(""), 1.0f});
  return out;
}

TEST(NavCache, RandomMapsEqualTheWholeField) {
  SplitMix64 rng(3);
  for (int round = 0; round < 60; ++round) {
    const Grid g = random_map(rng, round < 30 ? 30 : 70);
    FieldCacheOptions o;
    o.sector = 8 << (rng.next() % 2);
    std::unique_ptr<FieldCache> cache;
    ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
    for (int q = 0; q < 4; ++q) {
      const Cell goal = random_passable(rng, g);
      if (goal.x < 0) break;
      expect_equal(*cache, g, goal, group(rng, g, 12),
                   "round " + std::to_string(round) + " query " + std::to_string(q));
    }
  }
}

// Requests, then changes, then requests: after every update the cache gives the changed map's fields,
// and on a map big enough some sectors survive the changes.
TEST(NavCache, UpdatesKeepOnlyWhatNoChangeCanTouch) {
  SplitMix64 rng(5);
  std::uint64_t kept = 0, dropped = 0;
  for (int round = 0; round < 30; ++round) {
    Grid g = random_map(rng, 90);
    FieldCacheOptions o;
    o.sector = 8;
    std::unique_ptr<FieldCache> cache;
    ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
    std::vector<Cell> goals;
    for (int i = 0; i < 3; ++i) {
      const Cell c = random_passable(rng, g);
      if (c.x >= 0) goals.push_back(c);
    }
    for (int step = 0; step < 5; ++step) {
      for (const Cell& goal : goals) {
        if (!g.passable(goal.x, goal.y)) continue;
        std::vector<Vec2> pos = group(rng, g, 20);
        std::vector<Vec2> st(pos.size());
        std::vector<float> d(pos.size());
        ASSERT_TRUE(cache->steer(goal, pos, st, d).ok());
      }
      std::vector<CellChange> changes;
      const int n = 1 + static_cast<int>(rng.next() % 6);
      for (int i = 0; i < n; ++i) {
        const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
                     static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
        const auto cost = static_cast<std::uint8_t>(rng.next() % 3 == 0 ? kBlocked : 1 + rng.next() % 5);
        changes.push_back({c, cost});
        g.cost[g.index(c.x, c.y)] = cost;
      }
      const std::size_t before = cache->memory_used();
      CacheStats st;
      ASSERT_TRUE(cache->update(changes, &st).ok());
      dropped += st.sectors_dropped;
      ASSERT_EQ(before - cache->memory_used(), st.sectors_dropped * 8 * 8 * 5);
      kept += before / (8 * 8 * 5) - st.sectors_dropped;
      ASSERT_EQ(cache->grid().cost, g.cost);
      for (const Cell& goal : goals) {
        if (!g.passable(goal.x, goal.y)) continue;
        expect_equal(*cache, g, goal, group(rng, g, 20),
                     "round " + std::to_string(round) + " step " + std::to_string(step));
      }
    }
  }
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(kept, 0u);
}

// Every sector of a goal's field cached, then a block of walls placed far away: the sectors between the
// goal and the block are dropped, those nearer the goal than the block is kept, and all equal the changed
// map's field.
TEST(NavCache, AChangeFarFromTheGoalKeepsTheSectorsNearIt) {
  Grid g;
  ASSERT_TRUE(make_grid(256, 256, 1, g).ok());
  FieldCacheOptions o;
  o.sector = 16;
  std::unique_ptr<FieldCache> cache;
  ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
  const Cell goal{10, 10};
  expect_equal(*cache, g, goal, {{5.5f, 5.5f}}, "before");
  EXPECT_EQ(cache->memory_used(), 256u * 5 * 16 * 16);
  std::vector<CellChange> changes;
  for (int y = 230; y < 233; ++y)
    for (int x = 230; x < 233; ++x) {
      changes.push_back({{x, y}, kBlocked});
      g.cost[g.index(x, y)] = kBlocked;
    }
  CacheStats st;
  ASSERT_TRUE(cache->update(changes, &st).ok());
  EXPECT_GT(st.sectors_dropped, 0u);
  EXPECT_LT(st.sectors_dropped, 128u) << "most sectors are nearer the goal than the block";
  expect_equal(*cache, g, goal, {{5.5f, 5.5f}}, "after");
}

// A sector the goal could not reach (behind a wall from edge to edge) learns of a door opened far from
// it: every value there was +infinity, so no distance bound protects it.
TEST(NavCache, ADoorOpenedFarAwayReachesWhatWasCutOff) {
  Grid g;
  ASSERT_TRUE(make_grid(128, 64, 1, g).ok());
  for (int y = 0; y < 64; ++y) g.cost[g.index(64, y)] = kBlocked;
  FieldCacheOptions o;
  o.sector = 16;
  std::unique_ptr<FieldCache> cache;
  ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
  const Cell goal{8, 8};
  const std::vector<Vec2> far{{120.5f, 8.5f}};
  expect_equal(*cache, g, goal, far, "walled off");
  g.cost[g.index(64, 60)] = 1;  // the door, 52 rows from the sector holding (120, 8)
  ASSERT_TRUE(cache->update(std::vector<CellChange>{{{64, 60}, 1}}).ok());
  std::vector<Vec2> st(1);
  std::vector<float> d(1);
  ASSERT_TRUE(cache->steer(goal, far, st, d).ok());
  EXPECT_TRUE(std::isfinite(d[0]));
  expect_equal(*cache, g, goal, far, "door opened");
}

TEST(NavCache, TheBudgetEvictsTheLeastRecentlyUsedTargets) {
  Grid g;
  ASSERT_TRUE(generate_map(MapKind::Rooms, 256, 256, 3, g).ok());
  FieldCacheOptions o;
  o.sector = 32;
  o.memory_budget = 3 * 32 * 32 * 5;  // three sectors
  std::unique_ptr<FieldCache> cache;
  ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
  std::vector<float> d(32 * 32);
  std::vector<std::int8_t> r(d.size());
  CacheStats st;
  ASSERT_TRUE(cache->sector({10, 10}, 3, 3, d, r, &st).ok());
  EXPECT_EQ(st.sectors_computed, 1u);
  ASSERT_TRUE(cache->sector({40, 40}, 3, 3, d, r, &st).ok());
  ASSERT_TRUE(cache->sector({70, 70}, 3, 3, d, r, &st).ok());
  EXPECT_EQ(cache->targets(), 3u);
  ASSERT_TRUE(cache->sector({10, 10}, 3, 3, d, r, &st).ok());  // reused: now the most recent
  EXPECT_EQ(st.sectors_reused, 1u);
  EXPECT_EQ(st.sectors_computed, 0u);
  ASSERT_TRUE(cache->sector({100, 100}, 3, 3, d, r, &st).ok());  // a fourth: (40, 40) goes
  EXPECT_EQ(st.targets_evicted, 1u);
  EXPECT_EQ(cache->targets(), 3u);
  EXPECT_LE(cache->memory_used(), o.memory_budget);
  ASSERT_TRUE(cache->sector({40, 40}, 3, 3, d, r, &st).ok());
  EXPECT_EQ(st.sectors_computed, 1u);  // computed again
  expect_equal(*cache, g, {40, 40}, {{100.5f, 100.5f}}, "after evictions");
}

// A group 300 cells from its goal on a 1024 x 1024 map: the search settles a band between them, a small
// part of the map, and its sectors equal the whole field's.
TEST(NavCache, AGroupNearItsGoalCostsABandNotTheMap) {
  Grid g;
  ASSERT_TRUE(generate_map(MapKind::Open, 1024, 1024, 1, g).ok());
  FieldCacheOptions o;
  std::unique_ptr<FieldCache> cache;
  ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
  Cell goal{200, 200};
  for (; !g.passable(goal.x, goal.y); ++goal.x) {}
  std::vector<Vec2> pos;
  for (int i = 0; i < 50; ++i)
    pos.push_back({420.0f + static_cast<float>(i % 10), 400.0f + static_cast<float>(i / 10)});
  std::vector<Vec2> st(pos.size());
  std::vector<float> d(pos.size());
  CacheStats stats;
  ASSERT_TRUE(cache->steer(goal, pos, st, d, &stats).ok());
  EXPECT_LT(stats.settled, g.cells() / 10) << stats.settled;
  EXPECT_GE(stats.sectors_computed, 1u);
  const Whole w = whole_field(g, goal);
  std::vector<Vec2> want_st(pos.size());
  std::vector<float> want_d(pos.size());
  ASSERT_TRUE(steer(g, w.dist, w.dir, pos, want_st, want_d).ok());
  EXPECT_EQ(std::memcmp(st.data(), want_st.data(), st.size() * sizeof(Vec2)), 0);
  EXPECT_EQ(std::memcmp(d.data(), want_d.data(), d.size() * sizeof(float)), 0);
  ASSERT_TRUE(cache->steer(goal, pos, st, d, &stats).ok());
  EXPECT_EQ(stats.settled, 0u);  // cached
  EXPECT_GE(stats.sectors_reused, 1u);
}

TEST(NavCache, BadArgumentsChangeNothing) {
  Grid g;
  ASSERT_TRUE(make_grid(40, 30, 1, g).ok());
  g.cost[g.index(5, 5)] = kBlocked;
  std::unique_ptr<FieldCache> cache;
  FieldCacheOptions o;
  o.sector = 7;
  EXPECT_EQ(FieldCache::create(g, o, cache).code(), StatusCode::InvalidArgument);
  o.sector = 1025;
  EXPECT_EQ(FieldCache::create(g, o, cache).code(), StatusCode::InvalidArgument);
  o.sector = 16;
  ASSERT_TRUE(FieldCache::create(g, o, cache).ok());
  std::vector<Vec2> pos{{1.5f, 1.5f}};
  std::vector<Vec2> st(1);
  std::vector<float> d(1);
  EXPECT_EQ(cache->steer({5, 5}, pos, st, d).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(cache->steer({40, 0}, pos, st, d).code(), StatusCode::InvalidArgument);
  std::vector<float> two(2);
  EXPECT_EQ(cache->steer({1, 1}, pos, st, two).code(), StatusCode::InvalidArgument);
  std::vector<float> sd(16 * 16);
  std::vector<std::int8_t> sr(sd.size());
  EXPECT_EQ(cache->sector({1, 1}, 3, 0, sd, sr).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(cache->sector({1, 1}, 0, -1, sd, sr).code(), StatusCode::InvalidArgument);
  std::vector<float> small(10);
  EXPECT_EQ(cache->sector({1, 1}, 0, 0, small, sr).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(cache->targets(), 0u);
  std::vector<Vec2> off{{-3.0f, 2.0f}, {std::nanf(""), 1.0f}};  // no unit on the map: nothing computed
  std::vector<Vec2> off_st(2);
  std::vector<float> off_d(2);
  CacheStats none;
  ASSERT_TRUE(cache->steer({1, 1}, off, off_st, off_d, &none).ok());
  EXPECT_EQ(off_d[0], kInf);
  EXPECT_EQ(none.settled, 0u);
  EXPECT_EQ(cache->targets(), 0u);
  EXPECT_EQ(cache->update(std::vector<CellChange>{{{1, 1}, 0}, {{40, 1}, 0}}).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(cache->grid().cost, g.cost);
  ASSERT_TRUE(cache->steer({1, 1}, pos, st, d).ok());
  EXPECT_EQ(cache->targets(), 1u);
  ASSERT_TRUE(cache->update(std::vector<CellChange>{{{1, 1}, 0}}).ok());  // blocks the goal: the target goes
  EXPECT_EQ(cache->targets(), 0u);
  EXPECT_EQ(cache->memory_used(), 0u);
}

}  // namespace
}  // namespace warpmind::nav
