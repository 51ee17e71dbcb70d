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
  // The fields of n goal sets on the grid `cost` (width * height cells, 0 blocked): field g's goals are
  // the row-major cells goals[first[g] .. first[g + 1]) of passable cells (first null: one goal a field,
  // goals[g]); distance[g * cells + c] and, unless `direction` is null, direction[g * cells + c], in host
  // memory. Fields are computed in batches that fit the device's memory.
  Status fields(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals, const std::size_t* first,
                std::size_t n, float* distance, std::int8_t* direction, NavRun& run);
  // The same with distances and directions left on the device (device_distance(), device_direction():
  // valid until the next call), which needs the n fields to fit in one batch (else Unavailable).
  Status fields_on_device(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals,
                          const std::size_t* first, std::size_t n, NavRun& run);
  // The field fields_on_device left (one), brought up to date after n cells (row-major, distinct) took
  // new costs (costs[i] for cells[i]; none may block a goal): the same bits as a computation on the new
  // map, in place. Invalid when no field is kept; a device error leaves none kept.
  Status update_on_device(const std::uint32_t* cells, const std::uint8_t* costs, std::size_t n, NavRun& run);
  // The first `cells` values of the fields left on the device, to host memory (synchronous).
  Status download(float* distance, std::int8_t* direction, std::size_t cells) const;

  const float* device_distance() const;  // the fields fields_on_device left
  const std::int8_t* device_direction() const;

  struct Impl;

 private:
  NavDevice() = default;
  Status run(const std::uint8_t* cost, int width, int height, const std::uint32_t* goals, const std::size_t* first,
             std::size_t n, float* distance, std::int8_t* direction, bool keep, NavRun& run);
  std::unique_ptr<Impl> impl_;
};

// nav::steer on device arrays, queued on `stream` (a cudaStream_t): positions xy[2i], xy[2i + 1] of n
// units in the field (distance, direction; width * height cells each, device memory) give steer[2i],
// steer[2i + 1] and dist[i], the same bits as the host's.
Status nav_steer(void* stream, const float* distance, const std::int8_t* direction, int width, int height,
                 const float* xy, std::size_t n, float* steer, float* dist);

// clearance.h's clearance of the width * height map `cost` (host memory) into `clearance` (host), the
// same values as the CPU's: every cell relaxed to 1 + the least of its 8 neighbours (outside and blocked
// cells 0) until nothing changes, queued on `stream`.
Status nav_clearance(void* stream, const std::uint8_t* cost, int width, int height, std::uint16_t* clearance);
// sight.h's sight flags toward (gx, gy), a passable cell: visible[c] (host) for every cell, a thread a cell
// walking sight_walk.h's segment.
Status nav_sight(void* stream, const std::uint8_t* cost, int width, int height, int gx, int gy, std::uint8_t* visible);

}  // namespace warpmind::gpu
