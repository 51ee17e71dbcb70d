// The world map: rectangles, lines and polygons rasterised by the contract in world_map.h, checked against
// independent computations (dense sampling along a segment, a triangle's barycentric test), walls that no
// crowd move crosses, and the map's forms for the crowd, the navigation fields and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <queue>

#include "gpu_helpers.h"
#include "warpmind/core/random.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/nav/grid.h"
#include "warpmind/world/world_map.h"

namespace warpmind::world {
namespace {

WorldMap make(const WorldRect& w, int width, int height) {
  WorldMap m;
  const Status st = WorldMap::create(w, width, height, m);
  EXPECT_TRUE(st.ok()) << st.message();
  return m;
}

int count_blocked(const WorldMap& m) {
  int n = 0;
  for (std::uint8_t c : m.costs()) n += c == 0;
  return n;
}

TEST(WorldMap, CreateChecksTheWorldAndTheSides) {
  WorldMap m;
  EXPECT_TRUE(WorldMap::create({0, 0, 10, 10}, 10, 10, m).ok());
  EXPECT_EQ(m.costs().size(), 100u);
  EXPECT_EQ(count_blocked(m), 0);
  EXPECT_EQ(m.cost(3, 4), 1);
  EXPECT_FALSE(WorldMap::create({0, 0, 0, 10}, 10, 10, m).ok());
  EXPECT_FALSE(WorldMap::create({std::nanf(""), 0, 10, 10}, 10, 10, m).ok());
  EXPECT_FALSE(WorldMap::create({0, 0, 10, 10}, 0, 10, m).ok());
  EXPECT_FALSE(WorldMap::create({0, 0, 10, 10}, kMaxSide + 1, 1, m).ok());
  EXPECT_FALSE(WorldMap::create({0, 0, 10, 10}, kMaxSide, kMaxSide, m).ok());  // more than 2^28 cells
  EXPECT_EQ(m.width(), 10);                                                    // unchanged by the failures
}

TEST(WorldMap, RectanglesPaintTheCellsWhoseCentreIsInside) {
  WorldMap m = make({0, 0, 10, 10}, 10, 10);
  ASSERT_TRUE(m.fill_rect({2, 0}, {4, 1}).ok());
  EXPECT_TRUE(m.blocked(2, 0) && m.blocked(3, 0));
  EXPECT_EQ(count_blocked(m), 2);
  ASSERT_TRUE(m.fill_rect({5.5f, 5}, {6.5f, 6}, 9).ok());  // half-open: centre 5.5 in, 6.5 out
  EXPECT_EQ(m.cost(5, 5), 9);
  EXPECT_EQ(m.cost(6, 5), 1);
  ASSERT_TRUE(m.fill_rect({-1e30f, 9}, {1e30f, 1e30f}).ok());  // clipped to the map
  EXPECT_EQ(count_blocked(m), 12);
  EXPECT_FALSE(m.fill_rect({std::nanf(""), 0}, {1, 1}).ok());
  ASSERT_TRUE(m.set_cell(0, 0, 7).ok());
  EXPECT_EQ(m.cost(0, 0), 7);
  EXPECT_FALSE(m.set_cell(10, 0, 7).ok());
}

// Every cell a segment passes through is painted (sampled densely along it, an independent check), the
// cells form a chain that shares edges, and nothing far from the segment is painted.
TEST(WorldMap, ThinLinesCoverEveryCellTheyPassThrough) {
  SplitMix64 rng(4);
  for (int trial = 0; trial < 300; ++trial) {
    const WorldRect w{rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(5, 80), rng.uniform(5, 80)};
    const int cw = 1 + static_cast<int>(rng.below(60)), ch = 1 + static_cast<int>(rng.below(60));
    WorldMap m = make(w, cw, ch);
    Vec2 a{w.x0 + rng.uniform(-0.2f, 1.2f) * w.width, w.y0 + rng.uniform(-0.2f, 1.2f) * w.height};
    Vec2 b{w.x0 + rng.uniform(-0.2f, 1.2f) * w.width, w.y0 + rng.uniform(-0.2f, 1.2f) * w.height};
    if (trial % 5 == 0) {  // along grid lines and through corners exactly
      const float sx = w.width / cw, sy = w.height / ch;
      a = {w.x0 + sx * static_cast<float>(rng.below(cw)), w.y0 + sy * static_cast<float>(rng.below(ch))};
      b = {a.x + sx * 3, a.y + (trial % 10 == 0 ? 0.0f : sy * 3)};
    }
    ASSERT_TRUE(m.draw_line(a, b).ok());
    const double du = (static_cast<double>(b.x) - a.x), dv = (static_cast<double>(b.y) - a.y);
    for (int k = 0; k <= 20000; ++k) {
      const double t = k / 20000.0;
      const double u = (a.x + t * du - w.x0) / (static_cast<double>(w.width) / cw);
      const double v = (a.y + t * dv - w.y0) / (static_cast<double>(w.height) / ch);
      const long long x = static_cast<long long>(std::floor(u)), y = static_cast<long long>(std::floor(v));
      if (x < 0 || y < 0 || x >= cw || y >= ch) continue;
      ASSERT_TRUE(m.blocked(static_cast<int>(x), static_cast<int>(y)))
          << "trial " << trial << ": cell (" << x << ", " << y << ") at t = " << t;
    }
    // The painted cells are edge-connected (one chain) and each lies within a cell diagonal of the line.
    std::vector<char> seen(m.costs().size(), 0);
    int components = 0;
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x) {
        if (!m.blocked(x, y) || seen[y * cw + x]) continue;
        ++components;
        std::queue<std::pair<int, int>> q;
        q.push({x, y});
        seen[y * cw + x] = 1;
        while (!q.empty()) {
          const auto [cx, cy] = q.front();
          q.pop();
          for (const auto& [nx, ny] : {std::pair{cx + 1, cy}, {cx - 1, cy}, {cx, cy + 1}, {cx, cy - 1}})
            if (nx >= 0 && ny >= 0 && nx < cw && ny < ch && m.blocked(nx, ny) && !seen[ny * cw + nx]) {
              seen[ny * cw + nx] = 1;
              q.push({nx, ny});
            }
        }
      }
    EXPECT_LE(components, 1) << "trial " << trial;
  }
}

// A thick line paints the cells whose centre is within thickness / 2 (computed here per cell).
TEST(WorldMap, ThickLinesPaintTheCentresWithinHalfTheirThickness) {
  WorldMap m = make({0, 0, 40, 20}, 40, 20);
  const Vec2 a{3.3f, 4.1f}, b{31.7f, 15.2f};
  ASSERT_TRUE(m.draw_line(a, b, 3.0f).ok());
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 40; ++x) {
      const double px = x + 0.5, py = y + 0.5, dx = b.x - a.x, dy = b.y - a.y;
      const double t = std::clamp(((px - a.x) * dx + (py - a.y) * dy) / (dx * dx + dy * dy), 0.0, 1.0);
      const double d = std::hypot(a.x + t * dx - px, a.y + t * dy - py);
      if (d <= 1.5) {
        EXPECT_TRUE(m.blocked(x, y)) << x << ", " << y;
      } else if (d > 1.5 + 0.75) {
        EXPECT_FALSE(m.blocked(x, y)) << x << ", " << y;  // beyond the supercover's reach
      }
    }
  const auto before = m.costs();
  EXPECT_FALSE(m.draw_line(a, b, -1.0f).ok());
  EXPECT_FALSE(m.draw_line({std::numeric_limits<float>::infinity(), 0}, b).ok());
  EXPECT_EQ(m.costs(), before);
}

