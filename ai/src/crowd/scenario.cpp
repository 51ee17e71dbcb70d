#include "warpmind/crowd/scenario.h"

#include <cmath>
#include <cstdio>

#include "common/json_reader.h"
#include "crowd_math.h"
#include "warpmind/core/random.h"
#include "warpmind/world/world_map.h"

namespace warpmind::crowd {

using warpmind::detail::json;
using Reader = warpmind::detail::JsonReader;

WorldRect lattice_world(std::size_t n, float radius, float spacing) {
  const float pitch = spacing * 2.0f * radius;
  const float side = std::ceil(std::sqrt(static_cast<float>(std::max<std::size_t>(n, 1)))) * pitch + pitch;
  return {0.0f, 0.0f, side, side};
}

std::vector<Vec2> lattice_start(std::size_t n, float radius, float spacing, const CrowdConfig& c, std::uint64_t seed) {
  const float pitch = spacing * 2.0f * radius, jitter = (pitch - 2.0f * radius) * 0.5f * 0.99f;
  const WorldRect& w = c.world;
  const auto cols = static_cast<std::size_t>(std::max(0.0f, std::floor((w.width - pitch * 0.5f) / pitch)));
  const detail::Geometry g = detail::make_geometry(c);
  SplitMix64 rng(seed);
  std::vector<Vec2> p;
  p.reserve(n);
  for (std::size_t k = 0; p.size() < n && cols > 0; ++k) {
    const float x = w.x0 + pitch * (0.5f + static_cast<float>(k % cols));
    const float y = w.y0 + pitch * (0.5f + static_cast<float>(k / cols));
    if (y + pitch * 0.5f > w.y0 + w.height) break;
    const Vec2 v{x + rng.uniform(-jitter, jitter), y + rng.uniform(-jitter, jitter)};
    if (detail::inside(v, g) && !detail::blocked(v, g, c.obstacles.blocked.data())) p.push_back(v);
  }
  return p;
}

void make_proposals(const MoveSpec& m, ThreadPool& pool, std::span<const Vec2> pos, std::uint64_t tick,
                    std::vector<Vec2>& out) {
  out.resize(pos.size());
  pool.parallel_for(
      pos.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          if (m.kind == MoveSpec::Kind::Random) {
            SplitMix64 rng(m.seed ^ (i * 0x9E3779B97F4A7C15ull) ^ (tick << 40));
            out[i] = {pos[i].x + rng.uniform(-m.step, m.step), pos[i].y + rng.uniform(-m.step, m.step)};
          } else {
            const Vec2 goal = m.kind == MoveSpec::Kind::Goals ? m.goals[i] : m.goal;
            const float dx = goal.x - pos[i].x, dy = goal.y - pos[i].y, d = std::sqrt(dx * dx + dy * dy);
            if (d > m.step) {
              const float k = m.step / d;
              out[i] = {pos[i].x + dx * k, pos[i].y + dy * k};
            } else {
              out[i] = goal;  // p + (goal - p) can miss the goal by an ulp when goal - p is inexact
            }
          }
        }
      },
      1 << 14);
}

namespace {

// A standard scenario's spacing: 0 (its own) or a lattice pitch of 1.05 to 10 x 2R.
bool valid_spacing(float spacing) { return spacing == 0.0f || (spacing >= 1.05f && spacing <= 10.0f); }

// A standard scenario's world, checked before anything is allocated: each side at most kMaxSide world
// units (the obstacle grid's limit per side, CrowdConfig) and, where it has an obstacle grid (one cell per
// world unit), at most kMaxCells cells.
constexpr float kMaxSide = 65536.0f;
constexpr double kMaxCells = 268435456.0;  // 2^28
Status fits(std::string_view name, std::size_t n, float pitch, float w, float h, bool grid) {
  if (w <= kMaxSide && h <= kMaxSide && (!grid || static_cast<double>(w) * static_cast<double>(h) <= kMaxCells))
    return Status::Ok();
  char what[200];
  std::snprintf(what, sizeof what, "%zu agents at a pitch of %g x 2R need a world of %.0f x %.0f", n,
                static_cast<double>(pitch), static_cast<double>(w), static_cast<double>(h));
  return Status::Invalid("standard scenario: " + std::string(name) + ": " + what + " (at most 65536 a side" +
                         (grid ? " and 2^28 obstacle cells" : "") + "): fewer agents or a smaller spacing");
}

// Agents on a square lattice of `pitch` filling the rectangle [x0, x1) x [y0, y1) row by row until n.
void fill(std::vector<Vec2>& out, std::size_t n, float x0, float y0, float x1, float y1, float pitch) {
  for (float y = y0 + pitch * 0.5f; y < y1 && out.size() < n; y += pitch)
    for (float x = x0 + pitch * 0.5f; x < x1 && out.size() < n; x += pitch) out.push_back({x, y});
}

}  // namespace

