// libFuzzer target: crowd scenario JSON (scenario_fuzz.h's invariants).
#include "scenario_fuzz.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::fuzz {
namespace {

json write(const crowd::CrowdScenario& s) {
  json agents = json::array(), blocked = json::array();
  for (const Vec2& v : s.start) agents.push_back({{"x", static_cast<double>(v.x)}, {"y", static_cast<double>(v.y)}});
  const crowd::ObstacleGrid& o = s.config.obstacles;
  for (int y = 0; y < o.height; ++y)
    for (int x = 0; x < o.width; ++x)
      if (o.blocked[static_cast<std::size_t>(y) * static_cast<std::size_t>(o.width) + static_cast<std::size_t>(x)])
        blocked.push_back({x, y});
  const crowd::MoveSpec::Kind kind = s.moves.kind;
  json j = {{"world", world_json(s.config.world)},
            {"radius", static_cast<double>(s.config.radius)},
            {"rule", crowd::rule_name(s.config.rule)},
            {"movement", crowd::movement_name(s.config.movement)},
            {"max_step", static_cast<double>(s.config.max_step)},
            {"exit_radius", static_cast<double>(s.exit_radius)},
            {"agents", agents},
            {"moves",
             {{"kind", kind == crowd::MoveSpec::Kind::Goal    ? "goal"
                       : kind == crowd::MoveSpec::Kind::Goals ? "goals"
                                                              : "random"},
              {"step", static_cast<double>(s.moves.step)},
              {"seed", s.moves.seed},
              {"goal", {{"x", static_cast<double>(s.moves.goal.x)}, {"y", static_cast<double>(s.moves.goal.y)}}}}}};
  if (kind == crowd::MoveSpec::Kind::Goals) {
    json goals = json::array();
    for (const Vec2& g : s.moves.goals)
      goals.push_back({{"x", static_cast<double>(g.x)}, {"y", static_cast<double>(g.y)}});
    j["moves"]["goals"] = goals;
  }
  if (o.width > 0) j["obstacles"] = {{"width", o.width}, {"height", o.height}, {"blocked", blocked}};
  return j;
}

bool same(const crowd::CrowdScenario& a, const crowd::CrowdScenario& b) {
  const auto vec_eq = [](const Vec2& p, const Vec2& q) { return std::memcmp(&p, &q, sizeof p) == 0; };
  if (!same_world(a.config.world, b.config.world) || std::memcmp(&a.config.radius, &b.config.radius, sizeof(float)) ||
      a.config.rule != b.config.rule || a.config.obstacles.width != b.config.obstacles.width ||
      a.config.obstacles.height != b.config.obstacles.height ||
      a.config.obstacles.blocked != b.config.obstacles.blocked || a.start.size() != b.start.size() ||
      a.moves.kind != b.moves.kind || a.moves.seed != b.moves.seed ||
      std::memcmp(&a.moves.step, &b.moves.step, sizeof(float)) || !vec_eq(a.moves.goal, b.moves.goal) ||
      a.config.movement != b.config.movement || std::memcmp(&a.config.max_step, &b.config.max_step, sizeof(float)) ||
      std::memcmp(&a.exit_radius, &b.exit_radius, sizeof(float)) || a.moves.goals.size() != b.moves.goals.size())
    return false;
  for (std::size_t i = 0; i < a.start.size(); ++i)
    if (!vec_eq(a.start[i], b.start[i])) return false;
  for (std::size_t i = 0; i < a.moves.goals.size(); ++i)
    if (!vec_eq(a.moves.goals[i], b.moves.goals[i])) return false;
  return true;
}

crowd::CrowdScenario sentinel() {
  crowd::CrowdScenario s;
  s.config.radius = 3.25f;
  s.start.resize(3);
  return s;
}

}  // namespace
}  // namespace warpmind::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  return fuzz::check_scenario<crowd::CrowdScenario>(
      data, size,
      [](const std::string& t, crowd::CrowdScenario& s) { return crowd::parse_crowd_scenario(t, "c.json", s); },
      fuzz::write, fuzz::same, fuzz::sentinel);
}
