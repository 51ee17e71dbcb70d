// Real game maps (assets/maps/movingai: StarCraft, Dragon Age, Baldur's Gate II, mazes, rooms, a city,
// from the Moving AI benchmark sets) and their scenario files: every map read, and for goals spread over
// each scenario file the field gives the problem's start the file's optimal length; the scenario reader
// refuses bad lines and leaves its output unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu_helpers.h"
#include "output.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::nav {
namespace {

const char* const kMaps[] = {"64room_003", "AR0309SR", "Berlin_1_1024", "Caldera",     "TheFrozenSea",
                             "Triskelion", "brc504d",  "lak512d",       "maze512-1-8", "maze512-8-8"};

std::string bundled(const std::string& name) { return test::source_dir() + "/assets/maps/movingai/" + name; }

TEST(NavMaps, ScenarioFilesAreReadAndRefused) {
  std::vector<Scenario> got;
  ASSERT_TRUE(read_moving_ai_scenarios("version 1\r\n3\tmaps/a.map\t8\t6\t0\t5\t7\t0\t9.89949494\r\n"
                                       "0 b.map 8 6 1 1 1 1 0\n\n",
                                       got)
                  .ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].bucket, 3);
  EXPECT_EQ(got[0].map, "maps/a.map");
  EXPECT_EQ(got[0].width, 8);
  EXPECT_EQ(got[0].height, 6);
  EXPECT_TRUE((got[0].start == Cell{0, 5}));
  EXPECT_TRUE((got[0].goal == Cell{7, 0}));
  EXPECT_EQ(got[0].optimal, 9.89949494);
  EXPECT_EQ(got[0].decimals, 8);
  EXPECT_EQ(got[1].optimal, 0.0);
  EXPECT_EQ(got[1].decimals, 0);
  const char* const bad[] = {
      "",
      "version 2\n",
      "version 1\n1 a.map 8 6 0 5 7 0\n",                             // eight fields
      "version 1\n1 a.map 8 6 0 5 7 0 3 9\n",                         // ten
      "version 1\n1 a.map 8 6 0 6 7 0 3\n",                           // start outside
      "version 1\n1 a.map 8 6 0 5 8 0 3\n",                           // goal outside
      "version 1\n1 a.map 0 6 0 0 0 0 3\n",                           // no width
      "version 1\n1 a.map 5000 6 0 0 0 0 3\n",                        // too wide
      "version 1\n1 a.map 8 6 0 5 7 0 1e3\n",                         // not a plain decimal
      "version 1\n1 a.map 8 6 0 5 7 0 -3\n",                          // negative
      "version 1\n1 a.map 8 6 0 5 7 0 .5\n",                          // no whole part
      "version 1\n1 a.map 8 6 0 5 7 0 5.\n",                          // no fraction
      "version 1\n-1 a.map 8 6 0 5 7 0 5\n",                          // negative bucket
      "version 1\n1 a.map 8 6 0x1 5 7 0 5\n",                         // hex
      "version 1\n1 a.map 8 6 0 5 7 0 5\n\n1 a.map 8 6 0 5 7 0 5\n",  // a problem after a blank line
  };
  for (const char* text : bad) {
    got.assign(1, Scenario{});
    got[0].bucket = 77;
    const Status st = read_moving_ai_scenarios(text, got);
    EXPECT_EQ(st.code(), StatusCode::InvalidArgument) << text;
    EXPECT_NE(st.message().find("Moving AI scenarios, line"), std::string::npos) << st.message();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].bucket, 77);
  }
}

// 12 problems spread over each file (its buckets, short to long), one field a goal on the CPU's threads:
// the start's distance is the optimal length the file gives, to its rounding (half a unit of its last
// digit, plus the float's own rounding); a length of 0 between distinct cells (no path) is +infinity.
TEST(NavMaps, EveryBundledMapGivesItsScenariosOptimalLengths) {
  for (const std::string name : kMaps) {
    SCOPED_TRACE(name);
    std::string text, scen_text;
    ASSERT_EQ(demos::read_file(bundled(name + ".map.gz"), text), "");
    ASSERT_EQ(demos::read_file(bundled(name + ".map.scen.gz"), scen_text), "");
    Grid g;
    ASSERT_TRUE(read_moving_ai(text, g).ok());
    std::vector<Scenario> scen;
    ASSERT_TRUE(read_moving_ai_scenarios(scen_text, scen).ok());
    ASSERT_GE(scen.size(), 12u);
    std::vector<Scenario> picked;
    for (std::size_t i = 0; i < 12; ++i) picked.push_back(scen[(scen.size() - 1) * i / 11]);
    std::vector<Cell> goals;
    for (const Scenario& s : picked) {
      ASSERT_EQ(s.width, g.width);
      ASSERT_EQ(s.height, g.height);
      ASSERT_TRUE(g.passable(s.start.x, s.start.y));
      goals.push_back(s.goal);
    }
    std::vector<float> dist(goals.size() * g.cells());
    ASSERT_TRUE(distance_fields(test::cpu_context(), g, goals, dist, {}, nullptr, NavVariant::Cpu).ok());
    for (std::size_t i = 0; i < picked.size(); ++i) {
      const Scenario& s = picked[i];
      const double got = dist[i * g.cells() + g.index(s.start.x, s.start.y)];
      if (s.optimal == 0 && !(s.start == s.goal)) {
        EXPECT_EQ(got, std::numeric_limits<double>::infinity()) << "bucket " << s.bucket;
        continue;
      }
      EXPECT_NEAR(got, s.optimal, 0.5 * std::pow(10.0, -s.decimals) + 1e-7 * s.optimal)
          << "bucket " << s.bucket << " (" << s.start.x << ", " << s.start.y << ") -> (" << s.goal.x << ", " << s.goal.y
          << ")";
    }
  }
}

}  // namespace
}  // namespace warpmind::nav
