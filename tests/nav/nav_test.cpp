// Navigation fields (warpmind/nav/nav.h): every distance bit-equal to the definition's float of a
// brute-force oracle's exact value (relaxation to a fixed point, compared in long double) and every
// direction the first step on a least walk, on random and adversarial maps; the Moving AI format read,
// written and refused (grid.h); steering; bad arguments refused with nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <limits>
#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::nav {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool step_ok(const Grid& g, int x, int y, int k) {
  const int dx = kSteps[static_cast<std::size_t>(k)][0], dy = kSteps[static_cast<std::size_t>(k)][1];
  return g.passable(x, y) && g.passable(x + dx, y + dy) &&
         (dx == 0 || dy == 0 || (g.passable(x + dx, y) && g.passable(x, y + dy)));
}

// The oracle: exact (A, B) per cell by relaxation until nothing changes, walks compared as
// A + B * sqrt(2) in long double (exact enough on these small maps), then the definition's float.
struct Oracle {
  std::vector<long long> a, b;
  std::vector<bool> reached;
  std::vector<float> dist;
  std::vector<std::int8_t> dir;
};
// The field of a goal set (one goal, or the nearest of several).
Oracle oracle(const Grid& g, const std::vector<Cell>& goals) {
  const std::size_t n = g.cells();
  Oracle o{std::vector<long long>(n), std::vector<long long>(n), std::vector<bool>(n), {}, {}};
  const auto value = [&](long long a, long long b) { return static_cast<long double>(a) + b * std::sqrt(2.0L); };
  std::vector<bool> goal(n);
  for (const Cell& c : goals) goal[g.index(c.x, c.y)] = o.reached[g.index(c.x, c.y)] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x)
        for (int k = 0; k < 8; ++k) {
          if (!step_ok(g, x, y, k)) continue;
          const std::size_t u = g.index(x, y), v = g.index(x + kSteps[k][0], y + kSteps[k][1]);
          if (!o.reached[v]) continue;
          const long long ca = o.a[v] + (k & 1 ? 0 : g.cost[v]), cb = o.b[v] + (k & 1 ? g.cost[v] : 0);
          if (!o.reached[u] || value(ca, cb) < value(o.a[u], o.b[u]) - 1e-9L) {
            o.a[u] = ca;
            o.b[u] = cb;
            o.reached[u] = true;
            changed = true;
          }
        }
  }
  o.dist.assign(n, kInf);
  o.dir.assign(n, kNoDirection);
  for (std::size_t c = 0; c < n; ++c) {
    if (!o.reached[c]) continue;
    o.dist[c] = static_cast<float>(static_cast<double>(o.a[c]) + static_cast<double>(o.b[c]) * 1.4142135623730951);
    if (goal[c]) continue;
    const int x = static_cast<int>(c % static_cast<std::size_t>(g.width)), y = static_cast<int>(c / g.width);
    for (int k = 0; k < 8 && o.dir[c] == kNoDirection; ++k) {
      if (!step_ok(g, x, y, k)) continue;
      const std::size_t m = g.index(x + kSteps[k][0], y + kSteps[k][1]);
      if (o.reached[m] && o.a[m] + (k & 1 ? 0 : g.cost[m]) == o.a[c] && o.b[m] + (k & 1 ? g.cost[m] : 0) == o.b[c])
        o.dir[c] = static_cast<std::int8_t>(k);
    }
  }
  return o;
}
Oracle oracle(const Grid& g, Cell goal) { return oracle(g, std::vector<Cell>{goal}); }

void expect_fields(const Grid& g, const std::vector<Cell>& goals) {
  std::vector<float> dist(goals.size() * g.cells());
  std::vector<std::int8_t> dir(dist.size());
  FieldStats stats;
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, dist, dir, &stats).ok());
  std::uint64_t reached = 0;
  for (std::size_t i = 0; i < goals.size(); ++i) {
    const Oracle o = oracle(g, goals[i]);
    for (std::size_t c = 0; c < g.cells(); ++c) {
      const float got = dist[i * g.cells() + c];
      ASSERT_EQ(std::memcmp(&got, &o.dist[c], sizeof got), 0)
          << "goal " << i << " cell " << c << ": " << got << " against " << o.dist[c];
      ASSERT_EQ(dir[i * g.cells() + c], o.dir[c]) << "goal " << i << " cell " << c;
      reached += o.reached[c];
    }
  }
  EXPECT_EQ(stats.settled, reached);
}

