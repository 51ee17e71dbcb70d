// The crowd rule's host side: the geometry computed from a config; the arithmetic is crowd_rules.h's,
// shared with the kernels.
#pragma once

#include <cmath>
#include <cstdint>

#include "warpmind/crowd/crowd_solver.h"
#include "crowd/crowd_rules.h"

namespace warpmind::crowd::detail {

// The geometry and the tests a verdict depends on are ai/src/crowd/crowd_rules.h, shared with
// the kernels.
using Geometry = rules::Geometry;

inline Geometry make_geometry(const CrowdConfig& c) {
  Geometry g{};
  g.x0 = c.world.x0;
  g.y0 = c.world.y0;
  g.x1 = c.world.x0 + c.world.width;
  g.y1 = c.world.y0 + c.world.height;
  const float d = 2.0f * c.radius;
  g.four_r2 = d * d;
  g.radius = c.radius;
  g.lookahead = 2.0f * d;
  // A hair over 2R so rounding in the binning can never put two agents closer than 2R two cells apart;
  // no finer than 1/4096 of the world, which bounds the grid at 4096^2 cells.
  const float extent = std::fmax(c.world.width, c.world.height);
  g.cell = std::fmax(d * 1.0001f, extent / 4096.0f);
  g.cells_x = static_cast<int>(std::ceil(c.world.width / g.cell)) + 1;
  g.cells_y = static_cast<int>(std::ceil(c.world.height / g.cell)) + 1;
  g.ob_cols = c.obstacles.width;
  g.ob_rows = c.obstacles.height;
  g.ob_w = g.ob_cols > 0 ? c.world.width / static_cast<float>(g.ob_cols) : 0.0f;
  g.ob_h = g.ob_rows > 0 ? c.world.height / static_cast<float>(g.ob_rows) : 0.0f;
  // Cells for the smallest radius r (R unless per-agent radii are allowed): 2r / sqrt(2) = 0.707107 * 2r.
  const float r_min = c.min_radius > 0 ? c.min_radius : c.radius;
  g.sg_cell = (2.0f * r_min) * 0.70706f;
  g.sg_x0 = g.x0 - d;
  g.sg_y0 = g.y0 - d;
  g.sg_cols = static_cast<int>(std::ceil((c.world.width + 2.0f * d) / g.sg_cell)) + 1;
  g.sg_rows = static_cast<int>(std::ceil((c.world.height + 2.0f * d) / g.sg_cell)) + 1;
  // Points closer than 2R lie at most ceil(2R / cell) cells apart on each axis (a hair more for rounding):
  // 2 for one radius (2R / cell = 1.4143), 6 at R / r = 4 (5.657).
  g.sg_window = static_cast<int>(std::ceil(static_cast<double>(d) / g.sg_cell * 1.0001));
  return g;
}

inline bool apart(Vec2 a, Vec2 b, const Geometry& g) { return rules::apart(a.x, a.y, b.x, b.y, g); }
// Agents of radii ra and rb: at least ra + rb apart.
inline bool apart(Vec2 a, Vec2 b, float ra, float rb) { return rules::apart_by(a.x, a.y, b.x, b.y, ra + rb); }
inline bool inside(Vec2 p, const Geometry& g) { return rules::inside(p.x, p.y, g); }
// For a point inside the world.
inline bool blocked(Vec2 p, const Geometry& g, const std::uint8_t* grid) { return rules::blocked(p.x, p.y, g, grid); }
// Binning cell (clamped: points outside the world land in the border cells).
using rules::cell_x;
using rules::cell_y;

}  // namespace warpmind::crowd::detail
