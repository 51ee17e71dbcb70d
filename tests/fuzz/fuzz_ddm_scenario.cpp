// libFuzzer target: DDM scenario JSON (scenario_fuzz.h's invariants).
#include "scenario_fuzz.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::fuzz {
namespace {

json write(const ddm::DdmScenario& s) {
  json regions = json::array();
  for (const ddm::RegionSpec& r : s.regions) {
    json lo = json::array(), hi = json::array();
    for (int k = 0; k < s.dimensions; ++k) {
      lo.push_back(static_cast<double>(r.lo[static_cast<std::size_t>(k)]));
      hi.push_back(static_cast<double>(r.hi[static_cast<std::size_t>(k)]));
    }
    regions.push_back(
        {{"kind", r.kind == ddm::RegionKind::Publication ? "publication" : "subscription"}, {"lo", lo}, {"hi", hi}});
  }
  return {{"dimensions", s.dimensions}, {"steps", s.steps}, {"seed", s.seed}, {"regions", regions}};
}

bool same(const ddm::DdmScenario& a, const ddm::DdmScenario& b) {
  if (a.dimensions != b.dimensions || a.steps != b.steps || a.seed != b.seed || a.regions.size() != b.regions.size())
    return false;
  for (std::size_t i = 0; i < a.regions.size(); ++i)
    if (a.regions[i].kind != b.regions[i].kind ||
        std::memcmp(&a.regions[i].lo, &b.regions[i].lo, sizeof a.regions[i].lo) ||
        std::memcmp(&a.regions[i].hi, &b.regions[i].hi, sizeof a.regions[i].hi))
      return false;
  return true;
}

ddm::DdmScenario sentinel() {
  ddm::DdmScenario s;
  s.steps = 12345;
  s.regions.resize(3);
  return s;
}

}  // namespace
}  // namespace warpmind::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpmind;
  return fuzz::check_scenario<ddm::DdmScenario>(
      data, size, [](const std::string& t, ddm::DdmScenario& s) { return ddm::parse_ddm_scenario(t, "d.json", s); },
      fuzz::write, fuzz::same, fuzz::sentinel);
}