Status standard_crowd_scenario(std::string_view name, std::size_t n, CrowdScenario& out, float spacing) {
  if (n > (std::size_t{1} << 24)) return Status::Invalid("standard scenario: at most 2^24 agents");
  if (!valid_spacing(spacing))
    return Status::Invalid("standard scenario: spacing " + std::to_string(spacing) + " (0, or 1.05 to 10)");
  // The lattice pitch in world units (2R = 1), the scenario's own unless spacing is given.
  const auto pitch_or = [&](float own) { return spacing > 0.0f ? spacing : own; };
  CrowdScenario s;
  CrowdConfig& c = s.config;
  c.radius = 0.5f;
  c.rule = CrowdRule::LowestIdWins;
  c.movement = CrowdMovement::Avoid;
  c.max_step = 0.25f;
  s.moves.kind = MoveSpec::Kind::Goals;
  s.moves.step = c.max_step;
  if (name == "bottleneck") {
    const float pitch = pitch_or(1.1f);  // 1.1 x 2R
    // Enough rows of agents for n on the left; the wall at x = W/2, the gap in the middle of it.
    const float h = std::max(40.0f, std::ceil(std::sqrt(static_cast<float>(n)) * pitch * 0.75f));
    const float left = std::ceil(static_cast<float>(n) / std::floor((h - 2.0f) / pitch)) * pitch + 4.0f;
    const float w = 2.0f * left + 4.0f;
    WM_RETURN_IF_ERROR(fits(name, n, pitch, w, h, true));
    c.world = {0.0f, 0.0f, w, h};
    const int cols = static_cast<int>(w), rows = static_cast<int>(h);
    c.obstacles.width = cols;
    c.obstacles.height = rows;
    c.obstacles.blocked.assign(static_cast<std::size_t>(cols) * rows, 0);
    const int wall = cols / 2, gap_lo = rows / 2 - 4, gap_hi = rows / 2 + 4;  // gap: rows [gap_lo, gap_hi)
    for (int y = 0; y < rows; ++y)
      if (y < gap_lo || y >= gap_hi) c.obstacles.blocked[static_cast<std::size_t>(y) * cols + wall] = 1;
    fill(s.start, n, 1.0f, 1.0f, static_cast<float>(wall) - 1.0f, h - 1.0f, pitch);
    // Far past the gap, with an exit circle that reaches back to 3.5 past the wall: nearly a straight line
    // across the gap's width, so the agents leave as they come out rather than converging on a point.
    s.moves.goals.assign(s.start.size(), {static_cast<float>(wall) + 20.0f, h * 0.5f});
    s.exit_radius = 16.5f;
  } else if (name == "corridor") {
    const std::size_t half = n / 2;
    const float h = 14.0f, band = 12.0f;  // walls along y = 0 and y = 13 (one cell each)
    const float pitch = pitch_or(3.0f);   // each flow at 1/9 of the packing density (2.2: gridlock, docs/crowd.md)
    const float per_row = std::floor(band / pitch), len = std::ceil(static_cast<float>(half) / per_row) * pitch;
    const float w = 2.0f * len + 40.0f;
    WM_RETURN_IF_ERROR(fits(name, n, pitch, w, h, true));
    c.world = {0.0f, 0.0f, w, h};
    const int cols = static_cast<int>(w), rows = static_cast<int>(h);
    c.obstacles.width = cols;
    c.obstacles.height = rows;
    c.obstacles.blocked.assign(static_cast<std::size_t>(cols) * rows, 0);
    for (int x = 0; x < cols; ++x) {
      c.obstacles.blocked[static_cast<std::size_t>(x)] = 1;
      c.obstacles.blocked[static_cast<std::size_t>(rows - 1) * cols + x] = 1;
    }
    fill(s.start, half, 1.0f, 1.0f, 1.0f + len, 1.0f + band, pitch);
    s.moves.goals.assign(s.start.size(), {w - 1.5f, h * 0.5f});
    fill(s.start, 2 * half, w - 1.0f - len, 1.0f, w - 1.0f, 1.0f + band, pitch);
    s.moves.goals.resize(s.start.size(), {1.5f, h * 0.5f});
    s.exit_radius = 3.0f;
  } else if (name == "crossing") {
    // Four blocks of n/4 agents, one on each side of a square; each walks to the opposite side.
    const std::size_t q = n / 4;
    const float pitch = pitch_or(5.0f);  // each flow at 1/25 of the packing density
    const float block = std::ceil(std::sqrt(static_cast<float>(q))) * pitch;
    const float side = 3.0f * block + 20.0f, mid = side * 0.5f, lo = mid - block * 0.5f;  // blocks apart
    WM_RETURN_IF_ERROR(fits(name, n, pitch, side, side, false));
    c.world = {0.0f, 0.0f, side, side};
    fill(s.start, q, 0.5f, lo, 0.5f + block, lo + block, pitch);  // west, going east
    s.moves.goals.resize(s.start.size(), {side - 1.5f, mid});
    fill(s.start, 2 * q, side - 0.5f - block, lo, side - 0.5f, lo + block, pitch);  // east, going west
    s.moves.goals.resize(s.start.size(), {1.5f, mid});
    fill(s.start, 3 * q, lo, 0.5f, lo + block, 0.5f + block, pitch);  // south, going north
    s.moves.goals.resize(s.start.size(), {mid, side - 1.5f});
    fill(s.start, 4 * q, lo, side - 0.5f - block, lo + block, side - 0.5f, pitch);  // north, going south
    s.moves.goals.resize(s.start.size(), {mid, 1.5f});
    s.exit_radius = 3.0f;
  } else {
    return Status::Invalid("standard scenario: unknown name '" + std::string(name) +
                           "' (bottleneck, corridor, crossing)");
  }
  out = std::move(s);
  return Status::Ok();
}

