// CUDA crowd solver. The verdict arithmetic mirrors ai/src/crowd/crowd_math.h with explicitly rounded
// intrinsics, so verdicts equal the CPU reference's.
//
// gpu-sort (the seed's baseline): hash every old position and every target to a 2R cell, radix-sort
// both by cell (CUB), find each cell's range, reorder positions by cell, then one thread per agent
// checks the 3x3 cells around its target.
//
// gpu-static-grid (the seed's sort-free algorithm, made exact): cells of side < 2R/sqrt(2), so two
// agents in one cell always collide and a cell holds at most one old position. Four kernels, no sort,
// no clearing (slots carry the tick number):
//   1 write     every agent writes its id into its old cell and its target cell (strict: any writer
//               wins; lowest-id: atomicMin, so the lowest id is the one left visible)
//   2 contest   strict: an agent that lost its target cell marks the cell contested (benign race: all
//               write the same tick number); everyone in a contested cell conflicts with everyone else
//   3 scan      every agent checks the 5x5 cells around its target against old positions and visible
//               targets; it marks each visible neighbour its own target conflicts with (and that it has
//               priority over), which reaches the neighbours a hidden (losing) agent could not be seen by
//   4 verdict   own findings + marks + contest -> verdict; accepted agents move; verdict counts
// Every conflicting pair is found: both visible (each sees the other), one hidden (the hidden one
// marks the visible one; the hidden one is rejected by the contest, or under lowest-id by the
// lower-id winner of its cell), both hidden (both contested).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>

#include "buffer.cuh"
#include "check.cuh"
#include "warpmind/gpu/crowd.h"

namespace warpmind::gpu {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kEmpty = 0xffffffffu;
enum : unsigned char { kMoved = 0, kStayed = 1, kOutOfWorld = 2, kBlocked = 3, kCollision = 4 };

// Written as !(d2 < 4R^2) so that a non-finite proposal (possible only through step_device) never
// conflicts with anyone; for finite values it is the host's d2 >= 4R^2.
__device__ __forceinline__ bool apart_d(float2 a, float2 b, const CrowdGeometry& g) {
  const float dx = __fsub_rn(a.x, b.x), dy = __fsub_rn(a.y, b.y);
  return !(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)) < g.four_r2);
}

__device__ __forceinline__ bool inside_d(float2 p, const CrowdGeometry& g) {
  return p.x >= g.x0 && p.x < g.x1 && p.y >= g.y0 && p.y < g.y1;
}

__device__ __forceinline__ int clampi(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

__device__ __forceinline__ bool blocked_d(float2 p, const CrowdGeometry& g, const unsigned char* grid) {
  if (g.ob_cols == 0) return false;
  const int cx = clampi(static_cast<int>(floorf(__fdiv_rn(__fsub_rn(p.x, g.x0), g.ob_w))), g.ob_cols - 1);
  const int cy = clampi(static_cast<int>(floorf(__fdiv_rn(__fsub_rn(p.y, g.y0), g.ob_h))), g.ob_rows - 1);
  return grid[static_cast<size_t>(cy) * g.ob_cols + cx] != 0;
}

__device__ __forceinline__ int cell_axis(float v, float origin, float cell, int cells) {
  const float f = fminf(fmaxf(floorf(__fdiv_rn(__fsub_rn(v, origin), cell)), 0.0f), static_cast<float>(cells - 1));
  return static_cast<int>(f);
}

__device__ __forceinline__ unsigned cell_of(float2 p, const CrowdGeometry& g) {
  return static_cast<unsigned>(cell_axis(p.y, g.y0, g.cell, g.cells_y)) * g.cells_x +
         static_cast<unsigned>(cell_axis(p.x, g.x0, g.cell, g.cells_x));
}

__global__ void k_iota(unsigned* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = static_cast<unsigned>(i);
}

__global__ void k_hash(const float2* pos, const float2* prop, int n, CrowdGeometry g, unsigned* key_old,
                       unsigned* key_tgt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key_old[i] = cell_of(pos[i], g);
  key_tgt[i] = cell_of(prop[i], g);
}

// Cell ranges of a sorted key array (cells never seen keep start = kEmpty) and the positions reordered
// by cell.
__global__ void k_ranges(const unsigned* key, const unsigned* id, const float2* src, int n, unsigned* start,
                         unsigned* end, float2* sorted) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const unsigned c = key[k];
  if (k == 0 || key[k - 1] != c) start[c] = k;
  if (k == n - 1 || key[k + 1] != c) end[c] = k + 1;
  sorted[k] = src[id[k]];
}

