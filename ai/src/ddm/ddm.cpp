// Region matching (contract in ddm.h): the variants' names, the matcher's calls — adding, updating and
// removing regions with their checks, batches, full matches and the changes since the last match — and
// their dispatch to the CPU variants (match_cpu.cpp) or the device (match_gpu.cpp). The state is
// matcher.h's.
#include "core/names.h"
#include "ddm/matcher.h"

namespace warpmind::ddm {

namespace {

constexpr warpmind::detail::Named<DdmVariant> kVariants[] = {{DdmVariant::Auto, "auto"},
                                                             {DdmVariant::CpuBrute, "cpu-brute"},
                                                             {DdmVariant::CpuSort, "cpu-sort"},
                                                             {DdmVariant::GpuRegion, "gpu-region"},
                                                             {DdmVariant::GpuGrid, "gpu-grid"}};

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

}  // namespace

const char* variant_name(DdmVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, DdmVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
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
