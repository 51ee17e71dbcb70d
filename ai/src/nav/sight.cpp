// Line of sight and waypoints (contract in warpmind/nav/sight.h).
#include "warpmind/nav/sight.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "nav/dijkstra.h"
#include "nav/octile.h"
#include "nav/sight_walk.h"
#include "nav/variant.h"
#if WARPMIND_HAVE_CUDA
#include "nav/nav_device.h"
#endif
#include "warpmind/nav/nav.h"

namespace warpmind::nav {

bool line_of_sight(const Grid& g, Cell a, Cell b) {
  return octile::sight_walk({g.cost.data(), g.width, g.height}, a.x, a.y, b.x, b.y);
}

Status sight(Context& ctx, const Grid& grid, Cell goal, std::span<std::uint8_t> visible, NavVariant variant) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  if (!grid.passable(goal.x, goal.y))
    return Status::Invalid("nav sight: the goal (" + std::to_string(goal.x) + ", " + std::to_string(goal.y) + ") is " +
                           (grid.inside(goal.x, goal.y) ? "a blocked cell" : "outside the grid"));
  if (visible.size() != grid.cells())
    return Status::Invalid("nav sight: " + std::to_string(visible.size()) + " flags for " +
                           std::to_string(grid.cells()) + " cells");
  WM_RETURN_IF_ERROR(detail::resolve(ctx, variant));
#if WARPMIND_HAVE_CUDA
  if (variant == NavVariant::Gpu) {
    const Status st =
        gpu::nav_sight(ctx.stream(), grid.cost.data(), grid.width, grid.height, goal.x, goal.y, visible.data());
    return st.ok() ? st : st.context("nav sight");
  }
#endif
  ctx.pool().parallel_for(static_cast<std::size_t>(grid.height), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t y = b; y < e; ++y)
      for (int x = 0; x < grid.width; ++x)
        visible[grid.index(x, static_cast<int>(y))] = line_of_sight(grid, {x, static_cast<int>(y)}, goal) ? 1 : 0;
  });
  return Status::Ok();
}

namespace {

// The cell a field's direction steps to from c, or kNoWaypoint where it has none; `error` set where the
// step is not one of nav.h's fields' (off the grid, not allowed, not nearer).
std::uint32_t next_cell(const Grid& g, std::span<const float> distance, std::span<const std::int8_t> direction,
                        std::size_t c, bool& error) {
  const int k = direction[c];
  if (k == kNoDirection) {
    if (std::isfinite(distance[c]) && distance[c] != 0.0f) error = true;  // only a goal ends a path
    return kNoWaypoint;
  }
  const int x = static_cast<int>(c % static_cast<std::size_t>(g.width));
  const int y = static_cast<int>(c / static_cast<std::size_t>(g.width));
  if (k < 0 || k > 7 || !octile::allowed({g.cost.data(), g.width, g.height}, x, y, k)) {
    error = true;
    return kNoWaypoint;
  }
  const std::size_t n = g.index(x + octile::step_dx(k), y + octile::step_dy(k));
  if (!(distance[n] < distance[c])) error = true;
  return static_cast<std::uint32_t>(n);
}

}  // namespace

