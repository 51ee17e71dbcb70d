// The CPU's field computation, shared by distance_fields (nav.cpp) and NavFields (nav_fields.cpp): the
// allowed steps, a heap of exact values, Dijkstra's algorithm from a goal, and the direction rule.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "nav/octile.h"
#include "warpmind/core/geometry.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav::detail {

using octile::Exact;
constexpr std::uint32_t kNone = octile::kUnreached;
inline bool reached(const Exact& e) { return e.a != kNone; }

static_assert(
    [] {
      for (int k = 0; k < 8; ++k)
        if (octile::step_dx(k) != kSteps[static_cast<std::size_t>(k)][0] ||
            octile::step_dy(k) != kSteps[static_cast<std::size_t>(k)][1])
          return false;
      return true;
    }(),
    "octile.h's steps are nav.h's kSteps");

inline octile::CostView view(const Grid& g) { return {g.cost.data(), g.width, g.height}; }
inline bool allowed(const Grid& g, int x, int y, int k) { return octile::allowed(view(g), x, y, k); }
inline bool diagonal(int k) { return octile::step_diagonal(k); }
inline std::size_t neighbour(const Grid& g, std::size_t c, int k) {
  const int x = static_cast<int>(c % static_cast<std::size_t>(g.width)) + kSteps[static_cast<std::size_t>(k)][0];
  const int y = static_cast<int>(c / static_cast<std::size_t>(g.width)) + kSteps[static_cast<std::size_t>(k)][1];
  return g.index(x, y);
}
inline int x_of(const Grid& g, std::size_t c) { return static_cast<int>(c % static_cast<std::size_t>(g.width)); }
inline int y_of(const Grid& g, std::size_t c) { return static_cast<int>(c / static_cast<std::size_t>(g.width)); }

struct Entry {
  Exact d;
  std::uint32_t cell;
};
// The heap's order (std::push_heap keeps the largest on top): x after y when larger, ties by cell.
inline bool after(const Entry& x, const Entry& y) {
  if (octile::less(y.d, x.d)) return true;
  if (octile::less(x.d, y.d)) return false;
  return x.cell > y.cell;
}
inline void push(std::vector<Entry>& heap, Exact d, std::size_t cell) {
  heap.push_back({d, static_cast<std::uint32_t>(cell)});
  std::push_heap(heap.begin(), heap.end(), after);
}
inline Entry pop(std::vector<Entry>& heap) {
  std::pop_heap(heap.begin(), heap.end(), after);
  const Entry e = heap.back();
  heap.pop_back();
  return e;
}

// Relaxes the neighbours u of a cell v just given its final value: u's walk through v costs v's value
// plus u's step into v. `accept(u, d)` says whether to take the candidate d for u (and push it).
template <class Accept>
void relax(const Grid& g, std::size_t v, const Exact& dv, std::vector<Exact>& exact, std::vector<Entry>& heap,
           Accept&& accept) {
  const int vx = x_of(g, v), vy = y_of(g, v);
  for (int k = 0; k < 8; ++k) {
    if (!allowed(g, vx, vy, k)) continue;
    const std::size_t u = neighbour(g, v, k);
    const Exact d = octile::plus_step(dv, diagonal(k), g.cost[v]);
    if (accept(u, d)) {
      exact[u] = d;
      push(heap, d, u);
    }
  }
}

// The whole field of a goal set (one goal, or the nearest of several): exact[c] for every cell (kNone
// where not reached), 0 on every goal. Returns the cells settled.
inline std::uint64_t solve(const Grid& g, std::span<const Cell> goals, std::vector<Exact>& exact,
                           std::vector<Entry>& heap) {
  exact.assign(g.cells(), Exact{kNone, kNone});
  heap.clear();
  for (const Cell& goal : goals) {
    const std::size_t start = g.index(goal.x, goal.y);
    if (reached(exact[start])) continue;  // a goal given twice
    exact[start] = Exact{};
    push(heap, Exact{}, start);
  }
  std::uint64_t settled = 0;
  while (!heap.empty()) {
    const Entry top = pop(heap);
    if (!octile::same(top.d, exact[top.cell])) continue;  // stale: the cell has a smaller value
    ++settled;
    relax(g, top.cell, top.d, exact, heap,
          [&](std::size_t u, const Exact& d) { return !reached(exact[u]) || octile::less(d, exact[u]); });
  }
  return settled;
}

// The direction rule (nav.h): the first allowed step to a neighbour on a least walk; none at a goal (no
// step costs 0) and where not reached.
inline std::int8_t direction_of(const Grid& g, const std::vector<Exact>& exact, std::size_t c) {
  return static_cast<std::int8_t>(
      octile::direction(view(g), x_of(g, c), y_of(g, c), exact[c], [&](int x, int y) { return exact[g.index(x, y)]; }));
}

// The component of `start` (the cells it reaches; steps are allowed both ways): every cell of it not yet
// labelled (kNone) gets `id` and is visited once, visit(c).
template <class Visit>
void flood_component(const Grid& g, std::size_t start, std::uint32_t id, std::vector<std::uint32_t>& label,
                     std::vector<std::uint32_t>& stack, Visit&& visit) {
  label[start] = id;
  stack.assign(1, static_cast<std::uint32_t>(start));
  while (!stack.empty()) {
    const std::uint32_t c = stack.back();
    stack.pop_back();
    visit(c);
    const int x = x_of(g, c), y = y_of(g, c);
    for (int k = 0; k < 8; ++k) {
      if (!allowed(g, x, y, k)) continue;
      const std::size_t n = neighbour(g, c, k);
      if (label[n] != kNone) continue;
      label[n] = id;
      stack.push_back(static_cast<std::uint32_t>(n));
    }
  }
}

// nav.h's steer rule, written once: the cell of a position (false outside the grid or not finite) and the
// unit vector of a direction ((0, 0) for none; a diagonal's components the float nearest 1 / sqrt(2)).
inline bool cell_of(const Grid& g, Vec2 p, int& x, int& y) {
  if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
  const float fx = std::floor(p.x), fy = std::floor(p.y);
  if (fx < 0 || fy < 0 || fx >= static_cast<float>(g.width) || fy >= static_cast<float>(g.height)) return false;
  x = static_cast<int>(fx);
  y = static_cast<int>(fy);
  return true;
}
inline Vec2 step_vector(int k) {
  if (k < 0 || k > 7) return {0.0f, 0.0f};
  constexpr float kDiagonal = 0.70710677f;  // the float nearest 1 / sqrt(2)
  const float unit = (k & 1) ? kDiagonal : 1.0f;
  return {static_cast<float>(kSteps[static_cast<std::size_t>(k)][0]) * unit,
          static_cast<float>(kSteps[static_cast<std::size_t>(k)][1]) * unit};
}

inline float distance_of(const Exact& e) {
  return reached(e) ? octile::to_float(e) : std::numeric_limits<float>::infinity();
}

}  // namespace warpmind::nav::detail
