// The programs as a user runs them: exit status 0 / 2, outputs written, JSON summaries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <array>
#include <bit>
#include <iterator>
#include <random>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

#include "aoi_oracle.h"
#include "crowd_oracle.h"
#include "ddm_oracle.h"
#include "gpu_helpers.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

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

#if WARPMIND_ENGINE_TESTS
TEST(Cli, DemoRendersHeadlessFrames) {
  const fs::path dir = scratch("demo");
  const Outcome r =
      run("warpmind-demo --headless --backend cpu --frames 3 --ticks-per-frame 4 --units 300 --size 256x256 --out " +
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
  EXPECT_NE(ss.str().find("\"render_overlap\": true"), std::string::npos);
  EXPECT_EQ(run("warpmind-demo --headless --window").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --scene nowhere").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --units 0").status, 2);
}

// The chess scene headless: the position after the given moves and the computer's, drawn as a board
// (light and dark squares, both colours of pieces, the last move marked); bad FEN or moves: exit 2.
TEST(Cli, DemoBoardsHybridSearchHeadless) {
  // The computer's hybrid search through the headless board scenes: its last search is in stats.json
  // (on the CPU's batches here; on a GPU machine gpu-run.sh's demo-boards step asks for cuda).
  for (const char* scene : {"chess", "connect6"}) {
    SCOPED_TRACE(scene);
    const fs::path dir = scratch(std::string("demo-hybrid-") + scene);
    const Outcome r =
        run(std::string("warpmind-demo --headless --scene ") + scene +
            " --ai-plays 2 --ai-time 300 --ai-search hybrid --backend cpu --size 256x256 --out " + dir.string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::ifstream in(dir / "stats.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    ASSERT_TRUE(j.is_object() && j.contains("computer")) << ss.str();
    const nlohmann::json& c = j["computer"];
    EXPECT_EQ(c.value("search", ""), "hybrid");
    EXPECT_FALSE(c.value("on_gpu", true));
    EXPECT_GE(c.value("depth", 0), 1);
    EXPECT_GT(c.value("batched_nodes", 0), 0);
    EXPECT_GE(c.value("nodes", 0), c.value("batched_nodes", 0));
  }
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --ai-search best --out " + scratch("demo-hybrid-bad").string())
                .status,
            2);
}

TEST(Cli, DemoChessSceneHeadless) {
  const fs::path dir = scratch("demo-chess");
  const Outcome r =
      run("warpmind-demo --headless --scene chess --moves \"e2e4 e7e5 g1f3\" --ai-plays 1 --ai-time 100 "
          "--size 384x384 --out " +
          dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(is_png(dir / "frame-0000.png"));
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  ASSERT_TRUE(j.is_object()) << ss.str();
  const std::string moves = j.value("moves", "");
  EXPECT_EQ(moves.rfind("e2e4 e7e5 g1f3 ", 0), 0u) << moves;  // and the computer's answer
  EXPECT_EQ(std::count(moves.begin(), moves.end(), ' '), 3);
  EXPECT_EQ(j.value("status", ""), "White to move");
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "frame-0000.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  int light = 0, dark = 0, white_piece = 0, black_piece = 0, marked = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    light += R == 236 && G == 214 && B == 176;
    dark += R == 174 && G == 127 && B == 90;
    white_piece += R > 240 && G > 240 && B > 230;
    black_piece += R < 50 && G < 50 && B < 50 && R > 20;
    marked += R > 200 && G > 180 && B < 130 && !(R == 236 && G == 214);  // the last move's squares, yellowed
  }
  stbi_image_free(px);
  EXPECT_GT(light, 20000);
  EXPECT_GT(dark, 20000);
  EXPECT_GT(white_piece, 1500);
  EXPECT_GT(black_piece, 1500);
  EXPECT_GT(marked, 300);
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --fen \"8/8/8 w\" --out " + dir.string()).status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --moves \"e2e5\" --out " + dir.string()).status, 2);
}

