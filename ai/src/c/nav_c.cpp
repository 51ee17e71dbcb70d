// The C API's navigation fields (contract in warpmind/warpmind.h): wrappers over warpmind/nav.
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"
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

// ---- navigation fields kept up to date ------------------------------------------------------------

struct wm_navfields {
  std::unique_ptr<nav::NavFields> fields;
  std::vector<nav::CellChange> changes;  // reused by update
  std::vector<std::uint8_t> saved;       // the last save's bytes
};

wm_status wm_navfields_create(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                              size_t goal_count, wm_navfields** out) {
  return guarded([&] {
    if (!out) return null_argument("wm_navfields_create", "out");
    nav::Grid g;
    std::vector<nav::Cell> cells;
    if (const wm_status s =
            grid_and_goals("wm_navfields_create", ctx, width, height, costs, goals, goal_count, g, cells);
        s != WM_OK)
      return s;
    auto h = std::make_unique<wm_navfields>();
    if (const wm_status s = from(nav::NavFields::create(*ctx->ctx, g, cells, h->fields)); s != WM_OK) return s;
    *out = h.release();
    return WM_OK;
  });
}

void wm_navfields_destroy(wm_navfields* fields) { delete fields; }

wm_status wm_navfields_update(wm_navfields* f, const int32_t* changes, size_t count) {
  return guarded([&] {
    if (!f) return null_argument("wm_navfields_update", "fields");
    if (count > 0 && !changes) return null_argument("wm_navfields_update", "changes");
    f->changes.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const std::int32_t cost = changes[3 * i + 2];
      if (cost < 0 || cost > 255)
        return fail(WM_INVALID_ARGUMENT,
                    "wm_navfields_update: change " + std::to_string(i) + ": cost " + std::to_string(cost));
      f->changes[i] = {{changes[3 * i], changes[3 * i + 1]}, static_cast<std::uint8_t>(cost)};
    }
    return from(f->fields->update(f->changes));
  });
}

wm_status wm_navfields_size(const wm_navfields* f, int* width, int* height, size_t* goals) {
  if (!f) return null_argument("wm_navfields_size", "fields");
  if (width) *width = f->fields->grid().width;
  if (height) *height = f->fields->grid().height;
  if (goals) *goals = f->fields->goals();
  return WM_OK;
}

wm_status wm_navfields_read(const wm_navfields* f, size_t goal, float* distances, int8_t* directions, size_t cells) {
  return guarded([&] {
    if (!f) return null_argument("wm_navfields_read", "fields");
    if (!distances) return null_argument("wm_navfields_read", "distances");
    const nav::NavFields& n = *f->fields;
    if (goal >= n.goals())
      return fail(WM_INVALID_ARGUMENT,
                  "wm_navfields_read: goal " + std::to_string(goal) + " of " + std::to_string(n.goals()));
    if (cells != n.grid().cells())
      return fail(WM_INVALID_ARGUMENT, "wm_navfields_read: " + std::to_string(cells) + " cells for a grid of " +
                                           std::to_string(n.grid().cells()));
    std::memcpy(distances, n.distance(goal).data(), cells * sizeof(float));
    if (directions) std::memcpy(directions, n.direction(goal).data(), cells);
    return WM_OK;
  });
}

wm_status wm_navfields_save(wm_navfields* f, const uint8_t** bytes, size_t* size) {
  if (!f) return null_argument("wm_navfields_save", "fields");
  if (!bytes || !size) return null_argument("wm_navfields_save", "bytes or size");
  return guarded([&] {
    if (const wm_status s = from(f->fields->save(f->saved)); s != WM_OK) return s;
    *bytes = f->saved.data();
    *size = f->saved.size();
    return WM_OK;
  });
}

wm_status wm_navfields_restore(wm_navfields* f, const uint8_t* bytes, size_t size) {
  if (!f) return null_argument("wm_navfields_restore", "fields");
  if (size && !bytes) return null_argument("wm_navfields_restore", "bytes");
  return guarded([&] { return from(f->fields->restore(std::span<const std::uint8_t>(bytes, size))); });
}
