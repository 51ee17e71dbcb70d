#include <gtest/gtest.h>

#include "gpu_helpers.h"
#include "warpmind/field/scenario.h"

namespace warpmind::field {
namespace {

constexpr const char* kGood = R"({
  "world": {"x0": -5, "y0": 0, "width": 100, "height": 50},
  "resolution": {"width": 200, "height": 100},
  "kinds": [{"name": "enemy", "type": "attack", "param": 7},
            {"name": "wall", "segments": [{"end": 1, "slope": 0, "intercept": -1000}]}],
  "layers": [{"name": "team0", "rules": [{"group": 1, "kind": "enemy"}, {"group": 2, "kind": "wall"}]}],
  "entities": [{"x": 1, "y": 2, "group": 1}, {"x": 3.5, "y": 4}],
  "generate": {"count": 10, "distribution": "clustered", "group": 2, "seed": 4}
})";

TEST(Scenario, ParsesEveryField) {
  FieldScenario s;
  Status st = parse_field_scenario(kGood, "good.json", s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.config.world.x0, -5.0f);
  EXPECT_EQ(s.config.width, 200);
  EXPECT_EQ(s.config.height, 100);
  ASSERT_EQ(s.config.kinds.size(), 2u);
  EXPECT_EQ(s.config.kinds[0].name, "enemy");
  EXPECT_FLOAT_EQ(s.config.kinds[0].cutoff(), 87.0f);
  EXPECT_EQ(s.config.kinds[1].value(0.5f), -1000.0f);
  ASSERT_EQ(s.config.layers.size(), 1u);
  EXPECT_EQ(s.config.layers[0].rules[1].kind, 1u);
  ASSERT_EQ(s.entities.size(), 12u);
  EXPECT_EQ(s.entities[0].group, 1u);
  EXPECT_EQ(s.entities[1].group, 0u);
  EXPECT_EQ(s.entities[5].group, 2u);
}

TEST(Scenario, ErrorsNameTheFieldAndLeaveOutputUntouched) {
  const std::pair<const char*, const char*> bad[] = {
      {"{", "not valid JSON"},
      {"[]", "(top level)"},
      {R"({"layers": []})", "kinds"},
      {R"({"kinds": [{"type": "circle", "param": -2}], "layers": []})", "kinds[0]"},
      {R"({"kinds": [{"type": "circle"}], "layers": []})", "kinds[0].param"},
      {R"({"kinds": [{"type": "laser", "param": 2}], "layers": []})", "unknown charge kind type"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}, {"name": "a", "type": "trail", "param": 1}]})",
       "kinds[1].name"},
      {R"({"kinds": [{"type": "circle", "param": 2}]})", "layers"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}], "layers": [{"name": "l", "rules": [{"group": 0, "kind": "b"}]}]})",
       "layers[0].rules[0].kind"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}], "layers": [{"name": "l", "rules": [{"group": 99, "kind": "a"}]}]})",
       "layers[0].rules[0].group"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}], "layers": [{"name": "l", "rules": []}], "entities": [{"x": 1}]})",
       "entities[0].y"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}], "layers": [{"name": "l", "rules": []}], "entities": [{"x": "1", "y": 2}]})",
       "entities[0].x"},
      {R"({"resolution": 0, "kinds": [{"type": "circle", "param": 2}], "layers": []})", "resolution"},
      {R"({"world": {"width": -1}, "kinds": [{"type": "circle", "param": 2}], "layers": []})", "world"},
      {R"({"kinds": [{"segments": [{"end": 2, "slope": 0, "intercept": 1}, {"end": 1, "slope": 0, "intercept": 1}]}], "layers": []})",
       "kinds[0].segments"},
      {R"({"kinds": [{"name": "a", "type": "circle", "param": 2}], "layers": [{"name": "l", "rules": []}], "generate": {"count": 5, "distribution": "zipf"}})",
       "generate.distribution"},
  };
  for (const auto& [text, where] : bad) {
    FieldScenario s;
    s.config.width = 123;
    Status st = parse_field_scenario(text, "bad.json", s);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_EQ(st.code(), StatusCode::InvalidArgument);
    EXPECT_NE(st.message().find(where), std::string::npos) << "message '" << st.message() << "' should name " << where;
    EXPECT_EQ(st.message().rfind("bad.json", 0), 0u) << st.message();
    EXPECT_EQ(s.config.width, 123);
  }
}

TEST(Scenario, MissingFile) {
  FieldScenario s;
  Status st = load_field_scenario("/nonexistent/x.json", s);
  EXPECT_NE(st.message().find("cannot open"), std::string::npos);
}

TEST(Scenario, BundledDemoScenarioLoads) {
  FieldScenario s;
  Status st = load_field_scenario(warpmind::test::source_dir() + "/assets/scenarios/field_demo.json", s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GE(s.config.layers.size(), 2u);
  EXPECT_FALSE(s.entities.empty());
}

TEST(Scenario, GeneratorIsDeterministicAndInsideTheWorld) {
  FieldGenParams p;
  p.count = 1000;
  p.distribution = Distribution::Clustered;
  p.seed = 9;
  const FieldScenario a = generate_field_scenario(p), b = generate_field_scenario(p);
  ASSERT_EQ(a.entities.size(), 1000u);
  for (std::size_t i = 0; i < a.entities.size(); ++i) {
    EXPECT_EQ(a.entities[i].x, b.entities[i].x);
    EXPECT_GE(a.entities[i].x, 0.0f);
    EXPECT_LT(a.entities[i].x, 256.0f);
  }
  p.seed = 10;
  EXPECT_NE(generate_field_scenario(p).entities[0].x, a.entities[0].x);
}

}  // namespace
}  // namespace warpmind::field
