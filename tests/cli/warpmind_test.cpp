// warpmind, the command-line program, as a user runs it: every subcommand (field, crowd, aoi, ddm) writes
// its outputs and JSON summaries, exits 2 on bad input, takes --threads; the crowd's and the region
// matcher's files held against the brute-force oracles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"

#include "aoi_oracle.h"
#include "crowd_oracle.h"
#include "ddm_oracle.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/nav/nav.h"
#include "warpmind/ddm/ddm.h"

namespace {

using namespace warpmind::test::cli;

TEST(Cli, FieldWritesPngRawAndJson) {
  const fs::path png = scratch("f.png"), raw = scratch("f.f32");
  const Outcome r = run("warpmind field --backend cpu --resolution 96x64 --count 30 --radius 12 --png " + png.string() +
                        " --raw " + raw.string() + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(is_png(png));
  EXPECT_EQ(fs::file_size(raw), 96u * 64u * 4u);
  EXPECT_NE(r.out.find("\"command\":\"field\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"hash\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"variant\":\"cpu-stamp\""), std::string::npos);
}

TEST(Cli, FieldScenarioWritesOnePngPerLayer) {
  const fs::path png = scratch("demo.png");
  const Outcome r = run("warpmind field --backend cpu --scenario " + warpmind::test::source_dir() +
                        "/assets/scenarios/field_demo.json --png " + png.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* layer : {"team0", "team1", "navigation"})
    EXPECT_TRUE(is_png(scratch(std::string("demo-") + layer + ".png"))) << layer;
  EXPECT_NE(r.out.find("layer team0"), std::string::npos) << r.out;
}

TEST(Cli, BadInputExitsWithTwo) {
  EXPECT_EQ(run("warpmind field --resolution 0").status, 2);
  EXPECT_EQ(run("warpmind field --resolution 12x").status, 2);
  EXPECT_EQ(run("warpmind field --count -3").status, 2);
  EXPECT_EQ(run("warpmind field --variant gpu-fastest").status, 2);
  EXPECT_EQ(run("warpmind field --frobnicate").status, 2);
  EXPECT_EQ(run("warpmind field --scenario /nonexistent.json").status, 2);
  EXPECT_EQ(run("warpmind field --scenario x.json --count 3").status, 2);
  EXPECT_EQ(run("warpmind nosuchcommand").status, 2);
  EXPECT_EQ(run("warpmind field --help").status, 0);
  EXPECT_EQ(run("warpmind --help").status, 0);
  if (!warpmind::test::cuda_context()) {
    EXPECT_EQ(run("warpmind field --backend cuda --resolution 8").status, 2);
    EXPECT_EQ(run("warpmind field --backend cpu --variant gpu-binned --resolution 8").status, 2);
  }
}

TEST(Cli, CrowdVerifiesAndReportsJson) {
  const Outcome r = run("warpmind crowd --backend cpu --agents 3000 --steps 5 --verify --json");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* key : {"\"command\":\"crowd\"", "\"overlaps\":0", "\"violations\":0",
                          "\"accepted\":", "\"ms_per_step\":", "\"verified\":true"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  EXPECT_EQ(run("warpmind crowd --agents -1").status, 2);
  EXPECT_EQ(run("warpmind crowd --rule fair").status, 2);
  EXPECT_EQ(run("warpmind crowd --variant gpu-magic").status, 2);
  EXPECT_EQ(run("warpmind crowd --spacing 0.5").status, 2);
  EXPECT_EQ(run("warpmind crowd --help").status, 0);
  const Outcome sc = run("warpmind crowd --backend cpu --steps 20 --verify --json --scenario " +
                         warpmind::test::source_dir() + "/assets/scenarios/crowd_demo.json");
  ASSERT_EQ(sc.status, 0) << sc.out;
  EXPECT_NE(sc.out.find("\"rule\":\"lowest-id\""), std::string::npos) << sc.out;
  EXPECT_EQ(run("warpmind crowd --scenario /nonexistent.json").status, 2);
  EXPECT_EQ(run("warpmind crowd --scenario x.json --agents 5").status, 2);
  const fs::path out = scratch("crowd.json");
  ASSERT_EQ(run("warpmind-bench crowd --quick --backend cpu --ticks 3 --out " + out.string()).status, 0);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("\"suite\": \"crowd\""), std::string::npos);
  EXPECT_NE(ss.str().find("\"overlaps\": 0"), std::string::npos);
}

TEST(Cli, AoiRunsGeneratedAndScenarioWorlds) {
  const fs::path notes = scratch("aoi-notes.csv");
  const Outcome r =
      run("warpmind aoi --clients 3000 --map 300 --ticks 3 --backend cpu --json --notifications " + notes.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* key : {"\"command\":\"aoi\"", "\"clients\":3000", "\"variant\":\"cpu-fast\"", "\"notifications\":"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  std::ifstream in(notes);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "receiver,subject,field,value");
  const Outcome s = run("warpmind aoi --scenario " + warpmind::test::source_dir() +
                        "/assets/scenarios/aoi_demo.json --ticks 1 --variant cpu-grid --backend cpu");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("10000 clients"), std::string::npos) << s.out;
  EXPECT_EQ(run("warpmind aoi --shape hexagon").status, 2);
  EXPECT_EQ(run("warpmind aoi --variant gpu-nothing").status, 2);
  EXPECT_EQ(run("warpmind aoi --scenario /nonexistent.json").status, 2);
  EXPECT_EQ(run("warpmind aoi --scenario x.json --clients 5").status, 2);
}

TEST(Cli, DdmMatchesGeneratedAndScenarioRegions) {
  const Outcome r = run("warpmind ddm --regions 4000 --size 100 --steps 3 --backend cpu --json");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* key : {"\"command\":\"ddm\"", "\"regions\":4000", "\"variant\":\"cpu-sort\"", "\"appeared\":"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  const Outcome b = run("warpmind ddm --regions 4000 --size 100 --steps 3 --backend cpu --json --variant cpu-brute");
  ASSERT_EQ(b.status, 0) << b.out;
  const auto field = [](const std::string& j, const std::string& key) {
    const auto at = j.find("\"" + key + "\":");
    return at == std::string::npos ? std::string("?") : j.substr(at, j.find(',', at) - at);
  };
  for (const char* key : {"pairs", "appeared", "disappeared", "pairs_after"})
    EXPECT_EQ(field(r.out, key), field(b.out, key));  // both variants agree
  const Outcome s =
      run("warpmind ddm --scenario " + warpmind::test::source_dir() + "/assets/scenarios/ddm_demo.json --backend cpu");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("20000 regions"), std::string::npos) << s.out;
  EXPECT_EQ(run("warpmind ddm --distribution clumps").status, 2);
  EXPECT_EQ(run("warpmind ddm --dimensions 4").status, 2);
  EXPECT_EQ(run("warpmind ddm --scenario /nonexistent.json").status, 2);
}

TEST(Cli, ThreadsZeroMeansOnePerHardwareThread) {
  const long long hw = std::max(1u, std::thread::hardware_concurrency());
  const std::string small[] = {"warpmind field --backend cpu --resolution 16 --count 3",
                               "warpmind crowd --backend cpu --agents 20 --steps 1",
                               "warpmind aoi --backend cpu --clients 20 --map 100 --ticks 1",
                               "warpmind ddm --backend cpu --regions 20 --steps 1"};
  for (const std::string& cmd : small) {
    SCOPED_TRACE(cmd);
    const Outcome zero = run(cmd + " --threads 0 --json");
    ASSERT_EQ(zero.status, 0) << zero.out;
    EXPECT_EQ(json_int(zero.out, "threads"), hw) << zero.out;
    const Outcome dflt = run(cmd + " --json");
    EXPECT_EQ(json_int(dflt.out, "threads"), hw) << dflt.out;
    const Outcome three = run(cmd + " --threads 3 --json");
    EXPECT_EQ(json_int(three.out, "threads"), 3) << three.out;
    const FullOutcome big = run_full(cmd + " --threads 1025");
    EXPECT_EQ(big.status, 2);
    EXPECT_NE(big.err.find("--threads: expected an integer in 0..1024"), std::string::npos) << big.err;
    EXPECT_EQ(run(cmd + " --threads -1").status, 2);
  }
}

// ---- crowd: --moves, --positions, --ticks against the brute-force oracle -------------------------

struct CrowdRun {
  std::vector<warpmind::Vec2> final_positions;
  std::vector<std::array<std::size_t, 5>> per_tick;  // moved, stayed, out_of_world, blocked, collisions
};

// Runs the oracle's verdicts tick by tick; propose(t, pos) gives the proposals.
template <class Propose>
CrowdRun crowd_oracle_run(const warpmind::crowd::CrowdConfig& c, std::vector<warpmind::Vec2> pos, int ticks,
                          Propose&& propose) {
  CrowdRun r;
  for (int t = 0; t < ticks; ++t) {
    const std::vector<warpmind::Vec2> prop = propose(t, pos);
    const auto v = warpmind::oracle::crowd_verdicts(c, pos, prop);
    std::array<std::size_t, 5> n{};
    for (std::size_t i = 0; i < pos.size(); ++i) {
      ++n[static_cast<int>(v[i])];
      if (v[i] == warpmind::crowd::Verdict::Moved) pos[i] = prop[i];
    }
    r.per_tick.push_back(n);
  }
  r.final_positions = pos;
  return r;
}

// "ID X Y" lines, ids in order from 0; the floats read back exactly.
std::vector<warpmind::Vec2> read_positions(const fs::path& p) {
  std::vector<warpmind::Vec2> out;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::size_t id = 0;
    std::string x, y, extra;
    f >> id >> x >> y;
    EXPECT_FALSE(f >> extra) << line;
    EXPECT_EQ(id, out.size()) << line;
    out.push_back({std::strtof(x.c_str(), nullptr), std::strtof(y.c_str(), nullptr)});
  }
  return out;
}

// The --ticks CSV: the five counts, then too_far and left (always 0 here: no maximum step, no exits).
std::string tick_csv(const std::vector<std::array<std::size_t, 5>>& per_tick) {
  std::string s = "tick,moved,stayed,out_of_world,blocked,collisions,too_far,left\n";
  for (std::size_t t = 0; t < per_tick.size(); ++t) {
    s += std::to_string(t);
    for (std::size_t k : per_tick[t]) {
      s += ',';
      s += std::to_string(k);
    }
    s += ",0,0";
    s += '\n';
  }
  return s;
}

bool same_bits(const std::vector<warpmind::Vec2>& a, const std::vector<warpmind::Vec2>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(warpmind::Vec2)) != 0) return false;
  return true;
}