// The connect6 scene headless: the turns given and the computer's, drawn as stones on the grid.
TEST(Cli, DemoConnect6SceneHeadless) {
  const fs::path dir = scratch("demo-connect6");
  const Outcome r =
      run("warpmind-demo --headless --scene connect6 --moves \"JJ KJKK\" --ai-plays 2 --ai-time 100 "
          "--size 384x384 --out " +
          dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  ASSERT_TRUE(j.is_object()) << ss.str();
  const std::string turns = j.value("turns", "");
  EXPECT_EQ(turns.rfind("JJ KJKK ", 0), 0u) << turns;
  EXPECT_EQ(std::count(turns.begin(), turns.end(), ' '), 3);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "frame-0000.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  int wood = 0, black = 0, white = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    wood += R == 214 && G == 172 && B == 104;
    black += R == 30 && G == 30 && B == 34;
    white += R == 246 && G == 244 && B == 236;
  }
  stbi_image_free(px);
  EXPECT_GT(wood, 50000);
  EXPECT_GT(black, 150);  // four stones of each colour after Black's opening and three more turns
  EXPECT_GT(white, 150);
  EXPECT_EQ(run("warpmind-demo --headless --scene connect6 --moves \"JJ JJKK\" --out " + dir.string()).status, 2);
}

#if WARPMIND_WINDOW_TESTS
TEST(Cli, DemoWindowUnderXvfb) {
  // The README's main command with a display: every scene opens a window, runs, and the screenshot of
  // its last frame shows something (pixel spread), with the validation layer quiet.
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run not installed (package xvfb)";
  for (const char* scene : {"battle", "crowd", "field", "aoi", "regions", "chess", "connect6"}) {
    SCOPED_TRACE(scene);
    const fs::path dir = scratch(std::string("window-") + scene);
    const std::string cmd =
        "xvfb-run -a -s '-screen 0 800x600x24' env WARPMIND_VK_VALIDATION=1 " + warpmind::test::bin_dir() +
        "/warpmind-demo --window --backend cpu --frames 12 --units 300 " + "--size 640x480 --scene " + scene +
        " --out " + dir.string() + " > " + (dir / "log.txt").string() + " 2>&1";
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
    // The screenshot is the window as presented: the panel's title bar (ImGui's dark style, focused)
    // is in it.
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load((dir / "screenshot-000.png").c_str(), &w, &h, &n, 4);
    ASSERT_NE(px, nullptr);
    EXPECT_EQ(w, 640);
    EXPECT_EQ(h, 480);
    int title = 0;
    for (int i = 0; i < w * h; ++i) title += px[4 * i] == 41 && px[4 * i + 1] == 74 && px[4 * i + 2] == 122;
    stbi_image_free(px);
    EXPECT_GT(title, 2000);
  }
}
#endif
#endif

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

