// Crowd scenarios: a CrowdConfig, the agents' start positions and how they propose moves each tick,
// read from JSON or generated.
//
// JSON (every key optional unless marked):
//   { "world": {"x0": 0, "y0": 0, "width": 100, "height": 100},
//     "radius": 0.5, "rule": "strict" | "lowest-id",
//     "obstacles": {"width": 100, "height": 100, "blocked": [[x, y], ...]},   // cells of that grid
//     "agents": [{"x": 1, "y": 2}, ...]                                        // or:
//     "generate": {"agents": 1000, "spacing": 1.25, "seed": 1},               // jittered lattice
//     "moves": {"kind": "random" | "goal", "step": 0.5, "seed": 1, "goal": {"x": 50, "y": 50}} }
// One of "agents" or "generate" is required. Errors name the file and field.
// Keys other than those shown are errors that name them ("comment", at the top level, is allowed and
// ignored); a number a double cannot hold (1e400) is an error; nothing throws.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/thread_pool.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd {

// How agents propose moves (make_proposals), in float without fused multiply-add. For agent i at p in
// tick t:
//   Random: per axis, independently, an offset uniform on [-step, step): with
//           SplitMix64 rng(seed ^ (i * 0x9E3779B97F4A7C15) ^ (t << 40))   (64-bit wrap-around)
//           the proposal is (p.x + rng.uniform(-step, step), p.y + rng.uniform(-step, step)), x drawn
//           first; uniform(lo, hi) = lo + (hi - lo) * u with u = (next() >> 40) * 2^-24 (core/random.h).
//           So a square, not a disc, and reproducible from (seed, agent id, tick) alone: no dependence
//           on the thread count or on the other agents.
//   Goal:   d = (goal.x - p.x, goal.y - p.y), |d| = sqrtf(d.x * d.x + d.y * d.y);
//           |d| <= step: the proposal is the goal itself, exactly (an agent on the goal proposes to stay);
//           |d| >  step: k = step / |d| and the proposal is (p.x + d.x * k, p.y + d.y * k), about `step`
//                        from p towards the goal (rounding aside).
struct MoveSpec {
  enum class Kind { Random, Goal };
  Kind kind = Kind::Random;
  float step = 0.5f;       // random: largest offset per axis; goal: distance per tick   [Limit: >= 0]
  std::uint64_t seed = 1;  // random moves are reproducible from (seed, agent id, tick)
  Vec2 goal;
};

struct CrowdScenario {
  CrowdConfig config;
  std::vector<Vec2> start;
  MoveSpec moves;
};

// A square world just large enough for n agents on a lattice of pitch spacing * 2R.
WorldRect lattice_world(std::size_t n, float radius, float spacing);
// Up to n agents on a jittered lattice of pitch spacing * 2R (>= 2R apart), skipping blocked cells.
std::vector<Vec2> lattice_start(std::size_t n, float radius, float spacing, const CrowdConfig& config,
                                std::uint64_t seed);
// Every agent's proposal for `tick` (see MoveSpec); out is resized to positions.size().
void make_proposals(const MoveSpec& moves, ThreadPool& pool, std::span<const Vec2> positions, std::uint64_t tick,
                    std::vector<Vec2>& out);

Status parse_crowd_scenario(std::string_view json_text, const std::string& source, CrowdScenario& out);
Status load_crowd_scenario(const std::string& path, CrowdScenario& out);

}  // namespace warpmind::crowd
