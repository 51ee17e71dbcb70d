// warpmind::nav::generate_map — test and benchmark maps of three kinds, the same cells for the same kind,
// size and seed on every machine (SplitMix64, no floating point):
//   open:  passable ground (cost 1) with blocked rectangles of 2..24 cells a side, one per 400 cells,
//          placed anywhere (some cells may end up enclosed);
//   rooms: square rooms of 31 x 31 passable cells between one-cell walls on every 32nd row and column,
//          each wall between two rooms with a door two cells wide at a seeded place, so that every
//          passable cell is reachable from every other (a room cut by the map's edge is smaller);
//   maze:  a perfect maze of one-cell corridors on the odd rows and columns (a random depth-first walk),
//          every corridor cell reachable from every other by exactly one path, the rest blocked.
// Sizes as make_grid (grid.h); rooms and maze need each side at least 3.
#pragma once

#include <cstdint>
#include <string_view>

#include "warpmind/nav/grid.h"

namespace warpmind::nav {

enum class MapKind { Open, Rooms, Maze };
const char* map_kind_name(MapKind k);
bool parse_map_kind(std::string_view name, MapKind& out);

Status generate_map(MapKind kind, int width, int height, std::uint64_t seed, Grid& out);

}  // namespace warpmind::nav
