// Region matching's overlap test, written once for the CPU variants (ai/src/ddm) and the kernels
// (gpu/src/ddm/ddm.cu): half-open boxes [lo, hi) that overlap on every axis, both non-empty there — the
// contract of ai/include/warpmind/ddm/ddm.h (whose overlaps<D> is the reference the tests hold it to).
#pragma once

#include "core/hd.h"

namespace warpmind::ddm::rules {

template <int D>
WM_HD bool overlaps(const float* alo, const float* ahi, const float* blo, const float* bhi) {
  WM_UNROLL
  for (int k = 0; k < D; ++k)
    if (!(alo[k] < bhi[k] && blo[k] < ahi[k] && alo[k] < ahi[k] && blo[k] < bhi[k])) return false;
  return true;
}

}  // namespace warpmind::ddm::rules