struct Index {
  const unsigned* start;
  const unsigned* end;
  const unsigned* id;
  const float2* pos;
};

// True if some agent j != i binned near p is closer than 2R (only j < i when `lower_only`).
__device__ __forceinline__ bool conflict(float2 p, unsigned i, const Index& ix, const CrowdGeometry& g,
                                         bool lower_only) {
  const int cx = cell_axis(p.x, g.x0, g.cell, g.cells_x), cy = cell_axis(p.y, g.y0, g.cell, g.cells_y);
  for (int y = max(0, cy - 1); y <= min(g.cells_y - 1, cy + 1); ++y)
    for (int x = max(0, cx - 1); x <= min(g.cells_x - 1, cx + 1); ++x) {
      const unsigned c = static_cast<unsigned>(y) * g.cells_x + x;
      const unsigned b = ix.start[c];
      if (b == kEmpty) continue;
      for (unsigned k = b; k < ix.end[c]; ++k) {
        const unsigned j = ix.id[k];
        if (j != i && (!lower_only || j < i) && !apart_d(p, ix.pos[k], g)) return true;
      }
    }
  return false;
}

// The common tail of both variants' last kernel: agent i's verdict from whether it conflicts (asked
// only when its target is inside the world and free), the move if accepted, and the verdict counts
// (double-buffered by tick parity: block 0 clears the other half for the next tick).
template <class Conflicts>
__device__ __forceinline__ void decide(int n, unsigned tick, float2* pos, const float2* prop, const CrowdGeometry& g,
                                       const unsigned char* grid, unsigned char* verdict, unsigned long long* counts,
                                       Conflicts&& conflicts) {
  __shared__ unsigned block_counts[5];
  if (threadIdx.x < 5) block_counts[threadIdx.x] = 0;
  if (blockIdx.x == 0 && threadIdx.x < 5) counts[((tick + 1) & 1) * 5 + threadIdx.x] = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 p = prop[i], o = pos[i];
    unsigned char v = kMoved;
    if (p.x == o.x && p.y == o.y) v = kStayed;
    else if (!inside_d(p, g)) v = kOutOfWorld;
    else if (blocked_d(p, g, grid)) v = kBlocked;
    else if (conflicts(i, p)) v = kCollision;
    verdict[i] = v;
    if (v == kMoved) pos[i] = p;  // other threads read old positions from copies or by other ids only
    atomicAdd(&block_counts[v], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 5 && block_counts[threadIdx.x])
    atomicAdd(&counts[(tick & 1) * 5 + threadIdx.x], block_counts[threadIdx.x]);
}

__global__ void k_check(float2* pos, const float2* prop, int n, CrowdGeometry g, const unsigned char* grid,
                        Index olds, Index targets, bool lowest_id_wins, unsigned tick, unsigned char* verdict,
                        unsigned long long* counts) {
  decide(n, tick, pos, prop, g, grid, verdict, counts, [&](int i, float2 p) {
    return conflict(p, i, olds, g, false) || conflict(p, i, targets, g, lowest_id_wins);
  });
}

// ---- gpu-static-grid ---------------------------------------------------------------------------

