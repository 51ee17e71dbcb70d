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

// Squared single-precision distance, no fused multiply-add (the build turns contraction off). A point
// that is not finite conflicts with nobody (the contract: a non-finite proposal is its agent's verdict
// alone), so "closer than" is the test and NaN is never closer.
inline bool crowd_apart(Vec2 a, Vec2 b, float radius) {
  const float dx = a.x - b.x, dy = a.y - b.y, d = 2.0f * radius;
  return !(dx * dx + dy * dy < d * d);
}
// Agents of radii ra and rb: the sum of the radii apart.
inline bool crowd_apart(Vec2 a, Vec2 b, float ra, float rb) {
  const float dx = a.x - b.x, dy = a.y - b.y, d = ra + rb;
  return !(dx * dx + dy * dy < d * d);
}
// Agent i's radius (radii empty: every agent has the config's).
inline float crowd_radius(const crowd::CrowdConfig& c, std::span<const float> radii, std::size_t i) {
  return radii.empty() ? c.radius : radii[i];
}

// The obstacle cells a segment passes through, found differently from the solver's walk: every crossing of
// the segment with a grid line (in double, on the cell coordinates the contract computes in float), sorted;
// the cell at the middle of each stretch between crossings, the two end cells, and at a crossing through a
// corner both side cells. True if one of them is blocked.
inline bool crowd_segment_blocked(const crowd::CrowdConfig& c, Vec2 o, Vec2 p) {
  const crowd::ObstacleGrid& ob = c.obstacles;
  if (ob.width == 0) return false;
  const WorldRect& w = c.world;
  const float cw = w.width / static_cast<float>(ob.width), ch = w.height / static_cast<float>(ob.height);
  const double u0 = (o.x - w.x0) / cw, v0 = (o.y - w.y0) / ch, u1 = (p.x - w.x0) / cw, v1 = (p.y - w.y0) / ch;
  const auto cell = [&](double u, double v) {
    const int x = std::clamp(static_cast<int>(std::floor(u)), 0, ob.width - 1);
    const int y = std::clamp(static_cast<int>(std::floor(v)), 0, ob.height - 1);
    return ob.blocked[static_cast<std::size_t>(y) * static_cast<std::size_t>(ob.width) + static_cast<std::size_t>(x)] !=
           0;
  };
  const auto end_x = std::clamp(static_cast<int>(std::floor(u1)), 0, ob.width - 1);
  const auto end_y = std::clamp(static_cast<int>(std::floor(v1)), 0, ob.height - 1);
  const auto start_x = std::clamp(static_cast<int>(std::floor(u0)), 0, ob.width - 1);
  const auto start_y = std::clamp(static_cast<int>(std::floor(v0)), 0, ob.height - 1);
  if (cell(u0, v0) || cell(u1, v1)) return true;
  std::vector<double> tx, ty;  // crossings with the vertical and horizontal grid lines between the end cells
  for (int x = std::min(start_x, end_x) + 1; x <= std::max(start_x, end_x); ++x) tx.push_back((x - u0) / (u1 - u0));
  for (int y = std::min(start_y, end_y) + 1; y <= std::max(start_y, end_y); ++y) ty.push_back((y - v0) / (v1 - v0));
  std::vector<double> ts = tx;
  ts.insert(ts.end(), ty.begin(), ty.end());
  ts.push_back(0.0);
  ts.push_back(1.0);
  std::sort(ts.begin(), ts.end());
  for (std::size_t k = 0; k + 1 < ts.size(); ++k) {
    const double m = (ts[k] + ts[k + 1]) / 2;
    if (ts[k + 1] > ts[k] && cell(u0 + m * (u1 - u0), v0 + m * (v1 - v0))) return true;
  }
  // Corners: a vertical and a horizontal crossing at one parameter; both side cells count.
  for (double a : tx)
    for (double b : ty)
      if (a == b) {
        const double u = u0 + a * (u1 - u0), v = v0 + a * (v1 - v0);
        const double su = u1 > u0 ? 0.5 : -0.5, sv = v1 > v0 ? 0.5 : -0.5;
        if (cell(std::round(u) + su, std::round(v) - sv) || cell(std::round(u) - su, std::round(v) + sv)) return true;
      }
  return false;
}

