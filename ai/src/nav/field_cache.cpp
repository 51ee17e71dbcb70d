// Navigation fields computed by sectors where units stand, cached per target (contract in
// warpmind/nav/field_cache.h): A* from the goal toward the needed sectors over the exact values of
// octile.h, the directions by the same rule as the whole field's.
#include "warpmind/nav/field_cache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "nav/dijkstra.h"

namespace warpmind::nav {

namespace {

using octile::Exact;

struct SectorData {
  std::vector<float> dist;
  std::vector<std::int8_t> dir;
  Exact max_value;         // the largest exact value in the sector and its ring (update's bound)
  bool unreached = false;  // a passable cell of the sector or its ring the goal cannot be reached from
};

struct Target {
  Cell goal;
  std::unordered_map<std::uint32_t, SectorData> sectors;
  std::uint64_t used = 0;
};

struct Box {
  int x0 = 0, y0 = 0, x1 = -1, y1 = -1;  // inclusive
  bool contains(int x, int y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

// The octile distance on ground of cost 1 from (x, y) to the nearest cell of `b`: a lower bound of every
// walk's cost there (every step costs at least its length).
Exact octile_to(const Box& b, int x, int y) {
  const int dx = std::max({0, b.x0 - x, x - b.x1}), dy = std::max({0, b.y0 - y, y - b.y1});
  return {static_cast<std::uint32_t>(std::max(dx, dy) - std::min(dx, dy)),
          static_cast<std::uint32_t>(std::min(dx, dy))};
}

Exact plus(Exact x, Exact y) { return {x.a + y.a, x.b + y.b}; }

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

struct FieldCache::Impl {
  Grid grid;
  int side = 64, sectors_x = 0, sectors_y = 0;
  std::size_t budget = 0, memory = 0;
  std::vector<std::uint32_t> component;
  bool components_dirty = true;
  std::vector<std::unique_ptr<Target>> targets;
  std::uint64_t clock = 0;
  // The search's scratch, reset after each search through `touched`.
  std::vector<Exact> g;
  std::vector<std::uint8_t> settled;
  std::vector<std::uint32_t> touched;
  std::vector<detail::Entry> heap;

  std::size_t sector_bytes() const { return static_cast<std::size_t>(side) * static_cast<std::size_t>(side) * 5; }
  Box sector_box(std::uint32_t s) const {
    const int sx = static_cast<int>(s % static_cast<std::uint32_t>(sectors_x));
    const int sy = static_cast<int>(s / static_cast<std::uint32_t>(sectors_x));
    return {sx * side, sy * side, std::min(grid.width, (sx + 1) * side) - 1,
            std::min(grid.height, (sy + 1) * side) - 1};
  }
  std::uint32_t sector_of(int x, int y) const { return static_cast<std::uint32_t>((y / side) * sectors_x + x / side); }

  void label_components() {
    component.assign(grid.cells(), detail::kNone);
    std::vector<std::uint32_t> stack;
    std::uint32_t next = 0;
    for (std::size_t start = 0; start < grid.cells(); ++start)
      if (grid.cost[start] != kBlocked && component[start] == detail::kNone)
        detail::flood_component(grid, start, next++, component, stack, [](std::uint32_t) {});
    components_dirty = false;
  }

  Target& target_of(Cell goal) {
    for (auto& t : targets)
      if (t->goal == goal) return *t;
    targets.push_back(std::make_unique<Target>());
    targets.back()->goal = goal;
    return *targets.back();
  }

  // Fills `missing` sectors of target t: A* from its goal until every reachable cell of them and of their
  // rings is settled, then their floats, directions and largest values.
  void compute(Target& t, const std::vector<std::uint32_t>& missing, CacheStats& st) {
    if (components_dirty) label_components();
    Box box{grid.width, grid.height, -1, -1};
    for (const std::uint32_t s : missing) {
      const Box b = sector_box(s);
      box = {std::min(box.x0, b.x0 - 1), std::min(box.y0, b.y0 - 1), std::max(box.x1, b.x1 + 1),
             std::max(box.y1, b.y1 + 1)};
    }
    box = {std::max(box.x0, 0), std::max(box.y0, 0), std::min(box.x1, grid.width - 1),
           std::min(box.y1, grid.height - 1)};
    const int bw = box.x1 - box.x0 + 1, bh = box.y1 - box.y0 + 1;
    const std::uint32_t home = component[grid.index(t.goal.x, t.goal.y)];
    // The cells to settle: the missing sectors and their rings, where the goal can be reached from.
    std::vector<std::uint8_t> need(static_cast<std::size_t>(bw) * static_cast<std::size_t>(bh), 0);
    std::size_t remaining = 0;
    for (const std::uint32_t s : missing) {
      const Box b = sector_box(s);
      for (int y = std::max(b.y0 - 1, 0); y <= std::min(b.y1 + 1, grid.height - 1); ++y)
        for (int x = std::max(b.x0 - 1, 0); x <= std::min(b.x1 + 1, grid.width - 1); ++x) {
          std::uint8_t& m = need[static_cast<std::size_t>(y - box.y0) * static_cast<std::size_t>(bw) +
                                 static_cast<std::size_t>(x - box.x0)];
          if (m || component[grid.index(x, y)] != home) continue;
          m = 1;
          ++remaining;
        }
    }
    heap.clear();
    const std::size_t start = grid.index(t.goal.x, t.goal.y);
    g[start] = Exact{};
    touched.push_back(static_cast<std::uint32_t>(start));
    detail::push(heap, octile_to(box, t.goal.x, t.goal.y), start);
    while (remaining > 0 && !heap.empty()) {
      const detail::Entry top = detail::pop(heap);
      if (settled[top.cell]) continue;
      settled[top.cell] = 1;
      ++st.settled;
      const int vx = detail::x_of(grid, top.cell), vy = detail::y_of(grid, top.cell);
      if (box.contains(vx, vy) && need[static_cast<std::size_t>(vy - box.y0) * static_cast<std::size_t>(bw) +
                                       static_cast<std::size_t>(vx - box.x0)])
        --remaining;
      const Exact dv = g[top.cell];
      for (int k = 0; k < 8; ++k) {
        if (!detail::allowed(grid, vx, vy, k)) continue;
        const std::size_t u = detail::neighbour(grid, top.cell, k);
        if (settled[u]) continue;
        const Exact d = octile::plus_step(dv, detail::diagonal(k), grid.cost[top.cell]);
        if (detail::reached(g[u]) && !octile::less(d, g[u])) continue;
        if (!detail::reached(g[u])) touched.push_back(static_cast<std::uint32_t>(u));
        g[u] = d;
        detail::push(heap, plus(d, octile_to(box, detail::x_of(grid, u), detail::y_of(grid, u))), u);
      }
    }
    const octile::CostView view = detail::view(grid);
    auto exact_at = [&](int x, int y) {
      const std::size_t c = grid.index(x, y);
      return settled[c] ? g[c] : Exact{detail::kNone, detail::kNone};
    };
    for (const std::uint32_t s : missing) {
      const Box b = sector_box(s);
      SectorData data;
      data.dist.assign(static_cast<std::size_t>(side) * static_cast<std::size_t>(side),
                       std::numeric_limits<float>::infinity());
      data.dir.assign(data.dist.size(), kNoDirection);
      for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x) {
          const Exact e = exact_at(x, y);
          if (e.a == detail::kNone) continue;
          const std::size_t i =
              static_cast<std::size_t>(y - b.y0) * static_cast<std::size_t>(side) + static_cast<std::size_t>(x - b.x0);
          data.dist[i] = octile::to_float(e);
          data.dir[i] = static_cast<std::int8_t>(octile::direction(view, x, y, e, exact_at));
        }
      for (int y = std::max(b.y0 - 1, 0); y <= std::min(b.y1 + 1, grid.height - 1); ++y)
        for (int x = std::max(b.x0 - 1, 0); x <= std::min(b.x1 + 1, grid.width - 1); ++x) {
          const Exact e = exact_at(x, y);
          if (e.a == detail::kNone)
            data.unreached |= grid.cost[grid.index(x, y)] != kBlocked;
          else if (octile::less(data.max_value, e))
            data.max_value = e;
        }
      t.sectors.emplace(s, std::move(data));
      memory += sector_bytes();
      ++st.sectors_computed;
    }
    for (const std::uint32_t c : touched) {
      g[c] = Exact{detail::kNone, detail::kNone};
      settled[c] = 0;
    }
    touched.clear();
  }

  // The target of `goal` holding every sector of `needed` (sorted, distinct); evicts for the budget.
  Target& serve(Cell goal, std::vector<std::uint32_t>& needed, CacheStats& st) {
    Target& t = target_of(goal);
    t.used = ++clock;
    std::vector<std::uint32_t> missing;
    for (const std::uint32_t s : needed) {
      if (t.sectors.count(s))
        ++st.sectors_reused;
      else
        missing.push_back(s);
    }
    if (!missing.empty()) compute(t, missing, st);
    while (memory > budget && targets.size() > 1) {
      auto lru = std::min_element(targets.begin(), targets.end(), [&](const auto& a, const auto& b) {
        if (a.get() == &t) return false;
        if (b.get() == &t) return true;
        return a->used < b->used;
      });
      memory -= (*lru)->sectors.size() * sector_bytes();
      targets.erase(lru);
      ++st.targets_evicted;
    }
    return t;
  }

  Status check_goal(Cell goal) const {
    if (!grid.passable(goal.x, goal.y))
      return Status::Invalid("nav field cache: the goal (" + std::to_string(goal.x) + ", " + std::to_string(goal.y) +
                             ") is " + (grid.inside(goal.x, goal.y) ? "a blocked cell" : "outside the grid"));
    return Status::Ok();
  }
};

FieldCache::FieldCache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FieldCache::~FieldCache() = default;

Status FieldCache::create(const Grid& grid, const FieldCacheOptions& options, std::unique_ptr<FieldCache>& out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  if (options.sector < 8 || options.sector > 1024)
    return Status::Invalid("nav field cache: sector side " + std::to_string(options.sector) + " is outside 8..1024");
  auto impl = std::make_unique<Impl>();
  impl->grid = grid;
  impl->side = options.sector;
  impl->budget = options.memory_budget;
  impl->sectors_x = (grid.width + options.sector - 1) / options.sector;
  impl->sectors_y = (grid.height + options.sector - 1) / options.sector;
  impl->g.assign(grid.cells(), Exact{detail::kNone, detail::kNone});
  impl->settled.assign(grid.cells(), 0);
  impl->label_components();
  out.reset(new FieldCache(std::move(impl)));
  return Status::Ok();
}

Status FieldCache::steer(Cell goal, std::span<const Vec2> positions, std::span<Vec2> steer, std::span<float> dist,
                         CacheStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  WM_RETURN_IF_ERROR(m.check_goal(goal));
  if (steer.size() != positions.size() || dist.size() != positions.size())
    return Status::Invalid("nav field cache steer: " + std::to_string(positions.size()) +
                           " positions need as many outputs");
  CacheStats local;
  CacheStats& st = stats ? *stats : local;
  st = CacheStats{};
  std::vector<std::uint32_t> needed;
  for (const Vec2& p : positions) {
    int x, y;
    if (detail::cell_of(m.grid, p, x, y)) needed.push_back(m.sector_of(x, y));
  }
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  const Target* t = needed.empty() ? nullptr : &m.serve(goal, needed, st);  // no unit on the map: no target
  for (std::size_t i = 0; i < positions.size(); ++i) {
    steer[i] = {0.0f, 0.0f};
    dist[i] = std::numeric_limits<float>::infinity();
    int x, y;
    if (!t || !detail::cell_of(m.grid, positions[i], x, y)) continue;
    const SectorData& s = t->sectors.at(m.sector_of(x, y));
    const std::size_t c =
        static_cast<std::size_t>(y % m.side) * static_cast<std::size_t>(m.side) + static_cast<std::size_t>(x % m.side);
    dist[i] = s.dist[c];
    steer[i] = detail::step_vector(s.dir[c]);
  }
  st.ms = ms_since(t0);
  return Status::Ok();
}

Status FieldCache::sector(Cell goal, int sx, int sy, std::span<float> distance, std::span<std::int8_t> direction,
                          CacheStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  WM_RETURN_IF_ERROR(m.check_goal(goal));
  if (sx < 0 || sy < 0 || sx >= m.sectors_x || sy >= m.sectors_y)
    return Status::Invalid("nav field cache: sector (" + std::to_string(sx) + ", " + std::to_string(sy) +
                           ") is outside the " + std::to_string(m.sectors_x) + " x " + std::to_string(m.sectors_y) +
                           " sectors");
  const std::size_t n = static_cast<std::size_t>(m.side) * static_cast<std::size_t>(m.side);
  if (distance.size() != n || direction.size() != n)
    return Status::Invalid("nav field cache: a sector holds " + std::to_string(n) + " distances and directions");
  CacheStats local;
  CacheStats& st = stats ? *stats : local;
  st = CacheStats{};
  std::vector<std::uint32_t> needed = {static_cast<std::uint32_t>(sy * m.sectors_x + sx)};
  const Target& t = m.serve(goal, needed, st);
  const SectorData& s = t.sectors.at(needed[0]);
  std::copy(s.dist.begin(), s.dist.end(), distance.begin());
  std::copy(s.dir.begin(), s.dir.end(), direction.begin());
  st.ms = ms_since(t0);
  return Status::Ok();
}

Status FieldCache::update(std::span<const CellChange> changes, CacheStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  for (const CellChange& ch : changes)
    if (!m.grid.inside(ch.cell.x, ch.cell.y))
      return Status::Invalid("nav field cache: change at (" + std::to_string(ch.cell.x) + ", " +
                             std::to_string(ch.cell.y) + ") is outside the grid");
  CacheStats local;
  CacheStats& st = stats ? *stats : local;
  st = CacheStats{};
  bool opens = false;  // a blocked cell made passable: cells no goal reached may now reach one
  for (const CellChange& ch : changes) {
    std::uint8_t& cost = m.grid.cost[m.grid.index(ch.cell.x, ch.cell.y)];
    opens |= cost == kBlocked && ch.cost != kBlocked;
    cost = ch.cost;
  }
  if (!changes.empty()) m.components_dirty = true;
  for (auto it = m.targets.begin(); it != m.targets.end();) {
    Target& t = **it;
    if (!m.grid.passable(t.goal.x, t.goal.y)) {
      st.sectors_dropped += t.sectors.size();
      m.memory -= t.sectors.size() * m.sector_bytes();
      it = m.targets.erase(it);
      continue;
    }
    const Box at_goal{t.goal.x, t.goal.y, t.goal.x, t.goal.y};
    for (auto s = t.sectors.begin(); s != t.sectors.end();) {
      Box b = m.sector_box(s->first);
      b = {b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1};
      const Exact bound = plus(s->second.max_value, Exact{3, 0});
      const bool touched =
          (opens && s->second.unreached) || std::any_of(changes.begin(), changes.end(), [&](const CellChange& ch) {
            if (b.contains(ch.cell.x, ch.cell.y)) return true;
            const Exact lower = plus(octile_to(at_goal, ch.cell.x, ch.cell.y), octile_to(b, ch.cell.x, ch.cell.y));
            return !octile::less(bound, lower);
          });
      if (touched) {
        s = t.sectors.erase(s);
        m.memory -= m.sector_bytes();
        ++st.sectors_dropped;
      } else {
        ++s;
      }
    }
    ++it;
  }
  st.ms = ms_since(t0);
  return Status::Ok();
}

const Grid& FieldCache::grid() const { return impl_->grid; }
int FieldCache::sector_side() const { return impl_->side; }
std::size_t FieldCache::targets() const {
  return static_cast<std::size_t>(
      std::count_if(impl_->targets.begin(), impl_->targets.end(), [](const auto& t) { return !t->sectors.empty(); }));
}
std::size_t FieldCache::memory_used() const { return impl_->memory; }

}  // namespace warpmind::nav
