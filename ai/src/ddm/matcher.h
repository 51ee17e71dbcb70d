// The region matcher's state and the parts its files share (ddm.cpp: the matcher's calls and dispatch;
// match_cpu.cpp: the CPU variants' full matches; match_gpu.cpp: the GPU variants' host side).
//
// The regions live packed by kind (Impl::Packed): slot i of a kind holds a box and its id, ids ascending
// with the slot. That is the layout DdmDevice::match reads, so on the GPU variants the arrays are
// page-locked and a match uploads them as they are; the CPU variants work on the same slots. A removed
// region leaves a hole (its id kept, its box made empty, so it matches nothing anywhere) until a match
// finds more than a quarter of its kind's slots are holes and closes them (compact()).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/bucket_index.h"
#include "ddm/ddm_rules.h"
#include "ddm/host_array.h"
#include "warpmind/ddm/ddm.h"

#if WARPMIND_HAVE_CUDA
#include "ddm/ddm_device.h"
#endif

namespace warpmind::ddm {

namespace detail {

// The overlap test shared with the kernels (ai/src/ddm/ddm_rules.h).
template <int D>
bool overlap(const Box<D>& a, const Box<D>& b) {
  return rules::overlaps<D>(a.lo.data(), a.hi.data(), b.lo.data(), b.hi.data());
}

inline bool is_gpu(DdmVariant v) { return v == DdmVariant::GpuRegion || v == DdmVariant::GpuGrid; }
static_assert(sizeof(Pair) == 2 * sizeof(std::uint32_t));

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Regions per chunk of the pool's passes over them: large enough that a small batch runs on the calling
// thread alone.
constexpr std::size_t kRegionChunk = 16384;

// The smallest box holding a set of boxes (+inf / -inf when the set is empty).
template <int D>
struct Bounds {
  std::array<float, D> lo, hi;
  Bounds() { clear(); }
  void clear() {
    lo.fill(INFINITY);
    hi.fill(-INFINITY);
  }
  void add(const Box<D>& b) {
    for (int k = 0; k < D; ++k) {
      lo[k] = std::min(lo[k], b.lo[k]);
      hi[k] = std::max(hi[k], b.hi[k]);
    }
  }
  void add(const Bounds& b) {
    for (int k = 0; k < D; ++k) {
      lo[k] = std::min(lo[k], b.lo[k]);
      hi[k] = std::max(hi[k], b.hi[k]);
    }
  }
};

// A valid box: finite bounds and lo <= hi on every axis (false for any NaN).
template <int D>
bool box_ok(const Box<D>& b) {
  bool ok = true;
  for (int k = 0; k < D; ++k)
    ok &= b.lo[k] <= b.hi[k] && b.lo[k] >= -std::numeric_limits<float>::max() &&
          b.hi[k] <= std::numeric_limits<float>::max();
  return ok;
}

// `id` >= 0: the message names the region ("update of region N"); the text is built only on failure, so
// a valid box costs no allocation.
template <int D>
Status check_box(const Box<D>& b, const std::string_view what, long long id = -1) {
  for (int k = 0; k < D; ++k) {
    const bool finite = std::isfinite(b.lo[k]) && std::isfinite(b.hi[k]);
    if (finite && !(b.lo[k] > b.hi[k])) continue;
    const std::string who = std::string(what) + (id >= 0 ? " of region " + std::to_string(id) : "");
    return Status::Invalid(who + (finite ? ": lo > hi on axis " : ": bounds on axis ") + std::to_string(k) +
                           (finite ? "" : " must be finite"));
  }
  return Status::Ok();
}

inline int kind_index(RegionKind k) { return k == RegionKind::Publication ? 0 : 1; }

}  // namespace detail

using namespace detail;

template <int D>
struct RegionMatcher<D>::Impl {
  // One kind's regions: slot i holds box[i] and id[i], ids ascending with i (a new region takes the next
  // slot; ids only grow). A hole (a removed region) keeps its id and holds an empty box. `spare` is a
  // second box array of the same size whose holes are empty too (its other slots are stale): a batch
  // that updates every region writes it in the same pass that checks the batch, and it is swapped in
  // only when the whole batch was valid.
  struct Packed {
    HostArray<Box<D>> box, spare;
    HostArray<RegionId> id;
    std::size_t holes = 0;
    std::size_t size() const { return id.size(); }
  };
  Packed packed[2];  // [0] publications, [1] subscriptions
  // Per id (ids are never reused): where it is (slot << 1 | kind, kind 0 or 1; kRemoved once removed),
  // whether it is live.
  static constexpr std::uint32_t kRemoved = UINT32_MAX;
  std::vector<std::uint32_t> where;
  std::vector<std::uint8_t> alive, dirty_flag;
  std::size_t pubs = 0, subs = 0;
  // Changed with every add and every compaction: the device uploads the ids only when it changed.
  std::uint64_t ids_version = 1;
  // The live boxes' bounds for gpu-grid's grid, when bounds_exact; otherwise (after a removal, a single
  // update or a partial batch) the next grid recomputes them.
  Bounds<D> bounds;
  bool bounds_exact = true;
  // The ids changed since the last match, for the CPU variants' incremental match_changes (the GPU
  // variants match everything and keep no list). all_dirty: a batch changed more than an eighth of the
  // regions at once, so the next match_changes matches everything and the list was not kept.
  bool track_dirty = true, all_dirty = false;
  std::vector<RegionId> dirty;
  std::vector<Pair> prev;  // the pairs at the last match, sorted (CPU variants)
  bool have_prev = false;
  // Scratch, reused.
  std::vector<std::uint32_t> sub_sorted, sub_wide, ids_tmp, stamp;
  warpmind::detail::BucketIndex stripes;  // sub_sorted's entries by stripe
  std::vector<float> widths;
  std::vector<std::uint64_t> counts;
  std::vector<std::vector<std::uint32_t>> scratch;  // per worker
  std::vector<Pair> fresh, old_pairs, kept;
  struct alignas(64) Acc {  // per worker, for the passes of the batch update
    Bounds<D> bounds;
    bool bad = false, unsorted = false;
  };
  std::vector<Acc> acc;
  MatchTimes times;
  float grid_cell = 0;
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::DdmDevice> device;
  bool device_grid = false;  // gpu-grid: the grid is chosen at every match
#endif