TEST(Nav, RandomMapsEqualTheBruteForce) {
  SplitMix64 rng(7);
  for (int round = 0; round < 60; ++round) {
    Grid g;
    ASSERT_TRUE(make_grid(1 + static_cast<int>(rng.next() % 14), 1 + static_cast<int>(rng.next() % 14), 1, g).ok());
    const int blocked = static_cast<int>(rng.next() % 45), costly = round % 3;  // percent; costs 1 or 1..9
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(costly ? 1 + rng.next() % 9 : 1);
      if (static_cast<int>(rng.next() % 100) < blocked) c = kBlocked;
    }
    std::vector<Cell> goals;
    for (int tries = 0; tries < 50 && goals.size() < 3; ++tries) {
      const Cell c{static_cast<int>(rng.next() % g.width), static_cast<int>(rng.next() % g.height)};
      if (g.passable(c.x, c.y)) goals.push_back(c);
    }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_fields(g, goals);
  }
}

// goal_set_field: the nearest of several goals, against the oracle seeded with all of them and against
// the least of the goals' own fields; repeated goals, a goal set of every passable cell, an empty set.
TEST(Nav, GoalSetsEqualTheBruteForce) {
  SplitMix64 rng(5);
  for (int round = 0; round < 40; ++round) {
    Grid g;
    const int w = 1 + static_cast<int>(rng.next() % 14), h = 1 + static_cast<int>(rng.next() % 14);
    ASSERT_TRUE(make_grid(w, h, 1, g).ok());
    const int blocked = static_cast<int>(rng.next() % 40);
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(round % 2 ? 1 + rng.next() % 9 : 1);
      if (static_cast<int>(rng.next() % 100) < blocked) c = kBlocked;
    }
    std::vector<Cell> goals;
    const int want = round == 0 ? 0 : 1 + static_cast<int>(rng.next() % 6);
    for (int tries = 0; static_cast<int>(goals.size()) < want && tries < 1000; ++tries) {
      const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(w)),
                   static_cast<int>(rng.next() % static_cast<std::uint64_t>(h))};
      if (g.passable(c.x, c.y)) goals.push_back(c);
    }
    if (round == 1) {  // every passable cell a goal: 0 on each, no direction anywhere
      goals.clear();
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          if (g.passable(x, y)) goals.push_back({x, y});
    }
    if (goals.size() > 1 && round % 3 == 0) goals.push_back(goals.front());  // given twice
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<float> dist(g.cells(), -1.0f);
    std::vector<std::int8_t> dir(g.cells(), 9);
    FieldStats stats;
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, dist, dir, &stats).ok());
    const Oracle o = oracle(g, goals);
    std::vector<float> each(goals.size() * g.cells());
    ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, each).ok());
    std::uint64_t reached = 0;
    for (std::size_t c = 0; c < g.cells(); ++c) {
      ASSERT_EQ(std::memcmp(&dist[c], &o.dist[c], sizeof(float)), 0) << "cell " << c;
      ASSERT_EQ(dir[c], o.dir[c]) << "cell " << c;
      float least = kInf;
      for (std::size_t i = 0; i < goals.size(); ++i) least = std::min(least, each[i * g.cells() + c]);
      ASSERT_EQ(dist[c], least) << "cell " << c;
      reached += o.reached[c];
    }
    EXPECT_EQ(stats.settled, reached);
    if (goals.empty()) {
      EXPECT_EQ(reached, 0u);
    }
  }
  Grid g;
  ASSERT_TRUE(make_grid(4, 4, 1, g).ok());
  std::vector<float> dist(16, -1.0f);
  EXPECT_EQ(goal_set_field(test::cpu_context(), g, std::vector<Cell>{{0, 0}, {4, 0}}, dist).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(dist[0], -1.0f);
  std::vector<float> two(32);
  EXPECT_EQ(goal_set_field(test::cpu_context(), g, std::vector<Cell>{{0, 0}}, two).code(), StatusCode::InvalidArgument);
}