// Slot key: the tick in the high word (inverted, so the current tick's keys are the smallest and win
// atomicMin against stale ones) and the agent id in the low word.
__device__ __forceinline__ unsigned long long slot_key(unsigned tick, unsigned id) {
  return (static_cast<unsigned long long>(~tick) << 32) | id;
}
__device__ __forceinline__ bool slot_current(unsigned long long key, unsigned tick) {
  return static_cast<unsigned>(key >> 32) == ~tick;
}

// The static grid is stored with kPad never-written cells on every side, so the 5x5 neighbourhood of
// any real cell is in bounds and the scan needs no bounds checks (a fully unrolled loop).
constexpr int kPad = 2;
__device__ __forceinline__ int sg_stride(const CrowdGeometry& g) { return g.sg_cols + 2 * kPad; }

// Padded static-grid index of p's cell, or -1 when p lies beyond the 2R margin around the world.
__device__ __forceinline__ int sg_cell(float2 p, const CrowdGeometry& g) {
  const float fx = floorf(__fdiv_rn(__fsub_rn(p.x, g.sg_x0), g.sg_cell));
  const float fy = floorf(__fdiv_rn(__fsub_rn(p.y, g.sg_y0), g.sg_cell));
  if (!(fx >= 0.0f && fy >= 0.0f && fx < static_cast<float>(g.sg_cols) && fy < static_cast<float>(g.sg_rows)))
    return -1;
  return (static_cast<int>(fy) + kPad) * sg_stride(g) + static_cast<int>(fx) + kPad;
}

__global__ void k_sg_write(const float2* pos, const float2* prop, int n, CrowdGeometry g, unsigned tick,
                           bool lowest_id_wins, unsigned long long* old_slot, unsigned long long* tgt_slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long key = slot_key(tick, static_cast<unsigned>(i));
  old_slot[sg_cell(pos[i], g)] = key;  // old positions are inside the world and alone in their cell
  const int c = sg_cell(prop[i], g);
  if (c < 0) return;
  if (lowest_id_wins) atomicMin(tgt_slot + c, key);
  else tgt_slot[c] = key;
}

__global__ void k_sg_contest(const float2* prop, int n, CrowdGeometry g, unsigned tick,
                             const unsigned long long* tgt_slot, unsigned* contested) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = sg_cell(prop[i], g);
  if (c >= 0 && tgt_slot[c] != slot_key(tick, static_cast<unsigned>(i))) contested[c] = tick;
}

// hit[i]: 1 when agent i found a conflict itself. mark[j] = tick: some agent with priority over j has a
// target within 2R of j's.
__global__ void k_sg_scan(const float2* pos, const float2* prop, int n, CrowdGeometry g, unsigned tick,
                          bool lowest_id_wins, const unsigned long long* old_slot,
                          const unsigned long long* tgt_slot, const unsigned* contested, unsigned char* hit,
                          unsigned* mark) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 p = prop[i];
  const int c = sg_cell(p, g);
  bool h = false;
  if (c >= 0) {
    const unsigned long long own = tgt_slot[c];
    // Strict: sharing a cell is a conflict. Lowest-id: the cell's winner has the lowest id there.
    h = lowest_id_wins ? own != slot_key(tick, static_cast<unsigned>(i)) : contested[c] == tick;
    const int stride = sg_stride(g);
#pragma unroll
    for (int dy = -2; dy <= 2; ++dy)
#pragma unroll
      for (int dx = -2; dx <= 2; ++dx) {
        const int k = c + dy * stride + dx;
        const unsigned long long ko = old_slot[k];
        if (slot_current(ko, tick)) {
          const unsigned j = static_cast<unsigned>(ko);
          if (j != static_cast<unsigned>(i) && !apart_d(p, pos[j], g)) h = true;
        }
        const unsigned long long kt = tgt_slot[k];
        if (slot_current(kt, tick)) {
          const unsigned j = static_cast<unsigned>(kt);
          if (j != static_cast<unsigned>(i) && !apart_d(p, prop[j], g)) {
            if (!lowest_id_wins || j < static_cast<unsigned>(i)) h = true;
            if (!lowest_id_wins || static_cast<unsigned>(i) < j) mark[j] = tick;
          }
        }
      }
  }
  hit[i] = h;
}

