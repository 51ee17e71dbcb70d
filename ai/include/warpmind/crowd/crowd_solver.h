// warpmind::crowd::CrowdSolver — collision-checked movement: agents never overlap.
//
// Agents are discs of radius R in a world rectangle, optionally with a static obstacle grid. Every tick
// each agent proposes a target; the solver decides which moves are accepted. An agent whose move is
// rejected stays where it was.
//
// Guarantees (every variant, every rule): after step() no two agents are closer than 2R (distance
// >= 2R), no agent stands in a blocked cell or outside the world, and every agent is either at its old
// position or at its proposal.
//
// Rules (CrowdRule), both order-free, so every variant returns identical verdicts on every machine:
//   Strict        the reference: agent i moves iff its target p_i is inside the world and not blocked,
//                 and for every other agent j: |p_i - o_j| >= 2R and |p_i - p_j| >= 2R (o = old positions,
//                 p = proposed targets, whether or not j's own move is accepted).
//   LowestIdWins  as Strict, but a target conflict with agent j only rejects i when j < i: of several
//                 agents that want the same spot, the lowest id may win. Accepts a superset of Strict's
//                 moves and still meets the guarantees (two accepted targets never conflict, and every
//                 accepted target keeps 2R from every old position). For lockstep games.
// Distances are compared as squared single-precision values computed without fused multiply-add, so
// CPU and GPU agree to the bit.
//
// The verdict of agent i, checked in this order (the first that applies):
//   Stayed       p_i == o_i (both coordinates equal as floats);
//   OutOfWorld   the centre p_i is not on the half-open world [x0, x1) x [y0, y1), x1 = x0 + width and
//                y1 = y0 + height computed in float (so the edge is the float sum: x0 = 1, width = 2^24
//                gives x1 = 2^24, not 2^24 + 1); the disc may stick out of the world, only the centre counts;
//   Blocked      the centre's obstacle cell is blocked: with cw = width / obstacles.width and
//                ch = height / obstacles.height (floats), cell (floor((p.x - x0) / cw),
//                floor((p.y - y0) / ch)), each index clamped into [0, cells - 1] (a point on a cell
//                boundary belongs to the cell above it; the clamp only matters just below x1 or y1, where
//                the float quotient can round up to the cell count);
//   Collision    |p_i - o_j| < 2R or (under the rule) |p_i - p_j| < 2R for some j != i;
//   Moved        otherwise.
//
// Cost: a uniform grid of 2R cells; O(N) per tick plus the neighbours within 2R. State (positions) is
// kept by the solver across ticks (on the device for GPU variants); no allocation per tick once the
// capacities have grown.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"

namespace warpmind::crowd {

enum class CrowdVariant {
  Auto,           // gpu-static-grid on a CUDA context, cpu-reference on a CPU one
  CpuReference,   // uniform grid (counting sort into 2R cells), agents checked in parallel on the pool
  GpuSort,        // the seed's baseline: hash to cells, CUB radix sort, cell ranges, check neighbours
  GpuTiled,       // the seed's improved baseline: the same sort, tiles of cells staged in shared memory
  GpuStaticGrid,  // the seed's sort-free algorithm: cells < 2R/sqrt(2) hold one agent, tagged slots instead of
                  // clearing, three kernels; exact for both rules (see docs/crowd.md); at most 2^27 agents
};
const char* variant_name(CrowdVariant v);
bool parse_variant(std::string_view name, CrowdVariant& out);
bool is_gpu_variant(CrowdVariant v);

enum class CrowdRule { Strict, LowestIdWins };
const char* rule_name(CrowdRule r);
bool parse_rule(std::string_view name, CrowdRule& out);  // "strict" | "lowest-id"

enum class Verdict : std::uint8_t {
  Moved = 0,       // at its proposal
  Stayed = 1,      // proposal was its old position
  OutOfWorld = 2,  // target outside the world: stays
  Blocked = 3,     // target in a blocked obstacle cell: stays
  Collision = 4,   // target too close to another agent's old position or target: stays
};

// Static obstacles: a width x height grid laid over the world; blocked[y * width + x] != 0 blocks.
struct ObstacleGrid {
  int width = 0, height = 0;  // 0: no obstacles
  std::vector<std::uint8_t> blocked;
};

struct CrowdConfig {
  WorldRect world;
  float radius = 0.5f;  // agent radius, world units [Limit: > 0]
  ObstacleGrid obstacles;
  CrowdRule rule = CrowdRule::Strict;
  CrowdVariant variant = CrowdVariant::Auto;
};

struct StepStats {  // verdicts of the last step(), one count per Verdict; they sum to size()
  std::size_t moved = 0, stayed = 0, out_of_world = 0, blocked = 0, collisions = 0;
};

// Blocking: create, reset, retain, step, fetch_stats and the read_* calls return when their work is done
// and their results are in host memory (GPU variants included); step_device is stream-ordered (below).
// Not thread-safe: one thread at a time per solver. The Context must outlive the solver.
class CrowdSolver {
 public:
  static Status create(Context& ctx, const CrowdConfig& config, std::unique_ptr<CrowdSolver>& out);
  ~CrowdSolver();

