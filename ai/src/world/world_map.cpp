// WorldMap: the rasterisation of rectangles, lines and polygons into one cost grid, and the grid handed to
// the crowd, the navigation fields and the field (contract in warpmind/world/world_map.h).
#include "warpmind/world/world_map.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace warpmind::world {

namespace {

bool finite(Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); }

std::string point(Vec2 p) {
  std::string s = "(";
  s += std::to_string(p.x);
  s += ", ";
  s += std::to_string(p.y);
  s += ")";
  return s;
}

// A double cell coordinate as an integer index, clamped far enough outside [0, n) to stay exact.
long long clamp_index(double v, int n) {
  if (!(v > -2.0)) return -2;
  if (!(v < n + 2.0)) return n + 2;
  return static_cast<long long>(v);
}

}  // namespace

Status WorldMap::create(const WorldRect& w, int width, int height, WorldMap& out) {
  if (!std::isfinite(w.x0) || !std::isfinite(w.y0) || !std::isfinite(w.width) || !std::isfinite(w.height) ||
      !(w.width > 0) || !(w.height > 0))
    return Status::Invalid("world map: the world must be finite with width and height > 0");
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide ||
      static_cast<long long>(width) * height > (1ll << 28))
    return Status::Invalid("world map: " + std::to_string(width) + " x " + std::to_string(height) +
                           " cells (each side 1.." + std::to_string(kMaxSide) + ", at most 2^28 cells)");
  WorldMap m;
  m.world_ = w;
  m.width_ = width;
  m.height_ = height;
  m.cw_ = static_cast<double>(w.width) / width;
  m.ch_ = static_cast<double>(w.height) / height;
  m.cost_.assign(static_cast<std::size_t>(width) * height, 1);
  out = std::move(m);
  return Status::Ok();
}

Status WorldMap::from_grid(const WorldRect& w, const nav::Grid& grid, WorldMap& out) {
  WM_RETURN_IF_ERROR(nav::check_grid(grid));
  WorldMap m;
  WM_RETURN_IF_ERROR(create(w, grid.width, grid.height, m));
  m.cost_ = grid.cost;
  out = std::move(m);
  return Status::Ok();
}

void WorldMap::paint(long long x, long long y, std::uint8_t cost) {
  if (x >= 0 && y >= 0 && x < width_ && y < height_) cost_[static_cast<std::size_t>(y) * width_ + x] = cost;
}

Status WorldMap::set_cell(int x, int y, std::uint8_t cost) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_)
    return Status::Invalid("set_cell: (" + std::to_string(x) + ", " + std::to_string(y) + ") is off the map");
  paint(x, y, cost);
  return Status::Ok();
}

Status WorldMap::fill_rect(Vec2 lo, Vec2 hi, std::uint8_t cost) {
  if (!finite(lo) || !finite(hi)) return Status::Invalid("fill_rect: corners must be finite");
  // Centre of cell i: x0 + (i + 0.5) cw; in [lo, hi) for i in [ceil(u_lo - 0.5), ceil(u_hi - 0.5)).
  const auto first = [&](float v, float origin, double cell, int n) {
    return clamp_index(std::ceil((static_cast<double>(v) - origin) / cell - 0.5), n);
  };
  const long long xa = std::max(0ll, first(lo.x, world_.x0, cw_, width_));
  const long long xb = std::min<long long>(width_, first(hi.x, world_.x0, cw_, width_));
  const long long ya = std::max(0ll, first(lo.y, world_.y0, ch_, height_));
  const long long yb = std::min<long long>(height_, first(hi.y, world_.y0, ch_, height_));
  for (long long y = ya; y < yb; ++y)
    for (long long x = xa; x < xb; ++x) paint(x, y, cost);
  return Status::Ok();
}

