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
  float four_r2;         // (2R)^2: distance >= 2R  <=>  d^2 >= four_r2 (R the largest radius)
  float radius;          // R, every agent's radius unless per-agent radii are given
  float lookahead;       // Avoid's look-ahead of an agent of radius R, 4R (radius r: 4r)
  float cell;            // binning cell side (>= 2R, so neighbours are within +-1 cell)
  int cells_x, cells_y;
  float ob_w, ob_h;  // obstacle cell size (0 when there is no obstacle grid)
  int ob_cols, ob_rows;
  // Static grid (gpu-static-grid): cells of side a hair under 2r/sqrt(2) for the smallest radius r, so two
  // agents in one cell are always closer than the sum of their radii and a cell holds at most one old
  // position; it covers the world plus a 2R margin, where targets just outside the world can still
  // conflict with targets inside. Two agents that can conflict (closer than 2R) are at most sg_window
  // cells apart along each axis (2 when every agent has radius R).
  float sg_x0, sg_y0, sg_cell;
  int sg_cols, sg_rows, sg_window;
};

// At least `sum` (the two radii added in float) apart: d^2 >= sum^2 in float, written as !(d^2 < sum^2)
// so that a non-finite point never conflicts with anyone. For two agents of radius R, sum = 2R exactly
// and sum^2 is four_r2, so apart() below and this agree to the bit.
WM_HD bool apart_by(float ax, float ay, float bx, float by, float sum) {
  const float dx = fsub(ax, bx), dy = fsub(ay, by);
  return !(fadd(fmul(dx, dx), fmul(dy, dy)) < fmul(sum, sum));
}
// (ra + rb)^2 in float: the squared distance two agents of radii ra and rb keep (four_r2 for R and R).
WM_HD float sum2(float ra, float rb) {
  const float s = fadd(ra, rb);
  return fmul(s, s);
}

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

// The obstacle cells a move from o to p passes through, walked from o's cell to p's (both inside the
// world): a cell is entered where the segment crosses its boundary, found by comparing the crossing
// parameters of the next vertical and horizontal grid lines (exactly rounded, so both sides walk the same
// cells). A crossing exactly through a grid corner steps diagonally and checks both side cells as well
// (no squeezing between two blocked cells that touch at a corner, no clipping a corner). True if any
// cell walked is blocked; for o == p it is the endpoint test above.
WM_HD bool path_blocked(float ox, float oy, float px, float py, const Geometry& g, const unsigned char* grid) {
  if (g.ob_cols == 0) return false;
  const float u0 = fdiv(fsub(ox, g.x0), g.ob_w), v0 = fdiv(fsub(oy, g.y0), g.ob_h);
  const float u1 = fdiv(fsub(px, g.x0), g.ob_w), v1 = fdiv(fsub(py, g.y0), g.ob_h);
  int cx = clamp_int(static_cast<int>(floorf(u0)), 0, g.ob_cols - 1);
  int cy = clamp_int(static_cast<int>(floorf(v0)), 0, g.ob_rows - 1);
  const int ex = clamp_int(static_cast<int>(floorf(u1)), 0, g.ob_cols - 1);
  const int ey = clamp_int(static_cast<int>(floorf(v1)), 0, g.ob_rows - 1);
  const auto at = [&](int x, int y) {
    return grid[static_cast<std::size_t>(y) * static_cast<std::size_t>(g.ob_cols) + static_cast<std::size_t>(x)] != 0;
  };
  if (at(cx, cy)) return true;
  const int sx = ex > cx ? 1 : -1, sy = ey > cy ? 1 : -1;
  const float du = fsub(u1, u0), dv = fsub(v1, v0);
  while (cx != ex || cy != ey) {
    // Crossing parameter (0..1 along the segment) of the next grid line on each axis still to walk.
    float tx = 2.0f, ty = 2.0f;
    if (cx != ex) tx = fdiv(fsub(static_cast<float>(sx > 0 ? cx + 1 : cx), u0), du);
    if (cy != ey) ty = fdiv(fsub(static_cast<float>(sy > 0 ? cy + 1 : cy), v0), dv);
    if (tx == ty) {  // through a corner (both axes left to walk)
      if (at(cx + sx, cy) || at(cx, cy + sy)) return true;
      cx += sx;
      cy += sy;
    } else if (tx < ty) {
      cx += sx;
    } else {
      cy += sy;
    }
    if (at(cx, cy)) return true;
  }
  return false;
}

// A move longer than `limit` (> 0; 0: no limit): |p - o|^2 > limit^2 in float.
WM_HD bool too_far(float ox, float oy, float px, float py, float limit) {
  if (!(limit > 0.0f)) return false;
  const float dx = fsub(px, ox), dy = fsub(py, oy);
  return fadd(fmul(dx, dx), fmul(dy, dy)) > fmul(limit, limit);
}

