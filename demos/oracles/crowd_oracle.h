// Brute-force crowd verdicts written straight from the rules in warpmind/crowd/crowd_solver.h, sharing
// no code with the solver: the independent reference of the crowd tests and of `warpmind-bench crowd`
// (every agent on small crowds, a sample of agents on large ones). O(N) per agent.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "warpmind/core/thread_pool.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::oracle {

// Squared single-precision distance, no fused multiply-add (the build turns contraction off).
inline bool crowd_apart(Vec2 a, Vec2 b, float radius) {
  const float dx = a.x - b.x, dy = a.y - b.y, d = 2.0f * radius;
  return dx * dx + dy * dy >= d * d;
}

// The verdict of agent i for old positions `old` and proposals `p`.
inline crowd::Verdict crowd_verdict(const crowd::CrowdConfig& c, std::span<const Vec2> old, std::span<const Vec2> p,
                                    std::size_t i) {
  using crowd::Verdict;
  if (p[i].x == old[i].x && p[i].y == old[i].y) return Verdict::Stayed;
  const WorldRect& w = c.world;
  // Inside the world: the centre on the half-open rectangle [x0, x0 + width) x [y0, y0 + height).
  if (!(p[i].x >= w.x0 && p[i].x < w.x0 + w.width && p[i].y >= w.y0 && p[i].y < w.y0 + w.height))
    return Verdict::OutOfWorld;
  if (c.obstacles.width > 0) {
    const float cw = w.width / static_cast<float>(c.obstacles.width);
    const float ch = w.height / static_cast<float>(c.obstacles.height);
    const int cx = std::clamp(static_cast<int>(std::floor((p[i].x - w.x0) / cw)), 0, c.obstacles.width - 1);
    const int cy = std::clamp(static_cast<int>(std::floor((p[i].y - w.y0) / ch)), 0, c.obstacles.height - 1);
    if (c.obstacles.blocked[static_cast<std::size_t>(cy) * static_cast<std::size_t>(c.obstacles.width) +
                            static_cast<std::size_t>(cx)])
      return Verdict::Blocked;
  }
  for (std::size_t j = 0; j < old.size(); ++j) {
    if (j == i) continue;
    if (!crowd_apart(p[i], old[j], c.radius)) return Verdict::Collision;
    if ((c.rule == crowd::CrowdRule::Strict || j < i) && !crowd_apart(p[i], p[j], c.radius)) return Verdict::Collision;
  }
  return Verdict::Moved;
}

inline std::vector<crowd::Verdict> crowd_verdicts(const crowd::CrowdConfig& c, std::span<const Vec2> old,
                                                  std::span<const Vec2> p) {
  std::vector<crowd::Verdict> v(old.size());
  for (std::size_t i = 0; i < old.size(); ++i) v[i] = crowd_verdict(c, old, p, i);
  return v;
}

// Pairs of agents closer than 2R (squared float distance < (2R)^2), counted with its own uniform grid of
// 2R cells over the agents' bounding box (a counting sort), agents checked in parallel on `pool`. O(N).
inline std::size_t crowd_overlaps(std::span<const Vec2> pos, float radius, ThreadPool& pool) {
  const std::size_t n = pos.size();
  if (n < 2) return 0;
  double lo_x = pos[0].x, lo_y = pos[0].y, hi_x = lo_x, hi_y = lo_y;
  for (const Vec2& q : pos) {
    lo_x = std::min<double>(lo_x, q.x), hi_x = std::max<double>(hi_x, q.x);
    lo_y = std::min<double>(lo_y, q.y), hi_y = std::max<double>(hi_y, q.y);
  }
  const double side = 2.0 * static_cast<double>(radius);
  // At most ~4N cells: widen them when the agents are spread thinly (any side >= 2R finds every pair).
  double cell = side;
  while ((hi_x - lo_x) / cell * ((hi_y - lo_y) / cell) > 4.0 * static_cast<double>(n) + 16.0) cell *= 2.0;
  const std::size_t cols = static_cast<std::size_t>((hi_x - lo_x) / cell) + 1;
  const std::size_t rows = static_cast<std::size_t>((hi_y - lo_y) / cell) + 1;
  const auto cx = [&](const Vec2& q) { return std::min(cols - 1, static_cast<std::size_t>((q.x - lo_x) / cell)); };
  const auto cy = [&](const Vec2& q) { return std::min(rows - 1, static_cast<std::size_t>((q.y - lo_y) / cell)); };
  std::vector<std::uint32_t> start(cols * rows + 1, 0), order(n);
  for (const Vec2& q : pos) ++start[cy(q) * cols + cx(q) + 1];
  for (std::size_t c = 0; c < cols * rows; ++c) start[c + 1] += start[c];
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) order[fill[cy(pos[i]) * cols + cx(pos[i])]++] = static_cast<std::uint32_t>(i);
  std::vector<std::size_t> per_worker(pool.size(), 0);
  pool.parallel_for(n, [&](std::size_t b, std::size_t e, unsigned w) {
    std::size_t found = 0;
    for (std::size_t i = b; i < e; ++i) {
      const std::size_t x = cx(pos[i]), y = cy(pos[i]);
      for (std::size_t yy = y > 0 ? y - 1 : 0; yy <= std::min(rows - 1, y + 1); ++yy)
        for (std::size_t xx = x > 0 ? x - 1 : 0; xx <= std::min(cols - 1, x + 1); ++xx)
          for (std::uint32_t k = start[yy * cols + xx]; k < start[yy * cols + xx + 1]; ++k)
            found += order[k] > i && !crowd_apart(pos[i], pos[order[k]], radius);
    }
    per_worker[w] += found;
  });
  std::size_t total = 0;
  for (std::size_t f : per_worker) total += f;
  return total;
}

}  // namespace warpmind::oracle
