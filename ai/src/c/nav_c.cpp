// The C API's navigation fields (contract in warpmind/warpmind.h): wrappers over warpmind/nav.
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "c/c_api.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"
#include "warpmind/nav/sight.h"
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

wm_status wm_nav_fields_with(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                             size_t goal_count, int goal_set, int unreachable, float* distances, int8_t* directions) {
  return guarded([&] {
    nav::Grid g;
    std::vector<nav::Cell> cells;
    if (const wm_status s =
            grid_and_goals("wm_nav_fields_with", ctx, width, height, costs, goals, goal_count, g, cells);
        s != WM_OK)
      return s;
    nav::FieldOptions o;
    if (unreachable == WM_NAV_UNREACHABLE_NEAREST_CELL)
      o.unreachable = nav::Unreachable::NearestCell;
    else if (unreachable != WM_NAV_UNREACHABLE_INFINITY)
      return fail(WM_INVALID_ARGUMENT,
                  "wm_nav_fields_with: unknown unreachable option " + std::to_string(static_cast<int>(unreachable)));
    const std::size_t fields = goal_set ? 1 : goal_count;
    const std::size_t n = fields * g.cells();
    if (fields > 0 && n / fields != g.cells()) return fail(WM_INVALID_ARGUMENT, "wm_nav_fields_with: too many goals");
    if (fields > 0 && !distances) return null_argument("wm_nav_fields_with", "distances");
    const std::span<float> d(distances, n);
    const std::span<std::int8_t> r = directions ? std::span<std::int8_t>(directions, n) : std::span<std::int8_t>();
    return from(goal_set ? nav::goal_set_field(*ctx->ctx, g, cells, d, r, o)
                         : nav::distance_fields(*ctx->ctx, g, cells, d, r, o));
  });
}

namespace {

// A grid of width x height from `costs` (not null), or the status of the first bad argument.
wm_status grid_from(const char* where, int width, int height, const uint8_t* costs, nav::Grid& g) {
  if (const wm_status s = from(nav::make_grid(width, height, nav::kBlocked, g)); s != WM_OK) return s;
  if (!costs) return null_argument(where, "costs");
  std::memcpy(g.cost.data(), costs, g.cells());
  return WM_OK;
}

}  // namespace

wm_status wm_nav_clearance(int width, int height, const uint8_t* costs, uint16_t* clearance) {
  return guarded([&] {
    nav::Grid g;
    if (const wm_status s = grid_from("wm_nav_clearance", width, height, costs, g); s != WM_OK) return s;
    if (!clearance) return null_argument("wm_nav_clearance", "clearance");
    return from(nav::clearance(g, std::span<std::uint16_t>(clearance, g.cells())));
  });
}

wm_status wm_nav_class_costs(int width, int height, const uint8_t* costs, int size_class, uint8_t* class_costs) {
  return guarded([&] {
    nav::Grid g, c;
    if (const wm_status s = grid_from("wm_nav_class_costs", width, height, costs, g); s != WM_OK) return s;
    if (!class_costs) return null_argument("wm_nav_class_costs", "class_costs");
    if (const wm_status s = from(nav::class_grid(g, size_class, c)); s != WM_OK) return s;
    std::memcpy(class_costs, c.cost.data(), c.cells());
    return WM_OK;
  });
}

wm_status wm_nav_size_class(double radius_cells, int* size_class) {
  if (!size_class) return null_argument("wm_nav_size_class", "size_class");
  return guarded([&] { return from(nav::size_class_of_radius(radius_cells, *size_class)); });
}

wm_status wm_nav_line_of_sight(int width, int height, const uint8_t* costs, int ax, int ay, int bx, int by,
                               int* visible) {
  return guarded([&] {
    nav::Grid g;
    if (const wm_status s = grid_from("wm_nav_line_of_sight", width, height, costs, g); s != WM_OK) return s;
    if (!visible) return null_argument("wm_nav_line_of_sight", "visible");
    *visible = nav::line_of_sight(g, {ax, ay}, {bx, by}) ? 1 : 0;
    return WM_OK;
  });
}

wm_status wm_nav_waypoints(wm_context* ctx, int width, int height, const uint8_t* costs, const float* distances,
                           const int8_t* directions, uint32_t* waypoints) {
  return guarded([&] {
    if (!ctx) return null_argument("wm_nav_waypoints", "ctx");
    nav::Grid g;
    if (const wm_status s = grid_from("wm_nav_waypoints", width, height, costs, g); s != WM_OK) return s;
    if (!distances || !directions || !waypoints)
      return null_argument("wm_nav_waypoints", "distances, directions or waypoints");
    return from(nav::waypoints(*ctx->ctx, g, std::span<const float>(distances, g.cells()),
                               std::span<const std::int8_t>(directions, g.cells()),
                               std::span<std::uint32_t>(waypoints, g.cells())));
  });
}

wm_status wm_nav_steer_waypoints(int width, int height, const float* distances, const uint32_t* waypoints,
                                 const wm_vec2* positions, size_t count, wm_vec2* steer, float* dist) {
  return guarded([&] {
    nav::Grid g;
    if (const wm_status s = from(nav::make_grid(width, height, 1, g)); s != WM_OK) return s;
    if (!distances || !waypoints) return null_argument("wm_nav_steer_waypoints", "distances or waypoints");
    if (count > 0 && (!positions || !steer || !dist))
      return null_argument("wm_nav_steer_waypoints", "positions, steer or dist");
    return from(nav::steer_to_waypoints(
        g, std::span<const float>(distances, g.cells()), std::span<const std::uint32_t>(waypoints, g.cells()),
        std::span<const Vec2>(reinterpret_cast<const Vec2*>(positions), count),
        std::span<Vec2>(reinterpret_cast<Vec2*>(steer), count), std::span<float>(dist, count)));
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