// As run(), but also keeps stderr (for the one-line reasons of exit status 2).
struct FullOutcome {
  int status;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FullOutcome run_full(const std::string& args) {
  const std::string stem = "wm_cli_full_" + std::to_string(::getpid());
  const fs::path out = fs::temp_directory_path() / (stem + ".out"), err = fs::temp_directory_path() / (stem + ".err");
  const std::string cmd = warpmind::test::bin_dir() + "/" + args + " > " + out.string() + " 2> " + err.string();
  const int raw = std::system(cmd.c_str());
  FullOutcome o{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return o;
}

// The integer after "key": in a one-line JSON object (-1 when absent).
long long json_int(const std::string& j, const std::string& key) {
  const auto at = j.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::strtoll(j.c_str() + at + key.size() + 3, nullptr, 10);
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

std::string tick_csv(const std::vector<std::array<std::size_t, 5>>& per_tick) {
  std::string s = "tick,moved,stayed,out_of_world,blocked,collisions\n";
  for (std::size_t t = 0; t < per_tick.size(); ++t) {
    s += std::to_string(t);
    for (std::size_t k : per_tick[t]) {
      s += ',';
      s += std::to_string(k);
    }
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

// The hybrid search answers within its clock: refereed games at 1 s + 10 ms and 3 s + 50 ms against
// the alpha-beta engine, where a move that comes after the flag falls loses the game (and the referee
// exits 1). The budget also holds when a depth runs longer than predicted: it is stopped at the budget.
TEST(Cli, HybridSearchNeverLosesOnTime) {
  const std::string chess = warpmind::test::bin_dir() + "/warpmind-chess";
  for (const char* clock : {"--time 1000 --inc 10 --games 2", "--time 3000 --inc 50 --games 1"}) {
    const Outcome r = run("warpmind-referee --engine1 " + chess + " --options1 Search=hybrid,Lmax=256 --engine2 " +
                          chess + " " + clock);
    EXPECT_EQ(r.status, 0) << clock << "\n" << r.out;
    EXPECT_NE(r.out.find("illegal moves 0, time losses 0"), std::string::npos) << clock << "\n" << r.out;
  }
  EXPECT_EQ(run("warpmind-referee --engine1 x --engine2 y --options1 Search").status, 2);
  // The same with whole subtrees below the horizon (SubtreePlies): the batches of subtrees stay within
  // the clock too.
  const Outcome s = run("warpmind-referee --engine1 " + chess + " --options1 Search=hybrid,SubtreePlies=2 --engine2 " +
                        chess + " --time 1000 --inc 10 --games 2");
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("illegal moves 0, time losses 0"), std::string::npos) << s.out;
}

// Connect6 matches: pairs of games from the same opening, colours swapped; every turn checked and timed.
// The hybrid (with one-turn subtrees below its horizon) against the engine's alpha-beta: no illegal
// turn, no turn past its time.
TEST(Cli, Connect6MatchesAreRefereed) {
  const std::string c6 = warpmind::test::bin_dir() + "/warpmind-connect6";
  const Outcome r =
      run("warpmind-referee --game connect6 --engine1 '" + c6 + " 2>/dev/null' --engine2 '" + c6 +
          " 2>/dev/null' --options1 search=hybrid,plies=1,depth=8 --options2 depth=8 --games 2 --time 300 "
          "--inc 150");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("game 1: engine 1 black"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("game 2: engine 1 white"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("illegal moves 0, time losses 0"), std::string::npos) << r.out;
  // An engine that answers nonsense loses at once; a bad --game is refused.
  const Outcome bad =
      run("warpmind-referee --game connect6 --engine1 'while read l; do case $l in name) echo name x;; *) echo move "
          "ZZZZ;; esac; done' --engine2 '" +
          c6 + " 2>/dev/null' --games 1 --time 300");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("illegal turn 'ZZZZ'"), std::string::npos) << bad.out;
  // The summary's score line: no points of one game is an Elo difference of minus infinity.
  EXPECT_NE(bad.out.find("score: 0.0% of 1 games, Elo -inf (95%: -inf .. -inf)"), std::string::npos) << bad.out;
  EXPECT_EQ(run("warpmind-referee --game go --engine1 x --engine2 y").status, 2);
}

TEST(Cli, ChessEngineSpeaksUci) {
  const fs::path in = scratch("uci-in.txt");
  std::ofstream(in)
      << "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 4\n"
         "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo nodes 5000\n"
         "position startpos\ngo perft 3\n"
         "position fen not a fen\nposition startpos moves e2e5\ngo bogus\nsetoption name Hash value x\n"
         "setoption name Threads value 2\nposition startpos\ngo wtime 300 btime 300 winc 0 binc 0\nquit\n";
  const Outcome r = run("warpmind-chess < " + in.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* line :
       {"id name warpmind", "option name Hash type spin", "option name Threads", "uciok", "readyok", "info depth 4 ",
        " score cp ", "bestmove a1a8", "score mate 1", "e2e4: 600", "Nodes searched: 8902", "info string error: FEN",
        "info string error: move 'e2e5' is not legal", "info string error: go: unknown parameter 'bogus'",
        "info string error: option Hash"})
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
  EXPECT_NE(b.out.find("Nodes searched: 12739"), std::string::npos) << b.out;  // the built-in network
  const fs::path classical_in = scratch("bench-classical.txt");
  std::ofstream(classical_in) << "setoption name Evaluation value classical\nbench 5\nquit\n";
  const Outcome c = run("warpmind-chess < " + classical_in.string());
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("Nodes searched: 13095"), std::string::npos) << c.out;  // the classical evaluation
}

// warpmind-tune on labelled positions whose reference score is the engine's own evaluation plus 60 for
// each knight ahead: the fit must lower the error (by raising the knight), every recorded evaluation must
// equal the engine's, and the committed chess_eval.h must be exactly what the tuner writes for its own
// weights (so a tuning run changes numbers only).
// Labelled positions from random games: the engine's evaluation plus `knight_bonus` for each knight ahead.
void write_knight_data(const fs::path& path, int knight_bonus, int games = 60) {
  using namespace warpmind::search::chess;
  std::ofstream out(path);
  out << "not a position\n8/8/8/8/8/8/8/8 w - - 0 1;10;e2e4;1\n";  // malformed: dropped
  std::mt19937 rng(5);
  for (int game = 0; game < games; ++game) {
    Position p;
    ASSERT_TRUE(parse_fen(kStartFen, p).ok());
    for (int ply = 0; ply < 60; ++ply) {
      MoveList moves;
      generate_legal(p, moves);
      if (moves.size == 0) break;
      const Move* quiet = std::find_if(moves.begin(), moves.end(), [](Move m) {
        return !(m.flags() & (Move::Capture | Move::EnPassant)) && m.promo() == NoPiece;
      });
      if (ply >= 6 && quiet != moves.end() && !p.in_check()) {
        const Color us = p.side, them = us == White ? Black : White;
        const int knights = std::popcount(p.pieces[us][Knight]) - std::popcount(p.pieces[them][Knight]);
        out << to_fen(p) << ';' << evaluate(p) + knight_bonus * knights << ';' << move_to_uci(*quiet) << ";0.5\n";
      }
      Undo u;
      make_move(p, moves.moves[rng() % static_cast<unsigned>(moves.size)], u);
    }
  }
}

TEST(Cli, TuneFitsTheChessEvaluation) {
  const fs::path data = scratch("tune.lbl");
  write_knight_data(data, 150);
  const Outcome r = run("warpmind-tune --data " + data.string() + " --iterations 300 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.rfind("{\"positions\"")));
  EXPECT_GT(j["positions"].get<int>(), 1000);
  EXPECT_GE(j["dropped"].get<int>(), 1);
  EXPECT_EQ(j["mismatches"].get<int>(), 0);
  EXPECT_LT(j["error_fit"][1].get<double>(), 0.75 * j["error_fit"][0].get<double>()) << r.out;
  EXPECT_LT(j["error_held_out"][1].get<double>(), 0.9 * j["error_held_out"][0].get<double>()) << r.out;
  EXPECT_NE(r.out.find("constexpr short kMg[6][64]"), std::string::npos);
  // The header round trip, and its weights untouched by zero steps.
  const fs::path header = scratch("chess_eval.h");
  const fs::path source = fs::path(WARPMIND_SOURCE_DIR) / "ai/src/search/chess/chess_eval.h";
  fs::copy_file(source, header, fs::copy_options::overwrite_existing);
  ASSERT_EQ(run("warpmind-tune --data " + data.string() + " --iterations 0 --header " + header.string()).status, 0);
  const auto read = [](const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(read(header), read(source));
  // Bad input: a missing file, a file with no usable position, a header of another shape.
  EXPECT_EQ(run("warpmind-tune --data " + scratch("missing.lbl").string()).status, 2);
  const fs::path junk = scratch("junk.lbl");
  std::ofstream(junk) << "x;y;z;w\n";
  EXPECT_EQ(run("warpmind-tune --data " + junk.string()).status, 2);
  const fs::path other = scratch("other.h");
  std::ofstream(other) << "// nothing here\n";
  EXPECT_EQ(run("warpmind-tune --data " + data.string() + " --iterations 0 --header " + other.string()).status, 2);
  EXPECT_EQ(read(other), "// nothing here\n");
}

// warpmind-tune --network on the same kind of data (knights worth 150 more than the engine thinks): the
// residual network learns the correction, the file loads, and warpmind-chess plays with it (EvalFile),
// refusing a bad file without changing its evaluation.
TEST(Cli, TuneTrainsTheChessNetwork) {
  using namespace warpmind::search::chess;
  const fs::path data = scratch("net.lbl"), net_path = scratch("net.wmn");
  write_knight_data(data, 150, 600);
  const Outcome r =
      run("warpmind-tune --data " + data.string() + " --network " + net_path.string() +
          " --hidden 32 --epochs 30 --lambda 1 --residual --threads 2 --batch 256 --learning-rate 0.003 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.rfind("{\"positions\"")));
  EXPECT_GT(j["positions"].get<int>(), 1000);
  EXPECT_TRUE(j["residual"].get<bool>());
  EXPECT_LT(j["error_held_out"][1].get<double>(), 0.5 * j["error_held_out_classical"].get<double>()) << r.out;
  EXPECT_LE(j["quantisation_cp"]["mean"].get<double>(), 5.0);
  std::shared_ptr<const Network> net;
  ASSERT_TRUE(Network::load(net_path.string(), net).ok());
  EXPECT_EQ(net->hidden(), 32);
  EXPECT_TRUE(net->residual());
  Position up_a_knight;
  ASSERT_TRUE(parse_fen("r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", up_a_knight).ok());
  EXPECT_GT(net->evaluate(up_a_knight), 60);  // the correction: the knight is worth more than evaluate() says
  // The engine with the file, with a bad file (an error; the evaluation stays), and classical.
  const fs::path bad = scratch("bad.wmn");
  std::ofstream(bad) << "WMNN garbage";
  const auto bench = [&](const std::string& options) {
    const fs::path in = scratch("net-uci.txt");
    std::ofstream(in) << "uci\n" << options << "bench 4\nquit\n";
    const Outcome o = run("warpmind-chess < " + in.string());
    EXPECT_EQ(o.status, 0);
    const std::size_t at = o.out.find("Nodes searched: ");
    return std::make_pair(at == std::string::npos ? std::string() : o.out.substr(at, o.out.find('\n', at) - at), o.out);
  };
  const auto builtin = bench(""), file = bench("setoption name EvalFile value " + net_path.string() + "\n");
  const auto refused = bench("setoption name EvalFile value " + net_path.string() + "\nsetoption name EvalFile value " +
                             bad.string() + "\n");
  const auto classical = bench("setoption name Evaluation value classical\n");
  ASSERT_FALSE(builtin.first.empty()) << builtin.second;
  EXPECT_NE(file.first, builtin.first);
  EXPECT_EQ(refused.first, file.first);
  EXPECT_NE(refused.second.find("info string error: option EvalFile:"), std::string::npos) << refused.second;
  EXPECT_NE(classical.first, builtin.first);
  // Bad flags: a hidden size that is not a multiple of 16.
  EXPECT_EQ(
      run("warpmind-tune --data " + data.string() + " --network " + scratch("x.wmn").string() + " --hidden 20").status,
      2);
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
  // The hybrid search through the protocol (on the CPU pool here), under a time limit; bad values are
  // refused with a note and change nothing.
  const fs::path hin = scratch("c6-hybrid.txt");
  std::ofstream(hin) << "search hybrid\nbackend cpu\nsearch minimax\nbackend tpu\nthreats 33\ndepth 3\ntime 2000\n"
                        "new white\n"
                        "move JJ\nmove KKKL\nquit\n";
  const fs::path hout = scratch("c6-hybrid.out"), herr = scratch("c6-hybrid.err");
  const auto h0 = std::chrono::steady_clock::now();
  const int hraw = std::system((warpmind::test::bin_dir() + "/warpmind-connect6 < " + hin.string() + " > " +
                                hout.string() + " 2> " + herr.string())
                                   .c_str());
  const double h_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
  ASSERT_TRUE(WIFEXITED(hraw) && WEXITSTATUS(hraw) == 0);
  const auto slurp = [](const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  const std::string hstdout = slurp(hout), hstderr = slurp(herr);
  for (const char* text : {"info hybrid depth 1", "on the CPU", "error: search: alphabeta or hybrid",
                           "error: backend: cpu, cuda or auto", "error: threats: '33' is out of range (0..32)"})
    EXPECT_NE(hstderr.find(text), std::string::npos) << text << " in:\n" << hstderr;
  std::istringstream hl(hstdout);
  std::size_t replies = 0;
  for (std::string l; std::getline(hl, l);) replies += l.rfind("move ", 0) == 0 && l.size() == 9;
  EXPECT_EQ(replies, 2u) << hstdout;
  EXPECT_LT(h_ms, 2 * 2000.0 + 3000.0);  // two turns within their budgets, and the process
  // The bench signature: fixed openings, fixed depth, one thread (changing the search changes it).
  const Outcome b = run("warpmind-connect6 bench 3");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_NE(b.out.find("bench nodes 2234"), std::string::npos) << b.out;
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
      if (r["checked_against"].is_string()) {
        EXPECT_NE(r["checked_against"].get<std::string>(), v) << what;
      }
    }
    (checked ? s.all_checked : s.some_unchecked).insert(v);
  }
  for (const std::string& v : s.some_unchecked) s.all_checked.erase(v);
  return s;
}

// The quick mode of every suite on the CPU: results JSON in the documented shape, every record checked
// against an independent reference but the one-thread batch rows, which have none without a GPU, and
// the engines' own searches (a different search, timed beside the others).
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
      {"chess", "", {"perft-cpu", "cpu-pool", "hybrid-cpu-pool", "subtrees-cpu-pool"}},
      {"connect6", "", {"cpu-pool", "hybrid-cpu-pool", "subtrees-cpu-pool"}},
  };
  for (const Suite& su : suites) {
    SCOPED_TRACE(su.name);
    const fs::path out = scratch(std::string("bench-") + su.name + ".json");
    const Outcome r =
        run(std::string("warpmind-bench ") + su.name + " --quick --backend cpu " + su.args + " --out " + out.string());
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
                                                ? std::set<std::string>{"cpu-1-thread", "engine-threads"}
                                                : std::set<std::string>{};
    EXPECT_EQ(c.some_unchecked, unchecked);
  }
  EXPECT_EQ(run("warpmind-bench nosuite").status, 2);
  EXPECT_EQ(run("warpmind-bench field --repeats x").status, 2);
}

