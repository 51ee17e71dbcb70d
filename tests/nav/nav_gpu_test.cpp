// The GPU navigation fields (NavVariant::Gpu) against the CPU's Dijkstra, bit for bit — every distance,
// every direction and the cells reached — on random maps of every size around the 32-cell tiles, on
// adversarial ones (a goal in a tile's corner, a spiral that crosses the tiles back and forth, a maze, a
// map blocked but for its goal, costs up to 255 in either of the GPU's orders, one row, one column) and on
// the generated 1024 x 1024 maps; the exact comparison's 64-bit shortcut against its 128-bit form. GPU cases skip without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "nav/octile.h"
#include "warpmind/core/random.h"
#include "warpmind/core/device_memory.h"
#include "warpmind/nav/device_field.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/sight.h"

namespace warpmind::nav {
namespace {

std::vector<Cell> passable_goals(const Grid& g, int n, SplitMix64& rng) {
  std::vector<Cell> goals;
  for (int tries = 0; static_cast<int>(goals.size()) < n && tries < 100000; ++tries) {
    const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.width)),
                 static_cast<int>(rng.next() % static_cast<std::uint64_t>(g.height))};
    if (g.passable(c.x, c.y)) goals.push_back(c);
  }
  return goals;
}

// The GPU's fields equal the CPU's, bit for bit, and so do the cells reached.
void expect_gpu_equals_cpu(const Grid& g, const std::vector<Cell>& goals, const std::string& what) {
  const std::size_t n = goals.size() * g.cells();
  std::vector<float> cpu(n), gpu(n, -1.0f);
  std::vector<std::int8_t> cpu_dir(n), gpu_dir(n, 9);
  FieldStats cs, gs;
  ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, cpu, cpu_dir, &cs, NavVariant::Cpu).ok()) << what;
  const Status st = distance_fields(*test::cuda_context(), g, goals, gpu, gpu_dir, &gs, NavVariant::Gpu);
  ASSERT_TRUE(st.ok()) << what << ": " << st.message();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::memcmp(&cpu[i], &gpu[i], sizeof(float)), 0)
        << what << ": goal " << i / g.cells() << " cell " << i % g.cells() << ": " << gpu[i] << " against " << cpu[i];
    ASSERT_EQ(cpu_dir[i], gpu_dir[i]) << what << ": goal " << i / g.cells() << " cell " << i % g.cells();
  }
  EXPECT_EQ(gs.settled, cs.settled) << what;
  EXPECT_GT(gs.tiles_relaxed, 0u) << what;
}

// A goal set's field (goal_set_field) on the GPU against the CPU's, bit for bit.
void expect_goal_set_equals_cpu(const Grid& g, const std::vector<Cell>& goals, const std::string& what) {
  std::vector<float> cpu(g.cells()), gpu(g.cells(), -1.0f);
  std::vector<std::int8_t> cpu_dir(g.cells()), gpu_dir(g.cells(), 9);
  FieldStats cs, gs;
  ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, cpu, cpu_dir, &cs, NavVariant::Cpu).ok()) << what;
  const Status st = goal_set_field(*test::cuda_context(), g, goals, gpu, gpu_dir, &gs, NavVariant::Gpu);
  ASSERT_TRUE(st.ok()) << what << ": " << st.message();
  for (std::size_t c = 0; c < g.cells(); ++c) {
    ASSERT_EQ(std::memcmp(&cpu[c], &gpu[c], sizeof(float)), 0)
        << what << ": cell " << c << ": " << gpu[c] << " against " << cpu[c];
    ASSERT_EQ(cpu_dir[c], gpu_dir[c]) << what << ": cell " << c;
  }
  EXPECT_EQ(gs.settled, cs.settled) << what;
}

