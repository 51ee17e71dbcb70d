// warpmind::crowd::CrowdSolver — collision-checked movement: agents never overlap, never cross a wall.
//
// Agents are discs in a world rectangle, optionally with a static obstacle grid: every agent of radius R
// (CrowdConfig::radius), or each of its own radius r_i in [min_radius, R] (below). Every tick
// each agent proposes a target; the solver decides where each one goes. Two movement modes:
//   AcceptReject  (the seed's experiment) a move is accepted as proposed or rejected; a rejected agent
//                 stays where it was.
//   Avoid         the proposal is where the agent wants to go: the solver moves it up to its maximum
//                 step towards it, and when the straight move is refused it slides or sidesteps to the
//                 best free one of 17 fixed candidates (below); an agent with no free candidate stays.
//
// Guarantees (every variant, rule and mode): after step() no two agents are closer than 2R (distance >= 2R; with
// per-agent radii, than r_i + r_j: read "2R" below as that sum for the pair), no agent stands in a blocked cell or
// outside the world, no accepted move passes through a blocked cell, and every agent is at its old position or at its
// proposal (AcceptReject) or at one of its candidates (Avoid).
//
// Rules (CrowdRule), both order-free, so every variant returns identical verdicts on every machine:
//   Strict        the reference: agent i moves iff its target p_i passes the static tests below, and for
//                 every other agent j: |p_i - o_j| >= 2R and |p_i - p_j| >= 2R (o = old positions,
//                 p = targets, whether or not j's own move is accepted).
//   LowestIdWins  as Strict, but a target conflict with agent j only rejects i when j < i: of several
//                 agents that want the same spot, the lowest id may win. Accepts a superset of Strict's
//                 moves and still meets the guarantees (two accepted targets never conflict, and every
//                 accepted target keeps 2R from every old position). For lockstep games, and the rule to
//                 use with Avoid: under Strict two agents that keep choosing nearby spots both keep
//                 standing; under LowestIdWins one of them moves.
// Distances are compared as squared single-precision values computed without fused multiply-add (for
// agents i and j: dx*dx + dy*dy < s*s with s = r_i + r_j, each operation rounded to float; for two agents
// of radius R, s = 2R exactly), and
// every formula below is evaluated in exactly rounded float operations in the order written, so CPU and
// GPU agree to the bit.
//
// The verdict of agent i (target p_i, old position o_i), checked in this order (the first that applies):
//   Stayed       p_i == o_i (both coordinates equal as floats);
//   OutOfWorld   p_i is not finite, or its centre is not on the half-open world [x0, x1) x [y0, y1),
//                x1 = x0 + width and y1 = y0 + height computed in float (so the edge is the float sum:
//                x0 = 1, width = 2^24 gives x1 = 2^24, not 2^24 + 1); the disc may stick out of the
//                world, only the centre counts. A non-finite proposal is this agent's verdict alone: the
//                others proceed (and it conflicts with nobody);
//   TooFar       (AcceptReject) the move is longer than the agent's maximum step L_i:
//                dx*dx + dy*dy > L_i*L_i with d = p_i - o_i (no limit where L_i = 0);
//   Blocked      the move passes through a blocked obstacle cell. With cw = width / obstacles.width and
//                ch = height / obstacles.height (floats), a point's cell is (floor((x - x0) / cw),
//                floor((y - y0) / ch)), each index clamped into [0, cells - 1] (a point on a cell
//                boundary belongs to the cell above it; the clamp only matters just below x1 or y1,
//                where the float quotient can round up to the cell count). The cells walked are those of
//                the segment o_i -> p_i in cell units u = (x - x0) / cw, v = (y - y0) / ch: from o_i's cell,
//                step to the next column or row whose grid line the segment crosses first (crossing
//                parameter t = (line - u_o) / (u_p - u_o), likewise for rows); a crossing exactly
//                through a corner (equal t) steps diagonally and walks both side cells too; stop at p_i's
//                cell. Any walked cell blocked: Blocked (the segment test, so no move tunnels through a
//                wall however long; for a point move it is p_i's own cell);
//   Collision    |p_i - o_j| < 2R or (under the rule) |p_i - p_j| < 2R for some j != i;
//   Moved        otherwise.
//
// Avoid mode. Agent i wants to go to p_i; d = p_i - o_i, shortened to length L_i where longer
// (d * (L_i / sqrt(|d|^2))). The candidates are d rotated by an angle and scaled by a factor, in this
// order of preference (negative angles turn right, in a y-up frame: agents meeting head on both pass on
// their right):
//   (0, 1) (-30, 1) (+30, 1) (0, 1/2) (-60, 1) (+60, 1) (-30, 1/2) (+30, 1/2) (-60, 1/2) (+60, 1/2)
//   (-90, 1) (+90, 1) (-90, 1/2) (+90, 1/2)
// with the rotation r = (dx c - dy s, dx s + dy c) for (c, s) = (cos, sin) of the angle as float
// constants (cos 30 = sin 60 = 0.866025404f, cos 45 = sin 45 = 0.707106781f), the candidate
// o_i + r * factor. A candidate is free when it
// is inside the world, its segment from o_i walks no blocked cell, and the segment keeps 2R from every
// other agent's old position (the closest point o_i + t r', t = clamp(dot(o_j - o_i, r') / dot(r', r'),
// 0, 1), r' = candidate - o_i); a forward candidate (the 14 above) keeps 1.15 x 2R (on the squares:
// (2R)^2 * 1.3225f) from the old position of an agent it follows: j going i's way, dot(d_i, p_j - o_j) > 0,
// and ahead of it within 30 degrees of d_i, e = o_j - o_i with dot(d_i, e) > 0 and dot(d_i, e)^2 >
// 0.75f * (|d_i|^2 * |e|^2) (d_i unshortened, in float as written) — a queue keeps that spacing instead of
// packing up behind a stopped front, so where flows meet or cross the agents in front have room to turn.
// A forward candidate's look-ahead is the segment from o_i along the candidate's direction
// over 4R (the unshortened d scaled by 4R / |d|, rotated, not scaled by the factor); the agents in its
// way are the other agents j not going i's way — dot(d_i, p_j - o_j) > 0 fails: standing agents, oncoming
// ones, those with a non-finite proposal — whose old position the look-ahead comes closer than 2R to.
// The agent's target is the free forward candidate with the fewest agents in its way, the first in the
// order above of equals — so agents meeting head on turn right early and find the gaps in an oncoming
// flow, while agents following each other keep going; with no forward candidate free, the first free
// one backing off (which undoes the knots of agents meeting from several sides).
// Only agents near enough are tested (in float, as written): for freedom those with |o_j - o_i|^2 <
// ((|d'| + 2R * 1.15) * 1.01)^2 (d' the shortened d, |d'| = sqrt(|d|^2) * (L_i / sqrt(|d|^2)) or sqrt(|d|^2)),
// for the look-ahead those with |o_j - o_i|^2 < ((4R + 2R) * 1.01)^2 — a margin that makes the cut-off
// matter only where float rounding is of the order of R (coordinates beyond about 2^20 R). The target is then judged by the rule against the other targets as
// above (two agents that chose nearby spots are resolved by the rule). With no free candidate the agent
// stays, with the verdict of its straight candidate: OutOfWorld, Blocked or Collision. A desired target
// equal to o_i is Stayed; a non-finite one OutOfWorld; a finite one so far that |d|^2 overflows float
// shortens d to zero (L_i / sqrt(inf) = 0): every candidate is o_i, so the agent is Stayed.
//
// Avoid with per-agent radii: agent i's look-ahead is 4 r_i (computed as 4 * r_i in float) and every 2R
// of the paragraph above is r_i + r_j for the neighbour j ((r_i + r_j)^2 * 1.3225f for one it follows);
// the cut-offs use r_i + R in place of 2R.
//
// Maximum step: CrowdConfig::max_step for every agent, or one per agent given to reset() (a value of 0
// there means the config's). Avoid needs max_step > 0 (the speed a tick); AcceptReject treats 0 as no
// limit.
// Radius: CrowdConfig::radius (R) for every agent, unless the config sets min_radius (R / 4 <= min_radius
// <= R) and reset(), spawn() or restore() give agents radii of their own in [min_radius, R] (0: R). Units
// of several sizes in one crowd (infantry and tanks); gpu-static-grid's cells shrink with min_radius (the
// grid holds (R / min_radius)^2 times as many cells and its neighbourhoods widen the same way), the other
// variants cost the same.
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
// Avoid runs on cpu-reference and gpu-static-grid (Auto picks one of them); gpu-sort and gpu-tiled are the
// seed's accept/reject baselines and refuse it at create().
const char* variant_name(CrowdVariant v);
bool parse_variant(std::string_view name, CrowdVariant& out);
bool is_gpu_variant(CrowdVariant v);

