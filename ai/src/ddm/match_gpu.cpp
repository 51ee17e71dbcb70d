// The GPU variants' host side (gpu-region, gpu-grid): the grid chosen for gpu-grid, the packed regions
// uploaded as they are (matcher.h), the pairs copied out on the pool. Without CUDA this file is empty.
#include "ddm/matcher.h"

#if WARPMIND_HAVE_CUDA
namespace warpmind::ddm {

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

}  // namespace

template <int D>
Status match_device(typename RegionMatcher<D>::Impl& im, ThreadPool& pool, std::vector<Pair>& out,
                    std::vector<Pair>* changes) {
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

template Status match_device<2>(RegionMatcher<2>::Impl&, ThreadPool&, std::vector<Pair>&, std::vector<Pair>*);
template Status match_device<3>(RegionMatcher<3>::Impl&, ThreadPool&, std::vector<Pair>&, std::vector<Pair>*);

}  // namespace warpmind::ddm
#endif