// Goal sets: random sets (repeats included) on random maps around the tiles; every passable cell a goal;
// many goals in one tile; goals along the tiles' borders; an empty set; a set on a generated 1024² map.
TEST(NavGpu, GoalSetsEqualTheCpu) {
  WM_REQUIRE_GPU();
  SplitMix64 rng(23);
  const int sides[] = {1, 31, 32, 33, 64, 65, 130};
  for (int round = 0; round < 30; ++round) {
    Grid g;
    const int w = sides[rng.next() % 7], h = sides[rng.next() % 7];
    ASSERT_TRUE(make_grid(w, h, 1, g).ok());
    const int blocked = static_cast<int>(rng.next() % 40);
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(round % 3 == 2 ? 1 + rng.next() % 255 : 1 + rng.next() % 3);
      if (static_cast<int>(rng.next() % 100) < blocked) c = kBlocked;
    }
    std::vector<Cell> goals = passable_goals(g, 1 + static_cast<int>(rng.next() % 40), rng);
    if (!goals.empty()) goals.push_back(goals.back());
    expect_goal_set_equals_cpu(g, goals, "round " + std::to_string(round));
  }
  Grid g;
  ASSERT_TRUE(make_grid(97, 70, 1, g).ok());
  for (std::size_t c = 0; c < g.cells(); c += 7) g.cost[c] = kBlocked;
  std::vector<Cell> all, tile, borders;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      if (!g.passable(x, y)) continue;
      all.push_back({x, y});
      if (x >= 32 && x < 64 && y >= 32 && y < 64 && (x + y) % 5 == 0) tile.push_back({x, y});
      if ((x % 32 == 31 || x % 32 == 0 || y % 32 == 31 || y % 32 == 0) && (x * 7 + y) % 11 == 0)
        borders.push_back({x, y});
    }
  expect_goal_set_equals_cpu(g, all, "every passable cell");
  expect_goal_set_equals_cpu(g, tile, "many goals in one tile");
  expect_goal_set_equals_cpu(g, borders, "goals on the tiles' borders");
  expect_goal_set_equals_cpu(g, {}, "no goal");
  Grid rooms;
  ASSERT_TRUE(generate_map(MapKind::Rooms, 1024, 1024, 3, rooms).ok());
  SplitMix64 r2(9);
  expect_goal_set_equals_cpu(rooms, passable_goals(rooms, 200, r2), "200 goals on rooms 1024");
}

