// Navigation fields kept up to date as the map changes (contract in warpmind/nav/nav_fields.h).
#include "warpmind/nav/nav_fields.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "nav/changes.h"
#include "nav/dijkstra.h"

namespace warpmind::nav {

using detail::Entry;
using detail::Exact;

namespace {

// One goal's field: its exact values and what the public accessors read.
struct Field {
  Cell goal;
  std::vector<Exact> exact;
  std::vector<float> dist;
  std::vector<std::int8_t> dir;
};

// One worker's buffers for updates, reused (the marks cleared after each field).
struct Scratch {
  std::vector<Entry> heap;
  std::vector<std::uint8_t> mark;    // kInvalid, kSettled, kRedo
  std::vector<std::size_t> invalid;  // invalidated cells
  std::vector<std::size_t> changed;  // cells whose value this update set (or cleared)
  std::vector<std::size_t> marked;   // every cell with a mark
};

constexpr std::uint8_t kInvalid = 1, kSettled = 2, kRedo = 4, kChanged = 8;

// The best value a cell gets from its reached neighbours (kNone when none is reached).
Exact best_from_neighbours(const Grid& g, const std::vector<Exact>& exact, std::size_t u) {
  Exact best{detail::kNone, detail::kNone};
  const int x = detail::x_of(g, u), y = detail::y_of(g, u);
  for (int k = 0; k < 8; ++k) {
    if (!detail::allowed(g, x, y, k)) continue;
    const std::size_t n = detail::neighbour(g, u, k);
    if (!detail::reached(exact[n])) continue;
    const Exact d = octile::plus_step(exact[n], detail::diagonal(k), g.cost[n]);
    if (!detail::reached(best) || octile::less(d, best)) best = d;
  }
  return best;
}

// Brings one field up to date with the grid after the cells `changes` took their new costs.
std::uint64_t update_field(const Grid& g, const std::vector<std::size_t>& changes, Field& f, Scratch& s) {
  const std::size_t start = g.index(f.goal.x, f.goal.y);
  std::vector<Exact>& exact = f.exact;
  s.mark.resize(g.cells(), 0);
  s.invalid.clear();
  s.changed.clear();
  s.marked.clear();
  s.heap.clear();
  const auto set_mark = [&](std::size_t c, std::uint8_t m) {
    if (!s.mark[c]) s.marked.push_back(c);
    s.mark[c] |= m;
  };
  const auto around = [&](std::size_t x, auto&& fn) {  // the 3 x 3 cells around x
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int cx = detail::x_of(g, x) + dx, cy = detail::y_of(g, x) + dy;
        if (g.inside(cx, cy)) fn(g.index(cx, cy));
      }
  };
  for (std::size_t x : changes) set_mark(x, kChanged);
  const auto invalidate = [&](std::size_t c) {
    if (s.mark[c] & kInvalid) return;
    set_mark(c, kInvalid);
    s.invalid.push_back(c);
  };
  // The cells whose own step no longer holds: blocked now, stepping into a changed cell, or along a
  // diagonal a change closed. Only cells around a change can have such a step.
  for (std::size_t x : changes)
    around(x, [&](std::size_t c) {
      if (c == start || !detail::reached(exact[c])) return;
      const int k = f.dir[c], cx = detail::x_of(g, c), cy = detail::y_of(g, c);
      if (!g.passable(cx, cy) || k < 0 || !detail::allowed(g, cx, cy, k) ||
          (s.mark[detail::neighbour(g, c, k)] & kChanged))
        invalidate(c);
    });
  // Every cell whose step leads into an invalidated one, transitively: the walks that went through them.
  for (std::size_t i = 0; i < s.invalid.size(); ++i) {
    const std::size_t v = s.invalid[i];
    for (int k = 0; k < 8; ++k) {
      const int ux = detail::x_of(g, v) + kSteps[static_cast<std::size_t>(k)][0];
      const int uy = detail::y_of(g, v) + kSteps[static_cast<std::size_t>(k)][1];
      if (!g.inside(ux, uy)) continue;
      const std::size_t u = g.index(ux, uy);
      const int ku = f.dir[u];  // u's step leads into v when it is (-dx, -dy): the opposite of k
      if (ku >= 0 && ku == ((k + 4) & 7)) invalidate(u);
    }
  }
  for (std::size_t c : s.invalid) {
    exact[c] = Exact{detail::kNone, detail::kNone};
    s.changed.push_back(c);
  }
  // Seeds: the invalidated cells and the cells around each change, from their reached neighbours, where
  // that improves on what they have.
  const auto seed = [&](std::size_t u) {
    if (u == start || !g.cost[u]) return;
    const Exact d = best_from_neighbours(g, exact, u);
    if (!detail::reached(d) || (detail::reached(exact[u]) && !octile::less(d, exact[u]))) return;
    exact[u] = d;
    detail::push(s.heap, d, u);
  };
  for (std::size_t c : s.invalid) seed(c);
  for (std::size_t x : changes) around(x, seed);
  // Dijkstra's algorithm over the improvements: every push lowered exact[u], so the first pop that
  // matches it is final.
  std::uint64_t settled = 0;
  while (!s.heap.empty()) {
    const Entry top = detail::pop(s.heap);
    const std::size_t u = top.cell;
    if ((s.mark[u] & kSettled) || !octile::same(top.d, exact[u])) continue;
    set_mark(u, kSettled);
    s.changed.push_back(u);
    ++settled;
    detail::relax(g, u, top.d, exact, s.heap, [&](std::size_t v, const Exact& d) {
      return !(s.mark[v] & kSettled) && (!detail::reached(exact[v]) || octile::less(d, exact[v]));
    });
  }
  // The distances that changed; the directions there, next to them and around the changes.
  for (std::size_t c : s.changed) {
    f.dist[c] = detail::distance_of(exact[c]);
    around(c, [&](std::size_t n) { set_mark(n, kRedo); });
  }
  for (std::size_t x : changes) around(x, [&](std::size_t n) { set_mark(n, kRedo); });
  for (std::size_t c : s.marked) {
    if (s.mark[c] & kRedo) f.dir[c] = detail::direction_of(g, exact, c);
    s.mark[c] = 0;
  }
  return settled;
}

}  // namespace