// The board suites run in parts (--part), so each fits a time-limited call: only the named parts'
// records are written, and an unknown part is an error.
TEST(Cli, BenchBoardSuitesRunInParts) {
  const fs::path out = scratch("bench-connect6-plain.json");
  const Outcome r = run("warpmind-bench connect6 --quick --backend cpu --part plain --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = read_json(out);
  ASSERT_FALSE(j["records"].empty());
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["params"].value("experiment", ""), "search");
    EXPECT_FALSE(rec["params"].value("pruning", true));
  }
  EXPECT_EQ(run("warpmind-bench chess --quick --backend cpu --part perft,bogus").status, 2);
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
    const Outcome r =
        run(std::string("warpmind-bench ") + c.suite + " --quick --backend cpu " + c.args + " --out " + out.string());
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

// ---- --help and the flags accepted -------------------------------------------------------------------

// The flags a --help lists, each with whether it takes a value: option rows are "  --name TYPE  what" or
// "  --name  what" (a name and its type are followed by two spaces or the end of the line).
std::map<std::string, bool> help_flags(const std::string& help) {
  std::map<std::string, bool> flags;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string names = line.substr(2, line.find(' ', 2) - 2);
    const std::size_t after = 2 + names.size();
    const bool value = after + 1 < line.size() && line[after] == ' ' && line[after + 1] != ' ';
    std::istringstream each(names);
    for (std::string name; std::getline(each, name, ',');)
      if (name.rfind("--", 0) == 0) flags[name] = value;
  }
  return flags;
}