// A triangle's inside by barycentric signs (not the even-odd scan), its outline conservative; a polygon
// thinner than a cell still leaves no gap.
TEST(WorldMap, PolygonsFillTheirInsideAndOutline) {
  WorldMap m = make({0, 0, 30, 30}, 30, 30);
  const std::vector<Vec2> tri = {{2.2f, 3.1f}, {27.4f, 8.8f}, {9.6f, 26.3f}};
  ASSERT_TRUE(m.fill_polygon(tri).ok());
  const auto side = [](Vec2 p, Vec2 q, double x, double y) {
    return (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x);
  };
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 30; ++x) {
      const double cx = x + 0.5, cy = y + 0.5;
      const double s0 = side(tri[0], tri[1], cx, cy), s1 = side(tri[1], tri[2], cx, cy),
                   s2 = side(tri[2], tri[0], cx, cy);
      if ((s0 > 0.01 && s1 > 0.01 && s2 > 0.01) || (s0 < -0.01 && s1 < -0.01 && s2 < -0.01)) {
        EXPECT_TRUE(m.blocked(x, y)) << x << ", " << y;
      }
    }
  // Far outside: untouched.
  EXPECT_FALSE(m.blocked(28, 28));
  EXPECT_FALSE(m.blocked(0, 29));
  // A sliver (0.1 wide) still blocks a whole column crossing.
  WorldMap s = make({0, 0, 10, 10}, 10, 10);
  ASSERT_TRUE(s.fill_polygon(std::vector<Vec2>{{4.95f, -1}, {5.05f, -1}, {5.05f, 11}, {4.95f, 11}}).ok());
  for (int y = 0; y < 10; ++y) EXPECT_TRUE(s.blocked(4, y) || s.blocked(5, y)) << y;
  const auto before = s.costs();
  EXPECT_FALSE(s.fill_polygon(std::vector<Vec2>{{0, 0}, {1, 1}}).ok());
  EXPECT_FALSE(s.fill_polygon(std::vector<Vec2>{{0, 0}, {1, 1}, {std::nanf(""), 2}}).ok());
  // A zig-zag over every row of a tall map, many times: too many crossings to hold, refused.
  WorldMap tall = make({0, 0, 1, 65536}, 1, 65536);
  std::vector<Vec2> zig;
  for (int k = 0; k < 2100; ++k) zig.push_back({k % 2 ? 1.0f : 0.0f, k % 2 ? 65536.0f : 0.0f});
  const Status z = tall.fill_polygon(zig);
  EXPECT_EQ(z.code(), StatusCode::InvalidArgument);
  EXPECT_NE(z.message().find("2^27"), std::string::npos) << z.message();
  EXPECT_EQ(count_blocked(tall), 0);
  EXPECT_EQ(s.costs(), before);
}

