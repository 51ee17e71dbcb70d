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
