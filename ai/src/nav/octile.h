// The exact octile distance of nav.h, written once for host and device: a value A + B * sqrt(2) with
// integer parts, compared exactly, and its float (the definition's rounding).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace warpmind::nav::octile {

struct Exact {
  std::uint32_t a = 0, b = 0;  // A + B * sqrt(2)
};

constexpr std::uint32_t kUnreached = 0xFFFFFFFFu;  // Exact::a of a cell not reached (real parts stay below)

// x < y, exactly: (x.a - y.a) < (y.b - x.b) * sqrt(2), by the signs and then the squares (64 bits where
// both differences are below 2^31, else 128: the parts are below 2^32).
WM_HD bool less(Exact x, Exact y) {
  const std::int64_t da = static_cast<std::int64_t>(x.a) - static_cast<std::int64_t>(y.a);
  const std::int64_t db = static_cast<std::int64_t>(y.b) - static_cast<std::int64_t>(x.b);
  if (da < 0 && db >= 0) return true;
  if (da >= 0 && db <= 0) return false;
  const std::uint64_t ua = static_cast<std::uint64_t>(da < 0 ? -da : da);
  const std::uint64_t ub = static_cast<std::uint64_t>(db < 0 ? -db : db);
  if (ua < (std::uint64_t{1} << 31) && ub < (std::uint64_t{1} << 31)) {
    const std::uint64_t a2 = ua * ua, b2 = 2 * ub * ub;
    return da >= 0 ? a2 < b2 : a2 > b2;
  }
  const unsigned __int128 a2 =
      static_cast<unsigned __int128>(da < 0 ? -da : da) * static_cast<unsigned __int128>(da < 0 ? -da : da);
  const unsigned __int128 b2 =
      2 * static_cast<unsigned __int128>(db < 0 ? -db : db) * static_cast<unsigned __int128>(db < 0 ? -db : db);
  return da >= 0 ? a2 < b2 : a2 > b2;
}

WM_HD bool same(Exact x, Exact y) { return x.a == y.a && x.b == y.b; }

// The value a step into a cell of `cost` adds: straight to A, diagonal to B.
WM_HD Exact plus_step(Exact e, bool diagonal, std::uint32_t cost) {
  if (diagonal)
    e.b += cost;
  else
    e.a += cost;
  return e;
}

// The map as both sides read it: cost[y * width + x], 0 blocked; outside the grid is blocked.
struct CostView {
  const std::uint8_t* cost = nullptr;
  int width = 0, height = 0;
  WM_HD std::uint32_t at(int x, int y) const {
    return x >= 0 && y >= 0 && x < width && y < height
               ? cost[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)]
               : 0u;
  }
};

// nav.h's kSteps, (dx, dy) of step k (0..7: E, SE, S, SW, W, NW, N, NE), as 2-bit fields of dx + 1, dy + 1.
WM_HD constexpr int step_dx(int k) { return static_cast<int>((0x901Au >> (2 * k)) & 3u) - 1; }
WM_HD constexpr int step_dy(int k) { return static_cast<int>((0x01A9u >> (2 * k)) & 3u) - 1; }
WM_HD constexpr bool step_diagonal(int k) { return (k & 1) != 0; }

// Whether step k from (x, y) is allowed: both cells passable, and for a diagonal both cells beside it. The
// same cells decide the step back, so a step is allowed both ways or neither.
WM_HD bool allowed(const CostView& g, int x, int y, int k) {
  const int dx = step_dx(k), dy = step_dy(k);
  if (!g.at(x, y) || !g.at(x + dx, y + dy)) return false;
  return dx == 0 || dy == 0 || (g.at(x + dx, y) && g.at(x, y + dy));
}

// nav.h's direction rule: the first allowed step k to a neighbour n with exact(n) + the step's cost ==
// exact(x, y); -1 where (x, y) is not reached and at the goal (no step leads to 0). exact_at(x, y): the
// exact value of an in-grid cell.
template <class ExactAt>
WM_HD int direction(const CostView& g, int x, int y, const Exact& here, ExactAt&& exact_at) {
  if (here.a == kUnreached) return -1;
  for (int k = 0; k < 8; ++k) {
    if (!allowed(g, x, y, k)) continue;
    const int nx = x + step_dx(k), ny = y + step_dy(k);
    const Exact n = exact_at(nx, ny);
    if (n.a == kUnreached) continue;
    Exact via = n;
    if (step_diagonal(k))
      via.b += g.at(nx, ny);
    else
      via.a += g.at(nx, ny);
    if (via.a == here.a && via.b == here.b) return k;
  }
  return -1;
}

// float(double(A) + double(B) * sqrt2), sqrt2 the double nearest sqrt(2), each operation rounded to nearest.
WM_HD float to_float(Exact e) {
  constexpr double kSqrt2 = 1.4142135623730951;
#if defined(__CUDA_ARCH__)
  return __double2float_rn(__dadd_rn(static_cast<double>(e.a), __dmul_rn(static_cast<double>(e.b), kSqrt2)));
#else
  const double diagonal = static_cast<double>(e.b) * kSqrt2;
  return static_cast<float>(static_cast<double>(e.a) + diagonal);
#endif
}

}  // namespace warpmind::nav::octile
