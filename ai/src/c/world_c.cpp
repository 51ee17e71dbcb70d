// The C API's world map (contract in warpmind/warpmind.h): a thin wrapper over world::WorldMap.
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/warpmind.h"
#include "warpmind/world/world_map.h"

using namespace warpmind;
using namespace warpmind::capi;

struct wm_world {
  world::WorldMap map;
};

namespace {

Vec2 vec(wm_vec2 v) { return {v.x, v.y}; }

}  // namespace

wm_status wm_world_create(float x0, float y0, float w, float h, int width, int height, wm_world** out) {
  if (!out) return null_argument("wm_world_create", "out");
  return guarded([&] {
    auto m = std::make_unique<wm_world>();
    if (wm_status s = from(world::WorldMap::create({x0, y0, w, h}, width, height, m->map)); s != WM_OK) return s;
    *out = m.release();
    return WM_OK;
  });
}

void wm_world_destroy(wm_world* world) { delete world; }

wm_status wm_world_fill_rect(wm_world* world, wm_vec2 lo, wm_vec2 hi, uint8_t cost) {
  if (!world) return null_argument("wm_world_fill_rect", "world");
  return guarded([&] { return from(world->map.fill_rect(vec(lo), vec(hi), cost)); });
}

wm_status wm_world_draw_line(wm_world* world, wm_vec2 a, wm_vec2 b, float thickness, uint8_t cost) {
  if (!world) return null_argument("wm_world_draw_line", "world");
  return guarded([&] { return from(world->map.draw_line(vec(a), vec(b), thickness, cost)); });
}

wm_status wm_world_fill_polygon(wm_world* world, const wm_vec2* points, size_t count, uint8_t cost) {
  if (!world) return null_argument("wm_world_fill_polygon", "world");
  if (count && !points) return null_argument("wm_world_fill_polygon", "points");
  static_assert(sizeof(wm_vec2) == sizeof(Vec2) && alignof(wm_vec2) == alignof(Vec2), "wm_vec2 is warpmind::Vec2");
  return guarded([&] {
    return from(world->map.fill_polygon(std::span<const Vec2>(reinterpret_cast<const Vec2*>(points), count), cost));
  });
}

wm_status wm_world_costs(const wm_world* world, uint8_t* costs, size_t count) {
  if (!world) return null_argument("wm_world_costs", "world");
  if (count != world->map.costs().size())
    return fail(WM_INVALID_ARGUMENT, "wm_world_costs: room for " + std::to_string(count) + " cells, the map has " +
                                         std::to_string(world->map.costs().size()));
  if (!costs) return null_argument("wm_world_costs", "costs");
  std::memcpy(costs, world->map.costs().data(), count);
  return WM_OK;
}

wm_status wm_world_walls(const wm_world* world, uint32_t group, wm_entity* walls, size_t capacity, size_t* count) {
  if (!world) return null_argument("wm_world_walls", "world");
  if (!count) return null_argument("wm_world_walls", "count");
  return guarded([&] {
    std::vector<field::Entity> e;
    if (wm_status s = from(world->map.wall_entities(group, e)); s != WM_OK) return s;
    if (!walls) {
      *count = e.size();
      return WM_OK;
    }
    if (e.size() > capacity)
      return fail(WM_INVALID_ARGUMENT,
                  "wm_world_walls: " + std::to_string(e.size()) + " walls, room for " + std::to_string(capacity));
    for (std::size_t i = 0; i < e.size(); ++i) walls[i] = {e[i].x, e[i].y, e[i].group};
    *count = e.size();
    return WM_OK;
  });
}
