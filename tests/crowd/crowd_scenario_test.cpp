#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gpu_helpers.h"
#include "warpmind/crowd/scenario.h"
#include "warpmind/world/world_map.h"

namespace warpmind::crowd {
namespace {

TEST(CrowdScenario, ParsesEveryField) {
  CrowdScenario s;
  Status st = parse_crowd_scenario(R"({
    "world": {"width": 20, "height": 10}, "radius": 0.25, "rule": "lowest-id",
    "obstacles": {"width": 20, "height": 10, "blocked": [[3, 4], [19, 9]]},
    "agents": [{"x": 1, "y": 1}, {"x": 2.5, "y": 1}],
    "moves": {"kind": "goal", "step": 0.3, "goal": {"x": 18, "y": 5}}})",
                                   "c.json", s);
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

// "shapes" in world units are the world map's rectangles, lines and polygons on the obstacle grid, added
// to the listed cells; a bad shape is an error naming it.
TEST(CrowdScenario, ShapesAreTheWorldMapsWallsOnTheObstacleGrid) {
  CrowdScenario s;
  const Status st = parse_crowd_scenario(R"({
    "world": {"x0": -10, "width": 40, "height": 20},
    "obstacles": {"width": 80, "height": 40, "blocked": [[0, 0]], "shapes": [
      {"rect": {"lo": {"x": 0, "y": 2}, "hi": {"x": 1, "y": 12}}},
      {"line": {"a": {"x": 5, "y": 1}, "b": {"x": 20, "y": 17.5}, "thickness": 0.75}},
      {"polygon": [{"x": -8, "y": 14}, {"x": -2, "y": 14}, {"x": -5, "y": 19}]}]},
    "agents": [{"x": 25, "y": 2}]})",
                                         "shapes.json", s);
  ASSERT_TRUE(st.ok()) << st.message();
  world::WorldMap map;
  ASSERT_TRUE(world::WorldMap::create({-10, 0, 40, 20}, 80, 40, map).ok());
  ASSERT_TRUE(map.set_cell(0, 0, 0).ok());
  ASSERT_TRUE(map.fill_rect({0, 2}, {1, 12}).ok());
  ASSERT_TRUE(map.draw_line({5, 1}, {20, 17.5f}, 0.75f).ok());
  const std::vector<Vec2> tri = {{-8, 14}, {-2, 14}, {-5, 19}};
  ASSERT_TRUE(map.fill_polygon(tri).ok());
  const ObstacleGrid want = map.crowd_obstacles();
  EXPECT_EQ(s.config.obstacles.blocked, want.blocked);
  std::size_t blocked = 0;
  for (std::uint8_t b : want.blocked) blocked += b != 0;
  EXPECT_GT(blocked, 100u);  // every shape drew something
  // Bad shapes: the error names the shape and leaves the output alone.
  const CrowdScenario before = s;
  for (const char* bad :
       {R"({"rect": {"lo": {"x": 0, "y": 0}}})", R"({"line": {"a": {"x": 0, "y": 0}, "b": {"x": 1}}})",
        R"({"polygon": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]})", R"({"circle": {}})",
        R"({"rect": {"lo": {"x": 0, "y": 0}, "hi": {"x": 1, "y": 1}}, "line": {}})",
        R"({"line": {"a": {"x": 0, "y": 0}, "b": {"x": 1, "y": 1}, "thickness": -1}})"}) {
    const std::string text = std::string(R"({"world": {"width": 10, "height": 10}, "obstacles": {"width": 10, )") +
                             R"("height": 10, "shapes": [)" + bad + R"(]}, "agents": []})";
    const Status e = parse_crowd_scenario(text, "bad.json", s);
    EXPECT_EQ(e.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_NE(e.message().find("obstacles.shapes[0]"), std::string::npos) << e.message();
    EXPECT_EQ(s.config.obstacles.blocked, before.config.obstacles.blocked);
  }
}

