// The programs as a user runs them: exit status 0 / 2, outputs written, JSON summaries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "gpu_helpers.h"
#include "warpmind/search/chess.h"

#if WARPMIND_ENGINE_TESTS
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#endif

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status;
  std::string out;
};

Outcome run(const std::string& args) {
  const fs::path tmp = fs::temp_directory_path() / ("wm_cli_" + std::to_string(::getpid()) + ".txt");
  const std::string cmd = warpmind::test::bin_dir() + "/" + args + " > " + tmp.string() + " 2>/dev/null";
  const int raw = std::system(cmd.c_str());
  std::ifstream in(tmp);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(tmp);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, ss.str()};
}

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wm_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

bool is_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char sig[8] = {};
  in.read(sig, 8);
  return in && std::string(sig + 1, 3) == "PNG" && fs::file_size(p) > 100;
}

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
  for (const char* key : {"\"command\":\"crowd\"", "\"overlaps\":0", "\"violations\":0", "\"accepted\":",
                          "\"ms_per_step\":", "\"verified\":true"})
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

#if WARPMIND_ENGINE_TESTS
TEST(Cli, DemoRendersHeadlessFrames) {
  const fs::path dir = scratch("demo");
  const Outcome r = run("warpmind-demo --headless --backend cpu --frames 3 --ticks-per-frame 4 --units 300 --size 256x256 --out " +
                        dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* f : {"frame-0000.png", "frame-0001.png", "frame-0002.png"}) EXPECT_TRUE(is_png(dir / f)) << f;
  // The last frame shows both armies and the heat map: count team-coloured pixels and heat-ramp pixels
  // (a blank or unit-less frame fails).
  int w = 0, h = 0, comp = 0;
  unsigned char* px = stbi_load((dir / "frame-0002.png").string().c_str(), &w, &h, &comp, 4);
  ASSERT_NE(px, nullptr);
  ASSERT_EQ(w, 256);
  int cyan = 0, pink = 0, warm = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    cyan += R < 100 && G > 170 && B > 200;
    pink += R > 200 && G < 150 && B > 200;
    warm += R > 120 && B < 80;  // the ramp's positive side (team 1 attracts team 0)
  }
  stbi_image_free(px);
  EXPECT_GT(cyan, 200);
  EXPECT_GT(pink, 200);
  EXPECT_GT(warm, 500);
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("\"overlaps\": 0"), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("\"ticks\": 12"), std::string::npos);
  EXPECT_EQ(run("warpmind-demo --headless --window").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --scene nowhere").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --units 0").status, 2);
}

#if WARPMIND_WINDOW_TESTS
TEST(Cli, DemoWindowUnderXvfb) {
  // The README's main command with a display: every scene opens a window, runs, and the screenshot of
  // its last frame shows something (pixel spread), with the validation layer quiet.
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run not installed (package xvfb)";
  for (const char* scene : {"battle", "crowd", "field", "aoi", "regions"}) {
    SCOPED_TRACE(scene);
    const fs::path dir = scratch(std::string("window-") + scene);
    const std::string cmd = "xvfb-run -a -s '-screen 0 800x600x24' env WARPMIND_VK_VALIDATION=1 " +
                            warpmind::test::bin_dir() + "/warpmind-demo --window --backend cpu --frames 12 --units 300 " +
                            "--size 640x480 --scene " + scene + " --out " + dir.string() + " > " + (dir / "log.txt").string() +
                            " 2>&1";
    fs::create_directories(dir);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << std::ifstream(dir / "log.txt").rdbuf();
    EXPECT_TRUE(is_png(dir / "screenshot-000.png"));
    std::ifstream in(dir / "stats.json");
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("\"mode\": \"window\""), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find("\"frames\": 12"), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find("\"validation_messages\": 0"), std::string::npos) << ss.str();
    EXPECT_GT(fs::file_size(dir / "screenshot-000.png"), 2000u);  // not a flat image
  }
}
#endif
#endif

