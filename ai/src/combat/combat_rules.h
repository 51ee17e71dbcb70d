// The combat volley's arithmetic, written once for the CPU variant (ai/src/combat) and the kernels
// (gpu/src/combat/): the squared distance of the range test and the grid cell of a position. The
// contract is ai/include/warpmind/combat/combat.h's; the operations are hd.h's exactly rounded ones.
#pragma once

#include "core/hd.h"

namespace warpmind::combat::rules {

// dx * dx + dy * dy in float, dx = xj - xi (no fused multiply-add): j is in i's range iff <= range^2.
WM_HD float distance2(float xi, float yi, float xj, float yj) {
  const float dx = fsub(xj, xi), dy = fsub(yj, yi);
  return fadd(fmul(dx, dx), fmul(dy, dy));
}

// The cell along one axis: floor((v - origin) / side) clamped into [0, count - 1]; a NaN goes to 0.
WM_HD int cell_axis(float v, float origin, float side, int count) {
  const float f = floorf(fdiv(fsub(v, origin), side));
  if (!(f >= 0.0f)) return 0;
  if (f >= static_cast<float>(count - 1)) return count - 1;
  return static_cast<int>(f);
}

// A pair found better than the best so far: nearer, or as near with a lower id.
WM_HD bool better(float d2, unsigned j, float best_d2, unsigned best) {
  return d2 < best_d2 || (d2 == best_d2 && j < best);
}

}  // namespace warpmind::combat::rules