enum class CrowdRule { Strict, LowestIdWins };
const char* rule_name(CrowdRule r);
bool parse_rule(std::string_view name, CrowdRule& out);  // "strict" | "lowest-id"

enum class CrowdMovement { AcceptReject, Avoid };
const char* movement_name(CrowdMovement m);
bool parse_movement(std::string_view name, CrowdMovement& out);  // "accept-reject" | "avoid"

enum class Verdict : std::uint8_t {
  Moved = 0,       // at its proposal (Avoid: at its first free candidate)
  Stayed = 1,      // proposal was its old position
  OutOfWorld = 2,  // target outside the world or not finite: stays
  Blocked = 3,     // the move passes through a blocked obstacle cell: stays
  Collision = 4,   // target too close to another agent's old position or target: stays
  TooFar = 5,      // AcceptReject: the move is longer than the agent's maximum step: stays
};
constexpr int kVerdictCount = 6;

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
  CrowdMovement movement = CrowdMovement::AcceptReject;
  // Every agent's maximum step (world units a tick) unless reset() gives its own [Limit: finite, >= 0;
  // Avoid: > 0 and <= 64 R]. 0: no limit (AcceptReject only).
  float max_step = 0.0f;
  // The smallest radius an agent may be given [Limit: 0, or finite in [radius / 4, radius]]. 0: every agent
  // has `radius` and reset() or spawn() refuse radii (other than 0 or R).
  float min_radius = 0.0f;
};

