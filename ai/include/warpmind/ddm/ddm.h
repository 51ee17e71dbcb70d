// warpmind::ddm::RegionMatcher — HLA Data Distribution Management region matching: which publication
// regions overlap which subscription regions, kept current as regions are added, moved and removed.
//
// Regions are axis-aligned boxes in D dimensions (D = 2 and 3 are built) with HALF-OPEN extents
// [lo, hi) on every axis. Two boxes a and b overlap iff on every axis k
//     lo_a[k] < hi_a[k]  and  lo_b[k] < hi_b[k]     (both boxes non-empty on that axis)
//     lo_a[k] < hi_b[k]  and  lo_b[k] < hi_a[k]     (and they intersect on it),
// all compared as floats. So boxes that only touch do not overlap, and a box of zero width on any axis
// (lo == hi, allowed) matches nothing — not even a box that contains it: [5, 5) x [0, 10) inside
// [0, 10) x [0, 10) is no pair, although the second pair of inequalities alone would say it is.
// (OpenRTI uses half-open ranges, CERTI closed ones; this library is half-open everywhere.)
//
// match() returns every overlapping (publication, subscription) pair, sorted by (publication id,
// subscription id). match_changes() returns only the pairs that appeared or disappeared since the
// previous match()/match_changes(), each list sorted. On the CPU variants: when few regions were added,
// updated or removed in between (the seed's "updated regions"), each of them is matched against every
// region of the other kind; when more than an eighth were, the variant matches everything again and the
// two sets are diffed. The GPU variants match everything on the device and diff there against the
// previous match, which stays in device memory; only the changes are downloaded. Every variant returns
// identical results.
//
// Variants: cpu-brute (every publication against every subscription; the oracle), cpu-sort
// (regions sorted by their lower bound on axis 0; each publication binary-searches the window of
// subscriptions that can reach it on that axis — regions much wider than the typical one are kept on a
// side list checked against everything — then the other axes are tested; multi-threaded, two-phase
// count and store, so the output is in order without a global sort), and with the CUDA backend
// gpu-region (every publication against every subscription, tiled through shared memory) and gpu-grid
// (subscriptions in cell lists built by count / scan / scatter / sort; each pair reported once, in the
// cell of its intersection's lower corner); see gpu/src/ddm/ddm.cu. The GPU variants upload the boxes at
// every match (the ids too when regions were added or holes closed) and download the pairs or changes.
// Auto picks gpu-grid on a CUDA context, cpu-sort on a CPU one.
//
// Storage: the regions are kept packed by kind (one slot each, ids ascending with the slot, a removed
// region leaving a hole that holds an empty box until more than a quarter of a kind's slots are holes
// and the next match closes them). On the GPU variants that memory is page-locked and is what the device
// copies read, so a match after updates packs nothing on the host. update() writes a box into its slot;
// the batch update() does so for many regions at once, on the context's thread pool.
//
// Errors (NaN or infinite bounds, lo > hi, an unknown or removed id) are returned as Status and change
// nothing. Ids are never reused.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"

namespace warpmind::ddm {

enum class DdmVariant { Auto, CpuBrute, CpuSort, GpuRegion, GpuGrid };
const char* variant_name(DdmVariant v);
bool parse_variant(std::string_view name, DdmVariant& out);

enum class RegionKind : std::uint8_t { Publication, Subscription };

template <int D>
struct Box {
  std::array<float, D> lo{}, hi{};
};

using RegionId = std::uint32_t;

struct Pair {
  RegionId publication = 0, subscription = 0;
  bool operator==(const Pair&) const = default;
  bool operator<(const Pair& o) const {
    return publication != o.publication ? publication < o.publication : subscription < o.subscription;
  }
};

// The half-open overlap test above (empty boxes overlap nothing), as every variant applies it.
template <int D>
bool overlaps(const Box<D>& a, const Box<D>& b) {
  for (int k = 0; k < D; ++k)
    if (!(a.lo[k] < b.hi[k] && b.lo[k] < a.hi[k] && a.lo[k] < a.hi[k] && b.lo[k] < b.hi[k])) return false;
  return true;
}

// How a matcher is made.
struct MatcherConfig {
  DdmVariant variant = DdmVariant::Auto;  // Auto: gpu-grid on a CUDA context, cpu-sort on a CPU one
  // gpu-grid's cell side (0: per axis, the median extent of up to 8,192 subscriptions taken at an even
  // stride in id order, at least 1/2048 of the boxes' span in 2D, 1/128 in 3D); finite and >= 0; ignored by
  // the other variants. The cell changes the speed only: every cell gives the same pairs.
  float grid_cell = 0;
};

// Where the last match()'s or match_changes()'s time went (ms). CPU: match is the wall time. GPU: upload
// (boxes up, and ids when they changed), match (device time of the match and of the diff), download
// (pairs or changes down), each on the device's timeline; host is the rest of the call's wall time
// (choosing the grid, copying the results out of the staging, launches and waits; 0 on the CPU).
struct MatchTimes {
  double upload = 0, match = 0, download = 0, host = 0;
};

// Blocking: every call returns when its results are in host memory (the GPU variants upload the boxes
// and download the pairs inside match() and match_changes()). Not thread-safe: one thread at a time per
// matcher. The Context must outlive the matcher.
template <int D>
class RegionMatcher {
 public:
  static constexpr int kDimensions = D;

  // Fails (Unavailable) for a GPU variant on a CPU context, (InvalidArgument) for a bad grid cell. The
  // context must outlive the matcher.
  static Status create(Context& ctx, const MatcherConfig& config, std::unique_ptr<RegionMatcher>& out);
  ~RegionMatcher();

  // Cost: O(1) each (add: amortised; its kind's arrays grow by doubling).
  Status add(RegionKind kind, const Box<D>& box, RegionId& id);
  Status update(RegionId id, const Box<D>& box);  // move and/or resize
  Status remove(RegionId id);
  // Batch update: region ids[i] gets boxes[i], as if update(ids[i], boxes[i]) were called for each i, but
  // all or nothing. Errors, checked before anything changes (the message names the first offending index
  // i, "update: batch index i ..."): ids.size() != boxes.size(); an unknown or removed id; a NaN or
  // infinite bound or lo > hi; an id given twice in one batch (no "last one wins": a repeat is an error).
  // An empty batch does nothing and succeeds. Large batches (thousands of regions) are checked and
  // written on the context's thread pool; ids in ascending order are the cheapest (repeats are then
  // ruled out without a per-id pass). Allocates nothing once the matcher's buffers have grown. The spans
  // are only read during the call.
  Status update(std::span<const RegionId> ids, std::span<const Box<D>> boxes);

  Status match(std::vector<Pair>& out);
  Status match_changes(std::vector<Pair>& appeared, std::vector<Pair>& disappeared);

  std::size_t publications() const;
  std::size_t subscriptions() const;
  DdmVariant variant() const { return variant_; }
  const MatchTimes& last_times() const;

  struct Impl;

 private:
  RegionMatcher() = default;
  Context* ctx_ = nullptr;
  DdmVariant variant_ = DdmVariant::Auto;
  std::unique_ptr<Impl> impl_;
};

extern template class RegionMatcher<2>;
extern template class RegionMatcher<3>;

}  // namespace warpmind::ddm