// A small world with a wall: 20 x 10, obstacle cells of 1 x 1, column 10 blocked but for row 5.
constexpr const char* kCrowdWorld =
    R"("world": {"x0": 0, "y0": 0, "width": 20, "height": 10}, "radius": 0.5,
       "obstacles": {"width": 20, "height": 10,
                     "blocked": [[10, 0], [10, 1], [10, 2], [10, 3], [10, 4], [10, 6], [10, 7], [10, 8], [10, 9]]},
       "agents": [{"x": 1, "y": 1}, {"x": 3, "y": 1}, {"x": 5.5, "y": 5}, {"x": 8.25, "y": 5.5},
                  {"x": 12, "y": 2}, {"x": 19.5, "y": 9.5}, {"x": 2, "y": 8}, {"x": 7, "y": 2.5}])";

warpmind::crowd::CrowdConfig crowd_world_config(warpmind::crowd::CrowdRule rule) {
  warpmind::crowd::CrowdConfig c;
  c.world = {0, 0, 20, 10};
  c.radius = 0.5f;
  c.rule = rule;
  c.obstacles.width = 20;
  c.obstacles.height = 10;
  c.obstacles.blocked.assign(200, 0);
  for (int y = 0; y < 10; ++y) c.obstacles.blocked[y * 20 + 10] = y != 5;
  return c;
}