float bottleneck_ideal_flow(const CrowdScenario& s) {
  const float d = 2.0f * s.config.radius;
  return (8.0f / d) * (s.config.max_step / d);
}

std::size_t exits(const CrowdScenario& s, std::span<const Vec2> pos, std::vector<std::uint8_t>& keep) {
  keep.assign(pos.size(), 1);
  if (s.moves.kind != MoveSpec::Kind::Goals || !(s.exit_radius > 0)) return 0;
  std::size_t gone = 0;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    const float dx = s.moves.goals[i].x - pos[i].x, dy = s.moves.goals[i].y - pos[i].y;
    if (dx * dx + dy * dy <= s.exit_radius * s.exit_radius) {
      keep[i] = 0;
      ++gone;
    }
  }
  return gone;
}

void compact_goals(MoveSpec& m, std::span<const std::uint8_t> keep) { compact(m.goals, keep); }

std::size_t depart(CrowdScenario& s, std::vector<Vec2>& positions, std::vector<std::uint8_t>& keep) {
  const std::size_t gone = exits(s, positions, keep);
  if (gone > 0) {
    compact_goals(s.moves, keep);
    compact(positions, keep);
  }
  return gone;
}

namespace {

// A point {"x", "y"} at `path` (both required).
Status point(const Reader& r, const json& j, const std::string& path, Vec2& out) {
  WM_RETURN_IF_ERROR(r.object(j, path));
  WM_RETURN_IF_ERROR(r.keys(j, path + ".", {"x", "y"}));
  WM_RETURN_IF_ERROR(r.number(j, "x", path + ".", out.x, true));
  return r.number(j, "y", path + ".", out.y, true);
}

// "obstacles.shapes": walls in world units, rasterised by world::WorldMap onto the obstacle grid (w x h
// cells over the scenario's world) and added to its blocked cells.
Status parse_shapes(const Reader& r, const json& shapes, const WorldRect& world, ObstacleGrid& o) {
  if (!shapes.is_array()) return r.error("obstacles.shapes", "expected an array of shapes");
  world::WorldMap map;
  if (Status made = world::WorldMap::create(world, o.width, o.height, map); !made.ok())
    return r.error("obstacles.shapes", made.message());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const json& shape = shapes[i];
    const std::string path = "obstacles.shapes[" + std::to_string(i) + "]";
    WM_RETURN_IF_ERROR(r.object(shape, path));
    WM_RETURN_IF_ERROR(r.keys(shape, path + ".", {"rect", "line", "polygon"}));
    if (shape.size() != 1) return r.error(path, "expected one of \"rect\", \"line\" or \"polygon\"");
    Status drawn;
    if (auto rect = shape.find("rect"); rect != shape.end()) {
      const std::string at = path + ".rect";
      WM_RETURN_IF_ERROR(r.object(*rect, at));
      WM_RETURN_IF_ERROR(r.keys(*rect, at + ".", {"lo", "hi"}));
      Vec2 lo, hi;
      if (!rect->contains("lo") || !rect->contains("hi")) return r.error(at, "needs \"lo\" and \"hi\" corners");
      WM_RETURN_IF_ERROR(point(r, (*rect)["lo"], at + ".lo", lo));
      WM_RETURN_IF_ERROR(point(r, (*rect)["hi"], at + ".hi", hi));
      drawn = map.fill_rect(lo, hi, 0);
    } else if (auto line = shape.find("line"); line != shape.end()) {
      const std::string at = path + ".line";
      WM_RETURN_IF_ERROR(r.object(*line, at));
      WM_RETURN_IF_ERROR(r.keys(*line, at + ".", {"a", "b", "thickness"}));
      Vec2 a, b;
      float thickness = 0.0f;
      if (!line->contains("a") || !line->contains("b")) return r.error(at, "needs end points \"a\" and \"b\"");
      WM_RETURN_IF_ERROR(point(r, (*line)["a"], at + ".a", a));
      WM_RETURN_IF_ERROR(point(r, (*line)["b"], at + ".b", b));
      WM_RETURN_IF_ERROR(r.number(*line, "thickness", at + ".", thickness, false));
      drawn = map.draw_line(a, b, thickness, 0);
    } else {
      const json& poly = shape["polygon"];
      const std::string at = path + ".polygon";
      if (!poly.is_array()) return r.error(at, "expected an array of {\"x\", \"y\"} points");
      std::vector<Vec2> pts(poly.size());
      for (std::size_t k = 0; k < poly.size(); ++k)
        WM_RETURN_IF_ERROR(point(r, poly[k], at + "[" + std::to_string(k) + "]", pts[k]));
      drawn = map.fill_polygon(pts, 0);
    }
    if (!drawn.ok()) return r.error(path, drawn.message());
  }
  for (std::size_t k = 0; k < o.blocked.size(); ++k) o.blocked[k] |= map.costs()[k] == 0;
  return Status::Ok();
}