TEST(Nav, AdversarialMaps) {
  Grid g;
  // No corner cutting: a diagonal between two blocked cells is closed.
  ASSERT_TRUE(read_moving_ai("type octile\nheight 2\nwidth 2\nmap\n.@\n@.\n", g).ok());
  std::vector<float> d(4);
  std::vector<std::int8_t> dir(4);
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{0, 0}}, d, dir).ok());
  EXPECT_EQ(d[0], 0.0f);
  EXPECT_EQ(d[3], kInf);
  EXPECT_EQ(d[1], kInf);  // blocked
  EXPECT_EQ(dir[3], kNoDirection);
  expect_fields(g, {{0, 0}});
  // One cell; everything blocked but the goal; a corridor of costs (the cost of the cell entered).
  ASSERT_TRUE(make_grid(1, 1, 7, g).ok());
  expect_fields(g, {{0, 0}});
  ASSERT_TRUE(make_grid(9, 7, kBlocked, g).ok());
  g.cost[g.index(4, 3)] = 1;
  expect_fields(g, {{4, 3}});
  ASSERT_TRUE(make_grid(3, 1, 1, g).ok());
  g.cost = {1, 5, 1};
  std::vector<float> c(3);
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{2, 0}}, c).ok());
  EXPECT_EQ(c[1], 1.0f);  // into the goal, cost 1
  EXPECT_EQ(c[0], 6.0f);  // into the cell of cost 5, then the goal
  // An open map: the octile formula (max - min) + min * sqrt(2) from the corner, rounded as defined.
  ASSERT_TRUE(make_grid(64, 48, 1, g).ok());
  std::vector<float> open(g.cells());
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{0, 0}}, open).ok());
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      const int lo = std::min(x, y), hi = std::max(x, y);
      const float want =
          static_cast<float>(static_cast<double>(hi - lo) + static_cast<double>(lo) * 1.4142135623730951);
      ASSERT_EQ(open[g.index(x, y)], want) << x << "," << y;
    }
  // No goals: nothing to do.
  EXPECT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{}, std::span<float>()).ok());
}

TEST(Nav, ManyGoalsOnThePoolEqualOneAtATime) {
  SplitMix64 rng(3);
  Grid g;
  ASSERT_TRUE(make_grid(40, 30, 1, g).ok());
  for (auto& c : g.cost) c = rng.next() % 4 == 0 ? kBlocked : static_cast<std::uint8_t>(1 + rng.next() % 3);
  std::vector<Cell> goals;
  while (goals.size() < 24) {
    const Cell c{static_cast<int>(rng.next() % g.width), static_cast<int>(rng.next() % g.height)};
    if (g.passable(c.x, c.y)) goals.push_back(c);
  }
  std::vector<float> all(goals.size() * g.cells()), one(g.cells());
  std::vector<std::int8_t> all_dir(all.size()), one_dir(g.cells());
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, all, all_dir).ok());
  for (std::size_t i = 0; i < goals.size(); ++i) {
    ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::span(goals).subspan(i, 1), one, one_dir).ok());
    EXPECT_EQ(std::memcmp(one.data(), all.data() + i * g.cells(), one.size() * sizeof(float)), 0) << i;
    EXPECT_EQ(std::memcmp(one_dir.data(), all_dir.data() + i * g.cells(), one_dir.size()), 0) << i;
  }
}

