// The exact octile distance of nav.h, written once for host and device: a value A + B * sqrt(2) with
// integer parts, compared exactly, and its float (the definition's rounding).
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace warpmind::nav::octile {

struct Exact {
  std::uint32_t a = 0, b = 0;  // A + B * sqrt(2)
};

// x < y, exactly: (x.a - y.a) < (y.b - x.b) * sqrt(2), by the signs and then the squares (128 bits: the
// parts are below 2^32).
WM_HD bool less(Exact x, Exact y) {
  const std::int64_t da = static_cast<std::int64_t>(x.a) - static_cast<std::int64_t>(y.a);
  const std::int64_t db = static_cast<std::int64_t>(y.b) - static_cast<std::int64_t>(x.b);
  if (da < 0 && db >= 0) return true;
  if (da >= 0 && db <= 0) return false;
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
