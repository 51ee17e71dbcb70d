// Navigation fields on the CPU (contract in warpmind/nav/nav.h): Dijkstra's algorithm from each goal over
// the exact octile values (octile.h), the goals spread over the context's thread pool.
#include "warpmind/nav/nav.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "nav/octile.h"

namespace warpmind::nav {

namespace {

using octile::Exact;

struct Entry {
  Exact d;
  std::uint32_t cell;
};
// The heap's order (std::push_heap keeps the largest on top): x after y when it is larger, ties by cell.
bool after(const Entry& x, const Entry& y) {
  if (octile::less(y.d, x.d)) return true;
  if (octile::less(x.d, y.d)) return false;
  return x.cell > y.cell;
}

// Whether the step k from (x, y) is allowed: both cells passable, and for a diagonal both cells beside it.
bool allowed(const Grid& g, int x, int y, int k) {
  const int dx = kSteps[static_cast<std::size_t>(k)][0], dy = kSteps[static_cast<std::size_t>(k)][1];
  if (!g.passable(x, y) || !g.passable(x + dx, y + dy)) return false;
  return dx == 0 || dy == 0 || (g.passable(x + dx, y) && g.passable(x, y + dy));
}

// One worker's buffers, reused from goal to goal.
struct Scratch {
  std::vector<Exact> exact;
  std::vector<std::uint8_t> state;  // 0 not reached, 1 in the heap, 2 settled
  std::vector<Entry> heap;
};

std::uint64_t one_field(const Grid& g, Cell goal, float* dist, std::int8_t* dir, Scratch& s) {
  const std::size_t n = g.cells();
  s.exact.assign(n, Exact{});
  s.state.assign(n, 0);
  s.heap.clear();
  const std::uint32_t start = static_cast<std::uint32_t>(g.index(goal.x, goal.y));
  s.state[start] = 1;
  s.heap.push_back({Exact{}, start});
  std::uint64_t settled = 0;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), after);
    const Entry top = s.heap.back();
    s.heap.pop_back();
    if (s.state[top.cell] == 2 || !octile::same(top.d, s.exact[top.cell])) continue;  // settled, or stale
    s.state[top.cell] = 2;
    ++settled;
    const int vx = static_cast<int>(top.cell % static_cast<std::uint32_t>(g.width));
    const int vy = static_cast<int>(top.cell / static_cast<std::uint32_t>(g.width));
    // Every neighbour u whose step into v is allowed: u's walk through v costs v's plus the step into v.
    for (int k = 0; k < 8; ++k) {
      const int ux = vx + kSteps[static_cast<std::size_t>(k)][0], uy = vy + kSteps[static_cast<std::size_t>(k)][1];
      if (!allowed(g, vx, vy, k)) continue;  // allowed both ways (the same cells beside a diagonal)
      const std::size_t u = g.index(ux, uy);
      if (s.state[u] == 2) continue;
      const bool diagonal = k & 1;
      const Exact d = octile::plus_step(top.d, diagonal, g.cost[top.cell]);
      if (s.state[u] == 0 || octile::less(d, s.exact[u])) {
        s.exact[u] = d;
        s.state[u] = 1;
        s.heap.push_back({d, static_cast<std::uint32_t>(u)});
        std::push_heap(s.heap.begin(), s.heap.end(), after);
      }
    }
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (std::size_t c = 0; c < n; ++c) dist[c] = s.state[c] == 2 ? octile::to_float(s.exact[c]) : kInf;
  if (!dir) return settled;
  for (std::size_t c = 0; c < n; ++c) {
    dir[c] = kNoDirection;
    if (s.state[c] != 2 || c == start) continue;
    const int x = static_cast<int>(c % static_cast<std::size_t>(g.width));
    const int y = static_cast<int>(c / static_cast<std::size_t>(g.width));
    for (int k = 0; k < 8; ++k) {
      if (!allowed(g, x, y, k)) continue;
      const std::size_t m =
          g.index(x + kSteps[static_cast<std::size_t>(k)][0], y + kSteps[static_cast<std::size_t>(k)][1]);
      if (s.state[m] == 2 && octile::same(octile::plus_step(s.exact[m], k & 1, g.cost[m]), s.exact[c])) {
        dir[c] = static_cast<std::int8_t>(k);
        break;
      }
    }
  }
  return settled;
}

}  // namespace

Status distance_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                       std::span<std::int8_t> direction, FieldStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  WM_RETURN_IF_ERROR(check_grid(grid));
  const std::size_t cells = grid.cells();
  for (std::size_t g = 0; g < goals.size(); ++g)
    if (!grid.passable(goals[g].x, goals[g].y))
      return Status::Invalid("nav: goal " + std::to_string(g) + " at (" + std::to_string(goals[g].x) + ", " +
                             std::to_string(goals[g].y) + ") is " +
                             (grid.inside(goals[g].x, goals[g].y) ? "a blocked cell" : "outside the grid"));
  if (goals.size() > std::numeric_limits<std::size_t>::max() / cells || distance.size() != goals.size() * cells)
    return Status::Invalid("nav: " + std::to_string(distance.size()) + " distances for " +
                           std::to_string(goals.size()) + " goals of " + std::to_string(cells) + " cells");
  if (!direction.empty() && direction.size() != distance.size())
    return Status::Invalid("nav: " + std::to_string(direction.size()) + " directions for " +
                           std::to_string(distance.size()) + " cells of fields (give as many, or none)");
  ThreadPool& pool = ctx.pool();
  std::vector<Scratch> scratch(pool.size());
  std::atomic<std::uint64_t> settled{0};
  pool.parallel_for(goals.size(), [&](std::size_t b, std::size_t e, unsigned worker) {
    std::uint64_t mine = 0;
    for (std::size_t g = b; g < e; ++g)
      mine += one_field(grid, goals[g], distance.data() + g * cells,
                        direction.empty() ? nullptr : direction.data() + g * cells, scratch[worker]);
    settled += mine;
  });
  if (stats) {
    stats->settled = settled.load();
    stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return Status::Ok();
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
  constexpr float kDiagonal = 0.70710677f;  // the float nearest 1 / sqrt(2)
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Vec2 p = positions[i];
    steer[i] = {0.0f, 0.0f};
    dist[i] = std::numeric_limits<float>::infinity();
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const float fx = std::floor(p.x), fy = std::floor(p.y);
    if (fx < 0 || fy < 0 || fx >= static_cast<float>(grid.width) || fy >= static_cast<float>(grid.height)) continue;
    const std::size_t c = grid.index(static_cast<int>(fx), static_cast<int>(fy));
    dist[i] = distance[c];
    const int k = direction[c];
    if (k < 0 || k > 7) continue;
    const float unit = (k & 1) ? kDiagonal : 1.0f;
    steer[i] = {static_cast<float>(kSteps[static_cast<std::size_t>(k)][0]) * unit,
                static_cast<float>(kSteps[static_cast<std::size_t>(k)][1]) * unit};
  }
  return Status::Ok();
}

}  // namespace warpmind::nav