TEST(CrowdScenario, MovementGoalsAndStandardScenarios) {
  CrowdScenario s;
  Status st = parse_crowd_scenario(R"({
    "world": {"width": 20, "height": 10}, "movement": "avoid", "max_step": 0.25, "exit_radius": 1,
    "agents": [{"x": 2, "y": 5}, {"x": 18, "y": 5}],
    "moves": {"kind": "goals", "goals": [{"x": 18, "y": 5}, {"x": 2, "y": 5}]}})",
                                   "c.json", s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.config.movement, CrowdMovement::Avoid);
  EXPECT_EQ(s.config.max_step, 0.25f);
  EXPECT_EQ(s.exit_radius, 1.0f);
  ASSERT_EQ(s.moves.goals.size(), 2u);
  EXPECT_EQ(s.moves.goals[1].x, 2.0f);
  // A standard scenario, with the rule and the maximum step overridden beside it.
  ASSERT_TRUE(parse_crowd_scenario(R"({"standard": {"name": "bottleneck", "agents": 300}, "rule": "strict",
                                       "max_step": 0.5})",
                                   "s.json", s)
                  .ok());
  CrowdScenario want;
  ASSERT_TRUE(standard_crowd_scenario("bottleneck", 300, want).ok());
  EXPECT_EQ(s.start.size(), 300u);
  EXPECT_EQ(s.config.rule, CrowdRule::Strict);
  EXPECT_EQ(s.config.max_step, 0.5f);
  EXPECT_EQ(s.config.obstacles.blocked, want.config.obstacles.blocked);
  EXPECT_EQ(s.moves.kind, MoveSpec::Kind::Goals);
  EXPECT_GT(bottleneck_ideal_flow(want), 1.9f);
  // Errors name the field and change nothing.
  const CrowdScenario before = s;
  const auto err = [&](const char* text) {
    const Status e = parse_crowd_scenario(text, "e.json", s);
    EXPECT_EQ(s.start.size(), before.start.size());
    return e.message();
  };
  EXPECT_NE(err(R"({"standard": {"name": "stampede", "agents": 10}})").find("standard.name"), std::string::npos);
  for (const char* spacing : {"1", "11", "-3", "\"wide\""})
    EXPECT_NE(
        err((R"({"standard": {"name": "crossing", "agents": 10, "spacing": )" + std::string(spacing) + "}}").c_str())
            .find("standard.spacing"),
        std::string::npos)
        << spacing;
  EXPECT_NE(err(R"({"standard": {"name": "corridor", "agents": 10}, "radius": 2})").find("radius"), std::string::npos);
  EXPECT_NE(err(R"({"generate": {"agents": 3}, "movement": "run"})").find("movement"), std::string::npos);
  EXPECT_NE(err(R"({"generate": {"agents": 3}, "max_step": -1})").find("max_step"), std::string::npos);
  EXPECT_NE(err(R"({"agents": [{"x": 1, "y": 1}], "moves": {"kind": "goals", "goals": []}})").find("moves.goals"),
            std::string::npos);
  EXPECT_NE(err(R"({"agents": [{"x": 1, "y": 1}], "moves": {"kind": "goal", "goal": {"x": 1, "y": 1},
                    "goals": [{"x": 1, "y": 1}]}})")
                .find("moves.goals"),
            std::string::npos);
  // Every standard scenario starts valid at its own spacing and at the densest and sparsest allowed: a
  // solver takes it (no overlap, none in a wall), with the agents on a lattice of that pitch.
  for (const char* name : {"bottleneck", "corridor", "crossing"})
    for (float spacing : {0.0f, 1.05f, 2.5f, 10.0f}) {
      SCOPED_TRACE(std::string(name) + " " + std::to_string(spacing));
      CrowdScenario sc;
      ASSERT_TRUE(standard_crowd_scenario(name, 500, sc, spacing).ok());
      ASSERT_EQ(sc.start.size(), 500u);
      std::unique_ptr<CrowdSolver> solver;
      ASSERT_TRUE(CrowdSolver::create(warpmind::test::cpu_context(), sc.config, solver).ok());
      EXPECT_TRUE(solver->reset(sc.start).ok());
      EXPECT_EQ(sc.moves.goals.size(), sc.start.size());
      if (spacing > 0.0f) {
        EXPECT_FLOAT_EQ(sc.start[1].x - sc.start[0].x, spacing);
      }
    }
  // The spacing is given in the file as in the call; out of range, it changes nothing.
  ASSERT_TRUE(
      parse_crowd_scenario(R"({"standard": {"name": "crossing", "agents": 400, "spacing": 3}})", "s.json", s).ok());
  ASSERT_TRUE(standard_crowd_scenario("crossing", 400, want, 3.0f).ok());
  const auto same_start = [&] {
    return s.start.size() == want.start.size() &&
           std::memcmp(s.start.data(), want.start.data(), s.start.size() * sizeof(Vec2)) == 0;
  };
  EXPECT_TRUE(same_start());
  for (float bad : {1.0f, 10.5f, -2.0f, std::nanf("")})
    EXPECT_FALSE(standard_crowd_scenario("crossing", 400, want, bad).ok());
  EXPECT_TRUE(same_start());
}