const std::vector<warpmind::Vec2> kCrowdStart = {{1, 1},  {3, 1},        {5.5f, 5}, {8.25f, 5.5f},
                                                 {12, 2}, {19.5f, 9.5f}, {2, 8},    {7, 2.5f}};

TEST(Cli, CrowdMovesFileRunsAndItsOutputsMatchTheOracle) {
  using warpmind::Vec2;
  using warpmind::crowd::CrowdRule;
  const fs::path scenario = scratch("crowd-moves.json"), moves = scratch("crowd-moves.txt");
  std::ofstream(scenario) << "{" << kCrowdWorld << R"(, "rule": "lowest-id"})";
  // tick agent x y: conflicts, a blocked cell, the world's edge, a gap in the wall, an agent moving twice.
  struct Line {
    int tick, agent;
    float x, y;
  };
  const std::vector<Line> lines = {
      {0, 0, 2.0f, 1.0f},
      {0, 1, 2.5f, 1.5f},  // two targets 0.71 apart: a conflict
      {0, 2, 9.5f, 5.0f},
      {0, 3, 10.5f, 5.5f},  // 3 through the gap; 2 to 3's old spot (collision)
      {0, 4, 10.5f, 2.0f},  // into the wall: blocked
      {0, 5, 20.0f, 9.5f},  // x = x0 + width: out of the world
      {1, 2, 9.25f, 5.0f},
      {1, 3, 11.0f, 5.5f},  // 2 follows into 3's spot of tick 0, 3 moves on
      {1, 6, 2.0f, 8.0f},   // its own position: stayed
      {2, 7, 6.999999f, 2.4999999f},
      {2, 5, 19.999998f, 9.999999f},  // just inside the upper edges
      {3, 0, 0.0f, 0.0f},             // the lower corner is inside
  };
  {
    std::ofstream m(moves);
    m << "# tick agent x y\n\n";
    for (const Line& l : lines) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%d %d %.9g %.9g   # a comment\n", l.tick, l.agent, l.x, l.y);
      m << buf;
    }
  }
  const auto propose = [&](int t, const std::vector<Vec2>& pos) {
    std::vector<Vec2> p = pos;  // no line: propose to stay
    for (const Line& l : lines)
      if (l.tick == t) p[static_cast<std::size_t>(l.agent)] = {l.x, l.y};
    return p;
  };
  for (const char* rule : {"", "strict"}) {  // the scenario's rule, then --rule overriding it
    SCOPED_TRACE(*rule ? rule : "scenario rule");
    const CrowdRule r = *rule ? CrowdRule::Strict : CrowdRule::LowestIdWins;
    const CrowdRun want = crowd_oracle_run(crowd_world_config(r), kCrowdStart, 4, propose);
    const fs::path pos = scratch("crowd-moves-pos.txt"), ticks = scratch("crowd-moves-ticks.csv");
    const Outcome o = run("warpmind crowd --backend cpu --verify --json --scenario " + scenario.string() + " --moves " +
                          moves.string() + " --positions " + pos.string() + " --ticks " + ticks.string() +
                          (*rule ? std::string(" --rule ") + rule : std::string()));
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_NE(o.out.find(std::string("\"rule\":\"") + (*rule ? "strict" : "lowest-id") + "\""), std::string::npos)
        << o.out;
    EXPECT_EQ(json_int(o.out, "steps"), 4) << o.out;  // one more than the last tick in the file
    std::size_t moved = 0;
    for (const auto& n : want.per_tick) moved += n[0];
    EXPECT_EQ(json_int(o.out, "accepted"), static_cast<long long>(moved)) << o.out;
    EXPECT_EQ(slurp(ticks), tick_csv(want.per_tick));
    const std::vector<Vec2> got = read_positions(pos);
    EXPECT_TRUE(same_bits(got, want.final_positions));
    // The run exercised every verdict.
    std::array<std::size_t, 5> all{};
    for (const auto& n : want.per_tick)
      for (int k = 0; k < 5; ++k) all[k] += n[k];
    for (int k = 0; k < 5; ++k) EXPECT_GT(all[k], 0u) << "verdict " << k;
  }
  // The two rules differ on tick 0's conflict (agent 0 wins it under lowest-id), so the override shows.
  EXPECT_NE(tick_csv(crowd_oracle_run(crowd_world_config(CrowdRule::Strict), kCrowdStart, 4, propose).per_tick),
            tick_csv(crowd_oracle_run(crowd_world_config(CrowdRule::LowestIdWins), kCrowdStart, 4, propose).per_tick));
  // --steps longer than the file: the extra ticks propose to stay.
  const fs::path pos = scratch("crowd-moves-pos6.txt"), ticks = scratch("crowd-moves-ticks6.csv");
  ASSERT_EQ(run("warpmind crowd --backend cpu --scenario " + scenario.string() + " --moves " + moves.string() +
                " --steps 6 --positions " + pos.string() + " --ticks " + ticks.string())
                .status,
            0);
  const CrowdRun six = crowd_oracle_run(crowd_world_config(CrowdRule::LowestIdWins), kCrowdStart, 6, propose);
  EXPECT_EQ(slurp(ticks), tick_csv(six.per_tick));
  EXPECT_EQ(six.per_tick[5][1], kCrowdStart.size());  // everyone stayed
  EXPECT_TRUE(same_bits(read_positions(pos), six.final_positions));
}