__global__ void k_sg_verdict(float2* pos, const float2* prop, int n, CrowdGeometry g, unsigned tick,
                             const unsigned char* grid, const unsigned char* hit, const unsigned* mark,
                             unsigned char* verdict, unsigned long long* counts) {
  decide(n, tick, pos, prop, g, grid, verdict, counts, [&](int i, float2) { return hit[i] || mark[i] == tick; });
}

int blocks_for(std::size_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

int bits_for(unsigned cells) {
  int b = 1;
  while (b < 32 && (1u << b) < cells) ++b;
  return b;
}

}  // namespace

struct CrowdDevice::Impl {
  cudaStream_t stream = nullptr;
  CrowdKernel kernel{};
  CrowdGeometry g{};
  bool lowest = false;
  std::size_t n = 0;
  unsigned tick = 0;      // static grid: slots written this tick carry it
  unsigned cells = 0;     // gpu-sort binning cells
  std::size_t sg_cells = 0;
  DeviceBuffer<unsigned char> grid;
  DeviceBuffer<float2> pos, prop;
  DeviceBuffer<unsigned char> verdict;
  DeviceBuffer<unsigned long long> counts;  // 2 x 5, by tick parity
  // gpu-sort
  DeviceBuffer<float2> sorted_old, sorted_tgt;
  DeviceBuffer<unsigned> key_old, key_tgt, key_old_sorted, key_tgt_sorted, iota, id_old, id_tgt;
  DeviceBuffer<unsigned> start_old, end_old, start_tgt, end_tgt;
  DeviceBuffer<unsigned char> sort_temp;
  std::size_t sort_temp_bytes = 0;
  // gpu-static-grid
  DeviceBuffer<unsigned long long> old_slot, tgt_slot;
  DeviceBuffer<unsigned> contested, mark;
  DeviceBuffer<unsigned char> hit;

  std::string step_sort(const float2* prop_dev, int ni);
  std::string step_static_grid(const float2* prop_dev, int ni);
};

