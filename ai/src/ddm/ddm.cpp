// Region matching on the CPU and the host side of the GPU variants (contract in ddm.h).
// [SECTION] names   [SECTION] the packed regions   [SECTION] full matches   [SECTION] on the device
// [SECTION] the matcher
//
// The regions live packed by kind (Impl::Packed): slot i of a kind holds a box and its id, ids ascending
// with the slot. That is the layout DdmDevice::match reads, so on the GPU variants the arrays are
// page-locked and a match uploads them as they are; the CPU variants work on the same slots. A removed
// region leaves a hole (its id kept, its box made empty, so it matches nothing anywhere) until a match
// finds more than a quarter of its kind's slots are holes and closes them (compact()).
#include "warpmind/ddm/ddm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ddm/host_array.h"
#include "ddm/ddm_rules.h"

#if WARPMIND_HAVE_CUDA
#include "ddm/ddm_device.h"
#endif

namespace warpmind::ddm {

// ---- [SECTION] names -----------------------------------------------------------------------------

namespace {

// The overlap test shared with the kernels (ai/src/ddm/ddm_rules.h).
template <int D>
bool overlap(const Box<D>& a, const Box<D>& b) {
  return rules::overlaps<D>(a.lo.data(), a.hi.data(), b.lo.data(), b.hi.data());
}

constexpr struct {
  DdmVariant v;
  const char* name;
} kVariants[] = {{DdmVariant::Auto, "auto"},
                 {DdmVariant::CpuBrute, "cpu-brute"},
                 {DdmVariant::CpuSort, "cpu-sort"},
                 {DdmVariant::GpuRegion, "gpu-region"},
                 {DdmVariant::GpuGrid, "gpu-grid"}};

bool is_gpu(DdmVariant v) { return v == DdmVariant::GpuRegion || v == DdmVariant::GpuGrid; }
static_assert(sizeof(Pair) == 2 * sizeof(std::uint32_t));

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Regions per chunk of the pool's passes over them: large enough that a small batch runs on the calling
// thread alone.
constexpr std::size_t kRegionChunk = 16384;

}  // namespace

const char* variant_name(DdmVariant v) {
  for (const auto& e : kVariants)
    if (e.v == v) return e.name;
  return "?";
}
bool parse_variant(std::string_view name, DdmVariant& out) {
  for (const auto& e : kVariants)
    if (name == e.name) {
      out = e.v;
      return true;
    }
  return false;
}

// ---- [SECTION] the packed regions -----------------------------------------------------------------

namespace {

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

int kind_index(RegionKind k) { return k == RegionKind::Publication ? 0 : 1; }

}  // namespace

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
  std::vector<std::uint32_t> sub_sorted, sub_wide, stripe_start, stripe_next, stripe_of, ids_tmp, stamp;
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

namespace {

// The first offending index of a batch the fast checks rejected, in batch order, as the error: unknown or
// removed ids, bad boxes, repeats (found with im.stamp: the index that last gave each id).
template <int D>
Status batch_error(typename RegionMatcher<D>::Impl& im, std::span<const RegionId> ids, std::span<const Box<D>> boxes) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  const std::size_t known = im.where.size();
  if (im.stamp.size() < known) im.stamp.resize(known);
  for (RegionId id : ids)
    if (id < known) im.stamp[id] = kNone;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const RegionId id = ids[i];
    const auto at = [&] { return "update: batch index " + std::to_string(i); };
    if (id >= known) return Status::Invalid(at() + ": unknown region " + std::to_string(id));
    if (!im.alive[id]) return Status::Invalid(at() + ": region " + std::to_string(id) + " was removed");
    if (!box_ok<D>(boxes[i])) return check_box<D>(boxes[i], at() + " (region " + std::to_string(id) + ")");
    if (im.stamp[id] != kNone)
      return Status::Invalid(at() + ": region " + std::to_string(id) + " is also at batch index " +
                             std::to_string(im.stamp[id]) + " (one box per region and batch)");
    im.stamp[id] = static_cast<std::uint32_t>(i);  // i < known <= UINT32_MAX: the scan stops by then
  }
  return Status::Internal("update: a batch was rejected but no index is at fault");  // not reached
}

// ---- [SECTION] full matches ----------------------------------------------------------------------