// Every program and subcommand: --help exits 0 and lists exactly the flags the program takes (pinned
// here: the names other tools use); each flag it lists is accepted (given it, the one complaint is about
// an unknown flag beside it, which nothing was run for); an unknown flag is exit 2 with one line on
// stderr that names it, prefixed with the program and subcommand.
TEST(Cli, HelpListsExactlyTheFlagsAccepted) {
  const std::string common = "--help --backend --threads";
  const std::string suite = common + " --out --quick --allow-dirty";
  const std::vector<std::pair<std::string, std::string>> programs = {
    {"warpmind", "--help"},
    {"warpmind field", common + " --scenario --resolution --count --radius --world --distribution --seed --variant "
                                "--repeat --png --raw --layer --range --json"},
    {"warpmind crowd", common + " --scenario --agents --radius --spacing --step-size --seed --moves --steps --rule "
                                "--variant --verify --positions --ticks --json"},
    {"warpmind aoi", common + " --scenario --clients --hot-spots --map --aoi --shape --attack-share --ticks "
                              "--no-visibility --notifications --variant --seed --json"},
    {"warpmind ddm", common + " --scenario --regions --alpha --size --space --distribution --dimensions --steps "
                              "--variant --seed --pairs --json"},
    {"warpmind-bench", "--help"},
    {"warpmind-bench field", suite + " --repeats --naive-limit --no-scale --only-scale"},
    {"warpmind-bench crowd", suite + " --ticks --no-scale --rule"},
    {"warpmind-bench aoi",
     suite + " --ticks --max-clients --no-scale --scale-ticks --chunk --grid-max-clients --mailboxes"},
    {"warpmind-bench ddm", suite + " --steps --max-regions --no-brute"},
    {"warpmind-bench hybrid", suite + " --width --depth --max-tree-mb"},
    {"warpmind-bench chess", suite + " --part --perft-only --resident-only"},
    {"warpmind-bench connect6", suite + " --part --resident-only"},
    {"warpmind-referee", "--help --game --engine1 --engine2 --options1 --options2 --games --time --inc --seed --log"},
    {"warpmind-chess", "--help"},
    {"warpmind-chess bench", "--help"},
    {"warpmind-connect6", "--help"},
    {"warpmind-connect6 bench", "--help"},
#if WARPMIND_ENGINE_TESTS
    {"warpmind-demo",
     "--help --headless --window --scene --connect --fen --moves --ai-plays --ai-time --ai-search --frames "
     "--ticks-per-frame --out --units --map-file --map --resolution --sight --gap --heat-range "
     "--no-interop --save-every --size --backend --seed"},
#endif
  };
  const std::string unknown = "--zz-no-such-flag";
  for (const auto& [cmd, expected] : programs) {
    SCOPED_TRACE(cmd);
    const FullOutcome help = run_full(cmd + " --help");
    ASSERT_EQ(help.status, 0) << help.err;
    EXPECT_TRUE(help.err.empty()) << help.err;
    const std::map<std::string, bool> listed = help_flags(help.out);
    std::set<std::string> names, want;
    for (const auto& [name, value] : listed) names.insert(name);
    std::istringstream in(expected);
    for (std::string name; in >> name;) want.insert(name);
    EXPECT_EQ(names, want) << help.out;
    const std::string one_line = cmd + ": unknown option " + unknown + " (see --help)\n";
    for (const auto& [name, value] : listed) {
      if (name == "--help") continue;
      SCOPED_TRACE(name);
      const FullOutcome o = run_full(cmd + " " + name + (value ? "=1" : "") + " " + unknown);
      EXPECT_EQ(o.status, 2);
      EXPECT_EQ(o.err, one_line);
      EXPECT_TRUE(o.out.empty()) << o.out;
    }
    const FullOutcome bad = run_full(cmd + " " + unknown);
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.err, one_line);
    EXPECT_TRUE(bad.out.empty()) << bad.out;
  }
  // Without a subcommand, or with one that is not there: one line naming what is wrong.
  for (const std::string cmd : {"warpmind", "warpmind nosuchcommand", "warpmind-bench", "warpmind-bench nosuite"}) {
    SCOPED_TRACE(cmd);
    const FullOutcome o = run_full(cmd);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.err.rfind(cmd.substr(0, cmd.find(' ')) + ": ", 0), 0u) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
}

