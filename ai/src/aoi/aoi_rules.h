// The AOI tick's arithmetic, written once for the CPU variants (ai/src/aoi) and the kernels
// (gpu/src/aoi/): the squared distance of the circle AOI and the attack range, the bucket of a
// position, a merged move applied and clamped into the world, and how a tick's notifications are cut
// into chunks of receivers for delivery. The tick's contract is
// ai/include/warpmind/aoi/aoi.h's; the operations are hd.h's exactly rounded ones, so every variant gives
// the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace warpmind::aoi::rules {

// dx * dx + dy * dy in float, dx = ax - bx: the circle AOI (<= aoi^2) and the attack range (<= range^2).
WM_HD float distance2(float ax, float ay, float bx, float by) {
  const float dx = fsub(ax, bx), dy = fsub(ay, by);
  return fadd(fmul(dx, dx), fmul(dy, dy));
}

// The bucket index along one axis: floor((v - origin) / side), clamped into [0, count - 1].
WM_HD int bucket_axis(float v, float origin, float side, int count) {
  return clamp_int(static_cast<int>(floorf(fdiv(fsub(v, origin), side))), 0, count - 1);
}

// A coordinate moved by the merged offset and clamped into [lo, last] (last: the float just below the
// world's upper edge).
WM_HD float moved(float v, float offset, float lo, float last) {
  const float m = fadd(v, offset);
  return m < lo ? lo : (last < m ? last : m);
}

// A player's HP after the tick's merged damage (attacks' damage minus heals', summed exactly in 64 bits),
// clamped into [0, 2^31 - 1].
WM_HD std::int32_t hp_after(std::int32_t hp, std::int64_t damage) {
  const std::int64_t left = static_cast<std::int64_t>(hp) - damage;
  return static_cast<std::int32_t>(left < 0 ? 0 : (left > 2147483647 ? 2147483647 : left));
}

// The chunks a tick's notifications are delivered in (host only). offset[0..n]: receiver r's
// notifications are [offset[r], offset[r + 1]), offset[n] the total. Greedy from receiver 0: the chunk
// that starts at receiver r0 ends before r1, the largest index <= n with offset[r1] - offset[r0] <=
// chunk, or r0 + 1 if that is r0 (one receiver with more than `chunk` notifications is a chunk alone).
// So a chunk holds whole receivers and at most `chunk` notifications unless it is one receiver, and
// receivers without notifications join the chunk before them when it has room. fn(r0, r1) is called for
// each chunk in order; none when n = 0. chunk >= 1.
template <class Fn>
void for_each_chunk(const std::uint64_t* offset, std::size_t n, std::uint64_t chunk, Fn&& fn) {
  std::size_t r0 = 0;
  while (r0 < n) {
    const std::uint64_t limit = offset[r0] + chunk < offset[r0] ? ~std::uint64_t{0} : offset[r0] + chunk;
    std::size_t lo = r0 + 1, hi = n + 1;  // the first index in (r0, n] past the limit, or n + 1
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (offset[mid] <= limit)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::size_t r1 = lo - 1 > r0 ? lo - 1 : r0 + 1;
    fn(r0, r1);
    r0 = r1;
  }
}

}  // namespace warpmind::aoi::rules
