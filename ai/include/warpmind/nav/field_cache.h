// warpmind::nav::FieldCache — navigation fields on big maps (4096 x 4096 and more) for many targets,
// computed only in the sectors where units stand and kept per target under a memory budget.
//
// The map is cut into sectors of `sector` x `sector` cells. For a target (one goal cell) and a group of
// units, steer() computes the target's field in the sectors holding the units that it does not hold yet,
// then steers them by nav.h's steer rule. Every value and direction it gives equals, bit for bit, what
// distance_fields() and steer() give on the whole map: the values are nav.h's exact ones, found by A*
// from the goal toward the needed sectors (the heuristic: the octile distance to their bounding box,
// grown by one cell, which never overestimates a walk since every cost is at least 1, and is consistent,
// so every cell A* settles has its exact value), stopping when every cell of the needed sectors and of the
// one-cell ring around each (whose values the directions on a sector's edge read) that the goal can be
// reached from is settled. Cells the goal cannot be reached from are known by the map's components
// (computed at create() and again after update(), one pass over the map). So a group near its target
// costs a band of cells between them, not the whole map.
//
// Cache: a computed sector keeps a float and a direction per cell (5 bytes a cell). When the sectors kept
// pass `memory_budget` bytes after a call, whole targets are evicted, least recently used first, never the
// one the call served (which alone may pass the budget). Scratch for the search: 9 bytes a cell of the map,
// plus the components (4 bytes a cell).
//
// update(changes): the cells take their new costs (nav_fields.h's CellChange; a later change of a cell
// wins) and the cache keeps every sector no change can touch: sector s of a target with goal g is dropped
// when some changed cell u has octile(u, g) + octile(u, s grown by one cell) <= M_s + 3, M_s the largest
// exact value in s and its ring — any walk from s through u or around it (a diagonal beside u) costs more
// than every value there, so the others keep their bits. A target whose goal a change blocks is dropped.
// A change outside the grid is InvalidArgument and nothing changes.
//
// Errors are Status, never exceptions: a goal outside the grid or on a blocked cell, outputs of the wrong
// size, options out of range are InvalidArgument and change nothing. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::nav {

struct FieldCacheOptions {
  int sector = 64;                                     // the sectors' side in cells, 8..1024
  std::size_t memory_budget = std::size_t{256} << 20;  // bytes of computed sectors kept over every target
};

struct CacheStats {
  double ms = 0;                       // wall time of the call
  std::uint64_t settled = 0;           // cells the searches settled
  std::uint64_t sectors_computed = 0;  // sectors filled by this call
  std::uint64_t sectors_reused = 0;    // sectors the call found cached
  std::uint64_t sectors_dropped = 0;   // update(): sectors a change could touch
  std::uint64_t targets_evicted = 0;   // targets evicted for the budget
};

class FieldCache {
 public:
  static Status create(const Grid& grid, const FieldCacheOptions& options, std::unique_ptr<FieldCache>& out);
  ~FieldCache();

  // nav::steer by the field of `goal` for `positions` (cell units): steer[i] and dist[i] as many.
  Status steer(Cell goal, std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist,
               CacheStats* stats = nullptr);
  // Sector (sx, sy)'s values of the field of `goal`: sector * sector distances and directions, row-major
  // within the sector; cells past the map's edge +infinity and kNoDirection.
  Status sector(Cell goal, int sx, int sy, std::span<float> distance, std::span<std::int8_t> direction,
                CacheStats* stats = nullptr);
  Status update(std::span<const CellChange> changes, CacheStats* stats = nullptr);

  const Grid& grid() const;
  int sector_side() const;
  std::size_t targets() const;      // targets with a sector cached
  std::size_t memory_used() const;  // bytes of the sectors cached

  struct Impl;

 private:
  explicit FieldCache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::nav
