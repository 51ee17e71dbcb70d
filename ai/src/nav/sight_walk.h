// sight.h's line of sight, written once for host and device: the segment between two cells' centres
// walked by the crowd's wall rule in integers (the centres are half-integers, so crossings compare
// exactly by cross-multiplying).
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "nav/octile.h"

namespace warpmind::nav::octile {

WM_HD bool sight_walk(const CostView& g, int ax, int ay, int bx, int by) {
  if (!g.at(ax, ay) || !g.at(bx, by)) return false;
  const int adx = bx > ax ? bx - ax : ax - bx, ady = by > ay ? by - ay : ay - by;
  const int sx = bx > ax ? 1 : -1, sy = by > ay ? 1 : -1;
  int x = ax, y = ay;
  // The next column line is crossed at t = (2 |x - ax| + 1) / (2 |dx|), the next row line at
  // (2 |y - ay| + 1) / (2 |dy|); a line is never crossed where its d is 0.
  while (x != bx || y != by) {
    const std::int64_t tx = adx == 0 ? -1 : (2 * static_cast<std::int64_t>(x > ax ? x - ax : ax - x) + 1) * ady;
    const std::int64_t ty = ady == 0 ? -1 : (2 * static_cast<std::int64_t>(y > ay ? y - ay : ay - y) + 1) * adx;
    if (ady == 0 || (adx != 0 && tx < ty)) {
      x += sx;
    } else if (adx == 0 || ty < tx) {
      y += sy;
    } else {  // through the corner: both cells beside it, then the diagonal one
      if (!g.at(x + sx, y) || !g.at(x, y + sy)) return false;
      x += sx;
      y += sy;
    }
    if (!g.at(x, y)) return false;
  }
  return true;
}

}  // namespace warpmind::nav::octile