struct NavFields::Impl {
  Context* ctx = nullptr;
  Grid grid;
  std::vector<Field> fields;
  std::vector<Scratch> scratch;  // one per worker of the pool
};

NavFields::NavFields(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NavFields::~NavFields() = default;

Status NavFields::create(Context& ctx, const Grid& grid, std::span<const Cell> goals, std::unique_ptr<NavFields>& out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  for (std::size_t i = 0; i < goals.size(); ++i)
    if (!grid.passable(goals[i].x, goals[i].y))
      return Status::Invalid("nav fields: goal " + std::to_string(i) + " is not a passable cell of the grid");
  auto impl = std::make_unique<Impl>();
  impl->ctx = &ctx;
  impl->grid = grid;
  impl->fields.resize(goals.size());
  impl->scratch.resize(ctx.pool().size());
  Impl& im = *impl;
  ctx.pool().parallel_for(goals.size(), [&](std::size_t b, std::size_t e, unsigned w) {
    for (std::size_t i = b; i < e; ++i) {
      Field& f = im.fields[i];
      f.goal = goals[i];
      (void)detail::solve(im.grid, {&f.goal, 1}, f.exact, im.scratch[w].heap);
      f.dist.resize(im.grid.cells());
      f.dir.resize(im.grid.cells());
      for (std::size_t c = 0; c < im.grid.cells(); ++c) {
        f.dist[c] = detail::distance_of(f.exact[c]);
        f.dir[c] = detail::direction_of(im.grid, f.exact, c);
      }
    }
  });
  out.reset(new NavFields(std::move(impl)));
  return Status::Ok();
}

Status NavFields::update(std::span<const CellChange> changes, FieldStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& im = *impl_;
  Grid& g = im.grid;
  std::vector<std::size_t> changed;
  WM_RETURN_IF_ERROR(detail::apply_changes(
      g, changes, im.fields.size(), [&](std::size_t i) { return im.fields[i].goal; }, "nav fields", changed));
  std::atomic<std::uint64_t> settled{0};
  if (!changed.empty())
    im.ctx->pool().parallel_for(im.fields.size(), [&](std::size_t b, std::size_t e, unsigned w) {
      std::uint64_t mine = 0;
      for (std::size_t i = b; i < e; ++i) mine += update_field(g, changed, im.fields[i], im.scratch[w]);
      settled += mine;
    });
  if (stats) {
    stats->settled = settled.load();
    stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return Status::Ok();
}

// ---- save and restore -----------------------------------------------------------------------------

namespace {

constexpr char kMagic[8] = {'W', 'M', 'N', 'A', 'V', 'F', 0, 0};
constexpr std::uint32_t kFormat = 1;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 4 + 4 + 8;

}  // namespace

Status NavFields::save(std::vector<std::uint8_t>& out) const {
  const Impl& im = *impl_;
  std::vector<std::uint8_t> b;
  b.reserve(kHeaderBytes + 8 * im.fields.size() + im.grid.cells());
  bytes::Writer w{b};
  w.raw(kMagic, sizeof kMagic);
  w.u32(kFormat);
  w.u32(0);  // reserved
  w.u32(static_cast<std::uint32_t>(im.grid.width));
  w.u32(static_cast<std::uint32_t>(im.grid.height));
  w.u64(im.fields.size());
  for (const Field& f : im.fields) {
    w.u32(static_cast<std::uint32_t>(f.goal.x));
    w.u32(static_cast<std::uint32_t>(f.goal.y));
  }
  b.insert(b.end(), im.grid.cost.begin(), im.grid.cost.end());
  out = std::move(b);
  return Status::Ok();
}

Status NavFields::restore(std::span<const std::uint8_t> in) {
  if (in.size() < kHeaderBytes || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0)
    return Status::Invalid("restore: not saved navigation fields (bad header)");
  bytes::Reader r{in, sizeof kMagic};
  if (const std::uint32_t f = r.u32(); f != kFormat)
    return Status::Invalid("restore: format " + std::to_string(f) + " (this library reads " + std::to_string(kFormat) +
                           ")");
  if (r.u32() != 0) return Status::Invalid("restore: the reserved word is not 0");
  const std::uint32_t width = r.u32(), height = r.u32();
  const std::uint64_t goals = r.u64();
  const std::size_t rest = in.size() - kHeaderBytes;
  const std::uint64_t cells = std::uint64_t{width} * height;  // at most (2^32 - 1)^2: no overflow
  if (goals > rest / 8 || cells != rest - goals * 8)
    return Status::Invalid("restore: " + std::to_string(in.size()) + " bytes do not hold a " + std::to_string(width) +
                           " x " + std::to_string(height) + " grid and " + std::to_string(goals) + " goals");
  if (width > 0x7fffffffu || height > 0x7fffffffu)
    return Status::Invalid("restore: a " + std::to_string(width) + " x " + std::to_string(height) + " grid");
  Grid grid;
  grid.width = static_cast<int>(width);
  grid.height = static_cast<int>(height);
  std::vector<Cell> targets(goals);
  for (Cell& c : targets) {
    c.x = static_cast<std::int32_t>(r.u32());
    c.y = static_cast<std::int32_t>(r.u32());
  }
  grid.cost.assign(in.begin() + static_cast<std::ptrdiff_t>(r.at), in.end());
  std::unique_ptr<NavFields> fresh;
  const Status st = create(*impl_->ctx, grid, targets, fresh);
  if (!st.ok()) return st.code() == StatusCode::InvalidArgument ? Status::Invalid("restore: " + st.message()) : st;
  impl_ = std::move(fresh->impl_);
  return Status::Ok();
}

const Grid& NavFields::grid() const { return impl_->grid; }
std::size_t NavFields::goals() const { return impl_->fields.size(); }
std::span<const float> NavFields::distance(std::size_t goal) const { return impl_->fields.at(goal).dist; }
std::span<const std::int8_t> NavFields::direction(std::size_t goal) const { return impl_->fields.at(goal).dir; }

}  // namespace warpmind::nav