// DeviceNavField: the field it keeps on the device is goal_set_field's, bit for bit, and steer_device on
// device positions gives the host's steer() bits, at cell borders, outside the grid and on non-finite
// positions too; refused without CUDA, before a field, and for a goal on a wall.
TEST(NavGpu, DeviceFieldAndItsSteeringEqualTheHost) {
  std::unique_ptr<DeviceNavField> none;
  Grid small;
  ASSERT_TRUE(make_grid(4, 4, 1, small).ok());
  EXPECT_EQ(DeviceNavField::create(test::cpu_context(), small, none).code(), StatusCode::Unavailable);
  WM_REQUIRE_GPU();
  Context& ctx = *test::cuda_context();
  SplitMix64 rng(31);
  Grid g;
  ASSERT_TRUE(generate_map(MapKind::Rooms, 100, 70, 4, g).ok());
  std::unique_ptr<DeviceNavField> field;
  ASSERT_TRUE(DeviceNavField::create(ctx, g, field).ok());
  EXPECT_EQ(field->device_distance(), nullptr);
  DeviceBytes pos_dev, steer_dev, dist_dev;
  EXPECT_EQ(field->steer_device(nullptr, 0, nullptr, nullptr).code(), StatusCode::InvalidArgument);  // no field yet
  Grid other = g;
  for (int round = 0; round < 6; ++round) {
    if (round == 3) {  // a new map: walls knocked through, and the old field refused until computed again
      for (int x = 0; x < other.width; ++x) other.cost[other.index(x, 35)] = 1;
      ASSERT_TRUE(field->set_grid(other).ok());
      EXPECT_EQ(field->steer_device(nullptr, 0, nullptr, nullptr).code(), StatusCode::InvalidArgument);
    }
    const Grid& now = round < 3 ? g : other;
    const std::vector<Cell> goals = round == 1 ? std::vector<Cell>{} : passable_goals(now, 1 + round * 5, rng);
    FieldStats fs;
    ASSERT_TRUE(field->compute(goals, &fs).ok());
    std::vector<float> cpu(now.cells()), gpu(now.cells());
    std::vector<std::int8_t> cpu_dir(now.cells()), gpu_dir(now.cells());
    ASSERT_TRUE(goal_set_field(test::cpu_context(), now, goals, cpu, cpu_dir, nullptr, NavVariant::Cpu).ok());
    ASSERT_TRUE(field->read(gpu, gpu_dir).ok());
    for (std::size_t c = 0; c < now.cells(); ++c) {
      ASSERT_EQ(std::memcmp(&cpu[c], &gpu[c], sizeof(float)), 0) << "round " << round << " cell " << c;
      ASSERT_EQ(cpu_dir[c], gpu_dir[c]) << "round " << round << " cell " << c;
    }
    // Positions: random inside, on cell borders and the grid's edges, outside, not finite.
    std::vector<Vec2> pos;
    const float w = static_cast<float>(now.width), h = static_cast<float>(now.height);
    for (int i = 0; i < 3000; ++i) pos.push_back({rng.uniform(-2.0f, w + 2.0f), rng.uniform(-2.0f, h + 2.0f)});
    for (float x : {0.0f, -0.0f, 1.0f, 31.999998f, 32.0f, w, std::nextafter(w, 0.0f), -1e-7f})
      for (float y : {0.0f, 5.5f, std::nextafter(h, 0.0f), h}) pos.push_back({x, y});
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (Vec2 p : {Vec2{nan, 1}, Vec2{1, nan}, Vec2{inf, 1}, Vec2{1, -inf}}) pos.push_back(p);
    const std::size_t n = pos.size();
    std::vector<Vec2> host_steer(n), dev_steer(n);
    std::vector<float> host_dist(n), dev_dist(n);
    ASSERT_TRUE(steer(now, cpu, cpu_dir, pos, host_steer, host_dist).ok());
    ASSERT_TRUE(pos_dev.allocate(ctx, n * sizeof(Vec2)).ok());
    ASSERT_TRUE(steer_dev.allocate(ctx, n * sizeof(Vec2)).ok());
    ASSERT_TRUE(dist_dev.allocate(ctx, n * sizeof(float)).ok());
    ASSERT_TRUE(pos_dev.upload(ctx, pos.data(), n * sizeof(Vec2)).ok());
    ASSERT_TRUE(field
                    ->steer_device(static_cast<const Vec2*>(pos_dev.get()), n, static_cast<Vec2*>(steer_dev.get()),
                                   static_cast<float*>(dist_dev.get()))
                    .ok());
    ASSERT_TRUE(steer_dev.download(ctx, dev_steer.data(), n * sizeof(Vec2)).ok());
    ASSERT_TRUE(dist_dev.download(ctx, dev_dist.data(), n * sizeof(float)).ok());
    EXPECT_EQ(std::memcmp(host_steer.data(), dev_steer.data(), n * sizeof(Vec2)), 0) << "round " << round;
    EXPECT_EQ(std::memcmp(host_dist.data(), dev_dist.data(), n * sizeof(float)), 0) << "round " << round;
  }
  std::size_t wall = 0;
  while (other.cost[wall] != kBlocked) ++wall;
  const Cell on_wall{static_cast<int>(wall % static_cast<std::size_t>(other.width)),
                     static_cast<int>(wall / static_cast<std::size_t>(other.width))};
  EXPECT_EQ(field->compute(std::vector<Cell>{on_wall}).code(), StatusCode::InvalidArgument);
  EXPECT_NE(field->device_distance(), nullptr);  // the refused call left the field
}

