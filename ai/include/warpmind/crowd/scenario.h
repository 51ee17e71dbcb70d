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
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/thread_pool.h"
#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd {

struct MoveSpec {
  enum class Kind { Random, Goal };
  Kind kind = Kind::Random;
  float step = 0.5f;        // random: largest offset per axis; goal: distance per tick
  std::uint64_t seed = 1;   // random moves are reproducible from (seed, agent id, tick)
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
// Every agent's proposal for `tick`.
void make_proposals(const MoveSpec& moves, ThreadPool& pool, std::span<const Vec2> positions, std::uint64_t tick,
                    std::vector<Vec2>& out);

Status parse_crowd_scenario(std::string_view json_text, const std::string& source, CrowdScenario& out);
Status load_crowd_scenario(const std::string& path, CrowdScenario& out);

}  // namespace warpmind::crowd