// The verdict of agent i for old positions `old` and targets `p` (max_steps: each agent's limit, 0 or
// empty: none; radii: each agent's radius, empty: the config's).
inline crowd::Verdict crowd_verdict(const crowd::CrowdConfig& c, std::span<const Vec2> old, std::span<const Vec2> p,
                                    std::size_t i, std::span<const float> max_steps = {},
                                    std::span<const float> radii = {}) {
  using crowd::Verdict;
  if (p[i].x == old[i].x && p[i].y == old[i].y) return Verdict::Stayed;
  const WorldRect& w = c.world;
  // Inside the world: the centre on the half-open rectangle [x0, x0 + width) x [y0, y0 + height) (NaN is not).
  if (!(p[i].x >= w.x0 && p[i].x < w.x0 + w.width && p[i].y >= w.y0 && p[i].y < w.y0 + w.height))
    return Verdict::OutOfWorld;
  const float limit = max_steps.empty() || max_steps[i] == 0 ? c.max_step : max_steps[i];
  if (c.movement == crowd::CrowdMovement::AcceptReject && limit > 0) {
    const float dx = p[i].x - old[i].x, dy = p[i].y - old[i].y;
    if (dx * dx + dy * dy > limit * limit) return Verdict::TooFar;
  }
  if (crowd_segment_blocked(c, old[i], p[i])) return Verdict::Blocked;
  const float ri = crowd_radius(c, radii, i);
  for (std::size_t j = 0; j < old.size(); ++j) {
    if (j == i) continue;
    const float rj = crowd_radius(c, radii, j);
    if (!crowd_apart(p[i], old[j], ri, rj)) return Verdict::Collision;
    if ((c.rule == crowd::CrowdRule::Strict || j < i) && !crowd_apart(p[i], p[j], ri, rj)) return Verdict::Collision;
  }
  return Verdict::Moved;
}

inline std::vector<crowd::Verdict> crowd_verdicts(const crowd::CrowdConfig& c, std::span<const Vec2> old,
                                                  std::span<const Vec2> p, std::span<const float> max_steps = {},
                                                  std::span<const float> radii = {}) {
  std::vector<crowd::Verdict> v(old.size());
  for (std::size_t i = 0; i < old.size(); ++i) v[i] = crowd_verdict(c, old, p, i, max_steps, radii);
  return v;
}

// Avoid, brute force from the contract: agent i's target (its first free candidate, or its old position)
// and, when it has no free candidate, the verdict it gets instead (else nullopt).
struct AvoidChoice {
  Vec2 target;
  bool fallback = false;
  crowd::Verdict verdict = crowd::Verdict::Stayed;
};
inline AvoidChoice crowd_avoid_choice(const crowd::CrowdConfig& c, std::span<const Vec2> old,
                                      std::span<const Vec2> want, std::size_t i, float limit,
                                      std::span<const float> radii = {}) {
  const Vec2 o = old[i], p = want[i];
  if (!std::isfinite(p.x) || !std::isfinite(p.y)) return {o, true, crowd::Verdict::OutOfWorld};
  if (p.x == o.x && p.y == o.y) return {o};
  const float ri = crowd_radius(c, radii, i);
  const float dx = p.x - o.x, dy = p.y - o.y, len2 = dx * dx + dy * dy, len = std::sqrt(len2);
  const float step = len2 > limit * limit ? limit / len : 1.0f, ahead = (4.0f * ri) / len;
  // Who is tested at all (the contract's cut-off: r_i + R for the sum of two radii, 1.15 times it for an
  // agent followed).
  const float near = (len * step + (ri + c.radius) * 1.15f) * 1.01f;
  const float far = (4.0f * ri + (ri + c.radius)) * 1.01f;
  // (cos, sin, factor) in the contract's order of preference.
  constexpr float h = 0.866025404f, q = 0.707106781f;
  static constexpr float table[17][3] = {
      {1, 0, 1},        {h, -0.5f, 1},   {h, 0.5f, 1},     {1, 0, 0.5f},    {0.5f, -h, 1}, {0.5f, h, 1},
      {h, -0.5f, 0.5f}, {h, 0.5f, 0.5f}, {0.5f, -h, 0.5f}, {0.5f, h, 0.5f}, {0, -1, 1},    {0, 1, 1},
      {0, -1, 0.5f},    {0, 1, 0.5f},    {-q, -q, 0.5f},   {-q, q, 0.5f},   {-1, 0, 0.5f}};
  const WorldRect& w = c.world;
  // The segment a -> b keeps the sum of the radii of i and j from q (squared: times `spacing`).
  const auto keeps_apart = [&](Vec2 a, Vec2 b, Vec2 q, std::size_t j, float spacing = 1.0f) {
    const float two_r = ri + crowd_radius(c, radii, j);
    const float sx = b.x - a.x, sy = b.y - a.y, ss = sx * sx + sy * sy;
    const float wx = q.x - a.x, wy = q.y - a.y;
    const float s = std::clamp(ss > 0 ? (wx * sx + wy * sy) / ss : 0.0f, 0.0f, 1.0f);
    const float ex = q.x - (a.x + s * sx), ey = q.y - (a.y + s * sy);
    return ex * ex + ey * ey >= two_r * two_r * spacing;
  };
  crowd::Verdict straight = crowd::Verdict::Collision;
  int best = -1;
  std::size_t fewest = 0;
  Vec2 best_at{};
  for (int k = 0; k < 17; ++k) {
    const float cs = table[k][0], sn = table[k][1], f = table[k][2];
    const float sx = dx * step, sy = dy * step;
    const Vec2 t{o.x + (sx * cs - sy * sn) * f, o.y + (sx * sn + sy * cs) * f};
    const float ax = dx * ahead, ay = dy * ahead;
    const Vec2 look{o.x + (ax * cs - ay * sn), o.y + (ax * sn + ay * cs)};
    bool free = true;
    std::size_t in_the_way = 0;
    if (!(t.x >= w.x0 && t.x < w.x0 + w.width && t.y >= w.y0 && t.y < w.y0 + w.height)) {
      free = false;
      if (k == 0) straight = crowd::Verdict::OutOfWorld;
    } else if (crowd_segment_blocked(c, o, t)) {
      free = false;
      if (k == 0) straight = crowd::Verdict::Blocked;
    }
    for (std::size_t j = 0; free && j < old.size(); ++j) {
      if (j == i) continue;
      const float ex = old[j].x - o.x, ey = old[j].y - o.y, q2 = ex * ex + ey * ey;
      const bool going_my_way = dx * (want[j].x - old[j].x) + dy * (want[j].y - old[j].y) > 0.0f;
      // Followed: going this agent's way and ahead of it within 30 degrees of its wanted direction; a forward
      // candidate keeps 1.15 times the sum of the radii from it (1.3225 on the squares).
      const float along = dx * ex + dy * ey;
      const bool followed = going_my_way && along > 0.0f && along * along > 0.75f * (len2 * q2);
      if (q2 < near * near) free = keeps_apart(o, t, old[j], j, k < 14 && followed ? 1.3225f : 1.0f);
      // Agents not going this agent's way (and standing ones) are counted along the look-ahead.
      if (k < 14 && q2 < far * far && !going_my_way && !keeps_apart(o, look, old[j], j)) ++in_the_way;
    }
    const bool backing_off = k >= 14;  // only when no forward candidate is free
    if (free && (best < 0 || (!backing_off && in_the_way < fewest))) {
      best = k;
      fewest = in_the_way;
      best_at = t;
    }
  }
  if (best >= 0) return {best_at};
  return {o, true, straight};
}

