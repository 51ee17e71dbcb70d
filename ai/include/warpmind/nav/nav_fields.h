// warpmind::nav::NavFields — navigation fields kept up to date as the map changes (a building placed or
// destroyed, a bridge opened): the fields of a set of goals on a grid (nav.h's definition), updated by
// the cells that changed instead of computed again.
//
// create() copies the grid and the goals and computes every field (as distance_fields). update() applies
// a batch of changes — a cell's new cost, 0 blocking it, 1..255 making it passable at that cost; a later
// change of the same cell in the batch wins — and brings every field up to date. After any sequence of
// updates, every distance and direction equals, bit for bit, what distance_fields gives on the changed
// grid. A change outside the grid, or one that would block a goal, is InvalidArgument and nothing
// changes.
//
// How (CPU, a goal a task on the context's threads): each field keeps its exact values (A, B). The cells
// whose step leads into a changed cell, or whose step a change disallows, are invalidated together with
// every cell whose steps lead through them; Dijkstra's algorithm then runs from their valid neighbours
// and from the 3 x 3 cells around each change (where a cheaper cell or a reopened corner can shorten a
// walk), accepting only values that improve. Directions are recomputed where a value changed, next to
// it, and around the changes. Memory: 13 bytes a cell a goal.
//
// Save and restore: save() writes the grid as it stands (every update applied) and the goals; restore()
// replaces this object's grid and goals with saved ones (any size) and computes their fields. The fields
// are a function of the grid and goals (the update contract above), so after restore() every distance and
// direction equals the saved object's bit for bit, and so do the fields after the same updates. The
// bytes are untrusted: a wrong header, format, reserved word or length, a grid check_grid() refuses or a
// goal that is not a passable cell is InvalidArgument ("restore: ...") and nothing changes. The format:
// little-endian; "WMNAVF\0\0", u32 format (1), u32 0 (reserved: anything else is refused), u32 width,
// u32 height, u64 goal count g, g x (i32 x, i32 y), then width x height cost bytes, row-major: 32 + 8 g +
// cells bytes.
//
// Not thread-safe; the Context must outlive the object. Errors are Status, never exceptions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav {

struct CellChange {
  Cell cell;
  std::uint8_t cost = 0;  // the new cost: 0 blocked, 1..255 passable
};

class NavFields {
 public:
  static Status create(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::unique_ptr<NavFields>& out);
  ~NavFields();

  Status update(std::span<const CellChange> changes, FieldStats* stats = nullptr);
  Status save(std::vector<std::uint8_t>& out) const;
  Status restore(std::span<const std::uint8_t> bytes);

  const Grid& grid() const;
  std::size_t goals() const;
  std::span<const float> distance(std::size_t goal) const;         // grid().cells() values
  std::span<const std::int8_t> direction(std::size_t goal) const;  // grid().cells() values

  struct Impl;

 private:
  explicit NavFields(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::nav