TEST(Cli, AoiRunsGeneratedAndScenarioWorlds) {
  const fs::path notes = scratch("aoi-notes.csv");
  const Outcome r = run("warpmind aoi --clients 3000 --map 300 --ticks 3 --backend cpu --json --notifications " +
                        notes.string());
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
  const Outcome s = run("warpmind ddm --scenario " + warpmind::test::source_dir() + "/assets/scenarios/ddm_demo.json --backend cpu");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("20000 regions"), std::string::npos) << s.out;
  EXPECT_EQ(run("warpmind ddm --distribution clumps").status, 2);
  EXPECT_EQ(run("warpmind ddm --dimensions 4").status, 2);
  EXPECT_EQ(run("warpmind ddm --scenario /nonexistent.json").status, 2);
}

TEST(Cli, ChessEngineSpeaksUci) {
  const fs::path in = scratch("uci-in.txt");
  std::ofstream(in) << "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 4\n"
                       "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo nodes 5000\n"
                       "position startpos\ngo perft 3\n"
                       "position fen not a fen\nposition startpos moves e2e5\ngo bogus\nsetoption name Hash value x\n"
                       "setoption name Threads value 2\nposition startpos\ngo wtime 300 btime 300 winc 0 binc 0\nquit\n";
  const Outcome r = run("warpmind-chess < " + in.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* line : {"id name warpmind", "option name Hash type spin", "option name Threads", "uciok", "readyok",
                           "info depth 4 ", " score cp ", "bestmove a1a8", "score mate 1", "e2e4: 600", "Nodes searched: 8902",
                           "info string error: FEN", "info string error: move 'e2e5' is not legal",
                           "info string error: go: unknown parameter 'bogus'", "info string error: option Hash"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in:\n" << r.out;
  // Three searches, three best moves.
  std::size_t best = 0;
  for (std::size_t at = r.out.find("bestmove "); at != std::string::npos; at = r.out.find("bestmove ", at + 1)) ++best;
  EXPECT_EQ(best, 3u);
  // The node-based hybrid search through the same protocol.
  const fs::path hin = scratch("uci-hybrid.txt");
  std::ofstream(hin) << "setoption name Search value hybrid\nsetoption name Lmax value 64\n"
                        "setoption name FirstChildFirst value false\nsetoption name Bmin value x\n"
                        "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 2\n"
                        "ucinewgame\n"  // waits for the search (quit would stop it)
                        "position startpos\ngo infinite\nstop\nquit\n";
  const Outcome h = run("warpmind-chess < " + hin.string());
  ASSERT_EQ(h.status, 0) << h.out;
  for (const char* line : {"info string hybrid:", "score mate 1", "bestmove a1a8", "info string error: option Bmin"})
    EXPECT_NE(h.out.find(line), std::string::npos) << line << " in:\n" << h.out;
  const std::size_t second = h.out.find("bestmove ", h.out.find("bestmove a1a8") + 1);  // stop ends go infinite
  ASSERT_NE(second, std::string::npos) << h.out;
  using namespace warpmind::search::chess;
  Position start;
  ASSERT_TRUE(parse_fen(kStartFen, start).ok());
  Move m;
  EXPECT_TRUE(parse_uci_move(start, h.out.substr(second + 9, h.out.find('\n', second) - second - 9), m).ok()) << h.out;
  // The bench signature: fixed positions, fixed depth, one thread (changing the search changes it).
  const Outcome b = run("warpmind-chess bench 5");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("Nodes searched: 227837"), std::string::npos) << b.out;
}

TEST(Cli, Connect6EngineSpeaksTheTextProtocol) {
  const fs::path in = scratch("c6-in.txt");
  std::ofstream(in) << "name\nnew black\ndepth 2\nmove KJKK\nmove LL\nmove ZZZZ\nfoo\nnew white\nmove K10\n"
                       "black A1B1C1D1\nwhite S19\nnext\nquit\n";
  const Outcome r = run("warpmind-connect6 < " + in.string());
  ASSERT_EQ(r.status, 0) << r.out;
  // stdout holds only the name and moves (errors and notes go to stderr).
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> moves;
  while (std::getline(lines, line)) {
    if (line == "name warpmind") continue;
    ASSERT_EQ(line.rfind("move ", 0), 0u) << line;
    moves.push_back(line.substr(5));
  }
  ASSERT_EQ(moves.size(), 4u) << r.out;
  EXPECT_EQ(moves[0], "JJ");                         // Black's opening stone, the centre
  EXPECT_EQ(moves[1].size(), 4u);                    // then two stones a turn
  EXPECT_EQ(moves[2].size(), 4u);                    // White's answer to K10
  EXPECT_NE(moves[3].find("EA"), std::string::npos)  // after the set-up, Black to move completes A1..F1
      << moves[3];
  // The bench signature: fixed openings, fixed depth, one thread (changing the search changes it).
  const Outcome b = run("warpmind-connect6 bench 3");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("bench nodes 2223"), std::string::npos) << b.out;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in, nullptr, false);
}