// The crowd laid over the same world with the map's obstacles: no accepted move crosses a wall drawn as a
// thin line, whatever its angle and length.
TEST(WorldMap, NoCrowdMoveCrossesAWallLine) {
  SplitMix64 rng(9);
  for (int trial = 0; trial < 20; ++trial) {
    const WorldRect w{0, 0, 100, 100};
    WorldMap m = make(w, 50 + static_cast<int>(rng.below(60)), 50 + static_cast<int>(rng.below(60)));
    const Vec2 a{rng.uniform(0, 100), -5}, b{rng.uniform(0, 100), 105};  // a wall right across the world
    ASSERT_TRUE(m.draw_line(a, b).ok());
    crowd::CrowdConfig c;
    c.world = w;
    c.radius = 0.05f;
    c.obstacles = m.crowd_obstacles();
    c.variant = crowd::CrowdVariant::CpuReference;
    std::unique_ptr<crowd::CrowdSolver> s;
    ASSERT_TRUE(crowd::CrowdSolver::create(warpmind::test::cpu_context(), c, s).ok());
    const auto side = [&](Vec2 p) { return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) > 0; };
    std::vector<Vec2> start, prop;
    for (int k = 0; k < 400; ++k) {
      const Vec2 p{rng.uniform(0, 100), rng.uniform(0, 100)};
      bool ok = true;
      for (const Vec2& q : start) ok = ok && std::hypot(p.x - q.x, p.y - q.y) > 0.2f;
      const int cx = static_cast<int>(p.x / (100.0f / m.width())), cy = static_cast<int>(p.y / (100.0f / m.height()));
      if (!ok || m.blocked(std::min(cx, m.width() - 1), std::min(cy, m.height() - 1))) continue;
      start.push_back(p);
      prop.push_back(
          {std::clamp(p.x + rng.uniform(-40, 40), 0.0f, 99.9f), std::clamp(p.y + rng.uniform(-40, 40), 0.0f, 99.9f)});
    }
    ASSERT_TRUE(s->reset(start).ok());
    ASSERT_TRUE(s->step(prop).ok());
    std::vector<Vec2> after(start.size());
    ASSERT_TRUE(s->read_positions(after).ok());
    int crossing_tried = 0;
    for (std::size_t i = 0; i < start.size(); ++i) {
      crossing_tried += side(start[i]) != side(prop[i]);
      EXPECT_EQ(side(start[i]), side(after[i])) << "trial " << trial << ", agent " << i;
    }
    EXPECT_GT(crossing_tried, 20);
  }
}

