// The field's exact arithmetic, written once for the CPU variants (ai/src/field) and the kernels
// (gpu/src/field/field.cu): where a point sits on the grid, how far a cell is, how a charge kind's value is
// rounded and summed, and the batched queries (sample, best move, gradient). The definition they
// implement is ai/include/warpmind/field/field.h's contract, and the rules speak its types (Vec2,
// MoveChoice, ChargeProfile); the operations are hd.h's exactly rounded ones, so both sides give the same
// bits.
#pragma once

#include <cstdint>
#include <limits>

#include "core/hd.h"
#include "warpmind/field/field.h"

namespace warpmind::field::rules {

// Cell coordinate of a world coordinate: floor((p - origin) / cell), clamped far outside any grid so the
// int is always defined.
WM_HD int snap(float p, float origin, float cell) {
  float f = floorf(fdiv(fsub(p, origin), cell));
  f = fminf(fmaxf(f, -1.0e7f), 1.0e7f);
  return static_cast<int>(f);
}

// Squared and plain distance of a cell offset (dx, dy) for cells of cell_w x cell_h.
WM_HD float distance2(int dx, int dy, float cell_w, float cell_h) {
  const float fx = fmul(static_cast<float>(dx), cell_w), fy = fmul(static_cast<float>(dy), cell_h);
  return fadd(fmul(fx, fx), fmul(fy, fy));
}
WM_HD float distance(int dx, int dy, float cell_w, float cell_h) { return fsqrt(distance2(dx, dy, cell_w, cell_h)); }

// A charge kind's value at distance d: intercept[k] + slope[k] * d for the first segment with d <= end[k];
// 0 beyond the last end.
WM_HD float kind_value(const ChargeProfile& k, float d) {
  for (int s = 0; s < k.segments; ++s)
    if (d <= k.end[s]) return fadd(k.intercept[s], fmul(k.slope[s], d));
  return 0.0f;
}

// A contribution in units of 2^-10, rounded to nearest, ties to even; and an exact sum back to the
// nearest float.
WM_HD std::int32_t quantize(float u) { return round_to_int(fmul(u, static_cast<float>(1 << kFixedPointBits))); }
WM_HD float dequantize(long long acc) {
  return static_cast<float>(static_cast<double>(acc) * (1.0 / static_cast<double>(1 << kFixedPointBits)));
}

// One layer (row-major, width floats a row) for the queries; a point outside the grid is clamped to the
// nearest border cell.
struct LayerView {
  const float* f;
  float x0, y0, cell_w, cell_h;
  int width, height;
  WM_HD float at(int x, int y) const { return f[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x]; }
  WM_HD int cx(float x) const { return clamp_int(snap(x, x0, cell_w), 0, width - 1); }
  WM_HD int cy(float y) const { return clamp_int(snap(y, y0, cell_h), 0, height - 1); }
};

// The queries' one rule for a point with a non-finite coordinate: the host calls reject it (field.cpp);
// on device points, which are not checked, sample and gradient give NaN, best_move cell (-1, -1) with the
// point as its target and a NaN value, and steer leaves the point where it is (heading unchanged).
WM_HD bool finite_point(Vec2 p) { return fabsf(p.x) <= 3.40282347e38f && fabsf(p.y) <= 3.40282347e38f; }
WM_HD float not_a_number() { return std::numeric_limits<float>::quiet_NaN(); }

WM_HD float sample(const LayerView& v, Vec2 p) { return finite_point(p) ? v.at(v.cx(p.x), v.cy(p.y)) : not_a_number(); }

// The best cell of the (2 half + 1)^2 block around p's cell (cells off the grid skipped; ties: the first
// in row-major order) and its centre.
WM_HD MoveChoice best_move(const LayerView& v, Vec2 p, int half) {
  if (!finite_point(p)) {
    MoveChoice none;
    none.cell_x = none.cell_y = -1;
    none.target = p;
    none.value = not_a_number();
    return none;
  }
  const int cx = v.cx(p.x), cy = v.cy(p.y);
  int bx = cx, by = cy;
  float best = v.at(cx, cy);
  bool first = true;
  for (int y = cy - half; y <= cy + half; ++y) {
    if (y < 0 || y >= v.height) continue;
    for (int x = cx - half; x <= cx + half; ++x) {
      if (x < 0 || x >= v.width) continue;
      const float val = v.at(x, y);
      if (first || val > best) {
        best = val;
        bx = x;
        by = y;
      }
      first = false;
    }
  }
  MoveChoice m;
  m.cell_x = bx;
  m.cell_y = by;
  m.target = {fadd(fmul(fadd(static_cast<float>(bx), 0.5f), v.cell_w), v.x0),
              fadd(fmul(fadd(static_cast<float>(by), 0.5f), v.cell_h), v.y0)};
  m.value = best;
  return m;
}

// A unit's step towards the centre c of the best cell of its window (best_move): with (dx, dy) = c - p
// and d = sqrt(dx*dx + dy*dy) (float, no fused multiply-add), p + (dx / d * step, dy / d * step) when
// d > step, else c itself. dx and dy are handed back (the direction, for a heading).
WM_HD Vec2 steer(const LayerView& v, Vec2 p, int half, float step, float& dx, float& dy) {
  if (!finite_point(p)) {
    dx = dy = 0.0f;
    return p;
  }
  const MoveChoice m = best_move(v, p, half);
  dx = fsub(m.target.x, p.x);
  dy = fsub(m.target.y, p.y);
  const float d = fsqrt(fadd(fmul(dx, dx), fmul(dy, dy)));
  if (d > step) return {fadd(p.x, fmul(fdiv(dx, d), step)), fadd(p.y, fmul(fdiv(dy, d), step))};
  return m.target;
}

// Central differences in value per world unit (one-sided on the border; 0 along an axis of one cell).
WM_HD Vec2 gradient(const LayerView& v, Vec2 p) {
  if (!finite_point(p)) return {not_a_number(), not_a_number()};
  const int x = v.cx(p.x), y = v.cy(p.y), w = v.width, h = v.height;
  Vec2 r{0.0f, 0.0f};
  if (w > 1) {
    if (x == 0)
      r.x = fdiv(fsub(v.at(1, y), v.at(0, y)), v.cell_w);
    else if (x == w - 1)
      r.x = fdiv(fsub(v.at(x, y), v.at(x - 1, y)), v.cell_w);
    else
      r.x = fdiv(fsub(v.at(x + 1, y), v.at(x - 1, y)), fmul(2.0f, v.cell_w));
  }
  if (h > 1) {
    if (y == 0)
      r.y = fdiv(fsub(v.at(x, 1), v.at(x, 0)), v.cell_h);
    else if (y == h - 1)
      r.y = fdiv(fsub(v.at(x, y), v.at(x, y - 1)), v.cell_h);
    else
      r.y = fdiv(fsub(v.at(x, y + 1), v.at(x, y - 1)), fmul(2.0f, v.cell_h));
  }
  return r;
}

}  // namespace warpmind::field::rules
