// Clearance and size classes (warpmind/nav/clearance.h), line of sight and waypoints (sight.h), and the
// unreachable option of the fields (nav.h's FieldOptions), each against a brute-force oracle written here
// from the contract: squares grown cell by cell, segments tested against closed cell squares in integers,
// waypoints by recursion along each path, substitutes found by scanning components.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "nav/random_maps.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/sight.h"

namespace warpmind::nav {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

using test_maps::random_grid;
using test_maps::random_passable;

// --- clearance ---

int clearance_oracle(const Grid& g, int x, int y) {
  int n = 0;
  for (;;) {
    const int r = n;  // the square of class n + 1 reaches r cells each way
    for (int yy = y - r; yy <= y + r; ++yy)
      for (int xx = x - r; xx <= x + r; ++xx)
        if (!g.passable(xx, yy)) return n;
    ++n;
  }
}

TEST(NavClearance, EqualsSquaresGrownCellByCell) {
  SplitMix64 rng(11);
  for (int round = 0; round < 80; ++round) {
    const Grid g = random_grid(rng, round < 40 ? 12 : 40, static_cast<int>(rng.next() % 30), round % 2);
    std::vector<std::uint16_t> got(g.cells());
    ASSERT_TRUE(clearance(g, got).ok());
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x)
        ASSERT_EQ(got[g.index(x, y)], clearance_oracle(g, x, y)) << "round " << round << " (" << x << ", " << y << ")";
  }
  // Everything open: the distance to the map's edge; one blocked cell in the middle.
  Grid g;
  ASSERT_TRUE(make_grid(9, 7, 1, g).ok());
  std::vector<std::uint16_t> c(g.cells());
  ASSERT_TRUE(clearance(g, c).ok());
  EXPECT_EQ(c[g.index(4, 3)], 4);
  EXPECT_EQ(c[g.index(0, 0)], 1);
  EXPECT_EQ(c[g.index(8, 6)], 1);
  g.cost[g.index(4, 3)] = kBlocked;
  ASSERT_TRUE(clearance(g, c).ok());
  EXPECT_EQ(c[g.index(4, 3)], 0);
  EXPECT_EQ(c[g.index(3, 3)], 1);
  EXPECT_EQ(c[g.index(2, 3)], 2);
  std::vector<std::uint16_t> small(3, 7);
  EXPECT_EQ(clearance(g, small).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(small, std::vector<std::uint16_t>(3, 7));
}

TEST(NavClearance, RadiiMapToTheSmallestSquareThatHoldsThem) {
  int n = 0;
  const std::pair<double, int> cases[] = {{0.0, 1}, {0.3, 1},  {0.5, 1},   {0.5000001, 2}, {1.2, 2},
                                          {1.5, 2}, {1.51, 3}, {9.49, 10}, {2047.5, 2048}};
  for (const auto& [r, want] : cases) {
    ASSERT_TRUE(size_class_of_radius(r, n).ok()) << r;
    EXPECT_EQ(n, want) << r;
  }
  n = 5;
  for (const double bad : {-0.1, std::nan(""), static_cast<double>(kInf), 2047.6, 1e300}) {
    EXPECT_EQ(size_class_of_radius(bad, n).code(), StatusCode::InvalidArgument) << bad;
    EXPECT_EQ(n, 5);
  }
}

// A wall across the map with a gap of one cell near the start and one of five far away: class 1 goes
// through the narrow gap, class 2 and 3 around through the wide one, and every cell a class-n walk
// enters has a clearance of at least n.
TEST(NavClearance, AClassFieldNeverPassesAGapNarrowerThanItsUnits) {
  Grid g;
  ASSERT_TRUE(make_grid(40, 21, 1, g).ok());
  for (int x = 0; x < 40; ++x) g.cost[g.index(x, 10)] = kBlocked;
  g.cost[g.index(3, 10)] = 1;                                // the narrow gap
  for (int x = 30; x < 35; ++x) g.cost[g.index(x, 10)] = 1;  // the wide one
  std::vector<std::uint16_t> clear(g.cells());
  ASSERT_TRUE(clearance(g, clear).ok());
  const Cell goal{3, 18}, start{3, 2};
  float straight = 0;
  for (int n = 1; n <= 3; ++n) {
    Grid cg;
    ASSERT_TRUE(class_grid(g, n, cg).ok());
    for (std::size_t c = 0; c < g.cells(); ++c)
      ASSERT_EQ(cg.cost[c], clear[c] >= n ? g.cost[c] : kBlocked) << "class " << n << " cell " << c;
    std::vector<float> dist(g.cells());
    std::vector<std::int8_t> dir(g.cells());
    ASSERT_TRUE(distance_fields(test::cpu_context(), cg, std::vector<Cell>{goal}, dist, dir).ok());
    Cell at = start;
    int steps = 0;
    while (!(at == goal) && steps < 1000) {
      ASSERT_GE(clear[g.index(at.x, at.y)], n) << "class " << n << " at (" << at.x << ", " << at.y << ")";
      const int k = dir[g.index(at.x, at.y)];
      ASSERT_NE(k, kNoDirection);
      at = {at.x + kSteps[static_cast<std::size_t>(k)][0], at.y + kSteps[static_cast<std::size_t>(k)][1]};
      ++steps;
    }
    ASSERT_TRUE(at == goal) << "class " << n;
    if (n == 1) straight = dist[g.index(start.x, start.y)];
    if (n > 1) {
      EXPECT_GT(dist[g.index(start.x, start.y)], straight + 40) << "class " << n;
    }
  }
  Grid keep = g;
  EXPECT_EQ(class_grid(g, 0, keep).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(class_grid(g, kMaxSizeClass + 1, keep).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(keep.cost, g.cost);
}

TEST(NavClearance, ClassGridChangesBringTheClassGridUpToDate) {
  SplitMix64 rng(23);
  for (int round = 0; round < 60; ++round) {
    Grid g = random_grid(rng, 30, static_cast<int>(rng.next() % 25), false);
    const int n = 1 + static_cast<int>(rng.next() % 4);
    Grid before;
    ASSERT_TRUE(class_grid(g, n, before).ok());
    std::vector<CellChange> changes;
    const int count = static_cast<int>(rng.next() % 12);
    for (int i = 0; i < count; ++i) {
      const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
                   static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
      const auto cost = static_cast<std::uint8_t>(rng.next() % 3 == 0 ? 0 : 1 + rng.next() % 4);
      changes.push_back({c, cost});
      g.cost[g.index(c.x, c.y)] = cost;
    }
    std::vector<CellChange> out;
    ASSERT_TRUE(class_grid_changes(g, before, n, changes, out).ok());
    Grid after;
    ASSERT_TRUE(class_grid(g, n, after).ok());
    for (std::size_t i = 1; i < out.size(); ++i)
      ASSERT_LT(g.index(out[i - 1].cell.x, out[i - 1].cell.y), g.index(out[i].cell.x, out[i].cell.y));
    for (const CellChange& ch : out) {
      ASSERT_NE(before.cost[g.index(ch.cell.x, ch.cell.y)], ch.cost);
      before.cost[g.index(ch.cell.x, ch.cell.y)] = ch.cost;
    }
    ASSERT_EQ(before.cost, after.cost) << "round " << round << " class " << n;
  }
  Grid g, cg;
  ASSERT_TRUE(make_grid(5, 5, 1, g).ok());
  ASSERT_TRUE(class_grid(g, 2, cg).ok());
  std::vector<CellChange> out{{{1, 1}, 0}};
  EXPECT_EQ(class_grid_changes(g, cg, 2, std::vector<CellChange>{{{5, 0}, 0}}, out).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(out.size(), 1u);
}

// --- line of sight ---

// The oracle: the closed segment between the centres against every cell's closed square, in doubled
// integer coordinates (the segment misses a square when the square's corners all lie strictly on one
// side of its line, or when the boxes do not overlap).
bool sight_oracle(const Grid& g, Cell a, Cell b) {
  if (!g.passable(a.x, a.y) || !g.passable(b.x, b.y)) return false;
  const long long px = 2 * a.x + 1, py = 2 * a.y + 1, qx = 2 * b.x + 1, qy = 2 * b.y + 1;
  for (int y = std::min(a.y, b.y); y <= std::max(a.y, b.y); ++y)
    for (int x = std::min(a.x, b.x); x <= std::max(a.x, b.x); ++x) {
      const long long x0 = 2 * x, x1 = 2 * x + 2, y0 = 2 * y, y1 = 2 * y + 2;
      if (std::max(px, qx) < x0 || std::min(px, qx) > x1 || std::max(py, qy) < y0 || std::min(py, qy) > y1) continue;
      int pos = 0, neg = 0;
      for (const long long cx : {x0, x1})
        for (const long long cy : {y0, y1}) {
          const long long cross = (qx - px) * (cy - py) - (qy - py) * (cx - px);
          pos += cross > 0;
          neg += cross < 0;
        }
      if (pos == 4 || neg == 4) continue;
      if (!g.passable(x, y)) return false;
    }
  return true;
}

TEST(NavSight, EqualsTheSegmentAgainstEveryCellSquare) {
  SplitMix64 rng(31);
  std::size_t seen = 0, hidden = 0;
  for (int round = 0; round < 200; ++round) {
    const Grid g = random_grid(rng, round < 100 ? 10 : 48, static_cast<int>(rng.next() % 25), false);
    for (int pair = 0; pair < 40; ++pair) {
      const Cell a{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
                   static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
      Cell b{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
             static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
      if (pair % 4 == 0 && g.inside(a.x + (b.y - a.y), a.y + (b.y - a.y))) b = {a.x + (b.y - a.y), b.y};  // diagonals
      const bool want = sight_oracle(g, a, b);
      ASSERT_EQ(line_of_sight(g, a, b), want)
          << "round " << round << " (" << a.x << ", " << a.y << ") -> (" << b.x << ", " << b.y << ")";
      ASSERT_EQ(line_of_sight(g, b, a), want);
      (want ? seen : hidden)++;
    }
  }
  EXPECT_GT(seen, 1000u);
  EXPECT_GT(hidden, 1000u);
}

// A diagonal line through a corner needs both cells beside it; outside and blocked ends see nothing.
TEST(NavSight, CornersBlockAndEndsMustBePassable) {
  Grid g;
  ASSERT_TRUE(make_grid(5, 5, 1, g).ok());
  EXPECT_TRUE(line_of_sight(g, {0, 0}, {4, 4}));
  g.cost[g.index(2, 1)] = kBlocked;  // beside the corner (2, 2) that the diagonal passes through
  EXPECT_FALSE(line_of_sight(g, {0, 0}, {4, 4}));
  EXPECT_TRUE(line_of_sight(g, {0, 4}, {4, 0}) == sight_oracle(g, {0, 4}, {4, 0}));
  EXPECT_FALSE(line_of_sight(g, {0, 0}, {5, 0}));
  EXPECT_FALSE(line_of_sight(g, {2, 1}, {2, 1}));
  EXPECT_TRUE(line_of_sight(g, {3, 3}, {3, 3}));
}

TEST(NavSight, SightFlagsEveryCellThatSeesTheGoal) {
  SplitMix64 rng(41);
  for (int round = 0; round < 30; ++round) {
    const Grid g = random_grid(rng, 40, static_cast<int>(rng.next() % 30), false);
    const Cell goal = random_passable(rng, g);
    if (goal.x < 0) continue;
    std::vector<std::uint8_t> vis(g.cells(), 9);
    ASSERT_TRUE(sight(test::cpu_context(), g, goal, vis).ok());
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) ASSERT_EQ(vis[g.index(x, y)], sight_oracle(g, {x, y}, goal) ? 1 : 0);
  }
  Grid g;
  ASSERT_TRUE(make_grid(4, 4, 1, g).ok());
  g.cost[0] = kBlocked;
  std::vector<std::uint8_t> vis(g.cells(), 9);
  EXPECT_EQ(sight(test::cpu_context(), g, {0, 0}, vis).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(sight(test::cpu_context(), g, {4, 0}, vis).code(), StatusCode::InvalidArgument);
  std::vector<std::uint8_t> few(3, 9);
  EXPECT_EQ(sight(test::cpu_context(), g, {1, 1}, few).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(vis, std::vector<std::uint8_t>(g.cells(), 9));
}

// --- waypoints ---

struct WaypointOracle {
  const Grid& g;
  const std::vector<std::int8_t>& dir;
  std::vector<std::uint32_t> memo, goal_of;
  std::uint32_t next(std::uint32_t c) const {
    const int k = dir[c];
    return static_cast<std::uint32_t>(g.index(static_cast<int>(c % g.width) + kSteps[static_cast<std::size_t>(k)][0],
                                              static_cast<int>(c / g.width) + kSteps[static_cast<std::size_t>(k)][1]));
  }
  Cell cell(std::uint32_t c) const { return {static_cast<int>(c % g.width), static_cast<int>(c / g.width)}; }
  std::uint32_t end(std::uint32_t c) {  // the goal c's path ends at
    if (goal_of[c] != kNoWaypoint) return goal_of[c];
    return goal_of[c] = dir[c] == kNoDirection ? c : end(next(c));
  }
  std::uint32_t waypoint(std::uint32_t c) {
    if (memo[c] != kNoWaypoint) return memo[c];
    if (dir[c] == kNoDirection) return memo[c] = c;
    const std::uint32_t n = next(c), e = end(c);
    if (sight_oracle(g, cell(c), cell(e))) return memo[c] = e;
    const std::uint32_t w = waypoint(n);
    return memo[c] = sight_oracle(g, cell(c), cell(w)) ? w : n;
  }
};

TEST(NavSight, WaypointsPullEachPathStraight) {
  SplitMix64 rng(53);
  for (int round = 0; round < 40; ++round) {
    const Grid g = random_grid(rng, 36, static_cast<int>(rng.next() % 30), round % 2);
    std::vector<Cell> goals;
    for (int i = 0, want = 1 + static_cast<int>(round % 3); i < want; ++i) {
      const Cell c = random_passable(rng, g);
      if (c.x >= 0) goals.push_back(c);
    }
    std::vector<float> dist(g.cells());
    std::vector<std::int8_t> dir(g.cells());
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, dist, dir).ok());
    std::vector<std::uint32_t> got(g.cells(), 7);
    ASSERT_TRUE(waypoints(test::cpu_context(), g, dist, dir, got).ok());
    WaypointOracle o{g, dir, std::vector<std::uint32_t>(g.cells(), kNoWaypoint),
                     std::vector<std::uint32_t>(g.cells(), kNoWaypoint)};
    for (std::uint32_t c = 0; c < g.cells(); ++c) {
      if (!std::isfinite(dist[c])) {
        ASSERT_EQ(got[c], kNoWaypoint);
        continue;
      }
      ASSERT_EQ(got[c], o.waypoint(c)) << "round " << round << " cell " << c;
      ASSERT_TRUE(sight_oracle(g, o.cell(c), o.cell(got[c])));  // every waypoint is in sight
      ASSERT_LE(dist[got[c]], dist[c]);
    }
  }
  // Open ground: every cell heads straight for the goal.
  Grid g;
  ASSERT_TRUE(make_grid(30, 20, 1, g).ok());
  std::vector<float> dist(g.cells());
  std::vector<std::int8_t> dir(g.cells());
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{7, 13}}, dist, dir).ok());
  std::vector<std::uint32_t> w(g.cells());
  ASSERT_TRUE(waypoints(test::cpu_context(), g, dist, dir, w).ok());
  for (const std::uint32_t c : w) ASSERT_EQ(c, g.index(7, 13));
}

TEST(NavSight, WaypointsRefuseWhatIsNotAField) {
  Grid g;
  ASSERT_TRUE(make_grid(6, 6, 1, g).ok());
  std::vector<float> dist(g.cells());
  std::vector<std::int8_t> dir(g.cells());
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{2, 2}}, dist, dir).ok());
  std::vector<std::uint32_t> w(g.cells(), 5);
  auto bad_dir = dir;
  bad_dir[g.index(0, 0)] = 4;  // west, off the grid
  EXPECT_EQ(waypoints(test::cpu_context(), g, dist, bad_dir, w).code(), StatusCode::InvalidArgument);
  bad_dir = dir;
  bad_dir[g.index(3, 3)] = 0;  // east: farther from the goal
  EXPECT_EQ(waypoints(test::cpu_context(), g, dist, bad_dir, w).code(), StatusCode::InvalidArgument);
  bad_dir = dir;
  bad_dir[g.index(4, 4)] = 12;
  EXPECT_EQ(waypoints(test::cpu_context(), g, dist, bad_dir, w).code(), StatusCode::InvalidArgument);
  bad_dir = dir;
  bad_dir[g.index(4, 4)] = kNoDirection;  // a path that ends where no goal is
  EXPECT_EQ(waypoints(test::cpu_context(), g, dist, bad_dir, w).code(), StatusCode::InvalidArgument);
  std::vector<std::uint32_t> few(3);
  EXPECT_EQ(waypoints(test::cpu_context(), g, dist, dir, few).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(w, std::vector<std::uint32_t>(g.cells(), 5));
}