std::string CrowdDevice::create(void* stream, CrowdKernel kernel, const CrowdGeometry& g,
                                const std::vector<std::uint8_t>& blocked, bool lowest_id_wins,
                                std::unique_ptr<CrowdDevice>& out) {
  std::unique_ptr<CrowdDevice> d(new CrowdDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.kernel = kernel;
  im.g = g;
  im.lowest = lowest_id_wins;
  std::string err;
  if (!(err = im.grid.reserve(std::max<std::size_t>(blocked.size(), 1))).empty()) return err;
  if (!blocked.empty())
    WM_CUDA(cudaMemcpy(im.grid.get(), blocked.data(), blocked.size(), cudaMemcpyHostToDevice));
  if (!(err = im.counts.reserve(10, true)).empty()) return err;
  if (kernel == CrowdKernel::Sort) {
    im.cells = static_cast<unsigned>(g.cells_x) * static_cast<unsigned>(g.cells_y);
    for (DeviceBuffer<unsigned>* b : {&im.start_old, &im.end_old, &im.start_tgt, &im.end_tgt})
      if (!(err = b->reserve(im.cells)).empty()) return err;
  } else {
    im.sg_cells = static_cast<std::size_t>(g.sg_cols + 2 * kPad) * static_cast<std::size_t>(g.sg_rows + 2 * kPad);
    if (!(err = im.old_slot.reserve(im.sg_cells)).empty()) return err;
    if (!(err = im.tgt_slot.reserve(im.sg_cells)).empty()) return err;
    if (!(err = im.contested.reserve(im.sg_cells, true)).empty()) return err;
    WM_CUDA(cudaMemset(im.old_slot.get(), 0xff, im.sg_cells * sizeof(unsigned long long)));
    WM_CUDA(cudaMemset(im.tgt_slot.get(), 0xff, im.sg_cells * sizeof(unsigned long long)));
  }
  out = std::move(d);
  return {};
}

CrowdDevice::~CrowdDevice() = default;

std::string CrowdDevice::reset(const float* positions, std::size_t n) {
  Impl& im = *impl_;
  std::string err;
  const std::size_t cap = std::max<std::size_t>(n, 1);
  for (DeviceBuffer<float2>* b : {&im.pos, &im.prop})
    if (!(err = b->reserve(cap)).empty()) return err;
  if (!(err = im.verdict.reserve(cap)).empty()) return err;
  if (im.kernel == CrowdKernel::Sort) {
    for (DeviceBuffer<float2>* b : {&im.sorted_old, &im.sorted_tgt})
      if (!(err = b->reserve(cap)).empty()) return err;
    for (DeviceBuffer<unsigned>* b : {&im.key_old, &im.key_tgt, &im.key_old_sorted, &im.key_tgt_sorted, &im.iota,
                                      &im.id_old, &im.id_tgt})
      if (!(err = b->reserve(cap)).empty()) return err;
    WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, im.sort_temp_bytes, im.key_old.get(), im.key_old_sorted.get(),
                                            im.iota.get(), im.id_old.get(), static_cast<int>(cap), 0,
                                            bits_for(im.cells)));
    if (!(err = im.sort_temp.reserve(im.sort_temp_bytes)).empty()) return err;
    if (n > 0) {
      k_iota<<<blocks_for(n), kThreads, 0, im.stream>>>(im.iota.get(), static_cast<int>(n));
      WM_CUDA_LAUNCH(k_iota);
    }
  } else {
    if (!(err = im.mark.reserve(cap, true)).empty()) return err;
    if (!(err = im.hit.reserve(cap)).empty()) return err;
  }
  if (n > 0) WM_CUDA(cudaMemcpyAsync(im.pos.get(), positions, n * sizeof(float2), cudaMemcpyHostToDevice, im.stream));
  WM_CUDA(cudaMemsetAsync(im.verdict.get(), 1, cap, im.stream));  // Stayed
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = n;
  return {};
}

std::string CrowdDevice::Impl::step_sort(const float2* p, int ni) {
  cudaStream_t s = stream;
  k_hash<<<blocks_for(ni), kThreads, 0, s>>>(pos.get(), p, ni, g, key_old.get(), key_tgt.get());
  WM_CUDA_LAUNCH(k_hash);
  const int bits = bits_for(cells);
  std::size_t temp = sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp, key_old.get(), key_old_sorted.get(), iota.get(),
                                          id_old.get(), ni, 0, bits, s));
  temp = sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp, key_tgt.get(), key_tgt_sorted.get(), iota.get(),
                                          id_tgt.get(), ni, 0, bits, s));
  WM_CUDA(cudaMemsetAsync(start_old.get(), 0xff, cells * sizeof(unsigned), s));
  WM_CUDA(cudaMemsetAsync(start_tgt.get(), 0xff, cells * sizeof(unsigned), s));
  k_ranges<<<blocks_for(ni), kThreads, 0, s>>>(key_old_sorted.get(), id_old.get(), pos.get(), ni, start_old.get(),
                                               end_old.get(), sorted_old.get());
  WM_CUDA_LAUNCH(k_ranges);
  k_ranges<<<blocks_for(ni), kThreads, 0, s>>>(key_tgt_sorted.get(), id_tgt.get(), p, ni, start_tgt.get(),
                                               end_tgt.get(), sorted_tgt.get());
  WM_CUDA_LAUNCH(k_ranges);
  const Index olds{start_old.get(), end_old.get(), id_old.get(), sorted_old.get()};
  const Index tgts{start_tgt.get(), end_tgt.get(), id_tgt.get(), sorted_tgt.get()};
  k_check<<<blocks_for(ni), kThreads, 0, s>>>(pos.get(), p, ni, g, grid.get(), olds, tgts, lowest, tick,
                                              verdict.get(), counts.get());
  WM_CUDA_LAUNCH(k_check);
  return {};
}

