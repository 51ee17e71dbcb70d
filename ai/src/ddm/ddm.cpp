// Region matching on the CPU (contract in ddm.h). [SECTION] names   [SECTION] full matches
// [SECTION] the matcher
#include "warpmind/ddm/ddm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "warpmind/gpu/ddm_rules.h"

#if WARPMIND_HAVE_CUDA
#include "warpmind/gpu/ddm.h"
#endif

namespace warpmind::ddm {

// ---- [SECTION] names -----------------------------------------------------------------------------

namespace {

// The overlap test shared with the kernels (gpu/include/warpmind/gpu/ddm_rules.h).
template <int D>
bool overlap(const Box<D>& a, const Box<D>& b) {
  return gpu::ddm_rules::overlaps<D>(a.lo.data(), a.hi.data(), b.lo.data(), b.hi.data());
}

}  // namespace

namespace {
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

template <int D>
struct RegionMatcher<D>::Impl {
  std::vector<Box<D>> boxes;
  std::vector<RegionKind> kind;
  std::vector<std::uint8_t> alive, dirty_flag;
  std::vector<RegionId> dirty;
  std::size_t pubs = 0, subs = 0;
  std::vector<Pair> prev;  // the pairs at the last match, sorted
  bool have_prev = false;
  // Scratch, reused.
  std::vector<RegionId> pub_ids, sub_ids, sub_sorted, sub_wide;
  std::vector<std::uint32_t> stripe_start, stripe_next, stripe_of, ids_tmp;
  std::vector<float> widths;
  std::vector<std::uint64_t> counts;
  std::vector<std::vector<RegionId>> scratch;  // per worker
  std::vector<Pair> fresh, old_pairs, kept;
  MatchTimes times;
  float grid_cell = 0;
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::DdmDevice> device;
  bool device_grid = false;  // gpu-grid: the grid is chosen at every match
  std::vector<Box<D>> pub_box, sub_box;
#endif

  void mark(RegionId id) {
    if (!dirty_flag[id]) {
      dirty_flag[id] = 1;
      dirty.push_back(id);
    }
  }
};

namespace {

// `id` >= 0: the message names the region ("update of region N"); the text is built only on failure, so
// a valid box costs no allocation.
template <int D>
Status check_box(const Box<D>& b, const char* what, long long id = -1) {
  for (int k = 0; k < D; ++k) {
    const bool finite = std::isfinite(b.lo[k]) && std::isfinite(b.hi[k]);
    if (finite && !(b.lo[k] > b.hi[k])) continue;
    const std::string who = std::string(what) + (id >= 0 ? " of region " + std::to_string(id) : "");
    return Status::Invalid(who + (finite ? ": lo > hi on axis " : ": bounds on axis ") + std::to_string(k) +
                           (finite ? "" : " must be finite"));
  }
  return Status::Ok();
}

// ---- [SECTION] full matches ----------------------------------------------------------------------

// Pairs for every publication in `pubs` (ascending ids), in order, two phases on the pool: fn(p, list)
// fills `list` with p's overlapping subscriptions in ascending id order.
template <class Fill>
void collect(ThreadPool& pool, const std::vector<RegionId>& pubs, std::vector<std::vector<RegionId>>& scratch,
             std::vector<std::uint64_t>& counts, std::vector<Pair>& out, Fill&& fill) {
  counts.assign(pubs.size() + 1, 0);
  pool.parallel_for(
      pubs.size(),
      [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t i = b; i < e; ++i) {
          fill(pubs[i], scratch[w]);
          counts[i + 1] = scratch[w].size();
        }
      },
      256);
  for (std::size_t i = 0; i < pubs.size(); ++i) counts[i + 1] += counts[i];
  out.resize(counts[pubs.size()]);
  pool.parallel_for(
      pubs.size(),
      [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t i = b; i < e; ++i) {
          fill(pubs[i], scratch[w]);
          Pair* o = out.data() + counts[i];
          for (RegionId s : scratch[w]) *o++ = {pubs[i], s};
        }
      },
      256);
}

}  // namespace

// ---- [SECTION] on the device --------------------------------------------------------------------

#if WARPMIND_HAVE_CUDA
namespace {

float median_width(std::vector<float>& w) {
  if (w.empty()) return 0.0f;
  std::nth_element(w.begin(), w.begin() + w.size() / 2, w.end());
  return w[w.size() / 2];
}

}  // namespace

