// CUDA crowd solver, gpu-sort variant (the seed's baseline): hash every old position and every target
// to a 2R cell, radix-sort both by cell (CUB), find each cell's range, reorder positions by cell for
// coalesced neighbour reads, then one thread per agent checks the 3x3 cells around its target. The
// verdict arithmetic mirrors ai/src/crowd/crowd_math.h with explicitly rounded intrinsics.
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

__device__ __forceinline__ bool apart_d(float2 a, float2 b, const CrowdGeometry& g) {
  const float dx = __fsub_rn(a.x, b.x), dy = __fsub_rn(a.y, b.y);
  return __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)) >= g.four_r2;
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

__global__ void k_check(float2* pos, const float2* prop, int n, CrowdGeometry g, const unsigned char* grid,
                        Index olds, Index targets, bool lowest_id_wins, unsigned char* verdict,
                        unsigned long long* counts) {
  __shared__ unsigned block_counts[5];
  if (threadIdx.x < 5) block_counts[threadIdx.x] = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 p = prop[i], o = pos[i];
    unsigned char v = kMoved;
    if (p.x == o.x && p.y == o.y) v = kStayed;
    else if (!inside_d(p, g)) v = kOutOfWorld;
    else if (blocked_d(p, g, grid)) v = kBlocked;
    else if (conflict(p, i, olds, g, false) || conflict(p, i, targets, g, lowest_id_wins)) v = kCollision;
    verdict[i] = v;
    if (v == kMoved) pos[i] = p;  // other threads read old positions from the reordered copy only
    atomicAdd(&block_counts[v], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 5 && block_counts[threadIdx.x]) atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
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
  CrowdGeometry g{};
  bool lowest = false;
  std::size_t n = 0;
  unsigned cells = 0;
  DeviceBuffer<unsigned char> grid;
  DeviceBuffer<float2> pos, prop, sorted_old, sorted_tgt;
  DeviceBuffer<unsigned> key_old, key_tgt, key_old_sorted, key_tgt_sorted, iota, id_old, id_tgt;
  DeviceBuffer<unsigned> start_old, end_old, start_tgt, end_tgt;
  DeviceBuffer<unsigned char> verdict, sort_temp;
  std::size_t sort_temp_bytes = 0;
  DeviceBuffer<unsigned long long> counts;
};

std::string CrowdDevice::create(void* stream, const CrowdGeometry& g, const std::vector<std::uint8_t>& blocked,
                                bool lowest_id_wins, std::unique_ptr<CrowdDevice>& out) {
  std::unique_ptr<CrowdDevice> d(new CrowdDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.g = g;
  im.lowest = lowest_id_wins;
  im.cells = static_cast<unsigned>(g.cells_x) * static_cast<unsigned>(g.cells_y);
  std::string err;
  if (!(err = im.grid.reserve(std::max<std::size_t>(blocked.size(), 1))).empty()) return err;
  if (!blocked.empty())
    WM_CUDA(cudaMemcpy(im.grid.get(), blocked.data(), blocked.size(), cudaMemcpyHostToDevice));
  for (DeviceBuffer<unsigned>* b : {&im.start_old, &im.end_old, &im.start_tgt, &im.end_tgt})
    if (!(err = b->reserve(im.cells)).empty()) return err;
  if (!(err = im.counts.reserve(5)).empty()) return err;
  out = std::move(d);
  return {};
}

CrowdDevice::~CrowdDevice() = default;

std::string CrowdDevice::reset(const float* positions, std::size_t n) {
  Impl& im = *impl_;
  std::string err;
  const std::size_t cap = std::max<std::size_t>(n, 1);
  for (DeviceBuffer<float2>* b : {&im.pos, &im.prop, &im.sorted_old, &im.sorted_tgt})
    if (!(err = b->reserve(cap)).empty()) return err;
  for (DeviceBuffer<unsigned>* b : {&im.key_old, &im.key_tgt, &im.key_old_sorted, &im.key_tgt_sorted, &im.iota,
                                    &im.id_old, &im.id_tgt})
    if (!(err = b->reserve(cap)).empty()) return err;
  if (!(err = im.verdict.reserve(cap)).empty()) return err;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, im.sort_temp_bytes, im.key_old.get(), im.key_old_sorted.get(),
                                          im.iota.get(), im.id_old.get(), static_cast<int>(cap), 0,
                                          bits_for(im.cells)));
  if (!(err = im.sort_temp.reserve(im.sort_temp_bytes)).empty()) return err;
  if (n > 0) {
    WM_CUDA(cudaMemcpyAsync(im.pos.get(), positions, n * sizeof(float2), cudaMemcpyHostToDevice, im.stream));
    k_iota<<<blocks_for(n), kThreads, 0, im.stream>>>(im.iota.get(), static_cast<int>(n));
    WM_CUDA_LAUNCH(k_iota);
  }
  WM_CUDA(cudaMemsetAsync(im.verdict.get(), 1, cap, im.stream));  // Stayed
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.n = n;
  return {};
}