std::string CrowdDevice::Impl::step_static_grid(const float2* p, int ni) {
  cudaStream_t s = stream;
  const int b = blocks_for(ni);
  k_sg_write<<<b, kThreads, 0, s>>>(pos.get(), p, ni, g, tick, lowest, old_slot.get(), tgt_slot.get());
  WM_CUDA_LAUNCH(k_sg_write);
  if (!lowest) {
    k_sg_contest<<<b, kThreads, 0, s>>>(p, ni, g, tick, tgt_slot.get(), contested.get());
    WM_CUDA_LAUNCH(k_sg_contest);
  }
  k_sg_scan<<<b, kThreads, 0, s>>>(pos.get(), p, ni, g, tick, lowest, old_slot.get(), tgt_slot.get(),
                                   contested.get(), hit.get(), mark.get());
  WM_CUDA_LAUNCH(k_sg_scan);
  k_sg_verdict<<<b, kThreads, 0, s>>>(pos.get(), p, ni, g, tick, grid.get(), hit.get(), mark.get(), verdict.get(),
                                      counts.get());
  WM_CUDA_LAUNCH(k_sg_verdict);
  return {};
}

std::string CrowdDevice::step_device(const float* proposals, std::size_t n) {
  Impl& im = *impl_;
  if (n != im.n) return "step: agent count differs from reset";
  ++im.tick;
  if (n == 0) return {};
  const auto* p = reinterpret_cast<const float2*>(proposals);
  return im.kernel == CrowdKernel::Sort ? im.step_sort(p, static_cast<int>(n))
                                        : im.step_static_grid(p, static_cast<int>(n));
}

std::string CrowdDevice::fetch_counts(CrowdCounts& counts) const {
  const Impl& im = *impl_;
  for (std::size_t& c : counts.by_verdict) c = 0;
  if (im.n == 0 || im.tick == 0) return {};
  unsigned long long host[5];
  WM_CUDA(cudaMemcpyAsync(host, im.counts.get() + (im.tick & 1) * 5, sizeof host, cudaMemcpyDeviceToHost, im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  for (int v = 0; v < 5; ++v) counts.by_verdict[v] = static_cast<std::size_t>(host[v]);
  return {};
}

std::string CrowdDevice::step(const float* proposals, std::size_t n, CrowdCounts& counts) {
  Impl& im = *impl_;
  if (n != im.n) return "step: agent count differs from reset";
  if (n > 0)
    WM_CUDA(cudaMemcpyAsync(im.prop.get(), proposals, n * sizeof(float2), cudaMemcpyHostToDevice, im.stream));
  std::string err = step_device(reinterpret_cast<const float*>(im.prop.get()), n);
  if (!err.empty()) return err;
  return fetch_counts(counts);
}

const float* CrowdDevice::positions() const { return reinterpret_cast<const float*>(impl_->pos.get()); }
const std::uint8_t* CrowdDevice::verdicts() const { return impl_->verdict.get(); }

std::string CrowdDevice::download_positions(float* out) const {
  if (impl_->n == 0) return {};
  WM_CUDA(cudaMemcpyAsync(out, impl_->pos.get(), impl_->n * sizeof(float2), cudaMemcpyDeviceToHost, impl_->stream));
  WM_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

std::string CrowdDevice::download_verdicts(std::uint8_t* out) const {
  if (impl_->n == 0) return {};
  WM_CUDA(cudaMemcpyAsync(out, impl_->verdict.get(), impl_->n, cudaMemcpyDeviceToHost, impl_->stream));
  WM_CUDA(cudaStreamSynchronize(impl_->stream));
  return {};
}

}  // namespace warpmind::gpu