// Pairs for every publication slot (ascending ids), in order, two phases on the pool: fill(i, list) fills
// `list` with the subscription slots (ascending) overlapping publication slot i.
template <class Fill>
void collect(ThreadPool& pool, const RegionId* pub_id, std::size_t np, const RegionId* sub_id,
             std::vector<std::vector<std::uint32_t>>& scratch, std::vector<std::uint64_t>& counts,
             std::vector<Pair>& out, Fill&& fill) {
  counts.assign(np + 1, 0);
  pool.parallel_for(
      np,
      [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t i = b; i < e; ++i) {
          fill(i, scratch[w]);
          counts[i + 1] = scratch[w].size();
        }
      },
      256);
  for (std::size_t i = 0; i < np; ++i) counts[i + 1] += counts[i];
  out.resize(counts[np]);
  pool.parallel_for(
      np,
      [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t i = b; i < e; ++i) {
          fill(i, scratch[w]);
          Pair* o = out.data() + counts[i];
          for (std::uint32_t s : scratch[w]) *o++ = {pub_id[i], sub_id[s]};
        }
      },
      256);
}

// Every pair, sorted, with a CPU variant.
template <int D>
void match_cpu(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, DdmVariant variant, std::vector<Pair>& out) {
  const auto& P = im.packed[0];
  const auto& S = im.packed[1];
  const Box<D>* pb = P.box.data();
  const Box<D>* sb = S.box.data();
  const RegionId* pid = P.id.data();
  const RegionId* sid = S.id.data();
  const std::size_t np = P.size(), ns = S.size();
  const std::uint8_t* alive = im.alive.data();
  if (variant == DdmVariant::CpuBrute) {
    collect(pool, pid, np, sid, im.scratch, im.counts, out, [&](std::size_t p, std::vector<std::uint32_t>& list) {
      list.clear();
      if (!alive[pid[p]]) return;  // a hole (its empty box would match nothing anyway)
      for (std::uint32_t s = 0; s < ns; ++s)
        if (overlap(pb[p], sb[s])) list.push_back(s);
    });
    return;
  }
  // cpu-sort. Subscriptions in stripes along axis 1 (by lower bound), sorted by lower bound on axis 0
  // within a stripe; the ones much wider than typical (on axis 0 or 1) on a side list. A publication
  // searches the stripes its reach covers and, in each, the window of subscriptions that can reach it on
  // axis 0. Everything in subscription slots (ascending with the ids).
  const auto typical = [&](int axis) {
    std::vector<float>& w = im.widths;
    w.clear();
    for (std::uint32_t s = 0; s < ns; ++s)
      if (alive[sid[s]]) w.push_back(sb[s].hi[axis] - sb[s].lo[axis]);
    if (w.empty()) return 0.0;
    std::nth_element(w.begin(), w.begin() + w.size() / 2, w.end());
    return static_cast<double>(w[w.size() / 2]);
  };
  const double wide0 = std::max(8.0 * typical(0), 1e-30), wide1 = std::max(8.0 * typical(1), 1e-30);
  im.sub_sorted.clear();
  im.sub_wide.clear();
  double reach0 = 0.0, reach1 = 0.0, y0 = INFINITY, y1 = -INFINITY;  // widest normal subscription; lo1 range
  for (std::uint32_t s = 0; s < ns; ++s) {
    if (!alive[sid[s]]) continue;
    const double w0 = static_cast<double>(sb[s].hi[0]) - sb[s].lo[0];
    const double w1 = static_cast<double>(sb[s].hi[1]) - sb[s].lo[1];
    if (w0 > wide0 || w1 > wide1) {
      im.sub_wide.push_back(s);
    } else {
      im.sub_sorted.push_back(s);
      reach0 = std::max(reach0, w0);
      reach1 = std::max(reach1, w1);
      y0 = std::min(y0, static_cast<double>(sb[s].lo[1]));
      y1 = std::max(y1, static_cast<double>(sb[s].lo[1]));
    }
  }
  const double stripe_h = std::max(4.0 * (reach1 > 0 ? reach1 : 1.0), (y1 - y0) / 65536.0);
  const int stripes = im.sub_sorted.empty() ? 1 : std::max(1, static_cast<int>((y1 - y0) / stripe_h) + 1);
  const auto stripe_of = [&](double y) {
    return static_cast<int>(std::clamp(std::floor((y - y0) / stripe_h), 0.0, static_cast<double>(stripes - 1)));
  };
  // Counting sort into stripes, then each stripe sorted by lo0 (in parallel).
  im.stripe_of.resize(ns);
  im.stripe_start.assign(static_cast<std::size_t>(stripes) + 1, 0);
  for (std::uint32_t s : im.sub_sorted) ++im.stripe_start[(im.stripe_of[s] = stripe_of(sb[s].lo[1])) + 1];
  for (int k = 0; k < stripes; ++k) im.stripe_start[k + 1] += im.stripe_start[k];
  im.stripe_next.assign(im.stripe_start.begin(), im.stripe_start.end() - 1);
  im.ids_tmp.resize(im.sub_sorted.size());
  for (std::uint32_t s : im.sub_sorted) im.ids_tmp[im.stripe_next[im.stripe_of[s]]++] = s;
  im.sub_sorted.swap(im.ids_tmp);
  pool.parallel_for(
      static_cast<std::size_t>(stripes),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t k = b; k < e; ++k)
          std::sort(im.sub_sorted.begin() + im.stripe_start[k], im.sub_sorted.begin() + im.stripe_start[k + 1],
                    [&](std::uint32_t x, std::uint32_t y) {
                      return sb[x].lo[0] != sb[y].lo[0] ? sb[x].lo[0] < sb[y].lo[0] : x < y;
                    });
      },
      16);
  collect(pool, pid, np, sid, im.scratch, im.counts, out, [&](std::size_t p, std::vector<std::uint32_t>& list) {
    list.clear();
    if (!alive[pid[p]]) return;
    const Box<D>& a = pb[p];
    // A normal subscription s reaches p only if lo(s) > lo(p) - reach and lo(s) < hi(p) on axes 0 and
    // 1; the window is widened against rounding, the exact test decides.
    float from = static_cast<float>(static_cast<double>(a.lo[0]) - reach0);
    from = std::nextafter(std::nextafter(from, -INFINITY), -INFINITY);
    const int first = stripe_of(static_cast<double>(a.lo[1]) - reach1 - 1e-6 * (1.0 + std::fabs(reach1)));
    const int last = stripe_of(static_cast<double>(a.hi[1]));
    for (int k = first; k <= last; ++k) {
      const auto b = im.sub_sorted.begin() + im.stripe_start[k], e = im.sub_sorted.begin() + im.stripe_start[k + 1];
      auto it = std::lower_bound(b, e, from, [&](std::uint32_t s, float v) { return sb[s].lo[0] < v; });
      for (; it != e && sb[*it].lo[0] < a.hi[0]; ++it)
        if (overlap(a, sb[*it])) list.push_back(*it);
    }
    for (std::uint32_t s : im.sub_wide)
      if (overlap(a, sb[s])) list.push_back(s);
    std::sort(list.begin(), list.end());
  });
}

}  // namespace