// "--name value" and "--name=value" are the same; a range is checked with a message naming the flag and
// the range; a flag's last value wins; a flag without a value takes none.
TEST(Cli, FlagValuesInBothFormsAndChecked) {
  const Outcome spaced = run("warpmind field --backend cpu --resolution 32x16 --count 9 --seed 4 --json");
  const Outcome joined = run("warpmind field --backend=cpu --resolution=32x16 --count=9 --seed=4 --json");
  ASSERT_EQ(spaced.status, 0);
  ASSERT_EQ(joined.status, 0);
  EXPECT_EQ(json_int(spaced.out, "entities"), 9) << spaced.out;
  const auto hashes = [](const std::string& j) { return j.substr(j.find("\"layers\"")); };
  EXPECT_EQ(hashes(spaced.out), hashes(joined.out));
  const Outcome last = run("warpmind field --backend cpu --resolution 32x16 --count 3 --count 9 --seed 4 --json");
  EXPECT_EQ(hashes(last.out), hashes(spaced.out));
  const std::pair<const char*, const char*> bad[] = {
      {"warpmind field --count 100000001",
       "warpmind field: --count: expected an integer in 0..100000000, got "
       "'100000001'\n"},
      {"warpmind crowd --spacing=0.5",
       "warpmind crowd: --spacing: expected a number in [1.000000, 100.000000], got "
       "'0.5'\n"},
      {"warpmind ddm --dimensions 4", "warpmind ddm: --dimensions: expected an integer in 2..3, got '4'\n"},
      {"warpmind aoi --shape hexagon", "warpmind aoi: --shape: expected square or circle, got 'hexagon'\n"},
      {"warpmind field --json=1", "warpmind field: --json takes no value\n"},
      {"warpmind field --count", "warpmind field: --count needs a value\n"},
      {"warpmind field stray", "warpmind field: unexpected argument 'stray'\n"},
      {"warpmind-bench crowd --ticks 0", "warpmind-bench crowd: --ticks: expected an integer in 1..100000, got '0'\n"},
      {"warpmind-bench hybrid --width 129",
       "warpmind-bench hybrid: --width: expected an integer in 1..128, got "
       "'129'\n"},
      {"warpmind-bench chess --part perft,bogus",
       "warpmind-bench chess: --part: unknown part 'bogus' (perft, batches, plain, pruned, subtrees)\n"},
      {"warpmind-referee --engine1 x", "warpmind-referee: --engine2 is required\n"},
      {"warpmind-referee --engine1 x --engine2 y --options1 Search",
       "warpmind-referee: --options1: expected NAME=VALUE, got 'Search'\n"},
      {"warpmind-referee --engine1 x --engine2 y --time 99",
       "warpmind-referee: --time: expected an integer in 100..3600000, got '99'\n"},
  };
  for (const auto& [cmd, err] : bad) {
    SCOPED_TRACE(cmd);
    const FullOutcome o = run_full(cmd);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, err);
    EXPECT_TRUE(o.out.empty()) << o.out;
  }
  // --help wins over anything else on the command line.
  EXPECT_EQ(run("warpmind field --count x --frobnicate --help").status, 0);
}

}  // namespace
