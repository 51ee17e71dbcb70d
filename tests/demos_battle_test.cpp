// The demo's battle simulation without rendering: a fixed seed ends with a winner, nobody ever
// overlaps, and the final state is pinned.
#include <gtest/gtest.h>

#include <cmath>

#include <fstream>

#include "battle.h"
#include "gpu_helpers.h"

namespace warpmind::demos {
namespace {

TEST(Battle, FixedSeedEndsWithAWinnerWithoutOverlaps) {
  // Straight to the waypoints (the default) and along the 8 directions (the battle as it was before
  // waypoints: its hash unchanged).
  for (const bool straight : {true, false}) {
    SCOPED_TRACE(straight ? "straight" : "8 directions");
    BattleConfig c;
    c.units_per_army = 120;
    c.field_resolution = 128;
    c.start_gap = 16.0f;
    c.seed = 5;
    c.nav_straight = straight;
    std::unique_ptr<Battle> b;
    ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
    EXPECT_EQ(b->size_class(), 1);
    const std::size_t start = b->alive(0) + b->alive(1);
    EXPECT_GT(start, 200u);
    while (b->winner() < 0 && b->ticks() < 3000) {
      ASSERT_TRUE(b->tick().ok());
      ASSERT_EQ(b->overlaps(), 0u) << "tick " << b->ticks();
    }
    ASSERT_GE(b->winner(), 0) << "no winner after 3000 ticks: " << b->alive(0) << " vs " << b->alive(1);
    EXPECT_NE(b->winner(), 2);
    EXPECT_GT(b->alive(b->winner()), 0u);
    EXPECT_EQ(b->state_hash(), straight ? 0x287e4cfbdfcc3bb3ull : 0x36085c4082015012ull)
        << "ticks " << b->ticks() << ", winner " << b->winner();
  }
}

// The CUDA backend's tick (decisions, crowd and combat on device state) gives the CPU backend's battle:
// the same positions, HP and teams after every tick (the field, crowd and combat modules are exact, and
// the steering formula is the same).
TEST(BattleGpu, DeviceTickEqualsTheCpuBackend) {
  WM_REQUIRE_GPU();
  BattleConfig c;
  c.units_per_army = 2000;
  c.field_resolution = 256;
  c.start_gap = 8.0f;
  c.seed = 7;
  std::unique_ptr<Battle> cpu, gpu;
  ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, cpu).ok());
  ASSERT_TRUE(Battle::create(*warpmind::test::cuda_context(), c, gpu).ok());
  std::size_t deaths = 0;
  for (int t = 0; t < 150 && cpu->winner() < 0; ++t) {
    ASSERT_TRUE(cpu->tick().ok());
    ASSERT_TRUE(gpu->tick().ok());
    ASSERT_EQ(gpu->positions().size(), cpu->positions().size()) << "tick " << t;
    ASSERT_EQ(gpu->state_hash(), cpu->state_hash()) << "tick " << t;
    deaths = 4000 - cpu->positions().size();
  }
  EXPECT_GT(deaths, 0u);
  EXPECT_EQ(gpu->overlaps(), 0u);
}

// A wall between the armies with a way round at one end: with the navigation fields the armies walk
// round it and fight; with the potential field alone they stay pressed against the wall (its local
// minimum), too far apart to fire.
TEST(Battle, NavigationFieldsLeadTheArmiesAroundAWall) {
  BattleConfig c;
  c.units_per_army = 150;
  c.field_resolution = 128;
  c.start_gap = 24.0f;
  c.seed = 3;
  c.layout.walls = {{56, 0, 71, 100}};
  c.layout.start_row = 40;
  for (const bool nav : {true, false}) {
    SCOPED_TRACE(nav ? "navigation fields" : "potential field alone");
    c.nav = nav;
    std::unique_ptr<Battle> b;
    ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
    const std::size_t start = b->positions().size();
    std::size_t walkers = 0;
    for (int t = 0; t < 600 && b->winner() < 0; ++t) {
      ASSERT_TRUE(b->tick().ok());
      walkers = std::max(walkers, b->nav_walkers());
    }
    EXPECT_EQ(b->overlaps(), 0u);
    if (nav) {
      EXPECT_LT(b->positions().size(), start - 20) << "the armies did not meet round the wall";
      EXPECT_GT(walkers, 100u);
      ASSERT_EQ(b->nav_distance(0).size(), 128u * 128u);
    } else {
      EXPECT_EQ(b->positions().size(), start) << "the armies met without the navigation fields";
      EXPECT_EQ(walkers, 0u);
    }
  }
}

// Units as wide as several plan cells get the fields of their size class: radius 2 world units on a plan
// of 1-unit cells is class 3 (a 5 x 5 square), and the battle runs on that class's fields.
TEST(Battle, LargeUnitsWalkTheFieldsOfTheirSizeClass) {
  BattleConfig c;
  c.units_per_army = 60;
  c.unit_radius = 2.0f;
  std::unique_ptr<Battle> b;
  ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
  ASSERT_EQ(b->map(), 128);
  EXPECT_EQ(b->size_class(), 3);
  for (int t = 0; t < 8; ++t) ASSERT_TRUE(b->tick().ok());
  std::size_t reached = 0;
  for (const float d : b->nav_distance(0)) reached += std::isfinite(d);
  EXPECT_GT(reached, 0u);
}