std::string CrowdDevice::step(const float* proposals, std::size_t n, CrowdCounts& counts) {
  Impl& im = *impl_;
  if (n != im.n) return "step: agent count differs from reset";
  for (std::size_t& c : counts.by_verdict) c = 0;
  if (n == 0) return {};
  const int ni = static_cast<int>(n);
  cudaStream_t s = im.stream;
  WM_CUDA(cudaMemcpyAsync(im.prop.get(), proposals, n * sizeof(float2), cudaMemcpyHostToDevice, s));
  k_hash<<<blocks_for(n), kThreads, 0, s>>>(im.pos.get(), im.prop.get(), ni, im.g, im.key_old.get(), im.key_tgt.get());
  WM_CUDA_LAUNCH(k_hash);
  const int bits = bits_for(im.cells);
  std::size_t temp = im.sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(im.sort_temp.get(), temp, im.key_old.get(), im.key_old_sorted.get(),
                                          im.iota.get(), im.id_old.get(), ni, 0, bits, s));
  temp = im.sort_temp_bytes;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(im.sort_temp.get(), temp, im.key_tgt.get(), im.key_tgt_sorted.get(),
                                          im.iota.get(), im.id_tgt.get(), ni, 0, bits, s));
  WM_CUDA(cudaMemsetAsync(im.start_old.get(), 0xff, im.cells * sizeof(unsigned), s));
  WM_CUDA(cudaMemsetAsync(im.start_tgt.get(), 0xff, im.cells * sizeof(unsigned), s));
  k_ranges<<<blocks_for(n), kThreads, 0, s>>>(im.key_old_sorted.get(), im.id_old.get(), im.pos.get(), ni,
                                              im.start_old.get(), im.end_old.get(), im.sorted_old.get());
  WM_CUDA_LAUNCH(k_ranges);
  k_ranges<<<blocks_for(n), kThreads, 0, s>>>(im.key_tgt_sorted.get(), im.id_tgt.get(), im.prop.get(), ni,
                                              im.start_tgt.get(), im.end_tgt.get(), im.sorted_tgt.get());
  WM_CUDA_LAUNCH(k_ranges);
  WM_CUDA(cudaMemsetAsync(im.counts.get(), 0, 5 * sizeof(unsigned long long), s));
  const Index olds{im.start_old.get(), im.end_old.get(), im.id_old.get(), im.sorted_old.get()};
  const Index tgts{im.start_tgt.get(), im.end_tgt.get(), im.id_tgt.get(), im.sorted_tgt.get()};
  k_check<<<blocks_for(n), kThreads, 0, s>>>(im.pos.get(), im.prop.get(), ni, im.g, im.grid.get(), olds, tgts,
                                             im.lowest, im.verdict.get(), im.counts.get());
  WM_CUDA_LAUNCH(k_check);
  unsigned long long host[5];
  WM_CUDA(cudaMemcpyAsync(host, im.counts.get(), sizeof host, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  for (int v = 0; v < 5; ++v) counts.by_verdict[v] = static_cast<std::size_t>(host[v]);
  return {};
}

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