Status waypoints(Context& ctx, const Grid& grid, std::span<const float> distance,
                 std::span<const std::int8_t> direction, std::span<std::uint32_t> waypoint) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  const std::size_t cells = grid.cells();
  if (distance.size() != cells || direction.size() != cells || waypoint.size() != cells)
    return Status::Invalid("nav waypoints: the field and the waypoints must hold " + std::to_string(cells) +
                           " values each, got " + std::to_string(distance.size()) + ", " +
                           std::to_string(direction.size()) + " and " + std::to_string(waypoint.size()));
  std::vector<std::uint32_t> next(cells), order;
  bool error = false;
  for (std::size_t c = 0; c < cells; ++c) {
    next[c] = next_cell(grid, distance, direction, c, error);
    if (std::isfinite(distance[c])) {
      if (grid.cost[c] == kBlocked) error = true;
      order.push_back(static_cast<std::uint32_t>(c));
    } else if (direction[c] != kNoDirection) {
      error = true;
    }
  }
  if (error) return Status::Invalid("nav waypoints: the distances and directions are not a field of this grid");
  std::sort(order.begin(), order.end(), [&](std::uint32_t p, std::uint32_t q) {
    return distance[p] < distance[q] || (distance[p] == distance[q] && p < q);
  });
  std::vector<std::uint32_t> end(cells, kNoWaypoint), result(cells, kNoWaypoint);
  auto cell_of = [&](std::uint32_t c) {
    return Cell{static_cast<int>(c % static_cast<std::uint32_t>(grid.width)),
                static_cast<int>(c / static_cast<std::uint32_t>(grid.width))};
  };
  auto settle = [&](std::uint32_t c) {
    const std::uint32_t n = next[c];
    if (n == kNoWaypoint) {
      end[c] = result[c] = c;
      return;
    }
    end[c] = end[n];
    const Cell here = cell_of(c);
    if (line_of_sight(grid, here, cell_of(end[c])))
      result[c] = end[c];
    else if (line_of_sight(grid, here, cell_of(result[n])))
      result[c] = result[n];
    else
      result[c] = n;
  };
  // Groups of cells in distance order whose next cells all lie in earlier groups, each group in parallel
  // where it is large.
  constexpr std::size_t kParallel = 4096;
  std::size_t begin = 0;
  while (begin < order.size()) {
    const float start = distance[order[begin]];
    std::size_t end_group = begin + 1;
    while (end_group < order.size()) {
      const std::uint32_t n = next[order[end_group]];
      if (n != kNoWaypoint && !(distance[n] < start)) break;
      ++end_group;
    }
    if (end_group - begin >= kParallel) {
      ctx.pool().parallel_for(end_group - begin, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) settle(order[begin + i]);
      });
    } else {
      for (std::size_t i = begin; i < end_group; ++i) settle(order[i]);
    }
    begin = end_group;
  }
  std::copy(result.begin(), result.end(), waypoint.begin());
  return Status::Ok();
}

Status steer_to_waypoints(const Grid& grid, std::span<const float> distance, std::span<const std::uint32_t> waypoint,
                          std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  if (distance.size() != grid.cells() || waypoint.size() != grid.cells())
    return Status::Invalid("nav steer_to_waypoints: the field must hold " + std::to_string(grid.cells()) +
                           " distances and waypoints, got " + std::to_string(distance.size()) + " and " +
                           std::to_string(waypoint.size()));
  if (steer.size() != positions.size() || dist.size() != positions.size())
    return Status::Invalid("nav steer_to_waypoints: " + std::to_string(positions.size()) +
                           " positions need as many outputs");
  for (const std::uint32_t w : waypoint)
    if (w != kNoWaypoint && w >= grid.cells())
      return Status::Invalid("nav steer_to_waypoints: a waypoint is outside the grid");
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Vec2 p = positions[i];
    steer[i] = {0.0f, 0.0f};
    dist[i] = std::numeric_limits<float>::infinity();
    int x, y;
    if (!detail::cell_of(grid, p, x, y)) continue;
    const std::size_t c = grid.index(x, y);
    dist[i] = distance[c];
    const std::uint32_t w = waypoint[c];
    if (w == kNoWaypoint) continue;
    const float vx = static_cast<float>(w % static_cast<std::uint32_t>(grid.width)) + 0.5f - p.x;
    const float vy = static_cast<float>(w / static_cast<std::uint32_t>(grid.width)) + 0.5f - p.y;
    const float vxx = vx * vx, vyy = vy * vy;
    const float len = std::sqrt(vxx + vyy);
    if (len == 0.0f) continue;
    steer[i] = {vx / len, vy / len};
  }
  return Status::Ok();
}

}  // namespace warpmind::nav