// Verdict codes (warpmind::crowd::Verdict), and kCheckAgents: the tests without other agents passed.
enum : unsigned char { kMoved = 0, kStayed = 1, kOutOfWorld = 2, kBlocked = 3, kCollision = 4, kTooFar = 5 };
constexpr unsigned char kCheckAgents = 255;

// The verdict tests that involve no other agent, in the contract's order (limit 0: none).
WM_HD unsigned char static_verdict(float ox, float oy, float px, float py, float limit, const Geometry& g,
                                   const unsigned char* grid) {
  if (px == ox && py == oy) return kStayed;
  if (!inside(px, py, g)) return kOutOfWorld;  // NaN included
  if (too_far(ox, oy, px, py, limit)) return kTooFar;
  if (path_blocked(ox, oy, px, py, g, grid)) return kBlocked;
  return kCheckAgents;
}

// ---- Avoid (crowd_solver.h: the candidates, in order of preference) ----------------------------------

constexpr int kCandidates = 17;  // 14 forward, then 3 backing off
constexpr int kForward = 14;
// Following: a forward candidate keeps kFollowGap times the sum of the two radii (kFollowGap2, its square, on
// the squared distances) from an agent going this one's way that stands ahead within 30 degrees of the wanted
// direction (cos^2 30 = kFollowCone2). A queue keeps that spacing instead of packing up behind a stopped
// front, so where flows meet the agents in front keep room to turn (crowd_solver.h).
constexpr float kFollowGap = 1.15f, kFollowGap2 = 1.3225f, kFollowCone2 = 0.75f;

// The segment o -> t keeps sqrt(sum2) (the two radii added) from q: the closest point o + s (t - o),
// s = clamp(dot(q - o, t - o) / |t - o|^2, 0, 1).
WM_HD bool swept_apart(float ox, float oy, float tx, float ty, float qx, float qy, float sum2) {
  const float rx = fsub(tx, ox), ry = fsub(ty, oy), wx = fsub(qx, ox), wy = fsub(qy, oy);
  const float rr = fadd(fmul(rx, rx), fmul(ry, ry));
  float s = rr > 0.0f ? fdiv(fadd(fmul(wx, rx), fmul(wy, ry)), rr) : 0.0f;
  s = s < 0.0f ? 0.0f : (s > 1.0f ? 1.0f : s);
  const float ex = fsub(qx, fadd(ox, fmul(s, rx))), ey = fsub(qy, fadd(oy, fmul(s, ry)));
  return !(fadd(fmul(ex, ex), fmul(ey, ey)) < sum2);
}

// One agent's choice under Avoid: start() with its old position o, wanted target p (p != o, finite) and radius r,
// neighbour() for every other agent whose old position lies within reach with the square of the two radii's sum
// (sum2(); four_r2 where both are R) (any order: the result is the same), then choice(). free: candidates inside the
// world, clear of walls and of every old position along their segment (by the sum of the two radii; a forward
// candidate by kFollowGap times it from an agent followed: going this one's way, dot(d_i, d_j) > 0 for
// d = wanted - old, and ahead within 30 degrees, dot(d_i, q - o) > 0 and dot^2 > kFollowCone2 |d_i|^2 |q - o|^2);
// ahead[k]: the agents not going this one's way that candidate k's look-ahead (its direction over 4r) comes
// within the sum of the radii of.
struct Avoider {
  float ox, oy, dx, dy, dd;  // old position, wanted displacement (not shortened), |d|^2
  float cx[kCandidates], cy[kCandidates], lx[kCandidates], ly[kCandidates];
  unsigned ahead[kCandidates];
  unsigned free = 0;
  // Agents farther than these squared distances from o cannot touch a candidate's segment (its length
  // plus kFollowGap x 2R) or a look-ahead (4R plus 2R); 1% wider than that, so float rounding near the edge
  // never matters. neighbour() skips them.
  float near2 = 0, far2 = 0;
  unsigned char straight = 4;  // kCollision: the straight candidate's verdict if nothing is free