// What every results file must say of its records: `checked` only with a named reference that is not
// the record's own variant; returns the variants whose records are all checked and those with any not.
struct CheckedSummary {
  std::set<std::string> all_checked, some_unchecked;
};
CheckedSummary checked_summary(const nlohmann::json& j, const std::string& what) {
  CheckedSummary s;
  EXPECT_TRUE(j.is_object() && j.contains("records")) << what;
  if (!j.is_object() || !j.contains("records")) return s;
  for (const auto& r : j["records"]) {
    const std::string v = r.at("variant");
    EXPECT_TRUE(r.contains("checked_against")) << what << " " << v;
    const bool checked = r.at("checked");
    if (checked) {
      EXPECT_TRUE(r["checked_against"].is_string()) << what << " " << v;
      if (r["checked_against"].is_string()) EXPECT_NE(r["checked_against"].get<std::string>(), v) << what;
    }
    (checked ? s.all_checked : s.some_unchecked).insert(v);
  }
  for (const std::string& v : s.some_unchecked) s.all_checked.erase(v);
  return s;
}

// The quick mode of every suite on the CPU: results JSON in the documented shape, every record checked
// against an independent reference but the one-thread batch rows, which have none without a GPU.
TEST(Cli, BenchQuickWritesCheckedResults) {
  struct Suite {
    const char* name;
    const char* args;
    std::set<std::string> variants;
  };
  const Suite suites[] = {
      {"field", "--repeats 2", {"cpu-stamp", "cpu-naive"}},
      {"crowd", "--ticks 3", {"cpu-reference"}},
      {"aoi", "--ticks 2", {"cpu-fast", "cpu-grid"}},
      {"ddm", "--steps 3", {"cpu-sort", "cpu-brute"}},
      {"hybrid", "", {"hybrid-cpu"}},
      {"chess", "", {"perft-cpu", "cpu-pool", "hybrid-cpu-pool"}},
      {"connect6", "", {"cpu-pool", "hybrid-cpu-pool"}},
  };
  for (const Suite& su : suites) {
    SCOPED_TRACE(su.name);
    const fs::path out = scratch(std::string("bench-") + su.name + ".json");
    const Outcome r = run(std::string("warpmind-bench ") + su.name + " --quick --backend cpu " + su.args + " --out " +
                          out.string());
    ASSERT_EQ(r.status, 0) << r.out;
    const nlohmann::json j = read_json(out);
    for (const char* key : {"device", "commit", "date", "suite", "records"}) EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j.value("suite", ""), su.name);
    EXPECT_EQ(j.value("device", ""), std::string(su.name) == "hybrid" ? "node counts (machine-independent)" : "cpu");
    for (const auto& rec : j["records"])
      for (const char* key : {"params", "variant", "backend", "median_ms", "min_ms", "max_ms", "repeats", "floor_ms",
                              "checked", "checked_against"})
        EXPECT_TRUE(rec.contains(key)) << key;
    const CheckedSummary c = checked_summary(j, su.name);
    EXPECT_EQ(c.all_checked, su.variants);
    const std::set<std::string> unchecked = std::string(su.name) == "chess" || std::string(su.name) == "connect6"
                                                ? std::set<std::string>{"cpu-1-thread"}
                                                : std::set<std::string>{};
    EXPECT_EQ(c.some_unchecked, unchecked);
  }
  EXPECT_EQ(run("warpmind-bench nosuite").status, 2);
  EXPECT_EQ(run("warpmind-bench field --repeats x").status, 2);
}