// DeviceNavField::update: after every batch of changes (walls placed and knocked down, costs raised and
// lowered, cells next to the goals, single cells and rectangles) the field equals, bit for bit, the CPU's
// goal-set field of the changed map; a batch that would block a goal, or reaches outside the grid, is
// refused and changes nothing.
TEST(NavGpu, DeviceFieldUpdatesEqualAFullComputation) {
  WM_REQUIRE_GPU();
  Context& ctx = *test::cuda_context();
  SplitMix64 rng(41);
  struct Case {
    MapKind kind;
    int w, h;
    bool costly;
  };
  const Case cases[] = {{MapKind::Rooms, 100, 70, false},
                        {MapKind::Open, 200, 150, true},
                        {MapKind::Maze, 97, 97, false},
                        {MapKind::Open, 65, 33, true}};
  for (const Case& k : cases) {
    Grid g;
    ASSERT_TRUE(generate_map(k.kind, k.w, k.h, 5, g).ok());
    if (k.costly)
      for (auto& c : g.cost)
        if (c) c = static_cast<std::uint8_t>(1 + rng.next() % 9);
    const std::vector<Cell> goals = passable_goals(g, 1 + static_cast<int>(rng.next() % 4), rng);
    std::unique_ptr<DeviceNavField> field;
    ASSERT_TRUE(DeviceNavField::create(ctx, g, field).ok());
    EXPECT_EQ(field->update(std::vector<CellChange>{{{0, 0}, 1}}).code(), StatusCode::InvalidArgument);  // no field
    ASSERT_TRUE(field->compute(goals).ok());
    const auto is_goal = [&](int x, int y) {
      return std::any_of(goals.begin(), goals.end(), [&](const Cell& c) { return c.x == x && c.y == y; });
    };
    std::vector<float> cpu(g.cells()), gpu(g.cells());
    std::vector<std::int8_t> cpu_dir(g.cells()), gpu_dir(g.cells());
    for (int round = 0; round < 25; ++round) {
      std::vector<CellChange> changes;
      const int kind = round % 4;
      if (kind == 0 || kind == 1) {  // a rectangle blocked, or opened
        const int x0 = static_cast<int>(rng.next() % static_cast<std::uint64_t>(k.w));
        const int y0 = static_cast<int>(rng.next() % static_cast<std::uint64_t>(k.h));
        const int rw = 1 + static_cast<int>(rng.next() % 12), rh = 1 + static_cast<int>(rng.next() % 12);
        for (int y = y0; y < std::min(k.h, y0 + rh); ++y)
          for (int x = x0; x < std::min(k.w, x0 + rw); ++x)
            if (!is_goal(x, y)) changes.push_back({{x, y}, static_cast<std::uint8_t>(kind == 0 ? kBlocked : 1)});
      } else if (kind == 2) {  // single cells anywhere, any cost, one of them twice
        for (int i = 0; i < 30; ++i) {
          const Cell c{static_cast<int>(rng.next() % static_cast<std::uint64_t>(k.w)),
                       static_cast<int>(rng.next() % static_cast<std::uint64_t>(k.h))};
          if (!is_goal(c.x, c.y)) changes.push_back({c, static_cast<std::uint8_t>(rng.next() % 10)});
        }
        if (!changes.empty()) changes.push_back({changes.front().cell, 3});
      } else {  // around a goal: its neighbours walled in, or cheaper
        const Cell gc = goals[rng.next() % goals.size()];
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            if ((dx || dy) && g.inside(gc.x + dx, gc.y + dy) && !is_goal(gc.x + dx, gc.y + dy))
              changes.push_back({{gc.x + dx, gc.y + dy}, static_cast<std::uint8_t>(round % 8 == 3 ? 0 : 1)});
      }
      for (const CellChange& c : changes) g.cost[g.index(c.cell.x, c.cell.y)] = c.cost;
      FieldStats fs;
      const Status st = field->update(changes, &fs);
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, cpu, cpu_dir, nullptr, NavVariant::Cpu).ok());
      ASSERT_TRUE(field->read(gpu, gpu_dir).ok());
      for (std::size_t c = 0; c < g.cells(); ++c) {
        ASSERT_EQ(std::memcmp(&cpu[c], &gpu[c], sizeof(float)), 0)
            << map_kind_name(k.kind) << " round " << round << " cell " << c << ": " << gpu[c] << " against " << cpu[c];
        ASSERT_EQ(cpu_dir[c], gpu_dir[c]) << map_kind_name(k.kind) << " round " << round << " cell " << c;
      }
      EXPECT_EQ(field->grid().cost, g.cost);
    }
    // Refused: a goal blocked, a change outside; the field and the map stay.
    EXPECT_EQ(field->update(std::vector<CellChange>{{{1, 1}, 2}, {goals[0], kBlocked}}).code(),
              StatusCode::InvalidArgument);
    EXPECT_EQ(field->update(std::vector<CellChange>{{{k.w, 0}, 1}}).code(), StatusCode::InvalidArgument);
    EXPECT_EQ(field->grid().cost, g.cost);
    ASSERT_TRUE(field->read(gpu, gpu_dir).ok());
    EXPECT_EQ(std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(float)), 0);
  }
}