  // Sets the agents (ids 0..n-1). Rejects, naming the first offender, positions that are not finite,
  // outside the world, in a blocked cell, or closer than 2R to another agent; nothing changes then.
  Status reset(std::span<const Vec2> positions);
  // Removes the agents whose keep[i] is 0 (keep.size() must be size()); the others keep their order and
  // are renumbered 0..m-1. Removing agents cannot break the guarantees, so nothing is re-validated (cheap
  // where reset() checks every pair). On error nothing changes.
  Status retain(std::span<const std::uint8_t> keep);
  // GPU variants: the same with the flags in device memory (size() bytes, e.g. combat::Volleys::
  // device_keep()), ordered on the context's stream after the work that wrote them; `kept` is the number
  // of set flags (the caller knows it; not counted here). Blocks until done.
  Status retain_device(const std::uint8_t* device_keep, std::size_t kept);
  // One tick: proposals[i] is agent i's target. Rejects non-finite proposals or a wrong count (nothing
  // changes). Afterwards positions() holds the new positions and verdicts() the verdicts.
  Status step(std::span<const Vec2> proposals);
  // GPU variants: proposals already in device memory (n Vec2). Queued on the context's stream without
  // waiting and without validation (a non-finite proposal is rejected as outside the world); the
  // verdict counts are fetched by fetch_stats() (which waits for the stream). The proposals must stay
  // allocated until the stream has run the step. For a simulation that lives on the GPU, e.g. proposals
  // from FieldLayers::best_move_device on device_positions().
  Status step_device(const Vec2* device_proposals);
  Status fetch_stats();
  // GPU variants: the state in device memory (nullptr on the CPU variant), current in the order of the
  // context's stream (read it there, or after ctx.synchronize()). The pointers stay valid across step(),
  // step_device() and retain(); a reset() that grows the agent count beyond what was ever allocated may
  // move them (fetch them again after a reset), and destroying the solver frees them.
  const Vec2* device_positions() const;
  const Verdict* device_verdicts() const;

  std::size_t size() const { return count_; }
  Status read_positions(std::span<Vec2> out) const;
  Status read_verdicts(std::span<Verdict> out) const;
  const StepStats& last_stats() const { return stats_; }
  CrowdVariant variant() const { return variant_; }
  const CrowdConfig& config() const { return config_; }

  struct Impl;

 private:
  CrowdSolver() = default;
  Context* ctx_ = nullptr;
  CrowdConfig config_;
  CrowdVariant variant_ = CrowdVariant::Auto;
  std::size_t count_ = 0;
  StepStats stats_;
  std::unique_ptr<Impl> impl_;
};

// Pairs of agents closer than 2R (0 for a valid state). O(N) with a uniform grid.
std::size_t count_overlaps(std::span<const Vec2> positions, float radius);

}  // namespace warpmind::crowd
