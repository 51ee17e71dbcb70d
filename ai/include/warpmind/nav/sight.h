// warpmind::nav line of sight — units that walk straight where they can instead of along a field's
// eight directions.
//
// line_of_sight(a, b): whether the segment from a's centre to b's centre walks only passable cells, by
// the crowd's wall-check rule (crowd_solver.h's Blocked): from a's cell, step to the next column or row
// whose grid line the segment crosses first; a crossing exactly through a cell corner steps diagonally
// and walks both cells beside the corner too; stop at b's cell. The centres are half-integers, so the
// crossings are compared exactly in integers (the crowd's float test walks the same cells on them). A
// cell and itself see each other when passable; a blocked or outside end sees nothing. Symmetric.
//
// sight(goal): visible[c] = 1 where c sees the goal's cell (line_of_sight), 0 elsewhere (blocked cells
// included): on the context's threads, or a GPU thread a cell (nav.h's NavVariant; Auto: the GPU on a
// CUDA context), the same code and flags.
//
// waypoints(field): for the field of one goal or goal set (nav.h's distance and direction of the same
// grid), the cell a unit in each cell heads for, string-pulled along its path (the rule Theta* uses,
// applied to the field's paths): with n the cell c's direction steps to and e the goal c's path ends at,
//     waypoint(c) = e              if c sees e,
//                   waypoint(n)    else if c sees waypoint(n),
//                   n              otherwise;
// waypoint(goal) = the goal; kNoWaypoint where the field has no value (blocked, unreached). So a cell in
// sight of its goal heads straight for it, and any other cell for a cell of its own path it sees, as far
// along as the rule carries it. Cells are taken in the order of their distance (n is nearer the goal
// than c), in parallel where many share a distance band. A field that is not one of nav.h's on this grid
// (a direction leading off the grid, into a blocked cell or not nearer) is InvalidArgument.
//
// steer_to_waypoints: as nav.h's steer, but toward the waypoint's centre: for a position p in cell c
// (floor of each coordinate), v = (w.x + 0.5f - p.x, w.y + 0.5f - p.y) in float, steer = v / sqrtf(v.x *
// v.x + v.y * v.y) (each operation rounded, no fused multiply-add), dist = distance[c]; (0, 0) where the
// length is 0, at a cell without a waypoint, and outside the grid or at a position that is not finite
// (dist +infinity there). The sight test is from cell centres: a unit far from its centre may meet a
// corner, which the crowd's wall check then refuses.
//
// Errors are Status, never exceptions; a call with a bad argument writes nothing. Thread-safe for
// distinct outputs.
#pragma once

#include <cstdint>
#include <span>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav {

constexpr std::uint32_t kNoWaypoint = 0xFFFFFFFFu;

bool line_of_sight(const Grid& grid, Cell a, Cell b);
Status sight(Context& ctx, const Grid& grid, Cell goal, std::span<std::uint8_t> visible,
             NavVariant variant = NavVariant::Auto);
Status waypoints(Context& ctx, const Grid& grid, std::span<const float> distance,
                 std::span<const std::int8_t> direction, std::span<std::uint32_t> waypoint);
Status steer_to_waypoints(const Grid& grid, std::span<const float> distance, std::span<const std::uint32_t> waypoint,
                          std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist);

}  // namespace warpmind::nav