// "standard": a standard scenario by name (standard_crowd_scenario), with its agent count and spacing.
// The keys it sets itself may not be given beside it.
Status parse_standard(const Reader& r, const json& root, const json& st, CrowdScenario& s) {
  for (const char* own : {"world", "radius", "obstacles", "agents", "generate", "moves"})
    if (root.contains(own)) return r.error(own, "not with \"standard\" (the standard scenario sets it)");
  WM_RETURN_IF_ERROR(r.object(st, "standard"));
  WM_RETURN_IF_ERROR(r.keys(st, "standard.", {"name", "agents", "spacing"}));
  const auto name = st.find("name");
  if (name == st.end() || !name->is_string()) return r.error("standard.name", "expected a scenario name");
  long long n = 0;
  WM_RETURN_IF_ERROR(r.integer(st, "agents", "standard.", 0, 1 << 24, n, true));
  float spacing = 0.0f;
  WM_RETURN_IF_ERROR(r.number(st, "spacing", "standard.", spacing, false));
  if (!valid_spacing(spacing)) return r.error("standard.spacing", "expected 0, or 1.05 to 10");
  const Status made = standard_crowd_scenario(name->get<std::string>(), static_cast<std::size_t>(n), s, spacing);
  if (!made.ok()) return r.error("standard.name", made.message());
  return Status::Ok();
}

