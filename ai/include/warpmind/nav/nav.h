// warpmind::nav — navigation fields on a grid (grid.h): for each goal cell, the walking distance from
// every cell to it (the integration field of a flow field) and the direction to step in, for many goals
// in one call; and the steering of a batch of units by one goal's field.
//
// Moves: a step goes to one of the 8 neighbours, straight (length 1) or diagonal (length sqrt(2)); both
// cells must be passable, and a diagonal step (dx, dy) from (x, y) also needs (x + dx, y) and (x, y + dy)
// passable (no corner cutting). A step costs its length times the cost of the cell it enters.
//
// Distance (the definition both the CPU and the GPU compute exactly): the least cost of a walk from the
// cell to the goal, written A + B * sqrt(2) with A the summed costs of the walk's straight steps and B
// those of its diagonal ones — integers, so walks compare exactly, and the least value has one (A, B)
// since sqrt(2) is irrational. The result is the float
//     float(double(A) + double(B) * 1.4142135623730951)
// (the double nearest sqrt(2), each operation rounded to nearest, no fused multiply-add). 0 at the goal;
// +infinity where the goal cannot be reached and on blocked cells. A and B stay below 2^32 on every map
// (at most kMaxCells cells of cost at most 255 on a walk that repeats no cell).
//
// Direction: the step a unit takes from the cell, an index into kSteps; the first k (in kSteps' order)
// whose step is allowed and reaches a neighbour n on a least walk, i.e. exact(n) + cost of the step ==
// exact(cell). kNoDirection (-1) at the goal, where it cannot be reached and on blocked cells.
//
// Variants (NavVariant; Auto: Gpu on a CUDA context, else Cpu; Gpu on a CPU context is Unavailable): the
// CPU computes every field by Dijkstra's algorithm from the goal (a binary heap of the exact values, ties
// by cell index), the goals spread over the context's thread pool; the GPU relaxes the exact values by
// tiles of 32 x 32 cells to the same fixed point (docs/nav.md). Both give the same bits.
//
// Errors are Status, never exceptions; a call with a bad argument (a grid out of range, a goal outside
// the grid or on a blocked cell, an output span of the wrong size) returns InvalidArgument and writes
// nothing. Thread-safe for distinct outputs.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/nav/grid.h"

namespace warpmind::nav {

constexpr std::int8_t kNoDirection = -1;
// The steps, (dx, dy): east, south-east, south, south-west, west, north-west, north, north-east (y grows
// with the row, so "south" is the next row down a map file).
constexpr std::array<std::array<int, 2>, 8> kSteps = {
    {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}};

enum class NavVariant { Auto, Cpu, Gpu };
const char* variant_name(NavVariant v);
bool parse_variant(std::string_view name, NavVariant& out);  // "auto", "cpu", "gpu"

struct FieldStats {
  double ms = 0;                    // wall time of the call
  std::uint64_t settled = 0;        // cells settled over every field (reachable ones)
  double device_ms = 0;             // GPU: the device's time from the first kernel to the last (no copies); CPU: 0
  std::uint64_t tiles_relaxed = 0;  // GPU: relaxations of a 32 x 32 tile, over every field; CPU: 0
};

// The fields of goals[0..G): distance[g * cells + c] for cell c = y * width + x, and, when `direction`
// is not empty, direction[g * cells + c]. `distance` holds G * cells floats, `direction` as many or none.
Status distance_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                       std::span<std::int8_t> direction = {}, FieldStats* stats = nullptr,
                       NavVariant variant = NavVariant::Auto);

// The field of a goal set (every enemy unit, every resource patch): one field, distance[c] the least walk
// from c to the nearest of `goals` (the least of their fields' exact values, so the float is the least of
// their floats), direction[c] by the same rule (none on every goal). `distance` holds cells floats,
// `direction` as many or none. A goal may be given more than once; no goal at all gives +infinity and no
// direction everywhere. Variants, errors and threads as distance_fields; both variants give the same bits.
Status goal_set_field(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                      std::span<std::int8_t> direction = {}, FieldStats* stats = nullptr,
                      NavVariant variant = NavVariant::Auto);

// Options of a field call. `unreachable`: what a passable cell that cannot reach the goal (a goal set:
// any of its goals) gets. Infinity (the default): +infinity and no direction, as above. NearestCell: the
// field of its substitute goal instead, the cell of its own component (the cells that reach each other;
// steps are allowed both ways, so components are well defined) nearest the goal in a straight line: the
// least squared distance between cell centres, dx^2 + dy^2 in integers, to the goal (to the nearest goal
// of a set), ties by the lower row-major index. So such a cell's distance is its walk to the substitute
// (0 on it) and its direction leads there (none on it); every cell that reaches the goal keeps its value,
// and blocked cells stay +infinity. A field with no goal at all stays +infinity everywhere. Both variants
// give the same bits.
enum class Unreachable { Infinity, NearestCell };
struct FieldOptions {
  NavVariant variant = NavVariant::Auto;
  Unreachable unreachable = Unreachable::Infinity;
};
Status distance_fields(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                       std::span<std::int8_t> direction, const FieldOptions& options, FieldStats* stats = nullptr);
Status goal_set_field(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::span<float> distance,
                      std::span<std::int8_t> direction, const FieldOptions& options, FieldStats* stats = nullptr);

// Steering by one goal's field (its `distance` and `direction`, cells floats and directions each): for
// every position, in cell units (cell (x, y) covers [x, x + 1) x [y, y + 1)), the cell floor(x), floor(y)
// gives steer[i] = the unit vector of its direction (a diagonal's components are the float nearest
// 1 / sqrt(2)) and dist[i] = its distance. A position outside the grid or not finite, and a cell without
// a direction, gives (0, 0) — and +infinity outside, the cell's distance otherwise. `steer` and `dist`
// as many as `positions`.
Status steer(const Grid& grid, std::span<const float> distance, std::span<const std::int8_t> direction,
             std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist);

}  // namespace warpmind::nav
