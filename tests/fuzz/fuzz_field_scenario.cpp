// libFuzzer target: field scenario JSON (scenario_fuzz.h's invariants).
#include "scenario_fuzz.h"
#include "warpmind/field/scenario.h"

namespace warpmind::fuzz {
namespace {

json write(const field::FieldScenario& s) {
  json kinds = json::array(), layers = json::array(), entities = json::array();
  for (const field::ChargeKind& k : s.config.kinds) {
    json segs = json::array();
    for (int i = 0; i < k.segments; ++i)
      segs.push_back({{"end", static_cast<double>(k.end[i])},
                      {"slope", static_cast<double>(k.slope[i])},
                      {"intercept", static_cast<double>(k.intercept[i])}});
    kinds.push_back({{"name", k.name}, {"segments", segs}});
  }
  for (const field::LayerSpec& l : s.config.layers) {
    json rules = json::array();
    for (const field::LayerRule& r : l.rules)
      rules.push_back({{"group", r.group}, {"kind", s.config.kinds[r.kind].name}});
    layers.push_back({{"name", l.name}, {"rules", rules}});
  }
  for (const field::Entity& e : s.entities)
    entities.push_back({{"x", static_cast<double>(e.x)}, {"y", static_cast<double>(e.y)}, {"group", e.group}});
  return {{"world", world_json(s.config.world)},
          {"resolution", {{"width", s.config.width}, {"height", s.config.height}}},
          {"kinds", kinds},
          {"layers", layers},
          {"entities", entities}};
}

bool same(const field::FieldScenario& a, const field::FieldScenario& b) {
  if (!same_world(a.config.world, b.config.world) || a.config.width != b.config.width ||
      a.config.height != b.config.height || a.config.kinds.size() != b.config.kinds.size() ||
      a.config.layers.size() != b.config.layers.size() || a.entities.size() != b.entities.size())
    return false;
  for (std::size_t i = 0; i < a.config.kinds.size(); ++i) {
    const field::ChargeKind &x = a.config.kinds[i], &y = b.config.kinds[i];
    if (x.name != y.name || x.segments != y.segments || std::memcmp(x.end, y.end, sizeof x.end) ||
        std::memcmp(x.slope, y.slope, sizeof x.slope) || std::memcmp(x.intercept, y.intercept, sizeof x.intercept))
      return false;
  }
  for (std::size_t i = 0; i < a.config.layers.size(); ++i) {
    const field::LayerSpec &x = a.config.layers[i], &y = b.config.layers[i];
    if (x.name != y.name || x.rules.size() != y.rules.size()) return false;
    for (std::size_t r = 0; r < x.rules.size(); ++r)
      if (x.rules[r].group != y.rules[r].group || x.rules[r].kind != y.rules[r].kind) return false;
  }
  return a.entities.empty() ||
         std::memcmp(a.entities.data(), b.entities.data(), a.entities.size() * sizeof(field::Entity)) == 0;
}

field::FieldScenario sentinel() {
  field::FieldScenario s;
  s.config.width = 7;
  s.entities.resize(3);
  return s;
}

}  // namespace
}  // namespace warpmind::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  return fuzz::check_scenario<field::FieldScenario>(
      data, size,
      [](const std::string& t, field::FieldScenario& s) { return field::parse_field_scenario(t, "f.json", s); },
      fuzz::write, fuzz::same, fuzz::sentinel);
}