// "obstacles": the grid's size in cells, its blocked cells as [x, y] pairs and its shapes.
Status parse_obstacles(const Reader& r, const json& obstacles, CrowdScenario& s) {
  WM_RETURN_IF_ERROR(r.object(obstacles, "obstacles"));
  WM_RETURN_IF_ERROR(r.keys(obstacles, "obstacles.", {"width", "height", "blocked", "shapes"}));
  long long w = 0, h = 0;
  WM_RETURN_IF_ERROR(r.integer(obstacles, "width", "obstacles.", 1, 65536, w, true));
  WM_RETURN_IF_ERROR(r.integer(obstacles, "height", "obstacles.", 1, 65536, h, true));
  ObstacleGrid& o = s.config.obstacles;
  o.width = static_cast<int>(w);
  o.height = static_cast<int>(h);
  o.blocked.assign(static_cast<std::size_t>(w * h), 0);
  if (auto b = obstacles.find("blocked"); b != obstacles.end()) {
    if (!b->is_array()) return r.error("obstacles.blocked", "expected an array of [x, y] cells");
    for (std::size_t i = 0; i < b->size(); ++i) {
      const json& cell = (*b)[i];
      const std::string path = "obstacles.blocked[" + std::to_string(i) + "]";
      if (!cell.is_array() || cell.size() != 2 || !cell[0].is_number_integer() || !cell[1].is_number_integer())
        return r.error(path, "expected [x, y] integers");
      const long long x = cell[0].get<long long>(), y = cell[1].get<long long>();
      if (x < 0 || y < 0 || x >= w || y >= h) return r.error(path, "cell outside the obstacle grid");
      o.blocked[static_cast<std::size_t>(y * w + x)] = 1;
    }
  }
  if (auto sh = obstacles.find("shapes"); sh != obstacles.end())
    WM_RETURN_IF_ERROR(parse_shapes(r, *sh, s.config.world, o));
  return Status::Ok();
}

// The start positions: "agents", a list of {"x", "y"}, or "generate", a jittered lattice (lattice_start);
// exactly one of the two.
Status parse_agents(const Reader& r, const json& root, CrowdScenario& s) {
  const auto agents = root.find("agents");
  const auto gen = root.find("generate");
  if ((agents == root.end()) == (gen == root.end())) return r.error("agents", "give either \"agents\" or \"generate\"");
  if (agents != root.end()) {
    if (!agents->is_array()) return r.error("agents", "expected an array");
    for (std::size_t i = 0; i < agents->size(); ++i) {
      const std::string path = "agents[" + std::to_string(i) + "]";
      WM_RETURN_IF_ERROR(r.object((*agents)[i], path));
      WM_RETURN_IF_ERROR(r.keys((*agents)[i], path + ".", {"x", "y"}));
      Vec2 v;
      WM_RETURN_IF_ERROR(r.number((*agents)[i], "x", path + ".", v.x, true));
      WM_RETURN_IF_ERROR(r.number((*agents)[i], "y", path + ".", v.y, true));
      s.start.push_back(v);
    }
    return Status::Ok();
  }
  WM_RETURN_IF_ERROR(r.object(*gen, "generate"));
  WM_RETURN_IF_ERROR(r.keys(*gen, "generate.", {"agents", "seed", "spacing"}));
  long long n = 0, seed = 1;
  float spacing = 1.25f;
  WM_RETURN_IF_ERROR(r.integer(*gen, "agents", "generate.", 0, 1 << 28, n, true));
  WM_RETURN_IF_ERROR(r.integer(*gen, "seed", "generate.", 0, INT64_MAX, seed, false));
  WM_RETURN_IF_ERROR(r.number(*gen, "spacing", "generate.", spacing, false));
  if (!(spacing >= 1.0f)) return r.error("generate.spacing", "must be >= 1 (units of 2R)");
  s.start =
      lattice_start(static_cast<std::size_t>(n), s.config.radius, spacing, s.config, static_cast<std::uint64_t>(seed));
  return Status::Ok();
}

