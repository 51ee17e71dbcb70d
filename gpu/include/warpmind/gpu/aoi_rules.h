// The AOI tick's arithmetic, written once for the CPU variants (ai/src/aoi) and the kernels
// (gpu/src/aoi/): the squared distance of the circle AOI and the attack range, the bucket of a
// position, and a merged move applied and clamped into the world. The tick's contract is
// ai/include/warpmind/aoi/aoi.h's; the operations are hd.h's exactly rounded ones, so every variant gives
// the same bits.
#pragma once

#include "warpmind/gpu/hd.h"

namespace warpmind::gpu::aoi_rules {

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

}  // namespace warpmind::gpu::aoi_rules
