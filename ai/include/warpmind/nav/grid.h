// warpmind::nav::Grid — the walkable map of the navigation fields: a grid of cells, each blocked or
// passable with the cost of stepping into it; and the Moving AI map format, the benchmark format of
// game pathfinding (movingai.com's grid maps).
//
// Cells: (x, y), x the column 0..width - 1, y the row 0..height - 1, stored row-major at y * width + x;
// row 0 is the first row of a map file. A cost of 0 is blocked; 1..255 is passable, the cost of entering
// the cell (a step into it costs its length, 1 straight or sqrt(2) diagonal, times that cost).
// Size: width, height >= 1 and width * height <= kMaxCells (4096 x 4096), so that every distance's exact
// parts fit 32 bits (nav.h).
//
// The Moving AI format, as read: the line "type octile", then "height H" and "width W" in either order,
// then "map", then H rows of W characters: '.', 'G' (ground) and 'S' (swamp) passable, cost 1; '@',
// 'O' (out of bounds), 'T' (trees) and 'W' (water) blocked. Lines end with "\n" or "\r\n"; blank lines
// after the last row are allowed. Anything else — another type, an unknown or repeated key, a number
// that is not a plain decimal in range, a row of the wrong length, another character, too few or too
// many rows — is an error naming the line, and `out` is left unchanged. Written: the same header
// (height before width), '.' for cost 1 and '@' for blocked, "\n" line ends; a cost above 1 has no
// character in the format and is an error (nothing written).
//
// Moving AI scenarios (.scen), as read: the line "version 1" (or "version 1.0"), then one problem a line:
// bucket, map, map width, map height, start x, start y, goal x, goal y, optimal length — nine fields
// separated by tabs or spaces, the map a path without spaces, the numbers plain decimals (the length may
// have a fraction: digits, '.', digits), the sizes 1..4096, start and goal inside them. The optimal length
// is the octile one without corner cutting (nav.h's distance on a map of costs 1), rounded as written
// (`decimals` digits after the point: files differ, from 2 to 8). Some files mark a problem without a path
// by a length of 0 between two distinct cells.
// Line ends and blank lines as for maps; anything else is an error naming the line, `out` unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/status.h"

namespace warpmind::nav {

constexpr std::int64_t kMaxCells = std::int64_t{1} << 24;
constexpr std::uint8_t kBlocked = 0;

struct Cell {
  int x = 0, y = 0;
  bool operator==(const Cell&) const = default;
};

struct Grid {
  int width = 0, height = 0;
  std::vector<std::uint8_t> cost;  // width * height cells, row-major; 0 blocked, 1..255 passable

  std::size_t cells() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
  bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < width && y < height; }
  std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x);
  }
  bool passable(int x, int y) const { return inside(x, y) && cost[index(x, y)] != kBlocked; }
};

// Ok when the sizes are in range and cost holds width * height cells.
Status check_grid(const Grid& grid);
// A grid of width x height cells, all of cost `cost` (InvalidArgument for a size out of range).
Status make_grid(int width, int height, std::uint8_t cost, Grid& out);

struct Scenario {
  int bucket = 0;
  std::string map;
  int width = 0, height = 0;
  Cell start, goal;
  double optimal = 0;
  int decimals = 0;  // the optimal length's digits after the point as written: its rounding is half a unit of the last
};

Status read_moving_ai(std::string_view text, Grid& out);
Status read_moving_ai_scenarios(std::string_view text, std::vector<Scenario>& out);
Status write_moving_ai(const Grid& grid, std::string& out);

}  // namespace warpmind::nav