// "moves": their kind, step and seed, and the goal ("goal") or the goals, one per agent ("goals").
Status parse_moves(const Reader& r, const json& moves, CrowdScenario& s) {
  WM_RETURN_IF_ERROR(r.object(moves, "moves"));
  WM_RETURN_IF_ERROR(r.keys(moves, "moves.", {"kind", "step", "seed", "goal", "goals"}));
  MoveSpec& m = s.moves;
  if (auto k = moves.find("kind"); k != moves.end()) {
    const std::string kind = k->is_string() ? k->get<std::string>() : "";
    if (kind != "random" && kind != "goal" && kind != "goals")
      return r.error("moves.kind", "expected \"random\", \"goal\" or \"goals\"");
    m.kind = kind == "goal" ? MoveSpec::Kind::Goal : kind == "goals" ? MoveSpec::Kind::Goals : MoveSpec::Kind::Random;
  }
  const auto goals = moves.find("goals");
  if ((goals != moves.end()) != (m.kind == MoveSpec::Kind::Goals))
    return r.error("moves.goals", "given exactly with \"kind\": \"goals\"");
  if (goals != moves.end()) {
    if (!goals->is_array() || goals->size() != s.start.size())
      return r.error("moves.goals", "expected an array of one {\"x\", \"y\"} per agent");
    m.goals.resize(goals->size());
    for (std::size_t i = 0; i < goals->size(); ++i) {
      const std::string path = "moves.goals[" + std::to_string(i) + "]";
      WM_RETURN_IF_ERROR(r.object((*goals)[i], path));
      WM_RETURN_IF_ERROR(r.keys((*goals)[i], path + ".", {"x", "y"}));
      WM_RETURN_IF_ERROR(r.number((*goals)[i], "x", path + ".", m.goals[i].x, true));
      WM_RETURN_IF_ERROR(r.number((*goals)[i], "y", path + ".", m.goals[i].y, true));
    }
  }
  WM_RETURN_IF_ERROR(r.number(moves, "step", "moves.", m.step, false));
  if (!(m.step >= 0.0f)) return r.error("moves.step", "must be >= 0");
  long long seed = static_cast<long long>(m.seed);
  WM_RETURN_IF_ERROR(r.integer(moves, "seed", "moves.", 0, INT64_MAX, seed, false));
  m.seed = static_cast<std::uint64_t>(seed);
  if (auto g = moves.find("goal"); g != moves.end()) {
    WM_RETURN_IF_ERROR(r.object(*g, "moves.goal"));
    WM_RETURN_IF_ERROR(r.keys(*g, "moves.goal.", {"x", "y"}));
    WM_RETURN_IF_ERROR(r.number(*g, "x", "moves.goal.", m.goal.x, true));
    WM_RETURN_IF_ERROR(r.number(*g, "y", "moves.goal.", m.goal.y, true));
  } else if (m.kind == MoveSpec::Kind::Goal) {
    return r.error("moves.goal", "required for \"goal\" moves");
  }
  return Status::Ok();
}

Status parse_root(const Reader& r, const json& root, CrowdScenario& s) {
  WM_RETURN_IF_ERROR(r.object(root, ""));
  WM_RETURN_IF_ERROR(r.keys(root, "",
                            {"world", "radius", "rule", "obstacles", "agents", "generate", "moves", "movement",
                             "max_step", "standard", "exit_radius"}));
  if (auto st = root.find("standard"); st != root.end()) {
    WM_RETURN_IF_ERROR(parse_standard(r, root, *st, s));
  } else {
    WM_RETURN_IF_ERROR(r.world(root, s.config.world));
  }
  if (auto it = root.find("movement"); it != root.end())
    if (!it->is_string() || !parse_movement(it->get<std::string>(), s.config.movement))
      return r.error("movement", "expected \"accept-reject\" or \"avoid\"");
  WM_RETURN_IF_ERROR(r.number(root, "max_step", "", s.config.max_step, false));
  if (!(s.config.max_step >= 0.0f)) return r.error("max_step", "must be >= 0");
  WM_RETURN_IF_ERROR(r.number(root, "exit_radius", "", s.exit_radius, false));
  if (!(s.exit_radius >= 0.0f)) return r.error("exit_radius", "must be >= 0");
  if (auto it = root.find("rule"); it != root.end())
    if (!it->is_string() || !parse_rule(it->get<std::string>(), s.config.rule))
      return r.error("rule", "expected \"strict\" or \"lowest-id\"");
  if (root.contains("standard")) return Status::Ok();
  WM_RETURN_IF_ERROR(r.number(root, "radius", "", s.config.radius, false));
  if (!(s.config.radius > 0.0f)) return r.error("radius", "must be > 0");
  if (auto it = root.find("obstacles"); it != root.end()) WM_RETURN_IF_ERROR(parse_obstacles(r, *it, s));
  WM_RETURN_IF_ERROR(parse_agents(r, root, s));
  if (auto it = root.find("moves"); it != root.end()) WM_RETURN_IF_ERROR(parse_moves(r, *it, s));
  return Status::Ok();
}

}  // namespace

Status parse_crowd_scenario(std::string_view json_text, const std::string& source, CrowdScenario& out) {
  CrowdScenario s;
  WM_RETURN_IF_ERROR(warpmind::detail::parse_json(
      json_text, source, [&](const Reader& r, const json& root) { return parse_root(r, root, s); }));
  out = std::move(s);
  return Status::Ok();
}

Status load_crowd_scenario(const std::string& path, CrowdScenario& out) {
  std::string text;
  WM_RETURN_IF_ERROR(warpmind::detail::read_text_file(path, text));
  return parse_crowd_scenario(text, path, out);
}

}  // namespace warpmind::crowd