TEST(NavSight, UnitsSteerStraightAtTheirWaypoint) {
  Grid g;
  ASSERT_TRUE(make_grid(10, 10, 1, g).ok());
  std::vector<float> dist(g.cells());
  std::vector<std::int8_t> dir(g.cells());
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, std::vector<Cell>{{8, 2}}, dist, dir).ok());
  std::vector<std::uint32_t> w(g.cells());
  ASSERT_TRUE(waypoints(test::cpu_context(), g, dist, dir, w).ok());
  const std::vector<Vec2> pos{{0.5f, 6.5f}, {8.5f, 2.5f}, {8.25f, 2.5f}, {-1.0f, 3.0f}, {kInf, 1.0f}};
  std::vector<Vec2> st(pos.size());
  std::vector<float> d(pos.size());
  ASSERT_TRUE(steer_to_waypoints(g, dist, w, pos, st, d).ok());
  // (0.5, 6.5) -> (8.5, 2.5): (8, -4) / sqrt(80)
  const float len = std::sqrt(80.0f);
  EXPECT_EQ(st[0].x, 8.0f / len);
  EXPECT_EQ(st[0].y, -4.0f / len);
  EXPECT_EQ(d[0], dist[g.index(0, 6)]);
  EXPECT_EQ(st[1].x, 0.0f);  // at the goal's centre
  EXPECT_EQ(st[1].y, 0.0f);
  EXPECT_EQ(st[2].x, 1.0f);  // in the goal's cell: to its centre
  EXPECT_EQ(st[2].y, 0.0f);
  EXPECT_EQ(d[3], kInf);
  EXPECT_EQ(st[3].x, 0.0f);
  EXPECT_EQ(d[4], kInf);
  // The straight line is shorter than the field's 8 directions would walk: the steering is not one of them.
  EXPECT_NE(std::fabs(st[0].x), 1.0f);
  EXPECT_NE(std::fabs(st[0].x), 0.70710677f);
}

