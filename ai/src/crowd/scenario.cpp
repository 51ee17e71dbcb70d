#include "warpmind/crowd/scenario.h"

#include <cmath>

#include "common/json_reader.h"
#include "crowd_math.h"
#include "warpmind/core/random.h"

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
            const float dx = m.goal.x - pos[i].x, dy = m.goal.y - pos[i].y, d = std::sqrt(dx * dx + dy * dy);
            if (d > m.step) {
              const float k = m.step / d;
              out[i] = {pos[i].x + dx * k, pos[i].y + dy * k};
            } else {
              out[i] = m.goal;  // p + (goal - p) can miss the goal by an ulp when goal - p is inexact
            }
          }
        }
      },
      1 << 14);
}

namespace {

Status parse_root(const Reader& r, const json& root, CrowdScenario& s) {
  WM_RETURN_IF_ERROR(r.object(root, ""));
  WM_RETURN_IF_ERROR(r.keys(root, "", {"world", "radius", "rule", "obstacles", "agents", "generate", "moves"}));
  WM_RETURN_IF_ERROR(r.world(root, s.config.world));
  WM_RETURN_IF_ERROR(r.number(root, "radius", "", s.config.radius, false));
  if (!(s.config.radius > 0.0f)) return r.error("radius", "must be > 0");
  if (auto it = root.find("rule"); it != root.end())
    if (!it->is_string() || !parse_rule(it->get<std::string>(), s.config.rule))
      return r.error("rule", "expected \"strict\" or \"lowest-id\"");
  if (auto it = root.find("obstacles"); it != root.end()) {
    WM_RETURN_IF_ERROR(r.object(*it, "obstacles"));
    WM_RETURN_IF_ERROR(r.keys(*it, "obstacles.", {"width", "height", "blocked"}));
    long long w = 0, h = 0;
    WM_RETURN_IF_ERROR(r.integer(*it, "width", "obstacles.", 1, 65536, w, true));
    WM_RETURN_IF_ERROR(r.integer(*it, "height", "obstacles.", 1, 65536, h, true));
    ObstacleGrid& o = s.config.obstacles;
    o.width = static_cast<int>(w);
    o.height = static_cast<int>(h);
    o.blocked.assign(static_cast<std::size_t>(w * h), 0);
    if (auto b = it->find("blocked"); b != it->end()) {
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
  }
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
  } else {
    WM_RETURN_IF_ERROR(r.object(*gen, "generate"));
    WM_RETURN_IF_ERROR(r.keys(*gen, "generate.", {"agents", "seed", "spacing"}));
    long long n = 0, seed = 1;
    float spacing = 1.25f;
    WM_RETURN_IF_ERROR(r.integer(*gen, "agents", "generate.", 0, 1 << 28, n, true));
    WM_RETURN_IF_ERROR(r.integer(*gen, "seed", "generate.", 0, INT64_MAX, seed, false));
    WM_RETURN_IF_ERROR(r.number(*gen, "spacing", "generate.", spacing, false));
    if (!(spacing >= 1.0f)) return r.error("generate.spacing", "must be >= 1 (units of 2R)");
    s.start = lattice_start(static_cast<std::size_t>(n), s.config.radius, spacing, s.config,
                            static_cast<std::uint64_t>(seed));
  }
  if (auto it = root.find("moves"); it != root.end()) {
    WM_RETURN_IF_ERROR(r.object(*it, "moves"));
    WM_RETURN_IF_ERROR(r.keys(*it, "moves.", {"kind", "step", "seed", "goal"}));
    MoveSpec& m = s.moves;
    if (auto k = it->find("kind"); k != it->end()) {
      if (!k->is_string() || (k->get<std::string>() != "random" && k->get<std::string>() != "goal"))
        return r.error("moves.kind", "expected \"random\" or \"goal\"");
      m.kind = k->get<std::string>() == "goal" ? MoveSpec::Kind::Goal : MoveSpec::Kind::Random;
    }
    WM_RETURN_IF_ERROR(r.number(*it, "step", "moves.", m.step, false));
    if (!(m.step >= 0.0f)) return r.error("moves.step", "must be >= 0");
    long long seed = static_cast<long long>(m.seed);
    WM_RETURN_IF_ERROR(r.integer(*it, "seed", "moves.", 0, INT64_MAX, seed, false));
    m.seed = static_cast<std::uint64_t>(seed);
    if (auto g = it->find("goal"); g != it->end()) {
      WM_RETURN_IF_ERROR(r.object(*g, "moves.goal"));
      WM_RETURN_IF_ERROR(r.keys(*g, "moves.goal.", {"x", "y"}));
      WM_RETURN_IF_ERROR(r.number(*g, "x", "moves.goal.", m.goal.x, true));
      WM_RETURN_IF_ERROR(r.number(*g, "y", "moves.goal.", m.goal.y, true));
    } else if (m.kind == MoveSpec::Kind::Goal) {
      return r.error("moves.goal", "required for \"goal\" moves");
    }
  }
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
