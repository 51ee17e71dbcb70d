// Navigation fields on the CPU (contract in warpmind/nav/nav.h): Dijkstra's algorithm from each goal over
// the exact octile values (octile.h), the goals spread over the context's thread pool.
#include "warpmind/nav/nav.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/names.h"
#include "nav/dijkstra.h"
#include "nav/variant.h"

#if WARPMIND_HAVE_CUDA
#include "nav/nav_device.h"
#endif

namespace warpmind::nav {

namespace {

constexpr warpmind::detail::Named<NavVariant> kVariants[] = {
    {NavVariant::Auto, "auto"}, {NavVariant::Cpu, "cpu"}, {NavVariant::Gpu, "gpu"}};

// One worker's buffers, reused from goal to goal.
struct Scratch {
  std::vector<detail::Exact> exact;
  std::vector<detail::Entry> heap;
};

// One field of a goal set into dist (and dir, unless null).
std::uint64_t one_field(const Grid& g, std::span<const Cell> goals, float* dist, std::int8_t* dir, Scratch& s) {
  const std::uint64_t settled = detail::solve(g, goals, s.exact, s.heap);
  for (std::size_t c = 0; c < g.cells(); ++c) {
    dist[c] = detail::distance_of(s.exact[c]);
    if (dir) dir[c] = detail::direction_of(g, s.exact, c);
  }
  return settled;
}

// The checks both calls share: the grid, every goal a passable cell, `fields` fields of the grid in
// `distance`, and as many directions or none.
Status check_call(const Grid& grid, std::span<const Cell> goals, std::size_t fields, std::span<float> distance,
                  std::span<std::int8_t> direction) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  const std::size_t cells = grid.cells();
  for (std::size_t g = 0; g < goals.size(); ++g)
    if (!grid.passable(goals[g].x, goals[g].y))
      return Status::Invalid("nav: goal " + std::to_string(g) + " at (" + std::to_string(goals[g].x) + ", " +
                             std::to_string(goals[g].y) + ") is " +
                             (grid.inside(goals[g].x, goals[g].y) ? "a blocked cell" : "outside the grid"));
  if (fields > std::numeric_limits<std::size_t>::max() / cells || distance.size() != fields * cells)
    return Status::Invalid("nav: " + std::to_string(distance.size()) + " distances for " + std::to_string(fields) +
                           " fields of " + std::to_string(cells) + " cells");
  if (!direction.empty() && direction.size() != distance.size())
    return Status::Invalid("nav: " + std::to_string(direction.size()) + " directions for " +
                           std::to_string(distance.size()) + " cells of fields (give as many, or none)");
  return Status::Ok();
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

#if WARPMIND_HAVE_CUDA
// The fields of goal sets on the device: set g's goals are goals[first[g] .. first[g + 1]) (first empty:
// one goal a field).
Status gpu_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<const std::size_t> first,
                  std::size_t fields, std::span<float> distance, std::span<std::int8_t> direction, FieldStats& stats) {
  std::vector<std::uint32_t> cells(goals.size());
  for (std::size_t g = 0; g < goals.size(); ++g)
    cells[g] = static_cast<std::uint32_t>(grid.index(goals[g].x, goals[g].y));
  std::unique_ptr<gpu::NavDevice> device;
  Status err = gpu::NavDevice::create(ctx.stream(), device);
  if (!err.ok()) return err.context("nav");
  gpu::NavRun run;
  err = device->fields(grid.cost.data(), grid.width, grid.height, cells.data(), first.empty() ? nullptr : first.data(),
                       fields, distance.data(), direction.empty() ? nullptr : direction.data(), run);
  if (!err.ok()) return err.context("nav");
  stats.settled = run.reached;
  stats.device_ms = run.device_ms;
  stats.tiles_relaxed = run.relaxed;
  return Status::Ok();
}
#endif

}  // namespace

const char* variant_name(NavVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, NavVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
}