TEST(NavGpu, RandomMapsEqualTheCpu) {
  WM_REQUIRE_GPU();
  SplitMix64 rng(11);
  const int sides[] = {1, 2, 31, 32, 33, 63, 64, 65, 97, 130};
  for (int round = 0; round < 60; ++round) {
    Grid g;
    const int w = sides[rng.next() % 10], h = sides[rng.next() % 10];
    ASSERT_TRUE(make_grid(w, h, 1, g).ok());
    const int blocked = static_cast<int>(rng.next() % 45), costly = round % 3;  // percent; costs 1, 1..9, 1..255
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(costly == 0 ? 1 : costly == 1 ? 1 + rng.next() % 9 : 1 + rng.next() % 255);
      if (static_cast<int>(rng.next() % 100) < blocked) c = kBlocked;
    }
    const std::vector<Cell> goals = passable_goals(g, 1 + static_cast<int>(rng.next() % 4), rng);
    if (goals.empty()) continue;
    expect_gpu_equals_cpu(
        g, goals, "round " + std::to_string(round) + " (" + std::to_string(w) + " x " + std::to_string(h) + ")");
  }
}

TEST(NavGpu, AdversarialMapsEqualTheCpu) {
  WM_REQUIRE_GPU();
  Grid g;
  // Goals in a tile's corners and on the map's corners, open ground.
  ASSERT_TRUE(make_grid(96, 96, 1, g).ok());
  expect_gpu_equals_cpu(g, {{31, 31}, {32, 32}, {0, 0}, {95, 95}, {31, 64}}, "tile corners");
  // A spiral of walls: the walk crosses the tile borders back and forth.
  ASSERT_TRUE(make_grid(150, 150, 1, g).ok());
  for (int ring = 0;; ring += 4) {
    const int lo = ring + 2, hi = 149 - ring - 2;
    if (hi - lo < 6) break;  // the centre stays open
    for (int i = lo; i <= hi; ++i) {
      g.cost[g.index(i, lo)] = kBlocked;
      g.cost[g.index(i, hi)] = kBlocked;
      g.cost[g.index(lo, i)] = kBlocked;
      g.cost[g.index(hi, i)] = kBlocked;
    }
    g.cost[g.index(ring % 8 == 0 ? lo + 1 : hi - 1, ring % 8 == 0 ? lo : hi)] = 1;  // a gap, alternating sides
  }
  expect_gpu_equals_cpu(g, {{75, 75}, {0, 0}}, "spiral");
  // A maze: one-cell corridors, the longest walks.
  ASSERT_TRUE(generate_map(MapKind::Maze, 257, 129, 3, g).ok());
  expect_gpu_equals_cpu(g, {{1, 1}, {255, 127}}, "maze");
  ASSERT_TRUE(generate_map(MapKind::Rooms, 200, 170, 5, g).ok());
  expect_gpu_equals_cpu(g, {{3, 3}, {150, 100}}, "rooms");
  // Blocked but for the goal; a diagonal between two blocked cells; costs of 255 everywhere.
  ASSERT_TRUE(make_grid(70, 40, kBlocked, g).ok());
  g.cost[g.index(33, 20)] = 1;
  expect_gpu_equals_cpu(g, {{33, 20}}, "one open cell");
  ASSERT_TRUE(make_grid(64, 64, 1, g).ok());
  g.cost[g.index(32, 31)] = kBlocked;
  g.cost[g.index(31, 32)] = kBlocked;
  expect_gpu_equals_cpu(g, {{31, 31}}, "corner between tiles");
  ASSERT_TRUE(make_grid(200, 100, 255, g).ok());
  expect_gpu_equals_cpu(g, {{199, 0}}, "costs 255");
  // Costs 1..255 on 300 x 300 cells: walks may pass 2^24 in a part, so the GPU orders values by their
  // parts (the exact comparison), not by their double keys.
  SplitMix64 rng(9);
  ASSERT_TRUE(make_grid(300, 300, 1, g).ok());
  for (auto& c : g.cost) c = static_cast<std::uint8_t>(rng.next() % 10 == 0 ? kBlocked : 1 + rng.next() % 255);
  expect_gpu_equals_cpu(g, passable_goals(g, 2, rng), "costs 1..255, exact order");
  ASSERT_TRUE(make_grid(1000, 1, 1, g).ok());
  expect_gpu_equals_cpu(g, {{500, 0}}, "one row");
  ASSERT_TRUE(make_grid(1, 1000, 3, g).ok());
  expect_gpu_equals_cpu(g, {{0, 999}}, "one column");
}

