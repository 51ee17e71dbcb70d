// Host-only interface to the CUDA navigation fields (gpu/src/nav/nav.cu). Plain types only. The contract
// is warpmind/nav/nav.h's; the grid and the goals come validated by the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

struct NavRun {
  double device_ms = 0;       // the device's time from the first kernel to the last (copies not included)
  std::uint64_t reached = 0;  // cells reached, over every field
  std::uint64_t relaxed = 0;  // tile relaxations, over every field
  bool fast = false;          // the values ordered by their double keys (nav.cu says when that is exact)
};

// The exact fields of nav.h by tiles of 32 x 32 cells, each relaxed to a fixed point by one warp, the
// tiles whose rim changed queued again until none is (gpu/src/nav/nav.cu says how). Buffers only grow.
// Not thread-safe.
class NavDevice {
 public:
  static Status create(void* stream, std::unique_ptr<NavDevice>& out);
  ~NavDevice();
  // The fields of goals[0..n) (row-major cell indices of passable cells) on the grid `cost` (width *
  // height cells, 0 blocked): distance[g * cells + c] and, unless `direction` is null, direction[g *
  // cells + c], in host memory. Goals are computed in batches that fit the device's memory.
  Status fields(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals, std::size_t n,
                float* distance, std::int8_t* direction, NavRun& run);

  struct Impl;

 private:
  NavDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
