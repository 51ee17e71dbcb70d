// Test and benchmark maps (contract in warpmind/nav/generate.h).
#include "warpmind/nav/generate.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "warpmind/core/random.h"

namespace warpmind::nav {

namespace {

void open_map(Grid& g, SplitMix64& rng) {
  const std::size_t rects = g.cells() / 400;
  for (std::size_t r = 0; r < rects; ++r) {
    const int w = 2 + static_cast<int>(rng.below(23)), h = 2 + static_cast<int>(rng.below(23));
    const int x0 = static_cast<int>(rng.below(static_cast<std::uint32_t>(g.width)));
    const int y0 = static_cast<int>(rng.below(static_cast<std::uint32_t>(g.height)));
    for (int y = y0; y < std::min(g.height, y0 + h); ++y)
      for (int x = x0; x < std::min(g.width, x0 + w); ++x) g.cost[g.index(x, y)] = kBlocked;
  }
}

void rooms_map(Grid& g, SplitMix64& rng) {
  constexpr int kSide = 32;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x)
      if ((x % kSide == 0 && x > 0) || (y % kSide == 0 && y > 0)) g.cost[g.index(x, y)] = kBlocked;
  // A door in every wall segment between two rooms: two cells at a seeded offset within the segment.
  const auto door = [&](int lo, int hi) {  // cells lo..hi-1 of the segment, at least one
    const int span = hi - lo;
    const int at = lo + static_cast<int>(rng.below(static_cast<std::uint32_t>(std::max(1, span - 1))));
    return std::pair{at, std::min(at + 1, hi - 1)};
  };
  for (int wx = kSide; wx < g.width; wx += kSide)  // vertical walls
    for (int y0 = 0; y0 < g.height; y0 += kSide) {
      const int lo = y0 == 0 ? 0 : y0 + 1, hi = std::min(g.height, y0 + kSide);
      if (lo >= hi) continue;
      const auto [a, b] = door(lo, hi);
      g.cost[g.index(wx, a)] = g.cost[g.index(wx, b)] = 1;
    }
  for (int wy = kSide; wy < g.height; wy += kSide)  // horizontal walls
    for (int x0 = 0; x0 < g.width; x0 += kSide) {
      const int lo = x0 == 0 ? 0 : x0 + 1, hi = std::min(g.width, x0 + kSide);
      if (lo >= hi) continue;
      const auto [a, b] = door(lo, hi);
      g.cost[g.index(a, wy)] = g.cost[g.index(b, wy)] = 1;
    }
}

void maze_map(Grid& g, SplitMix64& rng) {
  std::fill(g.cost.begin(), g.cost.end(), kBlocked);
  const int cw = (g.width - 1) / 2, ch = (g.height - 1) / 2;  // corridor cells at (2i + 1, 2j + 1)
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(cw) * static_cast<std::size_t>(ch), 0);
  std::vector<int> stack = {0};
  seen[0] = 1;
  g.cost[g.index(1, 1)] = 1;
  constexpr int kDir[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  while (!stack.empty()) {
    const int c = stack.back(), i = c % cw, j = c / cw;
    int options[4], n = 0;
    for (int d = 0; d < 4; ++d) {
      const int ni = i + kDir[d][0], nj = j + kDir[d][1];
      if (ni >= 0 && nj >= 0 && ni < cw && nj < ch && !seen[static_cast<std::size_t>(nj * cw + ni)]) options[n++] = d;
    }
    if (n == 0) {
      stack.pop_back();
      continue;
    }
    const int d = options[rng.below(static_cast<std::uint32_t>(n))];
    const int ni = i + kDir[d][0], nj = j + kDir[d][1];
    seen[static_cast<std::size_t>(nj * cw + ni)] = 1;
    g.cost[g.index(2 * i + 1 + kDir[d][0], 2 * j + 1 + kDir[d][1])] = 1;  // the wall between
    g.cost[g.index(2 * ni + 1, 2 * nj + 1)] = 1;
    stack.push_back(nj * cw + ni);
  }
}

}  // namespace

const char* map_kind_name(MapKind k) {
  switch (k) {
    case MapKind::Open:
      return "open";
    case MapKind::Rooms:
      return "rooms";
    case MapKind::Maze:
      return "maze";
  }
  return "?";
}

bool parse_map_kind(std::string_view name, MapKind& out) {
  for (MapKind k : {MapKind::Open, MapKind::Rooms, MapKind::Maze})
    if (name == map_kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

Status generate_map(MapKind kind, int width, int height, std::uint64_t seed, Grid& out) {
  Grid g;
  WM_RETURN_IF_ERROR(make_grid(width, height, 1, g));
  if (kind != MapKind::Open && (width < 3 || height < 3))
    return Status::Invalid(std::string("nav: a ") + map_kind_name(kind) + " map needs each side at least 3");
  SplitMix64 rng(seed);
  if (kind == MapKind::Open) open_map(g, rng);
  if (kind == MapKind::Rooms) rooms_map(g, rng);
  if (kind == MapKind::Maze) maze_map(g, rng);
  out = std::move(g);
  return Status::Ok();
}

}  // namespace warpmind::nav