TEST(Nav, BadArgumentsAreRefusedAndNothingIsWritten) {
  Grid g;
  ASSERT_TRUE(read_moving_ai("type octile\nheight 2\nwidth 3\nmap\n..@\n...\n", g).ok());
  std::vector<float> d(6, 42.0f);
  std::vector<std::int8_t> dir(6, 9);
  const auto untouched = [&] {
    for (float v : d) EXPECT_EQ(v, 42.0f);
    for (std::int8_t v : dir) EXPECT_EQ(v, 9);
  };
  Context& ctx = test::cpu_context();
  EXPECT_EQ(distance_fields(ctx, g, std::vector<Cell>{{2, 0}}, d, dir).code(), StatusCode::InvalidArgument);  // blocked
  EXPECT_EQ(distance_fields(ctx, g, std::vector<Cell>{{3, 0}}, d, dir).code(), StatusCode::InvalidArgument);  // outside
  EXPECT_EQ(distance_fields(ctx, g, std::vector<Cell>{{-1, 1}}, d, dir).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(distance_fields(ctx, g, std::vector<Cell>{{0, 0}}, std::span(d).first(5), dir).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(distance_fields(ctx, g, std::vector<Cell>{{0, 0}}, d, std::span(dir).first(5)).code(),
            StatusCode::InvalidArgument);
  Grid bad = g;
  bad.cost.pop_back();
  EXPECT_EQ(distance_fields(ctx, bad, std::vector<Cell>{{0, 0}}, d, dir).code(), StatusCode::InvalidArgument);
  bad.width = 0;
  EXPECT_EQ(check_grid(bad).code(), StatusCode::InvalidArgument);
  untouched();
  Grid huge;
  EXPECT_EQ(make_grid(4097, 4096, 1, huge).code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(make_grid(4096, 4096, 1, huge).ok());
}

TEST(Nav, SteeringFollowsTheField) {
  Grid g;
  ASSERT_TRUE(read_moving_ai("type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n...\n", g).ok());
  std::vector<float> d(9);
  std::vector<std::int8_t> dir(9);
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{2, 2}}, d, dir).ok());
  const std::vector<Vec2> at = {{0.5f, 0.5f}, {2.9f, 2.0f},          {1.5f, 1.5f}, {-0.1f, 0.0f},
                                {3.0f, 0.0f}, {std::nanf(""), 1.0f}, {0.0f, 2.5f}};
  std::vector<Vec2> steer_out(at.size());
  std::vector<float> dist(at.size());
  ASSERT_TRUE(steer(g, d, dir, at, steer_out, dist).ok());
  // (0, 0): around the blocked centre, first east (the first least step in kSteps' order).
  EXPECT_EQ(steer_out[0].x, 1.0f);
  EXPECT_EQ(steer_out[0].y, 0.0f);
  EXPECT_EQ(dist[0], 4.0f);
  EXPECT_EQ(steer_out[1].x, 0.0f);  // the goal itself
  EXPECT_EQ(dist[1], 0.0f);
  EXPECT_EQ(dist[2], kInf);  // the blocked centre
  for (int i : {3, 4, 5}) {
    EXPECT_EQ(steer_out[i].x, 0.0f);
    EXPECT_EQ(dist[i], kInf);
  }
  EXPECT_EQ(steer_out[6].x, 1.0f);  // (0, 2): east along the bottom row
  std::vector<float> short_out(2);
  EXPECT_EQ(steer(g, d, dir, at, steer_out, short_out).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(steer(g, std::span(d).first(8), dir, at, steer_out, dist).code(), StatusCode::InvalidArgument);
}

TEST(Nav, MovingAiMapsAreReadWrittenAndRefused) {
  Grid g;
  ASSERT_TRUE(read_moving_ai("type octile\r\nwidth 4\r\nheight 2\r\nmap\r\n.GS@\r\nOTW.\r\n\r\n", g).ok());
  EXPECT_EQ(g.width, 4);
  EXPECT_EQ(g.height, 2);
  EXPECT_EQ(g.cost, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0, 0, 1}));
  std::string text;
  ASSERT_TRUE(write_moving_ai(g, text).ok());
  EXPECT_EQ(text, "type octile\nheight 2\nwidth 4\nmap\n...@\n@@@.\n");
  Grid again;
  ASSERT_TRUE(read_moving_ai(text, again).ok());
  EXPECT_EQ(again.cost, g.cost);
  const Grid before = g;
  for (const char* bad : {"", "type tile\nheight 1\nwidth 1\nmap\n.\n", "type octile\nheight 1\nmap\n.\n",
                          "type octile\nheight 0\nwidth 1\nmap\n", "type octile\nheight 1\nwidth 1\nwidth 1\nmap\n.\n",
                          "type octile\nheight 99999999999999999999\nwidth 1\nmap\n.\n",
                          "type octile\nheight 4097\nwidth 4097\nmap\n", "type octile\nheight +1\nwidth 1\nmap\n.\n",
                          "type octile\nheight 1\nwidth 2\nmap\n.\n", "type octile\nheight 1\nwidth 2\nmap\n.x\n",
                          "type octile\nheight 2\nwidth 1\nmap\n.\n", "type octile\nheight 1\nwidth 1\nmap\n.\n.\n",
                          "type octile\nheight 1\nwidth 1\ncolour red\nmap\n.\n", "type octile\nheight 1\nwidth 1\n"}) {
    const Status st = read_moving_ai(bad, g);
    EXPECT_EQ(st.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_NE(st.message().find("line"), std::string::npos) << st.message();
    EXPECT_EQ(g.cost, before.cost);
    EXPECT_EQ(g.width, before.width);
  }
  g.cost[1] = 3;  // a cost the format cannot hold
  text = "unchanged";
  EXPECT_EQ(write_moving_ai(g, text).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(text, "unchanged");
}

// Generated maps: the same cells for the same seed, others for another; rooms and mazes connected (every
// passable cell reaches every other), a maze perfect (cells + corridors between them = 2 * cells - 1).
TEST(Nav, GeneratedMapsAreSeededAndConnected) {
  for (const MapKind kind : {MapKind::Open, MapKind::Rooms, MapKind::Maze}) {
    SCOPED_TRACE(map_kind_name(kind));
    MapKind parsed;
    ASSERT_TRUE(parse_map_kind(map_kind_name(kind), parsed));
    EXPECT_EQ(parsed, kind);
    for (const auto& [w, h] : {std::pair{101, 77}, std::pair{200, 200}, std::pair{33, 65}}) {
      Grid a, b, c;
      ASSERT_TRUE(generate_map(kind, w, h, 5, a).ok());
      ASSERT_TRUE(generate_map(kind, w, h, 5, b).ok());
      ASSERT_TRUE(generate_map(kind, w, h, 6, c).ok());
      EXPECT_EQ(a.cost, b.cost);
      EXPECT_NE(a.cost, c.cost);
      std::size_t passable = 0, first = a.cells();
      for (std::size_t i = 0; i < a.cells(); ++i)
        if (a.cost[i] != kBlocked) {
          ++passable;
          first = std::min(first, i);
        }
      ASSERT_LT(first, a.cells());
      if (kind == MapKind::Open) {
        EXPECT_GT(passable, a.cells() / 3);
        EXPECT_LT(passable, a.cells());
        continue;
      }
      std::vector<float> d(a.cells());
      const Cell goal{static_cast<int>(first % static_cast<std::size_t>(w)), static_cast<int>(first / w)};
      ASSERT_TRUE(distance_fields(test::cpu_context(), a, std::vector<Cell>{goal}, d).ok());
      std::size_t reached = 0;
      for (float v : d) reached += std::isfinite(v);
      EXPECT_EQ(reached, passable);
      if (kind == MapKind::Maze) {
        const std::size_t cells = static_cast<std::size_t>((w - 1) / 2) * static_cast<std::size_t>((h - 1) / 2);
        EXPECT_EQ(passable, 2 * cells - 1);
      }
    }
  }
  Grid g;
  EXPECT_EQ(generate_map(MapKind::Maze, 2, 9, 1, g).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(generate_map(MapKind::Open, 0, 9, 1, g).code(), StatusCode::InvalidArgument);
}

// NavFields: after every batch of changes (cells blocked, opened at a cost, costs changed; walls across
// corridors, a goal's neighbourhood, the same cell twice) every distance and direction equals a full
// computation on the changed grid, bit for bit; changes outside or blocking a goal are refused.
TEST(Nav, UpdatesEqualAFullComputation) {
  SplitMix64 rng(11);
  for (int round = 0; round < 40; ++round) {
    Grid g;
    ASSERT_TRUE(make_grid(3 + static_cast<int>(rng.next() % 30), 3 + static_cast<int>(rng.next() % 30), 1, g).ok());
    const bool costly = round % 2;
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(costly ? 1 + rng.next() % 5 : 1);
      if (rng.next() % 100 < 25) c = kBlocked;
    }
    std::vector<Cell> goals;
    for (int tries = 0; tries < 100 && goals.size() < 3; ++tries) {
      const Cell c{static_cast<int>(rng.next() % g.width), static_cast<int>(rng.next() % g.height)};
      if (g.passable(c.x, c.y)) goals.push_back(c);
    }
    std::unique_ptr<NavFields> fields;
    ASSERT_TRUE(NavFields::create(test::cpu_context(), g, goals, fields).ok());
    for (int batch = 0; batch < 8; ++batch) {
      SCOPED_TRACE("round " + std::to_string(round) + " batch " + std::to_string(batch));
      std::vector<CellChange> changes;
      const int n = 1 + static_cast<int>(rng.next() % (batch % 3 == 0 ? 12 : 3));
      for (int i = 0; i < n; ++i) {
        // Near a goal half of the time, where most walks pass.
        Cell c{static_cast<int>(rng.next() % g.width), static_cast<int>(rng.next() % g.height)};
        if (!goals.empty() && rng.next() % 2) {
          const Cell& at = goals[rng.next() % goals.size()];
          c = {std::clamp(at.x + static_cast<int>(rng.next() % 5) - 2, 0, g.width - 1),
               std::clamp(at.y + static_cast<int>(rng.next() % 5) - 2, 0, g.height - 1)};
        }
        if (std::find(goals.begin(), goals.end(), c) != goals.end()) continue;
        const std::uint8_t cost =
            rng.next() % 2 ? kBlocked : static_cast<std::uint8_t>(costly ? 1 + rng.next() % 5 : 1);
        changes.push_back({c, cost});
        g.cost[g.index(c.x, c.y)] = cost;
      }
      FieldStats stats;
      ASSERT_TRUE(fields->update(changes, &stats).ok());
      ASSERT_EQ(fields->grid().cost, g.cost);
      std::vector<float> want(goals.size() * g.cells());
      std::vector<std::int8_t> want_dir(want.size());
      ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, want, want_dir).ok());
      for (std::size_t k = 0; k < goals.size(); ++k) {
        ASSERT_EQ(std::memcmp(fields->distance(k).data(), want.data() + k * g.cells(), g.cells() * sizeof(float)), 0)
            << "goal " << k;
        ASSERT_EQ(std::memcmp(fields->direction(k).data(), want_dir.data() + k * g.cells(), g.cells()), 0)
            << "goal " << k;
      }
    }
  }
  Grid g;
  ASSERT_TRUE(make_grid(8, 8, 1, g).ok());
  std::unique_ptr<NavFields> fields;
  ASSERT_TRUE(NavFields::create(test::cpu_context(), g, std::vector<Cell>{{2, 2}}, fields).ok());
  const std::vector<float> before(fields->distance(0).begin(), fields->distance(0).end());
  EXPECT_EQ(fields->update(std::vector<CellChange>{{{1, 1}, kBlocked}, {{2, 2}, kBlocked}}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(fields->update(std::vector<CellChange>{{{1, 1}, kBlocked}, {{8, 0}, 1}}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(fields->grid().cost, g.cost);  // nothing changed
  EXPECT_TRUE(std::equal(before.begin(), before.end(), fields->distance(0).begin()));
  // Blocked and reopened in one batch: the later change wins.
  EXPECT_TRUE(fields->update(std::vector<CellChange>{{{2, 2}, kBlocked}, {{2, 2}, 3}}).ok());
  EXPECT_EQ(fields->grid().cost[g.index(2, 2)], 3);
  EXPECT_EQ(NavFields::create(test::cpu_context(), g, std::vector<Cell>{{9, 9}}, fields).code(),
            StatusCode::InvalidArgument);
}

// NavFields save and restore: fields updated several times, saved and restored into fields of another
// grid, equal bit for bit, and stay equal through the same later updates; damaged bytes are refused and
// change nothing.
TEST(Nav, FieldsSaveAndRestoreBitForBit) {
  Grid g;
  ASSERT_TRUE(generate_map(MapKind::Rooms, 96, 64, 3, g).ok());
  std::vector<Cell> goals;
  for (std::size_t i = 0; i < g.cells() && goals.size() < 4; i += 997)
    if (g.cost[i] != kBlocked) goals.push_back({static_cast<int>(i % g.width), static_cast<int>(i / g.width)});
  std::unique_ptr<NavFields> a, b;
  ASSERT_TRUE(NavFields::create(test::cpu_context(), g, goals, a).ok());
  Grid other;
  ASSERT_TRUE(make_grid(5, 3, 2, other).ok());
  ASSERT_TRUE(NavFields::create(test::cpu_context(), other, std::vector<Cell>{{1, 1}}, b).ok());
  SplitMix64 rng(5);
  const auto batch = [&] {
    std::vector<CellChange> changes;
    for (int i = 0; i < 6; ++i) {
      const Cell c{static_cast<int>(rng.next() % g.width), static_cast<int>(rng.next() % g.height)};
      if (std::find(goals.begin(), goals.end(), c) == goals.end())
        changes.push_back({c, static_cast<std::uint8_t>(rng.next() % 3 == 0 ? kBlocked : 1 + rng.next() % 4)});
    }
    return changes;
  };
  const auto same = [&](const NavFields& x, const NavFields& y) {
    if (x.goals() != y.goals() || x.grid().cost != y.grid().cost) return false;
    for (std::size_t k = 0; k < x.goals(); ++k)
      if (std::memcmp(x.distance(k).data(), y.distance(k).data(), x.grid().cells() * sizeof(float)) != 0 ||
          std::memcmp(x.direction(k).data(), y.direction(k).data(), x.grid().cells()) != 0)
        return false;
    return true;
  };
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a->update(batch()).ok());
  std::vector<std::uint8_t> saved;
  ASSERT_TRUE(a->save(saved).ok());
  ASSERT_EQ(saved.size(), 32 + 8 * goals.size() + g.cells());
  std::vector<std::uint8_t> before;
  ASSERT_TRUE(b->save(before).ok());
  // Damage of each kind: refused, nothing changed.
  const auto refused = [&](const std::vector<std::uint8_t>& bytes, const char* why) {
    const Status s = b->restore(bytes);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << why;
    EXPECT_EQ(s.message().rfind("restore: ", 0), 0u) << s.message();
    std::vector<std::uint8_t> now;
    ASSERT_TRUE(b->save(now).ok());
    EXPECT_EQ(now, before) << why;
  };
  refused({}, "empty");
  refused(std::vector<std::uint8_t>(saved.begin(), saved.end() - 1), "short");
  auto bad = saved;
  bad[0] = 'X';
  refused(bad, "magic");
  bad = saved;
  bad[12] = 1;
  refused(bad, "reserved");
  bad = saved;
  bad[16] = 95;  // width 95 with the bytes of 96 columns
  refused(bad, "width");
  bad = saved;
  bad[31] = 0x40;  // a huge goal count
  refused(bad, "goal count");
  bad = saved;
  bad[32 + 8 * goals.size() + g.index(goals[0].x, goals[0].y)] = kBlocked;  // a goal in a wall
  refused(bad, "goal blocked");
  bad = saved;
  bad[32] = 200;  // goal 0 outside the grid
  refused(bad, "goal outside");
  ASSERT_TRUE(b->restore(saved).ok());
  EXPECT_TRUE(same(*a, *b));
  for (int i = 0; i < 3; ++i) {
    const auto changes = batch();
    ASSERT_TRUE(a->update(changes).ok());
    ASSERT_TRUE(b->update(changes).ok());
    EXPECT_TRUE(same(*a, *b)) << "after update " << i;
  }
}

// The bundled maps (assets/maps/KIND-1024.map) are the generator's at seed 1: a map file reads back to the
// cells generate_map makes, so the generator cannot drift from the maps the benchmarks cite.
TEST(Nav, BundledMapsAreTheGenerators) {
  for (const MapKind kind : {MapKind::Open, MapKind::Rooms, MapKind::Maze}) {
    const std::string path = test::source_dir() + "/assets/maps/" + map_kind_name(kind) + "-1024.map";
    SCOPED_TRACE(path);
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    Grid read, made;
    ASSERT_TRUE(read_moving_ai(text.str(), read).ok());
    ASSERT_TRUE(generate_map(kind, 1024, 1024, 1, made).ok());
    EXPECT_EQ(read.width, 1024);
    EXPECT_EQ(read.height, 1024);
    EXPECT_TRUE(read.cost == made.cost);
  }
}

}  // namespace
}  // namespace warpmind::nav
