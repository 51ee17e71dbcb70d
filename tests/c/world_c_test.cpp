// The C API's world map against the C++ WorldMap: the same cells for the same shapes, the crowd fed from
// the costs keeps its agents out of a wall, the walls' entities, and bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "warpmind/warpmind.h"
#include "warpmind/world/world_map.h"

namespace warpmind {
namespace {

TEST(CApi, WorldMapEqualsTheCppMap) {
  wm_world* w = nullptr;
  ASSERT_EQ(wm_world_create(0, 0, 64, 32, 64, 32, &w), WM_OK) << wm_last_error();
  world::WorldMap cpp;
  ASSERT_TRUE(world::WorldMap::create({0, 0, 64, 32}, 64, 32, cpp).ok());
  ASSERT_EQ(wm_world_fill_rect(w, {2, 2}, {10, 6}, 0), WM_OK);
  ASSERT_TRUE(cpp.fill_rect({2, 2}, {10, 6}, 0).ok());
  ASSERT_EQ(wm_world_draw_line(w, {0, 31}, {63, 0}, 1.5f, 0), WM_OK);
  ASSERT_TRUE(cpp.draw_line({0, 31}, {63, 0}, 1.5f, 0).ok());
  const wm_vec2 poly[4] = {{40, 20}, {60, 22}, {55, 30}, {42, 28}};
  ASSERT_EQ(wm_world_fill_polygon(w, poly, 4, 5), WM_OK);
  ASSERT_TRUE(cpp.fill_polygon(std::vector<Vec2>{{40, 20}, {60, 22}, {55, 30}, {42, 28}}, 5).ok());
  std::vector<std::uint8_t> costs(64 * 32);
  ASSERT_EQ(wm_world_costs(w, costs.data(), costs.size()), WM_OK);
  EXPECT_EQ(costs, cpp.costs());
  int walls = 0, fives = 0;
  for (std::uint8_t c : costs) walls += c == 0, fives += c == 5;
  EXPECT_GT(walls, 60);
  EXPECT_GT(fives, 50);
  // The walls' entities: count first, then the entities; too little room is an error.
  size_t n = 0;
  ASSERT_EQ(wm_world_walls(w, 3, nullptr, 0, &n), WM_OK);
  std::vector<field::Entity> want;
  ASSERT_TRUE(cpp.wall_entities(3, want).ok());
  ASSERT_EQ(n, want.size());
  std::vector<wm_entity> got(n);
  ASSERT_EQ(wm_world_walls(w, 3, got.data(), got.size(), &n), WM_OK);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(got[i].x, want[i].x);
    EXPECT_EQ(got[i].y, want[i].y);
    EXPECT_EQ(got[i].group, 3u);
  }
  EXPECT_EQ(wm_world_walls(w, 3, got.data(), n - 1, &n), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_walls(w, 64, nullptr, 0, &n), WM_INVALID_ARGUMENT);
  // A crowd over the same world with the map's walls: an agent beside the rectangle cannot enter it.
  std::vector<std::uint8_t> blocked(costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) blocked[i] = costs[i] == 0;
  wm_crowd_config config{};
  config.x0 = 0, config.y0 = 0, config.width = 64, config.height = 32, config.radius = 0.25f;
  config.obstacles_width = 64, config.obstacles_height = 32, config.blocked = blocked.data();
  wm_context* ctx = nullptr;
  ASSERT_EQ(wm_context_create(WM_BACKEND_CPU, 1, &ctx), WM_OK);
  wm_crowd* c = nullptr;
  ASSERT_EQ(wm_crowd_create_with(ctx, &config, &c), WM_OK) << wm_last_error();
  const wm_vec2 start[1] = {{1.5f, 4.0f}}, into[1] = {{12.0f, 4.0f}};
  ASSERT_EQ(wm_crowd_reset(c, start, 1), WM_OK);
  ASSERT_EQ(wm_crowd_step(c, into, 1, nullptr), WM_OK);
  std::uint8_t verdict = 0;
  ASSERT_EQ(wm_crowd_verdicts(c, &verdict, 1), WM_OK);
  EXPECT_EQ(verdict, WM_VERDICT_BLOCKED);
  wm_crowd_destroy(c);
  wm_context_destroy(ctx);
  // Bad arguments leave the map as it was.
  EXPECT_EQ(wm_world_draw_line(w, {NAN, 0}, {1, 1}, 0, 0), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_draw_line(w, {0, 0}, {1, 1}, -1, 0), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_fill_polygon(w, poly, 2, 0), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_fill_polygon(w, nullptr, 3, 0), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_costs(w, costs.data(), costs.size() - 1), WM_INVALID_ARGUMENT);
  std::vector<std::uint8_t> again(costs.size());
  ASSERT_EQ(wm_world_costs(w, again.data(), again.size()), WM_OK);
  EXPECT_EQ(again, costs);
  EXPECT_EQ(wm_world_create(0, 0, 0, 32, 64, 32, &w), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_world_fill_rect(nullptr, {0, 0}, {1, 1}, 0), WM_INVALID_ARGUMENT);
  wm_world_destroy(w);
}

}  // namespace
}  // namespace warpmind
