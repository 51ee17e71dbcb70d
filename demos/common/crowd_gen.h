// Generated crowds shared by `warpmind crowd` and `warpmind-bench crowd`: a jittered lattice start
// (every pair >= 2R apart) and random moves reproducible from (seed, agent id, tick).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "warpmind/core/geometry.h"
#include "warpmind/core/random.h"
#include "warpmind/core/thread_pool.h"

namespace warpmind::demos {

// Lattice pitch = spacing * 2R; a square world just large enough for n agents.
inline WorldRect crowd_world(std::size_t n, float radius, float spacing) {
  const float pitch = spacing * 2.0f * radius;
  const float side = std::ceil(std::sqrt(static_cast<float>(std::max<std::size_t>(n, 1)))) * pitch + pitch;
  return {0.0f, 0.0f, side, side};
}

inline std::vector<Vec2> crowd_start(std::size_t n, float radius, float spacing, const WorldRect& w,
                                     std::uint64_t seed) {
  const float pitch = spacing * 2.0f * radius, jitter = (pitch - 2.0f * radius) * 0.5f * 0.99f;
  const std::size_t cols = static_cast<std::size_t>(std::floor((w.width - pitch * 0.5f) / pitch));
  SplitMix64 rng(seed);
  std::vector<Vec2> p;
  p.reserve(n);
  for (std::size_t k = 0; k < n && cols > 0; ++k) {
    const float x = w.x0 + pitch * (0.5f + static_cast<float>(k % cols));
    const float y = w.y0 + pitch * (0.5f + static_cast<float>(k / cols));
    if (y + pitch * 0.5f > w.y0 + w.height) break;
    p.push_back({x + rng.uniform(-jitter, jitter), y + rng.uniform(-jitter, jitter)});
  }
  return p;
}

// Agent i's proposal at `tick`: a uniform offset in the square [-step, step]^2 around its position.
inline void crowd_proposals(ThreadPool& pool, const std::vector<Vec2>& pos, float step, std::uint64_t seed,
                            std::uint64_t tick, std::vector<Vec2>& out) {
  out.resize(pos.size());
  pool.parallel_for(pos.size(), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) {
      SplitMix64 rng(seed ^ (i * 0x9E3779B97F4A7C15ull) ^ (tick << 40));
      out[i] = {pos[i].x + rng.uniform(-step, step), pos[i].y + rng.uniform(-step, step)};
    }
  }, 1 << 14);
}

}  // namespace warpmind::demos
