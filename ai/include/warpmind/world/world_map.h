// warpmind::world::WorldMap — one description of a level's walls and terrain that feeds the field (walls
// repel), the crowd (obstacle cells) and the navigation fields (blocked cells and costs), so the three
// cannot drift apart. Walls are drawn as rectangles, lines of any thickness and polygons, rasterised once.
//
// The map: a W x H grid laid over a world rectangle. Cell (x, y), x the column 0..W-1 and y the row
// 0..H-1 (row 0 at y0), covers [x0 + x cw, x0 + (x + 1) cw) x [y0 + y ch, y0 + (y + 1) ch) with
// cw = width / W and ch = height / H — the crowd's obstacle-grid rule, so crowd_obstacles() laid over the
// same world rectangle blocks exactly these cells. Each cell holds a cost, the navigation module's
// convention: 0 blocked (a wall), 1..255 passable with the cost of entering it. A new map is all 1.
//
// Drawing (every coordinate in world units, computed in double; a shape may reach past the map, which
// clips it; a cell is painted with the shape's cost, the last shape drawn wins):
//   fill_rect(lo, hi, cost)     the cells whose centre lies in [lo.x, hi.x) x [lo.y, hi.y);
//   draw_line(a, b, thickness, cost)
//                               every cell the segment a-b passes through — a supercover: where it crosses
//                               a grid corner exactly, the two cells beside the corner too — so consecutive
//                               cells share an edge and no move along the grid slips through the wall, and
//                               every cell whose centre lies within thickness / 2 of the segment;
//   fill_polygon(points, cost)  the cells whose centre is inside the polygon (even-odd rule, the closing
//                               edge implied; a centre exactly on a horizontal crossing counts with the edge
//                               above it: an edge spans rows where (y1 <= yc) != (y2 <= yc)), then its
//                               outline drawn as lines of thickness 0, so a polygon thinner than a cell
//                               still blocks.
// A non-finite coordinate, a negative or non-finite thickness, a polygon of fewer than 3 or more than 2^20
// points or whose edges cross the rows' centre lines more than 2^27 times in all (the fill's memory):
// InvalidArgument, and the map is unchanged.
//
// Feeding the modules:
//   crowd_obstacles()   crowd::ObstacleGrid (blocked = cost 0) for a CrowdConfig whose world is world();
//   nav_grid()          nav::Grid (the costs; nav allows at most nav::kMaxCells cells: InvalidArgument
//                       beyond). Navigation works in cells: a world point p is at cell coordinates
//                       ((p.x - x0) / cw, (p.y - y0) / ch);
//   wall_entities(group, out)
//                       a field::Entity {centre, group} for every blocked cell with a passable 4-neighbour
//                       (the walls' surface; the cells inside a thick wall add nothing a repelling charge
//                       needs; the map's outside counts as blocked), row-major; the centre in float as
//                       x0 + (x + 0.5f) * cw (each operation rounded). Give the group a layer rule with an
//                       obstacle kind (charge.h) and the walls repel units in that layer. group < 64.
// Not thread-safe for writing; const calls may run on several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/field/field.h"
#include "warpmind/nav/grid.h"

namespace warpmind::world {

inline constexpr int kMaxSide = 65536;  // cells per side (the crowd's obstacle-grid limit)
inline constexpr std::size_t kMaxPolygonPoints = std::size_t{1} << 20;
inline constexpr long long kMaxPolygonCrossings = 1ll << 27;  // edges x the rows each spans, summed

class WorldMap {
 public:
  // A map of width x height cells over `world` (finite, width and height > 0), every cell cost 1. Sides
  // 1..kMaxSide, at most 2^28 cells.
  static Status create(const WorldRect& world, int width, int height, WorldMap& out);
  // The same from a navigation grid (e.g. read_moving_ai): its cells and costs over `world`.
  static Status from_grid(const WorldRect& world, const nav::Grid& grid, WorldMap& out);

  Status fill_rect(Vec2 lo, Vec2 hi, std::uint8_t cost = 0);
  Status draw_line(Vec2 a, Vec2 b, float thickness = 0.0f, std::uint8_t cost = 0);
  Status fill_polygon(std::span<const Vec2> points, std::uint8_t cost = 0);
  Status set_cell(int x, int y, std::uint8_t cost);  // InvalidArgument outside the map

  crowd::ObstacleGrid crowd_obstacles() const;
  Status nav_grid(nav::Grid& out) const;
  Status wall_entities(std::uint32_t group, std::vector<field::Entity>& out) const;

  const WorldRect& world() const { return world_; }
  int width() const { return width_; }
  int height() const { return height_; }
  std::uint8_t cost(int x, int y) const { return cost_[static_cast<std::size_t>(y) * width_ + x]; }
  bool blocked(int x, int y) const { return cost(x, y) == 0; }
  const std::vector<std::uint8_t>& costs() const { return cost_; }  // row-major, width * height

 private:
  void paint(long long x, long long y, std::uint8_t cost);                         // ignores cells off the map
  void supercover(double ax, double ay, double bx, double by, std::uint8_t cost);  // in cell units
  WorldRect world_;
  int width_ = 0, height_ = 0;
  double cw_ = 1, ch_ = 1;  // cell size (double, for drawing)
  std::vector<std::uint8_t> cost_;
};

}  // namespace warpmind::world
