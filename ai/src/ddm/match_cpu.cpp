// The CPU variants' full matches (cpu-brute, cpu-sort) over the packed regions (matcher.h).
#include "ddm/matcher.h"

namespace warpmind::ddm {

namespace {

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

}  // namespace

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
  // Into stripes (stable), then each stripe sorted by lo0 (in parallel).
  im.stripes.build(im.sub_sorted.size(), static_cast<std::size_t>(stripes),
                   [&](std::size_t k) { return stripe_of(sb[im.sub_sorted[k]].lo[1]); });
  im.ids_tmp.resize(im.sub_sorted.size());
  for (std::size_t j = 0; j < im.ids_tmp.size(); ++j) im.ids_tmp[j] = im.sub_sorted[im.stripes.ids()[j]];
  im.sub_sorted.swap(im.ids_tmp);
  const std::vector<std::uint32_t>& stripe_start = im.stripes.starts();
  pool.parallel_for(
      static_cast<std::size_t>(stripes),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t k = b; k < e; ++k)
          std::sort(im.sub_sorted.begin() + stripe_start[k], im.sub_sorted.begin() + stripe_start[k + 1],
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
      const auto b = im.sub_sorted.begin() + stripe_start[k], e = im.sub_sorted.begin() + stripe_start[k + 1];
      auto it = std::lower_bound(b, e, from, [&](std::uint32_t s, float v) { return sb[s].lo[0] < v; });
      for (; it != e && sb[*it].lo[0] < a.hi[0]; ++it)
        if (overlap(a, sb[*it])) list.push_back(*it);
    }
    for (std::uint32_t s : im.sub_wide)
      if (overlap(a, sb[s])) list.push_back(s);
    std::sort(list.begin(), list.end());
  });
}

template void match_cpu<2>(RegionMatcher<2>::Impl&, ThreadPool&, DdmVariant, std::vector<Pair>&);
template void match_cpu<3>(RegionMatcher<3>::Impl&, ThreadPool&, DdmVariant, std::vector<Pair>&);

}  // namespace warpmind::ddm