// The live boxes packed by kind (ids ascending), the grid for gpu-grid, the match, the pairs down.
// Without `changes`: every pair into `out`. With it: the pairs that appeared since the device's previous
// match into `out`, those that disappeared into `changes` (the caller has called keep()).
template <int D>
Status match_device(typename RegionMatcher<D>::Impl& im, std::vector<Pair>& out, std::vector<Pair>* changes = nullptr) {
  im.pub_box.clear();
  im.sub_box.clear();
  for (RegionId p : im.pub_ids) im.pub_box.push_back(im.boxes[p]);
  for (RegionId s : im.sub_ids) im.sub_box.push_back(im.boxes[s]);
  gpu::DdmGrid g{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 64};
  constexpr int kCap = D == 2 ? 2048 : 128;  // cells per axis: at most 4M cells in 2D, 2M in 3D
  for (int k = 0; k < D && im.device_grid; ++k) {
    float lo = INFINITY, hi = -INFINITY;
    for (const auto* v : {&im.pub_box, &im.sub_box})
      for (const Box<D>& b : *v) {
        lo = std::min(lo, b.lo[k]);
        hi = std::max(hi, b.hi[k]);
      }
    if (!(lo < hi)) continue;  // no boxes, or all flat on this axis: one cell
    const double extent = static_cast<double>(hi) - lo;
    im.widths.clear();  // the median of up to 8,192 subscriptions taken at an even stride
    const std::size_t stride = std::max<std::size_t>(1, im.sub_box.size() / 8192);
    for (std::size_t i = 0; i < im.sub_box.size(); i += stride)
      im.widths.push_back(im.sub_box[i].hi[k] - im.sub_box[i].lo[k]);
    double side = im.grid_cell > 0 ? im.grid_cell : median_width(im.widths);
    side = std::max(side, extent / kCap);
    const float cell = static_cast<float>(side);
    if (!(cell >= std::numeric_limits<float>::min()) || !std::isfinite(cell)) continue;  // degenerate: one cell
    g.origin[k] = lo;
    g.cell[k] = cell;
    g.cells[k] = static_cast<int>(std::clamp(std::ceil(extent / side), 1.0, static_cast<double>(kCap)));
  }
  std::size_t pairs = 0;
  gpu::DdmTimes t;
  Status err = im.device->match(reinterpret_cast<const float*>(im.pub_box.data()), im.pub_ids.data(), im.pub_ids.size(),
                                reinterpret_cast<const float*>(im.sub_box.data()), im.sub_ids.data(), im.sub_ids.size(),
                                g, pairs, t);
  if (err.ok() && !changes) {
    out.resize(pairs);
    err = im.device->download(reinterpret_cast<std::uint32_t*>(out.data()), t);
  }
  if (err.ok() && changes) {  // the diff against the kept pairs, on the device; only the changes come down
    std::size_t up = 0, down = 0;
    err = im.device->diff(up, down, t);
    if (err.ok()) {
      out.resize(up);
      changes->resize(down);
      err = im.device->download_changes(reinterpret_cast<std::uint32_t*>(out.data()),
                                        reinterpret_cast<std::uint32_t*>(changes->data()), t);
    }
  }
  if (!err.ok()) return err.context("ddm");
  im.times = {t.upload, t.match, t.download};
  return Status::Ok();
}
#endif

// ---- [SECTION] the matcher -----------------------------------------------------------------------

// The live regions' ids by kind, ascending, into im.pub_ids and im.sub_ids.
template <int D>
void live_ids(typename RegionMatcher<D>::Impl& im) {
  im.pub_ids.clear();
  im.sub_ids.clear();
  for (RegionId i = 0; i < im.boxes.size(); ++i)
    if (im.alive[i]) (im.kind[i] == RegionKind::Publication ? im.pub_ids : im.sub_ids).push_back(i);
}

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
  m->impl_->scratch.resize(ctx.pool().size());
  m->impl_->grid_cell = grid_cell;