// ---- [SECTION] on the device --------------------------------------------------------------------

#if WARPMIND_HAVE_CUDA
namespace {

constexpr std::size_t kPairChunk = 65536;  // pairs per chunk of the pool's copies out of the staging

// Copies n pairs (2n values) into `out`, on the pool. `out` is resized, not cleared first: only the
// elements beyond its old size are constructed.
void copy_pairs(ThreadPool& pool, const std::uint32_t* src, std::size_t n, std::vector<Pair>& out) {
  out.resize(n);
  Pair* dst = out.data();
  pool.parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned) {
        std::memcpy(static_cast<void*>(dst + b), src + 2 * b, (e - b) * sizeof(Pair));
      },
      kPairChunk);
}

// gpu-grid's grid: per axis, the live boxes' span cut into cells of the median extent of up to 8,192
// subscriptions (taken at an even stride over the slots, holes skipped) or config.grid_cell, at most
// kCap cells per axis.
template <int D>
void choose_grid(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, gpu::DdmGrid& g) {
  if (!im.bounds_exact) im.recompute_bounds(pool);
  constexpr int kCap = D == 2 ? 2048 : 128;  // cells per axis: at most 4M cells in 2D, 2M in 3D
  const auto& S = im.packed[1];
  const std::size_t slots = S.size();
  const std::size_t stride = std::max<std::size_t>(1, (slots + 8191) / 8192);
  const std::size_t samples = im.grid_cell > 0 || slots == 0 ? 0 : (slots - 1) / stride + 1;
  im.widths.resize(samples * D);
  pool.parallel_for(
      samples,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t j = b; j < e; ++j) {
          const std::size_t s = j * stride;
          const bool live = im.alive[S.id[s]];
          for (int k = 0; k < D; ++k) im.widths[k * samples + j] = live ? S.box[s].hi[k] - S.box[s].lo[k] : NAN;
        }
      },
      2048);
  for (int k = 0; k < D; ++k) {
    const float lo = im.bounds.lo[k], hi = im.bounds.hi[k];
    if (!(lo < hi)) continue;  // no boxes, or all flat on this axis: one cell
    const double extent = static_cast<double>(hi) - lo;
    double side = im.grid_cell;
    if (!(side > 0)) {
      float* w = im.widths.data() + k * samples;
      float* end = std::remove_if(w, w + samples, [](float x) { return std::isnan(x); });
      side = 0.0;
      if (end != w) {
        std::nth_element(w, w + (end - w) / 2, end);
        side = w[(end - w) / 2];
      }
    }
    side = std::max(side, extent / kCap);
    const float cell = static_cast<float>(side);
    if (!(cell >= std::numeric_limits<float>::min()) || !std::isfinite(cell)) continue;  // degenerate: one cell
    g.origin[k] = lo;
    g.cell[k] = cell;
    g.cells[k] = static_cast<int>(std::clamp(std::ceil(extent / side), 1.0, static_cast<double>(kCap)));
  }
}

