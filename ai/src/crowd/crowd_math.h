// The crowd rule's arithmetic, host side. gpu/src/crowd.cu repeats these few lines with explicitly
// rounded intrinsics; the tests hold the two to identical verdicts.
#pragma once

#include <cmath>
#include <cstdint>

#include "warpmind/crowd/crowd_solver.h"

namespace warpmind::crowd::detail {

// Everything a verdict depends on, computed once on the host and handed as-is to the device.
struct Geometry {
  float x0, y0, x1, y1;  // world [x0, x1) x [y0, y1)
  float four_r2;         // (2R)^2: distance >= 2R  <=>  d^2 >= four_r2
  float cell;            // binning cell side (>= 2R, so neighbours are within +-1 cell)
  int cells_x, cells_y;
  float ob_w, ob_h;  // obstacle cell size (0 when there is no obstacle grid)
  int ob_cols, ob_rows;
  // Static grid (gpu-static-grid): cells of side a hair under 2R/sqrt(2), so two agents in one cell are
  // always closer than 2R and a cell holds at most one old position; it covers the world plus a 2R margin,
  // where targets just outside the world can still conflict with targets inside.
  float sg_x0, sg_y0, sg_cell;
  int sg_cols, sg_rows;
};

inline Geometry make_geometry(const CrowdConfig& c) {
  Geometry g{};
  g.x0 = c.world.x0;
  g.y0 = c.world.y0;
  g.x1 = c.world.x0 + c.world.width;
  g.y1 = c.world.y0 + c.world.height;
  const float d = 2.0f * c.radius;
  g.four_r2 = d * d;
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
  g.sg_cell = d * 0.70706f;  // 2R / sqrt(2) = 0.707107 * 2R
  g.sg_x0 = g.x0 - d;
  g.sg_y0 = g.y0 - d;
  g.sg_cols = static_cast<int>(std::ceil((c.world.width + 2.0f * d) / g.sg_cell)) + 1;
  g.sg_rows = static_cast<int>(std::ceil((c.world.height + 2.0f * d) / g.sg_cell)) + 1;
  return g;
}

inline bool apart(Vec2 a, Vec2 b, const Geometry& g) {
  const float dx = a.x - b.x, dy = a.y - b.y;
  return dx * dx + dy * dy >= g.four_r2;
}

inline bool inside(Vec2 p, const Geometry& g) { return p.x >= g.x0 && p.x < g.x1 && p.y >= g.y0 && p.y < g.y1; }

// For a point inside the world.
inline bool blocked(Vec2 p, const Geometry& g, const std::uint8_t* grid) {
  if (g.ob_cols == 0) return false;
  int cx = static_cast<int>(std::floor((p.x - g.x0) / g.ob_w));
  int cy = static_cast<int>(std::floor((p.y - g.y0) / g.ob_h));
  cx = cx < 0 ? 0 : (cx >= g.ob_cols ? g.ob_cols - 1 : cx);
  cy = cy < 0 ? 0 : (cy >= g.ob_rows ? g.ob_rows - 1 : cy);
  return grid[static_cast<std::size_t>(cy) * g.ob_cols + cx] != 0;
}

// Binning cell (clamped: points outside the world land in the border cells).
inline int cell_x(float x, const Geometry& g) {
  const float f = std::fmin(std::fmax(std::floor((x - g.x0) / g.cell), 0.0f), static_cast<float>(g.cells_x - 1));
  return static_cast<int>(f);
}
inline int cell_y(float y, const Geometry& g) {
  const float f = std::fmin(std::fmax(std::floor((y - g.y0) / g.cell), 0.0f), static_cast<float>(g.cells_y - 1));
  return static_cast<int>(f);
}

}  // namespace warpmind::crowd::detail
