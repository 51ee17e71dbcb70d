#include <gtest/gtest.h>

#include "gpu_helpers.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::crowd {
namespace {

TEST(CrowdScenario, ParsesEveryField) {
  CrowdScenario s;
  Status st = parse_crowd_scenario(R"({
    "world": {"width": 20, "height": 10}, "radius": 0.25, "rule": "lowest-id",
    "obstacles": {"width": 20, "height": 10, "blocked": [[3, 4], [19, 9]]},
    "agents": [{"x": 1, "y": 1}, {"x": 2.5, "y": 1}],
    "moves": {"kind": "goal", "step": 0.3, "goal": {"x": 18, "y": 5}}})", "c.json", s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.config.world.width, 20.0f);
  EXPECT_EQ(s.config.radius, 0.25f);
  EXPECT_EQ(s.config.rule, CrowdRule::LowestIdWins);
  EXPECT_EQ(s.config.obstacles.blocked[4 * 20 + 3], 1);
  EXPECT_EQ(s.config.obstacles.blocked[9 * 20 + 19], 1);
  ASSERT_EQ(s.start.size(), 2u);
  EXPECT_EQ(s.moves.kind, MoveSpec::Kind::Goal);
  EXPECT_EQ(s.moves.goal.x, 18.0f);
}

TEST(CrowdScenario, GeneratedStartIsValidAndAvoidsObstacles) {
  CrowdScenario s;
  ASSERT_TRUE(load_crowd_scenario(warpmind::test::source_dir() + "/assets/scenarios/crowd_demo.json", s).ok());
  EXPECT_GT(s.start.size(), 1000u);
  std::unique_ptr<CrowdSolver> solver;
  ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), s.config, solver).ok());
  EXPECT_TRUE(solver->reset(s.start).ok());  // no overlap, none in a wall
  std::vector<Vec2> prop;
  make_proposals(s.moves, warpmind::test::cpu_context().pool(), s.start, 0, prop);
  ASSERT_EQ(prop.size(), s.start.size());
  const float dx = prop[0].x - s.start[0].x, dy = prop[0].y - s.start[0].y;
  EXPECT_NEAR(dx * dx + dy * dy, s.moves.step * s.moves.step, 1e-4f);  // one step towards the goal
}

TEST(CrowdScenario, ErrorsNameTheField) {
  const std::pair<const char*, const char*> bad[] = {
      {"[1]", "(top level)"},
      {R"({})", "agents"},
      {R"({"agents": [], "generate": {"agents": 3}})", "agents"},
      {R"({"radius": -1, "agents": []})", "radius"},
      {R"({"rule": "fair", "agents": []})", "rule"},
      {R"({"agents": [{"x": 1}]})", "agents[0].y"},
      {R"({"generate": {"agents": 5, "spacing": 0.5}})", "generate.spacing"},
      {R"({"obstacles": {"width": 4, "height": 4, "blocked": [[9, 0]]}, "agents": []})", "obstacles.blocked[0]"},
      {R"({"agents": [], "moves": {"kind": "goal"}})", "moves.goal"},
      {R"({"agents": [], "moves": {"kind": "teleport"}})", "moves.kind"},
  };
  for (const auto& [text, where] : bad) {
    CrowdScenario s;
    s.config.radius = 7.0f;
    Status st = parse_crowd_scenario(text, "bad.json", s);
    EXPECT_FALSE(st.ok()) << text;
    EXPECT_NE(st.message().find(where), std::string::npos) << st.message() << " should name " << where;
    EXPECT_EQ(s.config.radius, 7.0f);
  }
}

}  // namespace
}  // namespace warpmind::crowd