  WM_HD void start(float o_x, float o_y, float px, float py, float limit, float radius, const Geometry& g,
                   const unsigned char* grid) {
    ox = o_x;
    oy = o_y;
    dx = fsub(px, ox);
    dy = fsub(py, oy);
    const float d2 = fadd(fmul(dx, dx), fmul(dy, dy)), len = fsqrt(d2);
    dd = d2;
    // The step: d shortened to the maximum step; the look-ahead: d scaled to 4r (4R: g.lookahead).
    const float lookahead = fmul(4.0f, radius);
    const float step = d2 > fmul(limit, limit) ? fdiv(limit, len) : 1.0f, reach = fdiv(lookahead, len);
    const float sx = fmul(dx, step), sy = fmul(dy, step), ax = fmul(dx, reach), ay = fmul(dy, reach);
    // The farthest another agent can matter from: its radius is at most R.
    const float two_r = fadd(radius, g.radius);
    const float reach_step = fmul(fadd(fmul(len, step), fmul(two_r, kFollowGap)), 1.01f);
    const float reach_ahead = fmul(fadd(lookahead, two_r), 1.01f);
    near2 = fmul(reach_step, reach_step);
    far2 = fmul(reach_ahead, reach_ahead);
    constexpr float k30 = 0.866025404f;  // cos 30 = sin 60
    constexpr float k45 = 0.707106781f;  // cos 45 = sin 45
    const float cs[kCandidates] = {1.0f, k30,  k30,  1.0f, 0.5f, 0.5f, k30,  k30,  0.5f,
                                   0.5f, 0.0f, 0.0f, 0.0f, 0.0f, -k45, -k45, -1.0f};
    const float sn[kCandidates] = {0.0f, -0.5f, 0.5f, 0.0f,  -k30, k30,  -0.5f, 0.5f, -k30,
                                   k30,  -1.0f, 1.0f, -1.0f, 1.0f, -k45, k45,   0.0f};
    const float f[kCandidates] = {1.0f, 1.0f, 1.0f, 0.5f, 1.0f, 1.0f, 0.5f, 0.5f, 0.5f,
                                  0.5f, 1.0f, 1.0f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    free = 0;
    straight = kCollision;
    WM_UNROLL
    for (int k = 0; k < kCandidates; ++k) {
      const float rx = fsub(fmul(sx, cs[k]), fmul(sy, sn[k])), ry = fadd(fmul(sx, sn[k]), fmul(sy, cs[k]));
      cx[k] = fadd(ox, fmul(rx, f[k]));
      cy[k] = fadd(oy, fmul(ry, f[k]));
      lx[k] = fadd(ox, fsub(fmul(ax, cs[k]), fmul(ay, sn[k])));
      ly[k] = fadd(oy, fadd(fmul(ax, sn[k]), fmul(ay, cs[k])));
      unsigned char v = kCheckAgents;
      if (!inside(cx[k], cy[k], g))
        v = kOutOfWorld;
      else if (path_blocked(ox, oy, cx[k], cy[k], g, grid))
        v = kBlocked;
      if (v == kCheckAgents) free |= 1u << k;
      if (k == 0 && v != kCheckAgents) straight = v;
      ahead[k] = 0;
    }
  }

  // Whether neighbour() can change anything for an agent at q (a filter, for gathering neighbours first).
  WM_HD bool reaches(float qx, float qy) const {
    const float ex = fsub(qx, ox), ey = fsub(qy, oy), q2 = fadd(fmul(ex, ex), fmul(ey, ey));
    return q2 < near2 || q2 < far2;
  }

  // Another agent: old position q, wanted target w, the square of the sum of the two radii s2.
  WM_HD void neighbour(float qx, float qy, float wx, float wy, float s2) {
    const float ex = fsub(qx, ox), ey = fsub(qy, oy), q2 = fadd(fmul(ex, ex), fmul(ey, ey));
    const bool ours = fadd(fmul(dx, fsub(wx, qx)), fmul(dy, fsub(wy, qy))) > 0.0f;  // going our way
    if (q2 < near2) {
      const float de = fadd(fmul(dx, ex), fmul(dy, ey));
      const bool followed = ours && de > 0.0f && fmul(de, de) > fmul(kFollowCone2, fmul(dd, q2));
      const float gap2 = followed ? fmul(s2, kFollowGap2) : s2;
      WM_UNROLL
      for (int k = 0; k < kCandidates; ++k)
        if ((free >> k & 1u) && !swept_apart(ox, oy, cx[k], cy[k], qx, qy, k < kForward ? gap2 : s2))
          free &= ~(1u << k);
    }
    if (q2 < far2 && !ours) {
      WM_UNROLL
      for (int k = 0; k < kForward; ++k)
        if (!swept_apart(ox, oy, lx[k], ly[k], qx, qy, s2)) ++ahead[k];
    }
  }

  // The candidate taken: of the free forward ones, the one with the fewest agents ahead, the first of
  // equals; with no forward one free, the first free one backing off; -1: none free.
  WM_HD int choice() const {
    int best = -1;
    unsigned fewest = 0;
    WM_UNROLL
    for (int k = 0; k < kForward; ++k)
      if ((free >> k & 1u) && (best < 0 || ahead[k] < fewest)) {
        best = k;
        fewest = ahead[k];
      }
    WM_UNROLL
    for (int k = kForward; k < kCandidates; ++k)
      if (best < 0 && (free >> k & 1u)) best = k;
    return best;
  }
};

// Binning cell along one axis, clamped into [0, cells - 1] (points outside the world land in the border
// cells).
WM_HD int cell_axis(float v, float origin, float cell, int cells) {
  return static_cast<int>(fminf(fmaxf(floorf(fdiv(fsub(v, origin), cell)), 0.0f), static_cast<float>(cells - 1)));
}
WM_HD int cell_x(float x, const Geometry& g) { return cell_axis(x, g.x0, g.cell, g.cells_x); }
WM_HD int cell_y(float y, const Geometry& g) { return cell_axis(y, g.y0, g.cell, g.cells_y); }

}  // namespace warpmind::crowd::rules
