// The C API's navigation fields (warpmind.h, wm_nav_*): the same fields as the C++ call, maps read in two
// calls (sizing, then the costs), and bad arguments refused with nothing written.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/sight.h"
#include "warpmind/warpmind.h"

namespace {

TEST(CApi, NavFieldsEqualTheLibrary) {
  const char* text = "type octile\nheight 4\nwidth 5\nmap\n.....\n.@@@.\n...@.\n.@...\n";
  int w = 0, h = 0;
  ASSERT_EQ(wm_nav_read_map(text, &w, &h, nullptr, 0), WM_OK);
  ASSERT_EQ(w, 5);
  ASSERT_EQ(h, 4);
  std::vector<std::uint8_t> costs(static_cast<std::size_t>(w * h));
  EXPECT_EQ(wm_nav_read_map(text, &w, &h, costs.data(), costs.size() - 1), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_nav_read_map(text, &w, &h, costs.data(), costs.size()), WM_OK);
  costs[0] = 3;  // a costly corner
  wm_context* ctx = nullptr;
  ASSERT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &ctx), WM_OK);
  const std::int32_t goals[] = {0, 0, 4, 3};
  std::vector<float> dist(2 * costs.size());
  std::vector<std::int8_t> dir(dist.size());
  ASSERT_EQ(wm_nav_fields(ctx, w, h, costs.data(), goals, 2, dist.data(), dir.data()), WM_OK);
  warpmind::nav::Grid g;
  ASSERT_TRUE(warpmind::nav::make_grid(w, h, 1, g).ok());
  g.cost = costs;
  std::vector<float> want(dist.size());
  std::vector<std::int8_t> want_dir(dist.size());
  const std::vector<warpmind::nav::Cell> cells = {{0, 0}, {4, 3}};
  ASSERT_TRUE(warpmind::nav::distance_fields(warpmind::test::cpu_context(), g, cells, want, want_dir).ok());
  EXPECT_EQ(std::memcmp(dist.data(), want.data(), dist.size() * sizeof(float)), 0);
  EXPECT_EQ(dir, want_dir);
  EXPECT_EQ(dist[2], 4.0f);  // from (2, 0): into (1, 0) at cost 1, then into the goal (0, 0) at cost 3
  // Without directions; bad arguments change nothing.
  std::vector<float> only(costs.size(), -1.0f);
  ASSERT_EQ(wm_nav_fields(ctx, w, h, costs.data(), goals, 1, only.data(), nullptr), WM_OK);
  EXPECT_EQ(std::memcmp(only.data(), want.data(), only.size() * sizeof(float)), 0);
  std::vector<float> untouched(costs.size(), -1.0f);
  const std::int32_t blocked[] = {1, 1}, outside[] = {5, 0};
  EXPECT_EQ(wm_nav_fields(ctx, w, h, costs.data(), blocked, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("blocked"), std::string::npos) << wm_last_error();
  EXPECT_EQ(wm_nav_fields(ctx, w, h, costs.data(), outside, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_nav_fields(ctx, 0, h, costs.data(), goals, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_nav_fields(ctx, w, h, nullptr, goals, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_nav_fields(ctx, w, h, costs.data(), nullptr, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_nav_fields(nullptr, w, h, costs.data(), goals, 1, untouched.data(), nullptr), WM_INVALID_ARGUMENT);
  for (float v : untouched) EXPECT_EQ(v, -1.0f);
  EXPECT_EQ(wm_nav_fields(ctx, w, h, costs.data(), nullptr, 0, nullptr, nullptr), WM_OK);  // no goals
  int keep_w = 7, keep_h = 7;
  EXPECT_EQ(wm_nav_read_map("type octile\nheight 1\nwidth 2\nmap\n.\n", &keep_w, &keep_h, nullptr, 0),
            WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("line 5"), std::string::npos) << wm_last_error();
  EXPECT_EQ(keep_w, 7);
  EXPECT_EQ(wm_nav_read_map(nullptr, &keep_w, &keep_h, nullptr, 0), WM_INVALID_ARGUMENT);
  // Steering by the first field, as the C++ call.
  const wm_vec2 at[] = {{4.5f, 0.5f}, {0.2f, 0.9f}, {-1.0f, 0.0f}};
  wm_vec2 steer[3];
  float along[3];
  ASSERT_EQ(wm_nav_steer(w, h, dist.data(), dir.data(), at, 3, steer, along), WM_OK);
  std::vector<warpmind::Vec2> want_steer(3);
  std::vector<float> want_along(3);
  const std::vector<warpmind::Vec2> pos = {{4.5f, 0.5f}, {0.2f, 0.9f}, {-1.0f, 0.0f}};
  ASSERT_TRUE(warpmind::nav::steer(g, std::span(want).first(costs.size()), std::span(want_dir).first(costs.size()), pos,
                                   want_steer, want_along)
                  .ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(steer[i].x, want_steer[static_cast<std::size_t>(i)].x);
    EXPECT_EQ(steer[i].y, want_steer[static_cast<std::size_t>(i)].y);
    EXPECT_EQ(along[i], want_along[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(steer[0].x, -1.0f);  // (4, 0): west along the top row
  EXPECT_EQ(wm_nav_steer(w, h, nullptr, dir.data(), at, 3, steer, along), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_nav_steer(0, h, dist.data(), dir.data(), at, 3, steer, along), WM_INVALID_ARGUMENT);
  wm_context_destroy(ctx);
}

// wm_navfields_*: fields kept up to date through the C API equal wm_nav_fields on the changed grid; a
// save restored into a handle of another grid gives the same fields; bad changes and bytes change nothing.
TEST(CApi, UpdatedNavFieldsSaveAndRestore) {
  wm_context* ctx = nullptr;
  ASSERT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &ctx), WM_OK);
  const int w = 7, h = 5;
  std::vector<std::uint8_t> costs(w * h, 1);
  costs[10] = 0;
  const std::int32_t goals[] = {0, 0, 6, 4};
  wm_navfields* f = nullptr;
  EXPECT_EQ(wm_navfields_create(ctx, w, h, costs.data(), goals, 2, nullptr), WM_INVALID_ARGUMENT);
  const std::int32_t blocked_goal[] = {3, 1};  // cell 10
  EXPECT_EQ(wm_navfields_create(ctx, w, h, costs.data(), blocked_goal, 1, &f), WM_INVALID_ARGUMENT);
  ASSERT_EQ(wm_navfields_create(ctx, w, h, costs.data(), goals, 2, &f), WM_OK) << wm_last_error();
  const std::int32_t changes[] = {3, 2, 0, 4, 2, 5, 1, 3, 0};
  ASSERT_EQ(wm_navfields_update(f, changes, 3), WM_OK) << wm_last_error();
  costs[3 + 2 * w] = 0, costs[4 + 2 * w] = 5, costs[1 + 3 * w] = 0;
  const std::int32_t bad[] = {1, 1, 256};
  EXPECT_EQ(wm_navfields_update(f, bad, 1), WM_INVALID_ARGUMENT);
  const std::int32_t on_goal[] = {0, 0, 0};
  EXPECT_EQ(wm_navfields_update(f, on_goal, 1), WM_INVALID_ARGUMENT);
  std::vector<float> want(2 * costs.size());
  std::vector<std::int8_t> want_dir(want.size());
  ASSERT_EQ(wm_nav_fields(ctx, w, h, costs.data(), goals, 2, want.data(), want_dir.data()), WM_OK);
  std::vector<float> got(costs.size());
  std::vector<std::int8_t> got_dir(costs.size());
  for (std::size_t g = 0; g < 2; ++g) {
    ASSERT_EQ(wm_navfields_read(f, g, got.data(), got_dir.data(), got.size()), WM_OK);
    EXPECT_EQ(std::memcmp(got.data(), want.data() + g * costs.size(), costs.size() * sizeof(float)), 0) << g;
    EXPECT_EQ(std::memcmp(got_dir.data(), want_dir.data() + g * costs.size(), costs.size()), 0) << g;
  }
  EXPECT_EQ(wm_navfields_read(f, 2, got.data(), nullptr, got.size()), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_navfields_read(f, 0, got.data(), nullptr, got.size() - 1), WM_INVALID_ARGUMENT);
  const std::uint8_t* bytes = nullptr;
  std::size_t size = 0;
  ASSERT_EQ(wm_navfields_save(f, &bytes, &size), WM_OK);
  ASSERT_EQ(size, 32u + 16u + costs.size());
  const std::vector<std::uint8_t> saved(bytes, bytes + size);
  const std::uint8_t one = 1;
  const std::int32_t corner[] = {0, 0};
  wm_navfields* other = nullptr;
  ASSERT_EQ(wm_navfields_create(ctx, 1, 1, &one, corner, 1, &other), WM_OK);
  EXPECT_EQ(wm_navfields_restore(other, saved.data(), saved.size() - 1), WM_INVALID_ARGUMENT);
  int ow = 0, oh = 0;
  std::size_t og = 0;
  ASSERT_EQ(wm_navfields_size(other, &ow, &oh, &og), WM_OK);
  EXPECT_EQ(ow * oh, 1) << "a refused restore changed the grid";
  ASSERT_EQ(wm_navfields_restore(other, saved.data(), saved.size()), WM_OK) << wm_last_error();
  ASSERT_EQ(wm_navfields_size(other, &ow, &oh, &og), WM_OK);
  EXPECT_EQ(ow, w);
  EXPECT_EQ(oh, h);
  EXPECT_EQ(og, 2u);
  for (std::size_t g = 0; g < 2; ++g) {
    ASSERT_EQ(wm_navfields_read(other, g, got.data(), nullptr, got.size()), WM_OK);
    EXPECT_EQ(std::memcmp(got.data(), want.data() + g * costs.size(), costs.size() * sizeof(float)), 0) << g;
  }
  wm_navfields_destroy(other);
  wm_navfields_destroy(f);
  wm_navfields_destroy(nullptr);
  wm_context_destroy(ctx);
}

// Clearance, size classes, line of sight, waypoints and the nearest-cell option: the library's values
// through the C API, and bad arguments refused with nothing written.
TEST(CApi, NavSizesSightAndUnreachableEqualTheLibrary) {
  using namespace warpmind::nav;
  Grid g;
  ASSERT_TRUE(make_grid(12, 9, 1, g).ok());
  for (int y = 0; y < 9; ++y) g.cost[g.index(6, y)] = kBlocked;  // a wall that cuts the map in two
  g.cost[g.index(2, 2)] = kBlocked;
  g.cost[g.index(1, 5)] = 4;
  std::vector<std::uint16_t> clear(g.cells()), want_clear(g.cells());
  ASSERT_EQ(wm_nav_clearance(g.width, g.height, g.cost.data(), clear.data()), WM_OK);
  ASSERT_TRUE(clearance(g, want_clear).ok());
  EXPECT_EQ(clear, want_clear);
  std::vector<std::uint8_t> cls(g.cells(), 9);
  Grid want_cls;
  ASSERT_EQ(wm_nav_class_costs(g.width, g.height, g.cost.data(), 2, cls.data()), WM_OK);
  ASSERT_TRUE(class_grid(g, 2, want_cls).ok());
  EXPECT_EQ(cls, want_cls.cost);
  std::vector<std::uint8_t> keep(g.cells(), 9);
  EXPECT_EQ(wm_nav_class_costs(g.width, g.height, g.cost.data(), 0, keep.data()), WM_INVALID_ARGUMENT);
  EXPECT_EQ(keep, std::vector<std::uint8_t>(g.cells(), 9));
  int n = 0;
  ASSERT_EQ(wm_nav_size_class(1.2, &n), WM_OK);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(wm_nav_size_class(-1.0, &n), WM_INVALID_ARGUMENT);
  EXPECT_EQ(n, 2);
  int visible = 7;
  ASSERT_EQ(wm_nav_line_of_sight(g.width, g.height, g.cost.data(), 0, 0, 4, 4, &visible), WM_OK);
  EXPECT_EQ(visible, line_of_sight(g, {0, 0}, {4, 4}) ? 1 : 0);
  ASSERT_EQ(wm_nav_line_of_sight(g.width, g.height, g.cost.data(), 0, 0, 5, 1, &visible), WM_OK);
  EXPECT_EQ(visible, 1);
  ASSERT_EQ(wm_nav_line_of_sight(g.width, g.height, g.cost.data(), 0, 4, 11, 4, &visible), WM_OK);
  EXPECT_EQ(visible, 0);

  wm_context* ctx = nullptr;
  ASSERT_EQ(wm_context_create(WM_BACKEND_CPU, 2, &ctx), WM_OK);
  const std::int32_t goal[] = {9, 4};
  std::vector<float> dist(g.cells()), want(g.cells());
  std::vector<std::int8_t> dir(g.cells()), want_dir(g.cells());
  ASSERT_EQ(wm_nav_fields_with(ctx, g.width, g.height, g.cost.data(), goal, 1, 1, WM_NAV_UNREACHABLE_NEAREST_CELL,
                               dist.data(), dir.data()),
            WM_OK);
  FieldOptions o;
  o.unreachable = Unreachable::NearestCell;
  ASSERT_TRUE(goal_set_field(warpmind::test::cpu_context(), g, std::vector<Cell>{{9, 4}}, want, want_dir, o).ok());
  EXPECT_EQ(std::memcmp(dist.data(), want.data(), dist.size() * sizeof(float)), 0);
  EXPECT_EQ(dir, want_dir);
  EXPECT_EQ(dist[g.index(5, 4)], 0.0f);  // the far side's substitute: beside the wall, level with the goal
  std::vector<float> untouched(g.cells(), 1.0f);
  EXPECT_EQ(wm_nav_fields_with(ctx, g.width, g.height, g.cost.data(), goal, 1, 0, 5, untouched.data(), nullptr),
            WM_INVALID_ARGUMENT);
  EXPECT_EQ(untouched, std::vector<float>(g.cells(), 1.0f));

  std::vector<std::uint32_t> way(g.cells()), want_way(g.cells());
  ASSERT_EQ(wm_nav_waypoints(ctx, g.width, g.height, g.cost.data(), dist.data(), dir.data(), way.data()), WM_OK);
  ASSERT_TRUE(waypoints(warpmind::test::cpu_context(), g, want, want_dir, want_way).ok());
  EXPECT_EQ(way, want_way);
  const wm_vec2 pos[] = {{0.5f, 0.5f}, {11.5f, 8.5f}};
  wm_vec2 st[2];
  float d[2];
  ASSERT_EQ(wm_nav_steer_waypoints(g.width, g.height, dist.data(), way.data(), pos, 2, st, d), WM_OK);
  std::vector<warpmind::Vec2> want_st(2);
  std::vector<float> want_d(2);
  ASSERT_TRUE(
      steer_to_waypoints(g, want, want_way, std::vector<warpmind::Vec2>{{0.5f, 0.5f}, {11.5f, 8.5f}}, want_st, want_d)
          .ok());
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(st[i].x, want_st[static_cast<std::size_t>(i)].x);
    EXPECT_EQ(st[i].y, want_st[static_cast<std::size_t>(i)].y);
    EXPECT_EQ(d[i], want_d[static_cast<std::size_t>(i)]);
  }
  dir[g.index(0, 0)] = 4;  // off the grid: not a field
  std::vector<std::uint32_t> w2(g.cells(), 3);
  EXPECT_EQ(wm_nav_waypoints(ctx, g.width, g.height, g.cost.data(), dist.data(), dir.data(), w2.data()),
            WM_INVALID_ARGUMENT);
  EXPECT_EQ(w2, std::vector<std::uint32_t>(g.cells(), 3));
  wm_context_destroy(ctx);
}

}  // namespace