TEST(WorldMap, FeedsTheNavigationGridAndTheFieldsWalls) {
  WorldMap m = make({10, 20, 20, 20}, 10, 10);        // cells of 2 x 2 world units
  ASSERT_TRUE(m.fill_rect({14, 24}, {20, 30}).ok());  // cells x 2..4, y 2..4: a 3 x 3 block
  ASSERT_TRUE(m.fill_rect({10, 38}, {12, 40}, 5).ok());
  nav::Grid g;
  ASSERT_TRUE(m.nav_grid(g).ok());
  EXPECT_EQ(g.width, 10);
  EXPECT_EQ(g.cost, m.costs());
  EXPECT_EQ(g.cost[9 * 10 + 0], 5);
  EXPECT_EQ(m.crowd_obstacles().blocked[3 * 10 + 3], 1);
  std::vector<field::Entity> walls;
  ASSERT_TRUE(m.wall_entities(2, walls).ok());
  ASSERT_EQ(walls.size(), 8u);  // the block's rim; its middle cell has no open neighbour
  EXPECT_EQ(walls[0].x, 15.0f);
  EXPECT_EQ(walls[0].y, 25.0f);
  EXPECT_EQ(walls[0].group, 2u);
  EXPECT_FALSE(m.wall_entities(64, walls).ok());
  // The walls repel in a field layer with an obstacle kind.
  field::FieldConfig fc;
  fc.world = m.world();
  fc.width = 40;
  fc.height = 40;
  fc.kinds = {field::obstacle(1.5f)};
  fc.layers = {{"walls", {{2, 0}}}};
  fc.variant = field::FieldVariant::CpuStamp;
  std::unique_ptr<field::FieldLayers> f;
  ASSERT_TRUE(field::FieldLayers::create(warpmind::test::cpu_context(), fc, f).ok());
  ASSERT_TRUE(f->build(walls).ok());
  std::vector<float> v(2);
  ASSERT_TRUE(f->sample(0, std::vector<Vec2>{{13.9f, 27}, {25, 35}}, v).ok());
  EXPECT_LT(v[0], 0.0f);  // beside the block
  EXPECT_EQ(v[1], 0.0f);  // far from it
  // From a navigation grid (a map file) and back.
  nav::Grid read;
  ASSERT_TRUE(nav::read_moving_ai("type octile\nheight 2\nwidth 3\nmap\n.@.\n..@\n", read).ok());
  WorldMap r;
  ASSERT_TRUE(WorldMap::from_grid({0, 0, 3, 2}, read, r).ok());
  EXPECT_TRUE(r.blocked(1, 0) && r.blocked(2, 1) && !r.blocked(0, 0));
  nav::Grid bad = read;
  bad.cost.pop_back();
  EXPECT_FALSE(WorldMap::from_grid({0, 0, 3, 2}, bad, r).ok());
}

}  // namespace
}  // namespace warpmind::world