// A standard scenario's world is bounded (65,536 a side, 2^28 obstacle cells) before anything is allocated:
// a few bytes of scenario file cannot ask for gigabytes.
TEST(CrowdScenario, StandardScenariosRefuseWorldsTooLarge) {
  CrowdScenario kept;
  ASSERT_TRUE(standard_crowd_scenario("crossing", 40, kept).ok());
  // The corridor at its own pitch (3 x 2R, 4 agents a row): 87,329 agents make it exactly 65,536 long.
  CrowdScenario s = kept;
  ASSERT_TRUE(standard_crowd_scenario("corridor", 87329, s).ok());
  EXPECT_EQ(s.config.world.width, 65536.0f);
  EXPECT_EQ(s.start.size(), 87328u);  // two flows of n / 2
  s = kept;
  const Status longer = standard_crowd_scenario("corridor", 87330, s);
  EXPECT_EQ(longer.code(), StatusCode::InvalidArgument);
  EXPECT_NE(longer.message().find("65542 x 14"), std::string::npos) << longer.message();
  EXPECT_EQ(s.start.size(), kept.start.size());
  // The bottleneck at pitch 10 and 2^24 agents: 109,292 x 30,720 (3.4 G cells) before the cap.
  const Status huge = standard_crowd_scenario("bottleneck", std::size_t{1} << 24, s, 10.0f);
  EXPECT_EQ(huge.code(), StatusCode::InvalidArgument);
  EXPECT_NE(huge.message().find("2^28 obstacle cells"), std::string::npos) << huge.message();
  EXPECT_EQ(s.start.size(), kept.start.size());
  // Within the sides but over 2^28 cells: the bottleneck at pitch 3 and 2^24 agents (32,796 x 9,216).
  EXPECT_EQ(standard_crowd_scenario("bottleneck", std::size_t{1} << 24, s, 3.0f).code(), StatusCode::InvalidArgument);
  // A scenario file says the same, and changes nothing.
  const Status file =
      parse_crowd_scenario(R"({"standard": {"name": "bottleneck", "agents": 16777216, "spacing": 10}})", "big.json", s);
  EXPECT_FALSE(file.ok());
  EXPECT_NE(file.message().find("65536 a side"), std::string::npos) << file.message();
  EXPECT_EQ(s.start.size(), kept.start.size());
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

TEST(CrowdScenario, GoalMovesStepTowardsTheGoalOrStopExactlyOnIt) {
  ThreadPool& pool = warpmind::test::cpu_context().pool();
  MoveSpec m;
  m.kind = MoveSpec::Kind::Goal;
  m.step = 0.5f;
  m.goal = {-0.00497868052f, 2.983109f};
  // Less than a step away: exactly the goal, although p + (goal - p) would miss it by an ulp here.
  const Vec2 near{0.127216026f, 3.24264336f};
  ASSERT_NE(near.x + (m.goal.x - near.x), m.goal.x);
  // Farther: p + d * (step / |d|), in float, |d| = sqrtf(d.x^2 + d.y^2).
  const Vec2 far{3.0f, -1.0f};
  const float dx = m.goal.x - far.x, dy = m.goal.y - far.y, k = 0.5f / std::sqrt(dx * dx + dy * dy);
  std::vector<Vec2> prop;
  make_proposals(m, pool, std::vector<Vec2>{near, far, m.goal, {m.goal.x + 0.5f, m.goal.y}}, 0, prop);
  ASSERT_EQ(prop.size(), 4u);
  EXPECT_EQ(prop[0].x, m.goal.x);
  EXPECT_EQ(prop[0].y, m.goal.y);
  EXPECT_EQ(prop[1].x, far.x + dx * k);
  EXPECT_EQ(prop[1].y, far.y + dy * k);
  EXPECT_EQ(prop[2].x, m.goal.x);  // on the goal: proposes to stay
  EXPECT_EQ(prop[2].y, m.goal.y);
  EXPECT_EQ(prop[3].x, m.goal.x);  // exactly one step away: the goal
  EXPECT_EQ(prop[3].y, m.goal.y);
  m.step = 0.0f;  // no step: everyone proposes to stay
  make_proposals(m, pool, std::vector<Vec2>{far}, 0, prop);
  EXPECT_EQ(prop[0].x, far.x);
  EXPECT_EQ(prop[0].y, far.y);
}

TEST(CrowdScenario, RandomMovesFollowTheDocumentedFormula) {
  // Per axis, x first: p + lo + (hi - lo) * u, u = (next() >> 40) * 2^-24, from
  // SplitMix64(seed ^ (i * 0x9E3779B97F4A7C15) ^ (tick << 40)); written out here without the library's
  // generator.
  const auto splitmix = [](std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  MoveSpec m;
  m.kind = MoveSpec::Kind::Random;
  m.step = 0.75f;
  m.seed = 12345;
  std::vector<Vec2> pos;
  for (int i = 0; i < 50; ++i) pos.push_back({static_cast<float>(i) * 1.5f, 3.0f - static_cast<float>(i)});
  std::vector<Vec2> prop;
  for (std::uint64_t tick : {0ull, 1ull, 7ull, 1000000ull}) {
    make_proposals(m, warpmind::test::cpu_context().pool(), pos, tick, prop);
    for (std::size_t i = 0; i < pos.size(); ++i) {
      std::uint64_t state = m.seed ^ (i * 0x9E3779B97F4A7C15ull) ^ (tick << 40);
      const float ux = static_cast<float>(splitmix(state) >> 40) * (1.0f / 16777216.0f);
      const float uy = static_cast<float>(splitmix(state) >> 40) * (1.0f / 16777216.0f);
      const float ox = -0.75f + 1.5f * ux, oy = -0.75f + 1.5f * uy;
      EXPECT_EQ(prop[i].x, pos[i].x + ox) << "agent " << i << " tick " << tick;
      EXPECT_EQ(prop[i].y, pos[i].y + oy) << "agent " << i << " tick " << tick;
      EXPECT_GE(ox, -0.75f);
      EXPECT_LT(ox, 0.75f);
    }
  }
  // Independent of the thread count and of the other agents: agent 7 alone gets the same proposal.
  ContextOptions o;
  o.backend = Backend::Cpu;
  o.cpu_threads = 1;
  o.quiet = true;
  std::unique_ptr<Context> one;
  ASSERT_TRUE(Context::create(o, one).ok());
  std::vector<Vec2> all, alone;
  make_proposals(m, one->pool(), pos, 3, all);
  make_proposals(m, warpmind::test::cpu_context().pool(), pos, 3, alone);
  EXPECT_EQ(all[7].x, alone[7].x);
  EXPECT_EQ(all[7].y, alone[7].y);
}

TEST(CrowdScenario, NumbersAreReadAsDoublesThenRoundedToFloat) {
  // 1 + 2^-24 + 1e-25 is above the midpoint of 1 and the next float, but its nearest double is the
  // midpoint itself, which then rounds to even: 1.0f (read directly as a float it would be 1 + 2^-23).
  CrowdScenario s;
  ASSERT_TRUE(
      parse_crowd_scenario(R"({"agents": [{"x": 1.0000000596046447753906251, "y": 16777217}]})", "c.json", s).ok());
  ASSERT_EQ(s.start.size(), 1u);
  EXPECT_EQ(s.start[0].x, 1.0f);
  EXPECT_EQ(s.start[0].y, 16777216.0f);
}

// Agents within exit_radius of their own goal (the boundary included) leave: keep marks them, and the
// goals and positions are compacted alike, in order; no exits without Goals moves or a radius.
TEST(CrowdScenario, DepartRemovesTheAgentsAtTheirGoal) {
  CrowdScenario s;
  s.moves.kind = MoveSpec::Kind::Goals;
  s.moves.goals = {{0, 0}, {10, 10}, {20, 20}, {30, 30}};
  s.exit_radius = 1.0f;
  std::vector<Vec2> pos = {{0.5f, 0}, {12, 10}, {20, 21}, {35, 30}};
  std::vector<std::uint8_t> keep;
  EXPECT_EQ(depart(s, pos, keep), 2u);
  EXPECT_EQ(keep, (std::vector<std::uint8_t>{0, 1, 0, 1}));
  ASSERT_EQ(pos.size(), 2u);
  EXPECT_EQ(pos[0].x, 12.0f);
  EXPECT_EQ(pos[1].x, 35.0f);
  ASSERT_EQ(s.moves.goals.size(), 2u);
  EXPECT_EQ(s.moves.goals[1].x, 30.0f);
  std::vector<int> other = {1, 2, 3, 4};
  compact(other, keep);
  EXPECT_EQ(other, (std::vector<int>{2, 4}));
  EXPECT_EQ(depart(s, pos, keep), 0u);
  EXPECT_EQ(pos.size(), 2u);
  s.exit_radius = 0;
  pos = {{10, 10}, {30, 30}};
  EXPECT_EQ(depart(s, pos, keep), 0u);
}

}  // namespace
}  // namespace warpmind::crowd