namespace {

// The fields of goal sets, both calls': set g is goals[first[g] .. first[g + 1]) (first empty: one goal
// a field), `fields` of them.
Status goal_sets(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<const std::size_t> first,
                 std::size_t fields, std::span<float> distance, std::span<std::int8_t> direction, FieldStats* stats,
                 NavVariant variant) {
  const auto t0 = std::chrono::steady_clock::now();
  WM_RETURN_IF_ERROR(check_call(grid, goals, fields, distance, direction));
  WM_RETURN_IF_ERROR(detail::resolve(ctx, variant));
  FieldStats local;
  FieldStats& st = stats ? *stats : local;
  st = FieldStats{};
#if WARPMIND_HAVE_CUDA
  if (variant == NavVariant::Gpu) {
    WM_RETURN_IF_ERROR(gpu_fields(ctx, grid, goals, first, fields, distance, direction, st));
    st.ms = ms_since(t0);
    return Status::Ok();
  }
#endif
  const std::size_t cells = grid.cells();
  ThreadPool& pool = ctx.pool();
  std::vector<Scratch> scratch(pool.size());
  std::atomic<std::uint64_t> settled{0};
  pool.parallel_for(fields, [&](std::size_t b, std::size_t e, unsigned worker) {
    std::uint64_t mine = 0;
    for (std::size_t g = b; g < e; ++g)
      mine += one_field(grid, first.empty() ? goals.subspan(g, 1) : goals.subspan(first[g], first[g + 1] - first[g]),
                        distance.data() + g * cells, direction.empty() ? nullptr : direction.data() + g * cells,
                        scratch[worker]);
    settled += mine;
  });
  st.settled = settled.load();
  st.ms = ms_since(t0);
  return Status::Ok();
}

// Unreachable::NearestCell for one field computed into dist (and dir, unless null) for `goals`: every
// component of passable cells the field did not reach gets the field of its substitute goal (nav.h), all
// of them in one goal-set field (no component reaches another's substitute).
Status fill_unreached(Context& ctx, const Grid& grid, std::span<const Cell> goals, float* dist, std::int8_t* dir,
                      FieldStats& stats, NavVariant variant) {
  if (goals.empty()) return Status::Ok();  // no goal: +infinity everywhere, as without the option
  const std::size_t cells = grid.cells();
  constexpr std::uint32_t kFree = detail::kNone;
  std::vector<std::uint32_t> component(cells, kFree);
  std::vector<Cell> substitutes;
  std::vector<std::uint32_t> stack;
  for (std::size_t start = 0; start < cells; ++start) {
    if (grid.cost[start] == kBlocked || std::isfinite(dist[start]) || component[start] != kFree) continue;
    std::int64_t best_d2 = std::numeric_limits<std::int64_t>::max();
    std::uint32_t best = 0;
    detail::flood_component(grid, start, static_cast<std::uint32_t>(substitutes.size()), component, stack,
                            [&](std::uint32_t c) {
                              const int x = detail::x_of(grid, c), y = detail::y_of(grid, c);
                              std::int64_t d2 = std::numeric_limits<std::int64_t>::max();
                              for (const Cell& g : goals) {
                                const std::int64_t dx = x - g.x, dy = y - g.y;
                                d2 = std::min(d2, dx * dx + dy * dy);
                              }
                              if (d2 < best_d2 || (d2 == best_d2 && c < best)) best_d2 = d2, best = c;
                            });
    substitutes.push_back({detail::x_of(grid, best), detail::y_of(grid, best)});
  }
  if (substitutes.empty()) return Status::Ok();
  std::vector<float> sub_dist(cells);
  std::vector<std::int8_t> sub_dir(dir ? cells : 0);
  FieldStats sub;
  const std::size_t first[2] = {0, substitutes.size()};
  WM_RETURN_IF_ERROR(goal_sets(ctx, grid, substitutes, first, 1, sub_dist, sub_dir, &sub, variant));
  for (std::size_t c = 0; c < cells; ++c) {
    if (component[c] == kFree) continue;
    dist[c] = sub_dist[c];
    if (dir) dir[c] = sub_dir[c];
  }
  stats.settled += sub.settled;
  stats.device_ms += sub.device_ms;
  stats.tiles_relaxed += sub.tiles_relaxed;
  return Status::Ok();
}

Status with_options(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<const std::size_t> first,
                    std::size_t fields, std::span<float> distance, std::span<std::int8_t> direction,
                    const FieldOptions& options, FieldStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  FieldStats local;
  FieldStats& st = stats ? *stats : local;
  if (options.unreachable != Unreachable::Infinity && options.unreachable != Unreachable::NearestCell)
    return Status::Invalid("nav: unknown Unreachable option");
  WM_RETURN_IF_ERROR(goal_sets(ctx, grid, goals, first, fields, distance, direction, &st, options.variant));
  if (options.unreachable == Unreachable::NearestCell) {
    NavVariant variant = options.variant;
    WM_RETURN_IF_ERROR(detail::resolve(ctx, variant));
    const std::size_t cells = grid.cells();
    for (std::size_t f = 0; f < fields; ++f)
      WM_RETURN_IF_ERROR(fill_unreached(
          ctx, grid, first.empty() ? goals.subspan(f, 1) : goals.subspan(first[f], first[f + 1] - first[f]),
          distance.data() + f * cells, direction.empty() ? nullptr : direction.data() + f * cells, st, variant));
  }
  st.ms = ms_since(t0);
  return Status::Ok();
}

}  // namespace

Status distance_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                       std::span<std::int8_t> direction, FieldStats* stats, NavVariant variant) {
  return goal_sets(ctx, grid, goals, {}, goals.size(), distance, direction, stats, variant);
}

Status goal_set_field(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                      std::span<std::int8_t> direction, FieldStats* stats, NavVariant variant) {
  const std::size_t first[2] = {0, goals.size()};
  return goal_sets(ctx, grid, goals, first, 1, distance, direction, stats, variant);
}

Status distance_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                       std::span<std::int8_t> direction, const FieldOptions& options, FieldStats* stats) {
  return with_options(ctx, grid, goals, {}, goals.size(), distance, direction, options, stats);
}

Status goal_set_field(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                      std::span<std::int8_t> direction, const FieldOptions& options, FieldStats* stats) {
  const std::size_t first[2] = {0, goals.size()};
  return with_options(ctx, grid, goals, first, 1, distance, direction, options, stats);
}

Status steer(const Grid& grid, std::span<const float> distance, std::span<const std::int8_t> direction,
             std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  if (distance.size() != grid.cells() || direction.size() != grid.cells())
    return Status::Invalid("nav steer: the field must hold " + std::to_string(grid.cells()) +
                           " distances and directions, got " + std::to_string(distance.size()) + " and " +
                           std::to_string(direction.size()));
  if (steer.size() != positions.size() || dist.size() != positions.size())
    return Status::Invalid("nav steer: " + std::to_string(positions.size()) + " positions need as many outputs");
  for (std::size_t i = 0; i < positions.size(); ++i) {
    steer[i] = {0.0f, 0.0f};
    dist[i] = std::numeric_limits<float>::infinity();
    int x, y;
    if (!detail::cell_of(grid, positions[i], x, y)) continue;
    const std::size_t c = grid.index(x, y);
    dist[i] = distance[c];
    steer[i] = detail::step_vector(direction[c]);
  }
  return Status::Ok();
}

}  // namespace warpmind::nav
