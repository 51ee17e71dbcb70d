// Brute-force region matching written straight from the half-open contract in warpmind/ddm/ddm.h,
// sharing no code with the matchers (not even ddm::overlaps): the independent reference of the DDM
// tests and of `warpmind-bench ddm` (every region on small cases, a sample of regions on large ones).
#pragma once

#include <cstddef>
#include <vector>

#include "warpmind/ddm/ddm.h"

namespace warpmind::oracle {

// Half-open boxes [lo, hi) overlap iff each is non-empty on every axis and they intersect on every axis.
template <int D>
bool ddm_overlap(const ddm::Box<D>& a, const ddm::Box<D>& b) {
  for (int k = 0; k < D; ++k) {
    if (!(a.lo[k] < a.hi[k]) || !(b.lo[k] < b.hi[k])) return false;  // empty on this axis
    if (!(a.lo[k] < b.hi[k]) || !(b.lo[k] < a.hi[k])) return false;
  }
  return true;
}

// The pairs region `id` takes part in (as publication or subscription), sorted by (publication,
// subscription). `alive` may be empty (every region alive).
template <int D>
std::vector<ddm::Pair> ddm_pairs_of(const std::vector<ddm::RegionKind>& kind, const std::vector<ddm::Box<D>>& box,
                                    const std::vector<bool>& alive, ddm::RegionId id) {
  std::vector<ddm::Pair> out;
  const auto live = [&](std::size_t i) { return alive.empty() || alive[i]; };
  if (!live(id)) return out;
  for (ddm::RegionId o = 0; o < box.size(); ++o) {
    if (o == id || !live(o) || kind[o] == kind[id] || !ddm_overlap<D>(box[id], box[o])) continue;
    out.push_back(kind[id] == ddm::RegionKind::Publication ? ddm::Pair{id, o} : ddm::Pair{o, id});
  }  // o ascends, so the pairs are sorted either way
  return out;
}

// Every pair, sorted (O(N^2)).
template <int D>
std::vector<ddm::Pair> ddm_pairs(const std::vector<ddm::RegionKind>& kind, const std::vector<ddm::Box<D>>& box,
                                 const std::vector<bool>& alive) {
  std::vector<ddm::Pair> out;
  for (ddm::RegionId p = 0; p < box.size(); ++p) {
    if (kind[p] != ddm::RegionKind::Publication) continue;
    for (const ddm::Pair& q : ddm_pairs_of<D>(kind, box, alive, p)) out.push_back(q);
  }
  return out;
}

}  // namespace warpmind::oracle
