// Crowd scenarios: a CrowdConfig, the agents' start positions and how they propose moves each tick,
// read from JSON or generated.
//
// JSON (every key optional unless marked):
//   { "world": {"x0": 0, "y0": 0, "width": 100, "height": 100},
//     "radius": 0.5, "rule": "strict" | "lowest-id",
//     "movement": "accept-reject" | "avoid", "max_step": 0.25,               // CrowdConfig's
//     "obstacles": {"width": 100, "height": 100, "blocked": [[x, y], ...],    // cells of that grid
//                   "shapes": [{"rect": {"lo": {"x": 10, "y": 0}, "hi": {"x": 12, "y": 40}}},
//                              {"line": {"a": {"x": 0, "y": 50}, "b": {"x": 60, "y": 80}, "thickness": 1}},
//                              {"polygon": [{"x": 70, "y": 10}, {"x": 90, "y": 10}, {"x": 80, "y": 30}]}]},
//     "agents": [{"x": 1, "y": 2}, ...]                                        // or:
//     "generate": {"agents": 1000, "spacing": 1.25, "seed": 1},               // jittered lattice, or:
//     "standard": {"name": "bottleneck", "agents": 10000, "spacing": 0},       // standard_crowd_scenario
//     "moves": {"kind": "random" | "goal" | "goals", "step": 0.5, "seed": 1, "goal": {"x": 50, "y": 50},
//               "goals": [{"x": 1, "y": 2}, ...]},                                   // goals: one per agent
//     "exit_radius": 3 }                                   // agents leave within this of their goal (0: never)
// One of "agents", "generate" or "standard" is required. "standard" sets the whole scenario; "rule",
// "movement", "max_step" and "exit_radius" given beside it override its values, and "world", "radius",
// "obstacles", "agents", "generate" and "moves" may not be given with it. "goals" moves need "agents" or
// "generate" before them to count against. Errors name the file and field. "shapes" are walls in world
// units, each object exactly one of "rect", "line" (thickness 0 if absent) or "polygon", rasterised onto
// the obstacle grid over "world" by warpmind::world::WorldMap's rules (world_map.h: fill_rect,
// draw_line, fill_polygon) and added to the "blocked" cells; a shape WorldMap refuses (a polygon of fewer
// than 3 points, a negative thickness, ...) is an error naming it, and so is a grid of more than 2^28 cells
// with shapes.
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
//   Goals:  as Goal with agent i's own goal goals[i] (goals.size() == the agent count).
struct MoveSpec {
  enum class Kind { Random, Goal, Goals };
  Kind kind = Kind::Random;
  float step = 0.5f;       // random: largest offset per axis; goal: distance per tick   [Limit: >= 0]
  std::uint64_t seed = 1;  // random moves are reproducible from (seed, agent id, tick)
  Vec2 goal;
  std::vector<Vec2> goals;  // Goals
};

struct CrowdScenario {
  CrowdConfig config;
  std::vector<Vec2> start;
  MoveSpec moves;
  // Agents leave the scenario within exit_radius of their goal (> 0: the standard scenarios; 0: never).
  float exit_radius = 0.0f;
};

// The standard crowd scenarios of the benchmark, the demo and the tests (radius 0.5, Avoid, lowest-id,
// max_step 0.25 = R/2 a tick, Goals moves at that step, agents leaving at their goal):
//   "bottleneck"  n agents on a lattice of pitch 1.1 x 2R on the left of a one-cell wall across the world at
//                 x = W/2 with a gap of 8 (= 8 agent diameters) in its middle; every agent's goal is a
//                 point 20 past the gap, and it leaves 3.5 past the wall (exit_radius 16.5). The ideal flow through the gap
//                 at full speed and square packing: gap / 2R lanes x max_step / 2R agents a lane a tick
//                 = 2 agents a tick (bottleneck_ideal_flow).
//   "corridor"    two opposing flows of n/2 agents each, on a lattice of pitch 3 x 2R, in a corridor 12
//                 wide between two walls, each flow's goal the far end (exit_radius 3).
//   "crossing"    four flows of n/4 agents, square blocks on a lattice of pitch 5 x 2R, from the four
//                 sides of a square to the opposite side, crossing in the middle (exit_radius 3).
// spacing: the lattice's pitch in units of 2R, 0 for the scenario's own (1.1, 3 and 5 above), else in
// [1.05, 10] (the bottleneck's world and the corridor's length grow with it; a crossing's blocks too).
// Agents start at least 2R apart, in no blocked cell; goals are inside the world. The world grows with the
// agents and the pitch (in world units, 2R = 1: the bottleneck's about 2.7 sqrt(n) pitch x 0.75 sqrt(n)
// pitch, the corridor's (n / 2) / floor(12 / pitch) x pitch x 2 + 40 long, the crossing's side
// 3 sqrt(n / 4) pitch + 20); a world with a side over 65,536 (the obstacle grid's limit), or an obstacle
// grid (one cell per world unit: the bottleneck's and the corridor's) of more than 2^28 cells, is Invalid
// before anything is allocated — e.g. the corridor holds at most 87,329 agents at its own pitch, the
// bottleneck at pitch 10 about 1.3 million. Unknown name, more than 2^24 agents, a spacing out of range or
// not finite, a world too large: Invalid, out unchanged.
Status standard_crowd_scenario(std::string_view name, std::size_t agents, CrowdScenario& out, float spacing = 0.0f);
float bottleneck_ideal_flow(const CrowdScenario& bottleneck);  // agents a tick
// keep[i] = 0 for every agent within exit_radius of its goal (Goals moves), else 1; returns how many
// leave. Apply with CrowdSolver::retain, and compact moves.goals with compact_goals.
std::size_t exits(const CrowdScenario& s, std::span<const Vec2> positions, std::vector<std::uint8_t>& keep);
void compact_goals(MoveSpec& moves, std::span<const std::uint8_t> keep);
// Keeps v[i] where keep[i] != 0, in order (entries past keep.size() are dropped).
template <class T>
void compact(std::vector<T>& v, std::span<const std::uint8_t> keep) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < keep.size() && i < v.size(); ++i)
    if (keep[i]) v[w++] = v[i];
  v.resize(w);
}
// "Agents at their goal leave", whole: exits() on positions, then the goals and positions compacted
// alike. keep is left as exits() set it, for the solvers' retain() and the caller's other per-agent
// arrays (compact). Returns how many left (0: nothing changed).
std::size_t depart(CrowdScenario& s, std::vector<Vec2>& positions, std::vector<std::uint8_t>& keep);

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