// Avoid's verdicts and targets for every agent (max_steps: empty for the config's).
inline std::vector<crowd::Verdict> crowd_avoid_verdicts(const crowd::CrowdConfig& c, std::span<const Vec2> old,
                                                        std::span<const Vec2> want, std::vector<Vec2>& targets,
                                                        std::span<const float> max_steps = {},
                                                        std::span<const float> radii = {}) {
  std::vector<AvoidChoice> ch(old.size());
  targets.resize(old.size());
  for (std::size_t i = 0; i < old.size(); ++i) {
    const float limit = max_steps.empty() || max_steps[i] == 0 ? c.max_step : max_steps[i];
    ch[i] = crowd_avoid_choice(c, old, want, i, limit, radii);
    targets[i] = ch[i].target;
  }
  std::vector<crowd::Verdict> v(old.size());
  for (std::size_t i = 0; i < old.size(); ++i)
    v[i] = ch[i].fallback ? ch[i].verdict : crowd_verdict(c, old, targets, i, {}, radii);
  return v;
}

// Pairs of agents closer than the sum of their radii (squared float distance < (r_i + r_j)^2; radii empty:
// every agent has `radius`, the largest), counted with its own uniform grid of 2R cells over the agents'
// bounding box (a counting sort), agents checked in parallel on `pool`. O(N).
inline std::size_t crowd_overlaps(std::span<const Vec2> pos, std::span<const float> radii, float radius,
                                  ThreadPool& pool) {
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
            found += order[k] > i && !(radii.empty() ? crowd_apart(pos[i], pos[order[k]], radius)
                                                     : crowd_apart(pos[i], pos[order[k]], radii[i], radii[order[k]]));
    }
    per_worker[w] += found;
  });
  std::size_t total = 0;
  for (std::size_t f : per_worker) total += f;
  return total;
}

// Pairs closer than 2R.
inline std::size_t crowd_overlaps(std::span<const Vec2> pos, float radius, ThreadPool& pool) {
  return crowd_overlaps(pos, {}, radius, pool);
}
// Pairs closer than the sum of their radii (one per agent).
inline std::size_t crowd_overlaps(std::span<const Vec2> pos, std::span<const float> radii, ThreadPool& pool) {
  float largest = 0;
  for (float r : radii) largest = std::max(largest, r);
  return crowd_overlaps(pos, radii, largest, pool);
}

}  // namespace warpmind::oracle