// Every cell the segment passes through, in cell units (u = (x - x0) / cw), clipped to the map first.
void WorldMap::supercover(double ua, double va, double ub, double vb, std::uint8_t cost) {
  double t0 = 0, t1 = 1;
  const double du = ub - ua, dv = vb - va;
  // Liang-Barsky against [0, W] x [0, H].
  for (const auto& [p, q] :
       {std::pair{-du, ua}, std::pair{du, width_ - ua}, std::pair{-dv, va}, std::pair{dv, height_ - va}}) {
    if (p == 0) {
      if (q < 0) return;
      continue;
    }
    const double r = q / p;
    if (p < 0)
      t0 = std::max(t0, r);
    else
      t1 = std::min(t1, r);
    if (t0 > t1) return;
  }
  const double sa = ua + t0 * du, sb = va + t0 * dv;
  long long cx = clamp_index(std::floor(sa), width_), cy = clamp_index(std::floor(sb), height_);
  const int sx = du > 0 ? 1 : du < 0 ? -1 : 0, sy = dv > 0 ? 1 : dv < 0 ? -1 : 0;
  paint(cx, cy, cost);
  // Steps to the next column or row whose grid line the segment crosses first; at most one per line.
  for (long long steps = 0; steps < 2ll * (width_ + height_) + 4; ++steps) {
    const double tx =
        sx == 0 ? std::numeric_limits<double>::infinity() : (static_cast<double>(sx > 0 ? cx + 1 : cx) - ua) / du;
    const double ty =
        sy == 0 ? std::numeric_limits<double>::infinity() : (static_cast<double>(sy > 0 ? cy + 1 : cy) - va) / dv;
    const double t = std::min(tx, ty);
    if (!(t <= t1)) break;
    if (tx == ty) {  // exactly through a corner: the two cells beside it too
      paint(cx + sx, cy, cost);
      paint(cx, cy + sy, cost);
      cx += sx;
      cy += sy;
    } else if (tx < ty) {
      cx += sx;
    } else {
      cy += sy;
    }
    if (cx < -1 || cy < -1 || cx > width_ || cy > height_) break;
    paint(cx, cy, cost);
  }
}

Status WorldMap::draw_line(Vec2 a, Vec2 b, float thickness, std::uint8_t cost) {
  if (!finite(a) || !finite(b))
    return Status::Invalid("draw_line: ends must be finite, got " + point(a) + " " + point(b));
  if (!std::isfinite(thickness) || thickness < 0)
    return Status::Invalid("draw_line: thickness must be finite and >= 0");
  const double ua = (static_cast<double>(a.x) - world_.x0) / cw_, va = (static_cast<double>(a.y) - world_.y0) / ch_;
  const double ub = (static_cast<double>(b.x) - world_.x0) / cw_, vb = (static_cast<double>(b.y) - world_.y0) / ch_;
  supercover(ua, va, ub, vb, cost);
  if (thickness == 0) return Status::Ok();
  // Cells whose centre is within thickness / 2 of the segment (world units).
  const double r = 0.5 * thickness, rx = r / cw_, ry = r / ch_;
  const long long xa = std::max(0ll, clamp_index(std::floor(std::min(ua, ub) - rx), width_));
  const long long xb = std::min<long long>(width_ - 1, clamp_index(std::ceil(std::max(ua, ub) + rx), width_));
  const long long ya = std::max(0ll, clamp_index(std::floor(std::min(va, vb) - ry), height_));
  const long long yb = std::min<long long>(height_ - 1, clamp_index(std::ceil(std::max(va, vb) + ry), height_));
  const double ax = a.x, ay = a.y, dx = static_cast<double>(b.x) - ax, dy = static_cast<double>(b.y) - ay;
  const double len2 = dx * dx + dy * dy;
  for (long long y = ya; y <= yb; ++y)
    for (long long x = xa; x <= xb; ++x) {
      const double px = world_.x0 + (x + 0.5) * cw_, py = world_.y0 + (y + 0.5) * ch_;
      const double t = len2 > 0 ? std::clamp(((px - ax) * dx + (py - ay) * dy) / len2, 0.0, 1.0) : 0.0;
      const double ex = ax + t * dx - px, ey = ay + t * dy - py;
      if (ex * ex + ey * ey <= r * r) paint(x, y, cost);
    }
  return Status::Ok();
}

