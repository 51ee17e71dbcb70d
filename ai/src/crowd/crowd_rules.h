// The crowd rule's arithmetic, written once for the CPU reference (ai/src/crowd) and the kernels
// (gpu/src/crowd/crowd.cu): the geometry a verdict depends on, the 2R distance test, the world and obstacle
// tests and the binning cells. The rule itself is ai/include/warpmind/crowd/crowd_solver.h's contract;
// the operations are hd.h's exactly rounded ones, so both sides give the same verdicts.
#pragma once

#include "core/hd.h"

namespace warpmind::crowd::rules {

// Everything a verdict depends on, computed once on the host (ai/src/crowd/crowd_math.h) and handed to the
// device as it is.
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

// At least 2R apart: d^2 >= (2R)^2 in float, written as !(d^2 < (2R)^2) so that a non-finite point (only
// possible through step_device) never conflicts with anyone.
WM_HD bool apart(float ax, float ay, float bx, float by, const Geometry& g) {
  const float dx = fsub(ax, bx), dy = fsub(ay, by);
  return !(fadd(fmul(dx, dx), fmul(dy, dy)) < g.four_r2);
}

// On the half-open world [x0, x1) x [y0, y1).
WM_HD bool inside(float x, float y, const Geometry& g) { return x >= g.x0 && x < g.x1 && y >= g.y0 && y < g.y1; }

// The obstacle cell of a point inside the world is blocked (each index clamped into the grid).
WM_HD bool blocked(float x, float y, const Geometry& g, const unsigned char* grid) {
  if (g.ob_cols == 0) return false;
  const int cx = clamp_int(static_cast<int>(floorf(fdiv(fsub(x, g.x0), g.ob_w))), 0, g.ob_cols - 1);
  const int cy = clamp_int(static_cast<int>(floorf(fdiv(fsub(y, g.y0), g.ob_h))), 0, g.ob_rows - 1);
  return grid[static_cast<std::size_t>(cy) * static_cast<std::size_t>(g.ob_cols) + cx] != 0;
}

// Binning cell along one axis, clamped into [0, cells - 1] (points outside the world land in the border
// cells).
WM_HD int cell_axis(float v, float origin, float cell, int cells) {
  return static_cast<int>(fminf(fmaxf(floorf(fdiv(fsub(v, origin), cell)), 0.0f), static_cast<float>(cells - 1)));
}
WM_HD int cell_x(float x, const Geometry& g) { return cell_axis(x, g.x0, g.cell, g.cells_x); }
WM_HD int cell_y(float y, const Geometry& g) { return cell_axis(y, g.y0, g.cell, g.cells_y); }

}  // namespace warpmind::crowd::rules
