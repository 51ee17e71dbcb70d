// Brute-force crowd verdicts written straight from the rules in warpmind/crowd/crowd_solver.h, sharing
// no code with the solver: the independent reference of the crowd tests and of `warpmind-bench crowd`
// (every agent on small crowds, a sample of agents on large ones). O(N) per agent.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

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

}  // namespace warpmind::oracle