TEST(NavGpu, GeneratedLargeMapsAndManyGoalsEqualTheCpu) {
  WM_REQUIRE_GPU();
  SplitMix64 rng(5);
  for (const MapKind kind : {MapKind::Open, MapKind::Rooms, MapKind::Maze}) {
    Grid g;
    ASSERT_TRUE(generate_map(kind, 1024, 1024, 1, g).ok());
    expect_gpu_equals_cpu(g, passable_goals(g, 3, rng), map_kind_name(kind));
  }
  Grid g;  // more goals than one batch of tiles' worth of warps, on a small map
  ASSERT_TRUE(generate_map(MapKind::Open, 80, 80, 2, g).ok());
  expect_gpu_equals_cpu(g, passable_goals(g, 300, rng), "300 goals");
}

TEST(NavGpu, GpuVariantNeedsACudaContext) {
  Grid g;
  ASSERT_TRUE(make_grid(8, 8, 1, g).ok());
  std::vector<float> dist(g.cells(), -1.0f);
  const std::vector<Cell> goal = {{1, 1}};
  EXPECT_EQ(distance_fields(test::cpu_context(), g, goal, dist, {}, nullptr, NavVariant::Gpu).code(),
            StatusCode::Unavailable);
  EXPECT_EQ(dist[0], -1.0f);
  std::vector<std::uint16_t> clear(g.cells(), 7);
  EXPECT_EQ(clearance(test::cpu_context(), g, clear, NavVariant::Gpu).code(), StatusCode::Unavailable);
  EXPECT_EQ(clear[0], 7);
  ASSERT_TRUE(clearance(test::cpu_context(), g, clear).ok());  // Auto on a CPU context: the CPU
  EXPECT_EQ(clear[g.index(3, 3)], 4);
  std::vector<std::uint8_t> vis(g.cells(), 9);
  EXPECT_EQ(sight(test::cpu_context(), g, {1, 1}, vis, NavVariant::Gpu).code(), StatusCode::Unavailable);
  EXPECT_EQ(vis[0], 9);
  NavVariant v{};
  EXPECT_TRUE(parse_variant("gpu", v));
  EXPECT_EQ(v, NavVariant::Gpu);
  EXPECT_FALSE(parse_variant("GPU ", v));
  EXPECT_STREQ(variant_name(NavVariant::Cpu), "cpu");
}