// --- unreachable goals ---

// Every passable cell the goals cannot be reached from takes the field of the cell of its component
// nearest them in a straight line (the oracle scans the components), the rest keeps its value; the same
// with every goal a field of its own.
TEST(NavUnreachable, NearestCellGivesEachComponentItsNearestCell) {
  SplitMix64 rng(67);
  std::size_t filled = 0;
  for (int round = 0; round < 40; ++round) {
    const Grid g = random_grid(rng, 24, 30 + static_cast<int>(rng.next() % 25), round % 2);
    std::vector<Cell> goals;
    for (int i = 0, want = 1 + round % 3; i < want; ++i) {
      const Cell c = random_passable(rng, g);
      if (c.x >= 0) goals.push_back(c);
    }
    if (goals.empty()) continue;
    const std::size_t cells = g.cells();
    std::vector<float> plain(cells), dist(cells);
    std::vector<std::int8_t> plain_dir(cells), dir(cells);
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, plain, plain_dir).ok());
    FieldOptions opt;
    opt.unreachable = Unreachable::NearestCell;
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, dist, dir, opt).ok());
    // The oracle: components by repeated relaxation of labels, then each one's substitute and its field.
    std::vector<int> label(cells, -1);
    for (std::size_t c = 0; c < cells; ++c)
      if (g.cost[c] != kBlocked && !std::isfinite(plain[c])) label[c] = static_cast<int>(c);
    for (bool changed = true; changed;) {
      changed = false;
      for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x)
          for (int k = 0; k < 8; ++k) {
            const int dx = kSteps[static_cast<std::size_t>(k)][0], dy = kSteps[static_cast<std::size_t>(k)][1];
            if (!g.passable(x, y) || !g.passable(x + dx, y + dy) ||
                (dx && dy && (!g.passable(x + dx, y) || !g.passable(x, y + dy))))
              continue;
            const std::size_t u = g.index(x, y), v = g.index(x + dx, y + dy);
            if (label[u] >= 0 && label[v] >= 0 && label[v] < label[u]) label[u] = label[v], changed = true;
          }
    }
    std::vector<Cell> substitutes;
    for (std::size_t root = 0; root < cells; ++root) {
      if (label[root] != static_cast<int>(root)) continue;
      long long best = -1;
      std::size_t at = 0;
      for (std::size_t c = 0; c < cells; ++c) {
        if (label[c] != static_cast<int>(root)) continue;
        long long d2 = std::numeric_limits<long long>::max();
        for (const Cell& goal : goals) {
          const long long dx = static_cast<long long>(c % g.width) - goal.x,
                          dy = static_cast<long long>(c / g.width) - goal.y;
          d2 = std::min(d2, dx * dx + dy * dy);
        }
        if (best < 0 || d2 < best) best = d2, at = c;
      }
      substitutes.push_back({static_cast<int>(at % g.width), static_cast<int>(at / g.width)});
    }
    std::vector<float> sub(cells);
    std::vector<std::int8_t> sub_dir(cells);
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, substitutes, sub, sub_dir).ok());
    for (std::size_t c = 0; c < cells; ++c) {
      const bool moved = label[c] >= 0;
      filled += moved;
      const float want = moved ? sub[c] : plain[c];
      ASSERT_EQ(std::memcmp(&dist[c], &want, sizeof want), 0) << "round " << round << " cell " << c;
      ASSERT_EQ(dir[c], moved ? sub_dir[c] : plain_dir[c]) << "round " << round << " cell " << c;
      ASSERT_EQ(std::isfinite(dist[c]), g.cost[c] != kBlocked) << "round " << round << " cell " << c;
    }
    // One field per goal: each as its own goal set.
    std::vector<float> many(goals.size() * cells);
    ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, many, {}, opt).ok());
    for (std::size_t i = 0; i < goals.size(); ++i) {
      std::vector<float> one(cells);
      ASSERT_TRUE(goal_set_field(test::cpu_context(), g, std::vector<Cell>{goals[i]}, one, {}, opt).ok());
      ASSERT_EQ(std::memcmp(one.data(), many.data() + i * cells, cells * sizeof(float)), 0);
    }
  }
  EXPECT_GT(filled, 500u);
}