#if WARPMIND_HAVE_CUDA
  if (is_gpu(v)) {
    const Status err = gpu::DdmDevice::create(
        ctx.stream(), v == DdmVariant::GpuRegion ? gpu::DdmKernel::Region : gpu::DdmKernel::Grid, D, m->impl_->device);
    m->impl_->device_grid = v == DdmVariant::GpuGrid;
    if (!err.ok()) return err.context("ddm");
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
  if (im.boxes.size() >= UINT32_MAX) return Status::Invalid("add: too many regions");
  id = static_cast<RegionId>(im.boxes.size());
  im.boxes.push_back(box);
  im.kind.push_back(kind);
  im.alive.push_back(1);
  im.dirty_flag.push_back(0);
  (kind == RegionKind::Publication ? im.pubs : im.subs) += 1;
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::update(RegionId id, const Box<D>& box) {
  Impl& im = *impl_;
  if (id >= im.boxes.size() || !im.alive[id]) return Status::Invalid("update: unknown region " + std::to_string(id));
  WM_RETURN_IF_ERROR(check_box<D>(box, "update", id));
  im.boxes[id] = box;
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::remove(RegionId id) {
  Impl& im = *impl_;
  if (id >= im.boxes.size() || !im.alive[id]) return Status::Invalid("remove: unknown region " + std::to_string(id));
  im.alive[id] = 0;
  (im.kind[id] == RegionKind::Publication ? im.pubs : im.subs) -= 1;
  im.mark(id);
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::match(std::vector<Pair>& out) {
  Impl& im = *impl_;
  ThreadPool& pool = ctx_->pool();
  live_ids<D>(im);
  const std::vector<Box<D>>& box = im.boxes;
  const auto t0 = std::chrono::steady_clock::now();
  im.times = {};
  if (is_gpu(variant_)) {
#if WARPMIND_HAVE_CUDA
    // The previous match stays on the device (the reference of the next match_changes) if this one fails.
    im.device->keep();
    const Status st = match_device<D>(im, out);
    if (!st.ok()) {
      im.device->unkeep();
      return st;
    }
#endif
  } else if (variant_ == DdmVariant::CpuBrute) {
    collect(pool, im.pub_ids, im.scratch, im.counts, out, [&](RegionId p, std::vector<RegionId>& list) {
      list.clear();
      for (RegionId s : im.sub_ids)
        if (overlap(box[p], box[s])) list.push_back(s);
    });
  } else {
    // Subscriptions in stripes along axis 1 (by lower bound), sorted by lower bound on axis 0 within a
    // stripe; the ones much wider than typical (on axis 0 or 1) on a side list. A publication searches
    // the stripes its reach covers and, in each, the window of subscriptions that can reach it on axis 0.
    const auto typical = [&](int axis) {
      std::vector<float>& w = im.widths;
      w.clear();
      for (RegionId s : im.sub_ids) w.push_back(box[s].hi[axis] - box[s].lo[axis]);
      if (w.empty()) return 0.0;
      std::nth_element(w.begin(), w.begin() + w.size() / 2, w.end());
      return static_cast<double>(w[w.size() / 2]);
    };
    const double wide0 = std::max(8.0 * typical(0), 1e-30), wide1 = std::max(8.0 * typical(1), 1e-30);
    im.sub_sorted.clear();
    im.sub_wide.clear();
    double reach0 = 0.0, reach1 = 0.0, y0 = INFINITY, y1 = -INFINITY;  // widest normal subscription; lo1 range
    for (RegionId s : im.sub_ids) {
      const double w0 = static_cast<double>(box[s].hi[0]) - box[s].lo[0];
      const double w1 = static_cast<double>(box[s].hi[1]) - box[s].lo[1];
      if (w0 > wide0 || w1 > wide1) {
        im.sub_wide.push_back(s);
      } else {
        im.sub_sorted.push_back(s);
        reach0 = std::max(reach0, w0);
        reach1 = std::max(reach1, w1);
        y0 = std::min(y0, static_cast<double>(box[s].lo[1]));
        y1 = std::max(y1, static_cast<double>(box[s].lo[1]));
      }
    }
    const double stripe_h = std::max(4.0 * (reach1 > 0 ? reach1 : 1.0), (y1 - y0) / 65536.0);
    const int stripes = im.sub_sorted.empty() ? 1 : std::max(1, static_cast<int>((y1 - y0) / stripe_h) + 1);
    const auto stripe_of = [&](double y) {
      return static_cast<int>(std::clamp(std::floor((y - y0) / stripe_h), 0.0, static_cast<double>(stripes - 1)));
    };
    // Counting sort into stripes, then each stripe sorted by lo0 (in parallel).
    im.stripe_of.resize(box.size());
    im.stripe_start.assign(static_cast<std::size_t>(stripes) + 1, 0);
    for (RegionId s : im.sub_sorted) ++im.stripe_start[(im.stripe_of[s] = stripe_of(box[s].lo[1])) + 1];
    for (int k = 0; k < stripes; ++k) im.stripe_start[k + 1] += im.stripe_start[k];
    im.stripe_next.assign(im.stripe_start.begin(), im.stripe_start.end() - 1);
    im.ids_tmp.resize(im.sub_sorted.size());
    for (RegionId s : im.sub_sorted) im.ids_tmp[im.stripe_next[im.stripe_of[s]]++] = s;
    im.sub_sorted.swap(im.ids_tmp);
    pool.parallel_for(
        static_cast<std::size_t>(stripes),
        [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t k = b; k < e; ++k)
            std::sort(im.sub_sorted.begin() + im.stripe_start[k], im.sub_sorted.begin() + im.stripe_start[k + 1],
                      [&](RegionId x, RegionId y) {
                        return box[x].lo[0] != box[y].lo[0] ? box[x].lo[0] < box[y].lo[0] : x < y;
                      });
        },
        16);
    collect(pool, im.pub_ids, im.scratch, im.counts, out, [&](RegionId p, std::vector<RegionId>& list) {
      list.clear();
      // A normal subscription s reaches p only if lo(s) > lo(p) - reach and lo(s) < hi(p) on axes 0 and
      // 1; the window is widened against rounding, the exact test decides.
      float from = static_cast<float>(static_cast<double>(box[p].lo[0]) - reach0);
      from = std::nextafter(std::nextafter(from, -INFINITY), -INFINITY);
      const int first = stripe_of(static_cast<double>(box[p].lo[1]) - reach1 - 1e-6 * (1.0 + std::fabs(reach1)));
      const int last = stripe_of(static_cast<double>(box[p].hi[1]));
      for (int k = first; k <= last; ++k) {
        const auto b = im.sub_sorted.begin() + im.stripe_start[k], e = im.sub_sorted.begin() + im.stripe_start[k + 1];
        auto it = std::lower_bound(b, e, from, [&](RegionId s, float v) { return box[s].lo[0] < v; });
        for (; it != e && box[*it].lo[0] < box[p].hi[0]; ++it)
          if (overlap(box[p], box[*it])) list.push_back(*it);
      }
      for (RegionId s : im.sub_wide)
        if (overlap(box[p], box[s])) list.push_back(s);
      std::sort(list.begin(), list.end());
    });
  }
  if (!is_gpu(variant_)) {
    im.times.match = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    im.prev = out;  // the GPU variants keep theirs on the device
  }
  im.have_prev = true;
  for (RegionId d : im.dirty) im.dirty_flag[d] = 0;
  im.dirty.clear();
  return Status::Ok();
}

template <int D>
Status RegionMatcher<D>::match_changes(std::vector<Pair>& appeared, std::vector<Pair>& disappeared) {
  Impl& im = *impl_;
  appeared.clear();
  disappeared.clear();
  if (!im.have_prev) {
    WM_RETURN_IF_ERROR(match(appeared));
    return Status::Ok();
  }
#if WARPMIND_HAVE_CUDA
  // GPU variants: a full match on the device, diffed there with the previous one (kept on the device);
  // only the changes come down. On an error the previous match stays the reference and the updated
  // regions stay marked, so a later call reports the same changes.
  if (is_gpu(variant_)) {
    live_ids<D>(im);
    im.device->keep();
    const Status st = match_device<D>(im, appeared, &disappeared);
    if (!st.ok()) {
      im.device->unkeep();
      appeared.clear();
      disappeared.clear();
      return st;
    }
    for (RegionId d : im.dirty) im.dirty_flag[d] = 0;
    im.dirty.clear();
    return Status::Ok();
  }
#endif
  // Many updated regions (the seed's every-region-moves step): a full match with the variant, diffed
  // with the previous one.
  if (im.dirty.size() * 8 > im.pubs + im.subs) {
    im.old_pairs.swap(im.prev);
    std::vector<Pair>& now = im.kept;
    WM_RETURN_IF_ERROR(match(now));  // sets prev, clears the dirty set
    std::set_difference(now.begin(), now.end(), im.old_pairs.begin(), im.old_pairs.end(), std::back_inserter(appeared));
    std::set_difference(im.old_pairs.begin(), im.old_pairs.end(), now.begin(), now.end(),
                        std::back_inserter(disappeared));
    return Status::Ok();
  }
  // Few: the pairs that involve an updated region, now (each updated region against every live region of
  // the other kind, the seed's region-based matching) and before; their differences are the changes.
  const std::vector<Box<D>>& box = im.boxes;
  im.fresh.clear();
  live_ids<D>(im);
  const std::vector<RegionId>& live_pubs = im.pub_ids;
  const std::vector<RegionId>& live_subs = im.sub_ids;
  for (RegionId d : im.dirty) {
    if (!im.alive[d]) continue;
    if (im.kind[d] == RegionKind::Publication) {
      for (RegionId s : live_subs)
        if (overlap(box[d], box[s])) im.fresh.push_back({d, s});
    } else {
      for (RegionId p : live_pubs)
        if (!im.dirty_flag[p] && overlap(box[p], box[d])) im.fresh.push_back({p, d});  // dirty p: seen above
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
  for (RegionId d : im.dirty) im.dirty_flag[d] = 0;
  im.dirty.clear();
  return Status::Ok();
}

template class RegionMatcher<2>;
template class RegionMatcher<3>;

}  // namespace warpmind::ddm