// octile::less's 64-bit shortcut (both differences below 2^31) against the 128-bit comparison, near the
// boundary and at the parts' extremes.
TEST(NavGpu, ExactComparisonShortcutAgreesWithTheWideOne) {
  const auto wide = [](octile::Exact x, octile::Exact y) {
    const __int128 da = static_cast<__int128>(x.a) - y.a, db = static_cast<__int128>(y.b) - x.b;
    if (da < 0 && db >= 0) return true;
    if (da >= 0 && db <= 0) return false;
    const unsigned __int128 a2 = static_cast<unsigned __int128>(da < 0 ? -da : da) * (da < 0 ? -da : da);
    const unsigned __int128 b2 = 2 * static_cast<unsigned __int128>(db < 0 ? -db : db) * (db < 0 ? -db : db);
    return da >= 0 ? a2 < b2 : a2 > b2;
  };
  SplitMix64 rng(3);
  const std::uint32_t edges[] = {0, 1, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu};
  for (int i = 0; i < 200000; ++i) {
    const auto part = [&] {
      switch (rng.next() % 3) {
        case 0:
          return edges[rng.next() % 6];
        case 1:
          return static_cast<std::uint32_t>(rng.next() % 4096);
        default:
          return static_cast<std::uint32_t>(rng.next() % 0xffffffffu);
      }
    };
    const octile::Exact x{part(), part()}, y{part(), part()};
    ASSERT_EQ(octile::less(x, y), wide(x, y)) << x.a << " " << x.b << " / " << y.a << " " << y.b;
  }
  // Near-ties: a - b * sqrt(2) close to 0 (convergents of sqrt(2): 1393 / 985, 665857 / 470832).
  EXPECT_TRUE(octile::less({0, 470832}, {665857, 0}));
  EXPECT_FALSE(octile::less({665857, 0}, {0, 470832}));
  EXPECT_TRUE(octile::less({1393, 0}, {0, 985}));
}

}  // namespace
}  // namespace warpmind::nav

