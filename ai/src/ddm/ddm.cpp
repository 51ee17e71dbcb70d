// Region matching on the CPU (contract in ddm.h). [SECTION] names   [SECTION] full matches
// [SECTION] the matcher
#include "warpmind/ddm/ddm.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace warpmind::ddm {

// ---- [SECTION] names -----------------------------------------------------------------------------

namespace {
constexpr struct {
  DdmVariant v;
  const char* name;
} kVariants[] = {{DdmVariant::Auto, "auto"}, {DdmVariant::CpuBrute, "cpu-brute"}, {DdmVariant::CpuSort, "cpu-sort"}};
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
  std::vector<std::uint64_t> counts;
  std::vector<std::vector<RegionId>> scratch;  // per worker
  std::vector<Pair> fresh, old_pairs, kept;

  void mark(RegionId id) {
    if (!dirty_flag[id]) {
      dirty_flag[id] = 1;
      dirty.push_back(id);
    }
  }
};

namespace {

template <int D>
Status check_box(const Box<D>& b, const char* what) {
  for (int k = 0; k < D; ++k) {
    if (!std::isfinite(b.lo[k]) || !std::isfinite(b.hi[k]))
      return Status::Invalid(std::string(what) + ": bounds on axis " + std::to_string(k) + " must be finite");
    if (b.lo[k] > b.hi[k]) return Status::Invalid(std::string(what) + ": lo > hi on axis " + std::to_string(k));
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
  pool.parallel_for(pubs.size(), [&](std::size_t b, std::size_t e, unsigned w) {
    for (std::size_t i = b; i < e; ++i) {
      fill(pubs[i], scratch[w]);
      counts[i + 1] = scratch[w].size();
    }
  }, 256);
  for (std::size_t i = 0; i < pubs.size(); ++i) counts[i + 1] += counts[i];
  out.resize(counts[pubs.size()]);
  pool.parallel_for(pubs.size(), [&](std::size_t b, std::size_t e, unsigned w) {
    for (std::size_t i = b; i < e; ++i) {
      fill(pubs[i], scratch[w]);
      Pair* o = out.data() + counts[i];
      for (RegionId s : scratch[w]) *o++ = {pubs[i], s};
    }
  }, 256);
}

}  // namespace

// ---- [SECTION] the matcher -----------------------------------------------------------------------

template <int D>
Status RegionMatcher<D>::create(Context& ctx, DdmVariant variant, std::unique_ptr<RegionMatcher>& out) {
  std::unique_ptr<RegionMatcher> m(new RegionMatcher());
  m->ctx_ = &ctx;
  m->variant_ = variant == DdmVariant::Auto ? DdmVariant::CpuSort : variant;
  m->impl_ = std::make_unique<Impl>();
  m->impl_->scratch.resize(ctx.pool().size());
  out = std::move(m);
  return Status::Ok();
}

template <int D>
RegionMatcher<D>::~RegionMatcher() = default;

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
  WM_RETURN_IF_ERROR(check_box<D>(box, ("update of region " + std::to_string(id)).c_str()));
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
  im.pub_ids.clear();
  im.sub_ids.clear();
  for (RegionId i = 0; i < im.boxes.size(); ++i)
    if (im.alive[i]) (im.kind[i] == RegionKind::Publication ? im.pub_ids : im.sub_ids).push_back(i);
  const std::vector<Box<D>>& box = im.boxes;
  if (variant_ == DdmVariant::CpuBrute) {
    collect(pool, im.pub_ids, im.scratch, im.counts, out, [&](RegionId p, std::vector<RegionId>& list) {
      list.clear();
      for (RegionId s : im.sub_ids)
        if (overlaps<D>(box[p], box[s])) list.push_back(s);
    });
  } else {
    // Subscriptions by lower bound on axis 0; the much wider than typical ones on a side list.
    std::vector<float> widths;
    widths.reserve(im.sub_ids.size());
    for (RegionId s : im.sub_ids) widths.push_back(box[s].hi[0] - box[s].lo[0]);
    float typical = 0.0f;
    if (!widths.empty()) {
      std::nth_element(widths.begin(), widths.begin() + widths.size() / 2, widths.end());
      typical = widths[widths.size() / 2];
    }
    const double wide_above = std::max(8.0 * typical, 1e-30);
    im.sub_sorted.clear();
    im.sub_wide.clear();
    double reach = 0.0;  // the widest normal subscription on axis 0
    for (RegionId s : im.sub_ids) {
      const double w = static_cast<double>(box[s].hi[0]) - box[s].lo[0];
      if (w > wide_above) {
        im.sub_wide.push_back(s);
      } else {
        im.sub_sorted.push_back(s);
        reach = std::max(reach, w);
      }
    }
    std::sort(im.sub_sorted.begin(), im.sub_sorted.end(), [&](RegionId a, RegionId b) {
      return box[a].lo[0] != box[b].lo[0] ? box[a].lo[0] < box[b].lo[0] : a < b;
    });
    collect(pool, im.pub_ids, im.scratch, im.counts, out, [&](RegionId p, std::vector<RegionId>& list) {
      list.clear();
      // A normal subscription s reaches p on axis 0 only if lo0(s) > lo0(p) - reach and lo0(s) < hi0(p);
      // the window is widened by a few ulps against rounding, the exact test decides.
      float from = static_cast<float>(static_cast<double>(box[p].lo[0]) - reach);
      from = std::nextafter(std::nextafter(from, -INFINITY), -INFINITY);
      auto it = std::lower_bound(im.sub_sorted.begin(), im.sub_sorted.end(), from,
                                 [&](RegionId s, float v) { return box[s].lo[0] < v; });
      for (; it != im.sub_sorted.end() && box[*it].lo[0] < box[p].hi[0]; ++it)
        if (overlaps<D>(box[p], box[*it])) list.push_back(*it);
      for (RegionId s : im.sub_wide)
        if (overlaps<D>(box[p], box[s])) list.push_back(s);
      std::sort(list.begin(), list.end());
    });
  }
  im.prev = out;
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
  // The pairs that involve an updated region, now (each updated region against every live region of
  // the other kind) and before; their differences are the changes.
  const std::vector<Box<D>>& box = im.boxes;
  im.fresh.clear();
  std::vector<RegionId>& live_pubs = im.pub_ids;
  std::vector<RegionId>& live_subs = im.sub_ids;
  live_pubs.clear();
  live_subs.clear();
  for (RegionId i = 0; i < box.size(); ++i)
    if (im.alive[i]) (im.kind[i] == RegionKind::Publication ? live_pubs : live_subs).push_back(i);
  for (RegionId d : im.dirty) {
    if (!im.alive[d]) continue;
    if (im.kind[d] == RegionKind::Publication) {
      for (RegionId s : live_subs)
        if (overlaps<D>(box[d], box[s])) im.fresh.push_back({d, s});
    } else {
      for (RegionId p : live_pubs)
        if (!im.dirty_flag[p] && overlaps<D>(box[p], box[d])) im.fresh.push_back({p, d});  // dirty p: seen above
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