// `checked: true` must mean compared: with one variant's output altered behind the test-only switch,
// that variant's records say `checked: false` (and everything compared with it), and the suite fails.
TEST(Cli, BenchCheckedFailsForACorruptedVariant) {
  struct Case {
    const char* suite;
    const char* args;
    const char* corrupt;
    std::set<std::string> still_checked;  // variants whose records must stay checked
  };
  const Case cases[] = {
      {"field", "--repeats 1", "cpu-stamp", {}},
      {"field", "--repeats 1", "cpu-naive", {"cpu-stamp"}},
      {"crowd", "--ticks 2", "cpu-reference", {}},
      {"aoi", "--ticks 1", "cpu-fast", {}},
      {"aoi", "--ticks 1", "cpu-grid", {"cpu-fast"}},
      {"ddm", "--steps 2", "cpu-sort", {}},
      {"ddm", "--steps 0", "cpu-brute", {"cpu-sort"}},
      {"hybrid", "", "hybrid-cpu", {}},
      {"chess", "", "cpu-pool", {"perft-cpu", "hybrid-cpu-pool"}},
      {"connect6", "", "hybrid-cpu-pool", {"cpu-pool"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.suite) + " with " + c.corrupt + " corrupted");
    const fs::path out = scratch(std::string("corrupt-") + c.suite + ".json");
    ::setenv("WARPMIND_BENCH_CORRUPT", c.corrupt, 1);
    const Outcome r = run(std::string("warpmind-bench ") + c.suite + " --quick --backend cpu " + c.args + " --out " +
                          out.string());
    ::unsetenv("WARPMIND_BENCH_CORRUPT");
    EXPECT_EQ(r.status, 1) << r.out;
    const CheckedSummary s = checked_summary(read_json(out), c.suite);
    EXPECT_EQ(s.all_checked.count(c.corrupt), 0u);
    EXPECT_EQ(s.some_unchecked.count(c.corrupt), 1u);
    for (const std::string& v : c.still_checked) EXPECT_EQ(s.all_checked.count(v), 1u) << v;
  }
}

// Results under a folder bench/results/ are written only from a build that is exactly a commit (or with
// --allow-dirty), and the committed ones say so.
TEST(Cli, CommittedResultsNameACleanCommit) {
  const fs::path results = fs::path(warpmind::test::source_dir()) / "bench" / "results";
  if (!fs::exists(results)) GTEST_SKIP() << "no bench/results in this tree";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(results)) {
    if (e.path().extension() != ".json") continue;
    const nlohmann::json j = read_json(e.path());
    if (!j.is_object() || !j.contains("commit")) continue;  // match records and other files
    ++files;
    const std::string commit = j["commit"];
    EXPECT_EQ(commit.find("dirty"), std::string::npos) << e.path();
    EXPECT_NE(commit, "unknown") << e.path();
  }
  EXPECT_GT(files, 0);
  // The stamp the binary carries decides: a build from a modified tree refuses, a clean one writes.
  const fs::path dir = scratch("bench") / "results";
  fs::create_directories(dir);
  const std::string quick = "warpmind-bench field --quick --backend cpu --repeats 1 ";
  ASSERT_EQ(run(quick + "--out " + scratch("stamp.json").string()).status, 0);
  const std::string built_from = read_json(scratch("stamp.json")).value("commit", "");
  const Outcome r = run(quick + "--out " + (dir / "f.json").string());
  if (built_from.find("-dirty") != std::string::npos || built_from == "unknown") {
    EXPECT_EQ(r.status, 2);
    EXPECT_FALSE(fs::exists(dir / "f.json"));
    EXPECT_EQ(run(quick + "--allow-dirty --out " + (dir / "f.json").string()).status, 0);
  } else {
    EXPECT_EQ(r.status, 0);
  }
  EXPECT_TRUE(fs::exists(dir / "f.json"));
}

}  // namespace