namespace warpmind::nav {
namespace {

// Unreachable::NearestCell on the GPU: the substitutes' fields too are the CPU's bits, one goal a field
// and goal sets, on maps cut into many components.
TEST(NavGpu, NearestCellOptionEqualsTheCpu) {
  WM_REQUIRE_GPU();
  SplitMix64 rng(91);
  FieldOptions cpu_opt, gpu_opt;
  cpu_opt.unreachable = gpu_opt.unreachable = Unreachable::NearestCell;
  cpu_opt.variant = NavVariant::Cpu;
  gpu_opt.variant = NavVariant::Gpu;
  for (int round = 0; round < 12; ++round) {
    Grid g;
    const int sides[] = {17, 33, 64, 100};
    ASSERT_TRUE(make_grid(sides[rng.next() % 4], sides[rng.next() % 4], 1, g).ok());
    for (auto& c : g.cost) {
      c = static_cast<std::uint8_t>(round % 2 ? 1 + rng.next() % 9 : 1);
      if (rng.next() % 100 < 40) c = kBlocked;
    }
    const std::vector<Cell> goals = passable_goals(g, 3, rng);
    const std::size_t n = goals.size() * g.cells();
    std::vector<float> cpu(n), gpu(n, -1.0f);
    std::vector<std::int8_t> cpu_dir(n), gpu_dir(n, 9);
    ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, cpu, cpu_dir, cpu_opt).ok());
    const Status st = distance_fields(*test::cuda_context(), g, goals, gpu, gpu_dir, gpu_opt);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(std::memcmp(cpu.data(), gpu.data(), n * sizeof(float)), 0) << "round " << round;
    ASSERT_EQ(cpu_dir, gpu_dir) << "round " << round;
    std::vector<float> set_cpu(g.cells()), set_gpu(g.cells());
    ASSERT_TRUE(goal_set_field(test::cpu_context(), g, goals, set_cpu, {}, cpu_opt).ok());
    ASSERT_TRUE(goal_set_field(*test::cuda_context(), g, goals, set_gpu, {}, gpu_opt).ok());
    ASSERT_EQ(std::memcmp(set_cpu.data(), set_gpu.data(), g.cells() * sizeof(float)), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace warpmind::nav

namespace warpmind::nav {
namespace {

// Clearance and sight flags on the GPU against the CPU's: random maps around the launch shapes, an empty
// 1024 x 700 map (clearance up to 350: hundreds of passes), everything blocked, one row, one column, a
// lone passable cell; sight toward goals in corners, on edges and inside.
TEST(NavGpu, ClearanceAndSightEqualTheCpu) {
  WM_REQUIRE_GPU();
  Context& gpu = *test::cuda_context();
  SplitMix64 rng(97);
  std::vector<Grid> maps;
  const int sides[] = {1, 7, 31, 32, 33, 100, 257};
  for (int round = 0; round < 16; ++round) {
    Grid g;
    ASSERT_TRUE(make_grid(sides[rng.next() % 7], sides[rng.next() % 7], 1, g).ok());
    const int blocked = static_cast<int>(rng.next() % 40);
    for (auto& c : g.cost)
      if (static_cast<int>(rng.next() % 100) < blocked) c = kBlocked;
    maps.push_back(std::move(g));
  }
  Grid g;
  ASSERT_TRUE(make_grid(1024, 700, 1, g).ok());
  maps.push_back(g);
  ASSERT_TRUE(make_grid(50, 40, kBlocked, g).ok());
  maps.push_back(g);
  g.cost[g.index(20, 20)] = 1;
  maps.push_back(g);
  ASSERT_TRUE(make_grid(300, 1, 1, g).ok());
  maps.push_back(g);
  ASSERT_TRUE(make_grid(1, 300, 1, g).ok());
  maps.push_back(g);
  ASSERT_TRUE(generate_map(MapKind::Maze, 512, 512, 3, g).ok());
  maps.push_back(g);
  for (std::size_t m = 0; m < maps.size(); ++m) {
    const Grid& map = maps[m];
    SCOPED_TRACE("map " + std::to_string(m) + ": " + std::to_string(map.width) + " x " + std::to_string(map.height));
    std::vector<std::uint16_t> cpu(map.cells()), dev(map.cells(), 7);
    ASSERT_TRUE(clearance(test::cpu_context(), map, cpu, NavVariant::Cpu).ok());
    const Status st = clearance(gpu, map, dev, NavVariant::Gpu);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(cpu, dev);
    std::vector<Cell> goals = passable_goals(map, 2, rng);
    for (const Cell c : {Cell{0, 0}, Cell{map.width - 1, map.height - 1}, Cell{map.width / 2, 0}})
      if (map.passable(c.x, c.y)) goals.push_back(c);
    for (const Cell& goal : goals) {
      std::vector<std::uint8_t> sc(map.cells()), sg(map.cells(), 9);
      ASSERT_TRUE(sight(test::cpu_context(), map, goal, sc, NavVariant::Cpu).ok());
      ASSERT_TRUE(sight(gpu, map, goal, sg, NavVariant::Gpu).ok());
      ASSERT_EQ(sc, sg) << "goal (" << goal.x << ", " << goal.y << ")";
    }
  }
}

}  // namespace
}  // namespace warpmind::nav