TEST(NavUnreachable, AWalledOffGoalLeadsEveryoneToTheWall) {
  Grid g;
  ASSERT_TRUE(make_grid(9, 5, 1, g).ok());
  for (int y = 0; y < 5; ++y) g.cost[g.index(4, y)] = kBlocked;  // a wall from edge to edge
  std::vector<float> dist(g.cells());
  std::vector<std::int8_t> dir(g.cells());
  FieldOptions opt;
  opt.unreachable = Unreachable::NearestCell;
  ASSERT_TRUE(goal_set_field(test::cpu_context(), g, std::vector<Cell>{{6, 2}}, dist, dir, opt).ok());
  EXPECT_EQ(dist[g.index(3, 2)], 0.0f);  // the substitute: beside the wall, level with the goal
  EXPECT_EQ(dir[g.index(3, 2)], kNoDirection);
  EXPECT_EQ(dist[g.index(0, 2)], 3.0f);
  EXPECT_EQ(dist[g.index(6, 2)], 0.0f);
  EXPECT_EQ(dist[g.index(8, 2)], 2.0f);
  EXPECT_EQ(dist[g.index(4, 2)], kInf);
  opt.unreachable = static_cast<Unreachable>(7);
  std::vector<float> keep(g.cells(), 1.0f);
  EXPECT_EQ(goal_set_field(test::cpu_context(), g, std::vector<Cell>{{6, 2}}, keep, {}, opt).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(keep, std::vector<float>(g.cells(), 1.0f));
}

}  // namespace
}  // namespace warpmind::nav
