// warpmind::nav clearance and size classes — units larger than a cell. A unit of size class n occupies
// the square of (2n - 1) x (2n - 1) cells centred on the cell it stands in; the fields of class n are
// nav.h's fields on the class's grid, where every cell whose square is not all passable is blocked, so no
// walk of the class passes a gap narrower than 2n - 1 cells (a diagonal step needs the two cells beside
// it in the class's grid too, so the square never cuts a corner either).
//
// Clearance: 0 on a blocked cell; on a passable one the largest n such that its (2n - 1)-square lies in
// the grid and is all passable, i.e. the Chebyshev distance (max(|dx|, |dy|)) to the nearest blocked cell
// or cell outside the grid. A cell on the map's edge has clearance 1 at most. Costs other than 0 do not
// matter: a class's walk costs what nav.h says of its centre cells.
//
// size_class_of_radius: a disc of radius r (in cell units) centred on a cell centre fits in the square
// of class n when r <= n - 0.5, so its class is max(1, ceil(r + 0.5)), computed in double. r negative,
// not finite or past the largest class on any grid (2048) is InvalidArgument. The crowd's radius R in
// world units over a map of cells `cell` world units wide is r = R / cell.
//
// class_grid: the grid of class n (n >= 1; n = 1 is the grid itself): each cell's cost where its
// clearance is at least n, 0 elsewhere. class_grid_changes: for a batch of changes applied to the base
// grid (`grid`, the changes already applied, as NavFields/DeviceNavField take them), the changes that
// bring `class_grid` (the class's grid of the grid before them) up to date, for the class's NavFields or
// DeviceNavField: each cell within Chebyshev distance n - 1 of a changed cell whose class cost differs,
// once, in row-major order; `class_grid` itself is not modified.
//
// Errors are Status, never exceptions; a call with a bad argument (a grid out of range, an output of the
// wrong size, a class below 1, a change outside the grid) writes nothing. Thread-safe for distinct outputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/status.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::nav {

constexpr int kMaxSizeClass = 2048;  // the largest clearance: the centre cells of an empty 4096 x 4096 grid

// clearance[c] for every cell c (row-major): grid.cells() values. The overload with a context runs the
// variant asked for (nav.h's NavVariant; Auto: the GPU on a CUDA context): both give the same values.
Status clearance(const Grid& grid, std::span<std::uint16_t> out);
Status clearance(Context& ctx, const Grid& grid, std::span<std::uint16_t> out, NavVariant variant = NavVariant::Auto);
Status size_class_of_radius(double radius_cells, int& out);
Status class_grid(const Grid& grid, int size_class, Grid& out);
Status class_grid_changes(const Grid& grid, const Grid& class_grid, int size_class, std::span<const CellChange> changes,
                          std::vector<CellChange>& out);

}  // namespace warpmind::nav