TEST(Cli, CrowdScenarioMovesMatchTheDocumentedFormulas) {
  // Random moves: per axis p + (-step + 2 step u), u from SplitMix64(seed ^ i * golden ^ tick << 40);
  // goal moves: the goal when within a step, else p + d * (step / |d|). Verdicts from the oracle.
  using warpmind::Vec2;
  const auto splitmix = [](std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const auto random_moves = [&](int t, const std::vector<Vec2>& pos) {
    std::vector<Vec2> p(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
      std::uint64_t s = 77 ^ (i * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(t) << 40);
      const float ux = static_cast<float>(splitmix(s) >> 40) * (1.0f / 16777216.0f);
      const float uy = static_cast<float>(splitmix(s) >> 40) * (1.0f / 16777216.0f);
      p[i] = {pos[i].x + (-0.75f + 1.5f * ux), pos[i].y + (-0.75f + 1.5f * uy)};
    }
    return p;
  };
  const Vec2 goal{15.5f, 5.25f};
  const auto goal_moves = [&](int, const std::vector<Vec2>& pos) {
    std::vector<Vec2> p(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const float dx = goal.x - pos[i].x, dy = goal.y - pos[i].y, d = std::sqrt(dx * dx + dy * dy);
      p[i] = d <= 1.25f ? goal : Vec2{pos[i].x + dx * (1.25f / d), pos[i].y + dy * (1.25f / d)};
    }
    return p;
  };
  const auto check = [&](const std::string& moves_json, auto&& propose, int ticks,
                         warpmind::crowd::CrowdRule rule) -> CrowdRun {
    SCOPED_TRACE(moves_json);
    const fs::path scenario = scratch("crowd-gen.json"), pos = scratch("crowd-gen-pos.txt"),
                   csv = scratch("crowd-gen.csv");
    std::ofstream(scenario) << "{" << kCrowdWorld << ", \"moves\": " << moves_json << ", \"rule\": \""
                            << warpmind::crowd::rule_name(rule) << "\"}";
    const Outcome o = run("warpmind crowd --backend cpu --scenario " + scenario.string() + " --steps " +
                          std::to_string(ticks) + " --positions " + pos.string() + " --ticks " + csv.string());
    EXPECT_EQ(o.status, 0) << o.out;
    const CrowdRun want = crowd_oracle_run(crowd_world_config(rule), kCrowdStart, ticks, propose);
    EXPECT_EQ(slurp(csv), tick_csv(want.per_tick));
    EXPECT_TRUE(same_bits(read_positions(pos), want.final_positions));
    return want;
  };
  check(R"({"kind": "random", "step": 0.75, "seed": 77})", random_moves, 12, warpmind::crowd::CrowdRule::Strict);
  check(R"({"kind": "goal", "step": 1.25, "goal": {"x": 15.5, "y": 5.25}})", goal_moves, 30,
        warpmind::crowd::CrowdRule::Strict);
  // Under lowest-id the first arrival is not stalled by the others heading for the same spot: someone
  // stands exactly on the goal at the end.
  const CrowdRun g = check(R"({"kind": "goal", "step": 1.25, "goal": {"x": 15.5, "y": 5.25}})", goal_moves, 30,
                           warpmind::crowd::CrowdRule::LowestIdWins);
  bool on_goal = false;
  for (const Vec2& p : g.final_positions) on_goal = on_goal || (p.x == goal.x && p.y == goal.y);
  EXPECT_TRUE(on_goal);
}

TEST(Cli, CrowdBadMovesFilesExitTwoNamingTheLine) {
  const fs::path scenario = scratch("crowd-bad.json"), moves = scratch("crowd-bad-moves.txt");
  std::ofstream(scenario) << "{" << kCrowdWorld << "}";  // 8 agents
  const std::pair<const char*, const char*> bad[] = {
      {"0 0 1 1\n0 1 2\n", ":2: expected 'TICK AGENT X Y', got 3 field(s)"},
      {"# c\n0 0 1 1 1\n", ":2: expected 'TICK AGENT X Y', got 5 field(s)"},
      {"0 8 1 1\n", ":1: agent '8': expected an agent id in 0..7"},
      {"0 -1 1 1\n", ":1: agent '-1': expected an agent id in 0..7"},
      {"x 0 1 1\n", ":1: tick 'x': expected an integer in 0..999999"},
      {"1000000 0 1 1\n", ":1: tick '1000000': expected an integer in 0..999999"},
      {"0 0 nan 1\n", ":1: x 'nan': expected a finite number"},
      {"0 0 1 inf\n", ":1: y 'inf': expected a finite number"},
      {"0 0 1 1e39\n", ":1: y '1e39': expected a finite number"},
      {"0 0 1 2x\n", ":1: y '2x': expected a finite number"},
      {"0 3 1 1\n1 3 1 1\n\n0 3 2 2\n", ":4: agent 3 already has a move in tick 0 (line 1)"},
  };
  for (const auto& [text, want] : bad) {
    SCOPED_TRACE(text);
    std::ofstream(moves) << text;
    const FullOutcome o =
        run_full("warpmind crowd --backend cpu --scenario " + scenario.string() + " --moves " + moves.string());
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, "warpmind crowd: " + moves.string() + want + "\n");
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  std::ofstream(moves) << "3 0 1 1\n";
  FullOutcome o = run_full("warpmind crowd --backend cpu --scenario " + scenario.string() + " --moves " +
                           moves.string() + " --steps 3");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "warpmind crowd: " + moves.string() + ":1: tick 3 is past the last tick (--steps 3 runs ticks 0..2)\n");
  o = run_full("warpmind crowd --backend cpu --scenario " + scenario.string() + " --moves /nonexistent/m.txt");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "warpmind crowd: /nonexistent/m.txt: cannot open file\n");
  EXPECT_EQ(run("warpmind crowd --agents 10 --moves " + moves.string() + " --step-size 1").status, 2);
  EXPECT_EQ(run("warpmind crowd --scenario " + scenario.string() + " --seed 3").status, 2);  // the scenario has its own
  EXPECT_EQ(run("warpmind crowd --backend cpu --agents 10 --steps 1 --positions /nonexistent/p.txt").status, 2);
  // An empty moves file: no ticks.
  std::ofstream(moves) << "# nothing\n";
  const fs::path pos = scratch("crowd-empty-pos.txt");
  const Outcome e = run("warpmind crowd --backend cpu --json --scenario " + scenario.string() + " --moves " +
                        moves.string() + " --positions " + pos.string());
  ASSERT_EQ(e.status, 0);
  EXPECT_EQ(json_int(e.out, "steps"), 0);
  EXPECT_TRUE(same_bits(read_positions(pos), kCrowdStart));  // the start, exactly
}

