// The scenario readers' shared JSON rules, on every reader: an unknown key — at the top level or
// nested — is an error that names it (a misspelt optional key is never silently ignored); "comment" is
// allowed at the top level; a number a double cannot hold (1e400) anywhere is an error, not a crash;
// the output is unchanged after an error.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "warpmind/aoi/scenario.h"
#include "warpmind/crowd/scenario.h"
#include "warpmind/ddm/scenario.h"
#include "warpmind/field/scenario.h"

namespace warpmind {
namespace {

struct Reader {
  const char* name;
  std::string valid;                   // a small valid scenario; its first character is '{'
  std::string nested_bad, nested_key;  // a valid scenario with a misspelt nested key, and that key's path
  std::function<Status(const std::string&, std::size_t&)> read;  // and the size of what it read
};

std::vector<Reader> readers() {
  return {
      {"field",
       R"({"world": {"width": 64, "height": 64}, "kinds": [{"name": "a", "type": "circle", "param": 4}],
           "layers": [{"name": "l", "rules": [{"group": 0, "kind": "a"}]}], "entities": [{"x": 1, "y": 2}]})",
       R"({"kinds": [{"name": "a", "type": "circle", "param": 4, "parm": 5}], "layers": [{"name": "l", "rules": []}]})",
       "kinds[0].parm",
       [](const std::string& t, std::size_t& n) {
         field::FieldScenario s;
         s.entities.resize(3);
         const Status st = field::parse_field_scenario(t, "f.json", s);
         n = s.entities.size();
         return st;
       }},
      {"crowd",
       R"({"radius": 0.5, "agents": [{"x": 1, "y": 1}, {"x": 3, "y": 1}], "moves": {"kind": "random", "step": 0.2}})",
       R"({"generate": {"agents": 10, "spacng": 2}})", "generate.spacng",
       [](const std::string& t, std::size_t& n) {
         crowd::CrowdScenario s;
         s.start.resize(3);
         const Status st = crowd::parse_crowd_scenario(t, "c.json", s);
         n = s.start.size();
         return st;
       }},
      {"aoi", R"({"world": {"width": 100, "height": 100}, "aoi": 10, "players": [{"x": 1, "y": 1, "hp": 5}]})",
       R"({"generate": {"clients": 10}, "commands": {"attack_shar": 0.5}})", "commands.attack_shar",
       [](const std::string& t, std::size_t& n) {
         aoi::AoiScenario s;
         s.players.resize(3);
         const Status st = aoi::parse_aoi_scenario(t, "a.json", s);
         n = s.players.size();
         return st;
       }},
      {"ddm", R"({"dimensions": 2, "regions": [{"kind": "publication", "lo": [0, 0], "hi": [1, 1]}]})",
       R"({"regions": [{"kind": "publication", "lo": [0, 0], "hi": [1, 1], "high": [2, 2]}]})", "regions[0].high",
       [](const std::string& t, std::size_t& n) {
         ddm::DdmScenario s;
         s.regions.resize(3);
         const Status st = ddm::parse_ddm_scenario(t, "d.json", s);
         n = s.regions.size();
         return st;
       }},
  };
}

TEST(ScenarioJson, UnknownKeysAreErrorsThatNameThem) {
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.name);
    std::size_t n = 0;
    ASSERT_TRUE(r.read(r.valid, n).ok()) << r.read(r.valid, n).message();
    // "comment" is allowed at the top level.
    EXPECT_TRUE(r.read("{\"comment\": [\"any\", 1], " + r.valid.substr(1), n).ok());
    // A misspelt top-level key.
    Status st = r.read("{\"wrold\": 1, " + r.valid.substr(1), n);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("wrold: unknown key"), std::string::npos) << st.message();
    EXPECT_EQ(n, 3u);  // unchanged
    // A misspelt nested key.
    st = r.read(r.nested_bad, n);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(r.nested_key + ": unknown key"), std::string::npos) << st.message();
    // "comment" is not a key below the top level.
    st = r.read(R"({"world": {"width": 5, "comment": 1}})", n);
    EXPECT_FALSE(st.ok());
    if (std::string(r.name) != "ddm") {  // ddm has no world: its top level refuses the key itself
      EXPECT_NE(st.message().find("world.comment: unknown key"), std::string::npos) << st.message();
    }
  }
}

TEST(ScenarioJson, NumbersADoubleCannotHoldAreErrorsNotCrashes) {
  for (const Reader& r : readers()) {
    SCOPED_TRACE(r.name);
    std::size_t n = 0;
    for (const char* num : {"1e400", "-1e400", "1e999999999999"}) {
      const Status st = r.read("{\"comment\": " + std::string(num) + ", " + r.valid.substr(1), n);
      EXPECT_FALSE(st.ok());
      EXPECT_NE(st.message().find("not valid JSON"), std::string::npos) << st.message();
      EXPECT_EQ(n, 3u);
    }
    // Huge values that do fit a double are range errors of their field.
    EXPECT_FALSE(r.read(R"({"world": {"width": 1e300, "height": 1}})", n).ok());
  }
}

}  // namespace
}  // namespace warpmind