TEST(Battle, RejectsBadConfigs) {
  BattleConfig c;
  c.units_per_army = 0;
  std::unique_ptr<Battle> b;
  EXPECT_FALSE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
  c.units_per_army = 10;
  c.damage = 0;
  EXPECT_FALSE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
}

TEST(Battle, PlacesExactlyTheUnitsAsked) {
  // The benchmark's size: 50,000 per army on the map sized for them, the demo's start gap; walls in the
  // way of the lattice are skipped, not the units.
  BattleConfig c;
  c.units_per_army = 50000;
  c.start_gap = 16;
  c.field_resolution = 256;
  std::unique_ptr<Battle> b;
  const Status st = Battle::create(warpmind::test::cpu_context(), c, b);
  ASSERT_TRUE(st.ok()) << st.message();
  std::size_t per_team[2] = {0, 0};
  for (int t : b->teams()) ++per_team[t];
  EXPECT_EQ(per_team[0], 50000u);
  EXPECT_EQ(per_team[1], 50000u);
  // A map too small for the armies is an error that says how many fit, not a smaller battle.
  c.units_per_army = 20000;
  c.map = 128;
  const Status small = Battle::create(warpmind::test::cpu_context(), c, b);
  EXPECT_EQ(small.code(), StatusCode::InvalidArgument);
  EXPECT_NE(small.message().find("room for only"), std::string::npos) << small.message();
}

// The walls drawn on the world map block exactly the layout's rectangles scaled to the map: cell (x, y) is
// blocked iff some wall [x0, x1] x [y0, y1] of the 128-unit plan holds it (x0 s <= x < (x1 + 1) s, likewise
// y, s = map / 128 cells a plan unit).
TEST(Battle, WallsBlockExactlyTheLayoutsRectangles) {
  BattleConfig c;
  c.units_per_army = 2000;
  c.field_resolution = 128;
  std::unique_ptr<Battle> b;
  ASSERT_TRUE(Battle::create(warpmind::test::cpu_context(), c, b).ok());
  const crowd::ObstacleGrid& o = b->solver().config().obstacles;
  const int map = b->map(), s = map / 128;
  ASSERT_GT(s, 1);
  ASSERT_EQ(o.width, map);
  ASSERT_EQ(o.height, map);
  ASSERT_FALSE(c.layout.walls.empty());
  std::size_t blocked = 0, wrong = 0;
  for (int y = 0; y < map; ++y)
    for (int x = 0; x < map; ++x) {
      bool in_wall = false;
      for (const auto& w : c.layout.walls)
        in_wall = in_wall || (x >= w[0] * s && x < (w[2] + 1) * s && y >= w[1] * s && y < (w[3] + 1) * s);
      const bool got = o.blocked[static_cast<std::size_t>(y) * map + x] != 0;
      wrong += got != in_wall;
      blocked += got;
    }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(blocked, 0u);
}

TEST(Battle, MapFileMatchesTheBuiltInLayoutAndBadFilesAreRejected) {
  BattleMap m;
  m.walls.clear();
  ASSERT_TRUE(load_battle_map(warpmind::test::source_dir() + "/assets/maps/battle.json", m).ok());
  const BattleMap builtin;
  EXPECT_EQ(m.walls, builtin.walls);
  EXPECT_EQ(m.start_row, builtin.start_row);
  const std::string dir = testing::TempDir();
  const auto bad = [&](const std::string& text, const std::string& expect) {
    const std::string path = dir + "/bad_map.json";
    std::ofstream(path) << text;
    BattleMap before;
    before.start_row = 7;
    BattleMap out = before;
    const Status st = load_battle_map(path, out);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(expect), std::string::npos) << st.message();
    EXPECT_EQ(out.start_row, 7);  // unchanged
    EXPECT_EQ(out.walls, before.walls);
  };
  bad("{", "not a JSON object");
  bad("{\"walls\": 3}", "walls");
  bad("{\"walls\": [[1, 2, 3]]}", "walls[0]");
  bad("{\"walls\": [[5, 5, 2, 9]]}", "x0 <= x1");
  bad("{\"walls\": [[0, 0, 200, 1]]}", "0..127");
  bad("{\"plan\": 64, \"walls\": []}", "plan");
  bad("{\"walls\": [], \"start_rwo\": 3}", "start_rwo: unknown key");
  bad("{\"comment\": 1e400, \"walls\": []}", "a double cannot hold");
  BattleMap missing;
  EXPECT_FALSE(load_battle_map(dir + "/no_such_map.json", missing).ok());
}

}  // namespace
}  // namespace warpmind::demos