TEST(Cli, AoiJsonCountsAreTotalsOverAllTicks) {
  // The program's world and commands (generate_players / make_commands are its inputs), each tick run
  // through the brute-force oracle and the counts summed.
  using namespace warpmind::aoi;
  for (const char* shape : {"square", "circle"}) {
    SCOPED_TRACE(shape);
    AoiConfig c;
    c.world = {0, 0, 60, 60};
    c.aoi = c.max_move = c.attack_range = 7.5f;
    c.shape = std::string(shape) == "circle" ? AoiShape::Circle : AoiShape::Square;
    std::vector<Player> p = generate_players(80, c.world, 0, 4);
    CommandSpec spec;
    spec.seed = 4;
    spec.attack_share = 0.3f;
    warpmind::oracle::AoiVisible visible = warpmind::oracle::aoi_visibility(c, p);
    std::size_t accepted = 0, rejected = 0, updates = 0, notes = 0, entered = 0, left = 0;
    std::vector<Command> cmds;
    TickResult last;
    for (int t = 0; t < 3; ++t) {
      make_commands(spec, c, warpmind::test::cpu_context().pool(), p.size(), static_cast<std::uint64_t>(t), cmds);
      const TickResult r = warpmind::oracle::aoi_tick(c, p, cmds, visible);
      accepted += r.accepted;
      for (std::size_t k : r.rejected) rejected += k;
      updates += r.updates.size();
      notes += r.notifications.size();
      entered += r.entered.size();
      left += r.left.size();
      last = r;
    }
    const fs::path csv = scratch(std::string("aoi-totals-") + shape + ".csv");
    const Outcome o = run(std::string("warpmind aoi --backend cpu --clients 80 --map 60 --aoi 7.5 --attack-share 0.3 "
                                      "--seed 4 --ticks 3 --json --shape ") +
                          shape + " --notifications " + csv.string());
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(json_int(o.out, "accepted"), static_cast<long long>(accepted)) << o.out;
    EXPECT_EQ(json_int(o.out, "rejected"), static_cast<long long>(rejected)) << o.out;
    EXPECT_EQ(json_int(o.out, "updates"), static_cast<long long>(updates)) << o.out;
    EXPECT_EQ(json_int(o.out, "notifications"), static_cast<long long>(notes)) << o.out;
    EXPECT_EQ(json_int(o.out, "entered"), static_cast<long long>(entered)) << o.out;
    EXPECT_EQ(json_int(o.out, "left"), static_cast<long long>(left)) << o.out;
    EXPECT_GT(notes, last.notifications.size());  // totals, not the last tick's
    EXPECT_GT(entered + left, 0u);
    // --notifications holds the last tick's only: header plus one line per notification.
    const std::string text = slurp(csv);
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), last.notifications.size() + 1);
  }
}

