// Clearance and size classes (contract in warpmind/nav/clearance.h): the Chebyshev distance to the
// nearest blocked or outside cell by two raster passes (a cell's distance is one more than the least of
// its neighbours' already swept, which is exact for the Chebyshev metric with unit steps).
#include "warpmind/nav/clearance.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "nav/variant.h"
#if WARPMIND_HAVE_CUDA
#include "nav/nav_device.h"
#endif

namespace warpmind::nav {

namespace {

void sweep_clearance(const Grid& g, std::span<std::uint16_t> d) {
  const int w = g.width, h = g.height;
  auto at = [&](int x, int y) -> int { return g.inside(x, y) ? d[g.index(x, y)] : 0; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t c = g.index(x, y);
      if (g.cost[c] == kBlocked) {
        d[c] = 0;
        continue;
      }
      const int m = std::min({at(x - 1, y), at(x - 1, y - 1), at(x, y - 1), at(x + 1, y - 1)});
      d[c] = static_cast<std::uint16_t>(m + 1);
    }
  for (int y = h - 1; y >= 0; --y)
    for (int x = w - 1; x >= 0; --x) {
      const std::size_t c = g.index(x, y);
      if (d[c] == 0) continue;
      const int m = std::min({at(x + 1, y), at(x + 1, y + 1), at(x, y + 1), at(x - 1, y + 1)});
      d[c] = static_cast<std::uint16_t>(std::min<int>(d[c], m + 1));
    }
}

// Whether the (2n - 1)-square around (x, y) lies in the grid and is all passable.
bool square_free(const Grid& g, int x, int y, int n) {
  for (int yy = y - (n - 1); yy <= y + (n - 1); ++yy)
    for (int xx = x - (n - 1); xx <= x + (n - 1); ++xx)
      if (!g.passable(xx, yy)) return false;
  return true;
}

Status check_clearance_call(const Grid& grid, std::span<std::uint16_t> out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  if (out.size() != grid.cells())
    return Status::Invalid("nav clearance: " + std::to_string(out.size()) + " values for " +
                           std::to_string(grid.cells()) + " cells");
  return Status::Ok();
}

Status check_class(int size_class) {
  if (size_class < 1 || size_class > kMaxSizeClass)
    return Status::Invalid("nav: size class " + std::to_string(size_class) + " is outside 1.." +
                           std::to_string(kMaxSizeClass));
  return Status::Ok();
}

}  // namespace

Status clearance(const Grid& grid, std::span<std::uint16_t> out) {
  WM_RETURN_IF_ERROR(check_clearance_call(grid, out));
  sweep_clearance(grid, out);
  return Status::Ok();
}

Status clearance(Context& ctx, const Grid& grid, std::span<std::uint16_t> out, NavVariant variant) {
  WM_RETURN_IF_ERROR(check_clearance_call(grid, out));
  WM_RETURN_IF_ERROR(detail::resolve(ctx, variant));
#if WARPMIND_HAVE_CUDA
  if (variant == NavVariant::Gpu) {
    // The values reach `out` in one copy from the staging buffer, after the device's work succeeded.
    const Status st = gpu::nav_clearance(ctx.stream(), grid.cost.data(), grid.width, grid.height, out.data());
    return st.ok() ? st : st.context("nav clearance");
  }
#endif
  sweep_clearance(grid, out);
  return Status::Ok();
}

Status size_class_of_radius(double radius_cells, int& out) {
  if (!std::isfinite(radius_cells) || radius_cells < 0)
    return Status::Invalid("nav: a unit radius must be finite and not negative");
  const double n = std::max(1.0, std::ceil(radius_cells + 0.5));
  if (n > kMaxSizeClass)
    return Status::Invalid("nav: a unit of radius " + std::to_string(radius_cells) + " cells is larger than any grid");
  out = static_cast<int>(n);
  return Status::Ok();
}

Status class_grid(const Grid& grid, int size_class, Grid& out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  WM_RETURN_IF_ERROR(check_class(size_class));
  std::vector<std::uint16_t> clear(grid.cells());
  sweep_clearance(grid, clear);
  Grid g{grid.width, grid.height, grid.cost};
  for (std::size_t c = 0; c < g.cells(); ++c)
    if (clear[c] < size_class) g.cost[c] = kBlocked;
  out = std::move(g);
  return Status::Ok();
}

Status class_grid_changes(const Grid& grid, const Grid& class_grid, int size_class, std::span<const CellChange> changes,
                          std::vector<CellChange>& out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  WM_RETURN_IF_ERROR(check_class(size_class));
  if (class_grid.width != grid.width || class_grid.height != grid.height || class_grid.cost.size() != grid.cells())
    return Status::Invalid("nav: the class grid is not the size of the grid");
  for (const CellChange& ch : changes)
    if (!grid.inside(ch.cell.x, ch.cell.y))
      return Status::Invalid("nav: change at (" + std::to_string(ch.cell.x) + ", " + std::to_string(ch.cell.y) +
                             ") is outside the grid");
  const int r = size_class - 1;
  std::vector<std::uint32_t> touched;
  for (const CellChange& ch : changes)
    for (int y = std::max(0, ch.cell.y - r); y <= std::min(grid.height - 1, ch.cell.y + r); ++y)
      for (int x = std::max(0, ch.cell.x - r); x <= std::min(grid.width - 1, ch.cell.x + r); ++x)
        touched.push_back(static_cast<std::uint32_t>(grid.index(x, y)));
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<CellChange> result;
  for (const std::uint32_t c : touched) {
    const int x = static_cast<int>(c % static_cast<std::uint32_t>(grid.width));
    const int y = static_cast<int>(c / static_cast<std::uint32_t>(grid.width));
    const std::uint8_t cost = square_free(grid, x, y, size_class) ? grid.cost[c] : kBlocked;
    if (cost != class_grid.cost[c]) result.push_back({{x, y}, cost});
  }
  out = std::move(result);
  return Status::Ok();
}

}  // namespace warpmind::nav
