// CUDA clearance and sight flags (contracts in warpmind/nav/clearance.h and sight.h, interface in
// ai/src/nav/nav_device.h), the same values as the CPU's.
//
// Clearance: a passable cell starts at 0xFFFF, a blocked one at 0; every pass sets each passable cell to
// the least of its value and 1 + its 8 neighbours' (a cell outside the grid counts 0), in place. A value
// read while its neighbour writes it is the old or the new one, both at least the final value, so the
// passes only lower values toward the one fixed point, the Chebyshev distance to the nearest blocked or
// outside cell, which is what the CPU's two raster passes give. Passes run in batches of 8 between reads of
// a changed flag; a map of clearance c takes about c passes.
//
// Sight: a thread a cell walks the segment to the goal by octile::sight_walk, the CPU's own code.
#include <cstdint>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "nav/nav_device.h"
#include "nav/octile.h"
#include "nav/sight_walk.h"

namespace warpmind::gpu {

namespace {

__global__ void k_clear_init(const std::uint8_t* __restrict__ cost, std::size_t n, std::uint16_t* __restrict__ d) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) d[i] = cost[i] ? 0xFFFFu : 0u;
}

__global__ void k_clear_pass(int width, int height, std::uint16_t* d, int* changed) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const std::size_t c = static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x);
  const unsigned here = d[c];
  if (here == 0) return;
  unsigned least = 0xFFFFu;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      const int nx = x + dx, ny = y + dy;
      const unsigned v =
          nx < 0 || ny < 0 || nx >= width || ny >= height
              ? 0u
              : static_cast<unsigned>(
                    *(volatile std::uint16_t*)&d[static_cast<std::size_t>(ny) * static_cast<std::size_t>(width) +
                                                 static_cast<std::size_t>(nx)]);
      least = min(least, v);
    }
  if (least + 1 < here) {
    d[c] = static_cast<std::uint16_t>(least + 1);
    *changed = 1;
  }
}

__global__ void k_sight(const std::uint8_t* __restrict__ cost, int width, int height, int gx, int gy,
                        std::uint8_t* __restrict__ visible) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const nav::octile::CostView view{cost, width, height};
  visible[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)] =
      nav::octile::sight_walk(view, x, y, gx, gy) ? 1 : 0;
}

dim3 grid2d(int width, int height) {
  return dim3(static_cast<unsigned>((width + 31) / 32), static_cast<unsigned>((height + 7) / 8));
}

}  // namespace

Status nav_clearance(void* stream_ptr, const std::uint8_t* cost, int width, int height, std::uint16_t* clearance) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  DeviceBuffer<std::uint8_t> dcost;
  DeviceBuffer<std::uint16_t> d;
  DeviceBuffer<int> changed;
  PinnedBuffer staging;
  Status err = dcost.reserve(n);
  if (err.ok()) err = d.reserve(n);
  if (err.ok()) err = changed.reserve(1);
  if (!err.ok()) return err;
  err = staging.upload(dcost.get(), cost, n, stream);
  if (!err.ok()) return err;
  k_clear_init<<<blocks_of(n, 256), 256, 0, stream>>>(dcost.get(), n, d.get());
  WM_CUDA_LAUNCH(k_clear_init);
  for (;;) {
    WM_CUDA(cudaMemsetAsync(changed.get(), 0, sizeof(int), stream));
    for (int pass = 0; pass < 8; ++pass) {
      k_clear_pass<<<grid2d(width, height), dim3(32, 8), 0, stream>>>(width, height, d.get(), changed.get());
      WM_CUDA_LAUNCH(k_clear_pass);
    }
    int any = 0;
    err = staging.download(&any, changed.get(), sizeof any, stream);
    if (!err.ok()) return err;
    if (!any) break;
  }
  return staging.download(clearance, d.get(), n * sizeof(std::uint16_t), stream);
}

Status nav_sight(void* stream_ptr, const std::uint8_t* cost, int width, int height, int gx, int gy,
                 std::uint8_t* visible) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  DeviceBuffer<std::uint8_t> dcost, dvis;
  PinnedBuffer staging;
  Status err = dcost.reserve(n);
  if (err.ok()) err = dvis.reserve(n);
  if (!err.ok()) return err;
  err = staging.upload(dcost.get(), cost, n, stream);
  if (!err.ok()) return err;
  k_sight<<<grid2d(width, height), dim3(32, 8), 0, stream>>>(dcost.get(), width, height, gx, gy, dvis.get());
  WM_CUDA_LAUNCH(k_sight);
  return staging.download(visible, dvis.get(), n, stream);
}

}  // namespace warpmind::gpu