Status WorldMap::fill_polygon(std::span<const Vec2> pts, std::uint8_t cost) {
  if (pts.size() < 3 || pts.size() > kMaxPolygonPoints)
    return Status::Invalid("fill_polygon: " + std::to_string(pts.size()) + " points (3.." +
                           std::to_string(kMaxPolygonPoints) + ")");
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!finite(pts[i])) return Status::Invalid("fill_polygon: point " + std::to_string(i) + " is not finite");
  // Each edge's crossings with the rows' centre lines, then the centres between pairs of crossings. The
  // rows whose centre yc satisfies lo <= yc < hi: the edge spans them ((p.y <= yc) != (q.y <= yc)).
  const auto rows_of = [&](Vec2 p, Vec2 q) {
    const double lo = std::min(p.y, q.y), hi = std::max(p.y, q.y);
    return std::pair{std::max(0ll, clamp_index(std::ceil((lo - world_.y0) / ch_ - 0.5), height_)),
                     std::min<long long>(height_, clamp_index(std::ceil((hi - world_.y0) / ch_ - 0.5), height_))};
  };
  long long crossings = 0;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const auto [ra, rb] = rows_of(pts[k], pts[(k + 1) % pts.size()]);
    crossings += std::max(0ll, rb - ra);
  }
  if (crossings > kMaxPolygonCrossings)
    return Status::Invalid("fill_polygon: its edges cross the rows' centre lines " + std::to_string(crossings) +
                           " times (at most 2^27)");
  std::vector<std::vector<double>> rows(height_);
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const Vec2 p = pts[k], q = pts[(k + 1) % pts.size()];
    const auto [ra, rb] = rows_of(p, q);
    for (long long y = ra; y < rb; ++y) {
      const double yc = world_.y0 + (y + 0.5) * ch_;
      if ((p.y <= yc) == (q.y <= yc)) continue;  // rounding at the ends: the rule decides
      rows[y].push_back(p.x + (yc - p.y) * (static_cast<double>(q.x) - p.x) / (static_cast<double>(q.y) - p.y));
    }
  }
  for (int y = 0; y < height_; ++y) {
    std::vector<double>& xs = rows[y];
    std::sort(xs.begin(), xs.end());
    for (std::size_t k = 0; k + 1 < xs.size(); k += 2) {
      const long long xa = std::max(0ll, clamp_index(std::ceil((xs[k] - world_.x0) / cw_ - 0.5), width_));
      const long long xb =
          std::min<long long>(width_, clamp_index(std::ceil((xs[k + 1] - world_.x0) / cw_ - 0.5), width_));
      for (long long x = xa; x < xb; ++x) paint(x, y, cost);
    }
  }
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const Vec2 p = pts[k], q = pts[(k + 1) % pts.size()];
    supercover((static_cast<double>(p.x) - world_.x0) / cw_, (static_cast<double>(p.y) - world_.y0) / ch_,
               (static_cast<double>(q.x) - world_.x0) / cw_, (static_cast<double>(q.y) - world_.y0) / ch_, cost);
  }
  return Status::Ok();
}

crowd::ObstacleGrid WorldMap::crowd_obstacles() const {
  crowd::ObstacleGrid g;
  g.width = width_;
  g.height = height_;
  g.blocked.resize(cost_.size());
  for (std::size_t i = 0; i < cost_.size(); ++i) g.blocked[i] = cost_[i] == 0;
  return g;
}

Status WorldMap::nav_grid(nav::Grid& out) const {
  if (static_cast<long long>(width_) * height_ > nav::kMaxCells)
    return Status::Invalid("nav_grid: " + std::to_string(width_) + " x " + std::to_string(height_) +
                           " cells, more than the navigation fields take");
  out.width = width_;
  out.height = height_;
  out.cost = cost_;
  return Status::Ok();
}

Status WorldMap::wall_entities(std::uint32_t group, std::vector<field::Entity>& out) const {
  if (group >= field::kMaxGroups)
    return Status::Invalid("wall_entities: group " + std::to_string(group) + " out of range (< 64)");
  const float cw = world_.width / static_cast<float>(width_), ch = world_.height / static_cast<float>(height_);
  const auto open = [&](int x, int y) { return x >= 0 && y >= 0 && x < width_ && y < height_ && !blocked(x, y); };
  std::vector<field::Entity> e;
  for (int y = 0; y < height_; ++y)
    for (int x = 0; x < width_; ++x)
      if (blocked(x, y) && (open(x - 1, y) || open(x + 1, y) || open(x, y - 1) || open(x, y + 1)))
        e.push_back({world_.x0 + (static_cast<float>(x) + 0.5f) * cw, world_.y0 + (static_cast<float>(y) + 0.5f) * ch,
                     group, 0});
  out = std::move(e);
  return Status::Ok();
}

}  // namespace warpmind::world