  void mark(RegionId id) {
    if (!track_dirty || all_dirty || dirty_flag[id]) return;
    dirty_flag[id] = 1;
    dirty.push_back(id);
  }
  void clear_dirty() {
    for (RegionId d : dirty) dirty_flag[d] = 0;
    dirty.clear();
    all_dirty = false;
  }
  bool many_dirty() const { return all_dirty || dirty.size() * 8 > pubs + subs; }
  int kind_of(RegionId id) const { return static_cast<int>(where[id] & 1); }  // live ids only
  const Box<D>& box_of(RegionId id) const { return packed[where[id] & 1].box[where[id] >> 1]; }

  // Closes the holes of a kind with more than a quarter of its slots empty (O(slots), amortised over the
  // removals that made them).
  void compact_sparse() {
    for (int k = 0; k < 2; ++k) {
      Packed& p = packed[k];
      if (p.holes * 4 <= p.size()) continue;
      std::size_t w = 0;
      for (std::size_t r = 0; r < p.size(); ++r) {
        const RegionId id = p.id[r];
        if (!alive[id]) continue;
        if (w != r) {
          p.box[w] = p.box[r];
          p.id[w] = id;
          where[id] = static_cast<std::uint32_t>(w << 1) | static_cast<std::uint32_t>(k);
        }
        ++w;
      }
      p.box.shrink_to(w);
      p.spare.shrink_to(w);  // no holes left: its stale slots are all it holds
      p.id.shrink_to(w);
      p.holes = 0;
      ++ids_version;
    }
  }

  // The exact bounds of the live boxes, on the pool.
  void recompute_bounds(ThreadPool& pool) {
    for (Acc& a : acc) a.bounds.clear();
    const std::size_t n0 = packed[0].size(), n = n0 + packed[1].size();
    pool.parallel_for(
        n,
        [&](std::size_t b, std::size_t e, unsigned w) {
          Bounds<D> acc_w = acc[w].bounds;
          for (std::size_t i = b; i < e; ++i) {
            const Packed& p = packed[i < n0 ? 0 : 1];
            const std::size_t s = i < n0 ? i : i - n0;
            if (alive[p.id[s]]) acc_w.add(p.box[s]);
          }
          acc[w].bounds = acc_w;
        },
        kRegionChunk);
    bounds.clear();
    for (const Acc& a : acc) bounds.add(a.bounds);
    bounds_exact = true;
  }
};

// Every pair, sorted, with a CPU variant (match_cpu.cpp).
template <int D>
void match_cpu(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, DdmVariant variant, std::vector<Pair>& out);

#if WARPMIND_HAVE_CUDA
// The match on the device, from the packed regions as they are (match_gpu.cpp). Without `changes`: every
// pair into `out`. With it: the pairs that appeared since the device's previous match into `out`, those
// that disappeared into `changes` (the caller has called keep()). The outputs are resized, not cleared: on
// an error the caller clears them.
template <int D>
Status match_device(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, std::vector<Pair>& out,
                    std::vector<Pair>* changes = nullptr);
#endif

}  // namespace warpmind::ddm
