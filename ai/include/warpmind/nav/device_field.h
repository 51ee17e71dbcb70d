// warpmind::nav::DeviceNavField — one navigation field kept in device memory and queried there: the
// field of a goal set (nav.h's goal_set_field, the same bits), computed on the GPU into buffers the
// object keeps, and steer_device() for a batch of units whose positions are already on the device (the
// crowd's, say), so a game loop moves no field and no position through the host.
//
// create() needs the CUDA backend (Unavailable otherwise) and copies the grid to the object. compute()
// takes the goal set (passable cells; none gives +infinity everywhere) and replaces the field; set_grid()
// replaces the map (same contract as the grid's checks; the field is then stale until the next
// compute()). update() applies a batch of cell changes (nav_fields.h's CellChange: the new cost, 0
// blocking; a later change of the same cell wins) to the map and brings the field up to date on the
// device, the same bits as compute() on the changed map: the walks through a change are found by pointer
// jumping over the directions and reset, and only the tiles they and the changes touch are relaxed again
// (docs/nav.md). A change outside the grid or one that would block a goal is InvalidArgument and nothing
// changes; a device error leaves the field stale (compute() again). After the first call the buffers are
// reused: compute() and update() allocate again only for a larger map, goal set or batch, and
// steer_device() never does.
//
// steer_device(): device arrays of n positions in, n steering vectors and n distances out, queued on the
// context's stream (ordered after compute()); nav.h's steer rule, the same bits as the host's steer() on
// read()'s field. device_distance() and device_direction(): the field (width * height floats and
// directions, row-major) for other device stages, valid until the next compute() or set_grid().
//
// Not thread-safe; the Context must outlive the object. Errors are Status, never exceptions; a refused
// call (a bad goal, a grid out of range) changes nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::nav {

class DeviceNavField {
 public:
  static Status create(Context& ctx, const Grid& grid, std::unique_ptr<DeviceNavField>& out);
  ~DeviceNavField();

  Status set_grid(const Grid& grid);
  Status compute(std::span<const Cell> goals, FieldStats* stats = nullptr);
  Status update(std::span<const CellChange> changes, FieldStats* stats = nullptr);
  Status steer_device(const Vec2* device_positions, std::size_t n, Vec2* device_steer, float* device_dist) const;
  // The field to the host: cells distances and directions (synchronous).
  Status read(std::span<float> distance, std::span<std::int8_t> direction) const;

  const Grid& grid() const;
  const float* device_distance() const;         // null before the first compute()
  const std::int8_t* device_direction() const;  // null before the first compute()

  struct Impl;

 private:
  explicit DeviceNavField(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::nav