// ---- ddm: --pairs against the brute-force oracle -----------------------------------------------------

TEST(Cli, DdmPairsFileIsTheMatchAfterTheLastStep) {
  // Regions written to a scenario; the seed's moves rewritten here from the documented formula (every
  // region moves half its side in a compass direction from SplitMix64(seed ^ i * golden ^ step << 40));
  // the final pairs from the oracle.
  using namespace warpmind::ddm;
  const auto splitmix = [](std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::vector<RegionKind> kind;
  std::vector<Box<2>> box;
  std::uint64_t g = 5;
  std::string json = R"({"steps": 4, "seed": 21, "regions": [)";
  for (int i = 0; i < 120; ++i) {
    const float x = static_cast<float>(splitmix(g) % 400) * 0.25f, y = static_cast<float>(splitmix(g) % 400) * 0.25f;
    const float w = 1.0f + static_cast<float>(splitmix(g) % 24) * 0.5f;
    const float h = i % 17 == 0 ? 0.0f : 1.0f + static_cast<float>(splitmix(g) % 24) * 0.5f;  // some empty boxes
    kind.push_back(i % 3 == 0 ? RegionKind::Subscription : RegionKind::Publication);
    box.push_back({{x, y}, {x + w, y + h}});
    char buf[160];
    std::snprintf(buf, sizeof buf, R"(%s{"kind": "%s", "lo": [%.9g, %.9g], "hi": [%.9g, %.9g]})", i ? ", " : "",
                  kind.back() == RegionKind::Publication ? "publication" : "subscription", x, y, x + w, y + h);
    json += buf;
  }
  json += "]}";
  const fs::path scenario = scratch("ddm-pairs.json");
  std::ofstream(scenario) << json;
  const auto moved = [&](int steps) {
    std::vector<Box<2>> b = box;
    const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dy[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    for (int step = 0; step < steps; ++step)
      for (std::size_t i = 0; i < b.size(); ++i) {
        std::uint64_t s = 21 ^ (i * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(step) << 40);
        const int dir = static_cast<int>(splitmix(s) % 8);
        const float hx = 0.5f * (b[i].hi[0] - b[i].lo[0]) * static_cast<float>(dx[dir]);
        const float hy = 0.5f * (b[i].hi[1] - b[i].lo[1]) * static_cast<float>(dy[dir]);
        b[i].lo[0] += hx, b[i].hi[0] += hx, b[i].lo[1] += hy, b[i].hi[1] += hy;
      }
    return b;
  };
  const auto pairs_text = [&](const std::vector<Box<2>>& b) {
    std::string t;
    for (const Pair& q : warpmind::oracle::ddm_pairs<2>(kind, b, {}))
      t += std::to_string(q.publication) + " " + std::to_string(q.subscription) + "\n";
    return t;
  };
  for (const char* variant : {"cpu-sort", "cpu-brute"}) {
    SCOPED_TRACE(variant);
    const fs::path out = scratch("ddm-pairs.txt");
    // The scenario's 4 steps.
    Outcome o = run(std::string("warpmind ddm --backend cpu --json --variant ") + variant + " --scenario " +
                    scenario.string() + " --pairs " + out.string());
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(json_int(o.out, "steps"), 4) << o.out;
    const std::string after4 = pairs_text(moved(4));
    EXPECT_EQ(slurp(out), after4);
    EXPECT_EQ(json_int(o.out, "pairs_after"), static_cast<long long>(std::count(after4.begin(), after4.end(), '\n')));
    // --steps wins over the file's "steps".
    o = run(std::string("warpmind ddm --backend cpu --json --variant ") + variant + " --scenario " + scenario.string() +
            " --steps 0 --pairs " + out.string());
    ASSERT_EQ(o.status, 0) << o.out;
    EXPECT_EQ(json_int(o.out, "steps"), 0) << o.out;
    const std::string start = pairs_text(box);
    EXPECT_EQ(slurp(out), start);
    EXPECT_EQ(json_int(o.out, "pairs"), static_cast<long long>(std::count(start.begin(), start.end(), '\n')));
    EXPECT_GT(start.size(), 50u);  // a few dozen pairs at least
    EXPECT_NE(start, after4);
  }
  EXPECT_EQ(run("warpmind ddm --backend cpu --scenario " + scenario.string() + " --pairs /nonexistent/p.txt").status,
            2);
  EXPECT_EQ(run("warpmind ddm --backend cpu --scenario " + scenario.string() + " --seed 4").status, 2);
  EXPECT_EQ(run("warpmind aoi --backend cpu --scenario " + warpmind::test::source_dir() +
                "/assets/scenarios/aoi_demo.json --seed 4")
                .status,
            2);
  // Generated regions: even ids publications, odd subscriptions.
  const fs::path gen = scratch("ddm-gen-pairs.txt");
  ASSERT_EQ(run("warpmind ddm --backend cpu --regions 400 --alpha 20 --steps 1 --pairs " + gen.string()).status, 0);
  std::istringstream lines(slurp(gen));
  unsigned pub = 0, sub = 0;
  std::size_t n = 0;
  while (lines >> pub >> sub) {
    EXPECT_EQ(pub % 2, 0u);
    EXPECT_EQ(sub % 2, 1u);
    ++n;
  }
  EXPECT_GT(n, 0u);
}

// ---- nav: the fields written as documented, equal to the library's; bad input refused ------------------
TEST(Cli, NavWritesTheFieldsOfAMovingAiMap) {
  const fs::path map = scratch("nav.map"), out = scratch("nav.f32"), dirs = scratch("nav.dir"),
                 back = scratch("nav-back.map");
  const std::string text = "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n";
  std::ofstream(map) << text;
  const Outcome r = run("warpmind nav --backend cpu --json --map " + map.string() + " --goal 0,0 --goal 3,2 --out " +
                        out.string() + " --directions " + dirs.string() + " --write-map " + back.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* key :
       {"\"command\":\"nav\"", "\"width\":4", "\"height\":3", "\"goals\":2", "\"reached\":20", "\"unreachable\":4"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  EXPECT_EQ(slurp(back), text);
  warpmind::nav::Grid g;
  ASSERT_TRUE(warpmind::nav::read_moving_ai(text, g).ok());
  std::vector<float> want(2 * g.cells());
  std::vector<std::int8_t> want_dir(want.size());
  const std::vector<warpmind::nav::Cell> goals = {{0, 0}, {3, 2}};
  ASSERT_TRUE(warpmind::nav::distance_fields(warpmind::test::cpu_context(), g, goals, want, want_dir).ok());
  const std::string got = slurp(out), got_dir = slurp(dirs);
  ASSERT_EQ(got.size(), want.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0);
  ASSERT_EQ(got_dir.size(), want_dir.size());
  EXPECT_EQ(std::memcmp(got_dir.data(), want_dir.data(), got_dir.size()), 0);
  EXPECT_EQ(want[g.index(3, 2)], 5.0f);  // around the wall from (0, 0): five straight steps, no corner cut
  const std::string m = " --backend cpu --map " + map.string();
  for (const std::string& bad : std::vector<std::string>{
           "warpmind nav --goal 0,0", "warpmind nav --map /nonexistent.map --goal 0,0", "warpmind nav" + m,
           "warpmind nav" + m + " --goal 1,1", "warpmind nav" + m + " --goal 9,0", "warpmind nav" + m + " --goal 1",
           "warpmind nav" + m + " --goal a,b"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(run(bad).status, 2);
  }
  std::ofstream(map, std::ios::trunc) << "type octile\nheight 2\nwidth 2\nmap\n..\n.\n";
  const FullOutcome broken = run_full("warpmind nav --backend cpu --map " + map.string() + " --goal 0,0");
  EXPECT_EQ(broken.status, 2);
  EXPECT_NE(broken.err.find("line 6"), std::string::npos) << broken.err;
}

// The bundled 4096 x 4096 maps (assets/maps/KIND-4096.map.gz, gzip-compressed) are the generator's at
// seed 1: read through --map and written back, they are the map --generate writes. A gzip file cut short
// is refused with the reason.
TEST(Cli, NavReadsTheBundledCompressedMaps) {
  for (const char* kind : {"open", "rooms", "maze"}) {
    SCOPED_TRACE(kind);
    const fs::path read = scratch(std::string("read-") + kind + ".map"),
                   made = scratch(std::string("made-") + kind + ".map");
    const std::string bundled = warpmind::test::source_dir() + "/assets/maps/" + kind + "-4096.map.gz";
    ASSERT_EQ(run("warpmind nav --backend cpu --map " + bundled + " --write-map " + read.string()).status, 0);
    ASSERT_EQ(run(std::string("warpmind nav --backend cpu --generate ") + kind +
                  " --size 4096x4096 --seed 1 --write-map " + made.string())
                  .status,
              0);
    const std::string a = slurp(read), b = slurp(made);
    EXPECT_EQ(a.size(), b.size());
    EXPECT_TRUE(a == b);
  }
  const std::string whole = slurp(warpmind::test::source_dir() + "/assets/maps/rooms-4096.map.gz");
  const fs::path cut = scratch("cut.map.gz");
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  const FullOutcome r = run_full("warpmind nav --backend cpu --map " + cut.string() + " --goal 0,0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not a valid gzip file"), std::string::npos) << r.err;
}

}  // namespace
