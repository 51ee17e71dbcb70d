// The scenario readers' fuzz invariants, one instantiation per reader (fuzz_*_scenario.cpp):
// - the reader never crashes or throws, whatever the bytes;
// - a rejected input leaves the output exactly as it was (a sentinel scenario is compared);
// - an accepted scenario written back as explicit JSON (every value, no "generate") reads back to the
//   same scenario, bit for bit.
#pragma once

#include <cstring>

#include "fuzz_common.h"
#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"

namespace warpmind::fuzz {

using nlohmann::json;

inline json world_json(const WorldRect& w) {
  return {{"x0", static_cast<double>(w.x0)},
          {"y0", static_cast<double>(w.y0)},
          {"width", static_cast<double>(w.width)},
          {"height", static_cast<double>(w.height)}};
}
inline bool same_world(const WorldRect& a, const WorldRect& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Scenario: the scenario type; Parse(text, out) -> Status; Write(s) -> json; Same(a, b) -> bool;
// Sentinel() -> a scenario no input produces unchanged.
template <class Scenario, class Parse, class Write, class Same, class Sentinel>
int check_scenario(const std::uint8_t* data, std::size_t size, Parse parse, Write write, Same same, Sentinel sentinel) {
  const std::string text = text_of(data, size);
  if (asks_too_much(text)) return 0;
  Scenario s = sentinel();
  const Status st = parse(text, s);
  if (!st.ok()) {
    FUZZ_CHECK(same(s, sentinel()));
    FUZZ_CHECK(!st.message().empty());
    return 0;
  }
  const std::string back = write(s).dump();
  Scenario again = sentinel();
  const Status st2 = parse(back, again);
  if (!st2.ok()) std::fprintf(stderr, "written back: %s\nrejected: %s\n", back.c_str(), st2.message().c_str());
  FUZZ_CHECK(st2.ok());
  FUZZ_CHECK(same(s, again));
  return 0;
}

}  // namespace warpmind::fuzz