struct StepStats {  // verdicts of the last step(), one count per Verdict; they sum to size()
  std::size_t moved = 0, stayed = 0, out_of_world = 0, blocked = 0, collisions = 0, too_far = 0;
};

// Agents and their ids. An agent's slot is its place in the arrays (positions, proposals, verdicts:
// 0..size()-1, what "agent i" means above); its id is stable for its life. reset() gives ids 0..n-1;
// spawn() appends agents after the last slot with the next unused ids; retain() and despawn() remove
// agents, and the survivors keep their order and ids, moving down to fill the slots. Ids therefore
// increase with the slot (find() is a binary search), and none is given twice until the next reset(),
// which starts again from 0. At most 2^32 - 1 ids between two resets (spawn refuses more).
//
// Save and restore: save() writes the agents (positions, maximum steps, radii, ids and the next id) and a
// fingerprint of the config to bytes; restore() on a solver of the same config (world, radius, min_radius,
// obstacles, rule, movement, max_step; any variant: a GPU state restores on the CPU and back) puts them back bit for
// bit, so that the ticks after it equal the ticks after the save. The bytes are untrusted: a wrong header,
// format, config or length, non-finite or overlapping positions, positions outside the world or in a
// blocked cell, bad maximum steps or radii, or ids that do not increase are refused and nothing changes.
// The last step's verdicts are not state: after restore() (like reset, spawn and retain) every verdict
// reads Stayed and last_stats() is zero until the next step. The format: little-endian; "WMCROWD\0", u32
// format (2), u32 0 (reserved: anything else is refused), the config (u32 movement, rule, obstacle width,
// height; f32 x0, y0, width, height, radius, max_step, min_radius; u64 FNV-1a of the blocked flags as bytes
// 0/1), u64 agent count n, u64 next id, then n x (f32 x, f32 y), n x f32 maximum step in use, n x f32
// radius, n x u32 id: 84 + 20 n bytes. Format 1 (without min_radius and the radii: 80 + 16 n bytes) is
// still read, by a solver whose min_radius is 0.
//
// Blocking: create, reset, spawn, despawn, retain, save, restore, step, fetch_stats and the read_* calls
// return when their work is done
// and their results are in host memory (GPU variants included); step_device is stream-ordered (below).
// Not thread-safe: one thread at a time per solver. The Context must outlive the solver.
class CrowdSolver {
 public:
  static Status create(Context& ctx, const CrowdConfig& config, std::unique_ptr<CrowdSolver>& out);
  ~CrowdSolver();