// The match on the device, from the packed regions as they are. Without `changes`: every pair into `out`.
// With it: the pairs that appeared since the device's previous match into `out`, those that disappeared
// into `changes` (the caller has called keep()). The outputs are resized, not cleared: on an error the
// caller clears them.
template <int D>
Status match_device(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, std::vector<Pair>& out,
                    std::vector<Pair>* changes = nullptr) {
  gpu::DdmGrid g{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 64};
  if (im.device_grid) choose_grid<D>(im, pool, g);
  gpu::DdmRegions r;
  r.pub_boxes = reinterpret_cast<const float*>(im.packed[0].box.data());
  r.pub_ids = im.packed[0].id.data();
  r.np = im.packed[0].size();
  r.sub_boxes = reinterpret_cast<const float*>(im.packed[1].box.data());
  r.sub_ids = im.packed[1].id.data();
  r.ns = im.packed[1].size();
  r.ids_version = im.ids_version;
  std::size_t pairs = 0;
  gpu::DdmTimes t;
  Status err = im.device->match(r, g, pairs, t);
  if (err.ok() && !changes) {
    const std::uint32_t* src = nullptr;
    err = im.device->download(&src, t);
    if (err.ok()) copy_pairs(pool, src, pairs, out);
  }
  if (err.ok() && changes) {  // the diff against the kept pairs, on the device; only the changes come down
    std::size_t up = 0, down = 0;
    err = im.device->diff(up, down);
    const std::uint32_t *a = nullptr, *d = nullptr;
    if (err.ok()) err = im.device->download_changes(&a, &d, t);
    if (err.ok()) {
      copy_pairs(pool, a, up, out);
      copy_pairs(pool, d, down, *changes);
    }
  }
  if (!err.ok()) return err.context("ddm");
  im.times = {t.upload, t.match, t.download, 0};
  return Status::Ok();
}

}  // namespace
#endif

// ---- [SECTION] the matcher -----------------------------------------------------------------------

