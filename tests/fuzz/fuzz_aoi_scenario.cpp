// libFuzzer target: AOI scenario JSON (scenario_fuzz.h's invariants).
#include "scenario_fuzz.h"
#include "warpmind/aoi/scenario.h"

namespace warpmind::fuzz {
namespace {

json write(const aoi::AoiScenario& s) {
  json players = json::array();
  for (const aoi::Player& p : s.players)
    players.push_back({{"x", static_cast<double>(p.x)}, {"y", static_cast<double>(p.y)}, {"hp", p.hp}});
  const aoi::AoiConfig& c = s.config;
  return {{"world", world_json(c.world)},
          {"aoi", static_cast<double>(c.aoi)},
          {"shape", aoi::shape_name(c.shape)},
          {"max_move", static_cast<double>(c.max_move)},
          {"attack_range", static_cast<double>(c.attack_range)},
          {"players", players},
          {"commands", {{"attack_share", static_cast<double>(s.commands.attack_share)}, {"seed", s.commands.seed}}}};
}

bool same(const aoi::AoiScenario& a, const aoi::AoiScenario& b) {
  const auto f = [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  if (!same_world(a.config.world, b.config.world) || !f(a.config.aoi, b.config.aoi) ||
      a.config.shape != b.config.shape || !f(a.config.max_move, b.config.max_move) ||
      !f(a.config.attack_range, b.config.attack_range) || !f(a.commands.attack_share, b.commands.attack_share) ||
      a.commands.seed != b.commands.seed || a.players.size() != b.players.size())
    return false;
  for (std::size_t i = 0; i < a.players.size(); ++i)
    if (!f(a.players[i].x, b.players[i].x) || !f(a.players[i].y, b.players[i].y) || a.players[i].hp != b.players[i].hp)
      return false;
  return true;
}

aoi::AoiScenario sentinel() {
  aoi::AoiScenario s;
  s.config.aoi = 3.25f;
  s.players.resize(3);
  return s;
}

}  // namespace
}  // namespace warpmind::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  return fuzz::check_scenario<aoi::AoiScenario>(
      data, size, [](const std::string& t, aoi::AoiScenario& s) { return aoi::parse_aoi_scenario(t, "a.json", s); },
      fuzz::write, fuzz::same, fuzz::sentinel);
}