  // Sets the agents (ids 0..n-1). Rejects, naming the first offender, positions that are not finite,
  // outside the world, in a blocked cell, or closer than 2R to another agent; nothing changes then.
  // max_steps: empty (every agent gets config().max_step) or one per agent, each finite and >= 0 (0: the
  // config's; under Avoid at most 64 R). radii: empty (every agent has R) or one per agent, each 0 (R) or
  // in [config().min_radius, R] (a config without min_radius takes only 0 and R).
  Status reset(std::span<const Vec2> positions, std::span<const float> max_steps = {},
               std::span<const float> radii = {});
  // Appends agents (ids: the next unused ones, written to ids_out when it is given; it must then hold
  // positions.size()), each checked as reset() checks — finite, inside, not in a blocked cell, 2R from every
  // agent, old and new — and nothing changes on error. max_steps and radii as for reset(). Cost O(size() + new
  // agents): the existing agents are not checked again; GPU variants copy the positions down and back up.
  // Device pointers may move (as for a reset that grows).
  Status spawn(std::span<const Vec2> positions, std::span<const float> max_steps = {},
               std::span<std::uint32_t> ids_out = {}, std::span<const float> radii = {});
  // Removes the agents of these ids (retain() of the rest). An unknown id or one given twice is an error
  // and nothing changes.
  Status despawn(std::span<const std::uint32_t> ids);
  // Every agent's id, by slot (out.size() >= size()); find() gives an id's slot (false: no such agent).
  Status read_ids(std::span<std::uint32_t> out) const;
  bool find(std::uint32_t id, std::size_t& slot) const;
  Status save(std::vector<std::uint8_t>& out) const;
  Status restore(std::span<const std::uint8_t> bytes);
  // Removes the agents whose keep[i] is 0 (keep.size() must be size()); the others keep their order (and
  // maximum steps and ids) and move down to slots 0..m-1. Removing agents cannot break the guarantees, so nothing is re-validated (cheap
  // where reset() checks every pair). On error nothing changes.
  Status retain(std::span<const std::uint8_t> keep);
  // GPU variants: the same with the flags in device memory (size() bytes, e.g. combat::Volleys::
  // device_keep()), ordered on the context's stream after the work that wrote them; `kept` is the number
  // of set flags (checked against the flags, which are copied back for the ids; a wrong count is an
  // error and nothing changes). Blocks until done.
  Status retain_device(const std::uint8_t* device_keep, std::size_t kept);
  // One tick: proposals[i] is agent i's target (Avoid: where it wants to go). Rejects a wrong count
  // (nothing changes); a non-finite proposal is that agent's OutOfWorld verdict. Afterwards
  // read_positions() gives the new positions and read_verdicts() the verdicts.
  Status step(std::span<const Vec2> proposals);
  // GPU variants: proposals already in device memory (n Vec2). Queued on the context's stream without
  // waiting (the same verdicts as step(), a non-finite proposal included); the verdict counts are fetched
  // by fetch_stats() (which waits for the stream). The proposals must stay
  // allocated until the stream has run the step. For a simulation that lives on the GPU, e.g. proposals
  // from FieldLayers::best_move_device on device_positions().
  Status step_device(const Vec2* device_proposals);
  Status fetch_stats();
  // GPU variants: the state in device memory (nullptr on the CPU variant), current in the order of the
  // context's stream (read it there, or after ctx.synchronize()). The pointers stay valid across step(),
  // step_device() and retain(); a reset() that grows the agent count beyond what was ever allocated may
  // move them (fetch them again after a reset), and destroying the solver frees them.
  // Every agent's maximum step in use (the config's where reset() gave none).
  Status read_max_steps(std::span<float> out) const;
  // Every agent's radius (R where none was given).
  Status read_radii(std::span<float> out) const;
  const Vec2* device_positions() const;
  const Verdict* device_verdicts() const;

  std::size_t size() const { return count_; }
  Status read_positions(std::span<Vec2> out) const;
  Status read_verdicts(std::span<Verdict> out) const;
  const StepStats& last_stats() const { return stats_; }
  CrowdVariant variant() const { return variant_; }
  const CrowdConfig& config() const { return config_; }

  static constexpr std::size_t kMaxAgents = std::size_t{1} << 30;  // reset, spawn and restore refuse more
  static constexpr std::size_t kMaxId = 0xffffffffu;               // ids are below it

  struct Impl;

 private:
  CrowdSolver() = default;
  // The agents in place (validated by the caller): positions, maximum steps in use and their largest,
  // radii; verdicts Stayed, stats zero. The caller sets the ids.
  Status install(std::span<const Vec2> positions, std::vector<float> limits, float reach, std::vector<float> radii);
  Context* ctx_ = nullptr;
  CrowdConfig config_;
  CrowdVariant variant_ = CrowdVariant::Auto;
  std::size_t count_ = 0;
  StepStats stats_;
  std::unique_ptr<Impl> impl_;
};

// Pairs of agents closer than 2R (0 for a valid state). O(N) with a uniform grid.
std::size_t count_overlaps(std::span<const Vec2> positions, float radius);
// Pairs of agents closer than the sum of their radii (radii.size() == positions.size(), each > 0 and
// finite; otherwise SIZE_MAX). O(N) with a uniform grid of the largest radius.
std::size_t count_overlaps(std::span<const Vec2> positions, std::span<const float> radii);

}  // namespace warpmind::crowd