template <int D>
Status RegionMatcher<D>::create(Context& ctx, const MatcherConfig& config, std::unique_ptr<RegionMatcher>& out) {
  const float grid_cell = config.grid_cell;
  if (!std::isfinite(grid_cell) || grid_cell < 0) return Status::Invalid("grid cell: must be finite and >= 0");
  const DdmVariant v =
      config.variant == DdmVariant::Auto ? (ctx.cuda() ? DdmVariant::GpuGrid : DdmVariant::CpuSort) : config.variant;
  if (is_gpu(v) && !ctx.cuda())
    return Status::Unavailable(std::string("variant ") + variant_name(v) + " needs the CUDA backend");
  std::unique_ptr<RegionMatcher> m(new RegionMatcher());
  m->ctx_ = &ctx;
  m->variant_ = v;
  m->impl_ = std::make_unique<Impl>();
  Impl& im = *m->impl_;
  im.scratch.resize(ctx.pool().size());
  im.acc.resize(ctx.pool().size());
  im.grid_cell = grid_cell;
  im.track_dirty = !is_gpu(v);
#if WARPMIND_HAVE_CUDA
  if (is_gpu(v)) {
    const Status err = gpu::DdmDevice::create(
        ctx.stream(), v == DdmVariant::GpuRegion ? gpu::DdmKernel::Region : gpu::DdmKernel::Grid, D, im.device);
    im.device_grid = v == DdmVariant::GpuGrid;
    if (!err.ok()) return err.context("ddm");
    for (auto& p : im.packed) {  // the device copies read the packed regions directly
      p.box.use_pinned(true);
      p.spare.use_pinned(true);
      p.id.use_pinned(true);
    }
  }
#endif
  out = std::move(m);
  return Status::Ok();
}

template <int D>
RegionMatcher<D>::~RegionMatcher() = default;

template <int D>
const MatchTimes& RegionMatcher<D>::last_times() const {
  return impl_->times;
}

template <int D>
std::size_t RegionMatcher<D>::publications() const {
  return impl_->pubs;
}
template <int D>
std::size_t RegionMatcher<D>::subscriptions() const {
  return impl_->subs;
}

