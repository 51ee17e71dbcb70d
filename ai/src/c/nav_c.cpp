// The C API's navigation fields (contract in warpmind/warpmind.h): wrappers over warpmind/nav.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/warpmind.h"

using namespace warpmind;
using namespace warpmind::capi;

wm_status wm_nav_read_map(const char* text, int* width, int* height, uint8_t* costs, size_t capacity) {
  return guarded([&] {
    if (!text) return null_argument("wm_nav_read_map", "text");
    if (!width || !height) return null_argument("wm_nav_read_map", "width or height");
    nav::Grid g;
    if (const wm_status s = from(nav::read_moving_ai(text, g)); s != WM_OK) return s;
    *width = g.width;
    *height = g.height;
    if (!costs) return WM_OK;
    if (capacity < g.cells())
      return fail(WM_INVALID_ARGUMENT, "wm_nav_read_map: the map has " + std::to_string(g.cells()) +
                                           " cells, the costs room for " + std::to_string(capacity));
    std::memcpy(costs, g.cost.data(), g.cells());
    return WM_OK;
  });
}

wm_status wm_nav_steer(int width, int height, const float* distances, const int8_t* directions,
                       const wm_vec2* positions, size_t count, wm_vec2* steer, float* dist) {
  return guarded([&] {
    nav::Grid g;
    if (const wm_status s = from(nav::make_grid(width, height, 1, g)); s != WM_OK) return s;
    if (!distances || !directions) return null_argument("wm_nav_steer", "distances or directions");
    if (count > 0 && (!positions || !steer || !dist)) return null_argument("wm_nav_steer", "positions, steer or dist");
    static_assert(sizeof(wm_vec2) == sizeof(Vec2) && alignof(wm_vec2) == alignof(Vec2), "wm_vec2 is warpmind::Vec2");
    const auto* in = reinterpret_cast<const Vec2*>(positions);
    auto* out = reinterpret_cast<Vec2*>(steer);
    return from(nav::steer(g, std::span<const float>(distances, g.cells()),
                           std::span<const std::int8_t>(directions, g.cells()), std::span<const Vec2>(in, count),
                           std::span<Vec2>(out, count), std::span<float>(dist, count)));
  });
}

namespace {

// The grid and goals of a field call from its arguments: WM_OK, or the status of the first bad one.
wm_status grid_and_goals(const char* where, wm_context* ctx, int width, int height, const uint8_t* costs,
                         const int32_t* goals, size_t goal_count, nav::Grid& g, std::vector<nav::Cell>& cells) {
  if (!ctx) return null_argument(where, "ctx");
  if (const wm_status s = from(nav::make_grid(width, height, nav::kBlocked, g)); s != WM_OK) return s;
  if (!costs) return null_argument(where, "costs");
  if (goal_count > 0 && !goals) return null_argument(where, "goals");
  std::memcpy(g.cost.data(), costs, g.cells());
  cells.resize(goal_count);
  for (std::size_t i = 0; i < goal_count; ++i) cells[i] = {goals[2 * i], goals[2 * i + 1]};
  return WM_OK;
}

}  // namespace

wm_status wm_nav_fields(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                        size_t goal_count, float* distances, int8_t* directions) {
  return guarded([&] {
    nav::Grid g;
    std::vector<nav::Cell> cells;
    if (const wm_status s = grid_and_goals("wm_nav_fields", ctx, width, height, costs, goals, goal_count, g, cells);
        s != WM_OK)
      return s;
    if (goal_count > 0 && !distances) return null_argument("wm_nav_fields", "distances");
    const std::size_t n = goal_count * g.cells();  // goal_count <= SIZE_MAX / cells: checked by distance_fields
    if (goal_count > 0 && n / goal_count != g.cells())
      return fail(WM_INVALID_ARGUMENT, "wm_nav_fields: too many goals");
    return from(nav::distance_fields(*ctx->ctx, g, cells, std::span<float>(distances, n),
                                     directions ? std::span<std::int8_t>(directions, n) : std::span<std::int8_t>()));
  });
}

wm_status wm_nav_goal_set_field(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                                size_t goal_count, float* distances, int8_t* directions) {
  return guarded([&] {
    nav::Grid g;
    std::vector<nav::Cell> cells;
    if (const wm_status s =
            grid_and_goals("wm_nav_goal_set_field", ctx, width, height, costs, goals, goal_count, g, cells);
        s != WM_OK)
      return s;
    if (!distances) return null_argument("wm_nav_goal_set_field", "distances");
    return from(
        nav::goal_set_field(*ctx->ctx, g, cells, std::span<float>(distances, g.cells()),
                            directions ? std::span<std::int8_t>(directions, g.cells()) : std::span<std::int8_t>()));
  });
}