template <int D>
Status RegionMatcher<D>::add(RegionKind kind, const Box<D>& box, RegionId& id) {
  WM_RETURN_IF_ERROR(check_box<D>(box, "add"));
  Impl& im = *impl_;
  if (im.where.size() >= UINT32_MAX - 1) return Status::Invalid("add: too many regions");
  const int k = kind_index(kind);
  auto& p = im.packed[k];
  if (p.size() >= (std::size_t{1} << 31) - 1) return Status::Invalid("add: too many regions of one kind");
  WM_RETURN_IF_ERROR(p.box.reserve(p.size() + 1));
  WM_RETURN_IF_ERROR(p.spare.reserve(p.size() + 1));
  WM_RETURN_IF_ERROR(p.id.reserve(p.size() + 1));
  id = static_cast<RegionId>(im.where.size());
  im.where.push_back(static_cast<std::uint32_t>(p.size() << 1) | static_cast<std::uint32_t>(k));
  p.box.push_back(box);
  p.spare.push_back(box);
  p.id.push_back(id);
  im.alive.push_back(1);
  im.dirty_flag.push_back(0);
  (k == 0 ? im.pubs : im.subs) += 1;
  im.bounds.add(box);  // exact bounds stay exact
  ++im.ids_version;
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::update(RegionId id, const Box<D>& box) {
  Impl& im = *impl_;
  if (id >= im.where.size() || !im.alive[id]) return Status::Invalid("update: unknown region " + std::to_string(id));
  WM_RETURN_IF_ERROR(check_box<D>(box, "update", id));
  im.packed[im.where[id] & 1].box[im.where[id] >> 1] = box;
  im.bounds_exact = false;  // the old box may have been on the edge: the next grid recomputes them
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::update(std::span<const RegionId> ids, std::span<const Box<D>> boxes) {
  Impl& im = *impl_;
  if (ids.size() != boxes.size())
    return Status::Invalid("update: batch of " + std::to_string(ids.size()) + " ids but " +
                           std::to_string(boxes.size()) + " boxes");
  const std::size_t n = ids.size();
  if (n == 0) return Status::Ok();
  // More entries than regions: some id is unknown or repeated; batch_error finds the first.
  if (n > im.pubs + im.subs) return batch_error<D>(im, ids, boxes);
  ThreadPool& pool = ctx_->pool();
  const RegionId* idp = ids.data();
  const Box<D>* bp = boxes.data();
  const std::size_t known = im.where.size();
  const std::uint32_t* where = im.where.data();
  // A batch as long as the live regions either names each of them once (then it is written into the
  // spare box arrays as it is checked, and those are swapped in) or is rejected (the spares' live slots
  // are stale anyway; their holes are not written). Other batches are checked, then written in place.
  const bool whole = n == im.pubs + im.subs;
  Box<D>* spare[2] = {im.packed[0].spare.data(), im.packed[1].spare.data()};
  // Pass 1: every id live, every box valid, ids ascending (then none repeats), the boxes' bounds; when
  // whole, the boxes into the spares. (The bounds are taken for every batch: cheaper than a branch.)
  for (auto& a : im.acc) {
    a.bounds.clear();
    a.bad = a.unsorted = false;
  }
  pool.parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned w) {
        bool bad = false, unsorted = false;
        Bounds<D> bounds = im.acc[w].bounds;
        RegionId last = b > 0 ? idp[b - 1] : 0;
        for (std::size_t i = b; i < e; ++i) {
          const RegionId id = idp[i];
          const std::uint32_t at = id < known ? where[id] : Impl::kRemoved;
          const Box<D>& x = bp[i];
          bad |= at == Impl::kRemoved || !box_ok<D>(x);
          unsorted |= i > 0 && !(id > last);
          last = id;
          bounds.add(x);
          if (whole && at != Impl::kRemoved) spare[at & 1][at >> 1] = x;
        }
        im.acc[w].bounds = bounds;
        im.acc[w].bad |= bad;
        im.acc[w].unsorted |= unsorted;
      },
      kRegionChunk);
  bool bad = false, unsorted = false;
  Bounds<D> batch_bounds;
  for (const auto& a : im.acc) {
    bad |= a.bad;
    unsorted |= a.unsorted;
    batch_bounds.add(a.bounds);
  }
  if (!bad && unsorted) {
    // Not ascending: each entry stamps its index on its id; an entry whose id carries another index
    // after all have stamped shares its id with another entry. (Stores to one id from two threads race
    // only when there is such a repeat; relaxed atomics keep that defined.)
    if (im.stamp.size() < known) im.stamp.resize(known);
    std::uint32_t* stamp = im.stamp.data();
    pool.parallel_for(
        n,
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i)
            std::atomic_ref<std::uint32_t>(stamp[idp[i]])
                .store(static_cast<std::uint32_t>(i), std::memory_order_relaxed);
        },
        kRegionChunk);
    pool.parallel_for(
        n,
        [&](std::size_t b, std::size_t e, unsigned w) {
          bool repeat = false;
          for (std::size_t i = b; i < e; ++i)
            repeat |= std::atomic_ref<std::uint32_t>(stamp[idp[i]]).load(std::memory_order_relaxed) != i;
          im.acc[w].bad |= repeat;
        },
        kRegionChunk);
    for (const auto& a : im.acc) bad |= a.bad;
  }
  if (bad) return batch_error<D>(im, ids, boxes);
  if (whole) {
    for (auto& p : im.packed) p.box.swap(p.spare);
  } else {
    // Pass 2: the boxes into their slots (distinct ids: distinct slots).
    Box<D>* slots[2] = {im.packed[0].box.data(), im.packed[1].box.data()};
    pool.parallel_for(
        n,
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; ++i) {
            const std::uint32_t at = where[idp[i]];
            slots[at & 1][at >> 1] = bp[i];
          }
        },
        kRegionChunk);
  }
  im.bounds_exact = whole;  // every live region, once: the batch's bounds are the bounds
  if (whole) im.bounds = batch_bounds;
  if (im.track_dirty && !im.all_dirty) {
    if (n * 8 > im.pubs + im.subs)  // more than an eighth changed: match_changes matches everything
      im.all_dirty = true;
    else
      for (RegionId id : ids) im.mark(id);
  }
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::remove(RegionId id) {
  Impl& im = *impl_;
  if (id >= im.where.size() || !im.alive[id]) return Status::Invalid("remove: unknown region " + std::to_string(id));
  const int k = im.kind_of(id);
  auto& p = im.packed[k];
  const std::size_t s = im.where[id] >> 1;
  Box<D>& b = p.box[s];
  b.hi = b.lo;  // a hole: an empty box, which overlaps nothing; in the spare array too
  p.spare[s] = b;
  p.holes += 1;
  im.alive[id] = 0;
  im.where[id] = Impl::kRemoved;
  (k == 0 ? im.pubs : im.subs) -= 1;
  im.bounds_exact = false;
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::match(std::vector<Pair>& out) {
  const auto t0 = Clock::now();
  Impl& im = *impl_;
  ThreadPool& pool = ctx_->pool();
  im.compact_sparse();
  im.times = {};
  if (is_gpu(variant_)) {
#if WARPMIND_HAVE_CUDA
    // The previous match stays on the device (the reference of the next match_changes) if this one fails.
    im.device->keep();
    const Status st = match_device<D>(im, pool, out);
    if (!st.ok()) {
      im.device->unkeep();
      out.clear();
      return st;
    }
    im.times.host = std::max(0.0, ms_since(t0) - im.times.upload - im.times.match - im.times.download);
#endif
  } else {
    match_cpu<D>(im, pool, variant_, out);
    im.prev = out;  // the GPU variants keep theirs on the device
    im.times.match = ms_since(t0);
  }
  im.have_prev = true;
  im.clear_dirty();
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::match_changes(std::vector<Pair>& appeared, std::vector<Pair>& disappeared) {
  const auto t0 = Clock::now();
  Impl& im = *impl_;
  if (!im.have_prev) {
    appeared.clear();
    disappeared.clear();
    return match(appeared);
  }
  im.compact_sparse();
  im.times = {};
#if WARPMIND_HAVE_CUDA
  // GPU variants: a full match on the device, diffed there with the previous one (kept on the device);
  // only the changes come down. On an error the previous match stays the reference, so a later call
  // reports the same changes.
  if (is_gpu(variant_)) {
    im.device->keep();
    const Status st = match_device<D>(im, ctx_->pool(), appeared, &disappeared);
    if (!st.ok()) {
      im.device->unkeep();
      appeared.clear();
      disappeared.clear();
      return st;
    }
    im.clear_dirty();
    im.times.host = std::max(0.0, ms_since(t0) - im.times.upload - im.times.match - im.times.download);
    return Status::Ok();
  }
#endif
  appeared.clear();
  disappeared.clear();
  if (im.many_dirty()) {
    // Many updated regions (the seed's every-region-moves step): a full match with the variant, diffed
    // with the previous one.
    std::vector<Pair>& now = im.kept;
    match_cpu<D>(im, ctx_->pool(), variant_, now);
    std::set_difference(now.begin(), now.end(), im.prev.begin(), im.prev.end(), std::back_inserter(appeared));
    std::set_difference(im.prev.begin(), im.prev.end(), now.begin(), now.end(), std::back_inserter(disappeared));
    im.prev.swap(now);
  } else {
    // Few: the pairs that involve an updated region, now (each updated region against every live region
    // of the other kind, the seed's region-based matching) and before; their differences are the changes.
    const auto& P = im.packed[0];
    const auto& S = im.packed[1];
    im.fresh.clear();
    for (RegionId d : im.dirty) {
      if (!im.alive[d]) continue;
      const Box<D>& box = im.box_of(d);
      if (im.kind_of(d) == 0) {
        for (std::size_t s = 0; s < S.size(); ++s)  // holes hold empty boxes: they match nothing
          if (overlap(box, S.box[s])) im.fresh.push_back({d, S.id[s]});
      } else {
        for (std::size_t p = 0; p < P.size(); ++p)  // a dirty publication was matched above
          if (!im.dirty_flag[P.id[p]] && overlap(P.box[p], box)) im.fresh.push_back({P.id[p], d});
      }
    }
    std::sort(im.fresh.begin(), im.fresh.end());
    im.old_pairs.clear();
    im.kept.clear();
    for (const Pair& q : im.prev)
      (im.dirty_flag[q.publication] || im.dirty_flag[q.subscription] ? im.old_pairs : im.kept).push_back(q);
    std::set_difference(im.fresh.begin(), im.fresh.end(), im.old_pairs.begin(), im.old_pairs.end(),
                        std::back_inserter(appeared));
    std::set_difference(im.old_pairs.begin(), im.old_pairs.end(), im.fresh.begin(), im.fresh.end(),
                        std::back_inserter(disappeared));
    im.prev.clear();
    std::merge(im.kept.begin(), im.kept.end(), im.fresh.begin(), im.fresh.end(), std::back_inserter(im.prev));
  }
  im.clear_dirty();
  im.times.match = ms_since(t0);
  return Status::Ok();
}

template class RegionMatcher<2>;
template class RegionMatcher<3>;

}  // namespace warpmind::ddm
